#include "emu/live_source.h"

#include <fcntl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "emutrace/config_error.h"

namespace emutrace::emu {

LiveSource::~LiveSource() {
    if (fd_ >= 0) ::close(fd_);
}

void LiveSource::open() {
    auto fail = [&](const char* what) { throw ConfigError(path_ + ": cannot open the live input: " + what + ": " + std::strerror(errno)); };
    struct stat st {};
    if (::stat(path_.c_str(), &st) != 0) fail("stat");
    if (S_ISSOCK(st.st_mode)) {
        sockaddr_un addr{};
        addr.sun_family = AF_UNIX;
        if (path_.size() >= sizeof addr.sun_path) {
            errno = ENAMETOOLONG;
            fail("socket path");
        }
        std::memcpy(addr.sun_path, path_.c_str(), path_.size());
        fd_ = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
        if (fd_ < 0) fail("socket");
        if (::connect(fd_, reinterpret_cast<const sockaddr*>(&addr), sizeof addr) != 0 && errno != EINPROGRESS) fail("connect");
        return;
    }
    // A FIFO opened for reading without blocking succeeds before its writer comes.
    fd_ = ::open(path_.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd_ < 0) fail("open");
}

std::string LiveSource::poll() {
    if (fd_ < 0 || ended_) return {};
    char buf[4096];
    ssize_t n = ::read(fd_, buf, sizeof buf);
    if (n > 0) return std::string(buf, static_cast<std::size_t>(n));
    // A FIFO with no writer yet also reads 0; it ends only for a regular file or a socket.
    if (n == 0) {
        struct stat st {};
        if (::fstat(fd_, &st) == 0 && !S_ISFIFO(st.st_mode)) ended_ = true;
    } else if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
        ended_ = true;
    }
    return {};
}

}  // namespace emutrace::emu
