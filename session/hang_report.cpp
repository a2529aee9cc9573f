#include "session/hang_report.h"

#include "decode/elf_image.h"
#include "decode/program.h"
#include "decode/source_lines.h"

namespace emutrace::session {

std::string hang_context(const decode::ElfImage& image, const decode::Program& program, std::uint32_t pc) {
    std::string out;
    decode::SourceLines lines(image.path());
    if (auto line = lines.at(pc)) out += "; source " + *line;
    const decode::Symbol* symbol = image.symbols().function_at(pc);
    const decode::Function* f = symbol ? program.function(symbol->name) : nullptr;
    if (!f) return out;
    // A function that can also return entered its for(;;) on one path only: a check that failed.
    // One with no way out (main's final loop, a default handler) hangs by design.
    const int at = f->block_at(pc);
    bool returns_elsewhere = false;
    for (std::size_t i = 0; i < f->blocks.size(); ++i)
        returns_elsewhere |= static_cast<int>(i) != at && f->blocks[i].exit == decode::BlockExit::Return;
    if (returns_elsewhere)
        out += "; it looks like a failed assert: " + f->name +
               " returns on its other paths and enters this for(;;) only when a check before it failed (configASSERT, assert(), an error "
               "trap): see the condition before that line";
    return out;
}

}  // namespace emutrace::session
