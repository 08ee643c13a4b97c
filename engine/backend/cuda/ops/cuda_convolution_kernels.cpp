// Convolution and Deconvolution on cuDNN's legacy convolution API, mirroring the CPU kernels
// (cpu_convolution_kernels.cpp) and the op specs (ops/nn_ops.cpp: 2-D NCHW only, symmetric padding,
// MXNet's dilate). A deconvolution is the transpose of the convolution that maps its output back to its
// input: MXNet stores its weight (C_in, num_filter/g, kh, kw), which is exactly the filter
// (K, C/g, kh, kw) of that convolution, so both ops share one cuDNN problem, with x and y swapped:
//   Convolution     forward = conv forward,  data grad = conv backward-data, weight grad = backward-filter(x=data)
//   Deconvolution   forward = backward-data, data grad = conv forward,       weight grad = backward-filter(x=dy)
// The deconvolution output s(H-1) + d(k-1)+1 - 2p + adj is a size whose floored convolution
// output is H again (adj < stride), which is all cuDNN checks; output rows past the last window
// (adj > pad) get nothing, as the CPU's negative right padding gives them.
//
// f32, f16 and bf16 data, all inputs of one dtype, f32 accumulation (cuDNN's pseudo-half and bf16
// configurations). Algorithms are chosen once, here, by cuDNN's heuristics (no trial runs, so no
// allocation or synchronisation at bind time); deterministic ones are preferred so that two runs
// give the same bits.
#include <algorithm>
#include <string>
#include <vector>

#include "backend/cuda/cuda_backend.h"
#include "backend/cuda/cuda_kernel.h"
#include "backend/cuda/ops/cuda_cudnn.h"
#include "backend/kernel_params.h"

namespace ampstudio {

namespace {

using cudnn::kOne;
using cudnn::kZero;

// Algorithms that want more scratch than this are passed over while a leaner one exists.
constexpr std::size_t kWorkspaceLimit = std::size_t{1} << 30;

// The best of cuDNN's heuristic ranking that runs here: status success, within the workspace limit,
// deterministic if any is, and for strict f32 (no TF32) only FMA kernels.
template <typename Perf>
Perf chooseAlgorithm(const OpAttrs& attrs, const std::vector<Perf>& ranked, bool strictF32, const char* what) {
    auto usable = [&](const Perf& p, bool wantDeterministic, bool withinLimit) {
        if (p.status != CUDNN_STATUS_SUCCESS) {
            return false;
        }
        if (strictF32 && p.mathType != CUDNN_FMA_MATH && p.mathType != CUDNN_DEFAULT_MATH) {
            return false;
        }
        if (wantDeterministic && p.determinism != CUDNN_DETERMINISTIC) {
            return false;
        }
        return !withinLimit || p.memory <= kWorkspaceLimit;
    };
    for (const bool withinLimit : {true, false}) {
        for (const bool deterministic : {true, false}) {
            for (const Perf& p : ranked) {
                if (usable(p, deterministic, withinLimit)) {
                    return p;
                }
            }
        }
    }
    attrs.fail(std::string("cuDNN has no ") + what + " algorithm for this convolution");
}

// cuDNN's view of the node: x (N, C, H, W) convolved with w (K, C/g, kh, kw) gives y (N, K, Ho, Wo).
// For Convolution x is the data and y the output; for Deconvolution the other way round.
class ConvolutionKernel final : public CudaKernel {
public:
    ConvolutionKernel(const KernelSetup& setup, CudaBackend& backend, bool transposed) : m_transposed(transposed) {
        const OpAttrs attrs(setup.node);
        const DType type = setup.inTypes[0];
        const cudnnDataType_t dataType = cudnn::dataType(attrs, type);
        for (std::size_t i = 1; i < setup.inTypes.size(); ++i) {
            if (setup.inTypes[i] != type) {
                attrs.fail("cuDNN needs the weight and bias in the data's dtype " + std::string(dtypeName(type)) +
                           ", got " + std::string(dtypeName(setup.inTypes[i])));
            }
        }
        const ConvolutionParams p = transposed ? deconvolutionParams(setup.node) : convolutionParams(setup.node);
        m_hasBias = p.hasBias;
        const int64_t groups = p.groups;
        const Pair& stride = p.stride;
        const Pair& pad = p.pad;
        const Pair& dilate = p.dilate;
        const Shape& xShape = transposed ? setup.outShapes[0] : setup.inShapes[0];
        const Shape& yShape = transposed ? setup.inShapes[0] : setup.outShapes[0];
        const Shape& w = setup.inShapes[1];
        if (w.size() != 4) {
            attrs.fail("cuDNN needs a 4-D weight, got " + shapeString(w));
        }

        m_x = cudnn::tensor4d(attrs, dataType, xShape);
        m_y = cudnn::tensor4d(attrs, dataType, yShape);
        cudnnCheck(cudnnSetFilter4dDescriptor(m_w, dataType, CUDNN_TENSOR_NCHW, cudnn::dim(attrs, w[0]),
                                              cudnn::dim(attrs, w[1]), cudnn::dim(attrs, w[2]),
                                              cudnn::dim(attrs, w[3])),
                   "setting the filter descriptor");
        cudnnCheck(cudnnSetConvolution2dDescriptor(m_conv, cudnn::dim(attrs, pad[0]), cudnn::dim(attrs, pad[1]),
                                                   cudnn::dim(attrs, stride[0]), cudnn::dim(attrs, stride[1]),
                                                   cudnn::dim(attrs, dilate[0]), cudnn::dim(attrs, dilate[1]),
                                                   CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT),
                   "setting the convolution descriptor");
        cudnnCheck(cudnnSetConvolutionGroupCount(m_conv, cudnn::dim(attrs, groups)), "setting the group count");
        // f16/bf16 on tensor cores (f32 accumulation either way); f32 on tensor cores only as TF32,
        // which the backend option allows and FMA math rules out.
        const bool strictF32 = type == DType::F32 && !backend.options().tf32;
        const cudnnMathType_t math = type != DType::F32 ? CUDNN_TENSOR_OP_MATH
                                     : strictF32        ? CUDNN_FMA_MATH
                                                        : CUDNN_DEFAULT_MATH;
        cudnnCheck(cudnnSetConvolutionMathType(m_conv, math), "setting the convolution math type");

        int n = 0, c = 0, h = 0, wd = 0;
        cudnnCheck(cudnnGetConvolution2dForwardOutputDim(m_conv, m_x, m_w, &n, &c, &h, &wd),
                   "computing the convolution output size");
        if (Shape{n, c, h, wd} != yShape) {
            attrs.fail("cuDNN's convolution of " + shapeString(xShape) + " gives " + shapeString(Shape{n, c, h, wd}) +
                       ", not " + shapeString(yShape));
        }
        if (m_hasBias) {
            // The bias is per channel of the node's output: y of a convolution, x of a deconvolution.
            m_bias = cudnn::channelTensor(attrs, dataType, transposed ? xShape[1] : yShape[1]);
        }
        chooseAlgorithms(attrs, backend.cudnn(), strictF32);
    }

