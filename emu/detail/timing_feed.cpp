#include "emu/detail/timing_feed.h"

namespace emutrace::emu::detail {

TimingFeed::TimingFeed(std::optional<models::CoreKind> per_block) {
    if (per_block) timing.emplace(*per_block);
}

void TimingFeed::hook_operand_sites(UnicornCore& uc, BlockCache& blocks, std::uint32_t address, std::uint32_t size) {
    for (const auto& code : blocks.operand_sites(address)) {
        if (!hooked_sites_.insert(code.address).second) continue;  // also in a block translated before
        // Rn in the first halfword's low bits, Rm in the second's (ARMv7-M ARM A7.7).
        OperandSite site;
        site.feed = this;
        site.core = &uc;
        site.rn = static_cast<std::uint8_t>(code.first & 0xF);
        site.rm = static_cast<std::uint8_t>(code.second & 0xF);
        if (code.first) site.timing = models::TimingModel::operand_timing(code.first);
        site.executed_extra = code.executed_extra;
        site.executed_extra_lsu = code.executed_extra_lsu;
        operand_sites_.push_back(std::make_unique<OperandSite>(site));
        uc.add_hook(UC_HOOK_CODE, reinterpret_cast<void*>(on_operand_site), operand_sites_.back().get(), code.address, code.address);
    }
    blocks.operand_sites_hooked(address, size);
    // This block was translated before the hooks existed: translate it again.
    uc.remove_cache(address, address + size);
}

nvic::CycleCounters TimingFeed::counters_at_access(std::span<const BlockAccess> accesses, std::size_t i) {
    nvic::CycleCounters at = counters;
    if (pipeline_feed) {
        models::PipelineCounters p = pipeline_feed->pipeline().at_data_phase();
        std::uint64_t exceptional = counters.cycles - pipeline_feed->pipeline().counters().cycles;
        at.cycles = p.cycles + exceptional;
        at.instructions = p.instructions;
        at.lsu = p.lsu;
        at.fold = p.fold;
        return at;
    }
    if (i >= accesses.size()) return at;
    const auto& a = accesses[i];
    access_cursor_ = static_cast<std::uint32_t>(i + 1);
    // The load before may be the previous block's last instruction (a block Unicorn ended at
    // a page boundary), so it is found by instruction count rather than in this block's list.
    at.cycles -= a.remaining.cycles;
    at.instructions -= a.remaining.instructions;
    at.lsu -= a.remaining.lsu;
    at.fold -= a.remaining.fold;
    return at;
}

void TimingFeed::leave_block_at(std::uint32_t pc, BlockCache& blocks) {
    if (pipeline_feed) {
        pipeline_feed->leaves_at(pc);
    } else if (pc >= block_pc && pc < fallthrough_) {  // counted whole when it started
        const BlockInfo& rest = blocks.lookup(pc, fallthrough_ - pc);
        counters.cycles -= rest.cycles;
        counters.instructions -= rest.instructions;
        counters.lsu -= rest.lsu;
        counters.fold -= rest.fold;
    }
    sequential_ = pc;
    fallthrough_ = pc;
}

void TimingFeed::pipeline_looks_up(models::FlashCache& cache, std::uint32_t address, std::uint32_t bytes) {
    // The first miss changes the pipeline's state (its saved states key the lines it waits for).
    models::Pipeline* pipeline = nullptr;
    cache.fetch(address, bytes, [&](std::uint32_t line) {
        if (!pipeline) pipeline = &pipeline_feed->pipeline().change();
        pipeline->cache_missed(line);
    });
}

void TimingFeed::set_memory_mode(const models::MemoryMode& mode) {
    if (mode == memory_mode) return;
    memory_mode = mode;
    for (auto& c : flash_caches) c.enable(mode.cache_enabled);
    // The pipeline settles the instructions given so far and goes on in the new mode (its saved
    // states carry the mode in their key, so a cached run is not reused across the change).
    if (pipeline_feed) pipeline_feed->pipeline().change().set_memory_mode(mode);
}

void TimingFeed::set_auxiliary_control(std::uint32_t actlr) {
    // ACTLR.DISDEFWBUF (bit 1) and DISFOLD (bit 2): the pipeline settles what was given and goes
    // on with them (its saved states carry them in their key). The per-block model keeps the TRM's.
    if (!pipeline_feed) return;
    models::Pipeline::CoreControl control{.write_buffer = !(actlr & 2u), .fold_it = !(actlr & 4u)};
    pipeline_feed->pipeline().change().set_core_control(control);
}

void TimingFeed::exception_entry(std::uint32_t frame_at, std::uint32_t vector_slot, std::uint32_t handler, bool tail_chain, bool fp_stacked) {
    if (pipeline_feed) {  // stacking and the vector read as bus transfers
        counters.exception += pipeline_feed->pipeline().change().exception_entry(frame_at, vector_slot, handler, tail_chain, {.stacked = fp_stacked});
        sync();
    } else if (timing) {
        add_idle(timing->entry_cycles(tail_chain, fp_stacked), counters.exception);
    }
}

void TimingFeed::exception_return(std::uint32_t frame_at, std::uint32_t to, const models::FloatingReturn& fp) {
    if (pipeline_feed) {  // unstacking as bus transfers
        counters.exception += pipeline_feed->pipeline().change().exception_return(frame_at, to, fp);
        sync();
    } else if (timing) {
        add_idle(timing->return_cycles(fp.unstacked + fp.preserved), counters.exception);
    }
}

void TimingFeed::lazy_fp_preservation(std::uint32_t frame) {
    if (pipeline_feed) {
        counters.exception += pipeline_feed->pipeline().change().lazy_preservation(frame);
        sync();
    } else if (timing) {
        add_idle(models::TimingModel::lazy_preservation_cycles(), counters.exception);
    }
}

void on_operand_site(uc_engine*, std::uint64_t, std::uint32_t, void* user) {
    const auto& site = *static_cast<OperandSite*>(user);
    nvic::CycleCounters& counters = site.feed->counters;
    counters.cycles += static_cast<std::uint64_t>(static_cast<std::int64_t>(site.executed_extra));
    counters.lsu += site.executed_extra_lsu;
    if (site.timing.op == models::TimingModel::OperandOp::None) return;
    // Part of the instruction's own cost, as the block's minimum is.
    counters.cycles += site.feed->timing->operand_extra(site.timing, site.core->core_register(site.rn), site.core->core_register(site.rm));
}

bool on_timed_access(uc_engine*, uc_mem_type, std::uint64_t address, int size, std::int64_t, void* user) {
    const auto& region = *static_cast<TimedRegion*>(user);
    TimingFeed& feed = *region.feed;
    // Only with the per-block model, whose block events are never deferred: nothing to flush first.
    if (region.wait_states) feed.add_idle(region.wait_states, feed.counters.stall);
    if (region.times_unaligned) {
        std::uint32_t extra = models::unaligned_transfer_extra(static_cast<std::uint32_t>(address), static_cast<unsigned>(size), region.wait_states);
        feed.counters.cycles += extra;
        feed.counters.lsu += extra;
    }
    return true;
}

}  // namespace emutrace::emu::detail
