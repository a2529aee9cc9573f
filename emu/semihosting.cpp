#include "emu/semihosting.h"

#include <fcntl.h>
#include <spdlog/spdlog.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

#include <algorithm>
#include <array>
#include <filesystem>

namespace emutrace::emu {
namespace {

enum Op : std::uint32_t {
    SYS_OPEN = 0x01,
    SYS_CLOSE = 0x02,
    SYS_WRITEC = 0x03,
    SYS_WRITE0 = 0x04,
    SYS_WRITE = 0x05,
    SYS_READ = 0x06,
    SYS_READC = 0x07,
    SYS_ISERROR = 0x08,
    SYS_ISTTY = 0x09,
    SYS_SEEK = 0x0A,
    SYS_FLEN = 0x0C,
    SYS_REMOVE = 0x0E,
    SYS_CLOCK = 0x10,
    SYS_TIME = 0x11,
    SYS_ERRNO = 0x13,
    SYS_GET_CMDLINE = 0x15,
    SYS_HEAPINFO = 0x16,
    SYS_EXIT = 0x18,
    SYS_EXIT_EXTENDED = 0x20,
    SYS_ELAPSED = 0x30,
    SYS_TICKFREQ = 0x31,
};
constexpr std::uint32_t kApplicationExit = 0x20026;  // ADP_Stopped_ApplicationExit
constexpr std::uint32_t kError = 0xffffffffu;
constexpr std::size_t kMaxString = 64 * 1024;
constexpr std::size_t kMaxTransfer = 1 << 20;
constexpr std::uint32_t kFirstFileHandle = 3;

// fopen modes by semihosting mode number (spec table "Value of mode").
constexpr std::array<const char*, 12> kModes{"r", "rb", "r+", "r+b", "w", "wb", "w+", "w+b", "a", "ab", "a+", "a+b"};

}  // namespace

Semihosting::Semihosting(SemihostingConfig config, std::uint64_t clock_hz, SemihostingHost& host)
    : config_(std::move(config)), clock_hz_(clock_hz ? clock_hz : 1), host_(host) {}

Semihosting::~Semihosting() {
    for (std::FILE* f : files_)
        if (f) std::fclose(f);
}

bool Semihosting::read_words(std::uint32_t address, std::span<std::uint32_t> out) {
    std::vector<std::uint8_t> raw(out.size() * 4);
    if (!host_.read_guest(address, raw)) return false;
    for (std::size_t i = 0; i < out.size(); ++i)
        out[i] = raw[4 * i] | raw[4 * i + 1] << 8 | raw[4 * i + 2] << 16 | static_cast<std::uint32_t>(raw[4 * i + 3]) << 24;
    return true;
}

bool Semihosting::read_string(std::uint32_t address, std::size_t max, std::string& out, bool nul_terminated) {
    out.clear();
    std::uint8_t c = 0;
    for (std::size_t i = 0; i < max; ++i) {
        if (!host_.read_guest(address + static_cast<std::uint32_t>(i), std::span(&c, 1))) return false;
        if (nul_terminated && c == 0) return true;
        out.push_back(static_cast<char>(c));
    }
    return !nul_terminated;
}

std::uint32_t Semihosting::fail(int err) {
    errno_ = err;
    return kError;
}

std::FILE* Semihosting::file(std::uint32_t handle) {
    if (handle < kFirstFileHandle || handle - kFirstFileHandle >= files_.size()) return nullptr;
    return files_[handle - kFirstFileHandle];
}

SemihostingOutcome Semihosting::call(std::uint32_t op, std::uint32_t arg) {
    SemihostingOutcome out;
    std::array<std::uint32_t, 2> w{};
    std::string text;
    switch (op) {
        case SYS_WRITEC:
            if (!read_string(arg, 1, text, false)) return {fail(EFAULT)};
            host_.output(trace::OutputChannel::Stdout, text);
            return out;
        case SYS_WRITE0:
            if (!read_string(arg, kMaxString, text, true)) return {fail(EFAULT)};
            host_.output(trace::OutputChannel::Stdout, text);
            return out;
        case SYS_WRITE: return {write(arg)};
        case SYS_READ: return {read(arg)};
        case SYS_READC: return {fail(EIO)};  // no console input
        case SYS_OPEN: return {open(arg)};
        case SYS_CLOSE:
        case SYS_SEEK:
        case SYS_FLEN:
        case SYS_ISTTY:
        case SYS_REMOVE: return {file_op(op, arg)};
        case SYS_ISERROR: return {static_cast<std::uint32_t>(static_cast<std::int32_t>(arg) < 0)};
        case SYS_CLOCK: return {static_cast<std::uint32_t>(host_.now_cycles() * 100 / clock_hz_)};
        case SYS_TIME: return {static_cast<std::uint32_t>(config_.epoch + host_.now_cycles() / clock_hz_)};
        case SYS_TICKFREQ: return {static_cast<std::uint32_t>(clock_hz_)};
        case SYS_ELAPSED: {
            std::uint64_t t = host_.now_cycles();
            std::array<std::uint8_t, 8> b{};
            for (int i = 0; i < 8; ++i) b[i] = static_cast<std::uint8_t>(t >> (8 * i));
            return {host_.write_guest(arg, b) ? 0 : fail(EFAULT)};
        }
        case SYS_ERRNO: return {static_cast<std::uint32_t>(errno_)};
        case SYS_GET_CMDLINE: return {get_cmdline(arg)};
        case SYS_HEAPINFO: {
            // Zeros tell newlib's crt0 to use its linker-script defaults.
            std::uint32_t block = 0;
            if (!read_words(arg, std::span(&block, 1))) return {fail(EFAULT)};
            std::array<std::uint8_t, 16> zeros{};
            return {host_.write_guest(block, zeros) ? 0 : fail(EFAULT)};
        }
        case SYS_EXIT:
            // AArch32: r1 is the reason itself; only "application exit" means success.
            out.exited = true;
            out.exit_code = arg == kApplicationExit ? 0 : 1;
            return out;
        case SYS_EXIT_EXTENDED:
            out.exited = true;
            if (!read_words(arg, w))
                out.exit_code = 1;
            else
                out.exit_code = w[0] == kApplicationExit ? static_cast<int>(w[1]) : 1;
            return out;
        default: warn("semihosting: unsupported operation {:#x}; returning -1", op); return {fail(ENOSYS)};
    }
}

std::uint32_t Semihosting::write(std::uint32_t arg) {
    std::array<std::uint32_t, 3> w{};  // handle, buffer, length
    if (!read_words(arg, w)) return fail(EFAULT);
    if (w[2] > kMaxTransfer) return fail(EINVAL);
    std::vector<std::uint8_t> data(w[2]);
    if (!host_.read_guest(w[1], data)) return fail(EFAULT);
    std::string_view text(reinterpret_cast<const char*>(data.data()), data.size());
    if (w[0] == 1 || w[0] == 2) {
        host_.output(w[0] == 1 ? trace::OutputChannel::Stdout : trace::OutputChannel::Stderr, text);
        return 0;
    }
    std::FILE* f = file(w[0]);
    if (!f) {
        fail(EBADF);
        return w[2];
    }
    std::size_t n = std::fwrite(data.data(), 1, data.size(), f);
    if (n != data.size()) errno_ = EIO;
    return static_cast<std::uint32_t>(data.size() - n);  // bytes NOT written
}

std::uint32_t Semihosting::read(std::uint32_t arg) {
    std::array<std::uint32_t, 3> w{};
    if (!read_words(arg, w)) return fail(EFAULT);
    if (w[2] > kMaxTransfer) return fail(EINVAL);
    std::FILE* f = file(w[0]);
    if (!f) {
        if (w[0] != 0) fail(EBADF);
        return w[2];  // console input is always at end of file
    }
    std::vector<std::uint8_t> data(w[2]);
    std::size_t n = std::fread(data.data(), 1, data.size(), f);
    if (!host_.write_guest(w[1], std::span(data.data(), n))) return fail(EFAULT);
    return static_cast<std::uint32_t>(w[2] - n);  // bytes NOT read
}

// Opens `name` beneath `dir` without following any symbolic link: each directory on the way is
// opened beneath the one before with O_NOFOLLOW, and the file itself with O_NOFOLLOW, so that a
// link planted in the granted tree (to a file, a directory, or a path that does not exist yet)
// leads nowhere. An absolute name or a ".." fails with EACCES. Returns null with errno set.
std::FILE* Semihosting::open_beneath(const std::filesystem::path& dir, const std::string& name, std::uint32_t mode) {
    namespace fs = std::filesystem;
    const fs::path path(name);
    std::vector<std::string> parts;
    for (const auto& part : path.relative_path()) {
        if (part == "..") {
            errno = EACCES;
            return nullptr;
        }
        if (!part.empty() && part != ".") parts.push_back(part.string());
    }
    if (path.is_absolute() || parts.empty()) {
        errno = path.is_absolute() ? EACCES : ENOENT;
        return nullptr;
    }
    int at = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    for (std::size_t i = 0; at >= 0 && i + 1 < parts.size(); ++i) {
        int next = ::openat(at, parts[i].c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        int saved = errno;
        ::close(at);
        errno = saved;
        at = next;
    }
    if (at < 0) {
        if (errno == ELOOP || errno == ENOTDIR) errno = EACCES;  // a link where a directory was wanted
        return nullptr;
    }
    // fopen's modes as open(2) flags: r, r+, w, w+, a, a+ (each also with b). Truncation waits
    // until the file is known to be the folder's own (below).
    static constexpr int kFlags[] = {
        O_RDONLY, O_RDWR, O_WRONLY | O_CREAT, O_RDWR | O_CREAT, O_WRONLY | O_CREAT | O_APPEND, O_RDWR | O_CREAT | O_APPEND};
    const bool truncate = mode / 2 == 2 || mode / 2 == 3;
    // O_NONBLOCK: a FIFO or a device opens without waiting for its other side, and is refused.
    int fd = ::openat(at, parts.back().c_str(), kFlags[mode / 2] | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK, 0666);
    int saved = errno;
    ::close(at);
    if (fd < 0) {
        errno = saved == ELOOP || saved == ENOTDIR || saved == ENXIO ? EACCES : saved;  // a link where a name was wanted, a FIFO
        return nullptr;
    }
    // Only a regular file with one link: a hard link planted in the granted folder is a name for a
    // file outside it, which O_NOFOLLOW cannot see.
    struct stat st {};
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_nlink != 1 || ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK) != 0 ||
        (truncate && ::ftruncate(fd, 0) != 0)) {
        ::close(fd);
        errno = EACCES;
        return nullptr;
    }
    std::FILE* f = ::fdopen(fd, kModes[mode]);
    if (!f) ::close(fd);
    return f;
}

