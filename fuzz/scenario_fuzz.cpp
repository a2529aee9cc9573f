// libFuzzer target: arbitrary text as a scenario YAML. Parsing it with every built-in analysis's
// sections must end in a scenario or a one-line ConfigError.
#include <string>

#include "emutrace/config.h"
#include "emutrace/config_error.h"
#include "emutrace/registry.h"
#include "session/scenario.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    static const emutrace::AnalysisRegistry registry = emutrace::AnalysisRegistry::builtin();
    try {
        auto root = emutrace::config::Node::load_string(std::string(reinterpret_cast<const char*>(data), size), "fuzz.yaml");
        (void)emutrace::session::load_scenario(root, registry);
    } catch (const emutrace::ConfigError& e) {
        if (std::string(e.what()).find('\n') != std::string::npos) __builtin_trap();  // errors are one line
    }
    return 0;
}
