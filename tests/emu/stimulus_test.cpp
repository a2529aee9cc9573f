#include <doctest/doctest.h>

#include <vector>

#include "emu/stimulus_schedule.h"

using namespace emutrace::emu;

namespace {
struct Recorder final : StimulusTarget {
    std::vector<std::pair<std::uint64_t, int>> irqs;
    std::uint64_t now = 0;
    std::string rx;
    void raise_irq(int irq) override { irqs.emplace_back(now, irq); }
    void set_device_register(const std::string&, const std::string&, std::uint32_t) override {}
    void receive_bytes(const std::string&, std::string_view d) override { rx += d; }
};

std::vector<std::pair<std::uint64_t, int>> run(const std::vector<Stimulus>& s, std::uint64_t seed, std::uint64_t until) {
    StimulusSchedule sched(s, 1'000'000, seed);  // 1 MHz: 1 us = 1 cycle
    Recorder r;
    while (sched.next_time() <= until) {
        r.now = sched.next_time();
        sched.fire_due(r.now, r);
    }
    return r.irqs;
}
}  // namespace

TEST_CASE("stimuli: one-shot and periodic occurrences in cycles, in time order") {
    Stimulus once;
    once.irq = 1;
    once.at_seconds = 250e-6;
    Stimulus periodic;
    periodic.irq = 2;
    periodic.at_seconds = 100e-6;
    periodic.every_seconds = 200e-6;
    periodic.count = 3;
    auto got = run({once, periodic}, 1, 10'000);
    CHECK(got == std::vector<std::pair<std::uint64_t, int>>{{100, 2}, {250, 1}, {300, 2}, {500, 2}});
}

TEST_CASE("stimuli: jitter is bounded and reproducible from the seed") {
    Stimulus p;
    p.irq = 0;
    p.at_seconds = 1e-3;
    p.every_seconds = 1e-3;
    p.jitter_seconds = 100e-6;
    p.count = 50;
    auto a = run({p}, 7, 1'000'000), b = run({p}, 7, 1'000'000), c = run({p}, 8, 1'000'000);
    REQUIRE(a.size() == 50);
    CHECK(a == b);
    CHECK(a != c);
    bool any_moved = false;
    for (std::size_t k = 0; k < a.size(); ++k) {
        std::int64_t nominal = 1000 + static_cast<std::int64_t>(k) * 1000;
        std::int64_t off = static_cast<std::int64_t>(a[k].first) - nominal;
        CHECK(off >= -100);
        CHECK(off <= 100);
        any_moved |= off != 0;
    }
    CHECK(any_moved);
}
