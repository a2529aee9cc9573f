#include "support/paths.h"

namespace emutrace::test {

std::string firmware(const std::string& name) {
    return std::string(EMUTRACE_FIRMWARE_DIR) + "/" + name + ".elf";
}
std::string source(const std::string& relative) {
    return std::string(EMUTRACE_SOURCE_DIR) + "/" + relative;
}
std::string emutrace_binary() {
    return EMUTRACE_BINARY;
}

}  // namespace emutrace::test