    void forward(const CudaContext& ctx, std::span<const Tensor> in, std::span<const Tensor> out) override {
        if (m_transposed) {
            backwardData(ctx, in[1], in[0], out[0]);
        } else {
            convolve(ctx, in[0], in[1], out[0]);
        }
        if (m_hasBias) {
            cudnnCheck(cudnnAddTensor(ctx.cudnn, &kOne, m_bias, in[2].data(), &kOne, m_transposed ? m_x : m_y,
                                      out[0].data()),
                       "adding the convolution bias");
        }
    }

    void backward(const CudaContext& ctx, std::span<const Tensor> in, std::span<const Tensor>,
                  std::span<const Tensor> outGrad, std::span<const Tensor> inGrad) override {
        const Tensor& dy = outGrad[0];
        if (inGrad[0].defined()) {
            if (m_transposed) {
                convolve(ctx, dy, in[1], inGrad[0]);
            } else {
                backwardData(ctx, in[1], dy, inGrad[0]);
            }
        }
        if (inGrad[1].defined()) {
            // dw pairs cuDNN's x with its dy: (data, output grad) or, transposed, (output grad, data).
            const Tensor& x = m_transposed ? dy : in[0];
            const Tensor& yGrad = m_transposed ? in[0] : dy;
            void* workspace = ctx.backend.workspace(m_filterWorkspace);
            cudnnCheck(cudnnConvolutionBackwardFilter(ctx.cudnn, &kOne, m_x, x.data(), m_y, yGrad.data(), m_conv,
                                                      m_filterAlgo, workspace, m_filterWorkspace, &kZero, m_w,
                                                      inGrad[1].data()),
                       "computing the convolution weight gradient");
        }
        if (m_hasBias && inGrad.size() > 2 && inGrad[2].defined()) {
            cudnnCheck(cudnnConvolutionBackwardBias(ctx.cudnn, &kOne, m_transposed ? m_x : m_y, dy.data(), &kZero,
                                                    m_bias, inGrad[2].data()),
                       "computing the convolution bias gradient");
        }
    }

private:
    // y = conv(x, w), over cuDNN's x and y shapes.
    void convolve(const CudaContext& ctx, const Tensor& x, const Tensor& w, const Tensor& y) {
        void* workspace = ctx.backend.workspace(m_forwardWorkspace);
        cudnnCheck(cudnnConvolutionForward(ctx.cudnn, &kOne, m_x, x.data(), m_w, w.data(), m_conv, m_forwardAlgo,
                                           workspace, m_forwardWorkspace, &kZero, m_y, y.data()),
                   "running the convolution");
    }

