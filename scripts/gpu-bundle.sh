#!/usr/bin/env bash
# Builds the GPU test suites here (sm_90 and PTX, RelWithDebInfo) and packs them with every shared
# library they need that a bare CUDA machine lacks (Qt Core/Test, oneDNN, ICU ...; never glibc or the
# driver's libcuda) into .gpu/bundle.tar.xz, for scripts/gpu-check.sh to run on the device machine,
# which has the CUDA driver but none of Debian's packages and no network.
#   scripts/gpu-bundle.sh            then, on the device: scripts/gpu-check.sh (carry .gpu)
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup-debian.sh
ams_install_packages
build=build-gpu
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DAMPSTUDIO_CUDA=ON \
    -DCMAKE_CUDA_ARCHITECTURES="90-real;90-virtual" -DAMPSTUDIO_BUILD_GUI=OFF -DAMPSTUDIO_BUILD_BENCH=OFF
tests=$(ctest --test-dir "$build" -N -L gpu | awk '/Test +#/ {print $3}')
cmake --build "$build" --target $tests
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage/bin" "$stage/lib"
for t in $tests; do
    exe=$(find "$build/tests" -type f -name "$t" -perm -u+x | head -1)
    cp "$exe" "$stage/bin/"
    ldd "$exe" | awk '/=> \// {print $3}' | while read -r lib; do
        case "$(basename "$lib")" in
            libc.so.*|libm.so.*|libpthread.so.*|libdl.so.*|librt.so.*|ld-linux*|libcuda.so.*) ;;
            *) cp -L "$lib" "$stage/lib/" ;;
        esac
    done
done
echo "$tests" > "$stage/tests.txt"
mkdir -p .gpu
grep -qx '/.gpu/' .git/info/exclude 2>/dev/null || echo '/.gpu/' >> .git/info/exclude
tar -C "$stage" -cJf .gpu/bundle.tar.xz .
ls -l .gpu/bundle.tar.xz
