#!/usr/bin/env bash
# Installs the Debian bookworm packages AMP Studio needs to build and test, only those missing.
# Idempotent; works as root or through sudo. Sourced by run.sh and test.sh.
set -euo pipefail

AMS_PACKAGES=(
    build-essential cmake ninja-build ccache pkg-config
    qt6-base-dev qt6-base-dev-tools qt6-tools-dev qt6-tools-dev-tools qt6-l10n-tools
    qt6-charts-dev libqt6opengl6-dev qt6-svg-dev libgl-dev
    nlohmann-json3-dev libcli11-dev zlib1g-dev libzip-dev libdnnl-dev
    # ONNX models: libonnx's protobuf classes (and checker, shape inference) over protobuf; the
    # conformance models that test_onnx_format opens.
    libonnx-dev libprotobuf-dev libonnx-testdata
    # Abseil's Swiss tables: the name tables of the ONNX import and pass (engine/formats/name_tables.h).
    libabsl-dev
    # Only recommended by libdnnl-dev, but its CMake config calls find_package(OpenCL REQUIRED).
    ocl-icd-opencl-dev
    dataset-fashion-mnist
)

ams_missing_packages() {
    local missing=()
    for p in "${AMS_PACKAGES[@]}" "$@"; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
    done
    echo "${missing[@]:-}"
}

ams_install_packages() {
    local missing
    missing=$(ams_missing_packages "$@")
    [ -z "$missing" ] && return 0
    local sudo=""
    if [ "$(id -u)" -ne 0 ]; then
        command -v sudo >/dev/null || { echo "Need root or sudo to install: $missing" >&2; return 1; }
        sudo="sudo"
    fi
    echo "Installing Debian packages: $missing"
    $sudo apt-get update -qq
    # shellcheck disable=SC2086
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends $missing
}
