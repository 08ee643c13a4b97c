// ONNX's neural-network ops: MatMul and Gemm (oneDNN matmul), Conv and ConvTranspose (oneDNN
// convolution / deconvolution), pooling, BatchNormalization, LayerNormalization and
// InstanceNormalization. All compute in float32 (the runner widens float16 / bfloat16 inputs).
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <dnnl.hpp>
#include <limits>
#include <numeric>

#include "exec/onnx/onnx_kernel_util.h"
#include "tensor/parallel_for.h"

namespace ampstudio {
namespace {

using dnnl::memory;
constexpr auto kF32 = memory::data_type::f32;

struct Dnnl {
    dnnl::engine engine{dnnl::engine::kind::cpu, 0};
    dnnl::stream stream{engine};
};

}  // namespace

// A float32 value in the layout a convolution chose (onnx_ops.h).
struct OnnxBlockedValue {
    memory value;
};

namespace {

Dnnl& dnnlContext();
memory::desc plainDesc(const Dims& dims, const std::vector<int64_t>& strides);

}  // namespace

void materializeBlocked(const OnnxBlockedValue& value, HostTensor& plain) {
    Dnnl& d = dnnlContext();
    memory target(plainDesc(plain.dims(), stridesOf(plain.dims())), d.engine, plain.mutableData<float>());
    memory source = value.value;
    dnnl::reorder(source, target).execute(d.stream, source, target);
    d.stream.wait();
}

// Output 0 of a kernel that computed it in a blocked layout: kept so where every reader takes it
// (ctx.outputMayStayBlocked), else written plain.
void setBlockedOutput(OnnxKernelContext& ctx, const memory& out, const Dims& dims) {
    HostTensor result = HostTensor::uninitialized(DType::F32, dims);
    if (ctx.outputMayStayBlocked) {
        ctx.blockedOutput = std::make_shared<OnnxBlockedValue>(OnnxBlockedValue{out});
    } else {
        materializeBlocked(OnnxBlockedValue{out}, result);
    }
    ctx.setOutput(0, std::move(result));
}

bool runBlockedElementwise(OnnxKernelContext& ctx) {
    const bool add = ctx.node.op == "Add";
    if ((!add && ctx.node.op != "Relu") || ctx.inputCount() != (add ? 2u : 1u) || !ctx.hasInput(0) || (add && !ctx.hasInput(1))) {
        return false;
    }
    const HostTensor& a = ctx.input(0);
    if (a.dtype() != DType::F32 || (add && (ctx.input(1).dtype() != DType::F32 || ctx.input(1).dims() != a.dims()))) return false;
    const auto blockedAt = [&](std::size_t i) { return i < ctx.blockedInputs.size() ? ctx.blockedInputs[i].get() : nullptr; };
    const OnnxBlockedValue* first = blockedAt(0) ? blockedAt(0) : blockedAt(1);
    if (!first) return false;
    const memory::desc layout = first->value.get_desc();
    const auto n = static_cast<std::size_t>(a.size());
    if (layout.get_size() != n * sizeof(float)) return false;  // a padded layout: not element for element
    Dnnl& d = dnnlContext();
    // Each operand in `layout`: as it lies, or reordered into it (a plain one, or another layout).
    std::vector<memory> keep;
    const auto operand = [&](std::size_t i) -> const float* {
        memory m = blockedAt(i) ? blockedAt(i)->value
                                : memory(plainDesc(a.dims(), stridesOf(a.dims())), d.engine,
                                         const_cast<float*>(ctx.input(i).data<float>()));
        if (m.get_desc() != layout) {
            memory wanted(layout, d.engine);
            dnnl::reorder(m, wanted).execute(d.stream, m, wanted);
            m = wanted;
        }
        keep.push_back(m);
        return static_cast<const float*>(m.get_data_handle());
    };
    const float* x = operand(0);
    const float* y = add ? operand(1) : nullptr;
    d.stream.wait();
    memory out(layout, d.engine);
    float* z = static_cast<float*>(out.get_data_handle());
    parallelFor(static_cast<int64_t>(n), [&](int64_t b, int64_t e) {
        if (add) {
            for (int64_t i = b; i < e; ++i) z[i] = x[i] + y[i];
        } else {
            for (int64_t i = b; i < e; ++i) z[i] = x[i] < 0.0f ? 0.0f : x[i];  // Relu's kernel: NaN and -0 kept
        }
    });
    setBlockedOutput(ctx, out, a.dims());
    return true;
}

namespace {

Dnnl& dnnlContext() {
    static thread_local Dnnl d;  // streams are not shared between threads (the GUI's worker, tests)
    return d;
}

void requireFloat32(const OnnxKernelContext& ctx, const HostTensor& t) {
    if (t.dtype() != DType::F32) ctx.unsupported("dtype " + std::string(dtypeName(t.dtype())));
}

memory::desc plainDesc(const Dims& dims, const std::vector<int64_t>& strides) {
    return memory::desc(memory::dims(dims.begin(), dims.end()), kF32, memory::dims(strides.begin(), strides.end()));
}

template <typename Fn>
void dnnlCall(const OnnxKernelContext& ctx, Fn&& fn) {
    try {
        fn();
    } catch (const dnnl::error& e) {
        ctx.fail(std::string("oneDNN: ") + e.what());
    }
}

// Weights in the layout a primitive chose, made once per weight tensor: keyed by its storage (held
// weakly, so an entry never outlives the bytes or mistakes new bytes at a reused address for them)
// and the layout. A model's initializers live as long as its program, so a run after the first
// reorders no weight; entries of freed tensors are dropped when the next one is made.
memory weightsFor(Dnnl& d, const HostTensor& w, const memory::desc& plain, const memory::desc& wanted) {
    memory stored(plain, d.engine, const_cast<float*>(w.data<float>()));
    if (wanted == plain) return stored;
    struct Entry {
        std::weak_ptr<HostBuffer> storage;
        const void* data;
        memory::desc desc;
        memory reordered;
    };
    static thread_local std::vector<Entry> cache;
    for (const Entry& e : cache) {
        if (e.data == w.raw() && e.desc == wanted && !e.storage.expired() && e.storage.lock() == w.storage()) return e.reordered;
    }
    std::erase_if(cache, [](const Entry& e) { return e.storage.expired(); });
    memory reordered(wanted, d.engine);
    dnnl::reorder(stored, reordered).execute(d.stream, stored, reordered);
    cache.push_back({w.storage(), w.raw(), wanted, reordered});
    return reordered;
}

// c (batch..., m, n) = a (batch..., m, k) x b (batch..., k, n), batch dims broadcast (oneDNN
// broadcasts a batch dim of 1). `aT` / `bT`: a is stored (k, m) / b (n, k), read transposed.
void matmulInto(const OnnxKernelContext& ctx, const float* a, Dims aDims, bool aT, const HostTensor& bTensor, Dims bDims,
                bool bT, float* c, const Dims& cDims) {
    const auto viewOf = [](Dims dims, bool transposed) {
        std::vector<int64_t> strides = stridesOf(dims);
        const std::size_t r = dims.size();
        if (transposed) {
            std::swap(dims[r - 1], dims[r - 2]);
            std::swap(strides[r - 1], strides[r - 2]);
        }
        return plainDesc(dims, strides);
    };
    dnnlCall(ctx, [&] {
        Dnnl& d = dnnlContext();
        const memory::desc ad = viewOf(aDims, aT), bd = viewOf(bDims, bT), cd = plainDesc(cDims, stridesOf(cDims));
        // A matrix of weights (no batch of its own: a Linear layer's) is read in the layout oneDNN
        // prefers, reordered once per tensor (weightsFor); a batched one (attention's) as stored.
        const bool weightMatrix = std::all_of(bDims.begin(), bDims.end() - 2, [](int64_t v) { return v == 1; });
        const memory::desc bWanted = weightMatrix ? memory::desc(bd.dims(), kF32, memory::format_tag::any) : bd;
        std::string key = dimsString(aDims) + (aT ? "t" : "") + dimsString(bDims) + (bT ? "t" : "") + dimsString(cDims);
        static thread_local std::unordered_map<std::string, std::pair<dnnl::matmul::primitive_desc, dnnl::matmul>> made;
        auto found = made.find(key);
        if (found == made.end()) {
            const dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(ad, bWanted, cd), d.engine);
            if (made.size() > 4096) made.clear();
            found = made.emplace(std::move(key), std::make_pair(pd, dnnl::matmul(pd))).first;
        }
        const dnnl::matmul::primitive_desc& pd = found->second.first;
        found->second.second.execute(d.stream, {{DNNL_ARG_SRC, memory(ad, d.engine, const_cast<float*>(a))},
                                                {DNNL_ARG_WEIGHTS, weightsFor(d, bTensor, bd, pd.weights_desc())},
                                                {DNNL_ARG_DST, memory(cd, d.engine, c)}});
        d.stream.wait();
    });
}

void matMul(OnnxKernelContext& ctx) {
    const HostTensor& a = ctx.input(0);
    const HostTensor& b = ctx.input(1);
    requireFloat32(ctx, a);
    requireFloat32(ctx, b);
    if (a.rank() == 0 || b.rank() == 0) ctx.fail("MatMul of a scalar");
    // numpy: a 1-d a is (1, k), a 1-d b is (k, 1), the added axis removed from the result.
    Dims ad = a.dims(), bd = b.dims();
    if (ad.size() == 1) ad.insert(ad.begin(), 1);
    if (bd.size() == 1) bd.push_back(1);
    const int64_t m = ad[ad.size() - 2], k = ad.back(), n = bd.back();
    if (bd[bd.size() - 2] != k) ctx.fail("inner dims differ: " + dimsString(a.dims()) + " x " + dimsString(b.dims()));
    const Dims aBatch(ad.begin(), ad.end() - 2), bBatch(bd.begin(), bd.end() - 2);
    Dims batch = broadcastDims(ctx, aBatch, bBatch);
    const std::size_t rank = batch.size() + 2;
    const auto aligned = [rank](Dims dims) {
        dims.insert(dims.begin(), rank - dims.size(), 1);
        return dims;
    };
    Dims cd = batch;
    cd.insert(cd.end(), {m, n});
    HostTensor c = HostTensor::uninitialized(DType::F32, cd);
    if (c.size() > 0) {
        if (k == 0) {
            std::fill_n(c.mutableData<float>(), c.size(), 0.0f);
        } else {
            const bool weightMatrix = std::all_of(bBatch.begin(), bBatch.end(), [](int64_t v) { return v == 1; });
            if (weightMatrix) {
                // (batch..., m, k) x (k, n): one (batch x m, k) x (k, n) product, the weights in
                // oneDNN's blocked layout (a Linear layer of a transformer: m is the tokens).
                const int64_t rows = c.size() / n;
                matmulInto(ctx, a.data<float>(), {rows, k}, false, b, {k, n}, false, c.mutableData<float>(), {rows, n});
            } else {
                matmulInto(ctx, a.data<float>(), aligned(ad), false, b, aligned(bd), false, c.mutableData<float>(), cd);
            }
        }
    }
    Dims out(batch);
    if (a.rank() > 1) out.push_back(m);
    if (b.rank() > 1) out.push_back(n);
    ctx.setOutput(0, c.reshaped(out));
}

void gemm(OnnxKernelContext& ctx) {
    const HostTensor& a = ctx.input(0);
    const HostTensor& b = ctx.input(1);
    requireFloat32(ctx, a);
    requireFloat32(ctx, b);
    if (a.rank() != 2 || b.rank() != 2) ctx.fail("A and B must be matrices");
    const bool ta = ctx.intAttr("transA", 0) != 0, tb = ctx.intAttr("transB", 0) != 0;
    const float alpha = ctx.floatAttr("alpha", 1.0f), beta = ctx.floatAttr("beta", 1.0f);
    const int64_t m = ta ? a.dims()[1] : a.dims()[0], k = ta ? a.dims()[0] : a.dims()[1];
    const int64_t n = tb ? b.dims()[0] : b.dims()[1];
    if ((tb ? b.dims()[1] : b.dims()[0]) != k) ctx.fail("inner dims differ: " + dimsString(a.dims()) + " x " + dimsString(b.dims()));
    HostTensor y = HostTensor::uninitialized(DType::F32, {m, n});
    float* out = y.mutableData<float>();
    if (k == 0) {
        std::fill_n(out, y.size(), 0.0f);
    } else if (y.size() > 0) {
        matmulInto(ctx, a.data<float>(), a.dims(), ta, b, b.dims(), tb, out, {m, n});
    }
    if (alpha != 1.0f) {
        for (int64_t i = 0; i < y.size(); ++i) out[i] *= alpha;
    }
    if (ctx.hasInput(2) && beta != 0.0f) {
        const HostTensor& c = ctx.input(2);
        requireFloat32(ctx, c);
        const Dims both = broadcastDims(ctx, c.dims(), y.dims());
        if (both != y.dims()) ctx.fail("C " + dimsString(c.dims()) + " does not broadcast to " + dimsString(y.dims()));
        const float* cv = c.data<float>();
        if (const int64_t p = suffixPeriod(c.dims(), y.dims()); p > 0 && p == n) {
            // A bias row (a Linear layer's): row by row on both cores.
            parallelFor(m, [&](int64_t s, int64_t e) {
                for (int64_t r = s; r < e; ++r) {
                    for (int64_t j = 0; j < n; ++j) out[r * n + j] += beta * cv[j];
                }
            });
        } else {
            const std::array<std::vector<int64_t>, 1> s{broadcastStrides(c.dims(), y.dims())};
            forEachBroadcast<1>(y.dims(), s, [&](int64_t i, const std::array<int64_t, 1>& at) { out[i] += beta * cv[at[0]]; });
        }
    }
    ctx.setOutput(0, std::move(y));
}

// The spatial geometry of a convolution or pooling window over `x` (N, C, spatial...).
struct Window {
    std::vector<int64_t> kernel, strides, dilations, padBegin, padEnd, out;
};

Window windowOf(const OnnxKernelContext& ctx, const Dims& x, std::vector<int64_t> kernel, bool ceilMode) {
    const std::size_t spatial = x.size() - 2;
    Window w;
    w.kernel = std::move(kernel);
    if (w.kernel.size() != spatial) ctx.fail("kernel_shape " + dimsString(w.kernel) + " does not fit input " + dimsString(x));
    w.strides = ctx.intsAttr("strides", std::vector<int64_t>(spatial, 1));
    w.dilations = ctx.intsAttr("dilations", std::vector<int64_t>(spatial, 1));
    std::vector<int64_t> pads = ctx.intsAttr("pads", std::vector<int64_t>(2 * spatial, 0));
    if (w.strides.size() != spatial || w.dilations.size() != spatial || pads.size() != 2 * spatial) {
        ctx.fail("strides, dilations or pads do not fit a " + std::to_string(spatial) + "-d window");
    }
    const std::string autoPad = ctx.stringAttr("auto_pad", "NOTSET");
    w.padBegin.assign(pads.begin(), pads.begin() + static_cast<std::ptrdiff_t>(spatial));
    w.padEnd.assign(pads.begin() + static_cast<std::ptrdiff_t>(spatial), pads.end());
    for (std::size_t d = 0; d < spatial; ++d) {
        const int64_t in = x[d + 2], s = w.strides[d];
        if (s <= 0 || w.dilations[d] <= 0 || w.kernel[d] <= 0 || s > 1 << 20 || w.dilations[d] > 1 << 20 || w.kernel[d] > 1 << 20) {
            ctx.fail("a kernel, stride or dilation outside [1, 2^20]");
        }
        if (std::abs(w.padBegin[d]) > int64_t{1} << 40 || std::abs(w.padEnd[d]) > int64_t{1} << 40) ctx.fail("a pad past 2^40");
        const int64_t extent = (w.kernel[d] - 1) * w.dilations[d] + 1;
        if (autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER") {
            const int64_t out = (in + s - 1) / s;
            const int64_t total = std::max<int64_t>(0, (out - 1) * s + extent - in);
            w.padBegin[d] = autoPad == "SAME_UPPER" ? total / 2 : total - total / 2;
            w.padEnd[d] = total - w.padBegin[d];
            w.out.push_back(out);
            continue;
        }
        if (autoPad == "VALID") w.padBegin[d] = w.padEnd[d] = 0;
        else if (autoPad != "NOTSET") ctx.fail("auto_pad '" + autoPad + "'");
        const int64_t span = in + w.padBegin[d] + w.padEnd[d] - extent;
        if (span < 0) ctx.fail("the window is larger than the padded input " + dimsString(x));
        int64_t out = (ceilMode ? (span + s - 1) / s : span / s) + 1;
        // A last window that would start in the end padding is dropped (PyTorch's and ONNX's rule).
        if (ceilMode && (out - 1) * s >= in + w.padBegin[d]) --out;
        w.out.push_back(out);
    }
    return w;
}

// Winograd's F(2x2 / 4x4, 3x3) for 3x3 stride-1 undilated 2-d convolutions without groups (ResNet's
// and VGG's): 2.25-4x fewer multiplications than the direct method, within about 1e-6 of it in
// float32 (ONNX Runtime's CPU provider computes them directly). oneDNN offers it on AVX-512 for
// channel counts it can block; elsewhere its primitive is refused and the direct one made.
// AMS_ONNX_DIRECT_CONV=1 keeps every convolution direct (to measure what it saves).
bool prefersWinograd(const Dims& x, const Dims& weights, const Window& w, int64_t groups) {
    static const bool directOnly = std::getenv("AMS_ONNX_DIRECT_CONV") != nullptr;
    if (directOnly || groups != 1 || x.size() != 4 || weights.size() != 4) return false;
    return weights[2] == 3 && weights[3] == 3 && w.strides == std::vector<int64_t>{1, 1} &&
           w.dilations == std::vector<int64_t>{1, 1};
}

void conv(OnnxKernelContext& ctx) {
    const HostTensor& x = ctx.input(0);
    const HostTensor& wt = ctx.input(1);
    requireFloat32(ctx, x);
    requireFloat32(ctx, wt);
    if (x.rank() < 3 || x.rank() > 5 || wt.rank() != x.rank()) ctx.unsupported("Conv of a rank-" + std::to_string(x.rank()) + " input");
    const int64_t groups = ctx.intAttr("group", 1);
    const int64_t channels = x.dims()[1], filters = wt.dims()[0];
    if (groups <= 0 || channels % groups != 0 || filters % groups != 0 || wt.dims()[1] * groups != channels) {
        ctx.fail("weight " + dimsString(wt.dims()) + " and group " + std::to_string(groups) + " do not fit input " + dimsString(x.dims()));
    }
    const Window w = windowOf(ctx, x.dims(), ctx.intsAttr("kernel_shape", Dims(wt.dims().begin() + 2, wt.dims().end())), false);
    Dims outDims{x.dims()[0], filters};
    outDims.insert(outDims.end(), w.out.begin(), w.out.end());
    HostTensor y = HostTensor::uninitialized(DType::F32, outDims);
    const bool hasBias = ctx.hasInput(2);
    if (hasBias) requireFloat32(ctx, ctx.input(2));
    if (y.size() == 0) return ctx.setOutput(0, std::move(y));
    // The residual Add of the runner's plan, as a sum post-op: dst holds the residual when the
    // convolution starts and gets conv + residual, the same float32 sum the Add would make.
    const bool addResidual = ctx.residual && ctx.storeAs[0] == DType::F32 && ctx.residual->dtype() == DType::F32 &&
                             ctx.residual->dims() == outDims;
    const bool reluAfter = addResidual && ctx.reluAfterResidual;
    dnnlCall(ctx, [&] {
        Dnnl& d = dnnlContext();
        const memory::desc src = plainDesc(x.dims(), stridesOf(x.dims())), dst = plainDesc(outDims, stridesOf(outDims));
        Dims wd = wt.dims();
        if (groups > 1) {
            wd[0] /= groups;
            wd.insert(wd.begin(), groups);
        }
        const memory::desc weights = plainDesc(wd, stridesOf(wd));
        const memory::desc bias = hasBias ? plainDesc({filters}, {1}) : memory::desc();
        memory::dims dil;
        for (const int64_t v : w.dilations) dil.push_back(v - 1);
        // oneDNN picks the layouts (blocked ones, where its fast kernels are); the activations are
        // reordered in and out, the weights once per weight tensor (weightsFor's cache).
        const auto any = [](const memory::desc& m) { return memory::desc(m.dims(), kF32, memory::format_tag::any); };
        // Made once per geometry (a model's convolutions run with the same shapes run after run).
        std::string key = dimsString(x.dims()) + dimsString(wd) + dimsString(w.strides) + dimsString(w.dilations) +
                          dimsString(w.padBegin) + dimsString(w.padEnd) + (hasBias ? "b" : "") + (ctx.fusedRelu ? "r" : "") +
                          (addResidual ? "s" : "") + (reluAfter ? "R" : "");
        static thread_local std::unordered_map<std::string, std::pair<dnnl::convolution_forward::primitive_desc, dnnl::convolution_forward>> made;
        auto found = made.find(key);
        if (found == made.end()) {
            dnnl::primitive_attr attr;
            dnnl::post_ops ops;
            if (ctx.fusedRelu) ops.append_eltwise(1.0f, dnnl::algorithm::eltwise_relu, 0.0f, 0.0f);  // the Relu alone reading it
            if (addResidual) ops.append_sum(1.0f);
            if (reluAfter) ops.append_eltwise(1.0f, dnnl::algorithm::eltwise_relu, 0.0f, 0.0f);
            attr.set_post_ops(ops);
            const auto describe = [&](dnnl::algorithm algorithm) {
                return dnnl::convolution_forward::primitive_desc(
                    dnnl::convolution_forward::desc(dnnl::prop_kind::forward_inference, algorithm, any(src), any(weights), bias,
                                                    any(dst), memory::dims(w.strides.begin(), w.strides.end()), dil,
                                                    memory::dims(w.padBegin.begin(), w.padBegin.end()),
                                                    memory::dims(w.padEnd.begin(), w.padEnd.end())),
                    attr, d.engine);
            };
            dnnl::convolution_forward::primitive_desc made_pd;
            bool winograd = false;
            if (prefersWinograd(x.dims(), wd, w, groups)) {
                try {
                    made_pd = describe(dnnl::algorithm::convolution_winograd);
                    winograd = true;
                } catch (const dnnl::error&) {  // no Winograd kernel for this shape or ISA: direct
                }
            }
            if (!winograd) made_pd = describe(dnnl::algorithm::convolution_direct);
            if (made.size() > 4096) made.clear();
            found = made.emplace(std::move(key), std::make_pair(made_pd, dnnl::convolution_forward(made_pd))).first;
        }
        const dnnl::convolution_forward::primitive_desc& pd = found->second.first;
        // The data: as stored, or as the previous convolution left it (the runner's plan), reordered
        // only where this primitive wants another layout.
        const OnnxBlockedValue* blocked = ctx.blockedInputs.empty() ? nullptr : ctx.blockedInputs[0].get();
        memory srcMem = blocked ? blocked->value : memory(src, d.engine, const_cast<float*>(x.data<float>()));
        if (pd.src_desc() != srcMem.get_desc()) {
            memory wanted(pd.src_desc(), d.engine);
            dnnl::reorder(srcMem, wanted).execute(d.stream, srcMem, wanted);
            srcMem = wanted;
        }
        // The output stays in the primitive's layout where only convolutions (and the element-wise
        // ops that pass a layout on) read it and it needs no rounding (a float32 model); else it is
        // written plain.
        const bool mayStay = addResidual ? ctx.residualOutputMayStayBlocked : ctx.outputMayStayBlocked;
        const bool keepBlocked = mayStay && ctx.storeAs[0] == DType::F32 && pd.dst_desc() != dst;
        memory dstPlain = keepBlocked ? memory() : memory(dst, d.engine, y.mutableData<float>());
        memory dstMem = pd.dst_desc() == dst && !keepBlocked ? dstPlain : memory();
        if (addResidual) {
            // The residual's own buffer takes the sum where nothing else reads it later and its layout
            // is the primitive's; else it is copied (reordered) into the destination first.
            memory residual = ctx.residualBlocked ? ctx.residualBlocked->value
                                                  : memory(dst, d.engine, const_cast<float*>(ctx.residual->data<float>()));
            if (ctx.residualBlocked && ctx.residualMayBeOverwritten && residual.get_desc() == pd.dst_desc()) {
                dstMem = residual;
            } else {
                if (!dstMem) dstMem = memory(pd.dst_desc(), d.engine);
                dnnl::reorder(residual, dstMem).execute(d.stream, residual, dstMem);
            }
        } else if (!dstMem) {
            dstMem = memory(pd.dst_desc(), d.engine);
        }
        std::unordered_map<int, memory> args{{DNNL_ARG_SRC, srcMem},
                                             {DNNL_ARG_WEIGHTS, weightsFor(d, wt, weights, pd.weights_desc())},
                                             {DNNL_ARG_DST, dstMem}};
        if (hasBias) args.emplace(DNNL_ARG_BIAS, memory(bias, d.engine, const_cast<float*>(ctx.input(2).data<float>())));
        found->second.second.execute(d.stream, args);
        if (keepBlocked) {
            ctx.blockedOutput = std::make_shared<OnnxBlockedValue>(OnnxBlockedValue{dstMem});
        } else if (dstMem.get_data_handle() != dstPlain.get_data_handle()) {
            dnnl::reorder(dstMem, dstPlain).execute(d.stream, dstMem, dstPlain);
        }
        d.stream.wait();
    });
    ctx.residualAdded = addResidual;
    ctx.setOutput(0, std::move(y));
}

void convTranspose(OnnxKernelContext& ctx) {
    const HostTensor& x = ctx.input(0);
    const HostTensor& wt = ctx.input(1);
    requireFloat32(ctx, x);
    requireFloat32(ctx, wt);
    if (x.rank() < 3 || x.rank() > 5 || wt.rank() != x.rank()) ctx.unsupported("ConvTranspose of a rank-" + std::to_string(x.rank()) + " input");
    const std::size_t spatial = static_cast<std::size_t>(x.rank()) - 2;
    const int64_t groups = ctx.intAttr("group", 1);
    const int64_t channels = x.dims()[1];
    if (groups <= 0 || wt.dims()[0] != channels || channels % groups != 0) ctx.fail("weight and group do not fit the input");
    const int64_t filters = wt.dims()[1] * groups;
    const std::vector<int64_t> kernel = ctx.intsAttr("kernel_shape", Dims(wt.dims().begin() + 2, wt.dims().end()));
    const std::vector<int64_t> strides = ctx.intsAttr("strides", std::vector<int64_t>(spatial, 1));
    const std::vector<int64_t> dilations = ctx.intsAttr("dilations", std::vector<int64_t>(spatial, 1));
    const std::vector<int64_t> outputPadding = ctx.intsAttr("output_padding", std::vector<int64_t>(spatial, 0));
    std::vector<int64_t> pads = ctx.intsAttr("pads", std::vector<int64_t>(2 * spatial, 0));
    const std::vector<int64_t> outputShape = ctx.intsAttr("output_shape");
    const std::string autoPad = ctx.stringAttr("auto_pad", "NOTSET");
    if (kernel.size() != spatial || strides.size() != spatial || dilations.size() != spatial || outputPadding.size() != spatial ||
        pads.size() != 2 * spatial || (!outputShape.empty() && outputShape.size() < spatial)) {
        ctx.fail("kernel_shape, strides, dilations, output_padding, pads or output_shape do not fit the input");
    }
    for (std::size_t d = 0; d < spatial; ++d) {
        if (kernel[d] <= 0 || strides[d] <= 0 || dilations[d] <= 0 || kernel[d] > 1 << 20 || strides[d] > 1 << 20 ||
            dilations[d] > 1 << 20) {
            ctx.fail("a kernel, stride or dilation outside [1, 2^20]");
        }
    }
    // computed: what oneDNN makes; outDims: what the node returns. They differ where output_shape asks
    // for more than the full output: the rows past it hold only the bias (onnx's reference).
    Dims outDims{x.dims()[0], filters}, computed = outDims;
    std::vector<int64_t> padL(spatial), padR(spatial);
    for (std::size_t d = 0; d < spatial; ++d) {
        const int64_t in = x.dims()[d + 2], extent = (kernel[d] - 1) * dilations[d] + 1;
        const int64_t full = strides[d] * (in - 1) + outputPadding[d] + extent;
        int64_t wanted = 0;
        if (!outputShape.empty() || autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER") {
            wanted = outputShape.empty() ? in * strides[d] : outputShape[outputShape.size() - spatial + d];
            const int64_t total = std::max<int64_t>(0, full - wanted);
            // output_shape places the extra padding at the end unless SAME_LOWER (onnx's reference).
            padL[d] = autoPad == "SAME_LOWER" ? total - total / 2 : total / 2;
            padR[d] = total - padL[d];
        } else {
            padL[d] = autoPad == "VALID" ? 0 : pads[d];
            padR[d] = autoPad == "VALID" ? 0 : pads[d + spatial];
            wanted = full - padL[d] - padR[d];
        }
        computed.push_back(full - padL[d] - padR[d]);
        outDims.push_back(wanted);
        if (wanted <= 0 || computed.back() <= 0) ctx.fail("an output size below 1");
    }
    HostTensor y = HostTensor::uninitialized(DType::F32, computed);
    const bool hasBias = ctx.hasInput(2);
    dnnlCall(ctx, [&] {
        Dnnl& dn = dnnlContext();
        const memory::desc src = plainDesc(x.dims(), stridesOf(x.dims())), dst = plainDesc(computed, stridesOf(computed));
        // ONNX stores (C, M/g, k...) = (g, C/g, M/g, k...); oneDNN reads (g, M/g, C/g, k...): strides, no copy.
        const int64_t inPerGroup = channels / groups, outPerGroup = wt.dims()[1];
        const std::vector<int64_t> ws = stridesOf(wt.dims());
        Dims wd{groups, outPerGroup, inPerGroup};
        std::vector<int64_t> wstr{inPerGroup * ws[0], ws[1], ws[0]};
        for (std::size_t d = 0; d < spatial; ++d) {
            wd.push_back(wt.dims()[d + 2]);
            wstr.push_back(ws[d + 2]);
        }
        if (groups == 1) {
            wd.erase(wd.begin());
            wstr.erase(wstr.begin());
        }
        const memory::desc weights = plainDesc(wd, wstr);
        const memory::desc bias = hasBias ? plainDesc({filters}, {1}) : memory::desc();
        memory::dims dil;
        for (const int64_t v : dilations) dil.push_back(v - 1);
        // oneDNN's deconvolution output is s(in-1) + extent - padL - padR: output_padding joins padR.
        memory::dims right;
        for (std::size_t d = 0; d < spatial; ++d) right.push_back(padR[d] - outputPadding[d]);
        const dnnl::deconvolution_forward::primitive_desc pd(
            dnnl::deconvolution_forward::desc(dnnl::prop_kind::forward_inference, dnnl::algorithm::deconvolution_direct, src,
                                              weights, bias, dst, memory::dims(strides.begin(), strides.end()), dil,
                                              memory::dims(padL.begin(), padL.end()), right),
            dn.engine);
        std::unordered_map<int, memory> args{{DNNL_ARG_SRC, memory(src, dn.engine, const_cast<float*>(x.data<float>()))},
                                             {DNNL_ARG_WEIGHTS, memory(weights, dn.engine, const_cast<float*>(wt.data<float>()))},
                                             {DNNL_ARG_DST, memory(dst, dn.engine, y.mutableData<float>())}};
        if (hasBias) args.emplace(DNNL_ARG_BIAS, memory(bias, dn.engine, const_cast<float*>(ctx.input(2).data<float>())));
        dnnl::deconvolution_forward(pd).execute(dn.stream, args);
        dn.stream.wait();
    });
    if (computed != outDims) {
        HostTensor padded = HostTensor::uninitialized(DType::F32, outDims);
        const int64_t plane = dimsSize(Dims(outDims.begin() + 2, outDims.end()));
        for (int64_t nc = 0; nc < outDims[0] * filters; ++nc) {
            std::fill_n(padded.mutableData<float>() + nc * plane, plane, hasBias ? ctx.input(2).data<float>()[nc % filters] : 0.0f);
        }
        const std::array<std::vector<int64_t>, 1> s{stridesOf(outDims)};
        // Copies `computed` into the top-left corner of `padded`: offsets of padded by computed's index.
        std::vector<int64_t> within(computed.size(), 0);
        for (int64_t i = 0; i < y.size(); ++i) {
            int64_t at = 0;
            for (std::size_t d = 0; d < computed.size(); ++d) at += within[d] * s[0][d];
            padded.mutableData<float>()[at] = y.data<float>()[i];
            for (std::size_t d = computed.size(); d-- > 0;) {
                if (++within[d] < computed[d]) break;
                within[d] = 0;
            }
        }
        y = std::move(padded);
    }
    ctx.setOutput(0, std::move(y));
}

enum class Pool { Max, Average, Lp };

// Pooling by hand: ONNX's rules for ceil_mode, dilations, count_include_pad and the end padding
// are simpler to state exactly than to map onto oneDNN's, and pooling is a small share of a model.
template <Pool P>
void pool(OnnxKernelContext& ctx) {
    const HostTensor& x = ctx.input(0);
    requireFloat32(ctx, x);
    if (x.rank() < 3) ctx.fail("input " + dimsString(x.dims()) + " has no spatial axes");
    if (ctx.wantsOutput(1)) ctx.unsupported("MaxPool's Indices output");
    const Window w = windowOf(ctx, x.dims(), ctx.intsAttr("kernel_shape"), ctx.intAttr("ceil_mode", 0) != 0);
    const bool includePad = ctx.intAttr("count_include_pad", 0) != 0;
    const auto p = static_cast<float>(ctx.intAttr("p", 2));
    const std::size_t spatial = w.kernel.size();
    Dims outDims{x.dims()[0], x.dims()[1]};
    outDims.insert(outDims.end(), w.out.begin(), w.out.end());
    HostTensor y = HostTensor::uninitialized(DType::F32, outDims);
    const Dims inSpatial(x.dims().begin() + 2, x.dims().end());
    const int64_t inPlane = dimsSize(inSpatial), outPlane = dimsSize(w.out), planes = x.dims()[0] * x.dims()[1];
    const float* in = x.data<float>();
    float* out = y.mutableData<float>();
    const int64_t windowSize = dimsSize(w.kernel);
    if constexpr (P == Pool::Max) {
        if (spatial == 2 && w.dilations[0] == 1 && w.dilations[1] == 1) {
            // The common case (ResNet's stem) row by row: each window's bounds clipped to the input
            // once, no per-tap index arithmetic. The same maxima as the general loop below.
            const int64_t ih = inSpatial[0], iw = inSpatial[1], oh = w.out[0], ow = w.out[1];
            parallelFor(planes * oh, [&](int64_t begin, int64_t end) {
                for (int64_t row = begin; row < end; ++row) {
                    const int64_t plane = row / oh, r = row % oh;
                    const int64_t h0 = std::max<int64_t>(r * w.strides[0] - w.padBegin[0], 0);
                    const int64_t h1 = std::min(r * w.strides[0] - w.padBegin[0] + w.kernel[0], ih);
                    const float* src = in + plane * inPlane;
                    for (int64_t c = 0; c < ow; ++c) {
                        const int64_t w0 = std::max<int64_t>(c * w.strides[1] - w.padBegin[1], 0);
                        const int64_t w1 = std::min(c * w.strides[1] - w.padBegin[1] + w.kernel[1], iw);
                        float m = -std::numeric_limits<float>::infinity();
                        bool nan = false;
                        for (int64_t h = h0; h < h1; ++h) {
                            for (int64_t k = w0; k < w1; ++k) {
                                const float v = src[h * iw + k];
                                nan |= std::isnan(v);
                                m = v > m ? v : m;
                            }
                        }
                        out[plane * outPlane + r * ow + c] = nan ? std::numeric_limits<float>::quiet_NaN() : m;
                    }
                }
            });
            return ctx.setOutput(0, std::move(y));
        }
    }
    parallelFor(planes * outPlane, [&](int64_t begin, int64_t end) {
        std::vector<int64_t> o(spatial), k(spatial);
        for (int64_t idx = begin; idx < end; ++idx) {
            const int64_t plane = idx / outPlane;
            int64_t rest = idx % outPlane;
            for (std::size_t d = spatial; d-- > 0;) {
                o[d] = rest % w.out[d];
                rest /= w.out[d];
            }
            double acc = P == Pool::Max ? -std::numeric_limits<double>::infinity() : 0.0;
            int64_t counted = 0, inPadded = 0;
            for (int64_t t = 0; t < windowSize; ++t) {
                int64_t r = t, offset = 0;
                bool inside = true, withinPads = true;
                for (std::size_t d = spatial; d-- > 0;) {
                    k[d] = r % w.kernel[d];
                    r /= w.kernel[d];
                }
                for (std::size_t d = 0; d < spatial; ++d) {
                    const int64_t pos = o[d] * w.strides[d] + k[d] * w.dilations[d] - w.padBegin[d];
                    if (pos < 0 || pos >= inSpatial[d]) inside = false;
                    if (pos >= inSpatial[d] + w.padEnd[d]) withinPads = false;
                    offset = offset * inSpatial[d] + pos;
                }
                if (withinPads) ++inPadded;
                if (!inside) continue;
                const float v = in[plane * inPlane + offset];
                ++counted;
                if constexpr (P == Pool::Max) acc = (std::isnan(v) || v > acc) ? v : acc;
                else if constexpr (P == Pool::Average) acc += v;
                else acc += std::pow(std::fabs(static_cast<double>(v)), p);
            }
            if constexpr (P == Pool::Average) acc /= static_cast<double>(includePad ? inPadded : std::max<int64_t>(counted, 1));
            if constexpr (P == Pool::Lp) acc = std::pow(acc, 1.0 / p);
            out[idx] = static_cast<float>(acc);
        }
    });
    ctx.setOutput(0, std::move(y));
}

}  // namespace

