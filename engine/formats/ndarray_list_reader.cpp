#include "formats/ndarray_list.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <limits>
#include <optional>
#include <stdexcept>
#include <system_error>

#include "formats/load_error.h"
#include "formats/ndarray_list_layout.h"

namespace ampstudio {
namespace {

using namespace ndarray_layout;

// A sparse record's dense size is not backed by bytes in the file, so a few bytes could ask for
// terabytes. Densify up to 64 x the input size, and at least 64 MiB: room for real sparse weights
// (embeddings stored at a few percent density), yet bounded for hostile ones.
constexpr uint64_t kMinDensifyLimit = uint64_t{64} << 20;
constexpr uint64_t kDensifyRatio = 64;

std::string hex(uint64_t v) {
    static constexpr char kDigits[] = "0123456789abcdef";
    std::string s;
    do {
        s.insert(s.begin(), kDigits[v & 0xF]);
        v >>= 4;
    } while (v != 0);
    return "0x" + s;
}

// ---------------------------------------------------------------------------------------------- reading

// Bounds-checked little-endian reads; every failure is a LoadError at a byte offset.
class Cursor {
public:
    Cursor(std::span<const std::byte> bytes, const std::string& source) : m_bytes(bytes), m_source(source) {}

    std::size_t offset() const { return m_pos; }
    std::size_t remaining() const { return m_bytes.size() - m_pos; }

    // Prefixed to every reason until changed: "array 3", "name 3".
    void setContext(std::string context) { m_context = std::move(context); }

    [[noreturn]] void failAt(std::size_t offset, const std::string& reason) const {
        throw LoadError(m_source, "byte " + std::to_string(offset),
                        m_context.empty() ? reason : m_context + ": " + reason);
    }

    std::span<const std::byte> take(uint64_t n, const std::string& what) {
        if (n > remaining()) {
            failAt(m_pos, "truncated: " + what + " needs " + std::to_string(n) + " bytes, " +
                              std::to_string(remaining()) + " left");
        }
        const auto out = m_bytes.subspan(m_pos, static_cast<std::size_t>(n));
        m_pos += static_cast<std::size_t>(n);
        return out;
    }

    uint32_t u32(const std::string& what) { return static_cast<uint32_t>(littleEndian(take(4, what))); }
    int32_t i32(const std::string& what) { return static_cast<int32_t>(u32(what)); }
    uint64_t u64(const std::string& what) { return littleEndian(take(8, what)); }
    int64_t i64(const std::string& what) { return static_cast<int64_t>(u64(what)); }

private:
    static uint64_t littleEndian(std::span<const std::byte> b) {
        uint64_t v = 0;
        for (std::size_t i = b.size(); i-- > 0;) {
            v = (v << 8) | std::to_integer<uint64_t>(b[i]);
        }
        return v;
    }

