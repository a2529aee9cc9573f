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

namespace {

/// Call events as the tracer emits them, fed to the report's listeners and the profile alike.
struct Listeners {
    decode::ElfImage image = decode::ElfImage::load(firmware("franking"));
    analysis::CallTracer tracer{image};
    analysis::Profile profile;
    analysis::CallPathTree paths{tracer};
    analysis::CallTimeline timeline{tracer};
    void feed(const analysis::CallEvent& e) {
        profile.on_call_event(e);
        paths.on_call_event(e);
        timeline.on_call_event(e);
    }
    void finish(std::uint64_t end) {
        paths.on_finish(end);
        timeline.on_finish(end);
    }
    std::uint32_t at(const char* name) const { return *image.symbols().address_of(name); }
};

analysis::CallEvent event(analysis::CallEvent::Kind kind, std::uint64_t cycle, std::uint32_t function, std::uint32_t depth,
                          std::uint32_t context = 0) {
    analysis::CallEvent e;
    e.kind = kind;
    e.cycle = cycle;
    e.function = function;
    e.depth = depth;
    e.context = context;
    e.thread = context;
    return e;
}

}  // namespace

TEST_CASE("report: a BL into a function's own body (a frame the tracer counts in its depth but enters no function) nests nothing") {
    // main calls f and g from code it reached by `bl 1f`: the tracer's depth for f and g is 2.
    using K = analysis::CallEvent::Kind;
    Listeners l;
    const std::uint32_t main = l.at("main"), f = l.at("render_frame"), g = l.at("render_indicia");
    for (const auto& e : {event(K::Entry, 0, main, 0), event(K::Entry, 10, f, 2), event(K::Exit, 20, f, 2), event(K::Entry, 50, g, 2),
                          event(K::Exit, 60, g, 2), event(K::Exit, 100, main, 0)})
        l.feed(e);
    l.finish(100);
    std::map<std::string, std::uint64_t> self;
    self_by_name(l.paths.flame(), self);
    CHECK(self["main"] == l.profile.overall().at(main).exclusive);
    CHECK(self["main"] == 80);
    CHECK(self["render_frame"] == 10);
    CHECK(self["render_indicia"] == 10);
    // f and g are main's callees, side by side, at depth 1 of the timeline.
    std::vector<report::Lane> lanes = l.timeline.lanes();
    REQUIRE(lanes.size() == 1);
    std::map<std::string, std::uint32_t> depth;
    for (const auto& s : lanes[0].spans) depth[s.name] = s.depth;
    CHECK(depth.size() == 3);
    CHECK(depth["render_frame"] == 1);
    CHECK(depth["render_indicia"] == 1);
}

TEST_CASE("report: a thread whose first event is an exception return keeps its own tower in the flame graph") {
    using K = analysis::CallEvent::Kind;
    Listeners l;
    analysis::CallEvent back = event(K::ExceptionReturn, 40, 15, 0, 0);
    back.thread = 1;  // the tracer's: the handlers'
    l.feed(event(K::ExceptionEntry, 0, 15, 0, 0));
    l.feed(back);
    l.feed(event(K::Entry, 50, l.at("main"), 0, 0));
    l.feed(event(K::Exit, 90, l.at("main"), 0, 0));
    l.finish(100);
    std::vector<std::string> towers;
    for (const auto& c : l.paths.flame().children) towers.push_back(c.name);
    CHECK(std::count(towers.begin(), towers.end(), "thread main") == 1);
    CHECK(std::count(towers.begin(), towers.end(), "thread isr") == 0);
}

TEST_CASE("report: a hundred thousand thread switches keep the running bands bounded and reaching the end of the run") {
    using K = analysis::CallEvent::Kind;
    Listeners l;
    std::uint64_t cycle = 0;
    for (std::uint32_t i = 0; i < 100'000; ++i) {
        analysis::CallEvent e = event(K::ThreadSwitch, cycle += 100 + i % 7, 0, 0, 2 + i % 3);
        l.feed(e);
    }
    l.finish(cycle + 1000);
    std::size_t slices = 0;
    std::uint64_t last_end = 0;
    for (const auto& lane : l.timeline.lanes()) {
        slices += lane.running.size();
        for (const auto& [b, e] : lane.running) {
            CHECK(b < e);
            last_end = std::max(last_end, e);
        }
    }
    CHECK(slices <= analysis::CallTimeline::kMaxSpans);
    // Gaps of a few hundred cycles in a run of millions are closed: each thread's band is solid,
    // as a page could only draw it.
    CHECK(slices >= 3);
    CHECK(last_end == cycle + 1000);
}
