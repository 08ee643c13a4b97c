// ONNX's recurrent layers: LSTM, GRU and RNN, every direction, layout, activation, clip, peephole,
// sequence_lens and initial state of the specification. torch.nn.LSTM exports to LSTM; the steps are
// small matrix products, written here as rows of dot products (row-major weights are what the gate
// products read contiguously).
#include <algorithm>
#include <cmath>
#include <cstring>

#include "exec/onnx/onnx_kernel_util.h"

namespace ampstudio {
namespace {

struct Activation {
    std::string name;
    float alpha = 0.0f, beta = 0.0f;

    float operator()(float x) const {
        if (name == "Sigmoid") return 1.0f / (1.0f + std::exp(-x));
        if (name == "Tanh") return std::tanh(x);
        if (name == "Relu") return std::max(x, 0.0f);
        if (name == "Affine") return alpha * x + beta;
        if (name == "LeakyRelu") return x < 0.0f ? alpha * x : x;
        if (name == "ThresholdedRelu") return x > alpha ? x : 0.0f;
        if (name == "ScaledTanh") return alpha * std::tanh(beta * x);
        if (name == "HardSigmoid") return std::clamp(alpha * x + beta, 0.0f, 1.0f);
        if (name == "Elu") return x < 0.0f ? alpha * std::expm1(x) : x;
        if (name == "Softsign") return x / (1.0f + std::fabs(x));
        return std::log1p(std::exp(-std::fabs(x))) + std::max(x, 0.0f);  // Softplus
    }
};

// The activations per direction (`perDirection` of them each), with their alpha / beta taken in
// order from activation_alpha / activation_beta where the function has them.
std::vector<Activation> activationsOf(const OnnxKernelContext& ctx, std::vector<std::string> defaults, int64_t directions) {
    const OnnxAttribute* names = ctx.node.attribute("activations");
    std::vector<std::string> list;
    if (names && !names->strings.empty()) {
        list = names->strings;
    } else {
        for (int64_t d = 0; d < directions; ++d) list.insert(list.end(), defaults.begin(), defaults.end());
    }
    if (list.size() != defaults.size() * static_cast<std::size_t>(directions)) ctx.fail("activations do not fit the directions");
    const std::vector<float> alphas = ctx.floatsAttr("activation_alpha"), betas = ctx.floatsAttr("activation_beta");
    std::size_t a = 0, b = 0;
    std::vector<Activation> out;
    for (const std::string& raw : list) {
        // Names are case-insensitive in practice (onnx's reference lowercases them).
        std::string name;
        for (const std::string_view known : {"Sigmoid", "Tanh", "Relu", "Affine", "LeakyRelu", "ThresholdedRelu", "ScaledTanh",
                                         "HardSigmoid", "Elu", "Softsign", "Softplus"}) {
            if (std::equal(known.begin(), known.end(), raw.begin(), raw.end(),
                           [](char x, char y) { return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y)); })) {
                name = std::string(known);
            }
        }
        if (name.empty()) ctx.unsupported("activation '" + raw + "'");
        Activation f{name};
        const bool hasAlpha = name == "Affine" || name == "LeakyRelu" || name == "ThresholdedRelu" || name == "ScaledTanh" ||
                              name == "HardSigmoid" || name == "Elu";
        const bool hasBeta = name == "Affine" || name == "ScaledTanh" || name == "HardSigmoid";
        // The defaults of the activation ops themselves where the node gives none.
        f.alpha = hasAlpha ? (a < alphas.size() ? alphas[a++] : name == "LeakyRelu" ? 0.01f : name == "HardSigmoid" ? 0.2f : 1.0f) : 0.0f;
        f.beta = hasBeta ? (b < betas.size() ? betas[b++] : name == "HardSigmoid" ? 0.5f : 0.0f) : 0.0f;
        out.push_back(f);
    }
    return out;
}

// out[m, n] (+)= sum_k a[m, k] w[n, k]
void productInto(const float* a, const float* w, float* out, int64_t m, int64_t n, int64_t k, bool accumulate) {
    for (int64_t i = 0; i < m; ++i) {
        for (int64_t j = 0; j < n; ++j) {
            float s = 0.0f;
            for (int64_t p = 0; p < k; ++p) s += a[i * k + p] * w[j * k + p];
            out[i * n + j] = accumulate ? out[i * n + j] + s : s;
        }
    }
}

enum class Cell { Lstm, Gru, Rnn };

