#include "bench/bench_paths.h"

namespace emutrace::bench {

std::string firmware_dir() {
    return EMUTRACE_FIRMWARE_DIR;
}
std::string source_dir() {
    return EMUTRACE_SOURCE_DIR;
}
std::string bench_dir() {
    return EMUTRACE_SOURCE_DIR "/bench";
}
std::string emutrace_binary() {
    return EMUTRACE_BINARY;
}

}  // namespace emutrace::bench
