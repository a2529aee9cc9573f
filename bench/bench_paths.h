#pragma once
// Where the build put the firmware and the emutrace binary, and where the sources are. Defined in
// bench_paths.cpp, the one benchmark object that knows the build's paths, so that a compiler
// cache shares the others between clones (as tests/support/paths.h does for the tests).
#include <string>

namespace emutrace::bench {

std::string firmware_dir();     ///< build/firmware
std::string source_dir();       ///< the source tree's root
std::string bench_dir();        ///< bench/ in the source tree
std::string emutrace_binary();  ///< the emutrace command this build made

}  // namespace emutrace::bench