    // dx = conv^T(dy, w), over cuDNN's y and x shapes.
    void backwardData(const CudaContext& ctx, const Tensor& w, const Tensor& dy, const Tensor& dx) {
        void* workspace = ctx.backend.workspace(m_dataWorkspace);
        cudnnCheck(cudnnConvolutionBackwardData(ctx.cudnn, &kOne, m_w, w.data(), m_y, dy.data(), m_conv, m_dataAlgo,
                                                workspace, m_dataWorkspace, &kZero, m_x, dx.data()),
                   "running the transposed convolution");
    }

    void chooseAlgorithms(const OpAttrs& attrs, cudnnHandle_t handle, bool strictF32) {
        int count = 0, returned = 0;
        cudnnCheck(cudnnGetConvolutionForwardAlgorithmMaxCount(handle, &count), "counting forward algorithms");
        std::vector<cudnnConvolutionFwdAlgoPerf_t> fwd(static_cast<std::size_t>(std::max(count, 1)));
        cudnnCheck(cudnnGetConvolutionForwardAlgorithm_v7(handle, m_x, m_w, m_conv, m_y, count, &returned, fwd.data()),
                   "ranking forward algorithms");
        fwd.resize(static_cast<std::size_t>(returned));
        m_forwardAlgo = chooseAlgorithm(attrs, fwd, strictF32, "forward").algo;
        cudnnCheck(cudnnGetConvolutionForwardWorkspaceSize(handle, m_x, m_w, m_conv, m_y, m_forwardAlgo,
                                                           &m_forwardWorkspace),
                   "sizing the forward workspace");

        cudnnCheck(cudnnGetConvolutionBackwardDataAlgorithmMaxCount(handle, &count),
                   "counting backward-data algorithms");
        std::vector<cudnnConvolutionBwdDataAlgoPerf_t> data(static_cast<std::size_t>(std::max(count, 1)));
        cudnnCheck(
            cudnnGetConvolutionBackwardDataAlgorithm_v7(handle, m_w, m_y, m_conv, m_x, count, &returned, data.data()),
            "ranking backward-data algorithms");
        data.resize(static_cast<std::size_t>(returned));
        m_dataAlgo = chooseAlgorithm(attrs, data, strictF32, "backward-data").algo;
        cudnnCheck(cudnnGetConvolutionBackwardDataWorkspaceSize(handle, m_w, m_y, m_conv, m_x, m_dataAlgo,
                                                                &m_dataWorkspace),
                   "sizing the backward-data workspace");

        cudnnCheck(cudnnGetConvolutionBackwardFilterAlgorithmMaxCount(handle, &count),
                   "counting backward-filter algorithms");
        std::vector<cudnnConvolutionBwdFilterAlgoPerf_t> filter(static_cast<std::size_t>(std::max(count, 1)));
        cudnnCheck(cudnnGetConvolutionBackwardFilterAlgorithm_v7(handle, m_x, m_y, m_conv, m_w, count, &returned,
                                                                 filter.data()),
                   "ranking backward-filter algorithms");
        filter.resize(static_cast<std::size_t>(returned));
        m_filterAlgo = chooseAlgorithm(attrs, filter, strictF32, "backward-filter").algo;
        cudnnCheck(cudnnGetConvolutionBackwardFilterWorkspaceSize(handle, m_x, m_y, m_conv, m_w, m_filterAlgo,
                                                                  &m_filterWorkspace),
                   "sizing the backward-filter workspace");
    }

    bool m_transposed = false;
    bool m_hasBias = false;
    cudnn::TensorDesc m_x, m_y, m_bias;
    cudnn::FilterDesc m_w;
    cudnn::ConvolutionDesc m_conv;
    cudnnConvolutionFwdAlgo_t m_forwardAlgo{};
    cudnnConvolutionBwdDataAlgo_t m_dataAlgo{};
    cudnnConvolutionBwdFilterAlgo_t m_filterAlgo{};
    std::size_t m_forwardWorkspace = 0, m_dataWorkspace = 0, m_filterWorkspace = 0;
};

}  // namespace

void addCudaConvolutionKernels(CudaKernelTable& table) {
    table.add("Convolution", [](const KernelSetup& setup, CudaBackend& backend) -> std::unique_ptr<CudaKernel> {
        return std::make_unique<ConvolutionKernel>(setup, backend, false);
    });
    table.add("Deconvolution", [](const KernelSetup& setup, CudaBackend& backend) -> std::unique_ptr<CudaKernel> {
        return std::make_unique<ConvolutionKernel>(setup, backend, true);
    });
}

}  // namespace ampstudio
