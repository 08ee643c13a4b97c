// CPU kernels of the dense ops (backend/cpu/cpu_kernel.h says how kernels are written).
// FullyConnected, dot and batch_dot are three oneDNN matmuls each (forward and the two input
// gradients), created once over strided views for the transposes; Embedding is a row gather.
#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <unordered_map>
#include <vector>

#include "backend/cpu/cpu_kernel.h"
#include "backend/kernel_params.h"
#include "tensor/float_convert.h"

namespace ampstudio {

namespace {

using dnnl::memory;

// A (rows x cols) matrix at a pointer, row-major, or its transpose (a strided view, no copy).
memory::desc matrixDesc(int64_t rows, int64_t cols, bool transposed) {
    return transposed ? memory::desc({rows, cols}, memory::data_type::f32, {1, rows})
                      : memory::desc({rows, cols}, memory::data_type::f32, {cols, 1});
}

class FullyConnectedKernel final : public CpuKernel {
public:
    FullyConnectedKernel(const KernelSetup& setup, CpuDnnl& dnnl) {
        m_hasBias = fullyConnectedHasBias(setup.node);
        m_h = setup.outShapes[0].back();
        m_k = setup.inShapes[1][1];
        m_n = shapeSize(setup.inShapes[0]) / m_k;
        const auto& eng = dnnl.engine;
        // out (N,H) = data (N,K) x weight^T (K,H) [+ bias (1,H)]
        m_xDesc = matrixDesc(m_n, m_k, false);
        m_wtDesc = matrixDesc(m_k, m_h, true);
        m_yDesc = matrixDesc(m_n, m_h, false);
        m_biasDesc = memory::desc({1, m_h}, memory::data_type::f32, {m_h, 1});
        m_forward = dnnl::matmul(m_hasBias ? dnnl::matmul::primitive_desc({m_xDesc, m_wtDesc, m_biasDesc, m_yDesc}, eng)
                                           : dnnl::matmul::primitive_desc({m_xDesc, m_wtDesc, m_yDesc}, eng));
        // dData (N,K) = dOut (N,H) x weight (H,K)
        m_wDesc = matrixDesc(m_h, m_k, false);
        m_backwardData = dnnl::matmul(dnnl::matmul::primitive_desc({m_yDesc, m_wDesc, m_xDesc}, eng));
        // dWeight (H,K) = dOut^T (H,N) x data (N,K)
        m_dytDesc = matrixDesc(m_h, m_n, true);
        m_backwardWeight = dnnl::matmul(dnnl::matmul::primitive_desc({m_dytDesc, m_xDesc, m_wDesc}, eng));
    }

    void forward(const CpuContext& ctx, std::span<const CpuArray> in, std::span<const CpuArray> out) override {
        const auto& eng = ctx.dnnl.engine;
        std::unordered_map<int, memory> args{{DNNL_ARG_SRC, memory(m_xDesc, eng, in[0].data)},
                                             {DNNL_ARG_WEIGHTS, memory(m_wtDesc, eng, in[1].data)},
                                             {DNNL_ARG_DST, memory(m_yDesc, eng, out[0].data)}};
        if (m_hasBias) {
            args.emplace(DNNL_ARG_BIAS, memory(m_biasDesc, eng, in[2].data));
        }
        m_forward.execute(ctx.dnnl.stream, args);
        ctx.dnnl.stream.wait();
    }

