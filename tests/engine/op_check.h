#pragma once
// Test fixture for op kernels: one op in a graph of its own, run through the real Executor on the
// CPU backend (or on any backend given to OpRunner: test_cuda_ops runs each case on the CPU and on
// CUDA and compares), checked three ways:
//   - runOp:           forward values, for hand-computed expectations;
//   - gradientError:   backward against central finite differences of a random projection of all
//                      outputs, L = sum_k <w_k, out_k>, in double on the host;
//   - precisionError:  the op in f16 / bf16 (every input and output in that dtype) against the f32
//                      op on the same rounded inputs.
// Inputs are named in0, in1, ... (an op's own names would give them roles; here the case says which
// inputs are differentiable). Values default to a seeded uniform(-1, 1).

#include <QtTest/QtTest>

#include <cmath>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "backend/backend.h"
#include "backend/cpu/cpu_kernel.h"
#include "exec/executor.h"
#include "ops/mxnet_op_facts.h"
#include "tensor/float_convert.h"
#include "tensor/seeded_random.h"

namespace ampstudio::test {

struct OpCase {
    OpCase(std::string op_, Attributes attrs_, std::vector<Shape> shapes)
        : op(std::move(op_)), attrs(std::move(attrs_)), inputShapes(std::move(shapes)) {}

    std::string op;
    Attributes attrs;
    std::vector<Shape> inputShapes;
    // Optional explicit values per input (empty vector: random); labels, indices and the like.
    std::vector<std::vector<float>> inputValues;
    // Inputs with no gradient (labels, indices, moving statistics).
    std::set<std::size_t> noGrad;
    bool training = true;
    uint64_t seed = 1;
    // Outputs that take part in the gradient check (the first n); the rest get a zero weight. For ops
    // whose extra outputs carry no gradient (BatchNorm's mean and var, Pooling's workspace, masks).
    std::size_t gradOutputs = SIZE_MAX;
    // Inputs whose dtype is fixed whatever dtype the runner is given (BatchNorm's gamma and beta stay
    // f32 beside f16 data yet have gradients; amp_multicast over mixed dtypes).
    std::map<std::size_t, DType> inputDtypes;
    // ExecContext::lossScale and ::step of the runs (loss heads scale their gradient; Dropout's mask
    // depends on the step).
    float lossScale = 1.0f;
    int64_t step = 0;
};

inline Graph singleOpGraph(const OpCase& c) {
    Graph g;
    Node op;
    op.op = c.op;
    op.name = "op";
    op.attrs = c.attrs;
    for (std::size_t i = 0; i < c.inputShapes.size(); ++i) {
        Node v;
        v.name = "in" + std::to_string(i);
        g.nodes.push_back(std::move(v));
        op.inputs.push_back({static_cast<NodeId>(i), 0, 0});
    }
    op.numOutputs = MxnetOpFacts::instance().numOutputs(op);
    const auto id = static_cast<NodeId>(g.nodes.size());
    g.nodes.push_back(std::move(op));
    for (uint32_t i = 0; i < g.nodes.back().numOutputs; ++i) {
        g.heads.push_back({id, i, 0});
    }
    return g;
}

inline std::vector<std::vector<float>> caseInputs(const OpCase& c) {
    std::vector<std::vector<float>> values;
    SeededRandom random(c.seed);
    for (std::size_t i = 0; i < c.inputShapes.size(); ++i) {
        if (i < c.inputValues.size() && !c.inputValues[i].empty()) {
            values.push_back(c.inputValues[i]);
            continue;
        }
        std::vector<float> v(static_cast<std::size_t>(shapeSize(c.inputShapes[i])));
        for (float& x : v) {
            x = static_cast<float>(random.uniform(-1.0, 1.0));
        }
        values.push_back(std::move(v));
    }
    return values;
}

inline std::vector<float> roundTo(std::vector<float> v, DType t) {
    for (float& x : v) {
        x = t == DType::F16 ? halfBitsToFloat(floatToHalfBits(x))
            : t == DType::BF16 ? bfloat16BitsToFloat(floatToBfloat16Bits(x))
                               : x;
    }
    return v;
}

inline void upload(Backend& backend, const Tensor& t, const std::vector<float>& values) {
    Tensor f32 = backend.allocate(t.shape(), DType::F32);
    backend.copyFromHost(values.data(), values.size() * sizeof(float), f32);
    backend.convert(f32, t);
}

inline std::vector<float> download(Backend& backend, const Tensor& t) {
    Tensor f32 = backend.allocate(t.shape(), DType::F32);
    backend.convert(t, f32);
    std::vector<float> out(static_cast<std::size_t>(f32.size()));
    backend.copyToHost(f32, out.data(), out.size() * sizeof(float));
    return out;
}

// One bound single-op executor with the case's inputs loaded, on `backend` (not owned; it must
// outlive the runner) or, by default, on a CPU backend of its own.
class OpRunner {
public:
    OpRunner(const OpCase& c, DType dtype, bool forTraining, Backend* backend = nullptr)
        : m_owned(backend == nullptr ? makeCpuBackend() : nullptr),
          m_backend(backend == nullptr ? m_owned.get() : backend),
          m_case(c) {
        BindOptions options;
        std::set<std::string> grads;
        for (std::size_t i = 0; i < c.inputShapes.size(); ++i) {
            const std::string name = "in" + std::to_string(i);
            options.shapes[name] = c.inputShapes[i];
            if (dtype != DType::F32 && !c.noGrad.contains(i)) {
                options.dtypes[name] = dtype;
            }
            if (const auto fixed = c.inputDtypes.find(i); fixed != c.inputDtypes.end()) {
                options.dtypes[name] = fixed->second;
            }
            if (!c.noGrad.contains(i)) {
                grads.insert(name);
            }
        }
        options.forTraining = forTraining;
        options.gradientVariables = grads;
        m_executor = std::make_unique<Executor>(singleOpGraph(c), *m_backend, options);
        m_inputs = caseInputs(c);
        for (std::size_t i = 0; i < m_inputs.size(); ++i) {
            const Tensor& t = m_executor->value("in" + std::to_string(i));
            m_inputs[i] = roundTo(m_inputs[i], t.dtype());
        }
    }

