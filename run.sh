#!/usr/bin/env bash
# Builds AMP Studio and starts it on its bundled demo model. Installs what is missing first.
set -euo pipefail
cd "$(dirname "$0")"
source scripts/setup-debian.sh
ams_install_packages
cmake --preset default >/dev/null
cmake --build --preset default --target ampstudio
exec ./build/app/ampstudio "$@"
