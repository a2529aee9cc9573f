#pragma once
// What the program-flow trace writers (PFT, ETMv3) share before the first byte: the snapshot
// directory made, the raw file opened; either failing is a ConfigError naming it.

#include <cstdio>
#include <filesystem>
#include <string>

#include "emutrace/config_error.h"

namespace emutrace::analysis {

/// Makes `snapshot` (when given) and opens `file` for writing (when given; null otherwise).
/// `what` names the trace in the message ("PFT trace").
inline std::FILE* open_trace_outputs(const std::string& file, const std::string& snapshot, const std::string& what) {
    if (!snapshot.empty()) {
        std::error_code ec;
        std::filesystem::create_directories(snapshot, ec);
        if (ec) throw ConfigError(snapshot + ": cannot create the snapshot directory (" + ec.message() + ")");
    }
    if (file.empty()) return nullptr;
    std::FILE* f = std::fopen(file.c_str(), "wb");
    if (!f) throw ConfigError(file + ": cannot write the " + what + " file");
    return f;
}

}  // namespace emutrace::analysis
