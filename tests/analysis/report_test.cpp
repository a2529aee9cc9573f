#include <doctest/doctest.h>

#include <functional>
#include <map>

#include "analysis/calltrace/call_path_tree.h"
#include "analysis/calltrace/call_timeline.h"
#include "analysis/calltrace/profile.h"
#include "emu/machine.h"
#include "report/html.h"
#include "session/scenario.h"
#include "support/paths.h"

using namespace emutrace;
using namespace emutrace::test;

namespace {

struct ReportRun {
    std::map<std::string, std::uint64_t> exclusive;  ///< the profile's, by function name
    report::FlameNode flame;
    std::vector<report::Lane> lanes;
    std::uint64_t cycles = 0, timeline_min = 0;
};

ReportRun report_run(const std::string& elf, const std::string& scenario) {
    session::Scenario sc = session::load_scenario_file(source(scenario));
    sc.machine.echo_output = false;
    decode::ElfImage image = decode::ElfImage::load(firmware(elf));
    emu::Machine m(std::move(sc.machine), image);
    analysis::CallTracer tracer(image);
    analysis::Profile profile;
    analysis::CallPathTree paths(tracer);
    analysis::CallTimeline timeline(tracer);
    tracer.add_listener(profile);
    tracer.add_listener(paths);
    tracer.add_listener(timeline);
    m.add_sink(tracer);
    ReportRun r;
    r.cycles = m.run().cycles;
    for (const auto& [fn, s] : profile.overall()) r.exclusive[tracer.function_name(fn)] = s.exclusive;
    r.flame = paths.flame();
    r.lanes = timeline.lanes();
    r.timeline_min = timeline.min_cycles();
    return r;
}

/// Cycles of each name's own slices (its value less its children's), over the whole tree.
void self_by_name(const report::FlameNode& n, std::map<std::string, std::uint64_t>& out) {
    std::uint64_t children = 0;
    for (const auto& c : n.children) {
        children += c.value;
        self_by_name(c, out);
    }
    out[n.name] += n.value - children;
}

}  // namespace

TEST_CASE("report: the flame graph accounts every cycle to the function that ran it, as the profile's exclusive time does") {
    // Threads, preemption by SysTick and PendSV, and sleep in the idle thread's WFI.
    ReportRun r = report_run("franking", "scenarios/franking/franking.yaml");
    CHECK(r.flame.name == "all");
    CHECK(r.flame.value == r.cycles);
    std::map<std::string, std::uint64_t> self;
    self_by_name(r.flame, self);
    std::uint64_t compared = 0;
    for (const auto& [name, exclusive] : r.exclusive) {
        INFO(name);
        CHECK(self[name] == exclusive);
        compared += exclusive;
    }
    // What no function ran is the exception mechanism's (stacking and unstacking) or a thread's
    // before its first call.
    std::uint64_t roots = 0;
    for (const auto& [name, cycles] : self)
        if (!r.exclusive.count(name) && name != "exceptions") {
            roots += cycles;
        }
    CHECK(compared + self["exceptions"] + roots == r.cycles);
    // A thread's root holds only the moments after it is switched in before its first call.
    CHECK(roots < 100 * r.flame.children.size());
    CHECK(self["exceptions"] > 0);
    // Each thread is a tower of its own, and the handlers share one.
    std::vector<std::string> towers;
    for (const auto& c : r.flame.children) towers.push_back(c.name);
    CHECK(std::count(towers.begin(), towers.end(), "thread franker") == 1);
    CHECK(std::count(towers.begin(), towers.end(), "thread feeder") == 1);
    CHECK(std::count(towers.begin(), towers.end(), "exceptions") == 1);
}

TEST_CASE("report: the timeline draws each thread's calls nested in their callers, and when the thread ran") {
    ReportRun r = report_run("franking", "scenarios/franking/franking.yaml");
    std::map<std::string, const report::Lane*> lanes;
    for (const auto& l : r.lanes) lanes[l.name] = &l;
    REQUIRE(lanes.count("franker"));
    REQUIRE(lanes.count("exceptions"));
    CHECK(r.lanes.back().name == "exceptions");
    const report::Lane& franker = *lanes["franker"];
    CHECK(!franker.running.empty());
    std::size_t renders = 0;
    for (const auto& s : franker.spans) {
        CHECK(s.begin <= s.end);
        CHECK(s.end <= r.cycles);
        renders += s.name == "render_indicia";
        // A call below the outermost lies within a call one level up.
        if (s.depth > 0) {
            bool inside = std::any_of(franker.spans.begin(), franker.spans.end(),
                                      [&](const report::Span& p) { return p.depth + 1 == s.depth && p.begin <= s.begin && s.end <= p.end; });
            CHECK(inside);
        }
    }
    if (r.timeline_min == 0) CHECK(renders == 8);  // eight letters, each rendered once
    // The thread's running band never overlaps another thread's.
    for (const auto& [name, lane] : lanes) {
        if (name == "franker") continue;
        for (const auto& [b, e] : lane->running)
            for (const auto& [fb, fe] : franker.running) CHECK((e <= fb || fe <= b));
    }
}

TEST_CASE("report: text from the firmware is escaped before it reaches the page") {
    CHECK(report::escape("<script>alert('x')</script> & \"q\"") == "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; &quot;q&quot;");
    CHECK(report::escape(std::string("a\x01z", 3)) == "a\xEF\xBF\xBDz");
    CHECK(report::thousands(1272325) == "1,272,325");
    CHECK(report::thousands(0) == "0");
    CHECK(report::duration(48'000, 48'000'000) == "1.000 ms");
    CHECK(report::duration(24, 48'000'000) == "0.5 us");
}
