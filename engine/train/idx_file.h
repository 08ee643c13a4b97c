#pragma once
// IDX files, the format of MNIST and Fashion-MNIST (http://yann.lecun.com/exdb/mnist/): a 4-byte
// magic 0x00 0x00 <type> <rank>, then <rank> big-endian u32 dimensions, then the values, big-endian,
// row-major. MNIST images are 0x00000803 (u8, rank 3: N × rows × columns), labels 0x00000801
// (u8, rank 1). The file may be gzip-compressed (.gz, as distributed) or not; zlib reads both.
//
// Hostile input is a LoadError naming the file and the place: a wrong magic, an unknown type, a
// dimension product that overflows, data shorter than the dimensions say (checked against the file
// size before anything is allocated when the file is not compressed; for gzip the buffer grows only
// as data actually arrives), bytes after the data, a truncated or corrupt gzip stream.

#include <cstdint>
#include <filesystem>
#include <vector>

#include "train/dataset.h"

namespace ampstudio {

enum class IdxType : uint8_t {
    UInt8 = 0x08,
    Int8 = 0x09,
    Int16 = 0x0B,
    Int32 = 0x0C,
    Float32 = 0x0D,
    Float64 = 0x0E,
};

struct IdxArray {
    IdxType type = IdxType::UInt8;
    std::vector<int64_t> dims;
    std::vector<unsigned char> data;  // values in native byte order, row-major

    int64_t elementCount() const;
    std::vector<float> toFloats() const;
    // Integer types only; a floating-point array throws std::logic_error.
    std::vector<int32_t> toInt32s() const;
};

IdxArray readIdxFile(const std::filesystem::path& path);

// An image file [N, rows, cols] (or [N, D]) and a label file [N] as one classification dataset:
// features are the raw values as f32 (0..255 for u8 images: see scalePixelsToUnit), sampleShape
// {1, rows, cols} (one channel, NCHW) or {D}; classCount = largest label + 1. Throws LoadError when
// the counts differ or a label is negative.
Dataset loadIdxDataset(const std::filesystem::path& images, const std::filesystem::path& labels);

}  // namespace ampstudio
