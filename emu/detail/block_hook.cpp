// The block hook: what happens as each translated block starts, read top to bottom. It is the
// emulator's hot path: a cached lookup, an optional event append and a counter compare; every
// other turn (a service due, a block seen for the first time, a flagged block) is out of line.
//
// As a block at `pc` starts:
//   1. With the pipeline, the block before is done: its cycles (TimingFeed::block_ended).
//   2. Hot path: a known block flagged at most HotPath, with no service due and no branch to
//      report, is fetched through the flash caches and counted (account_block), and its event
//      appended when a sink wants blocks. (With the pipeline the flash caches look the block up
//      first, before step 1, and the pipeline times what missed.)
//   3. Otherwise (on_block_slow): services (timers, stimuli, limits, pending exceptions, which may
//      redirect execution so that this block does not run), the block's analysis, its operand
//      sites' hooks, the lazy FP preservation, the Branch event, then as the hot path, then what
//      its flags ask for (MachineState::on_flagged_block).

#include "emu/detail/machine_impl.h"

namespace emutrace::emu::detail {
namespace {

MachineState& machine(void* user) {
    return *static_cast<MachineState*>(user);
}

// Block [pc, pc + size), about to run, fetched through the flash cache that covers it, if any:
// its misses and tag lookups stall the core before it runs. (The pipeline looks its lines up as
// the hook starts, and times them itself.)
inline void fetch_through_flash_caches(MachineState& m, std::uint32_t pc, std::uint32_t size) {
    if (!m.feed.has_flash_caches || m.feed.pipeline_feed) [[likely]]
        return;
    if (unsigned stall = m.feed.fetch_stall(pc, size)) m.add_idle_cycles(stall, m.feed.counters.stall);
}

// Counts a block that is about to run: its cycles and instructions, and its event.
inline void account_block(MachineState& m, std::uint32_t pc, std::uint32_t size, const BlockInfo& b) {
    const std::uint64_t start = m.feed.block_start(pc, b);
    m.stream.block_leaves(b.exit);
    m.feed.count_block(start, pc, size, b);
    if (!m.stream.want_blocks) return;
    if (b.flags & BlockInfo::Deferred) [[unlikely]]
        return m.stream.defer_block_event(start, pc, size, b, m.blocks);
    m.stream.push_block(start, pc, size, b, m.blocks);
}

// Whether the known block `b` takes the hot path at `pc`: it is the one translated there, flagged
// at most HotPath, with no service due and no branch to report.
bool takes_hot_path(const MachineState& m, std::uint32_t pc, std::uint32_t size, const BlockInfo& b) {
    return m.feed.counters.cycles < m.next_check && b.address == pc && b.size == size && !(b.flags & ~m.fp.hot_flags) && !m.stream.pending_branch;
}

// Whether the pipeline's facts are per block (its hooks then run the block's sites themselves).
bool pipelined_blocks(const MachineState& m) {
    return m.feed.pipeline_feed && m.feed.pipeline_feed->per_block();
}

// First sight of a block flagged OperandSites: its sites are hooked, and it runs again.
void hook_operand_sites(MachineState& m, std::uint32_t address, std::uint32_t size) {
    m.feed.hook_operand_sites(m.uc, m.blocks, address, size);
    m.uc.set_reg(UC_ARM_REG_PC, address | 1);
}

// Everything the hot path does not do: services, first sight of a block, flagged blocks. The
// pipeline, if any, has been told that the block before ended.
[[gnu::noinline]] void on_block_slow(MachineState& m, std::uint32_t address, std::uint32_t size) {
    // Exceptions are taken at block boundaries: redirecting here means this block does not run.
    if (m.feed.counters.cycles >= m.next_check && m.service(address) == Service::Redirected) return;
    if (m.data_watches.pending()) [[unlikely]] {  // a device watches memory now: hooked, and this block runs again with them
        m.data_watches.apply(m.uc, m.bus.plan);
        return m.uc.set_reg(UC_ARM_REG_PC, address | 1);
    }
    const BlockInfo& b = m.blocks.lookup(address, size);
    if (b.flags & BlockInfo::StackSites) [[unlikely]] {  // hooked now: it runs again with them (the pipeline not told of it)
        m.hook_stack_sites(address, size);
        return m.uc.set_reg(UC_ARM_REG_PC, address | 1);
    }
    if (pipelined_blocks(m) && !m.feed.pipeline_feed->block_starts(address, size))
        return m.uc.set_reg(UC_ARM_REG_PC, address | 1);  // its sites are hooked now: run it again
    if (b.flags & BlockInfo::OperandSites) [[unlikely]]
        return hook_operand_sites(m, address, size);
    // The block runs: its lines are fetched, and its first FPU instruction writes a reserved FP area.
    fetch_through_flash_caches(m, address, size);
    if ((b.flags & BlockInfo::UsesFpu) && m.fp.pending) m.preserve_fp_lazily();
    // Stamped as the block it reaches, so that a call's or return's time is the blocks' time.
    if (m.stream.pending_branch) m.stream.push_branch(address, m.feed.block_start(address, b), m.feed.fallthrough());
    account_block(m, address, size, b);
    if (pipelined_blocks(m)) m.feed.pipeline_feed->mark_plain(!(b.flags & ~(BlockInfo::HotPath | BlockInfo::UsesFpu)));
    if (b.flags) m.on_flagged_block(b);
}

// on_pipelined_block's every other path, out of line so that its hot path needs no frame.
[[gnu::noinline]] void start_pipelined_block(MachineState& m, std::uint32_t pc, std::uint32_t size, bool followed) {
    if (followed)
        m.feed.sync();
    else
        m.feed.block_unfollowed(pc);
    const BlockInfo& b = m.blocks.slot(pc);
    if (!takes_hot_path(m, pc, size, b)) [[unlikely]]
        return on_block_slow(m, pc, size);
    if (!m.feed.pipeline_feed->block_starts(pc, size)) [[unlikely]]
        return m.uc.set_reg(UC_ARM_REG_PC, pc | 1);  // its sites are hooked now: run it again
    // Before the pipeline is given the block's instructions.
    fetch_through_flash_caches(m, pc, size);
    m.feed.pipeline_feed->mark_plain(true);
    account_block(m, pc, size, b);  // its per-block costs are 0 here: only the counts and the event
}

// on_pipelined_block's hot path when a sink wants blocks (--etm, --pft) and none branches: the
// plain hot path, and the block's event, deferred until the next block gives its cycles. A block
// cut at trace points takes the other path. Out of line, and entered by a tail call, as every
// path but the plain one: that one then needs no callee-saved register, so no frame.
[[gnu::noinline]] void follow_with_event(MachineState& m, std::uint32_t pc, std::uint32_t size) {
    const BlockInfo& b = m.blocks.slot(pc);
    models::PipelineFeed& pipeline = *m.feed.pipeline_feed;
    if (b.address != pc || b.size != size || (b.flags & BlockInfo::Split) || !pipeline.plain_block_starts(pc, size))
        return start_pipelined_block(m, pc, size, true);
    m.feed.block_pc = pc;
    m.stream.defer_whole_block_event(pipeline.pipeline().followed_counters().cycles, pc, size, b);
}

// With TimingMode::Pipeline and facts per block. The hot path, while no sink wants blocks or
// branches: the block before is done by the transition the pipeline followed, and the block here
// is the one the pipeline expected after it, which the machine marked plain: the pipeline's chain
// of transitions and blocks stands in for the machine's own lookup, and the per-block accounting,
// whose costs are all 0 in this mode, is not run. Nor are the machine's counts kept up on it:
// between hooks the pipeline's are the machine's, and every other path, here and in every other
// hook, copies them first (TimingFeed::sync, through settle_pipeline).
[[gnu::always_inline]] inline void pipelined_block_starts(MachineState& m, std::uint32_t pc, std::uint32_t size) {
    models::PipelineFeed& pipeline = *m.feed.pipeline_feed;
    const bool followed = pipeline.ends_followed(pc);
    // While an FP area waits for a handler's first FPU instruction each block is checked for one:
    // not on this path.
    if (followed && !m.fp.pending && pipeline.pipeline().followed_counters().cycles < m.next_check) [[likely]] {
        if (m.stream.counts_only) [[likely]] {
            if (pipeline.plain_block_starts(pc, size)) {
                // Only where the block is: no branch event is pending with no sink wanting one
                // (so its fall-through is never read), and a device access asks the pipeline, not
                // the block's access list, for its cycle.
                m.feed.block_pc = pc;
                return;
            }
        } else if (!m.stream.branch_mask) {  // a sink wants blocks, none branches
            return follow_with_event(m, pc, size);
        }
    }
    start_pipelined_block(m, pc, size, followed);
}

// on_block with the pipeline given facts per instruction: the block before is done (the lines of
// the block here looked up first, as in on_pipelined_block_through_flash_caches).
[[gnu::noinline]] void pipeline_block_ended(MachineState& m, std::uint32_t pc, std::uint32_t size) {
    if (m.feed.has_flash_caches) m.feed.pipeline_fetches_through_flash_caches(pc, size);
    m.feed.block_ended(pc);
}

}  // namespace

// With no timing, the per-block model, or the pipeline given facts per instruction. The hot path
// settles the previous block's conditional branch, adds this block's cycles and, when a sink wants
// blocks, appends its event (or its parts' events). Free of calls but the final flush, so it needs
// no frame.
void on_block(uc_engine*, std::uint64_t address, std::uint32_t size, void* user) {
    MachineState& m = machine(user);
    auto pc = static_cast<std::uint32_t>(address);
    if (m.feed.pipeline_feed) [[unlikely]]  // the block before is done: its cycles, before any service is due
        pipeline_block_ended(m, pc, size);
    const BlockInfo& b = m.blocks.slot(pc);
    if (!takes_hot_path(m, pc, size, b)) [[unlikely]]
        return on_block_slow(m, pc, size);
    fetch_through_flash_caches(m, pc, size);
    account_block(m, pc, size, b);
}

// With TimingMode::Pipeline and facts per block (pipelined_block_starts has the hot path).
void on_pipelined_block(uc_engine*, std::uint64_t address, std::uint32_t size, void* user) {
    pipelined_block_starts(machine(user), static_cast<std::uint32_t>(address), size);
}

// The same on a board with a flash cache: the block's lines are looked up before the block
// before it runs, whose fetch may reach them.
void on_pipelined_block_through_flash_caches(uc_engine*, std::uint64_t address, std::uint32_t size, void* user) {
    MachineState& m = machine(user);
    auto pc = static_cast<std::uint32_t>(address);
    m.feed.pipeline_fetches_through_flash_caches(pc, size);
    pipelined_block_starts(m, pc, size);
}

}  // namespace emutrace::emu::detail
