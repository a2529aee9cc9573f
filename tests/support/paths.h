#pragma once
// Where the build put the test firmware and the emutrace binary, and where the sources are.
// Defined in paths.cpp, the one test object that knows the build's paths: every other test
// object's command line is then the same in any clone, so a compiler cache shares it.
#include <string>

namespace emutrace::test {

/// build/firmware/<name>.elf
std::string firmware(const std::string& name);
/// A path in the source tree, from its root.
std::string source(const std::string& relative);
/// The emutrace command this build made.
std::string emutrace_binary();

}  // namespace emutrace::test
