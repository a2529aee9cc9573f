#pragma once
// Writing a result file (JSON, a report, a header, a trace) the user named: a file that cannot be
// written, or a disk that fills, is their input at fault, so it throws ConfigError naming the file
// and what it was to hold.

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace emutrace::config {

void write_text_file(const std::string& path, std::string_view text, std::string_view what);
/// The same for bytes (a trace, a patched ELF, a log).
void write_binary_file(const std::string& path, std::span<const std::uint8_t> bytes, std::string_view what);

/// The most of a binary input read whole: a device (/dev/zero) would otherwise fill the memory.
inline constexpr std::size_t kLargestBinaryInput = std::size_t{1} << 30;

/// The whole of an input file the user named (a dump, a capture buffer, a log, a trace), read as
/// config::read_input reads (no wait on a FIFO, no folder, at most `limit` bytes); one it cannot
/// open or read throws ConfigError "<path>: cannot open (or read) the <what>: <reason>".
std::vector<std::uint8_t> read_binary_file(const std::string& path, std::string_view what, std::size_t limit = kLargestBinaryInput);

/// A result file written piece by piece, for one too large to hold in memory first: the same
/// errors as write_text_file, thrown by close() (or the constructor) once the data has reached the disk.
class TextFileWriter {
public:
    TextFileWriter(const std::string& path, std::string_view what);
    ~TextFileWriter();
    TextFileWriter(const TextFileWriter&) = delete;
    TextFileWriter& operator=(const TextFileWriter&) = delete;
    void write(std::string_view text) {
        if (std::fwrite(text.data(), 1, text.size(), out_) != text.size() && !error_) error_ = errno ? errno : EIO;
    }
    /// Flushes and closes; throws ConfigError naming the file when any write failed.
    void close();

private:
    std::string path_, what_;
    std::FILE* out_;
    int error_ = 0;
};

}  // namespace emutrace::config
