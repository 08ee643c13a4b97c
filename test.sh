#!/usr/bin/env bash
# Builds AMP Studio and runs every test suite: the full build (ctest: engine, widgets, app; gpu tests
# skip themselves without a CUDA device), then the engine suites again under ASan + UBSan.
set -euo pipefail
cd "$(dirname "$0")"
source scripts/setup-debian.sh
ams_install_packages

cmake --preset default
cmake --build --preset default
ctest --preset default

cmake --preset asan
cmake --build --preset asan
ctest --preset asan
