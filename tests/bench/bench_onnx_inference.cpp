// ONNX inference speed: the ONNX runner (exec/onnx/onnx_runner.h) against ONNX Runtime's CPU
// provider on the same model and inputs, in interleaved rounds (ours, then ORT's, round after
// round), medians and the ratio ORT time / our time (above 1: we are faster). ORT runs in a child
// process (tests/bench/onnx_runtime_reference.py) when a python with onnxruntime is found:
// tests/differential/.venv-torch or .venv-ort, or --python.
//
//   bench_onnx_inference MODEL.onnx INPUTS.npz [--rounds N] [--python PATH] [--label NAME]
//
// The models of the issue come from tests/differential/onnx_execution_check.py (it exports them and
// their inputs to /tmp/ams-onnx-models).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "backend/backend.h"
#include "exec/onnx/onnx_runner.h"
#include "formats/model_file.h"
#include "formats/onnx_program.h"
#include "platform/process_heap_policy.h"
#include "reference_child.h"
#include "train/calibration_inputs.h"

using namespace ampstudio;
using ampstudio::bench::ReferenceChild;
namespace fs = std::filesystem;

namespace {

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v.empty() ? 0.0 : v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
    ampstudio::applyLargeModelHeapPolicy();  // as ampstudio-cli and the GUI do
    if (argc < 3) {
        std::fprintf(stderr, "usage: bench_onnx_inference MODEL.onnx INPUTS.npz [--rounds N] [--python PATH] [--label NAME]\n");
        return 1;
    }
    const std::string model = argv[1], inputsFile = argv[2];
    int rounds = 10;
    std::string python, label = fs::path(model).stem().string();
    for (int i = 3; i + 1 < argc; i += 2) {
        const std::string key = argv[i];
        if (key == "--rounds") rounds = std::atoi(argv[i + 1]);
        else if (key == "--python") python = argv[i + 1];
        else if (key == "--label") label = argv[i + 1];
    }
    const fs::path source = fs::path(__FILE__).parent_path();
    if (python.empty()) python = ampstudio::bench::referencePython(source, {".venv-torch", ".venv-ort"});
    const auto program = onnxProgramOf(openModelFile(model));
    const OnnxRunner runner(program);
    // As `run --inputs` reads them: each array in the dtype its input declares.
    CalibrationSpec spec;
    spec.numpyFiles = {inputsFile};
    const std::map<std::string, HostTensor> inputs = onnxCalibrationInputs(*program, spec);
    std::string shapes;
    for (const auto& [name, t] : inputs) shapes += (shapes.empty() ? "" : " ") + name + dimsString(t.dims());
    ReferenceChild ort;
    const bool withOrt = !python.empty() && ort.start({python, (source / "onnx_runtime_reference.py").string(), model, inputsFile});
    runner.run(inputs);  // warm-up: oneDNN's primitive cache, the allocator
    std::vector<double> ours, theirs;
    // A pause before each side's run: both runtimes' worker threads spin for a while after their
    // work (libgomp's GOMP_SPINCOUNT, ORT's spinning thread pool), and a run started meanwhile
    // would share the two cores with the other's spinning.
    const auto settle = [] { std::this_thread::sleep_for(std::chrono::milliseconds(200)); };
    for (int r = 0; r < rounds; ++r) {
        settle();
        const auto start = std::chrono::steady_clock::now();
        runner.run(inputs);
        ours.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
        if (withOrt) {
            settle();
            theirs.push_back(ort.ask("run"));
        }
    }
    std::printf("# %s; %d interleaved rounds; %s\n", cpuBackendName().c_str(), rounds,
                withOrt ? ("onnxruntime " + ort.version() + " CPUExecutionProvider").c_str() : "no onnxruntime found");
    std::printf("# model            inputs                                  ours_ms    ort_ms  ort/ours\n");
    const double a = median(ours), b = withOrt ? median(theirs) : 0.0;
    std::printf("%-18s %-38s %8.2f  %8.2f  %8.2f\n", label.c_str(), shapes.c_str(), a, b, withOrt && a > 0 ? b / a : 0.0);
    return 0;
}
