#include <doctest/doctest.h>

#include <string>
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

TEST_CASE("thumb: which writes of SP may leave it unaligned (ARMv7-M clears bits 1:0, Unicorn keeps them)") {
    InstructionDecoder d;
    struct Case {
        std::vector<std::uint8_t> bytes;
        const char* text;
        bool may_misalign;
    };
    const std::vector<Case> cases{
        {{0xbd, 0x46}, "mov sp, r7", true},
        {{0xbd, 0x44}, "add sp, r7", true},
        {{0x02, 0xb0}, "add sp, #8", false},
        {{0x82, 0xb0}, "sub sp, #8", false},
        {{0x80, 0xb5}, "push {r7, lr}", false},
        {{0x80, 0xbd}, "pop {r7, pc}", false},
        {{0x0d, 0xf1, 0x01, 0x0d}, "add.w sp, sp, #1", true},
        {{0xad, 0xf5, 0x80, 0x6d}, "sub.w sp, sp, #0x400", false},
        {{0x0d, 0xf2, 0x06, 0x0d}, "addw sp, sp, #6", true},
        {{0xd0, 0xf8, 0x00, 0xd0}, "ldr.w sp, [r0]", true},
        {{0x5d, 0xf8, 0x04, 0x7b}, "ldr r7, [sp], #4", false},
        {{0x4d, 0xf8, 0x04, 0x7d}, "str r7, [sp, #-4]!", false},
        {{0x80, 0xf3, 0x08, 0x88}, "msr msp, r0", true},
        {{0x80, 0xf3, 0x11, 0x88}, "msr basepri, r0", false},
        {{0x02, 0xaf}, "add r7, sp, #8", false},
        {{0x4f, 0xea, 0x00, 0x0d}, "mov.w sp, r0", true},
        {{0xad, 0xeb, 0x03, 0x0d}, "sub.w sp, sp, r3", true},
        {{0x2d, 0xed, 0x02, 0x8b}, "vpush {d8}", false},
        {{0xfd, 0xe8, 0x02, 0x01}, "ldrd r0, r1, [sp], #8", false},
    };
    for (const auto& c : cases) {
        CAPTURE(std::string(c.text));
        auto insns = d.decode(c.bytes, 0x1000);
        REQUIRE(insns.size() == 1);
        CHECK(insns[0].may_misalign_sp == c.may_misalign);
    }
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
