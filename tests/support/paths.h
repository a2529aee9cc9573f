#pragma once
// Where the build put the test firmware and the emutrace binary.
#include <string>

namespace emutrace::test {

inline std::string firmware(const std::string& name) {
    return std::string(EMUTRACE_FIRMWARE_DIR) + "/" + name + ".elf";
}
inline std::string source(const std::string& relative) {
    return std::string(EMUTRACE_SOURCE_DIR) + "/" + relative;
}

}  // namespace emutrace::test
