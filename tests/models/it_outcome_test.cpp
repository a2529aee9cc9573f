// Which IT blocks the per-block feed need not hook (models::it_outcome_changes_timing): those whose
// members' passing or failing the pipeline cannot see. The emu timing test checks the consequence on
// compiled code (facts per block against facts per instruction); this checks the rule's edges.
#include <doctest/doctest.h>

#include <initializer_list>
#include <vector>

#include "decode/instruction_decoder.h"
#include "models/core.h"
#include "models/pipeline/pipeline.h"

using namespace emutrace;

namespace {

// The IT at the start of `halfwords`, its members and the instruction after them.
bool changes_timing(std::initializer_list<std::uint16_t> halfwords) {
    std::vector<std::uint8_t> bytes;
    for (std::uint16_t h : halfwords) bytes.push_back(static_cast<std::uint8_t>(h)), bytes.push_back(static_cast<std::uint8_t>(h >> 8));
    std::vector<models::ClassifiedInstruction> c;
    for (const auto& i : decode::InstructionDecoder().decode(bytes, 0x1000)) c.push_back(models::classify(i));
    REQUIRE(!c.empty());
    REQUIRE(c[0].kind == models::InstructionClass::It);
    std::vector<const models::ClassifiedInstruction*> members;
    for (unsigned k = 1; k <= c[0].it_length && k < c.size(); ++k) members.push_back(&c[k]);
    const models::ClassifiedInstruction* after = c.size() > c[0].it_length + 1u ? &c[c[0].it_length + 1] : nullptr;
    return models::it_outcome_changes_timing(members, after, models::core_spec(models::CoreKind::CortexM3).pipeline);
}

}  // namespace

TEST_CASE("it outcome: one-cycle moves whose results no address needs next run alike whichever pass") {
    CHECK_FALSE(changes_timing({0xBF0C, 0x2001, 0x2000, 0x4770}));  // ite eq; moveq r0,#1; movne r0,#0; bx lr
    CHECK_FALSE(changes_timing({0xBF18, 0x3201, 0x6819}));          // it ne; addne r2,#1; ldr r1,[r3] (r2 is not its address)
}

TEST_CASE("it outcome: a member that loads, branches or takes more cycles, or a next address from a member's result, is seen") {
    CHECK(changes_timing({0xBF18, 0x6808, 0x4770}));          // it ne; ldrne r0,[r1]: a transfer only if it runs
    CHECK(changes_timing({0xBF08, 0x4770, 0x2000}));          // it eq; bxeq lr: a branch only if it runs
    CHECK(changes_timing({0xBF18, 0xFB91, 0xF0F2, 0x4770}));  // it ne; sdivne r0,r1,r2: cycles only if it runs
    CHECK(changes_timing({0xBF18, 0x3301, 0x6819}));          // it ne; addne r3,#1; ldr r1,[r3]: the AGU waits only if it ran
    CHECK(changes_timing({0xBF18, 0x3301}));                  // the instruction after is not known
}
