#include "config/text_file.h"

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "config/input_file.h"
#include "emutrace/config_error.h"

namespace emutrace::config {

TextFileWriter::TextFileWriter(const std::string& path, std::string_view what) : path_(path), what_(what), out_(std::fopen(path.c_str(), "wb")) {
    if (!out_) throw ConfigError(path + ": cannot write the " + what_ + ": " + std::strerror(errno));
}

TextFileWriter::~TextFileWriter() {
    if (out_) std::fclose(out_);
}

// A full disk shows only when the data reaches it: at a write, the flush or the close.
void TextFileWriter::close() {
    if (!out_) return;
    if (std::fflush(out_) != 0 && !error_) error_ = errno;
    if (std::fclose(out_) != 0 && !error_) error_ = errno;
    out_ = nullptr;
    if (error_) throw ConfigError(path_ + ": writing the " + what_ + " failed: " + std::strerror(error_));
}

namespace {

void write_file(const std::string& path, const char* data, std::size_t size, std::string_view what) {
    TextFileWriter out(path, what);
    out.write({data, size});
    out.close();
}

}  // namespace

void write_text_file(const std::string& path, std::string_view text, std::string_view what) {
    write_file(path, text.data(), text.size(), what);
}

void write_binary_file(const std::string& path, std::span<const std::uint8_t> bytes, std::string_view what) {
    write_file(path, reinterpret_cast<const char*>(bytes.data()), bytes.size(), what);
}

std::vector<std::uint8_t> read_binary_file(const std::string& path, std::string_view what, std::size_t limit) {
    return read_input_bytes(path, what, limit);
}

}  // namespace emutrace::config
