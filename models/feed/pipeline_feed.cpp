#include "models/feed/pipeline_feed.h"

#include <cstdlib>

namespace emutrace::models {
namespace {

MemorySystem memory_system(const std::vector<FeedRegion>& regions) {
    std::vector<MemorySystem::Region> out;
    for (const auto& r : regions) out.push_back({r.base, r.size, r.port});
    return MemorySystem(std::move(out));
}

// The condition field of a B<cc> (T1: 1101 cccc; T3: 11110 s cccc in the first halfword), or 14.
unsigned branch_condition(const std::array<std::uint8_t, 4>& b) {
    unsigned hw1 = b[0] | b[1] << 8u, hw2 = b[2] | b[3] << 8u;
    if ((hw1 & 0xF000u) == 0xD000u) return (hw1 >> 8) & 0xFu;
    if ((hw1 & 0xF800u) == 0xF000u && (hw2 & 0xD000u) == 0x8000u) return (hw1 >> 6) & 0xFu;
    return 14;
}

}  // namespace

PipelineFeed::PipelineFeed(RunningCore& cpu, std::vector<FeedRegion> regions, const models::CoreSpec& core, bool cached, bool per_block)
    : cpu_(cpu), regions_(std::move(regions)), per_block_(per_block), core_(core), memory_(memory_system(regions_)), operands_(core.kind) {
    // Memories that differ in timing make a data access's memory worth a hook on every access.
    for (const auto& r : regions_)
        hooks_memory_ |=
            per_block && !r.device && (r.port.wait_states || r.port.times_unaligned || r.port.fetch_shares_data_port || r.port.fetch_word_cycles > 1);
    // A debugging aid for the model itself (docs/timing.md): every cycle's stages on stderr, which
    // needs every cycle stepped.
    bool trace = std::getenv("EMUTRACE_PIPELINE_TRACE") != nullptr;
    pipeline_.emplace(core.pipeline, memory_, *this, cached && !trace);
    if (trace) pipeline_->trace_to(stderr);
}

void PipelineFeed::set(Code& c, const decode::Instruction& insn) const {
    c.insn = insn;
    c.cls = models::classify(insn);
    c.valid = true;
    c.writable = true;
    for (const auto& r : regions_)
        if (insn.address - r.base < r.size) c.writable = r.writable;
}

const PipelineFeed::Code& PipelineFeed::code_at(std::uint32_t address, bool check) {
    auto it = code_.find(address);
    // Code in read-only memory cannot change under the cache; code in RAM is compared with
    // memory each time it runs (a program that copies code there, then runs it).
    if (it != code_.end() && (!check || !it->second.writable)) return it->second;
    std::array<std::uint8_t, 4> bytes{};
    bool readable = cpu_.read_code(address, bytes) || cpu_.read_code(address, std::span(bytes).first(2));
    if (it != code_.end() && it->second.bytes == bytes) return it->second;
    Code c;
    c.bytes = bytes;
    if (readable)
        if (auto decoded = decoder_.decode(bytes, address); !decoded.empty()) set(c, decoded.front());
    if (it != code_.end()) pipeline_->forget();  // saved pipeline states point at what it was
    Code& slot = code_[address] = std::move(c);
    if (slot.valid && slot.cls.kind == models::InstructionClass::It) decode_it_block(address);
    return slot;
}

// Decoded alone, an instruction an IT makes conditional reads as unconditional (and a 16-bit
// ADD as ADDS): the IT block is decoded as one, and its instructions replace what is known of them.
void PipelineFeed::decode_it_block(std::uint32_t it) {
    std::array<std::uint8_t, 2 + 4 * 4> bytes{};
    std::size_t n = bytes.size();
    while (n > 2 && !cpu_.read_code(it, std::span(bytes).first(n))) n -= 2;
    auto block = decoder_.decode(std::span(bytes).first(n), it);
    for (std::size_t k = 1; k < block.size() && k <= decode::it_block_length(block.front()); ++k) {
        Code c;
        std::size_t at = block[k].address - it;
        for (std::size_t b = 0; b < 4 && at + b < n; ++b) c.bytes[b] = bytes[at + b];
        if (block[k].size == 2) c.bytes[2] = c.bytes[3] = 0, cpu_.read_code(block[k].address + 2, std::span(c.bytes).subspan(2));
        set(c, block[k]);
        if (!code_.insert_or_assign(block[k].address, std::move(c)).second) pipeline_->forget();
    }
}

const models::ClassifiedInstruction* PipelineFeed::instruction_at(std::uint32_t address) {
    // The stages ask for the same few addresses every cycle: a direct-mapped table in front of
    // the map (whose entries stay where they are).
    auto& slot = recent_[(address >> 1) & (recent_.size() - 1)];
    if (slot.address != address || !slot.code) slot = {address, &code_at(address, false)};
    return slot.code->valid ? &slot.code->cls : nullptr;
}

std::uint32_t PipelineFeed::core_register(int r) const {
    return cpu_.core_register(static_cast<unsigned>(r));
}

namespace {

// ARMv7-M ARM A7.3: condition `cond` on the flags of `psr`.
bool passes(unsigned cond, std::uint32_t psr) {
    bool n = psr >> 31 & 1, z = psr >> 30 & 1, c = psr >> 29 & 1, v = psr >> 28 & 1;
    bool result = true;
    switch (cond >> 1) {
        case 0: result = z; break;
        case 1: result = c; break;
        case 2: result = n; break;
        case 3: result = v; break;
        case 4: result = c && !z; break;
        case 5: result = n == v; break;
        case 6: result = !z && n == v; break;
        default: return true;
    }
    return (cond & 1) ? !result : result;
}

}  // namespace

bool PipelineFeed::condition_passes(unsigned cond) const {
    return passes(cond, cpu_.program_status());
}

std::uint8_t PipelineFeed::operand_cycles(const Code& code) const {
    // T1 encodings: first halfword 1111 1011 1ooo nnnn, second with mmmm in [3:0].
    unsigned hw1 = code.bytes[0] | code.bytes[1] << 8u, hw2 = code.bytes[2] | code.bytes[3] << 8u;
    unsigned o = (hw1 >> 4) & 7;
    std::uint32_t n = core_register(static_cast<int>(hw1 & 0xF)), m = core_register(static_cast<int>(hw2 & 0xF));
    if (code.cls.kind == models::InstructionClass::Divide) return static_cast<std::uint8_t>(operands_.divide(n, m, o == 1));
    if (!operands_.multiply_long_by_operands()) return 0;
    return static_cast<std::uint8_t>(operands_.multiply_long(n, m, o == 0 || o == 4, o >= 4));
}

std::uint8_t PipelineFeed::it_passes(const Code& code) const {
    // 1011 1111 cond mask: each instruction's condition from the first and the mask's bits.
    unsigned firstcond = code.bytes[0] >> 4, mask = code.bytes[0] & 0xF;
    const std::uint32_t psr = cpu_.program_status();  // read once: a register read costs more than the rest
    std::uint8_t members = 0;
    for (unsigned k = 0; k < code.cls.it_length; ++k) {
        unsigned cond = k == 0 ? firstcond : (firstcond & 0xE) | ((mask >> (4 - k)) & 1u);
        if (passes(cond, psr)) members = static_cast<std::uint8_t>(members | 1u << k);
    }
    return members;
}

void PipelineFeed::executes(std::uint32_t pc) {
    const Code* code = &code_at(pc, true);
    if (!code->valid) return;
    const decode::Instruction& insn = code->insn;
    const models::ClassifiedInstruction& c = code->cls;
    models::InstructionFacts f;
    f.pc = pc;
    f.lr = cpu_.core_register(14);
    auto reg = [this](int r) { return core_register(r); };
    if (c.memory_access()) f.data_address = models::timing_address(decode::effective_address(insn.memory, pc, reg), c.bytes);
    switch (c.kind) {
        case models::InstructionClass::ConditionalBranch: f.taken = condition_passes(branch_condition(code->bytes)); break;
        case models::InstructionClass::CompareBranch: {
            bool nonzero = code->bytes[1] & 0x08;
            f.taken = (core_register(code->bytes[0] & 7) != 0) == nonzero;
            break;
        }
        case models::InstructionClass::Divide:
        case models::InstructionClass::MultiplyLong:
        case models::InstructionClass::MultiplyAccumulateLong: f.execute_cycles = operand_cycles(*code); break;
        case models::InstructionClass::It: f.it_passes = it_passes(*code); break;
        case models::InstructionClass::RegisterBranch:
            if (!c.late_branch && (insn.reads & 0x7FFF)) {  // BX/BLX/MOV pc from a register
                for (int r = 0; r < 15; ++r)
                    if ((insn.reads >> r) & 1) f.target = core_register(r) & ~1u;
            }
            break;
        default: break;
    }
    pipeline_->executes(f);
}

}  // namespace emutrace::models