    std::span<const std::byte> m_bytes;
    const std::string& m_source;
    std::string m_context;
    std::size_t m_pos = 0;
};

struct StoredShape {
    bool none = false;
    std::vector<int64_t> dims;
    std::size_t at = 0;  // offset of its ndim: errors about the shape as a whole point here
};

// TShape::Save's layout: i32 ndim, ndim x i64 dims. With numpy semantics (V3) ndim -1 is none and 0 a
// scalar; before V3, ndim 0 is none.
StoredShape readShape(Cursor& in, bool numpySemantics, const std::string& what) {
    StoredShape s;
    s.at = in.offset();
    const int32_t ndim = in.i32(what + " ndim");
    if (numpySemantics && ndim == -1) {
        s.none = true;
        return s;
    }
    if (ndim < 0) {
        in.failAt(s.at, what + " ndim " + std::to_string(ndim) + " is negative");
    }
    if (static_cast<std::size_t>(ndim) > kMaxNDim) {
        in.failAt(s.at, what + " ndim " + std::to_string(ndim) + " exceeds " + std::to_string(kMaxNDim));
    }
    if (!numpySemantics && ndim == 0) {
        s.none = true;
        return s;
    }
    s.dims.reserve(static_cast<std::size_t>(ndim));  // at most kMaxNDim
    for (int32_t i = 0; i < ndim; ++i) {
        const std::size_t at = in.offset();
        const int64_t d = in.i64(what + " dim " + std::to_string(i));
        if (d < 0) {
            in.failAt(at, what + " dim " + std::to_string(i) + " is negative (" + std::to_string(d) + ")");
        }
        s.dims.push_back(d);
    }
    return s;
}

// The pre-V1 shape: the record's first u32, already read, is ndim; u32 dims follow.
StoredShape readLegacyShape(Cursor& in, uint32_t ndim, std::size_t recordStart) {
    StoredShape s;
    s.at = recordStart;
    if (ndim > kMaxNDim) {
        in.failAt(recordStart,
                  "first word " + hex(ndim) +
                      " is neither a record magic (0xf993fac8..0xf993faca) nor a pre-V1 ndim of at "
                      "most " +
                      std::to_string(kMaxNDim));
    }
    s.none = ndim == 0;
    for (uint32_t i = 0; i < ndim; ++i) {
        s.dims.push_back(in.u32("shape dim " + std::to_string(i)));
    }
    return s;
}

struct Payload {
    std::span<const std::byte> bytes;
    std::size_t at = 0;
};

// count(shape) x dtypeSize bytes, checked for overflow and against the bytes left before anything
// is copied, so a hostile shape never turns into an allocation.
Payload takePayload(Cursor& in, const StoredShape& shape, DType t, const std::string& what) {
    const auto count = shapeProduct(shape.dims);
    if (!count) {
        in.failAt(shape.at, what + " shape " + formatShape(shape.dims) + ": shape product overflows int64");
    }
    const auto bytes = byteSize(*count, t);
    if (!bytes) {
        in.failAt(shape.at, what + " shape " + formatShape(shape.dims) + ": byte size overflows int64");
    }
    if (static_cast<uint64_t>(*bytes) > in.remaining()) {
        in.failAt(in.offset(), what + " of " + std::to_string(*bytes) + " bytes (" + formatShape(shape.dims) +
                                   " " + std::string(dtypeName(t)) + ") exceeds the " +
                                   std::to_string(in.remaining()) + " bytes left");
    }
    const std::size_t at = in.offset();
    return {in.take(static_cast<uint64_t>(*bytes), what), at};
}

DType readTypeFlag(Cursor& in, const std::string& what) {
    const std::size_t at = in.offset();
    const int32_t flag = in.i32(what);
    const auto t = dtypeFromFlag(flag);
    if (!t) {
        in.failAt(at, "unknown " + what + " " + std::to_string(flag));
    }
    return *t;
}

struct AuxArray {
    DType type = DType::I64;
    StoredShape shape;
    Payload data;
    std::string what;  // "aux 0 (row indices)"
};

int64_t indexAt(const AuxArray& aux, int64_t i) {
    const std::size_t size = dtypeSize(aux.type);
    uint64_t v = 0;
    for (std::size_t b = size; b-- > 0;) {
        v = (v << 8) | std::to_integer<uint64_t>(aux.data.bytes[static_cast<std::size_t>(i) * size + b]);
    }
    return aux.type == DType::I32 ? static_cast<int32_t>(v) : static_cast<int64_t>(v);
}

std::size_t indexOffset(const AuxArray& aux, int64_t i) {
    return aux.data.at + static_cast<std::size_t>(i) * dtypeSize(aux.type);
}

void requireVector(Cursor& in, const AuxArray& aux, int64_t length) {
    if (aux.shape.none || aux.shape.dims.size() != 1 || aux.shape.dims[0] != length) {
        in.failAt(aux.shape.at, aux.what + " shape " + formatShape(aux.shape.dims) + " should be (" +
                                    std::to_string(length) + ",)");
    }
}

// Reads what follows the type flag of a sparse record (aux headers, values, aux data) and fills
// rec.data with the dense equivalent. MXNet's own invariants are checked (sorted unique indices in
// range, csr indptr from 0 to nnz), so that densifying is a pure byte copy with no overlaps.
void readSparse(Cursor& in, int32_t stype, const StoredShape& storage, const StoredShape& shape,
                NDArrayRecord& rec, uint64_t densifyLimit) {
    const bool csr = stype == kCSRStorage;
    const std::vector<std::string> auxNames =
        csr ? std::vector<std::string>{"aux 0 (indptr)", "aux 1 (indices)"}
            : std::vector<std::string>{"aux 0 (row indices)"};
    std::vector<AuxArray> aux(auxNames.size());
    for (std::size_t i = 0; i < aux.size(); ++i) {
        aux[i].what = auxNames[i];
        const std::size_t at = in.offset();
        aux[i].type = readTypeFlag(in, aux[i].what + " type flag");
        if (aux[i].type != DType::I64 && aux[i].type != DType::I32) {
            in.failAt(at, aux[i].what + " has type " + std::string(dtypeName(aux[i].type)) +
                              "; sparse indices must be int64 or int32");
        }
        aux[i].shape = readShape(in, false, aux[i].what + " shape");
    }

    // Geometry first, so that the byte counts below are the ones the indices will be checked against.
    const auto& dims = shape.dims;
    if (storage.none) {
        in.failAt(storage.at, "storage shape of a sparse array is none");
    }
    int64_t nnz = storage.dims[0];
    if (csr) {
        if (dims.size() != 2) {
            in.failAt(shape.at, "csr storage needs a 2-d shape, not " + formatShape(dims));
        }
        if (storage.dims.size() != 1) {
            in.failAt(storage.at, "csr storage shape " + formatShape(storage.dims) + " should be (nnz,)");
        }
        if (dims[0] == std::numeric_limits<int64_t>::max()) {
            in.failAt(shape.at, "csr row count " + std::to_string(dims[0]) + " is too large");
        }
        requireVector(in, aux[0], dims[0] + 1);
        requireVector(in, aux[1], nnz);
    } else {
        if (storage.dims.size() != dims.size() ||
            !std::equal(dims.begin() + 1, dims.end(), storage.dims.begin() + 1) || nnz > dims[0]) {
            in.failAt(storage.at, "row_sparse storage shape " + formatShape(storage.dims) +
                                      " does not fit shape " + formatShape(dims));
        }
        requireVector(in, aux[0], nnz);
    }

    const Payload values = takePayload(in, storage, rec.dtype, "sparse values");
    for (auto& a : aux) {
        a.data = takePayload(in, a.shape, a.type, a.what + " data");
    }

    const auto denseCount = shapeProduct(dims);
    const auto denseBytes = denseCount ? byteSize(*denseCount, rec.dtype) : std::nullopt;
    if (!denseBytes) {
        in.failAt(shape.at, "shape " + formatShape(dims) + ": dense size overflows int64");
    }
    if (static_cast<uint64_t>(*denseBytes) > densifyLimit) {
        in.failAt(shape.at, "densifying this sparse array needs " + std::to_string(*denseBytes) +
                                " bytes, over the limit of " + std::to_string(densifyLimit) +
                                " for this file");
    }
    rec.data.assign(static_cast<std::size_t>(*denseBytes), std::byte{0});
    const std::size_t elem = dtypeSize(rec.dtype);

    if (!csr) {
        // Each stored row is a contiguous block of the dense array: its bytes are the product of the
        // trailing dims. With no rows (dims[0] == 0, so nnz == 0) that product may overflow and is unused.
        const auto rowBytes =
            static_cast<std::size_t>(shapeProduct(std::span(dims).subspan(1)).value_or(0)) * elem;
        const AuxArray& rows = aux[0];
        for (int64_t r = 0; r < nnz; ++r) {
            const int64_t row = indexAt(rows, r);
            if (row < 0 || row >= dims[0]) {
                in.failAt(indexOffset(rows, r), "row index " + std::to_string(row) + " is outside [0, " +
                                                    std::to_string(dims[0]) + ")");
            }
            if (r > 0 && row <= indexAt(rows, r - 1)) {
                in.failAt(indexOffset(rows, r), "row indices are not strictly increasing");
            }
            std::memcpy(rec.data.data() + static_cast<std::size_t>(row) * rowBytes,
                        values.bytes.data() + static_cast<std::size_t>(r) * rowBytes, rowBytes);
        }
        return;
    }

    const AuxArray& indptr = aux[0];
    const AuxArray& indices = aux[1];
    const int64_t rowCount = dims[0];
    const int64_t colCount = dims[1];
    if (indexAt(indptr, 0) != 0) {
        in.failAt(indexOffset(indptr, 0), "indptr does not start at 0");
    }
    if (indexAt(indptr, rowCount) != nnz) {
        in.failAt(indexOffset(indptr, rowCount), "indptr does not end at nnz " + std::to_string(nnz));
    }
    for (int64_t r = 0; r < rowCount; ++r) {
        const int64_t begin = indexAt(indptr, r);
        const int64_t end = indexAt(indptr, r + 1);
        if (end < begin || end > nnz) {
            in.failAt(indexOffset(indptr, r + 1), "indptr is not non-decreasing within [0, nnz]");
        }
        for (int64_t k = begin; k < end; ++k) {
            const int64_t col = indexAt(indices, k);
            if (col < 0 || col >= colCount) {
                in.failAt(indexOffset(indices, k), "column index " + std::to_string(col) +
                                                       " is outside [0, " + std::to_string(colCount) + ")");
            }
            if (k > begin && col <= indexAt(indices, k - 1)) {
                in.failAt(indexOffset(indices, k),
                          "column indices of row " + std::to_string(r) + " are not strictly increasing");
            }
            // r < rowCount and col < colCount, so this stays inside the dense count checked above.
            std::memcpy(rec.data.data() + static_cast<std::size_t>(r * colCount + col) * elem,
                        values.bytes.data() + static_cast<std::size_t>(k) * elem, elem);
        }
    }
}

NDArrayRecord readRecord(Cursor& in, uint64_t densifyLimit) {
    NDArrayRecord rec;
    const std::size_t start = in.offset();
    const uint32_t first = in.u32("record magic");
    int32_t stype = kDefaultStorage;
    StoredShape storage;
    StoredShape shape;
    if (first == kMagicV2 || first == kMagicV3) {
        rec.format = first == kMagicV3 ? NDArrayRecordFormat::V3 : NDArrayRecordFormat::V2;
        const std::size_t at = in.offset();
        stype = in.i32("storage type");
        if (stype != kDefaultStorage && stype != kRowSparseStorage && stype != kCSRStorage) {
            in.failAt(at, "unknown storage type " + std::to_string(stype));
        }
        if (stype != kDefaultStorage && rec.format == NDArrayRecordFormat::V3) {
            // MXNet refuses to save or load sparse arrays in numpy mode, so this is not a real file.
            in.failAt(at, "sparse storage type " + std::to_string(stype) + " in a V3 (numpy) record");
        }
        if (stype != kDefaultStorage) {
            storage = readShape(in, false, "storage shape");
        }
        shape = readShape(in, rec.format == NDArrayRecordFormat::V3, "shape");
    } else if (first == kMagicV1) {
        rec.format = NDArrayRecordFormat::V1;
        shape = readShape(in, false, "shape");
    } else {
        rec.format = NDArrayRecordFormat::PreV1;
        shape = readLegacyShape(in, first, start);
    }
    if (shape.none) {
        rec.isNone = true;  // MXNet stores nothing more for it
        return rec;
    }
    rec.shape = shape.dims;
    rec.devType = in.i32("context device type");
    rec.devId = in.i32("context device id");
    rec.dtype = readTypeFlag(in, "type flag");
    if (stype != kDefaultStorage) {
        readSparse(in, stype, storage, shape, rec, densifyLimit);
        return rec;
    }
    const Payload payload = takePayload(in, shape, rec.dtype, "payload");
    rec.data.assign(payload.bytes.begin(), payload.bytes.end());
    return rec;
}

}  // namespace

// ---------------------------------------------------------------------------------------------- records

int64_t NDArrayRecord::elementCount() const {
    if (isNone) {
        return 0;
    }
    return shapeProduct(shape).value_or(-1);
}

std::string_view NDArrayRecord::bareName() const {
    std::string_view n = name;
    if (n.starts_with("arg:") || n.starts_with("aux:")) {
        n.remove_prefix(4);
    }
    return n;
}

int NDArrayList::find(std::string_view bareName) const {
    for (std::size_t i = 0; i < arrays.size(); ++i) {
        if (arrays[i].bareName() == bareName) {
            return static_cast<int>(i);
        }
    }
    return -1;
}

std::size_t NDArrayList::payloadBytes() const {
    std::size_t total = 0;
    for (const auto& a : arrays) {
        total += a.data.size();
    }
    return total;
}

// ---------------------------------------------------------------------------------------------- entry points

NDArrayList parseNDArrayList(std::span<const std::byte> bytes, const std::string& source) {
    Cursor in(bytes, source);
    const uint64_t magic = in.u64("list magic");
    if (magic != kListMagic) {
        in.failAt(0, "not an MXNet NDArray list: magic " + hex(magic) + ", expected " + hex(kListMagic));
    }
    in.u64("reserved field");  // MXNet ignores it; so do we

    const std::size_t countAt = in.offset();
    const uint64_t count = in.u64("array count");
    // Every record takes at least 4 bytes (a pre-V1 none) and the name count 8 more: a count the
    // file cannot hold fails here rather than after a long loop.
    const uint64_t room = in.remaining() >= 8 ? (in.remaining() - 8) / 4 : 0;
    if (count > room) {
        in.failAt(countAt, "array count " + std::to_string(count) + " cannot fit in the " +
                               std::to_string(in.remaining()) + " bytes left");
    }
    const uint64_t densifyLimit = std::max(
        kMinDensifyLimit, std::min<uint64_t>(bytes.size(), UINT64_MAX / kDensifyRatio) * kDensifyRatio);

    NDArrayList list;
    for (uint64_t i = 0; i < count; ++i) {
        in.setContext("array " + std::to_string(i));
        list.arrays.push_back(readRecord(in, densifyLimit));
    }
    in.setContext({});

    const std::size_t nameCountAt = in.offset();
    const uint64_t nameCount = in.u64("name count");
    if (nameCount != 0 && nameCount != count) {
        in.failAt(nameCountAt, "name count " + std::to_string(nameCount) +
                                   " does not match the array count " + std::to_string(count));
    }
    list.named = nameCount != 0 || count == 0;
    for (uint64_t i = 0; i < nameCount; ++i) {
        in.setContext("name " + std::to_string(i));
        const std::size_t at = in.offset();
        const uint64_t length = in.u64("name length");
        if (length > in.remaining()) {
            in.failAt(at, "name length " + std::to_string(length) + " exceeds the " +
                              std::to_string(in.remaining()) + " bytes left");
        }
        const auto name = in.take(length, "name");
        list.arrays[i].name.assign(reinterpret_cast<const char*>(name.data()), name.size());
    }
    in.setContext({});
    if (in.remaining() != 0) {
        in.failAt(in.offset(), std::to_string(in.remaining()) + " unexpected bytes after the names");
    }
    return list;
}

NDArrayList readNDArrayListFile(const std::filesystem::path& path) {
    const std::string source = path.string();
    std::error_code ec;
    const auto size = std::filesystem::file_size(path, ec);
    if (ec) {
        throw LoadError(source, "", "cannot read: " + ec.message());
    }
    std::ifstream file(path, std::ios::binary);
    if (!file) {
        throw LoadError(source, "", std::string("cannot open: ") + std::strerror(errno));
    }
    std::vector<std::byte> bytes(static_cast<std::size_t>(size));
    file.read(reinterpret_cast<char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
    if (static_cast<std::uintmax_t>(file.gcount()) != size) {
        throw LoadError(source, "", "cannot read: the file changed size while being read");
    }
    return parseNDArrayList(bytes, source);
}

}  // namespace ampstudio
