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
    analysis::wcet::WcetResult bound(const std::string& f, unsigned depth, std::vector<analysis::wcet::FlowFact> facts = {}) const {
        return session->bound(stats, {f, std::move(facts), {}, depth});
    }
};

}  // namespace emutrace::test
