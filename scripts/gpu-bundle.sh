#!/usr/bin/env bash
# Builds the GPU test suites and bench_cuda here (sm_90, RelWithDebInfo) and packs them with the
# shared libraries they need that the GPU machine lacks (Qt Core/Test, oneDNN, ICU ...) into
# .gpu/bundle.tar.xz, for scripts/gpu-check.sh to run on the device machine, which has the CUDA
# driver and PyTorch's CUDA libraries but none of Debian's packages and no network. Never packed:
# glibc and the driver's libcuda (the machine's own must be used), and cuBLAS and cuDNN (hundreds of
# MB, and cuDNN loads its engine libraries by name at run time): gpu-check.sh finds the machine's.
#   scripts/gpu-bundle.sh            then, on the device: scripts/gpu-check.sh (carry .gpu)
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup-debian.sh
ams_install_packages
build=build-gpu
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DAMPSTUDIO_CUDA=ON \
    -DCMAKE_CUDA_ARCHITECTURES="90-real" -DAMPSTUDIO_BUILD_GUI=OFF -DAMPSTUDIO_BUILD_BENCH=ON
tests=$(ctest --test-dir "$build" -N -L gpu | awk '/Test +#/ {print $3}')
# bench_cuda where this checkout has it (it is built only with CUDA).
benches=$(cmake --build "$build" --target help | awk -F: '/^bench_cuda:/ {print $1}')
cmake --build "$build" --target $tests $benches
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage/bin" "$stage/lib"
for t in $tests $benches; do
    exe=$(find "$build/tests" -type f -name "$t" -perm -u+x | head -1)
    # Without DWARF (a third of the size each, and the carry to the device is 64 MiB in all); the
    # symbols stay, so backtraces still name functions.
    strip --strip-debug -o "$stage/bin/$t" "$exe"
    ldd "$exe" | awk '/=> \// {print $3}' | while read -r lib; do
        case "$(basename "$lib")" in
            libc.so.*|libm.so.*|libpthread.so.*|libdl.so.*|librt.so.*|ld-linux*|libcuda.so.*) ;;
            libcublas*|libcudnn*) ;;
            *) cp -L "$lib" "$stage/lib/" ;;
        esac
    done
done
echo "$tests" > "$stage/tests.txt"
cp tests/bench/pytorch_reference.py "$stage/bin/"
mkdir -p .gpu
grep -qx '/.gpu/' .git/info/exclude 2>/dev/null || echo '/.gpu/' >> .git/info/exclude
tar -C "$stage" -cJf .gpu/bundle.tar.xz .
ls -l .gpu/bundle.tar.xz
