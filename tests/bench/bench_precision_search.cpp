// The precision debugger's search (exec/precision_search, exec/onnx/onnx_precision_search) on a
// ResNet-50-class model: by default a GluonCV resnet50_v1b exported with random weights
// (tests/bench/fixtures/, made by tests/differential/export_gluoncv.py), seeded parameters; or any
// ONNX model (--model X.onnx: a torchvision export made by tests/bench/precision_search_peer.py).
// Calibration inputs: seeded uniform (samples, 3, size, size) into the data input, or --inputs X.npz.
// Prints, per tolerance, the median wall time of the whole search (float32 reference, baseline
// conversion, every node's own error, the attempts), the attempts and the set found.
//
//   bench_precision_search [--model SYMBOL.json|MODEL.onnx] [--inputs X.npz] [--samples 8] [--size 224]
//                          [--repeats 3] [--tolerances 1e-2,3e-4] [--metric max-rel] [--atol 0]
//                          [--reuse both|on|off] [--report-set]
//
// `--reuse`: the attempts compute only what differs from the reference and the baseline (on, the
// default in the product), or run their whole model (off); both prints a row each, and the share
// of the attempts' nodes that ran. `--report-set` prints the set found, one node a line ("# fp32: NAME").
//
// Target (issue 21): 8 calibration inputs, max relative error 1e-2 on the logits, a set in under 20 s.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "backend/backend.h"
#include "backend/cpu/cpu_backend.h"
#include "bench_stats.h"
#include "exec/onnx/onnx_precision_search.h"
#include "exec/precision_search.h"
#include "formats/model_file.h"
#include "formats/onnx_program.h"
#include "train/calibration_inputs.h"
#include "platform/process_heap_policy.h"
#include "tensor/seeded_random.h"

using namespace ampstudio;
using namespace ampstudio::bench;

int main(int argc, char** argv) {
    applyLargeModelHeapPolicy();
    std::string model = AMS_BENCH_FIXTURES "/gluoncv-resnet50_v1b-symbol.json";
    int64_t samples = 8, size = 224;
    int repeats = 3;
    std::vector<double> tolerances{1e-2, 3e-4};
    PrecisionMetric metric = PrecisionMetric::MaxRel;
    std::vector<bool> reuses{true, false};
    std::string numpyInputs;
    double atol = 0.0;
    bool reportSet = false;
    for (int i = 1; i < argc; ++i) {
        if (std::strcmp(argv[i], "--report-set") == 0) reportSet = true;
    }
    for (int i = 1; i + 1 < argc; i += 2) {
        const std::string key = argv[i];
        if (key == "--report-set") {
            --i;
            continue;
        }
        const char* value = argv[i + 1];
        if (key == "--model") model = value;
        else if (key == "--samples") samples = std::atoll(value);
        else if (key == "--size") size = std::atoll(value);
        else if (key == "--repeats") repeats = std::atoi(value);
        else if (key == "--reuse") reuses = std::strcmp(value, "on") == 0 ? std::vector<bool>{true}
                                            : std::strcmp(value, "off") == 0 ? std::vector<bool>{false}
                                                                             : std::vector<bool>{true, false};
        else if (key == "--inputs") numpyInputs = value;
        else if (key == "--atol") atol = std::atof(value);
        else if (key == "--metric") metric = precisionMetricFromName(value).value_or(PrecisionMetric::MaxRel);
        else if (key == "--tolerances") {
            tolerances.clear();
            for (const char* p = value; *p;) {
                char* end = nullptr;
                tolerances.push_back(std::strtod(p, &end));
                p = *end == ',' ? end + 1 : end;
            }
        }
    }
    const ModelDocument document = openModelFile(model, {.findCompanions = false, .params = std::nullopt});
    const bool onnx = document.origin.format == ModelFormat::Onnx;
    const Graph& graph = *document.graph;
    std::map<std::string, HostArray> inputs;
    std::map<std::string, HostTensor> onnxInputs;
    std::string inputText;
    if (onnx) {
        const auto program = onnxProgramOf(document);
        CalibrationSpec spec;
        spec.seed = 1;
        if (!numpyInputs.empty()) {
            spec.numpyFiles = {numpyInputs};
        } else {
            spec.randomInputs = {program->requiredInputs().at(0)->name + "=" + std::to_string(samples) + ",3," +
                                 std::to_string(size) + "," + std::to_string(size)};
        }
        onnxInputs = onnxCalibrationInputs(*program, spec);
        for (const auto& [name, t] : onnxInputs) inputText += name + " " + dimsString(t.dims()) + " ";
    } else {
        HostArray data;
        data.shape = {samples, 3, size, size};
        data.values.resize(std::size_t(shapeSize(data.shape)));
        SeededRandom random(1);
        for (float& v : data.values) v = float(random.uniform(0.0, 1.0));
        inputs.emplace("data", data);
        inputText = "data " + shapeString(data.shape) + " ";
    }
    auto backend = makeBackend(BackendChoice::Cpu);
    std::printf("# bench_precision_search: %s, %zu nodes, %s, inputs %smetric %s%s, %s, median of %d, oneDNN ISA %s\n",
                model.c_str(), graph.size(), onnx ? "ONNX runner" : "executor", inputText.c_str(),
                std::string(precisionMetricName(metric)).c_str(),
                metric == PrecisionMetric::AllClose ? (" (atol " + std::to_string(atol) + ")").c_str() : "",
                onnx ? "cpu" : backend->name().c_str(), repeats, CpuBackend::dnnlIsa().c_str());
    std::printf("# %-10s %-6s %-10s %-8s %-8s %-9s %-12s %-4s %-9s %s\n", "tolerance", "reuse", "search_s", "attempts",
                "fp16_n", "fp32_set", "value", "met", "nodes_run", "last run: reference_s baseline_s nodes_s attempts_s");
    for (double tolerance : tolerances) {
        for (bool reuse : reuses) {
            PrecisionSearchOptions o;
            o.metric = metric;
            o.tolerance = tolerance;
            o.seed = 1;
            o.reuseValues = reuse;
            o.atol = atol;
            if (onnx) o.conversion.lists = AmpLists::defaults(DType::F16, OpSet::Onnx);
            PrecisionSearchResult last;
            const double ms = medianMs(repeats, [&] {
                last = onnx ? searchOnnxFloat32Set(document, onnxInputs, o) : searchFloat32Set(graph, nullptr, inputs, *backend, o);
            });
            const double share = last.searchNodes ? 100.0 * double(last.searchNodesRun) / double(last.searchNodes) : 0.0;
            std::printf("  %-10.3g %-6s %-10.2f %-8zu %-8zu %-9zu %-12.4g %-4s %-9.0f %.2f %.2f %.2f %.2f\n", tolerance,
                        reuse ? "on" : "off", ms / 1000.0, last.attempts.size(), last.nodes.size(), last.fp32Nodes.size(),
                        last.value, last.meets ? "yes" : "no", share, last.referenceSeconds, last.baselineSeconds,
                        last.nodesSeconds, last.searchSeconds);
            if (reportSet) {
                for (const std::string& n : last.fp32Nodes) std::printf("# fp32: %s\n", n.c_str());
            }
            std::fflush(stdout);
        }
    }
    return 0;
}
