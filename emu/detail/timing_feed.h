#pragma once
// The machine's timing: its cycle counters and what advances them. With TimingMode::Trm the
// per-block model's costs, counted when a block starts (with the taken branch into it settled
// then) and corrected at run time by hooks on operand sites and timed regions; with
// TimingMode::Pipeline the pipeline model that runs beside the instructions and owns the counts
// between hooks. The flash caches a block's fetch goes through, and the memory system's mode a
// device sets, are the feed's too. The machine feeds it blocks, accesses and idle time; all the
// arithmetic is in models/.

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <unordered_set>
#include <vector>

#include "emu/detail/block_cache.h"
#include "emu/detail/unicorn_core.h"
#include "emu/nvic/dwt.h"
#include "models/feed/pipeline_feed.h"
#include "models/flash_cache.h"
#include "models/timing_model.h"

namespace emutrace::emu::detail {

class TimingFeed;

/// An instruction whose cycles are settled when it runs (hooked at its address): by its operands'
/// values (a divide, or on cores with an iterative multiplier a long multiply), or in an IT block
/// by whether it runs (the hook is called only when it does).
struct OperandSite {
    TimingFeed* feed = nullptr;
    const UnicornCore* core = nullptr;
    std::uint8_t rn = 0, rm = 0;
    models::TimingModel::OperandTiming timing;  ///< op None: timed by whether it runs only
    std::int8_t executed_extra = 0;             ///< an IT-block instruction's when it runs (may be negative)
    std::uint8_t executed_extra_lsu = 0;        ///< and of those, load/store cycles
};

/// A memory region whose data accesses cost more than the block counted (hooked over its address
/// range): wait states, or the extra bus transfers of an unaligned access.
struct TimedRegion {
    TimingFeed* feed = nullptr;
    std::uint32_t wait_states = 0;
    bool times_unaligned = false;
};

class TimingFeed {
public:
    /// `per_block`: the per-block model for this core (TimingMode::Trm), or none.
    explicit TimingFeed(std::optional<models::CoreKind> per_block);

    std::uint64_t cycles() const { return counters.cycles; }
    /// Time that passes without instructions (wait states, sleep, exception overhead), in `bucket`.
    void add_idle(std::uint64_t n, std::uint64_t& bucket) {
        bucket += n;
        counters.cycles += n;
        if (pipeline_feed) pipeline_feed->pipeline().change().drain_and_wait(n);
    }

    // --- A block boundary, per-block model -----------------------------------------------------

    /// The cycle a block about to run starts at: the previous block's final branch was taken if
    /// this is not its fall-through, and then the refill adds to it.
    std::uint64_t block_start(std::uint32_t pc, const BlockInfo& b) const {
        std::uint64_t start = counters.cycles;
        if (pc != sequential_) start += static_cast<std::uint64_t>(static_cast<std::int64_t>(taken_extra_) + b.branch_in_extra);
        return start;
    }
    /// Counts the block at `pc` from `start` (block_start): its cycles and instructions now, its
    /// final branch's when the next block starts.
    void count_block(std::uint64_t start, std::uint32_t pc, std::uint32_t size, const BlockInfo& b) {
        fallthrough_ = pc + size;
        sequential_ = b.sequential;
        taken_extra_ = b.taken_extra;
        access_cursor_ = 0;
        block_pc = pc;
        counters.cycles = start + b.cycles;
        counters.instructions += b.instructions;
        counters.lsu += b.lsu;
        counters.fold += b.fold;
    }
    /// The interrupted block's final branch no longer applies: execution goes on elsewhere.
    void forget_block_exit() {
        fallthrough_ = sequential_ = 1;
        taken_extra_ = 0;
    }
    /// The current block's fall-through address (1 when execution went elsewhere).
    std::uint32_t fallthrough() const { return fallthrough_; }
    /// Execution left the emulator at `pc` (for a debugger) and goes on there: what is left of
    /// the block it was in runs as a block of its own and is counted then, not now, so that the
    /// counts are what they are without a debugger.
    void leave_block_at(std::uint32_t pc, BlockCache& blocks);
    /// First sight of a block flagged OperandSites: hooks its sites (once each) so that their
    /// cycles are settled when they run. The caller runs the block again.
    void hook_operand_sites(UnicornCore& uc, BlockCache& blocks, std::uint32_t address, std::uint32_t size);

    // --- The pipeline --------------------------------------------------------------------------

    /// The pipeline has run what ran before execution got to `pc` (the instruction there
    /// `including`), and the counts are its. Every hook but the pipeline's own starts with it.
    void settle(std::uint32_t pc, bool including) {
        if (!pipeline_feed) return;
        pipeline_feed->reached(pc, including);
        sync();
    }
    /// The block before ended: the counts follow the pipeline's, by the transition it followed on
    /// (its counts added to both) or, when it ran the block otherwise, by a copy. Not its
    /// instructions: count_block counted the block's when it started, and a followed run is the
    /// whole block, none skipped.
    void block_ended(std::uint32_t successor) {
        if (const auto* t = pipeline_feed->ends_followed(successor)) {
            counters.cycles += t->cost.cycles, counters.lsu += t->cost.lsu, counters.fold += t->cost.fold;
            return;
        }
        block_unfollowed(successor);
    }
    /// The pipeline's counts, with the block before ended otherwise than by following on.
    [[gnu::noinline]] void block_unfollowed(std::uint32_t successor) {
        pipeline_feed->ends_unfollowed(successor);
        sync();
    }
    /// The counts are the pipeline's.
    void sync() {
        const models::PipelineCounters& p = pipeline_feed->pipeline().counters();
        counters.cycles = p.cycles;
        counters.instructions = p.instructions;
        counters.lsu = p.lsu;
        counters.fold = p.fold;
    }

