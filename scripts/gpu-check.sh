#!/usr/bin/env bash
# On the GPU machine: unpacks .gpu/bundle.tar.xz (made here by scripts/gpu-bundle.sh), runs every
# `gpu` suite against the CUDA device and writes the log to $OUT/gpu-check.log (or ./gpu-check.log).
# Under a minute on an H200; the device tool runs it as
#   run(command="bash scripts/gpu-check.sh", carry=[".gpu"], timeout_s=300)
set -uo pipefail
cd "$(dirname "$0")/.."
log=${OUT:-.}/gpu-check.log
dir=$(mktemp -d)
tar -C "$dir" -xJf .gpu/bundle.tar.xz
export LD_LIBRARY_PATH="$dir/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export QT_QPA_PLATFORM=offscreen
export AMPSTUDIO_REQUIRE_GPU=1  # a suite that finds no device fails rather than skips
status=0
{
    nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv 2>&1 || true
    for t in $(cat "$dir/tests.txt"); do
        echo "=== $t"
        "$dir/bin/$t" -maxwarnings 0 || status=1
    done
    # compute-sanitizer where the machine allows it (it refuses the device on some runtimes).
    if command -v compute-sanitizer >/dev/null; then
        echo "=== compute-sanitizer test_cuda_backend"
        compute-sanitizer --error-exitcode 3 "$dir/bin/test_cuda_backend" || echo "compute-sanitizer exit $?"
    fi
    echo "=== exit $status"
} 2>&1 | tee "$log"
exit $status
