#include "train/idx_file.h"

#include <zlib.h>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <climits>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>
#include <system_error>

#include "formats/load_error.h"

namespace ampstudio {
namespace {

// No real IDX file comes near this; it bounds what a hostile header can ask for.
constexpr int64_t kMaxElements = int64_t{1} << 36;
constexpr int kMaxRank = 16;
constexpr std::size_t kChunk = std::size_t{16} << 20;

int elementSize(IdxType type) {
    switch (type) {
        case IdxType::UInt8:
        case IdxType::Int8:
            return 1;
        case IdxType::Int16:
            return 2;
        case IdxType::Int32:
        case IdxType::Float32:
            return 4;
        case IdxType::Float64:
            return 8;
    }
    return 0;
}

bool knownType(uint8_t code) {
    return code == 0x08 || code == 0x09 || code == 0x0B || code == 0x0C || code == 0x0D || code == 0x0E;
}

std::string hex32(uint32_t v) {
    static const char* digits = "0123456789abcdef";
    std::string out = "0x";
    for (int shift = 28; shift >= 0; shift -= 4) {
        out += digits[(v >> shift) & 0xF];
    }
    return out;
}

std::string dimsText(const std::vector<int64_t>& dims) {
    std::string out;
    for (int64_t d : dims) {
        out += (out.empty() ? "" : " x ") + std::to_string(d);
    }
    return out;
}

// One IDX file being read through zlib (gzip or plain: zlib passes plain files through).
class IdxReader {
public:
    explicit IdxReader(const std::filesystem::path& path) : m_path(path), m_name(path.string()) {
        std::error_code ec;
        if (!std::filesystem::is_regular_file(path, ec)) {
            fail("", std::filesystem::exists(path, ec) ? "not a regular file" : "no such file");
        }
        errno = 0;
        m_file = gzopen(path.c_str(), "rb");
        if (m_file == nullptr) {
            fail("", std::string("cannot open: ") + (errno != 0 ? std::strerror(errno) : "out of memory"));
        }
        gzbuffer(m_file, 1u << 18);
    }
    ~IdxReader() {
        if (m_file != nullptr) {
            gzclose_r(m_file);
        }
    }
    IdxReader(const IdxReader&) = delete;
    IdxReader& operator=(const IdxReader&) = delete;

    [[noreturn]] void fail(const std::string& where, const std::string& reason) const {
        throw LoadError(m_name, where, reason);
    }

    std::string at(int64_t offset) const {
        return (m_compressed ? "uncompressed byte " : "byte ") + std::to_string(offset);
    }

    // Reads exactly n bytes or throws, saying what was being read; `before` and `total` place the
    // read within a larger part read in pieces.
    void read(unsigned char* out, std::size_t n, const std::string& what, int64_t before = 0,
              int64_t total = -1) {
        std::size_t done = 0;
        while (done < n) {
            const auto want = static_cast<unsigned>(std::min<std::size_t>(n - done, INT_MAX));
            const int got = gzread(m_file, out + done, want);
            m_compressed = gzdirect(m_file) == 0;  // known once the first bytes are read
            if (got < 0) {
                failStream(m_offset);
            }
            done += static_cast<std::size_t>(got);
            m_offset += got;
            if (got == 0 || static_cast<unsigned>(got) < want) {
                if (done < n) {
                    checkStreamError(m_offset);
                    const int64_t have = before + static_cast<int64_t>(done);
                    const int64_t need = total >= 0 ? total : static_cast<int64_t>(n);
                    fail(at(m_offset), "the file ends in the " + what + " (" + std::to_string(have) + " of " +
                                           std::to_string(need) + " bytes)");
                }
            }
        }
    }

    // After the last value: nothing may follow, and a gzip stream must end properly (its CRC and
    // length trailer are checked by zlib when it reaches them).
    void expectEnd() {
        unsigned char extra[256];
        const int got = gzread(m_file, extra, sizeof extra);
        if (got < 0) {
            failStream(m_offset);
        }
        if (got > 0) {
            fail(at(m_offset), "unexpected bytes after the data (the dimensions account for " +
                                   std::to_string(m_offset) + " bytes)");
        }
        checkStreamError(m_offset);
    }

