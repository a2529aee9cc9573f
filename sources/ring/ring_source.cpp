// The on-target ring's registry row: `emutrace decode ring DUMP --elf ELF` and `emutrace ringdump`.
#include "decode/in_tree_setup.h"
#include "decode/memory_dump.h"
#include "sources/registry.h"
#include "sources/ring/ring_trace.h"

namespace emutrace::sources {

SourceType ring_source() {
    SourceType t;
    t.name = "ring";
    t.summary = "the on-target tracer's RAM ring (firmware/ontarget) in a device's memory dump";
    t.input = "a memory dump: an ELF core, Intel HEX or raw binary (with --dump-base)";
    t.needs_firmware = true;
    t.options = {{"dump-base", "ADDRESS", "Address of a raw binary dump's first byte, e.g. 0x20000000"}};
    t.open = [](const AnalysisSetup& setup, const std::string& input) -> std::unique_ptr<trace::RecordedSource> {
        const InTreeSetup& tree = in_tree(setup);
        return std::make_unique<decode::RingTrace>(input, decode::parse_dump_base(setup.flag("dump-base").value_or("")), tree.image(),
                                                   tree.thread_names());
    };
    return t;
}

}  // namespace emutrace::sources
