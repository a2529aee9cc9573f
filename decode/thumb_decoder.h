#pragma once
// Decodes M-profile Thumb code with Capstone. Used when a block is first seen (never per
// executed instruction) and for fault reports.

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace emutrace::decode {

/// Architecture features an instruction needs beyond ARMv6-M (bit mask).
enum IsaFeature : std::uint8_t {
    IsaThumb2 = 1u << 0,    ///< a Thumb-2 (ARMv7-M) instruction: 32-bit encodings, IT, CBZ
    IsaDivide = 1u << 1,    ///< SDIV/UDIV
    IsaDsp = 1u << 2,       ///< ARMv7E-M DSP extension (SIMD, saturating, SMLAxy, ...)
    IsaFpSingle = 1u << 3,  ///< single-precision FPU (FPv4-SP)
    IsaFpDouble = 1u << 4,  ///< double-precision FPU, on no core emutrace models
};

struct Instruction {
    std::uint32_t address = 0;
    std::uint8_t size = 0;       ///< 2 or 4 bytes
    std::uint8_t isa = 0;        ///< IsaFeature bits
    unsigned id = 0;             ///< Capstone instruction id (ARM_INS_*)
    std::string text;            ///< "ldr r0, [r2]"
};

class ThumbDecoder {
public:
    ThumbDecoder();
    ~ThumbDecoder();
    ThumbDecoder(const ThumbDecoder&) = delete;
    ThumbDecoder& operator=(const ThumbDecoder&) = delete;

    /// Decodes as many instructions of `code` (placed at `address`) as are valid, in order.
    std::vector<Instruction> decode(std::span<const std::uint8_t> code, std::uint32_t address) const;
    /// One instruction, or an Instruction with size 0 and text "(undecodable)".
    Instruction decode_one(std::span<const std::uint8_t> code, std::uint32_t address) const;

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

/// Bytes of the Thumb instruction whose first halfword is `hw1`: 4 for 32-bit encodings.
constexpr unsigned thumb_instruction_size(std::uint16_t hw1) {
    return ((hw1 >> 11) == 0x1D || (hw1 >> 11) == 0x1E || (hw1 >> 11) == 0x1F) ? 4 : 2;
}

}  // namespace emutrace::decode