template <typename... Args>
void Semihosting::warn(spdlog::format_string_t<Args...> format, Args&&... args) {
    if (++warnings_ <= kShownWarnings) spdlog::warn(format, std::forward<Args>(args)...);
    if (warnings_ == kShownWarnings) spdlog::warn("semihosting: further warnings are counted, not shown");
}

void Semihosting::report_unshown_warnings() const {
    if (warnings_ > kShownWarnings) spdlog::warn("semihosting: {} more warnings like those above were not shown", warnings_ - kShownWarnings);
}

std::uint32_t Semihosting::open(std::uint32_t arg) {
    std::array<std::uint32_t, 3> w{};  // name, mode, name length
    if (!read_words(arg, w)) return fail(EFAULT);
    if (w[1] >= kModes.size()) return fail(EINVAL);
    std::string name;
    if (w[2] > 4096 || !read_string(w[0], w[2], name, false)) return fail(EFAULT);
    if (name == ":tt") return w[1] < 4 ? 0 : w[1] < 8 ? 1 : 2;  // the console: stdin, stdout, stderr
    if (name == ":semihosting-features") return fail(ENOENT);
    if (!config_.host_dir) {
        warn(
            "semihosting: firmware tried to open host file '{}'; refused (grant a directory with "
            "semihosting.host_dir in the scenario)",
            name);
        return fail(EACCES);
    }
    std::FILE* f = open_beneath(*config_.host_dir, name, w[1]);
    if (!f) {
        // Kept before logging: the logger's first message sets errno itself (its terminal check).
        const int error = errno;
        if (error == EACCES) warn("semihosting: '{}' leads outside the granted directory {}; refused", name, config_.host_dir->string());
        return fail(error);
    }
    files_.push_back(f);
    return static_cast<std::uint32_t>(files_.size() - 1 + kFirstFileHandle);
}

