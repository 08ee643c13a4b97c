#include "formats/atomic_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <random>
#include <string>
#include <system_error>

namespace ampstudio {
namespace {

[[noreturn]] void fail(const std::filesystem::path& path, const std::string& step, int err) {
    throw SaveError("cannot save " + path.string() + ": " + step + ": " + std::strerror(err));
}

std::filesystem::path temporaryBeside(const std::filesystem::path& target) {
    std::random_device rd;
    const auto suffix = std::to_string(rd()) + std::to_string(::getpid());
    auto name = target.filename();
    name += ".tmp-" + suffix;
    return target.parent_path() / ("." + name.string());
}

}  // namespace

bool writeAll(int fd, std::span<const std::byte> bytes) {
    const std::byte* p = bytes.data();
    std::size_t left = bytes.size();
    while (left > 0) {
        const ssize_t n = ::write(fd, p, left);
        if (n < 0) {
            if (errno == EINTR) {
                continue;
            }
            return false;
        }
        p += n;
        left -= static_cast<std::size_t>(n);
    }
    return true;
}

void writeFileAtomically(const std::filesystem::path& target, const std::function<bool(int fd)>& writeTo) {
    const auto temp = temporaryBeside(target);
    const int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0) {
        fail(target, "creating " + temp.string(), errno);
    }
    auto abandon = [&](const std::string& step) {
        const int err = errno;
        ::close(fd);
        ::unlink(temp.c_str());
        fail(target, step, err);
    };
    bool written = false;
    try {
        written = writeTo(fd);
    } catch (...) {  // the writer's own error (SaveError, bad_alloc): no temporary left behind
        ::close(fd);
        ::unlink(temp.c_str());
        throw;
    }
    if (!written) {
        abandon("writing");
    }
    if (::fsync(fd) != 0) {
        abandon("flushing to disk");
    }
    if (::close(fd) != 0) {
        const int err = errno;
        ::unlink(temp.c_str());
        fail(target, "closing", err);
    }
    if (::rename(temp.c_str(), target.c_str()) != 0) {
        const int err = errno;
        ::unlink(temp.c_str());
        fail(target, "renaming into place", err);
    }
}

void writeFileAtomically(const std::filesystem::path& target, std::span<const std::byte> bytes) {
    writeFileAtomically(target, [bytes](int fd) { return writeAll(fd, bytes); });
}

void writeFileAtomically(const std::filesystem::path& target, std::string_view text) {
    writeFileAtomically(target, std::as_bytes(std::span(text.data(), text.size())));
}

bool sameFile(const std::filesystem::path& a, const std::filesystem::path& b) {
    std::error_code ec;
    const bool same = std::filesystem::equivalent(a, b, ec);
    return !ec && same;
}

}  // namespace ampstudio
