// CPU kernels of the dense ops (backend/cpu/cpu_kernel.h says how kernels are written).
// FullyConnected is three oneDNN matmuls (forward, data gradient, weight gradient), created once.
#include <cstring>

#include "backend/cpu/cpu_kernel.h"

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
        const OpAttrs attrs(setup.node);
        m_hasBias = !attrs.getBool("no_bias", false);
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

}  // namespace

void addCpuDenseKernels(CpuKernelTable& table) {
    table.add("FullyConnected", [](const KernelSetup& setup, CpuDnnl& dnnl) -> std::unique_ptr<CpuKernel> {
        return std::make_unique<FullyConnectedKernel>(setup, dnnl);
    });
}

}  // namespace ampstudio
