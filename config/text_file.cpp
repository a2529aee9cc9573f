#include "config/text_file.h"

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "config/config_error.h"

namespace emutrace::config {

namespace {

void write_file(const std::string& path, const char* data, std::size_t size, std::string_view what) {
    std::FILE* out = std::fopen(path.c_str(), "wb");
    if (!out) throw ConfigError(path + ": cannot write the " + std::string(what) + ": " + std::strerror(errno));
    // A full disk shows only when the data reaches it: at the write, the flush or the close.
    bool written = std::fwrite(data, 1, size, out) == size && std::fflush(out) == 0;
    int error = written ? 0 : errno;
    if (std::fclose(out) != 0 && written) written = false, error = errno;
    if (!written) throw ConfigError(path + ": writing the " + std::string(what) + " failed: " + std::strerror(error ? error : EIO));
}

}  // namespace

void write_text_file(const std::string& path, std::string_view text, std::string_view what) {
    write_file(path, text.data(), text.size(), what);
}

void write_binary_file(const std::string& path, std::span<const std::uint8_t> bytes, std::string_view what) {
    write_file(path, reinterpret_cast<const char*>(bytes.data()), bytes.size(), what);
}

}  // namespace emutrace::config