    void setInput(std::size_t i, std::vector<float> v) { m_inputs[i] = std::move(v); }
    const std::vector<float>& input(std::size_t i) const { return m_inputs[i]; }

    std::vector<std::vector<float>> forward(bool training) {
        for (std::size_t i = 0; i < m_inputs.size(); ++i) {
            upload(*m_backend, m_executor->value("in" + std::to_string(i)), m_inputs[i]);
        }
        m_executor->forward(context(training));
        std::vector<std::vector<float>> outs;
        for (const Tensor& t : m_executor->outputs()) {
            outs.push_back(download(*m_backend, t));
        }
        return outs;
    }

    // Gradients of sum_k <w_k, out_k> with respect to every differentiable input (empty for the others).
    std::vector<std::vector<float>> backward(const std::vector<std::vector<float>>& weights, bool training) {
        forward(training);
        std::vector<Tensor> heads;
        const auto outs = m_executor->outputs();
        for (std::size_t k = 0; k < outs.size(); ++k) {
            Tensor t = m_backend->allocate(outs[k].shape(), DType::F32);
            m_backend->copyFromHost(weights[k].data(), weights[k].size() * sizeof(float), t);
            heads.push_back(t);
        }
        m_executor->backward(context(training), heads);
        std::vector<std::vector<float>> grads;
        for (std::size_t i = 0; i < m_inputs.size(); ++i) {
            const Tensor& g = m_executor->gradient("in" + std::to_string(i));
            grads.push_back(g ? download(*m_backend, g) : std::vector<float>{});
        }
        return grads;
    }

    Executor& executor() { return *m_executor; }
    Backend& backend() { return *m_backend; }

private:
    ExecContext context(bool training) const {
        ExecContext ctx;
        ctx.training = training;
        ctx.seed = m_case.seed;
        ctx.lossScale = m_case.lossScale;
        ctx.step = m_case.step;
        return ctx;
    }

