#include "config/text_file.h"

#include <fstream>

#include "config/config_error.h"

namespace emutrace::config {

void write_text_file(const std::string& path, std::string_view text, std::string_view what) {
    std::ofstream out(path);
    if (!out) throw ConfigError(path + ": cannot write the " + std::string(what));
    out << text;
}

}  // namespace emutrace::config
