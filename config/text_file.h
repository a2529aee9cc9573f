#pragma once
// Writing a result file (JSON, a report, a header) the user named: a file that cannot be written
// is their input at fault, so it throws ConfigError naming the file and what it was to hold.

#include <string>
#include <string_view>

namespace emutrace::config {

void write_text_file(const std::string& path, std::string_view text, std::string_view what);

}  // namespace emutrace::config