    void backward(const CpuContext& ctx, std::span<const CpuArray> in, std::span<const CpuArray>,
                  std::span<const CpuArray> outGrad, std::span<const CpuArray> inGrad) override {
        const auto& eng = ctx.dnnl.engine;
        const float* dy = outGrad[0].data;
        if (inGrad[0].defined()) {
            m_backwardData.execute(ctx.dnnl.stream, {{DNNL_ARG_SRC, memory(m_yDesc, eng, const_cast<float*>(dy))},
                                                     {DNNL_ARG_WEIGHTS, memory(m_wDesc, eng, in[1].data)},
                                                     {DNNL_ARG_DST, memory(m_xDesc, eng, inGrad[0].data)}});
        }
        if (inGrad[1].defined()) {
            m_backwardWeight.execute(ctx.dnnl.stream,
                                     {{DNNL_ARG_SRC, memory(m_dytDesc, eng, const_cast<float*>(dy))},
                                      {DNNL_ARG_WEIGHTS, memory(m_xDesc, eng, in[0].data)},
                                      {DNNL_ARG_DST, memory(m_wDesc, eng, inGrad[1].data)}});
        }
        ctx.dnnl.stream.wait();
        if (m_hasBias && inGrad[2].defined()) {
            float* db = inGrad[2].data;
            std::memset(db, 0, static_cast<std::size_t>(m_h) * sizeof(float));
            for (int64_t r = 0; r < m_n; ++r) {
                const float* row = dy + r * m_h;
                for (int64_t j = 0; j < m_h; ++j) {
                    db[j] += row[j];
                }
            }
        }
    }

private:
    bool m_hasBias = true;
    int64_t m_n = 0, m_k = 0, m_h = 0;
    memory::desc m_xDesc, m_wtDesc, m_wDesc, m_yDesc, m_dytDesc, m_biasDesc;
    dnnl::matmul m_forward, m_backwardData, m_backwardWeight;
};

memory::data_type dnnlType(DType t) { return t == DType::BF16 ? memory::data_type::bf16 : memory::data_type::f32; }

// FullyConnected on oneDNN's native bf16 matmul (cpuNativeBfloat16()): data and weight in bfloat16
// as stored, products accumulated in f32, the output rounded once to its dtype. What the converting
// path computes, without converting the operands (the weight twice a step) around an f32 matmul.
// The output and each gradient is written in its tensor's dtype (bf16, or the adapter's f32 scratch
// for a gradient it adds); a primitive is made per (product, destination dtype) when first needed.
class FullyConnectedBf16Kernel final : public CpuKernel {
public:
    FullyConnectedBf16Kernel(const KernelSetup& setup, CpuDnnl& dnnl) : m_eng(dnnl.engine) {
        m_hasBias = fullyConnectedHasBias(setup.node);
        m_h = setup.outShapes[0].back();
        m_k = setup.inShapes[1][1];
        m_n = shapeSize(setup.inShapes[0]) / m_k;
        m_biasType = m_hasBias ? setup.inTypes[2] : DType::BF16;
        // Made now, so that a CPU or geometry oneDNN refuses falls back at bind time (see the factory).
        forwardPrimitive(setup.outTypes[0]);
    }

    bool computesInStorageTypes() const override { return true; }

    void forward(const CpuContext& ctx, std::span<const CpuArray> in, std::span<const CpuArray> out) override {
        std::unordered_map<int, memory> args{{DNNL_ARG_SRC, memory(desc(m_n, m_k, false, DType::BF16), m_eng, in[0].data)},
                                             {DNNL_ARG_WEIGHTS, memory(desc(m_k, m_h, true, DType::BF16), m_eng, in[1].data)},
                                             {DNNL_ARG_DST, memory(desc(m_n, m_h, false, out[0].dtype), m_eng, out[0].data)}};
        if (m_hasBias) {
            args.emplace(DNNL_ARG_BIAS, memory(memory::desc({1, m_h}, dnnlType(m_biasType), {m_h, 1}), m_eng, in[2].data));
        }
        forwardPrimitive(out[0].dtype).execute(ctx.dnnl.stream, args);
        ctx.dnnl.stream.wait();
    }