bool runBlockedMaxPool(OnnxKernelContext& ctx) {
    if (ctx.node.op != "MaxPool" || ctx.blockedInputs.empty() || !ctx.blockedInputs[0] || ctx.wantsOutput(1)) return false;
    const HostTensor& x = ctx.input(0);
    if (x.dtype() != DType::F32 || x.rank() != 4) return false;
    const Window w = windowOf(ctx, x.dims(), ctx.intsAttr("kernel_shape"), ctx.intAttr("ceil_mode", 0) != 0);
    if (w.kernel.size() != 2 || w.dilations[0] != 1 || w.dilations[1] != 1) return false;
    const memory::desc layout = ctx.blockedInputs[0]->value.get_desc();
    const memory::dims dims(x.dims().begin(), x.dims().end());
    const int64_t n = x.dims()[0], c = x.dims()[1], ih = x.dims()[2], iw = x.dims()[3], oh = w.out[0], ow = w.out[1];
    // Channels innermost: NHWC is one block of all channels, nChw16c / nChw8c blocks of 16 / 8.
    memory::format_tag tag = memory::format_tag::undef;
    int64_t block = 0;
    for (const auto& [t, b] : {std::pair{memory::format_tag::acdb, c}, std::pair{memory::format_tag::aBcd16b, int64_t{16}},
                               std::pair{memory::format_tag::aBcd8b, int64_t{8}}}) {
        if (c % b == 0 && layout == memory::desc(dims, kF32, t)) tag = t, block = b;
    }
    if (tag == memory::format_tag::undef) return false;
    Dnnl& d = dnnlContext();
    const Dims outDims{n, c, oh, ow};
    memory out(memory::desc(memory::dims(outDims.begin(), outDims.end()), kF32, tag), d.engine);
    const float* in = static_cast<const float*>(ctx.blockedInputs[0]->value.get_data_handle());
    float* z = static_cast<float*>(out.get_data_handle());
    const int64_t blocks = c / block;
    // Per output pixel, the channels of a block side by side: a vector max per tap, each window's
    // bounds clipped once. The plain kernel's rule per channel: NaN anywhere gives NaN, else the
    // first of equal maxima.
    parallelFor(n * blocks * oh, [&](int64_t begin, int64_t end) {
        std::vector<float> m(static_cast<std::size_t>(block));
        std::vector<unsigned char> nan(static_cast<std::size_t>(block));
        for (int64_t row = begin; row < end; ++row) {
            const int64_t plane = row / oh, r = row % oh;  // plane = image * blocks + channel block
            const int64_t h0 = std::max<int64_t>(r * w.strides[0] - w.padBegin[0], 0);
            const int64_t h1 = std::min(r * w.strides[0] - w.padBegin[0] + w.kernel[0], ih);
            const float* src = in + plane * ih * iw * block;
            float* dst = z + (plane * oh + r) * ow * block;
            for (int64_t col = 0; col < ow; ++col) {
                const int64_t w0 = std::max<int64_t>(col * w.strides[1] - w.padBegin[1], 0);
                const int64_t w1 = std::min(col * w.strides[1] - w.padBegin[1] + w.kernel[1], iw);
                std::fill(m.begin(), m.end(), -std::numeric_limits<float>::infinity());
                std::fill(nan.begin(), nan.end(), 0);
                for (int64_t h = h0; h < h1; ++h) {
                    for (int64_t k = w0; k < w1; ++k) {
                        const float* v = src + (h * iw + k) * block;
                        for (int64_t l = 0; l < block; ++l) {
                            nan[l] |= v[l] != v[l];
                            m[l] = v[l] > m[l] ? v[l] : m[l];
                        }
                    }
                }
                float* o = dst + col * block;
                for (int64_t l = 0; l < block; ++l) o[l] = nan[l] ? std::numeric_limits<float>::quiet_NaN() : m[l];
            }
        }
    });
    setBlockedOutput(ctx, out, outDims);
    return true;
}

