#pragma once
// What every fuzz target shares: an input as a file for the parsers that read files (on tmpfs,
// one per process), and the rule that only ConfigError may come out of a parser.
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <string>

namespace emutrace::fuzz {

/// Writes `data` to this process's scratch file and returns its path.
inline const std::string& as_file(const std::uint8_t* data, std::size_t size, const char* suffix = "") {
    static const std::string path = "/dev/shm/emutrace-fuzz-" + std::to_string(::getpid()) + suffix;
    std::FILE* f = std::fopen(path.c_str(), "wb");
    if (f) {
        if (size) std::fwrite(data, 1, size, f);
        std::fclose(f);
    }
    return path;
}

}  // namespace emutrace::fuzz
