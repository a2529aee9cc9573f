// trace::BackgroundSink: a sink on its own thread sees exactly the batches it would see directly.
#include <doctest/doctest.h>

#include <stdexcept>

#include "support/run_firmware.h"
#include "trace/background_sink.h"
#include "trace/event_recorder.h"

using namespace emutrace;
using namespace emutrace::test;

TEST_CASE("background sink: the rtos firmware's events, texts and thread names arrive unchanged and in order") {
    app::Scenario sc = app::load_scenario_file(source("tests/scenarios/rtos.yaml"));
    sc.machine.echo_output = false;
    decode::ElfImage image = decode::ElfImage::load(firmware("rtos"));
    emu::Machine m(std::move(sc.machine), image);
    CollectingSink direct, behind;
    // Small chunks and only two of them: many hand-overs, and the emulation waits on the sink.
    trace::BackgroundSink background(behind, 300, 2);
    m.add_sink(direct);
    m.add_sink(background);
    m.run();

    REQUIRE(direct.blocks > 1000);
    CHECK(behind.ended);
    CHECK(behind.batches == direct.batches);
    CHECK(behind.blocks == direct.blocks);
    CHECK(behind.block_instructions == direct.block_instructions);
    CHECK(behind.block_cycles == direct.block_cycles);
    CHECK(behind.last_cycle == direct.last_cycle);
    CHECK(behind.cycles_monotonic);
    CHECK(!behind.text.empty());
    CHECK(behind.text == direct.text);
    REQUIRE(!direct.threads.empty());
    CHECK(behind.threads == direct.threads);
    CHECK(behind.exceptions.size() == direct.exceptions.size());
    CHECK(behind.mmio.size() == direct.mmio.size());
    REQUIRE(behind.stops.size() == 1);
    CHECK(behind.stops[0].address == direct.stops[0].address);
}

TEST_CASE("background sink: two on one machine, one written into in place and one copied into, see the same events") {
    decode::ElfImage image = decode::ElfImage::load(firmware("rtos"));
    app::Scenario sc = app::load_scenario_file(source("tests/scenarios/rtos.yaml"));
    sc.machine.echo_output = false;
    emu::Machine m(std::move(sc.machine), image);
    CollectingSink first, second;
    trace::BackgroundSink in_place(first, 1000, 3), copied(second, 700, 2);  // chunk sizes no batch divides
    m.add_sink(in_place);  // the machine writes its batches into this one's chunks
    m.add_sink(copied);
    m.run();

    REQUIRE(first.blocks > 1000);
    CHECK(second.batches == first.batches);
    CHECK(second.blocks == first.blocks);
    CHECK(second.block_cycles == first.block_cycles);
    CHECK(second.last_cycle == first.last_cycle);
    CHECK(second.text == first.text);
    CHECK(second.threads == first.threads);
    CHECK(first.cycles_monotonic);
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
