// libFuzzer target for the ONNX reader and the ONNX conversion pass: hostile bytes give a document or
// a LoadError, never a crash, a hang or a huge allocation; whatever it accepts, the writer writes and
// the reader reads back as the same graph, and a second write is byte-identical to the first; and the
// pass converts it to float16 and to bfloat16 or refuses with a ConversionError, and what it calls
// valid the writer writes and the reader reads back.
// Run: fuzz_onnx_model WORK_DIR /usr/share/libonnx-testdata/data/simple -max_total_time=120 -timeout=5
//      -rss_limit_mb=2048 -malloc_limit_mb=512   (the seed folder holds model.onnx files, read as they are)
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <span>
#include <string>

#include "amp/conversion.h"
#include "amp/onnx_conversion.h"
#include "formats/load_error.h"
#include "formats/model_file.h"
#include "formats/onnx_model.h"

using namespace ampstudio;

namespace {

[[noreturn]] void fail(const char* what, const char* detail = "") {
    std::fprintf(stderr, "fuzz_onnx_model: %s %s\n", what, detail);
    std::abort();
}

bool sameNodes(const Graph& a, const Graph& b) {
    if (a.size() != b.size() || a.heads != b.heads) return false;
    for (std::size_t i = 0; i < a.size(); ++i) {
        if (a.nodes[i].op != b.nodes[i].op || a.nodes[i].name != b.nodes[i].name || a.nodes[i].inputs != b.nodes[i].inputs) {
            return false;
        }
    }
    return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    ModelDocument document;
    try {
        // From memory: no folder, so external data is refused and no file is ever read.
        document = parseModel(ModelFormat::Onnx, std::as_bytes(std::span(data, size)), {}, "fuzz input");
        document.graph->validate();
    } catch (const LoadError&) {
        return 0;
    } catch (const std::exception& e) {
        fail("not a LoadError:", e.what());
    }
    const OnnxModel* model = onnxModelOf(document);
    std::string written;
    try {
        written = serializeOnnxModel(*model, *document.graph, document.params.get());
    } catch (const std::exception& e) {
        fail("the writer rejected a parsed model:", e.what());
    }
    ModelDocument reread;
    try {
        reread = parseModel(ModelFormat::Onnx, std::as_bytes(std::span(written.data(), written.size())), {}, "rewritten");
    } catch (const LoadError& e) {
        fail("the reader rejected the writer's output:", e.what());
    }
    if (!sameNodes(*reread.graph, *document.graph)) {
        fail("the graph changed in a write and re-read");
    }
    if (serializeOnnxModel(*onnxModelOf(reread), *reread.graph, reread.params.get()) != written) {
        fail("the second write differs from the first");
    }
    for (const DType target : {DType::F16, DType::BF16}) {
        ConversionOptions options;
        options.lists = AmpLists::defaults(target, OpSet::Onnx);
        ConversionResult result;
        try {
            result = convertOnnxModel(*model, options);
        } catch (const ConversionError&) {
            continue;
        } catch (const std::exception& e) {
            fail("the pass threw what is no ConversionError:", e.what());
        }
        if (!result.report.dtypeCheck.passed) continue;  // never saved
        const auto* converted = dynamic_cast<const OnnxModel*>(result.source.get());
        if (!converted) fail("no converted ONNX model");
        std::string bytes;
        try {
            bytes = serializeOnnxModel(*converted, result.graph, nullptr);
        } catch (const std::exception& e) {
            fail("the writer rejected a converted model:", e.what());
        }
        try {
            parseModel(ModelFormat::Onnx, std::as_bytes(std::span(bytes.data(), bytes.size())), {}, "converted");
        } catch (const LoadError& e) {
            fail("the reader rejected a converted model:", e.what());
        }
    }
    return 0;
}
