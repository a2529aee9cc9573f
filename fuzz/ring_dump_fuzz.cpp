// libFuzzer target: arbitrary bytes as a board's memory dump holding the on-target tracer's ring
// (emutrace ringdump DUMP --elf franking_traced.elf): the dump's format (ELF core, Intel HEX, raw
// at 0x20000000), the ring's header and every record, decoded into the event model and run
// through the call tracer, must end in events or in a ConfigError, never a crash or a hang.
#include <cstdlib>
#include <memory>

#include "analysis/calltrace/call_tracer.h"
#include "decode/elf_image.h"
#include "emutrace/config_error.h"
#include "fuzz/fuzz_input.h"
#include "sources/ring/ring_trace.h"

namespace {

// The traced firmware, built beside the fuzzer (FUZZ_RING_ELF overrides it).
const emutrace::decode::ElfImage& traced_firmware() {
    static const auto image = [] {
        const char* path = std::getenv("FUZZ_RING_ELF");
        return std::make_unique<emutrace::decode::ElfImage>(emutrace::decode::ElfImage::load(path ? path : EMUTRACE_RING_ELF));
    }();
    return *image;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const emutrace::decode::ElfImage& elf = traced_firmware();
    try {
        emutrace::decode::RingTrace ring(emutrace::fuzz::as_file(data, size, ".dump"), 0x20000000u, elf, {16, 16});
        emutrace::analysis::CallTracer tracer(elf);
        ring.add_sink(tracer);
        (void)ring.deliver();
    } catch (const emutrace::ConfigError&) {}
    return 0;
}
