// Saving an NDArray list in MXNet's layout (see ndarray_list_layout.h): dense V2 records (V3 for a
// scalar or a V3 none), the names after the arrays.
#include <stdexcept>

#include "formats/atomic_file.h"
#include "formats/ndarray_list.h"
#include "formats/ndarray_list_layout.h"

namespace ampstudio {
namespace {

using namespace ndarray_layout;

class ByteSink {
public:
    void reserve(std::size_t n) { m_out.reserve(n); }
    void u32(uint32_t v) { littleEndian(v, 4); }
    void i32(int32_t v) { littleEndian(static_cast<uint32_t>(v), 4); }
    void u64(uint64_t v) { littleEndian(v, 8); }
    void i64(int64_t v) { littleEndian(static_cast<uint64_t>(v), 8); }
    void bytes(std::span<const std::byte> b) { m_out.insert(m_out.end(), b.begin(), b.end()); }
    std::vector<std::byte> take() { return std::move(m_out); }

private:
    void littleEndian(uint64_t v, int n) {
        for (int i = 0; i < n; ++i) {
            m_out.push_back(static_cast<std::byte>((v >> (8 * i)) & 0xFF));
        }
    }

    std::vector<std::byte> m_out;
};

[[noreturn]] void rejectRecord(std::size_t index, const NDArrayRecord& rec, const std::string& why) {
    const std::string name = rec.name.empty() ? std::string() : " ('" + rec.name + "')";
    throw std::invalid_argument("array " + std::to_string(index) + name + ": " + why);
}

void writeRecord(ByteSink& out, const NDArrayRecord& rec, std::size_t index) {
    if (rec.isNone) {
        if (!rec.shape.empty() || !rec.data.empty()) {
            rejectRecord(index, rec, "a none array has no shape or data");
        }
        const bool v3 = rec.format == NDArrayRecordFormat::V3;
        out.u32(v3 ? kMagicV3 : kMagicV2);
        out.i32(kDefaultStorage);
        out.i32(v3 ? -1 : 0);
        return;
    }
    if (rec.shape.size() > kMaxNDim) {
        rejectRecord(index, rec,
                     "ndim " + std::to_string(rec.shape.size()) + " exceeds " + std::to_string(kMaxNDim));
    }
    const auto count = shapeProduct(rec.shape);
    if (!count) {
        rejectRecord(index, rec,
                     "shape " + formatShape(rec.shape) + " has a negative dim or overflows int64");
    }
    if (dtypeSize(rec.dtype) == 0) {
        rejectRecord(index, rec, "unknown dtype " + std::to_string(static_cast<int>(rec.dtype)));
    }
    const auto bytes = byteSize(*count, rec.dtype);
    if (!bytes || static_cast<uint64_t>(*bytes) != rec.data.size()) {
        rejectRecord(index, rec,
                     "payload of " + std::to_string(rec.data.size()) + " bytes does not match shape " +
                         formatShape(rec.shape) + " of " + std::string(dtypeName(rec.dtype)));
    }
    // V2's ndim 0 means none, so a scalar can only be written as V3, whatever it was read as.
    const bool v3 = rec.format == NDArrayRecordFormat::V3 || rec.shape.empty();
    out.u32(v3 ? kMagicV3 : kMagicV2);
    out.i32(kDefaultStorage);
    out.i32(static_cast<int32_t>(rec.shape.size()));
    for (const int64_t d : rec.shape) {
        out.i64(d);
    }
    out.i32(rec.devType);
    out.i32(rec.devId);
    out.i32(static_cast<int32_t>(rec.dtype));
    out.bytes(rec.data);
}

}  // namespace

std::vector<std::byte> serializeNDArrayList(const NDArrayList& list) {
    // Header, per-record fixed fields and the dims: a little over-estimated, so one allocation.
    std::size_t estimate = 32 + list.payloadBytes();
    for (const auto& a : list.arrays) {
        estimate += 32 + 8 * a.shape.size() + 8 + a.name.size();
    }
    ByteSink out;
    out.reserve(estimate);
    out.u64(kListMagic);
    out.u64(0);
    out.u64(list.arrays.size());
    for (std::size_t i = 0; i < list.arrays.size(); ++i) {
        writeRecord(out, list.arrays[i], i);
    }
    if (!list.named) {
        for (std::size_t i = 0; i < list.arrays.size(); ++i) {
            if (!list.arrays[i].name.empty()) {
                rejectRecord(i, list.arrays[i], "has a name but the list is unnamed");
            }
        }
        out.u64(0);
        return out.take();
    }
    out.u64(list.arrays.size());
    for (const auto& a : list.arrays) {
        out.u64(a.name.size());
        out.bytes(std::as_bytes(std::span(a.name.data(), a.name.size())));
    }
    return out.take();
}

void writeNDArrayListFile(const std::filesystem::path& path, const NDArrayList& list) {
    std::vector<std::byte> bytes;
    try {
        bytes = serializeNDArrayList(list);
    } catch (const std::invalid_argument& e) {
        throw SaveError("cannot save " + path.string() + ": " + e.what());
    }
    writeFileAtomically(path, bytes);
}

}  // namespace ampstudio
