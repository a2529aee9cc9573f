// libFuzzer target: arbitrary bytes as a replay log (emutrace replay LOG).
#include <vector>

#include "analysis/replay/event_log.h"
#include "emutrace/config_error.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    try {
        (void)emutrace::analysis::replay::EventLog::decode(std::vector<std::uint8_t>(data, data + size), "fuzz.log");
    } catch (const emutrace::ConfigError&) {}
    return 0;
}
