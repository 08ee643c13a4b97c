// libFuzzer target for the symbol JSON reader: hostile text gives a graph or a LoadError, never a crash, a
// hang or a huge allocation. Whatever it accepts is a round-trip oracle: saving and reading back gives
// the same graph (the version aside: a saved file declares 1.9.1), and a second save is byte-identical.
// Run (preset "fuzz"):  fuzz_symbol_json -dict=tests/fuzz/symbol_json.dict -max_total_time=120 -timeout=5
//   -rss_limit_mb=2048 CORPUS_DIR ../shared/testdata/mxnet tests/fuzz/corpus/symbol_json
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <string_view>

#include "formats/load_error.h"
#include "formats/symbol_json.h"

using namespace ampstudio;

namespace {

[[noreturn]] void fail(const char* what, const std::string& detail = "") {
    std::fprintf(stderr, "fuzz_symbol_json: %s %s\n", what, detail.c_str());
    std::abort();
}

bool sameNode(const Node& a, const Node& b) {
    return a.op == b.op && a.name == b.name && a.attrs == b.attrs && a.inputs == b.inputs &&
           a.controlDeps == b.controlDeps && a.subgraphs == b.subgraphs && a.numOutputs == b.numOutputs;
}

bool sameGraph(const Graph& a, const Graph& b) {
    if (a.size() != b.size() || a.heads != b.heads) {
        return false;
    }
    for (NodeId id = 0; id < a.size(); ++id) {
        if (!sameNode(a.nodes[id], b.nodes[id])) {
            return false;
        }
    }
    auto withoutVersion = [](std::map<std::string, std::string> attrs) {
        attrs.erase("mxnet_version");
        return attrs;
    };
    return withoutVersion(a.attrs) == withoutVersion(b.attrs);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    Graph first;
    try {
        first = parseSymbolJson(text, "fuzz input");
    } catch (const LoadError&) {
        return 0;
    }
    const std::string saved = serializeSymbolJson(first);
    Graph second;
    try {
        second = parseSymbolJson(saved, "saved");
    } catch (const LoadError& e) {
        fail("the saved graph does not load:", e.what());
    }
    if (!sameGraph(first, second)) {
        fail("load -> save -> load changed the graph; saved:", saved);
    }
    if (serializeSymbolJson(second) != saved) {
        fail("saving is not a fixed point; first save:", saved);
    }
    return 0;
}
