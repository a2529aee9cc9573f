#pragma once
// A sink that keeps what it is given, for tests to assert on.
#include <optional>
#include <string>
#include <vector>

#include "emutrace/sink.h"

namespace emutrace::test {

struct CollectingSink final : trace::TraceSink {
    std::uint32_t mask = trace::WantBlocks | trace::WantMmio | trace::WantOutput | trace::WantExceptions | trace::WantMarkers | trace::WantBranches;
    std::vector<trace::Event> markers;
    std::size_t branches = 0;
    std::size_t gaps = 0;
    std::size_t core_switches = 0;
    trace::RunInfo info;
    std::string text;
    std::uint64_t block_instructions = 0;
    std::size_t blocks = 0, batches = 0;
    std::vector<trace::Event> mmio;
    std::vector<trace::Event> stops;
    std::vector<trace::Event> exceptions;                        ///< entries and returns, in order
    std::vector<std::pair<std::uint32_t, std::string>> threads;  ///< (control block, name) at each switch
    std::uint64_t last_cycle = 0;
    bool cycles_monotonic = true;
    /// Each block starts no earlier than the previous one plus its cost.
    bool block_costs_consistent = true;
    std::uint64_t block_cycles = 0;  ///< sum of the blocks' costs
    std::optional<trace::Event> last_block;
    bool ended = false;
    std::vector<trace::Event> watches;
    std::vector<trace::Event> accesses;

    std::uint32_t wants() const override { return mask; }
    void on_start(const trace::RunInfo& i) override { info = i; }
    void on_batch(const trace::EventBatch& b) override {
        ++batches;
        for (const auto& e : b.events) {
            cycles_monotonic = cycles_monotonic && e.cycle >= last_cycle;
            last_cycle = e.cycle;
            switch (e.kind) {
                case trace::EventKind::Block:
                    ++blocks;
                    block_instructions += e.extra;
                    block_cycles += e.channel;
                    if (last_block) block_costs_consistent = block_costs_consistent && e.cycle >= last_block->cycle + last_block->channel;
                    last_block = e;
                    break;
                case trace::EventKind::MmioRead:
                case trace::EventKind::MmioWrite: mmio.push_back(e); break;
                case trace::EventKind::Output: text += b.output_text(e); break;
                case trace::EventKind::Stop: stops.push_back(e); break;
                case trace::EventKind::ExceptionEntry:
                case trace::EventKind::ExceptionReturn: exceptions.push_back(e); break;
                case trace::EventKind::ThreadSwitch: threads.emplace_back(e.address, std::string(b.thread_name(e))); break;
                case trace::EventKind::Marker: markers.push_back(e); break;
                case trace::EventKind::Branch: ++branches; break;
                case trace::EventKind::Gap: ++gaps; break;
                case trace::EventKind::Watch: watches.push_back(e); break;
                case trace::EventKind::Access: accesses.push_back(e); break;
                case trace::EventKind::CoreSwitch: ++core_switches; break;
                case trace::EventKind::PcSample:
                case trace::EventKind::DataTrace: break;  // trace-port events no test here counts
            }
        }
    }
    void on_end() override { ended = true; }
};

}  // namespace emutrace::test
