// libFuzzer target for the .params reader: hostile bytes give a list or a LoadError, never a crash, a
// hang or a huge allocation; and whatever it accepts, the writer writes and the reader reads back
// unchanged (a second write is byte-identical).
// Run: fuzz_ndarray_list WORK_DIR tests/fuzz/corpus/ndarray_list tests/engine/fixtures/ndarray_list
//      ../shared/testdata/mxnet -max_total_time=120 -timeout=5 -rss_limit_mb=2048 -malloc_limit_mb=512
// A crasher, once fixed, goes to tests/engine/fixtures/ndarray_list/fuzz-*.bin (test_ndarray_list reads it).
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <span>

#include "formats/load_error.h"
#include "formats/ndarray_list.h"

using namespace ampstudio;

namespace {

[[noreturn]] void fail(const char* what, const char* detail = "") {
    std::fprintf(stderr, "fuzz_ndarray_list: %s %s\n", what, detail);
    std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    NDArrayList list;
    try {
        list = parseNDArrayList(std::as_bytes(std::span(data, size)), "fuzz input");
    } catch (const LoadError&) {
        return 0;
    }
    // The writer upgrades V1 and pre-V1 records to V2; everything else must come back as it was.
    for (auto& a : list.arrays) {
        if (a.format == NDArrayRecordFormat::V1 || a.format == NDArrayRecordFormat::PreV1) {
            a.format = NDArrayRecordFormat::V2;
        }
    }
    std::vector<std::byte> written;
    try {
        written = serializeNDArrayList(list);
    } catch (const std::exception& e) {
        fail("the writer rejected a parsed list:", e.what());
    }
    NDArrayList reread;
    try {
        reread = parseNDArrayList(written, "rewritten");
    } catch (const LoadError& e) {
        fail("the reader rejected the writer's output:", e.what());
    }
    if (!(reread == list)) {
        fail("the list changed in a write and re-read");
    }
    if (serializeNDArrayList(reread) != written) {
        fail("the second write differs from the first");
    }
    return 0;
}
