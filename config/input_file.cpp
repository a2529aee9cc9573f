#include "config/input_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "emutrace/config_error.h"

namespace emutrace::config {
namespace {

[[noreturn]] void fail(const std::string& path, std::string_view what, const std::string& why) {
    throw ConfigError(path + ": cannot open the " + std::string(what) + ": " + why);
}

std::string mib(std::size_t bytes) {
    return bytes >= (std::size_t{1} << 20) ? std::to_string(bytes >> 20) + " MiB" : std::to_string(bytes) + " bytes";
}

}  // namespace

int open_input(const std::string& path, std::string_view what) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) fail(path, what, std::strerror(errno));
    struct stat st {};
    if (::fstat(fd, &st) != 0 || S_ISDIR(st.st_mode) || ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK) != 0) {
        const int error = S_ISDIR(st.st_mode) ? EISDIR : errno;
        ::close(fd);
        fail(path, what, std::strerror(error));
    }
    return fd;
}

bool is_regular_file(int fd) {
    struct stat st {};
    return ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
}

namespace {

// A pipe or device has no size to check first: at most this much of one is read.
constexpr std::size_t kLargestStream = std::size_t{256} << 20;

template <typename Bytes>
Bytes read_whole(const std::string& path, std::string_view what, std::size_t limit) {
    const int fd = open_input(path, what);
    struct stat st {};
    const bool regular = ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
    if (!regular) limit = std::min(limit, kLargestStream);
    auto too_large = [&] {
        ::close(fd);
        throw ConfigError(path + ": the " + std::string(what) + " is larger than " + mib(limit) + (regular ? "" : " (read from a pipe or device)") +
                          ": refused");
    };
    if (regular && static_cast<std::uintmax_t>(st.st_size) > limit) too_large();
    Bytes out;
    if (regular) out.reserve(static_cast<std::size_t>(st.st_size));  // one allocation, not a doubling series
    char block[1 << 16];
    for (;;) {
        const ssize_t got = ::read(fd, block, sizeof block);
        if (got < 0 && errno == EINTR) continue;
        if (got < 0) {
            const int error = errno;
            ::close(fd);
            throw ConfigError(path + ": cannot read the " + std::string(what) + ": " + std::strerror(error));
        }
        if (got == 0) break;
        if (out.size() + static_cast<std::size_t>(got) > limit) too_large();
        out.insert(out.end(), block, block + got);
    }
    ::close(fd);
    return out;
}

}  // namespace

std::string read_input(const std::string& path, std::string_view what, std::size_t limit) {
    return read_whole<std::string>(path, what, limit);
}

std::vector<std::uint8_t> read_input_bytes(const std::string& path, std::string_view what, std::size_t limit) {
    return read_whole<std::vector<std::uint8_t>>(path, what, limit);
}

}  // namespace emutrace::config
