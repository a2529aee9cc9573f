#pragma once
// The machine's side of the event stream: what the run's sinks want, the recorder that batches
// events for them, how the previous block left (reported when the next one starts) and, with
// TimingMode::Pipeline, the block whose event waits for its cycles.

#include <algorithm>
#include <cstdint>
#include <string_view>

#include "emu/detail/block_cache.h"
#include "emu/peripherals/peripheral.h"
#include "emutrace/event.h"
#include "trace/event_recorder.h"

namespace emutrace::emu::detail {

class EventStream {
public:
    /// Reads what the sinks want and starts the run's stream with `info`.
    void start(const trace::RunInfo& info);

    // --- Blocks --------------------------------------------------------------------------------

    /// A block about to run, whose cycles are known: its event, or its parts' events at trace points.
    void push_block(std::uint64_t start, std::uint32_t pc, std::uint32_t size, const BlockInfo& b, const BlockCache& blocks) {
        if (b.flags & BlockInfo::Split) [[unlikely]] {
            for (const BlockPiece* pieces = blocks.pieces(b);; ++pieces) {
                recorder.push_block(start, pieces->address, pieces->size, pieces->instructions, pieces->cycles, pieces->end);
                start += pieces->cycles;
                if (pieces->address + pieces->size >= pc + size) return;
            }
        }
        recorder.push_block(start, pc, size, b.instructions, b.cycles, b.end);
    }
    /// With TimingMode::Pipeline a block's event waits for the next block, which tells its cycles.
    void defer_block_event(std::uint64_t start, std::uint32_t pc, std::uint32_t size, const BlockInfo& b, const BlockCache& blocks);
    /// defer_block_event for a block with one event (not cut at trace points), inline for the hot
    /// path of a run whose sinks want blocks: the block before it (one event too, mostly) gets its
    /// cycles in place.
    void defer_whole_block_event(std::uint64_t start, std::uint32_t pc, std::uint32_t size, const BlockInfo& b) {
        DeferredBlock& d = deferred_;
        if (!want_block_costs && !d.active) [[likely]] {  // no sink reads its cost: it goes out as it starts
            recorder.push_block(start, pc, size, b.instructions, 0, b.end);
            return;
        }
        if (d.active && d.events == 1) [[likely]] {
            d.active = false;
            if (trace::Event* e = recorder.unsent(d.first_event, d.batch))
                e->channel = static_cast<std::uint16_t>(std::min<std::uint64_t>(start > d.start ? start - d.start : 0, 0xFFFF));
        } else {
            flush_deferred_block(start);
        }
        recorder.make_room(kRoomForTheBlock);
        d = {true, start, pc, size, b.instructions, 1, recorder.next_index(), recorder.batch_number()};
        recorder.push_block(start, pc, size, b.instructions, 0, b.end);
    }
    /// Pushes the deferred block's events with the cycles up to `now` (the next block, an
    /// exception, the end): before anything else is stamped later than the block.
    void flush_deferred_block(std::uint64_t now);

    // --- Branches ------------------------------------------------------------------------------

    /// The block about to run leaves by `exit` (BlockInfo::exit).
    void block_leaves(std::uint8_t exit) { pending_branch = exit & branch_mask; }
    /// Execution goes on at an exception's vector, or back from one (trace::BranchKind): the
    /// interrupted block's own exit no longer applies.
    void resumes(trace::BranchKind how) { pending_branch = static_cast<std::uint8_t>(how) & branch_mask; }
    /// Execution goes on where it stopped, with no branch to report (a debugger let it go).
    void forget_branch() { pending_branch = 0; }
    /// The Branch event for reaching the block at `target`, at `when`, for the previous block's
    /// exit (pending_branch), which falls through to `fallthrough`.
    void push_branch(std::uint32_t target, std::uint64_t when, std::uint32_t fallthrough);

    // --- What else happens ---------------------------------------------------------------------