std::uint32_t Semihosting::file_op(std::uint32_t op, std::uint32_t arg) {
    std::array<std::uint32_t, 2> w{};
    if (!read_words(arg, w)) return fail(EFAULT);
    if (op == SYS_ISTTY) return w[0] < kFirstFileHandle ? 1 : (file(w[0]) ? 0 : fail(EBADF));
    if (op == SYS_REMOVE) return fail(EACCES);  // deleting host files is never granted
    if (w[0] < kFirstFileHandle) return op == SYS_CLOSE ? 0 : fail(EINVAL);
    std::FILE* f = file(w[0]);
    if (!f) return fail(EBADF);
    switch (op) {
        case SYS_CLOSE:
            std::fclose(f);
            files_[w[0] - kFirstFileHandle] = nullptr;
            return 0;
        case SYS_SEEK: return std::fseek(f, static_cast<long>(w[1]), SEEK_SET) == 0 ? 0 : fail(errno);
        case SYS_FLEN: {
            long here = std::ftell(f);
            std::fseek(f, 0, SEEK_END);
            long len = std::ftell(f);
            std::fseek(f, here, SEEK_SET);
            return static_cast<std::uint32_t>(len);
        }
        default: return fail(ENOSYS);
    }
}

std::uint32_t Semihosting::get_cmdline(std::uint32_t arg) {
    std::array<std::uint32_t, 2> w{};  // buffer, size
    if (!read_words(arg, w)) return fail(EFAULT);
    const std::string& cmd = config_.cmdline;
    if (cmd.size() + 1 > w[1]) return fail(E2BIG);
    std::vector<std::uint8_t> bytes(cmd.begin(), cmd.end());
    bytes.push_back(0);
    std::array<std::uint8_t, 4> len{};
    for (int i = 0; i < 4; ++i) len[i] = static_cast<std::uint8_t>(cmd.size() >> (8 * i));
    if (!host_.write_guest(w[0], bytes) || !host_.write_guest(arg + 4, len)) return fail(EFAULT);
    return 0;
}

}  // namespace emutrace::emu
