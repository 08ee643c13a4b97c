// ONNX's control flow: If and Loop run their bodies (nested graphs) through the runner, which gives
// them the values of the scopes around them. Scan outputs of a Loop are stacked along a new axis 0.
#include <cstring>

#include "exec/onnx/onnx_kernel_util.h"

namespace ampstudio {
namespace {

const OnnxGraphProgram& body(const OnnxKernelContext& ctx, std::string_view key) {
    const OnnxAttribute& a = ctx.attr(key);
    if (!a.graph) ctx.fail("attribute '" + std::string(key) + "' is not a graph");
    return *a.graph;
}

void ifOp(OnnxKernelContext& ctx) {
    const HostTensor& cond = ctx.input(0);
    if (cond.size() != 1) ctx.fail("the condition holds " + std::to_string(cond.size()) + " elements, not one");
    const OnnxGraphProgram& branch = body(ctx, cond.numberAt(0) != 0.0 ? "then_branch" : "else_branch");
    std::vector<HostTensor> out = ctx.runGraph(branch, {});
    if (out.size() != ctx.node.outputs.size()) {
        ctx.fail("the branch gives " + std::to_string(out.size()) + " outputs, the node has " + std::to_string(ctx.node.outputs.size()));
    }
    for (std::size_t i = 0; i < out.size(); ++i) ctx.setOutput(i, std::move(out[i]));
}

// Stacks equally shaped tensors along a new axis 0.
HostTensor stack(const OnnxKernelContext& ctx, const std::vector<HostTensor>& parts) {
    const HostTensor& first = parts.front();
    Dims dims{static_cast<int64_t>(parts.size())};
    dims.insert(dims.end(), first.dims().begin(), first.dims().end());
    HostTensor out = HostTensor::uninitialized(first.dtype(), dims);
    for (std::size_t k = 0; k < parts.size(); ++k) {
        if (parts[k].dims() != first.dims() || parts[k].dtype() != first.dtype()) {
            ctx.fail("scan output of iteration " + std::to_string(k) + " has dims " + dimsString(parts[k].dims()) +
                     ", the first " + dimsString(first.dims()));
        }
        if (first.bytes()) std::memcpy(out.mutableRaw() + k * first.bytes(), parts[k].raw(), first.bytes());
    }
    return out;
}

void loop(OnnxKernelContext& ctx) {
    const OnnxGraphProgram& g = body(ctx, "body");
    const bool hasTrips = ctx.hasInput(0), hasCond = ctx.hasInput(1);
    const int64_t trips = hasTrips ? ctx.input(0).integerAt(0) : 0;
    bool cond = hasCond ? ctx.input(1).numberAt(0) != 0.0 : true;
    std::vector<HostTensor> carried;
    for (std::size_t i = 2; i < ctx.inputCount(); ++i) carried.push_back(ctx.input(i));
    const std::size_t carriedCount = carried.size();
    if (g.inputs.size() != carriedCount + 2) ctx.fail("the body takes " + std::to_string(g.inputs.size()) + " inputs, not 2 + " + std::to_string(carriedCount));
    if (g.outputs.size() < carriedCount + 1) ctx.fail("the body gives too few outputs");
    const std::size_t scanCount = g.outputs.size() - 1 - carriedCount;
    std::vector<std::vector<HostTensor>> scans(scanCount);
    for (int64_t i = 0; (!hasTrips || i < trips) && cond; ++i) {
        std::vector<HostTensor> args{HostTensor::fromIntegers({i}, {}), HostTensor(DType::Bool, {})};
        args[1].mutableData<uint8_t>()[0] = 1;
        args.insert(args.end(), carried.begin(), carried.end());
        std::vector<HostTensor> out = ctx.runGraph(g, std::move(args));
        cond = out[0].numberAt(0) != 0.0;
        for (std::size_t k = 0; k < carriedCount; ++k) carried[k] = std::move(out[1 + k]);
        for (std::size_t k = 0; k < scanCount; ++k) scans[k].push_back(std::move(out[1 + carriedCount + k]));
        if (!hasTrips && !hasCond) ctx.fail("a Loop without a trip count or a condition never ends");
    }
    for (std::size_t k = 0; k < carriedCount; ++k) ctx.setOutput(k, std::move(carried[k]));
    for (std::size_t k = 0; k < scanCount; ++k) {
        if (scans[k].empty()) {
            // No iteration ran: an empty stack of the declared element type.
            const OnnxValueInfo& info = g.outputs[1 + carriedCount + k];
            Dims dims{0};
            if (info.dims) {
                for (const auto& d : *info.dims) dims.push_back(d.value_or(0));
            }
            ctx.setOutput(carriedCount + k, HostTensor(info.dtype.value_or(DType::F32), dims));
        } else {
            ctx.setOutput(carriedCount + k, stack(ctx, scans[k]));
        }
    }
}

}  // namespace

void addOnnxControlFlowOps(OnnxOpTable& table) {
    table.push_back({"If", {ifOp, false}});
    table.push_back({"Loop", {loop, false}});
}

}  // namespace ampstudio
