#include <doctest/doctest.h>

#include <vector>

#include "decode/instruction_decoder.h"

using namespace emutrace::decode;

TEST_CASE("thumb: instruction size from the first halfword") {
    CHECK(thumb_instruction_size(0xbf00) == 2);  // nop
    CHECK(thumb_instruction_size(0xf04f) == 4);  // mov.w
    CHECK(thumb_instruction_size(0xe7fe) == 2);  // b .
    CHECK(thumb_instruction_size(0xe800) == 4);  // 0b11101 prefix: 32-bit
}

TEST_CASE("thumb: decoding marks the features beyond ARMv6-M") {
    InstructionDecoder d;
    std::vector<std::uint8_t> code{
        0x00, 0xbf,              // nop
        0x90, 0xfb, 0xf1, 0xf0,  // sdiv r0, r0, r1
        0x90, 0xfa, 0x00, 0xf0,  // sadd8 r0, r0, r0
        0x30, 0xee, 0x00, 0x0a,  // vadd.f32 s0, s0, s0
        0xff, 0xf7, 0xfe, 0xff,  // bl .
    };
    auto insns = d.decode(code, 0x1000);
    REQUIRE(insns.size() == 5);
    CHECK(insns[0].isa == 0);
    CHECK(insns[1].text == "sdiv r0, r0, r1");
    CHECK((insns[1].isa & IsaDivide));
    CHECK((insns[2].isa & IsaDsp));
    CHECK((insns[3].isa & IsaFpSingle));
    CHECK(insns[4].isa == 0);  // BL is one of ARMv6-M's 32-bit instructions
    CHECK(d.decode_one(std::span(code).subspan(2), 0x1002).size == 4);
}

TEST_CASE("thumb: memory operands evaluate to the address the instruction touches") {
    InstructionDecoder d;
    std::vector<std::uint8_t> code{
        0x1b, 0x68,              // ldr r3, [r3]
        0x08, 0x5c,              // ldrb r0, [r1, r0]
        0x10, 0xb5,              // push {r4, lr}
        0x03, 0x48,              // ldr r0, [pc, #12]
        0xd1, 0xe9, 0x02, 0x23,  // ldrd r2, r3, [r1, #8]
    };
    auto insns = d.decode(code, 0x100);
    REQUIRE(insns.size() == 5);
    std::uint32_t regs[16] = {0x10, 0x2000, 0, 0x60000000};
    regs[13] = 0x20001000;
    auto reg = [&](int r) { return regs[r]; };
    CHECK(effective_address(insns[0].memory, insns[0].address, reg) == 0x60000000u);
    CHECK(effective_address(insns[1].memory, insns[1].address, reg) == 0x2010u);
    CHECK(insns[1].memory.bytes == 1);
    CHECK(effective_address(insns[2].memory, insns[2].address, reg) == 0x20000ff8u);  // two words below SP
    CHECK(insns[2].memory.bytes == 8);
    CHECK(effective_address(insns[3].memory, insns[3].address, reg) == ((0x106u + 4) & ~3u) + 12);
    CHECK(effective_address(insns[4].memory, insns[4].address, reg) == 0x2008u);
    CHECK(insns[4].memory.bytes == 8);
}
