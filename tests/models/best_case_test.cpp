// The sampler's bound (models/best_case.h): hand-derived on single instructions, and on every block
// of real compiled code no more than the per-block model's best case, the same blocks' floor.
#include <doctest/doctest.h>

#include <algorithm>
#include <initializer_list>
#include <vector>

#include "decode/elf_image.h"
#include "decode/instruction_decoder.h"
#include "models/best_case.h"
#include "models/core.h"
#include "models/timing_model.h"
#include "support/paths.h"
#include "support/programs.h"

using namespace emutrace;

namespace {

std::vector<decode::Instruction> decoded(std::initializer_list<std::uint16_t> halfwords) {
    std::vector<std::uint8_t> bytes;
    for (std::uint16_t h : halfwords) {
        bytes.push_back(static_cast<std::uint8_t>(h));
        bytes.push_back(static_cast<std::uint8_t>(h >> 8));
    }
    return decode::InstructionDecoder().decode(bytes, 0x1000);
}

std::uint64_t bound(models::CoreKind core, const std::vector<decode::Instruction>& insns) {
    std::vector<models::ClassifiedInstruction> classified;
    for (const auto& i : insns) classified.push_back(models::classify(i));
    return models::best_case_cycles(classified, models::core_spec(core).pipeline);
}

constexpr auto M3 = models::CoreKind::CortexM3;

}  // namespace

TEST_CASE("best case: each instruction's fewest execute cycles") {
    CHECK(bound(M3, decoded({0x3001, 0x3001})) == 2);  // adds r0, #1 twice: one cycle each
    CHECK(bound(M3, decoded({0xC81E})) == 4);          // ldmia r0!, {r1-r4}: an address phase a register
    CHECK(bound(M3, decoded({0x6808, 0x6849})) == 2);  // ldr r0, [r1]; ldr r1, [r1, #4]: pipelined, one each
    CHECK(bound(M3, decoded({0xFBB1, 0xF0F2})) == 2);  // udiv r0, r1, r2: its fastest operands
    // it eq; addeq r0, #1: the IT folds; its member may be skipped, and then takes one cycle.
    CHECK(bound(M3, decoded({0xBF08, 0x3001})) == 1);
    // it eq; ldmeq r0!, {r1-r4}: skipped, an LDM is one cycle too.
    CHECK(bound(M3, decoded({0xBF08, 0xC81E})) == 1);
    CHECK(bound(M3, decoded({0x3001, 0xE7FD})) == 2);  // adds; b.n: a branch without its refill
    // The M0 folds no IT.
    CHECK(bound(models::CoreKind::CortexM0, decoded({0x3001})) == 1);
}

TEST_CASE("best case: on every block of compiled code, at most the per-block model's cheapest outcome") {
    for (const char* elf : {"kernels", "libcalls", "rtos"}) {
        CAPTURE(elf);
        const decode::ElfImage image = decode::ElfImage::load(test::firmware(elf));
        const decode::Program& program = test::program_of(elf);
        std::size_t blocks = 0, tighter = 0;
        for (models::CoreKind core : {models::CoreKind::CortexM3, models::CoreKind::CortexM4}) {
            models::TimingModel trm(core);
            for (const decode::Function& f : program.functions())
                for (const decode::BasicBlock& b : f.blocks) {
                    std::vector<decode::Instruction> insns = decode::InstructionDecoder().decode(image.bytes_at(b.start, b.end - b.start), b.start);
                    if (insns.empty()) continue;
                    const models::BlockTiming t = trm.block(insns);
                    const std::int64_t cheapest = static_cast<std::int64_t>(t.cycles) + std::min<std::int64_t>(0, t.taken_extra);
                    const auto b_cycles = static_cast<std::int64_t>(bound(core, insns));
                    CAPTURE(b.start);
                    CHECK(b_cycles <= cheapest);
                    ++blocks;
                    tighter += b_cycles < cheapest;
                }
        }
        CHECK(blocks > 100);
        CHECK(tighter > 0);  // the bound gives up something, where the model charges a refill or a stall
    }
}