namespace {

template <Pool P>
void globalPool(OnnxKernelContext& ctx) {
    const HostTensor& x = ctx.input(0);
    requireFloat32(ctx, x);
    if (x.rank() < 2) ctx.fail("input " + dimsString(x.dims()) + " has no channel axis");
    Dims outDims{x.dims()[0], x.dims()[1]};
    outDims.resize(x.dims().size(), 1);
    HostTensor y = HostTensor::uninitialized(DType::F32, outDims);
    const int64_t planes = x.dims()[0] * x.dims()[1], plane = planes == 0 ? 0 : x.size() / planes;
    const float p = static_cast<float>(ctx.intAttr("p", 2));
    const float* in = x.data<float>();
    for (int64_t c = 0; c < planes; ++c) {
        double acc = P == Pool::Max ? -std::numeric_limits<double>::infinity() : 0.0;
        for (int64_t i = 0; i < plane; ++i) {
            const float v = in[c * plane + i];
            if constexpr (P == Pool::Max) acc = (std::isnan(v) || v > acc) ? v : acc;
            else if constexpr (P == Pool::Average) acc += v;
            else acc += std::pow(std::fabs(static_cast<double>(v)), p);
        }
        if constexpr (P == Pool::Average) acc /= static_cast<double>(plane);
        if constexpr (P == Pool::Lp) acc = std::pow(acc, 1.0 / p);
        y.mutableData<float>()[c] = static_cast<float>(acc);
    }
    ctx.setOutput(0, std::move(y));
}

void batchNormalization(OnnxKernelContext& ctx) {
    const HostTensor& x = ctx.input(0);
    for (std::size_t i = 0; i < 5; ++i) requireFloat32(ctx, ctx.input(i));
    if (ctx.intAttr("training_mode", 0) != 0 || ctx.wantsOutput(1)) ctx.unsupported("BatchNormalization in training mode");
    const float epsilon = ctx.floatAttr("epsilon", 1e-5f);
    const int64_t channels = x.rank() > 1 ? x.dims()[1] : 1;
    for (std::size_t i = 1; i < 5; ++i) {
        if (ctx.input(i).size() != channels) ctx.fail("input " + std::to_string(i) + " does not hold one value per channel");
    }
    const float *scale = ctx.input(1).data<float>(), *bias = ctx.input(2).data<float>();
    const float *mean = ctx.input(3).data<float>(), *var = ctx.input(4).data<float>();
    std::vector<float> a(static_cast<std::size_t>(channels)), b(static_cast<std::size_t>(channels));
    for (int64_t c = 0; c < channels; ++c) {
        a[static_cast<std::size_t>(c)] = scale[c] / std::sqrt(var[c] + epsilon);
        b[static_cast<std::size_t>(c)] = bias[c] - mean[c] * a[static_cast<std::size_t>(c)];
    }
    HostTensor y = HostTensor::uninitialized(DType::F32, x.dims());
    const int64_t batch = x.rank() > 0 ? x.dims()[0] : 1;
    const int64_t plane = batch * channels == 0 ? 0 : x.size() / (batch * channels);
    const float* in = x.data<float>();
    float* out = y.mutableData<float>();
    parallelFor(batch * channels, [&](int64_t s, int64_t e) {
        for (int64_t nc = s; nc < e; ++nc) {
            const auto c = static_cast<std::size_t>(nc % channels);
            for (int64_t i = 0; i < plane; ++i) out[nc * plane + i] = in[nc * plane + i] * a[c] + b[c];
        }
    });
    ctx.setOutput(0, std::move(y));
}

// Normalises each row of (outer, inner) to zero mean and unit variance, then y = x̂ * scale + bias
// with scale / bias indexed by `paramIndex(row, i)`. Mean and 1/stddev per row when wanted.
template <typename ParamIndex>
void normaliseRows(const float* in, float* out, int64_t outer, int64_t inner, float epsilon, const float* scale,
                   const float* bias, ParamIndex&& paramIndex, float* meanOut, float* invStdOut) {
    parallelFor(outer, [&](int64_t s, int64_t e) {
        for (int64_t r = s; r < e; ++r) {
            const float* row = in + r * inner;
            double sum = 0.0, sq = 0.0;
            for (int64_t i = 0; i < inner; ++i) sum += row[i];
            const double mean = sum / static_cast<double>(inner);
            for (int64_t i = 0; i < inner; ++i) sq += (row[i] - mean) * (row[i] - mean);
            const double inv = 1.0 / std::sqrt(sq / static_cast<double>(inner) + epsilon);
            for (int64_t i = 0; i < inner; ++i) {
                const int64_t p = paramIndex(r, i);
                out[r * inner + i] = static_cast<float>((row[i] - mean) * inv * scale[p] + (bias ? bias[p] : 0.0f));
            }
            if (meanOut) meanOut[r] = static_cast<float>(mean);
            if (invStdOut) invStdOut[r] = static_cast<float>(inv);
        }
    });
}

// LayerNormalization's rows (scale and bias dense per row): the sums in 16 float lanes, added up
// in double (a float reduction the compiler may not reorder itself), the rest in float, as ONNX
// Runtime computes it. Compiled for AVX-512 and AVX2 beside the baseline, picked at load time.
__attribute__((target_clones("avx512f", "avx2", "default")))
void layerNormRows(const float* in, float* out, int64_t rows, int64_t inner, float epsilon, const float* scale,
                   const float* bias, float* meanOut, float* invStdOut) {
    for (int64_t r = 0; r < rows; ++r) {
        const float* x = in + r * inner;
        float* y = out + r * inner;
        const auto mean = static_cast<float>(sumInLanes(inner, [&](int64_t k) { return x[k]; }) / static_cast<double>(inner));
        const double squares = sumInLanes(inner, [&](int64_t k) { return (x[k] - mean) * (x[k] - mean); });
        const auto inv = static_cast<float>(1.0 / std::sqrt(squares / static_cast<double>(inner) + epsilon));
        if (bias) {
            for (int64_t k = 0; k < inner; ++k) y[k] = (x[k] - mean) * inv * scale[k] + bias[k];
        } else {
            for (int64_t k = 0; k < inner; ++k) y[k] = (x[k] - mean) * inv * scale[k];
        }
        meanOut[r] = mean;
        invStdOut[r] = inv;
    }
}

void layerNormalization(OnnxKernelContext& ctx) {
    const HostTensor& x = ctx.input(0);
    const HostTensor& scale = ctx.input(1);
    requireFloat32(ctx, x);
    requireFloat32(ctx, scale);
    const int64_t axis = ctx.axis(ctx.intAttr("axis", -1), x.rank());
    int64_t outer = 1, inner = 1;
    for (int64_t d = 0; d < x.rank(); ++d) (d < axis ? outer : inner) *= x.dims()[static_cast<std::size_t>(d)];
    const Dims normalised(x.dims().begin() + axis, x.dims().end());
    const HostTensor* bias = ctx.hasInput(2) ? &ctx.input(2) : nullptr;
    if (bias) requireFloat32(ctx, *bias);
    if (broadcastDims(ctx, scale.dims(), normalised) != normalised || (bias && broadcastDims(ctx, bias->dims(), normalised) != normalised)) {
        ctx.fail("scale or bias does not broadcast to " + dimsString(normalised));
    }
    // Scale and bias broadcast to the normalised shape once, so each row reads them densely.
    const auto dense = [&](const HostTensor& t) {
        std::vector<float> v(static_cast<std::size_t>(inner));
        const std::array<std::vector<int64_t>, 1> s{broadcastStrides(t.dims(), normalised)};
        forEachBroadcast<1>(normalised, s, [&](int64_t i, const std::array<int64_t, 1>& at) { v[static_cast<std::size_t>(i)] = t.data<float>()[at[0]]; });
        return v;
    };
    const std::vector<float> s = dense(scale), b = bias ? dense(*bias) : std::vector<float>{};
    HostTensor y = HostTensor::uninitialized(DType::F32, x.dims());
    Dims statDims(x.dims().begin(), x.dims().begin() + axis);
    statDims.resize(x.dims().size(), 1);
    HostTensor mean = HostTensor::uninitialized(DType::F32, statDims), invStd(DType::F32, statDims);
    const float epsilon = ctx.floatAttr("epsilon", 1e-5f);
    const float* in = x.data<float>();
    float* out = y.mutableData<float>();
    float* means = mean.mutableData<float>();
    float* invStds = invStd.mutableData<float>();
    parallelFor(outer, [&](int64_t begin, int64_t end) {
        layerNormRows(in + begin * inner, out + begin * inner, end - begin, inner, epsilon, s.data(), bias ? b.data() : nullptr,
                      means + begin, invStds + begin);
    });
    // Mean and InvStdDev are of stash_type (float32): not rounded to a float16 input's dtype.
    if (ctx.intAttr("stash_type", 1) == 1) ctx.storeAs[1] = ctx.storeAs[2] = DType::F32;
    ctx.setOutput(0, std::move(y));
    ctx.setOutput(1, std::move(mean));
    ctx.setOutput(2, std::move(invStd));
}

void instanceNormalization(OnnxKernelContext& ctx) {
    const HostTensor& x = ctx.input(0);
    for (std::size_t i = 0; i < 3; ++i) requireFloat32(ctx, ctx.input(i));
    if (x.rank() < 3) ctx.fail("input " + dimsString(x.dims()) + " has no spatial axes");
    const int64_t channels = x.dims()[1];
    if (ctx.input(1).size() != channels || ctx.input(2).size() != channels) ctx.fail("scale or B does not hold one value per channel");
    const int64_t outer = x.dims()[0] * channels, inner = outer == 0 ? 0 : x.size() / outer;
    HostTensor y = HostTensor::uninitialized(DType::F32, x.dims());
    normaliseRows(x.data<float>(), y.mutableData<float>(), outer, inner, ctx.floatAttr("epsilon", 1e-5f),
                  ctx.input(1).data<float>(), ctx.input(2).data<float>(),
                  [channels](int64_t r, int64_t) { return r % channels; }, nullptr, nullptr);
    ctx.setOutput(0, std::move(y));
}

}  // namespace

void addOnnxNnOps(OnnxOpTable& table) {
    const OnnxOpTable ops = {
        {"MatMul", {matMul}},
        {"Gemm", {gemm}},
        {"Conv", {conv}},
        {"ConvTranspose", {convTranspose}},
        {"MaxPool", {pool<Pool::Max>}},
        {"AveragePool", {pool<Pool::Average>}},
        {"LpPool", {pool<Pool::Lp>}},
        {"GlobalMaxPool", {globalPool<Pool::Max>}},
        {"GlobalAveragePool", {globalPool<Pool::Average>}},
        {"GlobalLpPool", {globalPool<Pool::Lp>}},
        {"BatchNormalization", {batchNormalization}},
        {"LayerNormalization", {layerNormalization}},
        {"InstanceNormalization", {instanceNormalization}},
    };
    table.insert(table.end(), ops.begin(), ops.end());
}

}  // namespace ampstudio
