#include <doctest/doctest.h>

#include <vector>

#include "decode/thumb_decoder.h"

using namespace emutrace::decode;

TEST_CASE("thumb: instruction size from the first halfword") {
    CHECK(thumb_instruction_size(0xbf00) == 2);  // nop
    CHECK(thumb_instruction_size(0xf04f) == 4);  // mov.w
    CHECK(thumb_instruction_size(0xe7fe) == 2);  // b .
    CHECK(thumb_instruction_size(0xe800) == 4);  // 0b11101 prefix: 32-bit
}

TEST_CASE("thumb: decoding marks the features beyond ARMv6-M") {
    ThumbDecoder d;
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
