// trace::BackgroundSink: a sink on its own thread sees exactly the batches it would see directly.
#include <doctest/doctest.h>

#include <stdexcept>

#include "support/run_firmware.h"
#include "trace/background_sink.h"
#include "trace/event_recorder.h"

using namespace emutrace;
using namespace emutrace::test;

namespace {

// The rtos firmware through `sinks` added in order, on a fresh machine.
void run_rtos(std::initializer_list<trace::TraceSink*> sinks) {
    session::Scenario sc = session::load_scenario_file(source("tests/scenarios/rtos.yaml"));
    sc.machine.echo_output = false;
    decode::ElfImage image = decode::ElfImage::load(firmware("rtos"));
    emu::Machine m(std::move(sc.machine), image);
    for (auto* s : sinks) m.add_sink(*s);
    m.run();
}

// `seen` got the same batches, blocks, cycles, texts, threads, exceptions and stop as `expected`.
void check_same_events(const CollectingSink& seen, const CollectingSink& expected) {
    REQUIRE(expected.blocks > 1000);
    CHECK(seen.ended);
    CHECK(seen.batches == expected.batches);
    CHECK(seen.blocks == expected.blocks);
    CHECK(seen.block_instructions == expected.block_instructions);
    CHECK(seen.block_cycles == expected.block_cycles);
    CHECK(seen.last_cycle == expected.last_cycle);
    CHECK(seen.cycles_monotonic);
    CHECK(!seen.text.empty());
    CHECK(seen.text == expected.text);
    REQUIRE(!expected.threads.empty());
    CHECK(seen.threads == expected.threads);
    CHECK(seen.exceptions.size() == expected.exceptions.size());
    CHECK(seen.mmio.size() == expected.mmio.size());
    REQUIRE(seen.stops.size() == 1);
    CHECK(seen.stops[0].address == expected.stops[0].address);
}

}  // namespace

TEST_CASE("background sink: the rtos firmware's events, texts and thread names arrive unchanged and in order") {
    CollectingSink direct, behind;
    // Small chunks and only two of them: many hand-overs, and the emulation waits on the sink.
    trace::BackgroundSink background(behind, 300, 2);
    run_rtos({&direct, &background});
    check_same_events(behind, direct);
}

TEST_CASE("background sink: two on one machine, one written into in place and one copied into, see the same events") {
    CollectingSink direct, first, second;
    // The machine writes its batches into the first one's chunks; chunk sizes no batch divides.
    trace::BackgroundSink in_place(first, 1000, 3), copied(second, 700, 2);
    run_rtos({&in_place, &copied, &direct});
    check_same_events(first, direct);
    check_same_events(second, direct);
}

TEST_CASE("event recorder: a sink that lends storage gets every batch written where it lent it, and lends again after each") {
    struct Lender final : trace::TraceSink, trace::BatchStorage {
        std::vector<trace::Event> memory = std::vector<trace::Event>(4 * trace::EventRecorder::kBatchSize);
        std::size_t at = 0, lent = 0, in_place = 0, events = 0;
        trace::Event* next_batch(std::size_t n) override {
            ++lent;
            at = (at + n) % (memory.size() - n);  // somewhere else each time
            return memory.data() + at;
        }
        trace::BatchStorage* batch_storage() override { return this; }
        std::uint32_t wants() const override { return trace::WantBlocks; }
        void on_batch(const trace::EventBatch& b) override {
            in_place += b.events.data() == memory.data() + at;
            events += b.events.size();
        }
    } lender;
    CollectingSink reader;
    trace::EventRecorder recorder;
    recorder.add_sink(reader);
    recorder.add_sink(lender);
    recorder.start({});
    for (std::uint32_t i = 0; i < 1000; ++i) recorder.push_block(i * 3, 0x100 + 2 * i, 2, 1, 3);
    recorder.end();
    CHECK(lender.events == 1000);
    CHECK(reader.blocks == 1000);
    CHECK(reader.cycles_monotonic);
    CHECK(lender.in_place == 4);  // 256 + 256 + 256 + 232
    CHECK(lender.lent == 6);      // at add_sink, at start, after each batch
}

TEST_CASE("background sink: what the inner sink throws on its thread comes out of on_end, and later batches are dropped") {
    struct Failing final : trace::TraceSink {
        int batches = 0;
        bool ended = false;
        std::uint32_t wants() const override { return trace::WantBlocks; }
        void on_batch(const trace::EventBatch&) override {
            if (++batches == 3) throw std::runtime_error("disk full");
        }
        void on_end() override { ended = true; }
    } inner;
    trace::BackgroundSink background(inner, 4, 2);
    background.on_start({});
    trace::Event e{};
    e.kind = trace::EventKind::Block;
    for (int i = 0; i < 40; ++i) background.on_batch({std::span<const trace::Event>(&e, 1), {}});  // never throws
    CHECK_THROWS_WITH(background.on_end(), "disk full");
    CHECK(inner.batches == 3);
    CHECK(!inner.ended);
}