    // --- Accesses, fetches and the memory system -----------------------------------------------

    /// The counters as of the data access to a device that the current block's accesses[i] makes
    /// (i == accesses.size(): not among them): a block's cycles are all counted when it starts,
    /// so those still to come are taken back. With the pipeline: its data phase.
    nvic::CycleCounters counters_at_access(std::span<const BlockAccess> accesses, std::size_t i);
    /// Where the current block's data accesses to devices have got to: they happen in program
    /// order, so two of one address in one block are told apart.
    std::size_t access_cursor() const { return access_cursor_; }
    /// The cycles block [pc, pc + size), about to run, stalls for in the flash cache that covers
    /// it, if that one is on: its misses and tag lookups.
    unsigned fetch_stall(std::uint32_t pc, std::uint32_t size) {
        models::FlashCache* cache = serving_cache(pc);
        return cache ? cache->fetch(pc, size) : 0;
    }
    /// With the pipeline: block [pc, pc + size) is about to run, and its lines are looked up in
    /// the flash cache that covers it, if that one is on, before the block before it is run: the
    /// pipeline times the lines that missed as its bus's wait states, and its fetch may reach
    /// them while it runs that block.
    void pipeline_fetches_through_flash_caches(std::uint32_t pc, std::uint32_t size) {
        if (models::FlashCache* cache = serving_cache(pc)) pipeline_looks_up(*cache, pc, size);
    }
    /// With the pipeline, on a board whose data accesses are hooked: the current block reads
    /// `address`, looked up in the flash cache that covers it, if that one is on; a miss is timed
    /// as the fetch's are. (A table or literal in the flash competes with the code for the cache.)
    void pipeline_reads_through_flash_caches(std::uint32_t address) {
        if (models::FlashCache* cache = serving_cache(address)) pipeline_looks_up(*cache, address, 1);  // most reads are of RAM
    }
    /// The memory system's run-time switches, as a device sets them.
    void set_memory_mode(const models::MemoryMode& mode);
    /// ACTLR as the firmware wrote it (write buffer, IT folding).
    void set_auxiliary_control(std::uint32_t actlr);

    // --- Exceptions: the core's overhead, as bus transfers in the pipeline -----------------------

    void exception_entry(std::uint32_t frame_at, std::uint32_t vector_slot, std::uint32_t handler, bool tail_chain, bool fp_stacked);
    void exception_return(std::uint32_t frame_at, std::uint32_t to, const models::FloatingReturn& fp);
    /// The core writes a lazily reserved FP area at `frame` (FPCCR.LSPACT).
    void lazy_fp_preservation(std::uint32_t frame);

    // Read by the block hooks' hot paths: kept first, beside the machine's other hot state.
    nvic::CycleCounters counters;  ///< the DWT holds a reference, read only while running
    /// The block executing now. Unicorn's pc inside device callbacks is the block's start only
    /// until a code hook (a divide) fires in it, so the feed keeps its own.
    std::uint32_t block_pc = 1;
    /// flash_caches is not empty (read where the hooks' hot data is, not from the vector).
    bool has_flash_caches = false;

private:
    /// The flash cache that covers `address`, if it is on.
    models::FlashCache* serving_cache(std::uint32_t address) {
        for (auto& c : flash_caches)
            if (c.covers(address)) return c.enabled() ? &c : nullptr;
        return nullptr;
    }
    /// [address, address + bytes) looked up in `cache`; the pipeline told the lines that missed.
    void pipeline_looks_up(models::FlashCache& cache, std::uint32_t address, std::uint32_t bytes);
    std::uint32_t fallthrough_ = 1;  ///< the current block's fall-through address
    std::uint32_t sequential_ = 1;   ///< the current block's BlockInfo::sequential
    std::int32_t taken_extra_ = 0;   ///< what its final conditional branch costs when taken
    std::uint32_t access_cursor_ = 0;

public:
    /// The caches of the regions that have one: a block's fetch misses stall the core before it runs.
    std::vector<models::FlashCache> flash_caches;
    /// With TimingMode::Pipeline (in place: the block hook reaches it without a load).
    std::optional<models::PipelineFeed> pipeline_feed;
    /// While a device is being accessed: the counters as of that access (DeviceHost::now(), the DWT).
    std::optional<nvic::CycleCounters> access_counters;
    std::optional<models::TimingModel> timing;  ///< with TimingMode::Trm
    /// The memory system's run-time switches as a device last set them.
    models::MemoryMode memory_mode;
    std::vector<std::unique_ptr<TimedRegion>> timed_regions;  ///< where their hooks point

private:
    std::vector<std::unique_ptr<OperandSite>> operand_sites_;
    std::unordered_set<std::uint32_t> hooked_sites_;
};

// Unicorn callbacks of the per-block model's run-time corrections.
void on_operand_site(uc_engine* uc, std::uint64_t address, std::uint32_t size, void* user);
bool on_timed_access(uc_engine* uc, uc_mem_type type, std::uint64_t address, int size, std::int64_t value, void* user);

}  // namespace emutrace::emu::detail
