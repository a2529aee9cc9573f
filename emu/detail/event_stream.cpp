#include "emu/detail/event_stream.h"

namespace emutrace::emu::detail {

void EventStream::start(const trace::RunInfo& info) {
    want_blocks = recorder.wants(trace::WantBlocks);
    want_mmio = recorder.wants(trace::WantMmio);
    want_output = recorder.wants(trace::WantOutput);
    want_exceptions = recorder.wants(trace::WantExceptions);
    want_markers = recorder.wants(trace::WantMarkers);
    want_branches = recorder.wants(trace::WantBranches);
    want_watches = recorder.wants(trace::WantWatches);
    want_samples = recorder.wants(trace::WantSamples);
    want_data_trace = recorder.wants(trace::WantDataTrace);
    want_block_costs = recorder.block_costs_wanted();
    branch_mask = want_branches ? 0xFF : 0;
    counts_only = !want_blocks && !want_branches;
    resumes(trace::BranchKind::Resume);  // the reset handler's first block
    recorder.start(info);
}

void EventStream::defer_block_event(std::uint64_t start, std::uint32_t pc, std::uint32_t size, const BlockInfo& b, const BlockCache& blocks) {
    if (!(b.flags & BlockInfo::Split)) return defer_whole_block_event(start, pc, size, b);
    flush_deferred_block(start);
    // The block's events go in now, in cycle order with what the block does, and get their
    // cycles when the next block starts; room is made so that the batch stays until then.
    recorder.make_room(kRoomForTheBlock);
    DeferredBlock& d = deferred_;
    d = {true, start, pc, size, b.instructions, 0, recorder.next_index(), recorder.batch_number()};
    for (const BlockPiece* pieces = blocks.pieces(b);; ++pieces) {
        recorder.push_block(start, pieces->address, pieces->size, pieces->instructions, 0, pieces->end);
        ++d.events;
        if (pieces->address + pieces->size >= pc + size) return;
    }
}

void EventStream::flush_deferred_block(std::uint64_t now) {
    DeferredBlock& d = deferred_;
    if (!d.active) return;
    d.active = false;
    trace::Event* events = recorder.unsent(d.first_event, d.batch);
    if (!events) return;  // a block with more events than the room made: its cost went out as 0
    std::uint64_t cycles = now > d.start ? now - d.start : 0, at = d.start, spent = 0;
    // Parts at trace points share the block's cycles by their instructions; the last takes the rest.
    for (std::uint32_t i = 0; i < d.events; ++i) {
        trace::Event& e = events[i];
        std::uint64_t part = i + 1 == d.events ? cycles - spent : cycles * e.extra / std::max<std::uint32_t>(d.instructions, 1);
        e.cycle = at;
        e.channel = static_cast<std::uint16_t>(std::min<std::uint64_t>(part, 0xFFFF));
        at += part;
        spent += part;
    }
}

void EventStream::push_branch(std::uint32_t target, std::uint64_t when, std::uint32_t fallthrough) {
    // A conditional return or jump that failed its condition went on to the next instruction: no
    // branch happened (a taken one never lands there: the instruction after a return in an IT
    // block is no call's return address, and a jump to it would be a no-op).
    if ((pending_branch & BlockInfo::kConditionalExit) && target == fallthrough) return;
    if (want_branches)
        recorder.push({when, target, static_cast<std::uint32_t>(pending_branch & ~(BlockInfo::kConditionalExit | BlockInfo::kIndirectExit)),
                       fallthrough, trace::EventKind::Branch, static_cast<std::uint8_t>(pending_branch & BlockInfo::kIndirectExit ? 1 : 0), 0});
}

void EventStream::push_exception_entry(std::uint64_t when, unsigned n, std::uint32_t return_address, std::uint32_t frame_at, bool from_psp,
                                       bool external) {
    if (want_exceptions)
        recorder.push({when, return_address, n, frame_at, trace::EventKind::ExceptionEntry, static_cast<std::uint8_t>(from_psp ? 1 : 0),
                       static_cast<std::uint16_t>(external ? 1 : 0)});
}

void EventStream::push_exception_return(std::uint64_t when, unsigned n, std::uint32_t to, std::uint32_t exc_return) {
    if (want_exceptions) recorder.push({when, to, n, exc_return, trace::EventKind::ExceptionReturn, 0, 0});
}

void EventStream::push_thread_switch(std::uint64_t when, std::uint32_t now, std::uint32_t before, std::string_view name) {
    if (!want_exceptions) return;
    const std::uint32_t text = recorder.keep_text(name);
    recorder.push({when, now, text, before, trace::EventKind::ThreadSwitch, 0, static_cast<std::uint16_t>(name.size())});
}

}  // namespace emutrace::emu::detail
