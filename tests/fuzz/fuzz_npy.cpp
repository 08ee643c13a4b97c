// libFuzzer target for the NumPy .npy reader (calibration inputs): hostile bytes give an array or a
// LoadError, never a crash, a hang or a huge allocation; an array read holds exactly the elements
// its shape names.
// Run: fuzz_npy WORK_DIR tests/engine/fixtures/numpy -max_total_time=120 -timeout=5 -rss_limit_mb=2048
//      -malloc_limit_mb=512
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <span>

#include "formats/load_error.h"
#include "formats/npz_file.h"

using namespace ampstudio;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    try {
        const NpyArray a = parseNpy(std::as_bytes(std::span(data, size)), "fuzz input");
        int64_t count = 1;
        for (int64_t d : a.shape) count *= d;
        if (int64_t(a.values.size()) != count) {
            std::fprintf(stderr, "fuzz_npy: %zu values for a shape of %lld\n", a.values.size(), (long long)count);
            std::abort();
        }
    } catch (const LoadError&) {
    }
    return 0;
}