template <Cell C>
void recurrent(OnnxKernelContext& ctx) {
    constexpr int64_t gates = C == Cell::Lstm ? 4 : C == Cell::Gru ? 3 : 1;
    const HostTensor& x = ctx.input(0);
    const HostTensor& w = ctx.input(1);
    const HostTensor& r = ctx.input(2);
    for (const HostTensor* t : {&x, &w, &r}) {
        if (t->dtype() != DType::F32) ctx.unsupported("dtype " + std::string(dtypeName(t->dtype())));
    }
    if (x.rank() != 3 || w.rank() != 3 || r.rank() != 3) ctx.fail("X, W and R must have rank 3");
    const int64_t layout = ctx.intAttr("layout", 0);
    const int64_t seq = layout ? x.dims()[1] : x.dims()[0], batch = layout ? x.dims()[0] : x.dims()[1], inputSize = x.dims()[2];
    const std::string direction = ctx.stringAttr("direction", "forward");
    const int64_t directions = direction == "bidirectional" ? 2 : 1;
    if (direction != "forward" && direction != "reverse" && direction != "bidirectional") ctx.fail("direction '" + direction + "'");
    const int64_t hidden = ctx.intAttr("hidden_size", r.dims()[2]);
    if (w.dims() != Dims{directions, gates * hidden, inputSize} || r.dims() != Dims{directions, gates * hidden, hidden}) {
        ctx.fail("W " + dimsString(w.dims()) + " or R " + dimsString(r.dims()) + " does not fit hidden_size " + std::to_string(hidden));
    }
    const float clip = ctx.floatAttr("clip", 0.0f);
    const bool hasClip = ctx.hasAttr("clip");
    const bool coupled = ctx.intAttr("input_forget", 0) != 0;
    const bool linearBeforeReset = ctx.intAttr("linear_before_reset", 0) != 0;
    const std::vector<Activation> acts = activationsOf(ctx, C == Cell::Lstm ? std::vector<std::string>{"Sigmoid", "Tanh", "Tanh"}
                                                             : C == Cell::Gru ? std::vector<std::string>{"Sigmoid", "Tanh"}
                                                                              : std::vector<std::string>{"Tanh"},
                                                      directions);
    const std::size_t perDirection = acts.size() / static_cast<std::size_t>(directions);
    const auto optional = [&](std::size_t i, const Dims& dims) -> const float* {
        if (!ctx.hasInput(i)) return nullptr;
        const HostTensor& t = ctx.input(i);
        if (t.dtype() != DType::F32 || t.dims() != dims) ctx.fail("input " + std::to_string(i) + " is not float32 " + dimsString(dims));
        return t.data<float>();
    };
    const float* bias = optional(3, {directions, 2 * gates * hidden});
    std::vector<int64_t> lengths(static_cast<std::size_t>(batch), seq);
    if (ctx.hasInput(4)) {
        lengths = ctx.input(4).integers();
        if (static_cast<int64_t>(lengths.size()) != batch) ctx.fail("sequence_lens does not hold one length per batch entry");
        for (int64_t& l : lengths) l = std::clamp<int64_t>(l, 0, seq);
    }
    const Dims stateDims = layout ? Dims{batch, directions, hidden} : Dims{directions, batch, hidden};
    const float* h0 = optional(5, stateDims);
    const float* c0 = C == Cell::Lstm ? optional(6, stateDims) : nullptr;
    const float* peep = C == Cell::Lstm ? optional(7, {directions, 3 * hidden}) : nullptr;

    HostTensor y = HostTensor::uninitialized(DType::F32, layout ? Dims{batch, seq, directions, hidden} : Dims{seq, directions, batch, hidden});
    HostTensor yh = HostTensor::uninitialized(DType::F32, stateDims), yc(DType::F32, stateDims);
    std::fill_n(y.mutableData<float>(), y.size(), 0.0f);
    const auto stateAt = [&](int64_t d, int64_t b) { return layout ? (b * directions + d) * hidden : (d * batch + b) * hidden; };
    const auto yAt = [&](int64_t t, int64_t d, int64_t b) {
        return layout ? ((b * seq + t) * directions + d) * hidden : ((t * directions + d) * batch + b) * hidden;
    };
    const auto xRow = [&](int64_t t, int64_t b) { return x.data<float>() + (layout ? (b * seq + t) : (t * batch + b)) * inputSize; };
    const auto clipped = [&](float v) { return hasClip ? std::clamp(v, -clip, clip) : v; };

    std::vector<float> xg(static_cast<std::size_t>(gates * hidden)), hg(static_cast<std::size_t>(gates * hidden));
    std::vector<float> reset(static_cast<std::size_t>(hidden)), resetState(static_cast<std::size_t>(hidden));  // GRU's r and r (.) H
    for (int64_t d = 0; d < directions; ++d) {
        const bool reverse = direction == "reverse" || d == 1;
        const float* wd = w.data<float>() + d * gates * hidden * inputSize;
        const float* rd = r.data<float>() + d * gates * hidden * hidden;
        const float* wb = bias ? bias + d * 2 * gates * hidden : nullptr;
        const float* rb = bias ? wb + gates * hidden : nullptr;
        const Activation& f = acts[static_cast<std::size_t>(d) * perDirection];
        const Activation& g = acts[static_cast<std::size_t>(d) * perDirection + (perDirection > 1 ? 1 : 0)];
        const Activation& h = acts[static_cast<std::size_t>(d) * perDirection + (perDirection > 2 ? 2 : 0)];
        for (int64_t b = 0; b < batch; ++b) {
            std::vector<float> hs(static_cast<std::size_t>(hidden), 0.0f), cs(static_cast<std::size_t>(hidden), 0.0f);
            if (h0) std::copy_n(h0 + stateAt(d, b), hidden, hs.begin());
            if (c0) std::copy_n(c0 + stateAt(d, b), hidden, cs.begin());
            const int64_t len = lengths[static_cast<std::size_t>(b)];
            for (int64_t step = 0; step < len; ++step) {
                const int64_t t = reverse ? len - 1 - step : step;
                productInto(xRow(t, b), wd, xg.data(), 1, gates * hidden, inputSize, false);
                productInto(hs.data(), rd, hg.data(), 1, gates * hidden, hidden, false);
                for (int64_t k = 0; k < gates * hidden; ++k) {
                    if (wb) xg[static_cast<std::size_t>(k)] += wb[k];
                    if (rb) hg[static_cast<std::size_t>(k)] += rb[k];
                }
                float* yOut = y.mutableData<float>() + yAt(t, d, b);
                if constexpr (C == Cell::Gru) {
                    for (int64_t j = 0; j < hidden; ++j) {
                        const auto k = static_cast<std::size_t>(hidden + j);
                        reset[static_cast<std::size_t>(j)] = f(clipped(xg[k] + hg[k]));
                        resetState[static_cast<std::size_t>(j)] = reset[static_cast<std::size_t>(j)] * hs[static_cast<std::size_t>(j)];
                    }
                }
                for (int64_t j = 0; j < hidden; ++j) {
                    const auto at = [&](int64_t gate) { return static_cast<std::size_t>(gate * hidden + j); };
                    if constexpr (C == Cell::Lstm) {  // gates i, o, f, c
                        const float cPrev = cs[static_cast<std::size_t>(j)];
                        const float i = f(clipped(xg[at(0)] + hg[at(0)] + (peep ? peep[d * 3 * hidden + j] * cPrev : 0.0f)));
                        const float fo = coupled ? 1.0f - i
                                                 : f(clipped(xg[at(2)] + hg[at(2)] + (peep ? peep[d * 3 * hidden + 2 * hidden + j] * cPrev : 0.0f)));
                        const float cand = g(clipped(xg[at(3)] + hg[at(3)]));
                        const float c = fo * cPrev + i * cand;
                        const float o = f(clipped(xg[at(1)] + hg[at(1)] + (peep ? peep[d * 3 * hidden + hidden + j] * c : 0.0f)));
                        cs[static_cast<std::size_t>(j)] = c;
                        yOut[j] = o * h(c);
                    } else if constexpr (C == Cell::Gru) {  // gates z, r, h
                        const float z = f(clipped(xg[at(0)] + hg[at(0)]));
                        float cand = 0.0f;
                        if (linearBeforeReset) {
                            cand = g(clipped(xg[at(2)] + reset[static_cast<std::size_t>(j)] * hg[at(2)]));
                        } else {
                            // (r (.) H) Rh^T + Rbh, per output j.
                            float s = rb ? rb[2 * hidden + j] : 0.0f;
                            for (int64_t p = 0; p < hidden; ++p) s += rd[(2 * hidden + j) * hidden + p] * resetState[static_cast<std::size_t>(p)];
                            cand = g(clipped(xg[at(2)] + s));
                        }
                        yOut[j] = (1.0f - z) * cand + z * hs[static_cast<std::size_t>(j)];
                    } else {
                        yOut[j] = f(clipped(xg[at(0)] + hg[at(0)]));
                    }
                }
                std::copy_n(yOut, hidden, hs.begin());
            }
            std::copy(hs.begin(), hs.end(), yh.mutableData<float>() + stateAt(d, b));
            std::copy(cs.begin(), cs.end(), yc.mutableData<float>() + stateAt(d, b));
        }
    }
    ctx.setOutput(0, std::move(y));
    ctx.setOutput(1, std::move(yh));
    if constexpr (C == Cell::Lstm) ctx.setOutput(2, std::move(yc));
}

}  // namespace

void addOnnxRecurrentOps(OnnxOpTable& table) {
    table.push_back({"LSTM", {recurrent<Cell::Lstm>}});
    table.push_back({"GRU", {recurrent<Cell::Gru>}});
    table.push_back({"RNN", {recurrent<Cell::Rnn>}});
}

}  // namespace ampstudio