    void backward(const CpuContext& ctx, std::span<const CpuArray> in, std::span<const CpuArray>,
                  std::span<const CpuArray> outGrad, std::span<const CpuArray> inGrad) override {
        const CpuArray& dy = outGrad[0];
        if (dy.dtype != DType::BF16) throw std::logic_error("FullyConnected (bf16): the output gradient is not bfloat16");
        if (inGrad[0].defined()) {  // dData (N,K) = dOut (N,H) x weight (H,K)
            const memory::desc dst = desc(m_n, m_k, false, inGrad[0].dtype);
            product(m_backwardData, inGrad[0].dtype, desc(m_n, m_h, false, DType::BF16), desc(m_h, m_k, false, DType::BF16), dst)
                .execute(ctx.dnnl.stream, {{DNNL_ARG_SRC, memory(desc(m_n, m_h, false, DType::BF16), m_eng, dy.data)},
                                           {DNNL_ARG_WEIGHTS, memory(desc(m_h, m_k, false, DType::BF16), m_eng, in[1].data)},
                                           {DNNL_ARG_DST, memory(dst, m_eng, inGrad[0].data)}});
        }
        if (inGrad[1].defined()) {  // dWeight (H,K) = dOut^T (H,N) x data (N,K)
            const memory::desc dst = desc(m_h, m_k, false, inGrad[1].dtype);
            product(m_backwardWeight, inGrad[1].dtype, desc(m_h, m_n, true, DType::BF16), desc(m_n, m_k, false, DType::BF16), dst)
                .execute(ctx.dnnl.stream, {{DNNL_ARG_SRC, memory(desc(m_h, m_n, true, DType::BF16), m_eng, dy.data)},
                                           {DNNL_ARG_WEIGHTS, memory(desc(m_n, m_k, false, DType::BF16), m_eng, in[0].data)},
                                           {DNNL_ARG_DST, memory(dst, m_eng, inGrad[1].data)}});
        }
        ctx.dnnl.stream.wait();
        if (m_hasBias && inGrad[2].defined()) {  // the column sums of dOut, in f32, rounded once
            const auto* g = reinterpret_cast<const uint16_t*>(dy.data);
            std::vector<float> sum(static_cast<std::size_t>(m_h), 0.0f), row(static_cast<std::size_t>(m_h));
            for (int64_t r = 0; r < m_n; ++r) {
                bfloat16ToFloats({g + r * m_h, row.size()}, row);
                for (std::size_t j = 0; j < row.size(); ++j) sum[j] += row[j];
            }
            if (inGrad[2].dtype == DType::BF16) {
                floatsToBfloat16(sum, {reinterpret_cast<uint16_t*>(inGrad[2].data), sum.size()});
            } else {
                std::copy(sum.begin(), sum.end(), inGrad[2].data);
            }
        }
    }

private:
    // A (rows x cols) matrix of `type`, row-major, or the transpose of a stored (cols x rows) one.
    static memory::desc desc(int64_t rows, int64_t cols, bool transposed, DType type) {
        return transposed ? memory::desc({rows, cols}, dnnlType(type), {1, rows})
                          : memory::desc({rows, cols}, dnnlType(type), {cols, 1});
    }

    const dnnl::matmul& product(std::unordered_map<DType, dnnl::matmul>& cache, DType dstType, const memory::desc& a,
                                const memory::desc& b, const memory::desc& c) {
        auto it = cache.find(dstType);
        if (it == cache.end()) it = cache.emplace(dstType, dnnl::matmul(dnnl::matmul::primitive_desc({a, b, c}, m_eng))).first;
        return it->second;
    }

    const dnnl::matmul& forwardPrimitive(DType dstType) {
        auto it = m_forward.find(dstType);
        if (it == m_forward.end()) {
            const memory::desc x = desc(m_n, m_k, false, DType::BF16), wt = desc(m_k, m_h, true, DType::BF16),
                               y = desc(m_n, m_h, false, dstType);
            const memory::desc bias({1, m_h}, dnnlType(m_biasType), {m_h, 1});
            it = m_forward
                     .emplace(dstType, dnnl::matmul(m_hasBias ? dnnl::matmul::primitive_desc({x, wt, bias, y}, m_eng)
                                                              : dnnl::matmul::primitive_desc({x, wt, y}, m_eng)))
                     .first;
        }
        return it->second;
    }

