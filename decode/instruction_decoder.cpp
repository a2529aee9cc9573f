#include "decode/instruction_decoder.h"

#include <capstone/capstone.h>

#include <algorithm>
#include <stdexcept>

namespace emutrace::decode {
namespace {

// ARMv6-M keeps only these 32-bit encodings (ARMv6-M ARM, A5.3).
bool allowed_on_v6m(unsigned id) {
    switch (id) {
        case ARM_INS_BL:
        case ARM_INS_MSR:
        case ARM_INS_MRS:
        case ARM_INS_DMB:
        case ARM_INS_DSB:
        case ARM_INS_ISB:
        case ARM_INS_UDF: return true;
        default: return false;
    }
}

std::uint8_t isa_of(const cs_insn& insn) {
    std::uint8_t isa = 0;
    if ((insn.size == 4 && !allowed_on_v6m(insn.id)) || insn.id == ARM_INS_IT || insn.id == ARM_INS_CBZ || insn.id == ARM_INS_CBNZ) isa |= IsaThumb2;
    for (std::uint8_t i = 0; i < insn.detail->groups_count; ++i) {
        switch (insn.detail->groups[i]) {
            case ARM_GRP_DIVIDE: isa |= IsaDivide; break;
            case ARM_GRP_THUMB2DSP: isa |= IsaDsp; break;
            case ARM_GRP_VFP2:
            case ARM_GRP_VFP3:
            case ARM_GRP_VFP4:
            case ARM_GRP_FPARMV8: isa |= IsaFpSingle; break;
            case ARM_GRP_DPVFP:
            case ARM_GRP_NEON: isa |= IsaFpDouble; break;
            default: break;
        }
    }
    return isa;
}

int register_number(unsigned reg) {
    if (reg >= ARM_REG_R0 && reg <= ARM_REG_R12) return static_cast<int>(reg - ARM_REG_R0);
    if (reg == ARM_REG_SP) return 13;
    if (reg == ARM_REG_LR) return 14;
    if (reg == ARM_REG_PC) return 15;
    return -1;
}

std::uint8_t single_access_bytes(unsigned id) {
    switch (id) {
        case ARM_INS_LDRB:
        case ARM_INS_STRB:
        case ARM_INS_LDRSB:
        case ARM_INS_LDRBT:
        case ARM_INS_STRBT:
        case ARM_INS_LDREXB:
        case ARM_INS_STREXB:
        case ARM_INS_TBB: return 1;
        case ARM_INS_LDRH:
        case ARM_INS_STRH:
        case ARM_INS_LDRSH:
        case ARM_INS_LDRHT:
        case ARM_INS_STRHT:
        case ARM_INS_LDREXH:
        case ARM_INS_STREXH:
        case ARM_INS_TBH: return 2;
        case ARM_INS_LDRD:
        case ARM_INS_STRD: return 8;
        default: return 4;
    }
}

MemoryAccess memory_of(const cs_insn& insn) {
    const cs_arm& arm = insn.detail->arm;
    MemoryAccess m;
    switch (insn.id) {
        case ARM_INS_PUSH:
        case ARM_INS_POP:
            m.mode = insn.id == ARM_INS_PUSH ? MemoryAccess::Mode::DecrementBefore : MemoryAccess::Mode::IncrementAfter;
            m.base = 13;
            m.bytes = static_cast<std::uint8_t>(4 * arm.op_count);
            return m;
        case ARM_INS_LDM:
        case ARM_INS_STM:
        case ARM_INS_LDMDB:
        case ARM_INS_STMDB:
            if (arm.op_count < 2 || arm.operands[0].type != ARM_OP_REG) return m;
            m.mode =
                (insn.id == ARM_INS_LDMDB || insn.id == ARM_INS_STMDB) ? MemoryAccess::Mode::DecrementBefore : MemoryAccess::Mode::IncrementAfter;
            m.base = static_cast<std::int8_t>(register_number(arm.operands[0].reg));
            m.bytes = static_cast<std::uint8_t>(4 * (arm.op_count - 1));
            return m;
        default: break;
    }
    for (std::uint8_t i = 0; i < arm.op_count; ++i) {
        const cs_arm_op& op = arm.operands[i];
        if (op.type != ARM_OP_MEM) continue;
        m.mode = MemoryAccess::Mode::Offset;
        m.base = static_cast<std::int8_t>(register_number(op.mem.base));
        m.index = static_cast<std::int8_t>(op.mem.index == ARM_REG_INVALID ? -1 : register_number(op.mem.index));
        m.subtract = op.subtracted || op.mem.scale < 0;
        // Thumb encodings report the index shift in mem.lshift, ARM ones as the operand's shift.
        if (op.mem.lshift > 0)
            m.shift = static_cast<std::uint8_t>(op.mem.lshift);
        else if (op.shift.type == ARM_SFT_LSL)
            m.shift = static_cast<std::uint8_t>(op.shift.value);
        m.disp = op.mem.disp;
        m.bytes = single_access_bytes(insn.id);
        if (m.base < 0) m.mode = MemoryAccess::Mode::None;
        break;
    }
    return m;
}

bool is_jump(const cs_insn& insn) {
    for (std::uint8_t i = 0; i < insn.detail->groups_count; ++i)
        if (insn.detail->groups[i] == ARM_GRP_JUMP || insn.detail->groups[i] == ARM_GRP_CALL) return true;
    return false;
}

// Instruction::may_misalign_sp, with the rest of `ins` filled in.
bool may_misalign_sp(const cs_insn& c, const Instruction& ins) {
    constexpr std::uint16_t kSp = 1u << 13;
    const cs_arm& arm = c.detail->arm;
    if (c.id == ARM_INS_MSR)
        return arm.op_count > 0 && arm.operands[0].type == ARM_OP_SYSREG &&
               (arm.operands[0].reg == ARM_SYSREG_MSP || arm.operands[0].reg == ARM_SYSREG_PSP);
    if (!(ins.writes & kSp)) return false;
    using Mode = MemoryAccess::Mode;
    if (ins.memory.mode == Mode::IncrementAfter || ins.memory.mode == Mode::DecrementBefore) return false;  // 4 bytes a register
    if (ins.memory.mode != Mode::None) {
        if (ins.first_register == 13) return true;                        // a load into SP
        if (ins.memory.base != 13 || ins.memory.index >= 0) return true;  // its base written back: SP plus an offset
    } else if (ins.reads != kSp) {
        return true;  // from another register
    }
    for (std::uint8_t k = 0; k < arm.op_count; ++k) {
        const cs_arm_op& op = arm.operands[k];
        if (op.type == ARM_OP_IMM && op.imm % 4) return true;
        if (op.type == ARM_OP_MEM && op.mem.disp % 4) return true;
    }
    return false;  // SP plus or minus multiples of 4
}

// The project's Instruction of Capstone's (decoded with its detail by `handle`).
Instruction convert(csh handle, const cs_insn& c) {
    Instruction ins;
    ins.address = static_cast<std::uint32_t>(c.address);
    ins.size = static_cast<std::uint8_t>(c.size);
    ins.id = c.id;
    ins.isa = isa_of(c);
    ins.text = std::string(c.mnemonic) + (c.op_str[0] ? " " : "") + c.op_str;
    ins.memory = memory_of(c);
    ins.is_jump = is_jump(c);
    ins.conditional = c.detail->arm.cc != ARM_CC_AL && c.detail->arm.cc != ARM_CC_INVALID;
    ins.sets_flags =
        c.detail->arm.update_flags || c.id == ARM_INS_CMP || c.id == ARM_INS_CMN || c.id == ARM_INS_TST || c.id == ARM_INS_TEQ || c.id == ARM_INS_MSR;
    cs_regs read{}, written{};
    std::uint8_t n_read = 0, n_written = 0;
    if (cs_regs_access(handle, &c, read, &n_read, written, &n_written) == CS_ERR_OK) {
        for (std::uint8_t r = 0; r < n_read; ++r)
            if (int k = register_number(read[r]); k >= 0) ins.reads |= static_cast<std::uint16_t>(1u << k);
        for (std::uint8_t r = 0; r < n_written; ++r)
            if (int k = register_number(written[r]); k >= 0) ins.writes |= static_cast<std::uint16_t>(1u << k);
    }
    // Capstone lists no registers read for ARM-state BX/BLX rN: the operand is.
    if ((c.id == ARM_INS_BX || c.id == ARM_INS_BLX) && c.detail->arm.op_count == 1 && c.detail->arm.operands[0].type == ARM_OP_REG)
        if (int k = register_number(c.detail->arm.operands[0].reg); k >= 0) ins.reads |= static_cast<std::uint16_t>(1u << k);
    if (c.detail->arm.op_count > 0 && c.detail->arm.operands[0].type == ARM_OP_REG)
        ins.first_register = static_cast<std::int8_t>(register_number(c.detail->arm.operands[0].reg));
    if ((c.id == ARM_INS_MLA || c.id == ARM_INS_MLS) && c.detail->arm.op_count == 4) {
        const cs_arm_op* op = c.detail->arm.operands;
        ins.accumulator = static_cast<std::int8_t>(register_number(op[3].reg));
        for (int k : {register_number(op[1].reg), register_number(op[2].reg)})
            if (k >= 0) ins.multiplicands |= static_cast<std::uint16_t>(1u << k);
    }
    ins.writes_pc = ins.is_jump || (ins.writes & 0x8000);
    ins.may_misalign_sp = may_misalign_sp(c, ins);
    if (ins.is_jump)
        for (std::uint8_t k = 0; k < c.detail->arm.op_count; ++k)
            if (c.detail->arm.operands[k].type == ARM_OP_IMM) ins.target = static_cast<std::uint32_t>(c.detail->arm.operands[k].imm);
    return ins;
}

}  // namespace

ControlFlow control_flow(const Instruction& insn) {
    constexpr std::uint16_t kLr = 1u << 14, kPc = 1u << 15;
    if (insn.id == ARM_INS_BL || insn.id == ARM_INS_BLX) return ControlFlow::Call;
    if ((insn.id == ARM_INS_BX && (insn.reads & kLr)) || ((insn.writes & kPc) && insn.memory.mode != MemoryAccess::Mode::None) ||
        (insn.id == ARM_INS_MOV && (insn.writes & kPc) && (insn.reads & kLr)))
        return ControlFlow::Return;
    if (insn.id == ARM_INS_B || insn.id == ARM_INS_BX) return ControlFlow::Jump;
    return ControlFlow::None;
}

bool is_conditional_branch(const Instruction& insn) {
    return (insn.id == ARM_INS_B && insn.conditional) || insn.id == ARM_INS_CBZ || insn.id == ARM_INS_CBNZ;
}

unsigned it_block_length(const Instruction& insn) {
    if (insn.id != ARM_INS_IT) return 0;
    // The mnemonic spells it: "it", "itt", "ite", ... "itete": one t or e per instruction.
    std::size_t mnemonic = insn.text.find(' ');
    if (mnemonic == std::string::npos) mnemonic = insn.text.size();
    return mnemonic > 1 ? static_cast<unsigned>(std::min<std::size_t>(mnemonic - 1, 4)) : 1;
}

trace::BlockEnd waypoint(const Instruction& insn) {
    constexpr std::uint16_t kPc = 1u << 15;
    switch (insn.id) {
        case ARM_INS_B:
        case ARM_INS_BL:
        case ARM_INS_CBZ:
        case ARM_INS_CBNZ: return trace::BlockEnd::Direct;
        case ARM_INS_BX:
        case ARM_INS_BLX:
        case ARM_INS_TBB:
        case ARM_INS_TBH: return trace::BlockEnd::Indirect;
        case ARM_INS_ISB: return trace::BlockEnd::Barrier;
        default: return (insn.writes & kPc) ? trace::BlockEnd::Indirect : trace::BlockEnd::Fallthrough;
    }
}

struct InstructionDecoder::Impl {
    csh handle = 0;
    cs_insn* one = nullptr;  ///< decode_one's instruction, with its detail: allocated once
};

std::string to_string(InstructionSet set) {
    switch (set) {
        case InstructionSet::ThumbM: return "thumb (M-profile)";
        case InstructionSet::Thumb: return "thumb";
        case InstructionSet::Arm: return "arm";
    }
    return "?";
}

InstructionDecoder::InstructionDecoder(InstructionSet set) : impl_(std::make_unique<Impl>()), set_(set) {
    cs_mode mode = set == InstructionSet::Arm     ? CS_MODE_ARM
                   : set == InstructionSet::Thumb ? CS_MODE_THUMB
                                                  : static_cast<cs_mode>(CS_MODE_THUMB | CS_MODE_MCLASS);
    if (cs_open(CS_ARCH_ARM, mode, &impl_->handle) != CS_ERR_OK)
        throw std::runtime_error("Capstone cannot open an ARM " + to_string(set) + " decoder");
    cs_option(impl_->handle, CS_OPT_DETAIL, CS_OPT_ON);
    impl_->one = cs_malloc(impl_->handle);
    if (!impl_->one) {
        cs_close(&impl_->handle);
        throw std::runtime_error("Capstone cannot allocate an instruction");
    }
}

InstructionDecoder::~InstructionDecoder() {
    cs_free(impl_->one, 1);
    cs_close(&impl_->handle);
}

std::vector<Instruction> InstructionDecoder::decode(std::span<const std::uint8_t> code, std::uint32_t address) const {
    std::vector<Instruction> out;
    cs_insn* insns = nullptr;
    std::size_t n = cs_disasm(impl_->handle, code.data(), code.size(), address, 0, &insns);
    out.reserve(n);
    for (std::size_t i = 0; i < n; ++i) out.push_back(convert(impl_->handle, insns[i]));
    cs_free(insns, n);
    return out;
}

Instruction InstructionDecoder::decode_one(std::span<const std::uint8_t> code, std::uint32_t address) const {
    const std::uint8_t* at = code.data();
    std::size_t left = code.size() >= 4 ? 4 : code.size();
    std::uint64_t where = address;
    if (cs_disasm_iter(impl_->handle, &at, &left, &where, impl_->one)) return convert(impl_->handle, *impl_->one);
    Instruction bad;
    bad.address = address;
    bad.text = "(undecodable)";
    return bad;
}

}  // namespace emutrace::decode
