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
#include <vector>

namespace ampstudio {

struct NpyArray {
    std::vector<int64_t> shape;  // empty for a scalar
    std::vector<float> values;   // C order
};

// One `.npy` document; `source` names it in errors.
NpyArray parseNpy(std::span<const std::byte> bytes, const std::string& source);

// The arrays of an `.npz` by member name without ".npy" ("data", "arr_0"), or of an `.npy` file
// under its stem.
std::map<std::string, NpyArray> readNumpyFile(const std::filesystem::path& path);

}  // namespace ampstudio
