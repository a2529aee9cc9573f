#pragma once
// What a user needs to read a hang: where in the source the branch-to-self is, and whether it
// looks like a failed assert (configASSERT and the like: a for(;;) a function enters only when a
// check fails), which is the commonest hang in a firmware the emulator runs for the first time.
#include <cstdint>
#include <string>

namespace emutrace::decode {
class ElfImage;
class Program;
}  // namespace emutrace::decode

namespace emutrace::session {

/// "; source port.c:312, in xPortStartScheduler; it looks like a failed assert: ..." for the
/// branch-to-self at `pc`; the parts not known (no DWARF, no function) are left out.
std::string hang_context(const decode::ElfImage& image, const decode::Program& program, std::uint32_t pc);

}  // namespace emutrace::session
