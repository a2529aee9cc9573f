#pragma once
// Writing a result file (JSON, a report, a header, a trace) the user named: a file that cannot be
// written, or a disk that fills, is their input at fault, so it throws ConfigError naming the file
// and what it was to hold.

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace emutrace::config {

void write_text_file(const std::string& path, std::string_view text, std::string_view what);
/// The same for bytes (a trace, a patched ELF, a log).
void write_binary_file(const std::string& path, std::span<const std::uint8_t> bytes, std::string_view what);

}  // namespace emutrace::config
