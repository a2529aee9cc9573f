// Emulate -> encode PFT -> decode with OpenCSD: the decoded program flow (instruction ranges,
// branch outcomes, exceptions and, cycle-accurate, cycle stamps) equals the emulator's own.
#include <doctest/doctest.h>

#include "analysis/crosscheck/program_flow.h"
#include "analysis/writers/pft_writer.h"
#include "models/core.h"
#include "support/run_firmware.h"
#include "trace/background_sink.h"

using namespace emutrace;
using namespace emutrace::test;

namespace {

struct RoundTrip {
    std::vector<analysis::FlowStep> emulated, decoded;
    analysis::FlowComparison comparison;
    decode::PftStats stats;
    decode::CaptureSummary summary;
    std::size_t bytes = 0;
};

std::vector<decode::MemoryImage> code_of(const decode::ElfImage& image) {
    std::vector<decode::MemoryImage> memory;
    for (const auto& s : image.segments())
        if (s.executable) memory.push_back({s.virtual_address, s.bytes});
    return memory;
}

RoundTrip round_trip(const std::string& elf, const std::string& scenario = "", const std::string& mode = "", bool cycle_accurate = true,
                     const std::string& core = "") {
    session::Scenario sc = scenario.empty() ? session::default_scenario() : session::load_scenario_file(source(scenario));
    sc.machine.echo_output = false;
    if (!mode.empty()) sc.machine.semihosting.cmdline = mode;
    if (!core.empty()) sc.machine.core = *models::find_core(core);
    decode::ElfImage image = decode::ElfImage::load(firmware(elf));
    emu::Machine m(std::move(sc.machine), image);
    analysis::FlowRecorder emulated(&image);
    analysis::PftOutput out;
    out.keep = true;
    out.options.cycle_accurate = cycle_accurate;
    analysis::PftWriter writer(out, image);
    m.add_sink(emulated);
    m.add_sink(writer);
    m.run();

    RoundTrip r;
    r.emulated = emulated.steps();
    analysis::FlowRecorder decoded(&image);
    r.summary = decode::decode_pft(writer.stream(), writer.registers(), code_of(image), {&decoded});
    r.decoded = decoded.steps();
    r.comparison = analysis::compare_flows(r.emulated, r.decoded, cycle_accurate);
    r.stats = writer.stats();
    r.bytes = writer.stream().size();
    return r;
}

void check_identical(const RoundTrip& r) {
    CHECK(r.emulated.size() > 3);
    CHECK(r.comparison.identical);
    if (!r.comparison.identical) {
        std::size_t i = r.comparison.first_divergence;
        MESSAGE("first divergence at step " << i << " of " << r.emulated.size() << "/" << r.decoded.size());
        for (std::size_t k = i >= 2 ? i - 2 : 0; k < i + 3; ++k)
            MESSAGE(k << ": emulated " << (k < r.emulated.size() ? analysis::describe(r.emulated[k]) : "-") << " | decoded "
                      << (k < r.decoded.size() ? analysis::describe(r.decoded[k]) : "-"));
    }
    CHECK(r.summary.gaps == 0);
    CHECK(r.stats.discontinuities == 0);
}

}  // namespace

TEST_CASE("pft round trip: every test firmware decodes with OpenCSD to the emulated flow, cycle-accurate") {
    struct Case {
        const char* elf;
        const char* scenario;
        const char* mode;
        const char* core = "";
    };
    const Case cases[] = {
        {"compute", "", ""},
        {"compute_m0", "", "", "cortex-m0"},
        {"compute_m4", "", "", "cortex-m4"},
        {"kernels", "", ""},
        {"dwt_timing", "", ""},
        {"cfg_shapes", "", ""},
        {"stub_reader", "tests/scenarios/stub_sensor.yaml", ""},
        {"uart_echo", "tests/scenarios/uart_rx.yaml", ""},
        {"rtos", "tests/scenarios/rtos.yaml", ""},
        {"irq_tests", "tests/scenarios/irq.yaml", "nested"},
        {"irq_tests", "tests/scenarios/irq.yaml", "tailchain"},
        {"irq_tests", "tests/scenarios/irq.yaml", "svc"},
        {"irq_tests", "tests/scenarios/irq.yaml", "pendsv"},
        {"faults", "tests/scenarios/faults.yaml", "exit 3"},
        {"franking", "scenarios/franking/franking.yaml", ""},
    };
    for (const auto& c : cases) {
        CAPTURE(c.elf);
        CAPTURE(c.mode);
        check_identical(round_trip(c.elf, c.scenario, c.mode, true, c.core));
    }
}

TEST_CASE("pft round trip: without cycle accuracy atoms pack five to a byte and the flow still matches") {
    RoundTrip ca = round_trip("kernels");
    RoundTrip plain = round_trip("kernels", "", "", false);
    check_identical(plain);
    CHECK(plain.stats.atoms == ca.stats.atoms);
    CHECK(plain.bytes * 2 < ca.bytes);  // no cycle counts, up to five atoms per byte
    CHECK(plain.summary.cycles == 0);
    CHECK(ca.summary.cycles >= ca.emulated.back().cycle);  // the counts add up to the last range's stamp
}

TEST_CASE("pft round trip: exceptions become exception packets with their numbers") {
    RoundTrip r = round_trip("irq_tests", "tests/scenarios/irq.yaml", "nested");
    check_identical(r);
    std::vector<std::uint32_t> numbers;
    for (const auto& s : r.decoded)
        if (s.kind == analysis::FlowStep::Kind::Exception) numbers.push_back(s.end);
    CHECK(numbers == std::vector<std::uint32_t>{16, 17});
    CHECK(r.summary.exceptions == 2);
    CHECK(r.summary.exception_returns == 2);
    CHECK(r.stats.exceptions == 2);
}

TEST_CASE("pft writer on its own thread (as emutrace run uses it) writes the same bytes as inline") {
    session::Scenario sc = session::load_scenario_file(source("tests/scenarios/rtos.yaml"));
    sc.machine.echo_output = false;
    decode::ElfImage image = decode::ElfImage::load(firmware("rtos"));
    emu::Machine m(std::move(sc.machine), image);
    analysis::PftOutput out;
    out.keep = true;
    analysis::PftWriter inline_writer(out, image), threaded_writer(out, image);
    trace::BackgroundSink background(threaded_writer, 512, 2);
    m.add_sink(inline_writer);
    m.add_sink(background);
    m.run();
    REQUIRE(inline_writer.stream().size() > 1000);
    CHECK(threaded_writer.stream() == inline_writer.stream());
    CHECK(threaded_writer.stats().exceptions == inline_writer.stats().exceptions);
}
