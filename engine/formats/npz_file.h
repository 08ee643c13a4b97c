#pragma once
// NumPy's array files as calibration inputs: `.npy` (one array) and `.npz` (a zip of `.npy` members,
// as numpy.savez and numpy.savez_compressed write them). Read as float32 from float16/32/64 and
// the integer and bool dtypes, little- or big-endian, C order; a Fortran-order array, an object
// or structured dtype, a header that does not parse, a payload shorter than its shape, or a shape
// past 2^31 elements is a LoadError naming the file and the member, never a crash or a huge
// allocation. The zip container is libzip's (stored and deflated members, zip64).
#include <cstdint>
#include <filesystem>
#include <map>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "tensor/dtype.h"
#include "tensor/host_tensor.h"

namespace ampstudio {

struct NpyArray {
    std::vector<int64_t> shape;  // empty for a scalar
    std::vector<float> values;   // C order
    DType dtype = DType::F32;    // as stored (bool as Bool; the float and integer widths as theirs)
    std::vector<int64_t> integers;  // for integer and bool arrays: the exact values (token ids past 2^24)
};

// One `.npy` document; `source` names it in errors.
NpyArray parseNpy(std::span<const std::byte> bytes, const std::string& source);

// The arrays of an `.npz` by member name without ".npy" ("data", "arr_0"), or of an `.npy` file
// under its stem.
std::map<std::string, NpyArray> readNumpyFile(const std::filesystem::path& path);

// An array as the tensor of `dtype` it holds (integers exact, floats converted to the dtype).
HostTensor npyTensor(const NpyArray& array, DType dtype);

// Named tensors as an `.npz` (numpy.savez's layout: one `NAME.npy` member each, stored), every
// dtype as numpy names it; bfloat16, which numpy has no dtype for, is written as float32. Throws
// SaveError; the file is written atomically.
std::vector<std::byte> serializeNpz(const std::vector<std::pair<std::string, HostTensor>>& arrays);
void writeNpzFile(const std::filesystem::path& path, const std::vector<std::pair<std::string, HostTensor>>& arrays);

}  // namespace ampstudio