    bool compressed() const { return m_compressed; }
    int64_t offset() const { return m_offset; }
    const std::filesystem::path& path() const { return m_path; }

private:
    std::string zlibMessage(int* code) const {
        const char* message = gzerror(m_file, code);
        std::string text = message != nullptr ? message : "";
        // zlib prefixes its message with the path it was given; we name the file ourselves.
        const std::string prefix = m_name + ": ";
        if (text.starts_with(prefix)) {
            text.erase(0, prefix.size());
        }
        return text;
    }

    void checkStreamError(int64_t offset) const {
        int code = Z_OK;
        const std::string text = zlibMessage(&code);
        if (code == Z_BUF_ERROR) {
            fail(at(offset), "the gzip stream is truncated (" + text + ")");
        }
        if (code != Z_OK) {
            fail(at(offset), "corrupt gzip data (" + text + ")");
        }
    }

    [[noreturn]] void failStream(int64_t offset) const {
        int code = Z_OK;
        const std::string text = zlibMessage(&code);
        if (code == Z_ERRNO) {
            fail(at(offset), std::string("read error: ") + std::strerror(errno));
        }
        fail(at(offset), "corrupt gzip data (" + text + ")");
    }

    std::filesystem::path m_path;
    std::string m_name;
    gzFile m_file = nullptr;
    int64_t m_offset = 0;
    bool m_compressed = false;
};

void toNativeOrder(IdxArray& array) {
    if constexpr (std::endian::native == std::endian::big) {
        return;
    }
    const int size = elementSize(array.type);
    if (size == 1) {
        return;
    }
    for (std::size_t i = 0; i + static_cast<std::size_t>(size) <= array.data.size();
         i += static_cast<std::size_t>(size)) {
        std::reverse(array.data.begin() + static_cast<std::ptrdiff_t>(i),
                     array.data.begin() + static_cast<std::ptrdiff_t>(i) + size);
    }
}

template <typename T>
T valueAt(const IdxArray& a, std::size_t i) {
    T v;
    std::memcpy(&v, a.data.data() + i * sizeof(T), sizeof(T));
    return v;
}

template <typename Out>
std::vector<Out> convert(const IdxArray& a) {
    const auto n = static_cast<std::size_t>(a.elementCount());
    std::vector<Out> out(n);
    for (std::size_t i = 0; i < n; ++i) {
        switch (a.type) {
            case IdxType::UInt8:
                out[i] = static_cast<Out>(a.data[i]);
                break;
            case IdxType::Int8:
                out[i] = static_cast<Out>(static_cast<int8_t>(a.data[i]));
                break;
            case IdxType::Int16:
                out[i] = static_cast<Out>(valueAt<int16_t>(a, i));
                break;
            case IdxType::Int32:
                out[i] = static_cast<Out>(valueAt<int32_t>(a, i));
                break;
            case IdxType::Float32:
                out[i] = static_cast<Out>(valueAt<float>(a, i));
                break;
            case IdxType::Float64:
                out[i] = static_cast<Out>(valueAt<double>(a, i));
                break;
        }
    }
    return out;
}

}  // namespace

int64_t IdxArray::elementCount() const {
    int64_t n = 1;
    for (int64_t d : dims) {
        n *= d;
    }
    return n;
}

std::vector<float> IdxArray::toFloats() const {
    return convert<float>(*this);
}

std::vector<int32_t> IdxArray::toInt32s() const {
    if (type == IdxType::Float32 || type == IdxType::Float64) {
        throw std::logic_error("an IDX array of floating-point values has no integer labels");
    }
    return convert<int32_t>(*this);
}

IdxArray readIdxFile(const std::filesystem::path& path) {
    IdxReader reader(path);
    unsigned char magic[4];
    reader.read(magic, 4, "magic number");
    const uint32_t magicValue = (uint32_t{magic[0]} << 24) | (uint32_t{magic[1]} << 16) |
                                (uint32_t{magic[2]} << 8) | uint32_t{magic[3]};
    if (magic[0] != 0 || magic[1] != 0 || !knownType(magic[2]) || magic[3] == 0 || magic[3] > kMaxRank) {
        reader.fail(reader.at(0), "not an IDX file: magic number " + hex32(magicValue) +
                                      " (expected 0x00000TNN: T the type 08/09/0b/0c/0d/0e, NN the rank, "
                                      "e.g. 0x00000803 for images, 0x00000801 for labels)");
    }
    IdxArray array;
    array.type = static_cast<IdxType>(magic[2]);
    const int rank = magic[3];
    const int size = elementSize(array.type);
    int64_t elements = 1;
    for (int i = 0; i < rank; ++i) {
        unsigned char b[4];
        reader.read(b, 4, "dimensions");
        const int64_t d =
            (int64_t{b[0]} << 24) | (int64_t{b[1]} << 16) | (int64_t{b[2]} << 8) | int64_t{b[3]};
        array.dims.push_back(d);
        if (d != 0 && elements > kMaxElements / d) {
            reader.fail(reader.at(4 + 4 * i), "dimensions " + dimsText(array.dims) + "... are too large");
        }
        elements *= d;
    }
    const int64_t dataBytes = elements * size;
    const int64_t headerBytes = 4 + 4 * int64_t{rank};
    if (!reader.compressed()) {
        // A plain file: compare with its size before allocating anything.
        std::error_code ec;
        const auto fileSize = static_cast<int64_t>(std::filesystem::file_size(path, ec));
        if (!ec && fileSize - headerBytes < dataBytes) {
            reader.fail(reader.at(headerBytes),
                        "dimensions " + dimsText(array.dims) + " need " + std::to_string(dataBytes) +
                            " bytes of data but the file has " +
                            std::to_string(std::max<int64_t>(fileSize - headerBytes, 0)));
        }
    }
    // Grow as data arrives, so that a gzip file whose header lies costs no more than its real content.
    const std::string what = "data of dimensions " + dimsText(array.dims);
    while (static_cast<int64_t>(array.data.size()) < dataBytes) {
        const std::size_t have = array.data.size();
        const std::size_t want = std::min<std::size_t>(kChunk, static_cast<std::size_t>(dataBytes) - have);
        array.data.resize(have + want);
        reader.read(array.data.data() + have, want, what, static_cast<int64_t>(have), dataBytes);
    }
    reader.expectEnd();
    toNativeOrder(array);
    return array;
}

Dataset loadIdxDataset(const std::filesystem::path& images, const std::filesystem::path& labels) {
    IdxArray imageArray = readIdxFile(images);
    const IdxArray labelArray = readIdxFile(labels);
    const std::string imageName = images.string();
    const std::string labelName = labels.string();
    if (imageArray.dims.size() < 2) {
        throw LoadError(imageName, "",
                        "expected samples of at least one dimension (rank 2 or more), found rank " +
                            std::to_string(imageArray.dims.size()));
    }
    if (labelArray.dims.size() != 1) {
        throw LoadError(labelName, "",
                        "expected a rank-1 label array, found dimensions " + dimsText(labelArray.dims));
    }
    if (labelArray.type == IdxType::Float32 || labelArray.type == IdxType::Float64) {
        throw LoadError(labelName, "", "class labels must be integers, found floating-point values");
    }
    if (labelArray.dims[0] != imageArray.dims[0]) {
        throw LoadError(labelName, "",
                        std::to_string(labelArray.dims[0]) + " labels for " +
                            std::to_string(imageArray.dims[0]) + " samples in " + imageName);
    }
    Dataset out;
    out.name = images.filename().string();
    out.task = DatasetTask::Classification;
    if (imageArray.dims.size() == 3) {
        out.sampleShape = {1, imageArray.dims[1], imageArray.dims[2]};  // one channel, NCHW
    } else {
        out.sampleShape.assign(imageArray.dims.begin() + 1, imageArray.dims.end());
    }
    out.features = imageArray.toFloats();
    imageArray.data = {};
    out.labels = labelArray.toInt32s();
    int32_t largest = -1;
    for (std::size_t i = 0; i < out.labels.size(); ++i) {
        if (out.labels[i] < 0) {
            throw LoadError(labelName, "label " + std::to_string(i),
                            "negative class label " + std::to_string(out.labels[i]));
        }
        largest = std::max(largest, out.labels[i]);
    }
    out.classCount = largest + 1;
    return out;
}

}  // namespace ampstudio
