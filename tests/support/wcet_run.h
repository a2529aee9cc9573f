#pragma once
// One run of a WCET test firmware under the aggregation, with the statistics it measured: the
// input seed on the semihosting command line, the call-string length, and a function to profile.

#include <doctest/doctest.h>

#include <memory>
#include <string>
#include <vector>

#include "analysis/wcet/wcet_session.h"
#include "support/run_firmware.h"

namespace emutrace::test {

struct WcetRun {
    decode::ElfImage image;
    std::unique_ptr<analysis::wcet::WcetSession> session;
    analysis::wcet::StatisticsTable stats;
    WcetRun(const std::string& elf, unsigned seed, unsigned call_depth, const std::string& profiled = "")
        : image(decode::ElfImage::load(firmware(elf))) {
        session = std::make_unique<analysis::wcet::WcetSession>(image, call_depth);
        if (!profiled.empty()) session->profile(profiled);
        session::Scenario sc = session::default_scenario();
        sc.machine.echo_output = false;
        sc.machine.semihosting.cmdline = "seed=" + std::to_string(seed);
        sc.machine.trace_points = session->trace_points();
        emu::Machine m(std::move(sc.machine), image);
        for (trace::TraceSink* sink : session->sinks()) m.add_sink(*sink);
        REQUIRE(m.run().reason == emu::StopReason::Exited);
        stats = session->statistics({}, true);
    }
    /// `path_counts` false: any path mix (WcetQuery::path_counts), to see another mechanism alone.
    analysis::wcet::WcetResult bound(const std::string& f, unsigned depth, std::vector<analysis::wcet::FlowFact> facts = {},
                                     bool path_counts = true) const {
        return session->bound(stats, {f, std::move(facts), {}, depth, path_counts});
    }
};

/// Bounds from the statistics of seeds 1-3 merged, for each of `functions` of `elf`: trusted, and
/// at or above the longest run of each of seeds 4-8, held aside.
inline void check_held_aside(const std::string& elf, const std::vector<std::string>& functions) {
    std::vector<std::unique_ptr<WcetRun>> runs;
    for (unsigned seed = 1; seed <= 8; ++seed) runs.push_back(std::make_unique<WcetRun>(elf, seed, analysis::wcet::kDefaultCallDepth));
    analysis::wcet::StatisticsTable given = runs[0]->stats;
    given.merge(runs[1]->stats);
    given.merge(runs[2]->stats);
    for (const std::string& f : functions) {
        CAPTURE(f);
        analysis::wcet::WcetResult r = runs[0]->session->bound(given, {f, {}, {}, analysis::wcet::kDefaultCallDepth});
        CHECK(r.trusted());
        const std::uint32_t start = runs[0]->session->program().function(f)->start;
        for (std::size_t held = 3; held < runs.size(); ++held) {
            CAPTURE(held + 1);
            CHECK(r.bound_cycles >= runs[held]->stats.functions.at(start).time.max);
        }
    }
}

}  // namespace emutrace::test
