#include "amp/param_casting.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cstring>
#include <span>
#include <stdexcept>

#include "tensor/float_convert.h"

namespace ampstudio {

namespace {

// .params payloads are little-endian; reading them as host floats needs a little-endian host.
static_assert(std::endian::native == std::endian::little, "parameter casting assumes a little-endian host");

// float32 bytes -> 16-bit bytes, in blocks so that the payload (a byte vector, with no alignment
// promise for float) is only ever touched through memcpy.
std::vector<std::byte> castFloat32Payload(const std::vector<std::byte>& in, DType target) {
    const std::size_t count = in.size() / sizeof(float);
    std::vector<std::byte> out(count * sizeof(uint16_t));
    constexpr std::size_t kBlock = 1024;
    std::array<float, kBlock> floats;
    std::array<uint16_t, kBlock> halves;
    for (std::size_t begin = 0; begin < count; begin += kBlock) {
        const std::size_t n = std::min(kBlock, count - begin);
        std::memcpy(floats.data(), in.data() + begin * sizeof(float), n * sizeof(float));
        const std::span<const float> src(floats.data(), n);
        const std::span<uint16_t> dst(halves.data(), n);
        if (target == DType::F16) {
            floatsToHalf(src, dst);
        } else {
            floatsToBfloat16(src, dst);
        }
        std::memcpy(out.data() + begin * sizeof(uint16_t), halves.data(), n * sizeof(uint16_t));
    }
    return out;
}

}  // namespace

void applyParamCasting(NDArrayList& params, const std::set<std::string>& storedInTargetDtype, DType target,
                       ConversionReport& report) {
    if (!isLowPrecisionFloat(target)) {
        throw std::invalid_argument("parameters can be cast to float16 or bfloat16 only, not " +
                                    std::string(dtypeName(target)));
    }
    report.paramsKnown = true;
    report.paramBytesBefore = params.payloadBytes();
    std::set<std::string_view> found;
    for (NDArrayRecord& array : params.arrays) {
        const std::string_view name = array.bareName();
        const auto it = storedInTargetDtype.find(std::string(name));
        if (it == storedInTargetDtype.end()) {
            continue;
        }
        found.insert(*it);
        if (array.isNone) {
            report.warnings.push_back("parameter '" + *it + "' has no data (a none array); left as it is");
        } else if (array.dtype == target) {
            // Already converted (e.g. the same list cast twice): nothing to do.
        } else if (array.dtype != DType::F32) {
            report.warnings.push_back("parameter '" + *it + "' is " + std::string(dtypeName(array.dtype)) +
                                      "; only float32 parameters are cast to " +
                                      std::string(dtypeName(target)) + ", so it is left as it is");
        } else {
            array.data = castFloat32Payload(array.data, target);
            array.dtype = target;
        }
    }
    for (const std::string& name : storedInTargetDtype) {
        if (found.count(name) == 0) {
            report.warnings.push_back("parameter '" + name + "' is to be stored in " +
                                      std::string(dtypeName(target)) +
                                      " but the .params list has no array of that name");
        }
    }
    report.paramBytesAfter = params.payloadBytes();
}

void fillParamBytes(const NDArrayList& params, const std::set<std::string>& storedInTargetDtype, DType target,
                    ConversionReport& report) {
    report.paramsKnown = true;
    report.paramBytesBefore = params.payloadBytes();
    report.paramBytesAfter = report.paramBytesBefore;
    if (!isLowPrecisionFloat(target)) {
        return;
    }
    for (const std::string& name : storedInTargetDtype) {
        const int index = params.find(name);
        if (index >= 0 && params.arrays[static_cast<std::size_t>(index)].dtype == DType::F32) {
            report.paramBytesAfter -= params.arrays[static_cast<std::size_t>(index)].data.size() / 2;
        }
    }
}

}  // namespace ampstudio