    std::unique_ptr<Backend> m_owned;
    Backend* m_backend;
    OpCase m_case;
    std::unique_ptr<Executor> m_executor;
    std::vector<std::vector<float>> m_inputs;
};

inline std::vector<std::vector<float>> runOp(const OpCase& c, DType dtype = DType::F32) {
    OpRunner runner(c, dtype, false);
    return runner.forward(c.training);
}

// The largest |analytic - numeric| / (1 + |numeric|) over every element of every differentiable
// input. eps is the finite-difference step; with f32 kernels a step near 1e-2 balances truncation
// and rounding error for inputs of size ~1. Ops with kinks (relu, max pooling, abs) should be given
// inputs away from them.
inline double gradientError(const OpCase& c, double eps = 1e-2) {
    OpRunner runner(c, DType::F32, true);
    const auto outs = runner.forward(c.training);
    SeededRandom random(c.seed + 1000);
    std::vector<std::vector<float>> weights;
    for (std::size_t k = 0; k < outs.size(); ++k) {
        std::vector<float> w(outs[k].size());
        for (float& x : w) {
            x = k < c.gradOutputs ? static_cast<float>(random.uniform(-1.0, 1.0)) : 0.0f;
        }
        weights.push_back(std::move(w));
    }
    const auto analytic = runner.backward(weights, c.training);
    auto objective = [&]() {
        const auto o = runner.forward(c.training);
        double sum = 0.0;
        for (std::size_t k = 0; k < o.size(); ++k) {
            for (std::size_t j = 0; j < o[k].size(); ++j) {
                sum += static_cast<double>(weights[k][j]) * o[k][j];
            }
        }
        return sum;
    };
    double worst = 0.0;
    for (std::size_t i = 0; i < c.inputShapes.size(); ++i) {
        if (c.noGrad.contains(i)) {
            continue;
        }
        std::vector<float> x = runner.input(i);
        for (std::size_t j = 0; j < x.size(); ++j) {
            const float original = x[j];
            x[j] = original + static_cast<float>(eps);
            runner.setInput(i, x);
            const double plus = objective();
            x[j] = original - static_cast<float>(eps);
            runner.setInput(i, x);
            const double minus = objective();
            x[j] = original;
            runner.setInput(i, x);
            const double numeric = (plus - minus) / (2.0 * eps);
            const double error = std::abs(analytic[i][j] - numeric) / (1.0 + std::abs(numeric));
            worst = std::max(worst, error);
        }
    }
    return worst;
}

// The largest |low - f32| / (1 + |f32|) over all outputs, the op run with every differentiable
// input (and so, by dtype inference, its outputs) in `dtype`, against f32 on the same rounded inputs.
inline double precisionError(const OpCase& c, DType dtype) {
    OpRunner low(c, dtype, false);
    OpRunner full(c, DType::F32, false);
    for (std::size_t i = 0; i < c.inputShapes.size(); ++i) {
        full.setInput(i, low.input(i));
    }
    const auto a = low.forward(c.training);
    const auto b = full.forward(c.training);
    double worst = 0.0;
    for (std::size_t k = 0; k < a.size(); ++k) {
        for (std::size_t j = 0; j < a[k].size(); ++j) {
            worst = std::max(worst, std::abs(static_cast<double>(a[k][j]) - b[k][j]) / (1.0 + std::abs(b[k][j])));
        }
    }
    return worst;
}

// Tolerances for precisionError: one rounding of the output plus what an f32 computation on rounded
// inputs can amplify, for ops of moderate depth.
inline double precisionTolerance(DType dtype) { return dtype == DType::F16 ? 4e-3 : 3e-2; }

// The op in bfloat16 on the CPU backend's native bf16 kernel and on its converting path
// (setCpuNativeBfloat16): forward outputs and the gradients of a random projection of them, the
// largest difference relative to 1 + |converting|; -1 when they do not line up or a path did not
// run as asked (the native run made no storage-type kernel, or the converting run made one).
inline double nativeBfloat16Difference(const OpCase& c) {
    std::vector<std::vector<std::vector<float>>> results;
    for (bool native : {true, false}) {
        setCpuNativeBfloat16(native);
        const std::size_t before = cpuStorageTypeKernelsMade();
        OpRunner runner(c, DType::BF16, true);
        const bool madeNative = cpuStorageTypeKernelsMade() != before;
        setCpuNativeBfloat16(true);
        if (madeNative != native) return -1.0;
        SeededRandom random(c.seed + 2000);
        std::vector<std::vector<float>> weights;
        for (const auto& out : runner.forward(c.training)) {
            std::vector<float> w(out.size());
            for (float& x : w) x = static_cast<float>(random.uniform(-1.0, 1.0));
            weights.push_back(std::move(w));
        }
        auto all = runner.forward(c.training);
        for (auto& g : runner.backward(weights, c.training)) all.push_back(std::move(g));
        results.push_back(std::move(all));
    }
    double worst = 0.0;
    if (results[0].size() != results[1].size()) return -1.0;
    for (std::size_t t = 0; t < results[0].size(); ++t) {
        const auto& a = results[0][t];
        const auto& b = results[1][t];
        if (a.size() != b.size()) return -1.0;
        for (std::size_t i = 0; i < a.size(); ++i) {
            worst = std::max(worst, std::abs(static_cast<double>(a[i]) - b[i]) / (1.0 + std::abs(static_cast<double>(b[i]))));
        }
    }
    return worst;
}

}  // namespace ampstudio::test
