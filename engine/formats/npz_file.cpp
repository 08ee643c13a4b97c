#include "formats/npz_file.h"

#include <zip.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cstring>
#include <fstream>
#include <limits>
#include <memory>

#include "formats/atomic_file.h"
#include "formats/load_error.h"
#include "tensor/float_convert.h"

namespace ampstudio {
namespace {

constexpr int64_t kMaxElements = int64_t{1} << 31;
constexpr std::size_t kMaxHeader = 1 << 20;

// The value of `key` in the header's Python dict literal: "{'descr': '<f4', 'fortran_order': False,
// 'shape': (8, 784), }". The header is numpy's own output, so a small scanner suffices; anything it
// does not recognise is an error, never a guess.
std::string dictValue(const std::string& header, const std::string& key, const std::string& source) {
    const std::string quoted[] = {"'" + key + "'", "\"" + key + "\""};
    std::size_t at = std::string::npos;
    for (const std::string& q : quoted) {
        at = header.find(q);
        if (at != std::string::npos) {
            at += q.size();
            break;
        }
    }
    if (at == std::string::npos) throw LoadError(source, "header", "no '" + key + "' in " + header);
    at = header.find(':', at);
    if (at == std::string::npos) throw LoadError(source, "header", "no value for '" + key + "'");
    ++at;
    while (at < header.size() && header[at] == ' ') ++at;
    if (at >= header.size()) throw LoadError(source, "header", "no value for '" + key + "'");
    const char open = header[at];
    if (open == '\'' || open == '"') {
        const std::size_t end = header.find(open, at + 1);
        if (end == std::string::npos) throw LoadError(source, "header", "unterminated string for '" + key + "'");
        return header.substr(at + 1, end - at - 1);
    }
    if (open == '(') {
        const std::size_t end = header.find(')', at);
        if (end == std::string::npos) throw LoadError(source, "header", "unterminated shape");
        return header.substr(at + 1, end - at - 1);
    }
    std::size_t end = at;
    while (end < header.size() && header[end] != ',' && header[end] != '}') ++end;
    return header.substr(at, end - at);
}

std::vector<int64_t> parseShape(const std::string& text, const std::string& source) {
    std::vector<int64_t> shape;
    int64_t elements = 1;
    std::size_t i = 0;
    while (i < text.size()) {
        while (i < text.size() && (text[i] == ' ' || text[i] == ',')) ++i;
        if (i >= text.size()) break;
        int64_t v = 0;
        std::size_t digits = 0;
        while (i < text.size() && text[i] >= '0' && text[i] <= '9') {
            v = v * 10 + (text[i] - '0');
            ++digits;
            ++i;
            if (v > kMaxElements) throw LoadError(source, "header", "shape (" + text + ") is too large");
        }
        if (digits == 0) throw LoadError(source, "header", "shape (" + text + ") is not a tuple of sizes");
        while (i < text.size() && text[i] == 'L') ++i;  // Python 2's long suffix
        shape.push_back(v);
        elements *= v;
        if (elements > kMaxElements) throw LoadError(source, "header", "shape (" + text + ") has more than 2^31 elements");
    }
    return shape;
}

template <typename T>
T load(const std::byte* p, bool swap) {
    T v;
    std::memcpy(&v, p, sizeof(T));
    if (swap) {
        auto bytes = std::bit_cast<std::array<std::byte, sizeof(T)>>(v);
        std::reverse(bytes.begin(), bytes.end());
        v = std::bit_cast<T>(bytes);
    }
    return v;
}

}  // namespace

NpyArray parseNpy(std::span<const std::byte> bytes, const std::string& source) {
    static constexpr unsigned char kMagic[] = {0x93, 'N', 'U', 'M', 'P', 'Y'};
    if (bytes.size() < 10 || std::memcmp(bytes.data(), kMagic, sizeof kMagic) != 0) {
        throw LoadError(source, "byte 0", "not a NumPy .npy array (no \\x93NUMPY magic)");
    }
    const auto major = std::to_integer<unsigned>(bytes[6]);
    std::size_t headerLength = 0, offset = 0;
    if (major == 1) {
        headerLength = std::to_integer<std::size_t>(bytes[8]) | std::to_integer<std::size_t>(bytes[9]) << 8;
        offset = 10;
    } else if (major == 2 || major == 3) {
        if (bytes.size() < 12) throw LoadError(source, "byte 8", "truncated header length");
        for (int i = 0; i < 4; ++i) headerLength |= std::to_integer<std::size_t>(bytes[8 + i]) << (8 * i);
        offset = 12;
    } else {
        throw LoadError(source, "byte 6", ".npy format version " + std::to_string(major) + " is not 1, 2 or 3");
    }
    if (headerLength > kMaxHeader || offset + headerLength > bytes.size()) {
        throw LoadError(source, "byte " + std::to_string(offset), "header runs past the end of the file");
    }
    const std::string header(reinterpret_cast<const char*>(bytes.data() + offset), headerLength);
    const std::string descr = dictValue(header, "descr", source);
    const std::string fortran = dictValue(header, "fortran_order", source);
    NpyArray array;
    array.shape = parseShape(dictValue(header, "shape", source), source);
    if (fortran.find("True") != std::string::npos) {
        throw LoadError(source, "header", "Fortran-order arrays are not read; save with numpy.ascontiguousarray");
    }
    if (descr.size() < 3) throw LoadError(source, "header", "dtype '" + descr + "' is not a plain number type");
    const char order = descr[0];
    const char kind = descr[1];
    const int size = std::atoi(descr.c_str() + 2);
    const bool little = std::endian::native == std::endian::little;
    const bool swap = (order == '>' && little) || (order == '<' && !little);
    if (order != '<' && order != '>' && order != '|' && order != '=') {
        throw LoadError(source, "header", "dtype '" + descr + "' has no byte order");
    }
    const bool known = (kind == 'f' && (size == 2 || size == 4 || size == 8)) ||
                       ((kind == 'i' || kind == 'u') && (size == 1 || size == 2 || size == 4 || size == 8)) ||
                       (kind == 'b' && size == 1);
    if (!known || descr.size() != 2 + std::to_string(size).size()) {
        throw LoadError(source, "header", "dtype '" + descr + "' is not a float, integer or bool type");
    }
    int64_t count = 1;
    for (int64_t d : array.shape) count *= d;
    const std::size_t data = offset + headerLength;
    if ((bytes.size() - data) / std::size_t(size) < std::size_t(count)) {
        throw LoadError(source, "byte " + std::to_string(data),
                        "payload holds " + std::to_string((bytes.size() - data) / std::size_t(size)) + " of the " +
                            std::to_string(count) + " elements its shape needs");
    }
    array.values.resize(std::size_t(count));
    array.dtype = kind == 'b'   ? DType::Bool
                  : kind == 'f' ? (size == 2 ? DType::F16 : size == 4 ? DType::F32 : DType::F64)
                  : kind == 'i' ? (size == 1 ? DType::I8 : size == 2 ? DType::I16 : size == 4 ? DType::I32 : DType::I64)
                                : (size == 1 ? DType::U8 : size == 2 ? DType::U16 : size == 4 ? DType::U32 : DType::U64);
    if (kind != 'f') array.integers.resize(std::size_t(count));
    const std::byte* p = bytes.data() + data;
    for (std::size_t i = 0; i < array.values.size(); ++i, p += size) {
        float v = 0.0f;
        switch (kind) {
            case 'f':
                v = size == 2 ? halfBitsToFloat(load<uint16_t>(p, swap))
                    : size == 4 ? load<float>(p, swap)
                                : float(load<double>(p, swap));
                break;
            case 'i': {
                const int64_t n = size == 1 ? load<int8_t>(p, false)
                                  : size == 2 ? load<int16_t>(p, swap)
                                  : size == 4 ? load<int32_t>(p, swap)
                                              : load<int64_t>(p, swap);
                array.integers[i] = n;
                v = float(n);
                break;
            }
            case 'u': {
                const uint64_t n = size == 1 ? load<uint8_t>(p, false)
                                   : size == 2 ? load<uint16_t>(p, swap)
                                   : size == 4 ? load<uint32_t>(p, swap)
                                               : load<uint64_t>(p, swap);
                array.integers[i] = static_cast<int64_t>(n);
                v = float(n);
                break;
            }
            default:
                array.integers[i] = std::to_integer<int>(*p) != 0 ? 1 : 0;
                v = float(array.integers[i]);
                break;
        }
        array.values[i] = v;
    }
    return array;
}

std::map<std::string, NpyArray> readNumpyFile(const std::filesystem::path& path) {
    const std::string source = path.string();
    std::map<std::string, NpyArray> arrays;
    std::ifstream probe(path, std::ios::binary);
    if (!probe) throw LoadError(source, "", "cannot open the file");
    char magic[6] = {};
    probe.read(magic, 6);
    if (std::memcmp(magic, "\x93NUMPY", 6) == 0) {  // a single .npy
        probe.seekg(0, std::ios::end);
        std::vector<std::byte> bytes(std::size_t(probe.tellg()));
        probe.seekg(0);
        probe.read(reinterpret_cast<char*>(bytes.data()), std::streamsize(bytes.size()));
        arrays.emplace(path.stem().string(), parseNpy(bytes, source));
        return arrays;
    }
    int error = 0;
    std::unique_ptr<zip_t, decltype(&zip_discard)> archive(zip_open(source.c_str(), ZIP_RDONLY, &error), &zip_discard);
    if (!archive) {
        zip_error_t e;
        zip_error_init_with_code(&e, error);
        const std::string why = zip_error_strerror(&e);
        zip_error_fini(&e);
        throw LoadError(source, "", "neither a .npy array nor an .npz archive: " + why);
    }
    const zip_int64_t members = zip_get_num_entries(archive.get(), 0);
    for (zip_int64_t i = 0; i < members; ++i) {
        zip_stat_t st;
        if (zip_stat_index(archive.get(), zip_uint64_t(i), 0, &st) != 0 || !(st.valid & ZIP_STAT_SIZE)) {
            throw LoadError(source, "member " + std::to_string(i), "unreadable zip entry");
        }
        std::string name = st.name ? st.name : "";
        const std::string where = "member '" + name + "'";
        if (!name.ends_with(".npy")) continue;  // numpy writes only .npy members; anything else is not an array
        name.resize(name.size() - 4);
        if (st.size > zip_uint64_t(kMaxElements) * 8 + kMaxHeader) {
            throw LoadError(source, where, "larger than any array read here (2^31 elements)");
        }
        std::unique_ptr<zip_file_t, decltype(&zip_fclose)> file(zip_fopen_index(archive.get(), zip_uint64_t(i), 0), &zip_fclose);
        if (!file) throw LoadError(source, where, std::string("cannot open: ") + zip_strerror(archive.get()));
        std::vector<std::byte> bytes(std::size_t(st.size));
        const zip_int64_t read = zip_fread(file.get(), bytes.data(), st.size);
        if (read < 0 || zip_uint64_t(read) != st.size) {
            throw LoadError(source, where, std::string("truncated or corrupt: ") + zip_file_strerror(file.get()));
        }
        arrays.emplace(name, parseNpy(bytes, source + ": " + name + ".npy"));
    }
    if (arrays.empty()) throw LoadError(source, "", "the archive holds no .npy arrays");
    return arrays;
}

HostTensor npyTensor(const NpyArray& array, DType dtype) {
    if (isFloat(dtype)) return HostTensor::fromFloats(array.values, array.shape, dtype);
    HostTensor t(dtype, array.shape);
    for (int64_t i = 0; i < t.size(); ++i) {
        const int64_t v = array.integers.empty() ? static_cast<int64_t>(array.values[std::size_t(i)]) : array.integers[std::size_t(i)];
        std::byte* p = t.mutableRaw() + std::size_t(i) * dtypeSize(dtype);
        switch (dtype) {
            case DType::Bool: *reinterpret_cast<uint8_t*>(p) = v != 0; break;
            case DType::I8: case DType::U8: *reinterpret_cast<uint8_t*>(p) = static_cast<uint8_t>(v); break;
            case DType::I16: case DType::U16: {
                const auto x = static_cast<uint16_t>(v);
                std::memcpy(p, &x, 2);
                break;
            }
            case DType::I32: case DType::U32: {
                const auto x = static_cast<uint32_t>(v);
                std::memcpy(p, &x, 4);
                break;
            }
            default: std::memcpy(p, &v, 8); break;
        }
    }
    return t;
}

namespace {

// numpy's descr of a dtype; bfloat16 is written as float32.
std::string npyDescr(DType dtype) {
    switch (dtype) {
        case DType::F16: return "<f2";
        case DType::F64: return "<f8";
        case DType::I8: return "|i1";
        case DType::U8: return "|u1";
        case DType::I16: return "<i2";
        case DType::U16: return "<u2";
        case DType::I32: return "<i4";
        case DType::U32: return "<u4";
        case DType::I64: return "<i8";
        case DType::U64: return "<u8";
        case DType::Bool: return "|b1";
        default: return "<f4";
    }
}

// One .npy (format 1.0; the header padded with spaces to a multiple of 64 bytes, as numpy does).
std::vector<std::byte> npyBytes(const HostTensor& tensor) {
    const HostTensor t = tensor.dtype() == DType::BF16 ? HostTensor::fromFloats(tensor.floats(), tensor.dims()) : tensor;
    std::string shape;  // numpy's tuple: (), (2,), (2, 3)
    for (std::size_t d = 0; d < t.dims().size(); ++d) shape += (d ? ", " : "") + std::to_string(t.dims()[d]);
    if (t.dims().size() == 1) shape += ',';
    std::string header = "{'descr': '" + npyDescr(t.dtype()) + "', 'fortran_order': False, 'shape': (" + shape + "), }";
    const std::size_t unpadded = 10 + header.size() + 1;
    header.append((64 - unpadded % 64) % 64, ' ');
    header += '\n';
    if (header.size() > 65535) throw SaveError("an array header longer than .npy 1.0 allows");
    std::vector<std::byte> bytes(10 + header.size() + t.bytes());
    static constexpr unsigned char kStart[] = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0};
    std::memcpy(bytes.data(), kStart, sizeof kStart);
    bytes[8] = std::byte(header.size() & 0xff);
    bytes[9] = std::byte(header.size() >> 8);
    std::memcpy(bytes.data() + 10, header.data(), header.size());
    if (t.bytes()) std::memcpy(bytes.data() + 10 + header.size(), t.raw(), t.bytes());
    return bytes;
}

}  // namespace

