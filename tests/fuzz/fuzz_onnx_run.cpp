// libFuzzer target for the ONNX runner: any model the reader accepts whose operators the engine runs
// is run on inputs of its declared dims (symbolic ones 2, at most 4096 elements each), and either
// gives its outputs or an OnnxRunError; never a crash, an out-of-bounds access (ASan) or an
// allocation past the 64 MiB tensor limit set here. Attributes and shape inputs are the model's own,
// so a hostile file steers every kernel's index arithmetic.
// Run: fuzz_onnx_run WORK_DIR /usr/share/libonnx-testdata/data/node/* -max_total_time=120 -timeout=5
//      -rss_limit_mb=2048
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <span>

#include "exec/onnx/onnx_runner.h"
#include "formats/load_error.h"
#include "formats/model_file.h"
#include "formats/onnx_program.h"

using namespace ampstudio;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    static const bool limited = [] {
        setHostTensorByteLimit(std::size_t{64} << 20);
        return true;
    }();
    (void)limited;
    std::shared_ptr<const OnnxProgram> program;
    try {
        program = onnxProgramOf(parseModel(ModelFormat::Onnx, std::as_bytes(std::span(data, size)), {}, "fuzz input"));
    } catch (const std::exception&) {
        return 0;  // the reader's own fuzzer (fuzz_onnx_model) holds it to LoadError
    }
    if (!unsupportedOnnxOps(*program).empty()) return 0;
    std::map<std::string, HostTensor> inputs;
    for (const OnnxValueInfo* info : program->requiredInputs()) {
        Dims dims;
        if (info->dims) {
            for (const auto& d : *info->dims) dims.push_back(d ? std::max<int64_t>(*d, 0) : 2);
        }
        int64_t n = 1;
        for (const int64_t d : dims) {
            if (d > 4096 || (d > 0 && n > 4096 / d)) return 0;
            n *= d;
        }
        try {
            inputs[info->name] = HostTensor(info->dtype.value_or(DType::F32), dims);
        } catch (const std::exception&) {
            return 0;
        }
    }
    try {
        const OnnxRunner runner(program);
        runner.run(inputs);
    } catch (const OnnxRunError&) {
    } catch (const std::exception& e) {
        std::fprintf(stderr, "fuzz_onnx_run: not an OnnxRunError: %s\n", e.what());
        std::abort();
    }
    return 0;
}