    void push_marker(std::uint64_t when, std::uint32_t pc, std::uint32_t id, std::uint32_t payload, bool from_function) {
        if (want_markers) recorder.push({when, pc, id, payload, trace::EventKind::Marker, static_cast<std::uint8_t>(from_function ? 1 : 0), 0});
    }
    void push_watch(std::uint64_t when, std::uint32_t address, std::uint32_t r0, std::uint32_t r1) {
        if (want_watches) recorder.push({when, address, r0, r1, trace::EventKind::Watch, 0, 0});
    }
    void push_output(std::uint64_t when, std::uint16_t channel, std::string_view text) {
        if (want_output) recorder.push_output(when, channel, text);
    }
    void push_pc_sample(std::uint64_t when, std::uint32_t pc, std::uint16_t device) {
        if (want_samples) recorder.push({when, pc, 0, 0, trace::EventKind::PcSample, 0, device});
    }
    /// A DWT comparator traces a data access: which comparator, and the trace::DataTraceParts.
    void push_data_trace(std::uint64_t when, unsigned comparator, const DataAccess& a, std::uint16_t parts) {
        if (want_data_trace)
            recorder.push({when, a.address, a.value, a.pc, trace::EventKind::DataTrace, static_cast<std::uint8_t>(a.size),
                           static_cast<std::uint16_t>((comparator & 3u) | (a.store ? trace::kDataTraceWrite : 0) | parts)});
    }
    /// A device register read or written (EventKind::MmioRead or MmioWrite).
    void push_mmio(trace::EventKind kind, std::uint64_t when, std::uint32_t address, std::uint32_t value, std::uint32_t offset, unsigned size,
                   std::uint16_t device) {
        if (want_mmio) recorder.push({when, address, value, offset, kind, static_cast<std::uint8_t>(size), device});
    }
    /// A load or store to RAM by the instruction at `pc`, with `sp`, under an interrupt mask or not.
    void push_ram_access(std::uint64_t when, std::uint32_t address, std::uint32_t sp, std::uint32_t pc, unsigned size, bool write, bool masked) {
        recorder.push({when, address, sp, pc, trace::EventKind::Access, static_cast<std::uint8_t>(size),
                       static_cast<std::uint16_t>((write ? 1 : 0) | (masked ? 2 : 0))});
    }
    /// Exception `n` entered, returning to `return_address`, its frame at `frame_at`.
    void push_exception_entry(std::uint64_t when, unsigned n, std::uint32_t return_address, std::uint32_t frame_at, bool from_psp, bool external);
    /// Exception `n` returned to `to` by `exc_return`.
    void push_exception_return(std::uint64_t when, unsigned n, std::uint32_t to, std::uint32_t exc_return);
    /// The RTOS's current thread changed from `before` to `now`, named `name`.
    void push_thread_switch(std::uint64_t when, std::uint32_t now, std::uint32_t before, std::string_view name);
    /// The run's last event, then the sinks' end.
    void end(const trace::Event& stop) {
        recorder.push(stop);
        recorder.end();
    }

    trace::EventRecorder recorder;

private:
    /// Events a deferred block may push before its cycles are known, kept in one batch.
    static constexpr std::size_t kRoomForTheBlock = 64;
    struct DeferredBlock {
        bool active = false;
        std::uint64_t start = 0;
        std::uint32_t pc = 0, size = 0, instructions = 0;
        std::uint32_t events = 0;     ///< its Block events (its parts at trace points)
        std::size_t first_event = 0;  ///< where they are in the recorder's batch
        std::uint64_t batch = 0;      ///< and which batch that is
    } deferred_;

public:
    // Read by the block hooks' hot paths, so kept last, beside the machine's other hot state.
    bool want_blocks = false, want_mmio = false, want_output = false, want_exceptions = false, want_markers = false;
    bool want_branches = false, want_watches = false, want_samples = false, want_data_trace = false;
    bool want_block_costs = true;  ///< a sink reads blocks' costs: whole blocks wait for the next one's start
    /// How the previous block left (trace::BranchKind), reported when the next block starts;
    /// kept 0 when no sink wants branches (branch_mask), so the hot path never takes that turn.
    std::uint8_t pending_branch = 0;
    std::uint8_t branch_mask = 0;
    /// No sink wants blocks or branches: the pipeline's hot path only counts (one test there).
    bool counts_only = true;
};

}  // namespace emutrace::emu::detail
