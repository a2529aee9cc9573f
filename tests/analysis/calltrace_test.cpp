#include <doctest/doctest.h>

#include <map>

#include "analysis/calltrace/call_tracer.h"
#include "analysis/calltrace/profile.h"
#include "emu/machine.h"
#include "session/scenario.h"
#include "support/paths.h"

using namespace emutrace;
using namespace emutrace::test;

namespace {

struct Traced {
    std::map<std::string, analysis::FunctionStats> functions;
    std::uint64_t unmatched = 0;
    std::uint64_t cycles = 0;
    std::vector<std::string> threads;
};

Traced trace_run(const std::string& elf, const std::string& scenario = "") {
    session::Scenario sc = scenario.empty() ? session::default_scenario() : session::load_scenario_file(source(scenario));
    sc.machine.echo_output = false;
    decode::ElfImage image = decode::ElfImage::load(firmware(elf));
    emu::Machine m(std::move(sc.machine), image);
    analysis::CallTracer tracer(image);
    analysis::Profile profile;
    tracer.add_listener(profile);
    m.add_sink(tracer);
    emu::RunResult r = m.run();
    Traced t;
    for (const auto& [fn, stats] : profile.overall()) t.functions[tracer.function_name(fn)] = stats;
    t.unmatched = tracer.unmatched_returns();
    t.cycles = r.cycles;
    t.threads = tracer.threads();
    return t;
}

}  // namespace

TEST_CASE("calltrace: calls and returns of the heapsort are counted exactly") {
    Traced t = trace_run("compute");
    // Heapsort of 256 elements: 128 sift_down calls build the heap, 255 more sort it.
    CHECK(t.functions.at("sift_down.constprop.0").calls == 128 + 255);
    CHECK(t.functions.at("main").calls == 1);
    CHECK(t.functions.at("fmt_str").calls == 3);
    CHECK(t.unmatched == 0);
    // print_to_uart ends in a tail call to uart_puts: both appear, each once.
    CHECK(t.functions.at("print_to_uart").calls == 1);
    CHECK(t.functions.at("uart_puts").calls == 1);
    // main's inclusive time holds its callees'; Reset_Handler holds the whole run.
    CHECK(t.functions.at("main").inclusive > t.functions.at("sift_down.constprop.0").inclusive);
    CHECK(t.functions.at("Reset_Handler").inclusive == t.cycles);
    std::uint64_t exclusive = 0;
    for (const auto& [name, s] : t.functions) exclusive += s.exclusive;
    CHECK(exclusive == t.cycles);
}

TEST_CASE("calltrace: handlers and threads get their own stacks") {
    Traced t = trace_run("rtos", "tests/scenarios/rtos.yaml");
    CHECK(t.unmatched == 0);
    CHECK(t.threads.size() >= 6);  // main, isr, consumer, producer, spinner-a, spinner-b
    CHECK(t.threads[1] == "isr");
    CHECK(t.functions.at("PendSV_Handler").calls == 35);
    CHECK(t.functions.at("spinner").calls == 2);  // one per spinner thread, each running to the end
    std::uint64_t exclusive = 0;
    for (const auto& [name, s] : t.functions) exclusive += s.exclusive;
    CHECK(exclusive <= t.cycles);
    CHECK(exclusive > t.cycles * 99 / 100);
}