std::vector<std::byte> serializeNpz(const std::vector<std::pair<std::string, HostTensor>>& arrays) {
    // An archive in memory (libzip's buffer source), then its bytes.
    zip_error_t error;
    zip_error_init(&error);
    zip_source_t* buffer = zip_source_buffer_create(nullptr, 0, 0, &error);
    if (!buffer) throw SaveError(std::string("libzip: ") + zip_error_strerror(&error));
    zip_source_keep(buffer);
    std::unique_ptr<zip_source_t, decltype(&zip_source_free)> keep(buffer, &zip_source_free);
    zip_t* archive = zip_open_from_source(buffer, ZIP_TRUNCATE, &error);
    if (!archive) throw SaveError(std::string("libzip: ") + zip_error_strerror(&error));
    std::vector<std::vector<std::byte>> members;  // alive until zip_close reads them
    members.reserve(arrays.size());
    for (const auto& [name, tensor] : arrays) {
        members.push_back(npyBytes(tensor));
        zip_source_t* member = zip_source_buffer(archive, members.back().data(), members.back().size(), 0);
        if (!member || zip_file_add(archive, (name + ".npy").c_str(), member, ZIP_FL_OVERWRITE | ZIP_FL_ENC_UTF_8) < 0) {
            if (member) zip_source_free(member);
            const std::string why = zip_strerror(archive);
            zip_discard(archive);
            throw SaveError("libzip: cannot add '" + name + "': " + why);
        }
        zip_set_file_compression(archive, zip_uint64_t(zip_get_num_entries(archive, 0) - 1), ZIP_CM_STORE, 0);
    }
    if (zip_close(archive) != 0) {
        const std::string why = zip_strerror(archive);
        zip_discard(archive);
        throw SaveError("libzip: " + why);
    }
    std::vector<std::byte> bytes;
    if (zip_source_open(buffer) != 0) throw SaveError("libzip: cannot read the archive back");
    zip_source_seek(buffer, 0, SEEK_END);
    bytes.resize(std::size_t(zip_source_tell(buffer)));
    zip_source_seek(buffer, 0, SEEK_SET);
    const zip_int64_t read = zip_source_read(buffer, bytes.data(), bytes.size());
    zip_source_close(buffer);
    if (read < 0 || std::size_t(read) != bytes.size()) throw SaveError("libzip: cannot read the archive back");
    return bytes;
}

void writeNpzFile(const std::filesystem::path& path, const std::vector<std::pair<std::string, HostTensor>>& arrays) {
    writeFileAtomically(path, serializeNpz(arrays));
}

}  // namespace ampstudio
