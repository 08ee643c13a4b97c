// Open + convert + save of ONNX models (issue 19's figures): a 100k-node graph and a ResNet-class
// model of about 100 MB, each generated here with libonnx's protobuf classes. Every repeat runs in
// a fresh process (this executable with --run), so its peak memory is that run's alone; the table
// gives medians of the repeats and the peak against the file size.
//
//   bench_onnx_conversion [--repeats 5] [--nodes 100000] [--resnet-blocks 23] [--dtype float16]
//                         [--keep DIR]   (leaves the generated models in DIR, for a profiler:
//                                         bench_onnx_conversion --run DIR/chain.onnx float16)
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <onnx/onnx_pb.h>

#include "amp/converted_model.h"
#include "amp/onnx_conversion.h"
#include "bench_stats.h"
#include "platform/process_heap_policy.h"
#include "formats/model_file.h"
#include "onnx_test_models.h"

using namespace ampstudio;
using namespace ampstudio::onnx_test;
namespace fs = std::filesystem;

namespace {

// In raw_data (as exports write weights; the pass leaves those over 4 KiB out of its copy), from a
// fast LCG: the ResNet-class model's 25.6M values are made in the benchmark's own time.
void addWeights(onnx::GraphProto* g, const std::string& name, std::vector<int64_t> dims, uint32_t seed) {
    onnx::TensorProto* t = addFloatInitializer(g, name, dims);
    const int64_t n = elementCount(dims);
    std::string raw(static_cast<std::size_t>(n) * sizeof(float), '\0');
    auto* f = reinterpret_cast<float*>(raw.data());
    uint32_t x = seed * 2654435761u + 1;
    for (int64_t i = 0; i < n; ++i) {
        x = x * 1664525u + 1013904223u;
        f[i] = (static_cast<float>(x >> 8) / 16777216.0f - 0.5f) * 0.1f;
    }
    t->set_raw_data(std::move(raw));
}

onnx::ModelProto emptyModel() {
    onnx::ModelProto model;
    model.set_ir_version(8);
    model.set_producer_name("bench_onnx_conversion");
    model.add_opset_import()->set_version(17);
    return model;
}

// Blocks of MatMul -> Add -> Relu, every third followed by a Softmax (float32: two casts), until
// `nodes` nodes: a long chain of the ops a transformer is made of.
onnx::ModelProto chainModel(std::size_t nodes) {
    onnx::ModelProto model = emptyModel();
    onnx::GraphProto* g = model.mutable_graph();
    g->set_name("chain");
    addValue(g->mutable_input(), "x", {1, 8});
    std::string h = "x";
    std::size_t made = 0;
    for (std::size_t b = 0; made < nodes; ++b) {
        const std::string k = std::to_string(b);
        addWeights(g, "w" + k, {8, 8}, static_cast<uint32_t>(b));
        addWeights(g, "b" + k, {8}, static_cast<uint32_t>(b + 7));
        addNode(g, "MatMul", "block" + k + "/mm", {h, "w" + k}, {"mm" + k});
        addNode(g, "Add", "block" + k + "/add", {"mm" + k, "b" + k}, {"add" + k});
        addNode(g, "Relu", "block" + k + "/relu", {"add" + k}, {"relu" + k});
        h = "relu" + k;
        made += 3;
        if (b % 3 == 2 && made < nodes) {
            addNode(g, "Softmax", "block" + k + "/softmax", {h}, {"sm" + k});
            h = "sm" + k;
            ++made;
        }
    }
    addValue(g->mutable_output(), h, {1, 8});
    return model;
}

// ResNet-50's stage-4 bottleneck (1x1 C->C/4, 3x3, 1x1 C/4->C, each with BatchNormalization and
// Relu, a residual Add) `blocks` times at C = 1024 on 14x14: 23 blocks hold 25.6M float32 weights
// (about 102 MB), ResNet-50's parameter count.
onnx::ModelProto resnetModel(int blocks) {
    constexpr int64_t C = 1024, M = 256;
    onnx::ModelProto model = emptyModel();
    onnx::GraphProto* g = model.mutable_graph();
    g->set_name("resnet_class");
    addValue(g->mutable_input(), "data", {1, C, 14, 14});
    std::string h = "data";
    uint32_t seed = 1;
    const auto conv = [&](const std::string& name, const std::string& in, int64_t out, int64_t inC, int64_t k) {
        addWeights(g, name + ".weight", {out, inC, k, k}, seed++);
        onnx::NodeProto* node = addNode(g, "Conv", name, {in, name + ".weight"}, {name + ".out"});
        if (k == 3) {
            auto* pads = node->add_attribute();
            pads->set_name("pads");
            pads->set_type(onnx::AttributeProto::INTS);
            for (int i = 0; i < 4; ++i) pads->add_ints(1);
        }
        for (const char* p : {"scale", "bias", "mean", "var"}) addWeights(g, name + ".bn." + p, {out}, seed++);
        addNode(g, "BatchNormalization", name + ".bn",
                {name + ".out", name + ".bn.scale", name + ".bn.bias", name + ".bn.mean", name + ".bn.var"}, {name + ".bn.out"});
        return name + ".bn.out";
    };
    for (int b = 0; b < blocks; ++b) {
        const std::string p = "layer4." + std::to_string(b);
        std::string x = conv(p + ".conv1", h, M, C, 1);
        addNode(g, "Relu", p + ".relu1", {x}, {p + ".relu1.out"});
        x = conv(p + ".conv2", p + ".relu1.out", M, M, 3);
        addNode(g, "Relu", p + ".relu2", {x}, {p + ".relu2.out"});
        x = conv(p + ".conv3", p + ".relu2.out", C, M, 1);
        addNode(g, "Add", p + ".add", {x, h}, {p + ".add.out"});
        addNode(g, "Relu", p + ".relu3", {p + ".add.out"}, {p + ".out"});
        h = p + ".out";
    }
    addNode(g, "GlobalAveragePool", "pool", {h}, {"pooled"});
    addNode(g, "Flatten", "flatten", {"pooled"}, {"features"});
    addWeights(g, "fc.weight", {C, 1000}, seed++);
    addNode(g, "MatMul", "fc", {"features", "fc.weight"}, {"logits"});
    addValue(g->mutable_output(), "logits", {1, 1000});
    return model;
}

// One open + convert + save, as the CLI does it; prints "ms peak_MiB casts".
int runOnce(const fs::path& file, const std::string& dtype) {
    const auto start = std::chrono::steady_clock::now();
    const ModelDocument document = openModelFile(file);
    const bool phases = std::getenv("AMS_ONNX_PASS_PHASES") != nullptr;  // the pass prints its own
    const auto since = [](std::chrono::steady_clock::time_point t) {
        return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t).count();
    };
    if (phases) std::fprintf(stderr, "bench: open %.1f ms (peak %.1f MiB)\n", since(start), bench::peakRssMiB());
    ConversionOptions options;
    options.lists = AmpLists::defaults(dtypeFromName(dtype).value_or(DType::F16), OpSet::Onnx);
    const ConversionResult result = convertModel(*document.graph, document.source.get(), options);
    const fs::path out = file.parent_path() / (file.stem().string() + "-converted");
    if (phases) std::fprintf(stderr, "bench: open + convert %.1f ms (peak %.1f MiB)\n", since(start), bench::peakRssMiB());
    const auto t1 = std::chrono::steady_clock::now();
    saveConvertedModel(out.string(), result, options.lists.targetDtype, document);
    if (phases) std::fprintf(stderr, "bench: save %.1f ms\n", since(t1));
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    std::printf("%.1f %.1f %zu %d\n", ms, bench::peakRssMiB(), result.report.ampCastCount,
                result.report.dtypeCheck.passed ? 1 : 0);
    return 0;
}

