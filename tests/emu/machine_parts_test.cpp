// The machine's components on their own: the board's clocks, the bus's device lookup and
// unclaimed-MMIO reporting, the event stream's deferred blocks and branch reports. The whole
// machine's behaviour is tested on firmware elsewhere; these pin what each component owns.

#include <doctest/doctest.h>

#include <vector>

#include "emu/detail/device_bus.h"
#include "emu/detail/event_stream.h"

using namespace emutrace;
using emu::detail::BoardClocks;
using emu::detail::DeviceBus;
using emu::detail::EventStream;

namespace {

struct Collect final : trace::TraceSink {
    std::uint32_t mask;
    std::vector<trace::Event> events;
    explicit Collect(std::uint32_t m) : mask(m) {}
    std::uint32_t wants() const override { return mask; }
    void on_batch(const trace::EventBatch& b) override { events.insert(events.end(), b.events.begin(), b.events.end()); }
};

std::vector<trace::Event> of_kind(const std::vector<trace::Event>& events, trace::EventKind kind) {
    std::vector<trace::Event> out;
    for (const auto& e : events)
        if (e.kind == kind) out.push_back(e);
    return out;
}

emu::detail::BlockInfo block(std::uint32_t address, std::uint32_t size, std::uint16_t instructions, std::uint8_t exit = 0) {
    emu::detail::BlockInfo b;
    b.address = address;
    b.size = size;
    b.instructions = instructions;
    b.exit = exit;
    return b;
}

}  // namespace

TEST_CASE("board clocks: emulated time adds up over core clock changes, other clocks keep their rate") {
    BoardClocks clocks(8'000'000);
    CHECK(clocks.seconds(8'000'000) == doctest::Approx(1.0));
    clocks.set("core", 72'000'000, 8'000'000);  // the PLL switched in after one second
    CHECK(clocks.core_hz() == 72'000'000);
    CHECK(clocks.seconds(8'000'000 + 36'000'000) == doctest::Approx(1.5));
    clocks.set("core", 0, 50'000'000);  // a stopped core clock is ignored: the core's never stops
    CHECK(clocks.rate("core") == 72'000'000);
    clocks.set("adcclk", 12'000'000, 0);
    CHECK(clocks.rate("adcclk") == 12'000'000);
    CHECK(clocks.rate("never set") == 0);
}

TEST_CASE("device bus: with no device every address is unclaimed, and unclaimed accesses are reported within a bound") {
    DeviceBus bus({}, 8'000'000);
    // No device attached: nothing claims any address.
    CHECK(bus.at(0x40000000) == nullptr);
    CHECK(bus.named("usart1") == nullptr);

    // Under the log policy: each address once, up to the bound, then one more report that says so.
    for (std::uint32_t i = 0; i < DeviceBus::kUnclaimedReports; ++i)
        CHECK(bus.note_unclaimed(0x40000000 + 4 * i, emu::UnclaimedMmio::Log) == DeviceBus::Unclaimed::Report);
    CHECK(bus.note_unclaimed(0x40000000, emu::UnclaimedMmio::Log) == DeviceBus::Unclaimed::Quiet);  // reported before
    CHECK(bus.note_unclaimed(0x50000000, emu::UnclaimedMmio::Log) == DeviceBus::Unclaimed::TooMany);
    CHECK(bus.note_unclaimed(0x50000004, emu::UnclaimedMmio::Log) == DeviceBus::Unclaimed::Quiet);
    // Under the fault policy every access is reported (the run stops at the first).
    CHECK(bus.note_unclaimed(0x40000000, emu::UnclaimedMmio::Fault) == DeviceBus::Unclaimed::Report);
    CHECK(bus.unclaimed_accesses() == DeviceBus::kUnclaimedReports + 4);
}

TEST_CASE("event stream: a deferred block's event gets the cycles up to the next block") {
    EventStream stream;
    Collect sink(trace::WantBlocks);
    stream.recorder.add_sink(sink);
    stream.start({});
    REQUIRE(stream.want_blocks);
    stream.defer_whole_block_event(100, 0x1000, 8, block(0x1000, 8, 3));
    stream.defer_whole_block_event(130, 0x1008, 4, block(0x1008, 4, 2));  // the first took 30 cycles
    stream.flush_deferred_block(145);                                     // the second 15
    stream.flush_deferred_block(200);                                     // nothing deferred now: no change
    stream.end({});
    const std::vector<trace::Event> blocks = of_kind(sink.events, trace::EventKind::Block);
    REQUIRE(blocks.size() == 2);
    CHECK(blocks[0].address == 0x1000);
    CHECK(blocks[0].cycle == 100);
    CHECK(blocks[0].channel == 30);
    CHECK(blocks[1].address == 0x1008);
    CHECK(blocks[1].cycle == 130);
    CHECK(blocks[1].channel == 15);
}

TEST_CASE("event stream: a conditional exit that falls through is no branch, a taken one is reported") {
    EventStream stream;
    Collect sink(trace::WantBranches);
    stream.recorder.add_sink(sink);
    stream.start({});
    const auto conditional_jump =
        static_cast<std::uint8_t>(static_cast<std::uint8_t>(trace::BranchKind::Jump) | emu::detail::BlockInfo::kConditionalExit);
    stream.block_leaves(conditional_jump);
    stream.push_branch(0x2010, 50, 0x2010);  // to its fall-through: the condition failed
    stream.block_leaves(conditional_jump);
    stream.push_branch(0x3000, 60, 0x2010);  // elsewhere: taken
    stream.end({});
    const std::vector<trace::Event> branches = of_kind(sink.events, trace::EventKind::Branch);
    REQUIRE(branches.size() == 1);
    CHECK(branches[0].address == 0x3000);
    CHECK(branches[0].value == static_cast<std::uint32_t>(trace::BranchKind::Jump));
    CHECK(branches[0].extra == 0x2010);
    CHECK(branches[0].cycle == 60);
}
