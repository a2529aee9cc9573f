// The fetch starved by loads on its port, against the STM32F100 measurements it was built from
// (shared/silicon memory/ldm_narrow, code and data in flash, less the same code with data in SRAM).
// Each block is the measured one: the DWT read, add.w, the loads, add.w, the DWT read, blx, with
// the cycles the timing model counts for each.

#include <doctest/doctest.h>

#include <vector>

#include "models/fetch_port.h"

using emutrace::models::fetch_starvation;
using emutrace::models::PortInstruction;

namespace {

// ldr.w r2,[r0,r1]; add.w; then `body`; add.w; ldr.w r3,[r0,r1]; blx r9 from `at`, behind an ISB.
std::vector<PortInstruction> measured(std::uint32_t at, const std::vector<PortInstruction>& body) {
    std::vector<PortInstruction> b{{at, 4, 2, 1}, {at + 4, 4, 1, 0}};
    std::uint32_t next = at + 8;
    for (PortInstruction i : body) {
        i.address = next;
        next += i.size;
        b.push_back(i);
    }
    b.push_back({next, 4, 1, 0});
    b.push_back({next + 4, 4, 2, 1});
    b.push_back({next + 8, 2, 3, 0});
    return b;
}

const PortInstruction kLdr{0, 2, 2, 1};                  // ldr r5, [r5]: behind no load
const PortInstruction kLdrPipelined{0, 2, 1, 1, false, true};  // ldr r6, [r6] behind it
const PortInstruction kLdm{0, 2, 2, 1};                  // ldmia r7, {r7}

// Bits of the body's instructions (from 2: the DWT read and add.w come first).
std::uint64_t body_bits(unsigned count) { return ((std::uint64_t{1} << count) - 1) << 2; }

}  // namespace

TEST_CASE("fetch port: pipelined narrow loads from flash starve the fetch from the third on (ldm_narrow 16-23)") {
    const std::uint32_t at[] = {0x08000a0c, 0x08000a2c, 0x08000a4c, 0x08000a6c, 0x08000a94, 0x08000abc, 0x08000ae4, 0x08000b0c};
    for (unsigned loads = 1; loads <= 8; ++loads) {
        std::vector<PortInstruction> body{kLdr};
        for (unsigned i = 1; i < loads; ++i) body.push_back(kLdrPipelined);
        auto block = measured(at[loads - 1], body);
        auto lost = fetch_starvation(block, body_bits(loads), true);
        CAPTURE(loads);
        CHECK(lost.cycles == (loads - 1) / 2);  // measured: 0 0 1 1 2 2 3 3
        CHECK(lost.lsu == (loads >= 7 ? 1u : 0u));  // LSUCNT: the pipelined load the fetch holds up
        CHECK(fetch_starvation(block, 0, true).cycles == 0);  // the same loads from SRAM
    }
}

TEST_CASE("fetch port: behind an LDM, a pipelined pair straddling a word starves the fetch; one in a word does not") {
    // ldm_narrow 106: ldmia r7,{r7}; ldr r5; ldr r6 at 0x764: 1 cycle.
    auto straddling = measured(0x0800175c, {kLdm, kLdr, kLdrPipelined});
    CHECK(fetch_starvation(straddling, body_bits(3), true).cycles == 1);
    // ldm_narrow 99: ldr r6; ldmia r7,{r7}; ldr r5; ldr r6 at 0x654, the pair in one word: none.
    auto in_word = measured(0x0800164c, {kLdr, kLdm, kLdr, kLdrPipelined});
    CHECK(fetch_starvation(in_word, body_bits(4), true).cycles == 0);
}

TEST_CASE("fetch port: a load that does not read the port starves nothing, and the queue of a block fallen into is full") {
    auto block = measured(0x08000a94, {kLdr, kLdrPipelined, kLdrPipelined, kLdrPipelined, kLdrPipelined});
    CHECK(fetch_starvation(block, 0, true).cycles == 0);
    CHECK(fetch_starvation(block, body_bits(5), true).cycles == 2);
    CHECK(fetch_starvation(block, body_bits(5), false).cycles <= 2);
    CHECK(fetch_starvation({}, body_bits(5), true).cycles == 0);
}