struct Run {
    double ms = 0, peakMiB = 0;
    std::size_t casts = 0;
    bool passed = false;
};

Run spawn(const std::string& self, const fs::path& file, const std::string& dtype) {
    int pipefd[2];
    if (pipe(pipefd) != 0) std::exit(1);
    const pid_t pid = fork();
    if (pid == 0) {
        dup2(pipefd[1], 1);
        close(pipefd[0]);
        execl(self.c_str(), self.c_str(), "--run", file.c_str(), dtype.c_str(), static_cast<char*>(nullptr));
        _exit(127);
    }
    close(pipefd[1]);
    char buffer[256] = {};
    const ssize_t n = read(pipefd[0], buffer, sizeof buffer - 1);
    close(pipefd[0]);
    int status = 0;
    waitpid(pid, &status, 0);
    Run r;
    int passed = 0;
    if (n <= 0 || std::sscanf(buffer, "%lf %lf %zu %d", &r.ms, &r.peakMiB, &r.casts, &passed) != 4) {
        std::fprintf(stderr, "run failed on %s\n", file.c_str());
        std::exit(1);
    }
    r.passed = passed != 0;
    return r;
}

}  // namespace

int main(int argc, char** argv) {
    applyLargeModelHeapPolicy();  // as ampstudio-cli and the GUI do
    if (argc == 4 && std::strcmp(argv[1], "--run") == 0) return runOnce(argv[2], argv[3]);
    int repeats = 5, resnetBlocks = 23;
    std::size_t nodes = 100000;
    std::string dtype = "float16";
    std::string keep;
    for (int i = 1; i + 1 < argc; i += 2) {
        const std::string arg = argv[i];
        if (arg == "--repeats") repeats = std::atoi(argv[i + 1]);
        if (arg == "--nodes") nodes = std::strtoull(argv[i + 1], nullptr, 10);
        if (arg == "--resnet-blocks") resnetBlocks = std::atoi(argv[i + 1]);
        if (arg == "--dtype") dtype = argv[i + 1];
        if (arg == "--keep") keep = argv[i + 1];
    }
    const fs::path dir = !keep.empty() ? fs::path(keep)
                                       : fs::temp_directory_path() / ("bench_onnx_conversion." + std::to_string(getpid()));
    fs::create_directories(dir);
    const auto write = [&](const onnx::ModelProto& model, const std::string& name) {
        const fs::path path = dir / name;
        std::ofstream out(path, std::ios::binary);
        model.SerializeToOstream(&out);
        return path;
    };
    struct Case {
        std::string name;
        fs::path file;
        std::size_t nodes;
    };
    std::vector<Case> cases;
    {
        const onnx::ModelProto chain = chainModel(nodes);
        cases.push_back({"chain", write(chain, "chain.onnx"), static_cast<std::size_t>(chain.graph().node_size())});
    }
    {
        const onnx::ModelProto resnet = resnetModel(resnetBlocks);
        cases.push_back({"resnet_class", write(resnet, "resnet.onnx"), static_cast<std::size_t>(resnet.graph().node_size())});
    }
    const fs::path tiny = write(chainModel(3), "tiny.onnx");

    const std::string self = fs::read_symlink("/proc/self/exe").string();
    const double baseline = spawn(self, tiny, dtype).peakMiB;
    std::printf("# open + convert + save of ONNX models to %s, %d repeats each in a fresh process (medians)\n",
                dtype.c_str(), repeats);
    std::printf("# process baseline (a 3-node model): %.1f MiB peak\n", baseline);
    std::printf("%-14s %8s %10s %8s %10s %10s %12s %8s\n", "# model", "nodes", "file_MB", "casts", "total_ms",
                "peak_MiB", "peak/file", "checked");
    for (const Case& c : cases) {
        std::vector<Run> runs;
        for (int r = 0; r < repeats; ++r) runs.push_back(spawn(self, c.file, dtype));
        std::vector<double> ms, peak;
        for (const Run& r : runs) {
            ms.push_back(r.ms);
            peak.push_back(r.peakMiB);
        }
        std::sort(ms.begin(), ms.end());
        std::sort(peak.begin(), peak.end());
        const double fileMB = static_cast<double>(fs::file_size(c.file)) / 1e6;
        const double peakMiB = peak[peak.size() / 2];
        std::printf("%-14s %8zu %10.1f %8zu %10.1f %10.1f %12.2f %8s\n", c.name.c_str(), c.nodes, fileMB, runs[0].casts,
                    ms[ms.size() / 2], peakMiB, peakMiB * 1048576.0 / 1e6 / fileMB, runs[0].passed ? "yes" : "NO");
    }
    if (keep.empty()) fs::remove_all(dir);
    return 0;
}
