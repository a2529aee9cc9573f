#include "emu/detail/block_cache.h"

#include <capstone/arm.h>

#include "emutrace/event.h"

#include <algorithm>
#include <vector>

namespace emutrace::emu::detail {
namespace {

// `b .` in its 16-bit (0xE7FE) and 32-bit (B.W to itself) forms.
bool branches_to_itself(const std::vector<std::uint8_t>& code) {
    if (code.size() == 2) return code[0] == 0xFE && code[1] == 0xE7;
    if (code.size() == 4) return code[0] == 0xFF && code[1] == 0xF7 && code[2] == 0xFE && code[3] == 0xBF;
    return false;
}

// The cycles each fetched word waits from `region`, as its memory map gives them.
std::uint32_t fetch_wait(const MemoryRegion& region) {
    return models::fetch_wait(region.wait_states, region.fetch_word_cycles);
}

}  // namespace

BlockInfo BlockCache::analyse(std::uint32_t address, std::uint32_t size) {
    std::uint64_t key = static_cast<std::uint64_t>(address) << 32 | size;
    if (auto it = blocks_.find(key); it != blocks_.end()) return it->second;

    BlockInfo info;
    info.address = address;
    info.size = static_cast<std::uint16_t>(size);
    std::vector<std::uint8_t> code(size);
    if (!uc_.read_memory(address, code)) {
        info.instructions = size / 2;  // unreadable code faults before it matters
        return blocks_[key] = info;
    }
    // Count from the encodings (exact, IT-skipped instructions included); Capstone only checks ISA.
    info.instructions = decode::thumb_instruction_count(code);
    if (branches_to_itself(code)) info.flags |= BlockInfo::SelfLoop;
    const std::vector<decode::Instruction> insns = decode_block(address, code);
    const models::BlockCosts costs = cost_block(info, insns);
    scan_instructions(info, code, insns, costs);
    follow_on(info, insns);
    // Last: the final part takes the block's waypoint (info.end), which a PFT encoder reads.
    split_at_trace_points(info, code, insns, costs.cost);
    return blocks_[key] = info;
}

std::vector<decode::Instruction> BlockCache::decode_block(std::uint32_t address, std::span<const std::uint8_t> code) {
    auto insns = decoder_.decode(code, address);
    // Unicorn may end a block inside an IT block (at a page boundary): decode this one from its
    // IT instruction, so that the instructions it governs are conditional here too.
    if (auto open = open_it_.find(address); open != open_it_.end()) {
        std::vector<std::uint8_t> from_it(address - open->second + code.size());
        if (uc_.read_memory(open->second, from_it)) {
            insns = decoder_.decode(from_it, open->second);
            std::erase_if(insns, [address](const decode::Instruction& i) { return i.address < address; });
        }
    }
    return insns;
}

// The block's cycles (models/block_costs.h): one each with the timing model off, none here when
// the pipeline counts them. A block that continues one Unicorn ended without a branch costs its
// first instruction after that one (a load pipelined behind the load there, say).
models::BlockCosts BlockCache::cost_block(BlockInfo& info, const std::vector<decode::Instruction>& insns) {
    const std::uint32_t address = info.address;
    const MemoryRegion* region = region_at(plan_, address);
    auto continued = continued_from_.find(address);
    const decode::Instruction* first_previous = continued == continued_from_.end() ? nullptr : &continued->second;
    models::BlockCosts costs =
        models::block_costs(timing_, insns, first_previous, info.instructions, info.size, timing_ && region ? fetch_wait(*region) : 0);
    if (timed_by_pipeline_) {
        info.flags |= BlockInfo::Deferred;
        costs.cycles = 0;
        for (auto& a : costs.accesses) a.cycles_after = 0;
    }
    info.cycles = costs.cycles;
    info.lsu = static_cast<std::uint16_t>(costs.lsu_total);
    info.fold = static_cast<std::uint16_t>(costs.fold_total);
    info.taken_extra = static_cast<std::int16_t>(costs.taken_extra);
    info.branch_in_extra = static_cast<std::int8_t>(costs.branch_in_extra);
    for (const auto& a : costs.accesses)
        accesses_[address].push_back(
            {insns[a.instruction].address, insns[a.instruction].memory, {a.cycles_after, a.instructions_after, a.lsu_after, a.fold_after}});
    return costs;
}

// Per instruction: what the machine must watch (mask changes, the FPU, operand-dependent costs,
// instructions the core does not have), and the block's sleep.
void BlockCache::scan_instructions(BlockInfo& info, std::span<const std::uint8_t> code, const std::vector<decode::Instruction>& insns,
                                   const models::BlockCosts& costs) {
    std::vector<OperandSiteCode> sites;
    std::vector<std::uint32_t> stack_sites;
    for (std::size_t i = 0; i < insns.size(); ++i) {
        const decode::Instruction& insn = insns[i];
        if (insn.may_misalign_sp) stack_sites.push_back((insn.address + insn.size) | (insn.id == ARM_INS_MSR ? 1u : 0u));
        if (insn.id == ARM_INS_CPS || insn.id == ARM_INS_MSR) info.flags |= BlockInfo::MaskChange;
        if (insn.isa & (decode::IsaFpSingle | decode::IsaFpDouble)) info.flags |= BlockInfo::UsesFpu;
        OperandSiteCode site{insn.address};
        if (timing_ && insn.size == 4 && timing_->by_operands(insn)) {
            std::size_t at = insn.address - info.address;
            site.first = static_cast<std::uint16_t>(code[at] | code[at + 1] << 8);
            site.second = static_cast<std::uint16_t>(code[at + 2] | code[at + 3] << 8);
        }
        if (costs.executed_extra[i]) {
            site.executed_extra = static_cast<std::int8_t>(std::clamp(costs.executed_extra[i], -128, 127));
            site.executed_extra_lsu = costs.executed_extra_lsu[i];
        }
        if (site.first || site.executed_extra) sites.push_back(site);
        if (auto why = models::unsupported(spec_, insn); why && !(info.flags & BlockInfo::Unsupported)) {
            info.flags |= BlockInfo::Unsupported;
            violations_[info.address] = {insn.address, *why};
        }
    }
    if (!sites.empty()) {
        info.flags |= BlockInfo::OperandSites;
        operand_sites_[info.address] = std::move(sites);
    }
    if (!stack_sites.empty()) {
        info.flags |= BlockInfo::StackSites;
        stack_sites_[info.address] = std::move(stack_sites);
    }
    if (!insns.empty() && (insns.back().id == ARM_INS_WFI || insns.back().id == ARM_INS_WFE)) info.flags |= BlockInfo::Sleep;
}

// Where execution goes after the block: on in sequence (what the next block continues), and how
// its last instruction leaves it (a call, return or possible tail call; its waypoint).
void BlockCache::follow_on(BlockInfo& info, const std::vector<decode::Instruction>& insns) {
    const std::uint32_t end = info.address + info.size;
    info.sequential = end;
    if (insns.empty()) return;
    const decode::Instruction& last = insns.back();
    if (!last.writes_pc) {
        continued_from_.insert_or_assign(end, last);
        for (std::size_t i = 0; i < insns.size(); ++i)
            if (insns[i].id == ARM_INS_IT && i + decode::it_block_length(insns[i]) >= insns.size()) open_it_.insert_or_assign(end, insns[i].address);
    }
    if (last.writes_pc && !decode::is_conditional_branch(last) && !last.conditional) info.sequential = 1;
    info.end = static_cast<std::uint8_t>(decode::waypoint(last));
    switch (decode::control_flow(last)) {
        case decode::ControlFlow::Call: info.exit = static_cast<std::uint8_t>(trace::BranchKind::Call); break;
        case decode::ControlFlow::Return: info.exit = static_cast<std::uint8_t>(trace::BranchKind::Return); break;
        case decode::ControlFlow::Jump: {
            // Only a jump that can be a tail call matters: to a function's first instruction, or
            // indirect. Loop back-edges are not reported.
            const decode::Symbol* f = last.target ? symbols_.function_at(last.target) : nullptr;
            if (!last.target || (f && f->address == last.target)) info.exit = static_cast<std::uint8_t>(trace::BranchKind::Jump);
            break;
        }
        case decode::ControlFlow::None: break;
    }
    if (info.exit && last.conditional) info.exit |= BlockInfo::kConditionalExit;
    if (info.exit && !last.target) info.exit |= BlockInfo::kIndirectExit;
}

void BlockCache::split_at_trace_points(BlockInfo& info, std::span<const std::uint8_t> code, std::span<const decode::Instruction> insns,
                                       std::span<const std::uint32_t> cost) {
    auto first = std::upper_bound(trace_points_.begin(), trace_points_.end(), info.address);
    if (first == trace_points_.end() || *first >= info.address + info.size) return;
    std::vector<BlockPiece> pieces;
    std::uint32_t from = info.address, spent = 0;
    auto close = [&](std::uint32_t end, std::uint32_t cycles, std::uint8_t waypoint) {
        std::uint32_t count = decode::thumb_instruction_count(code.subspan(from - info.address, end - from));
        pieces.push_back({from, end - from, count, cycles, waypoint});
        spent += cycles;
        from = end;
    };
    // Each part but the last costs what the block model gives it; the last takes what remains.
    const MemoryRegion* region = region_at(plan_, info.address);
    std::uint32_t wait = timing_ && region ? fetch_wait(*region) : 0;
    std::uint32_t part = 0;
    for (std::size_t i = 0; i < insns.size(); ++i) {
        std::uint32_t end = insns[i].address + insns[i].size;
        part += cost[i];
        while (first != trace_points_.end() && *first < end) ++first;  // one inside an instruction is ignored
        if (first == trace_points_.end() || *first != end || end >= info.address + info.size) continue;
        close(end, models::part_cycles(part, end - from, wait, info.cycles - spent), 0);
        part = 0;
    }
    if (pieces.empty()) return;  // the trace points fell inside instructions
    close(info.address + info.size, info.cycles - spent, info.end);
    info.flags |= BlockInfo::Split;
    info.first_piece = static_cast<std::uint32_t>(piece_store_.size());
    piece_store_.insert(piece_store_.end(), pieces.begin(), pieces.end());
}

std::span<const OperandSiteCode> BlockCache::operand_sites(std::uint32_t address) const {
    auto it = operand_sites_.find(address);
    if (it == operand_sites_.end()) return {};
    return it->second;
}

std::span<const std::uint32_t> BlockCache::stack_sites(std::uint32_t address) const {
    auto it = stack_sites_.find(address);
    if (it == stack_sites_.end()) return {};
    return it->second;
}

void BlockCache::clear_flag(std::uint32_t address, std::uint32_t size, BlockInfo::Flag flag) {
    auto clear = [flag](BlockInfo& b) { b.flags = static_cast<std::uint16_t>(b.flags & ~flag); };
    if (auto it = blocks_.find(static_cast<std::uint64_t>(address) << 32 | size); it != blocks_.end()) clear(it->second);
    BlockInfo& slot = front_[(address >> 1) & (kFrontSlots - 1)];
    if (slot.address == address && slot.size == size) clear(slot);
}

std::span<const BlockAccess> BlockCache::accesses(std::uint32_t address) const {
    auto it = accesses_.find(address);
    if (it == accesses_.end()) return {};
    return it->second;
}

Violation BlockCache::violation(std::uint32_t address) const {
    auto it = violations_.find(address);
    return it == violations_.end() ? Violation{address, "unsupported instruction"} : it->second;
}

}  // namespace emutrace::emu::detail