    dnnl::engine m_eng;
    bool m_hasBias = true;
    DType m_biasType = DType::BF16;
    int64_t m_n = 0, m_k = 0, m_h = 0;
    std::unordered_map<DType, dnnl::matmul> m_forward, m_backwardData, m_backwardWeight;
};

// Whether FullyConnected's tensors suit the native bf16 kernel: data, weight and output bfloat16
// (a bias bfloat16 or float32).
bool bf16FullyConnected(const KernelSetup& setup) {
    if (!cpuNativeBfloat16() || setup.inTypes.size() < 2 || setup.outTypes.empty()) return false;
    if (setup.inTypes[0] != DType::BF16 || setup.inTypes[1] != DType::BF16 || setup.outTypes[0] != DType::BF16) return false;
    return setup.inTypes.size() < 3 || setup.inTypes[2] == DType::BF16 || setup.inTypes[2] == DType::F32;
}

// A batch of (rows x cols) row-major matrices, or a strided view of a batch of (cols x rows) ones
// as their transposes (no copy).
memory::desc batchedDesc(int64_t batch, int64_t rows, int64_t cols, bool transposed) {
    return transposed ? memory::desc({batch, rows, cols}, memory::data_type::f32, {rows * cols, 1, rows})
                      : memory::desc({batch, rows, cols}, memory::data_type::f32, {rows * cols, cols, 1});
}

// One matmul c = a x b over fixed views, its primitive created once.
class Matmul {
public:
    Matmul() = default;
    Matmul(const dnnl::engine& eng, const memory::desc& a, const memory::desc& b, const memory::desc& c)
        : m_a(a), m_b(b), m_c(c), m_primitive(dnnl::matmul::primitive_desc({a, b, c}, eng)) {}

    void run(const CpuContext& ctx, const float* a, const float* b, float* c) const {
        const auto& eng = ctx.dnnl.engine;
        m_primitive.execute(ctx.dnnl.stream, {{DNNL_ARG_SRC, memory(m_a, eng, const_cast<float*>(a))},
                                              {DNNL_ARG_WEIGHTS, memory(m_b, eng, const_cast<float*>(b))},
                                              {DNNL_ARG_DST, memory(m_c, eng, c)}});
    }

private:
    memory::desc m_a, m_b, m_c;
    dnnl::matmul m_primitive;
};

// What dot and batch_dot compute: `batch` products out (M,N) = op(lhs) (M,K) x op(rhs) (K,N), where
// op transposes (through a strided view) the lhs stored as (K,M) when transpose_a, the rhs stored as
// (N,K) when transpose_b.
// The gradients are matmuls too, each written densely in its input's own layout:
//   dLhs (M,K) = dOut (M,N) x op(rhs)^T (N,K)       dLhs^T (K,M) = op(rhs) (K,N) x dOut^T (N,M)   [transpose_a]
//   dRhs (K,N) = op(lhs)^T (K,M) x dOut (M,N)       dRhs^T (N,K) = dOut^T (N,M) x op(lhs) (M,K)   [transpose_b]
class BatchedProductKernel final : public CpuKernel {
public:
    BatchedProductKernel(const ProductDims& d, CpuDnnl& dnnl) {
        const auto& eng = dnnl.engine;
        const int64_t b = d.batch;
        const memory::desc lhs = batchedDesc(b, d.m, d.k, d.ta);  // op(lhs)
        const memory::desc rhs = batchedDesc(b, d.k, d.n, d.tb);  // op(rhs)
        const memory::desc outDesc = batchedDesc(b, d.m, d.n, false);
        const memory::desc outT = batchedDesc(b, d.n, d.m, true);  // dOut^T
        m_forward = Matmul(eng, lhs, rhs, outDesc);
        m_lhsGradFirst = !d.ta;
        m_lhsGrad = d.ta ? Matmul(eng, rhs, outT, batchedDesc(b, d.k, d.m, false))
                         : Matmul(eng, outDesc, batchedDesc(b, d.n, d.k, !d.tb), batchedDesc(b, d.m, d.k, false));
        m_rhsGradFirst = d.tb;
        m_rhsGrad = d.tb ? Matmul(eng, outT, lhs, batchedDesc(b, d.n, d.k, false))
                         : Matmul(eng, batchedDesc(b, d.k, d.m, !d.ta), outDesc, batchedDesc(b, d.k, d.n, false));
    }

    void forward(const CpuContext& ctx, std::span<const CpuArray> in, std::span<const CpuArray> out) override {
        m_forward.run(ctx, in[0].data, in[1].data, out[0].data);
        ctx.dnnl.stream.wait();
    }

