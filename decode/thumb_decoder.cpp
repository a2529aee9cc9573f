#include "decode/thumb_decoder.h"

#include <capstone/capstone.h>

#include <stdexcept>

namespace emutrace::decode {
namespace {

// ARMv6-M keeps only these 32-bit encodings (ARMv6-M ARM, A5.3).
bool allowed_on_v6m(unsigned id) {
    switch (id) {
        case ARM_INS_BL: case ARM_INS_MSR: case ARM_INS_MRS:
        case ARM_INS_DMB: case ARM_INS_DSB: case ARM_INS_ISB: case ARM_INS_UDF:
            return true;
        default:
            return false;
    }
}

std::uint8_t isa_of(const cs_insn& insn) {
    std::uint8_t isa = 0;
    if ((insn.size == 4 && !allowed_on_v6m(insn.id)) || insn.id == ARM_INS_IT || insn.id == ARM_INS_CBZ ||
        insn.id == ARM_INS_CBNZ)
        isa |= IsaThumb2;
    for (std::uint8_t i = 0; i < insn.detail->groups_count; ++i) {
        switch (insn.detail->groups[i]) {
            case ARM_GRP_DIVIDE: isa |= IsaDivide; break;
            case ARM_GRP_THUMB2DSP: isa |= IsaDsp; break;
            case ARM_GRP_VFP2: case ARM_GRP_VFP3: case ARM_GRP_VFP4: case ARM_GRP_FPARMV8: isa |= IsaFpSingle; break;
            case ARM_GRP_DPVFP: case ARM_GRP_NEON: isa |= IsaFpDouble; break;
            default: break;
        }
    }
    return isa;
}

}  // namespace

struct ThumbDecoder::Impl {
    csh handle = 0;
};

ThumbDecoder::ThumbDecoder() : impl_(std::make_unique<Impl>()) {
    if (cs_open(CS_ARCH_ARM, static_cast<cs_mode>(CS_MODE_THUMB | CS_MODE_MCLASS), &impl_->handle) != CS_ERR_OK)
        throw std::runtime_error("Capstone cannot open an ARM Thumb M-class decoder");
    cs_option(impl_->handle, CS_OPT_DETAIL, CS_OPT_ON);
}

ThumbDecoder::~ThumbDecoder() { cs_close(&impl_->handle); }

std::vector<Instruction> ThumbDecoder::decode(std::span<const std::uint8_t> code, std::uint32_t address) const {
    std::vector<Instruction> out;
    cs_insn* insns = nullptr;
    std::size_t n = cs_disasm(impl_->handle, code.data(), code.size(), address, 0, &insns);
    out.reserve(n);
    for (std::size_t i = 0; i < n; ++i) {
        const cs_insn& c = insns[i];
        Instruction ins;
        ins.address = static_cast<std::uint32_t>(c.address);
        ins.size = static_cast<std::uint8_t>(c.size);
        ins.id = c.id;
        ins.isa = isa_of(c);
        ins.text = std::string(c.mnemonic) + (c.op_str[0] ? " " : "") + c.op_str;
        out.push_back(std::move(ins));
    }
    cs_free(insns, n);
    return out;
}

Instruction ThumbDecoder::decode_one(std::span<const std::uint8_t> code, std::uint32_t address) const {
    std::size_t limit = code.size() >= 4 ? 4 : code.size();
    auto v = decode(code.first(limit), address);
    if (!v.empty() && v.front().address == address) return v.front();
    Instruction bad;
    bad.address = address;
    bad.text = "(undecodable)";
    return bad;
}

}  // namespace emutrace::decode
