#pragma once
// Saving never loses data: write a temporary file beside the target, flush it to disk, then rename
// it over the target in one step. A crash leaves either the old file or the new one, never half.

#include <cstddef>
#include <filesystem>
#include <functional>
#include <span>
#include <stdexcept>
#include <string_view>

namespace ampstudio {

class SaveError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// Throws SaveError (naming the path and the system's reason) when any step fails; the temporary
// file is removed then and the target is untouched.
void writeFileAtomically(const std::filesystem::path& target, std::span<const std::byte> bytes);
void writeFileAtomically(const std::filesystem::path& target, std::string_view text);

// The same for content too large to hold twice in memory: `writeTo` writes to the open file (the
// temporary) and returns false, with errno set, when a write fails.
void writeFileAtomically(const std::filesystem::path& target, const std::function<bool(int fd)>& writeTo);

// Writes all of `bytes` to `fd` (retrying short writes and EINTR); false with errno set on failure.
bool writeAll(int fd, std::span<const std::byte> bytes);

// True when both paths name the same existing file (hard links and symlinks included). Used to
// refuse writing an output over an input.
bool sameFile(const std::filesystem::path& a, const std::filesystem::path& b);

}  // namespace ampstudio
