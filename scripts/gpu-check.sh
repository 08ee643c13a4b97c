#!/usr/bin/env bash
# On the GPU machine: unpacks .gpu/bundle.tar.xz (made here by scripts/gpu-bundle.sh), runs every
# `gpu` suite against the CUDA device, one short training run under compute-sanitizer, bench_cuda
# and PyTorch's figures for the same models (tests/bench/pytorch_reference.py), and writes the log
# to $OUT/gpu-check.log (or ./gpu-check.log). About 6 minutes on an H200; the device tool runs it as
#   run(command="bash scripts/gpu-check.sh", carry=[".gpu"], timeout_s=480)
set -uo pipefail
cd "$(dirname "$0")/.."
log=${OUT:-.}/gpu-check.log
dir=$(mktemp -d)
tar -C "$dir" -xJf .gpu/bundle.tar.xz
# cuBLAS and cuDNN are not in the bundle: take the ones PyTorch's image installs (NVIDIA's wheels put
# each library in site-packages/nvidia/<name>/lib), else any the loader already knows.
python=$(command -v python3 || true)
nvidia_libs=""
if [ -n "$python" ]; then
    nvidia_libs=$("$python" -c 'import nvidia, os, glob; print(":".join(sorted(d for p in nvidia.__path__ for d in glob.glob(os.path.join(p, "*", "lib")))))' 2>/dev/null || true)
fi
export LD_LIBRARY_PATH="$dir/lib${nvidia_libs:+:$nvidia_libs}${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export QT_QPA_PLATFORM=offscreen
export AMPSTUDIO_REQUIRE_GPU=1  # a suite that finds no device fails rather than skips
export AMPSTUDIO_SOURCE_DIR=$PWD  # the bundled examples, from this copy of the tree
status=0
{
    nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv 2>&1 || true
    echo "LD_LIBRARY_PATH=$LD_LIBRARY_PATH"
    for t in $(cat "$dir/tests.txt"); do
        echo "=== $t"
        timeout 240 "$dir/bin/$t" -maxwarnings 0 || status=1
    done
    # compute-sanitizer on one short training run, where the runtime allows it (gVisor does not).
    if command -v compute-sanitizer >/dev/null; then
        suite=test_cuda_backend
        [ -x "$dir/bin/test_cuda_training" ] && suite=test_cuda_training
        first=$("$dir/bin/$suite" -functions 2>/dev/null | grep -v -e initTestCase -e cleanupTestCase | head -1 | tr -d '()')
        echo "=== compute-sanitizer $suite $first"
        timeout 150 compute-sanitizer --error-exitcode 3 "$dir/bin/$suite" "$first" ||
            echo "compute-sanitizer exit $? (3: errors found; 124: timed out; other: the runtime refused it)"
    fi
    if [ -x "$dir/bin/bench_cuda" ]; then
        echo "=== bench_cuda"
        timeout 200 "$dir/bin/bench_cuda" || status=1
    fi
    if [ -n "$python" ]; then
        echo "=== pytorch_reference.py"
        timeout 120 "$python" "$dir/bin/pytorch_reference.py" || echo "pytorch_reference exit $?"
    fi
    echo "=== exit $status"
    exit $status  # the group runs in a subshell (it is piped): its status is the pipeline's
} 2>&1 | tee "$log"
exit "${PIPESTATUS[0]}"
