#!/usr/bin/env bash
# Builds AMP Studio and runs every test suite: the full build (ctest: engine, widgets, app; gpu tests
# skip themselves without a CUDA device), then the engine suites again under ASan + UBSan.
set -euo pipefail
cd "$(dirname "$0")"
source scripts/setup-debian.sh
ams_install_packages

# The layering (engine <- models <- widgets <- app), include by include; the checker proves itself first.
scripts/check-layers.sh --self-test
scripts/check-layers.sh

cmake --preset default
cmake --build --preset default
ctest --preset default

# The engine and the CLI build with no Qt at all: the boundary DESIGN.md draws, checked.
cmake --preset engine-only
cmake --build --preset engine-only

cmake --preset asan
cmake --build --preset asan
ctest --preset asan
