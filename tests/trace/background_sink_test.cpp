// trace::BackgroundSink: a sink on its own thread sees exactly the batches it would see directly.
#include <doctest/doctest.h>

#include <stdexcept>

#include "support/run_firmware.h"
#include "trace/background_sink.h"

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
