// libFuzzer target: arbitrary bytes as a compact trace file (emutrace run --trace).
#include "analysis/calltrace/compact_trace.h"
#include "emutrace/config_error.h"
#include "fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    try {
        (void)emutrace::analysis::read_compact_trace(emutrace::fuzz::as_file(data, size, ".trace"));
    } catch (const emutrace::ConfigError&) {}
    return 0;
}
