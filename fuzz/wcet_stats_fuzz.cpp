// libFuzzer target: arbitrary bytes as WCET statistics (wcet --stats-in).
#include "analysis/wcet/block_statistics.h"
#include "emutrace/config_error.h"
#include "fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    try {
        (void)emutrace::analysis::wcet::StatisticsTable::load(emutrace::fuzz::as_file(data, size, ".json"));
    } catch (const emutrace::ConfigError&) {}
    return 0;
}