    void backward(const CpuContext& ctx, std::span<const CpuArray> in, std::span<const CpuArray>,
                  std::span<const CpuArray> outGrad, std::span<const CpuArray> inGrad) override {
        const float* dy = outGrad[0].data;
        if (inGrad[0].defined()) {
            // dOut is the left factor unless transpose_a put it on the right (as dOut^T).
            m_lhsGradFirst ? m_lhsGrad.run(ctx, dy, in[1].data, inGrad[0].data)
                           : m_lhsGrad.run(ctx, in[1].data, dy, inGrad[0].data);
        }
        if (inGrad[1].defined()) {
            m_rhsGradFirst ? m_rhsGrad.run(ctx, dy, in[0].data, inGrad[1].data)
                           : m_rhsGrad.run(ctx, in[0].data, dy, inGrad[1].data);
        }
        ctx.dnnl.stream.wait();
    }

private:
    Matmul m_forward, m_lhsGrad, m_rhsGrad;
    bool m_lhsGradFirst = true, m_rhsGradFirst = false;
};

// Embedding: out[i] = weight[clip(index[i])]. Indices arrive as floats and are truncated toward zero,
// then clipped into [0, input_dim - 1] as MXNet's take (clip mode) does, in backward too; the weight
// gradient sums the output gradient rows of every index. The indices get no gradient (zeros).
class EmbeddingKernel final : public CpuKernel {
public:
    explicit EmbeddingKernel(const KernelSetup& setup)
        : m_rows(setup.inShapes[1][0]), m_dim(setup.inShapes[1][1]) {}

    void forward(const CpuContext&, std::span<const CpuArray> in, std::span<const CpuArray> out) override {
        const float* index = in[0].data;
        const int64_t count = in[0].size();
        for (int64_t i = 0; i < count; ++i) {
            std::memcpy(out[0].data + i * m_dim, in[1].data + row(index[i]) * m_dim,
                        static_cast<std::size_t>(m_dim) * sizeof(float));
        }
    }

    void backward(const CpuContext&, std::span<const CpuArray> in, std::span<const CpuArray>,
                  std::span<const CpuArray> outGrad, std::span<const CpuArray> inGrad) override {
        if (inGrad[0].defined()) {
            std::fill_n(inGrad[0].data, inGrad[0].size(), 0.0f);
        }
        if (!inGrad[1].defined()) {
            return;
        }
        float* dw = inGrad[1].data;
        std::fill_n(dw, inGrad[1].size(), 0.0f);
        const float* index = in[0].data;
        const int64_t count = in[0].size();
        for (int64_t i = 0; i < count; ++i) {
            float* dst = dw + row(index[i]) * m_dim;
            const float* src = outGrad[0].data + i * m_dim;
            for (int64_t j = 0; j < m_dim; ++j) {
                dst[j] += src[j];
            }
        }
    }

private:
    int64_t row(float index) const {
        // Compare as floats first so huge values and NaN (taken as 0) cannot overflow the conversion.
        if (!(index > 0.0f)) {
            return 0;
        }
        if (index >= static_cast<float>(m_rows - 1)) {
            return m_rows - 1;
        }
        return static_cast<int64_t>(index);
    }

    int64_t m_rows = 0, m_dim = 0;
};

}  // namespace

void addCpuDenseKernels(CpuKernelTable& table) {
    table.add("FullyConnected", [](const KernelSetup& setup, CpuDnnl& dnnl) -> std::unique_ptr<CpuKernel> {
        if (bf16FullyConnected(setup)) {
            try {
                return std::make_unique<FullyConnectedBf16Kernel>(setup, dnnl);
            } catch (const dnnl::error&) {
                // oneDNN has no bf16 matmul for this geometry here: the converting path below
            }
        }
        return std::make_unique<FullyConnectedKernel>(setup, dnnl);
    });
    table.add("dot", [](const KernelSetup& setup, CpuDnnl& dnnl) -> std::unique_ptr<CpuKernel> {
        return std::make_unique<BatchedProductKernel>(dotDims(setup), dnnl);
    });
    table.add("batch_dot", [](const KernelSetup& setup, CpuDnnl& dnnl) -> std::unique_ptr<CpuKernel> {
        return std::make_unique<BatchedProductKernel>(batchDotDims(setup), dnnl);
    });
    table.add("Embedding", [](const KernelSetup& setup, CpuDnnl&) -> std::unique_ptr<CpuKernel> {
        return std::make_unique<EmbeddingKernel>(setup);
    });
}

}  // namespace ampstudio
