#include "emutrace/session.h"
#include "config/json_text.h"
#include "config/text_file.h"
#include "decode/in_tree_setup.h"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <map>
#include <optional>

#include <spdlog/spdlog.h>
#include <nlohmann/json.hpp>

#include "config/units.h"
#include "debug/gdb/gdb_stub.h"
#include "decode/elf_image.h"
#include "decode/memory_dump.h"
#include "decode/program.h"
#include "emu/machine.h"
#include "models/core.h"
#include "report/run_page.h"
#include "session/checkpoint_sink.h"
#include "session/hang_report.h"
#include "session/junit_report.h"
#include "session/progress_meter.h"
#include "session/run_report.h"
#include "session/scenario.h"

namespace emutrace {
namespace {

// The built-in board, or the scenario file with the plug-ins it names loaded into `registry`.
session::Scenario load(const std::string& path, const std::vector<std::string>& settings, AnalysisRegistry& registry) {
    if (path.empty()) return session::default_scenario(settings);
    config::Node root = session::load_board(path).with_settings(settings);  // a file, or a board preset by name
    for (const auto& plugin : session::scenario_plugins(root)) registry.load_plugin(plugin);
    return session::load_scenario(root, registry);
}

// The writable, non-MMIO regions as the run left them: what a board's memory dump holds.
void write_ram_dump(const emu::Machine& machine, const std::string& path) {
    std::vector<decode::DumpRange> ranges;
    for (const emu::MemoryRegion& r : machine.config().memory)
        if (!r.mmio && (r.access & emu::AccessWrite)) ranges.push_back({r.base, r.size});
    decode::MemoryDump::save_elf_core(path, ranges, [&](std::uint32_t address, std::uint32_t size) { return machine.read_memory(address, size); });
}

// Command-line flags override the scenario file.
void apply(const MachineOverrides& o, emu::MachineConfig& m) {
    if (o.cpu) {
        auto core = models::find_core(*o.cpu);
        if (!core) throw ConfigError("--cpu: unknown core '" + *o.cpu + "' (known: " + models::core_names() + ")");
        m.core = *core;
    }
    if (o.clock) {
        auto hz = config::parse_frequency(*o.clock);
        if (!hz) throw ConfigError("--clock: expected a frequency such as 168MHz, got '" + *o.clock + "'");
        m.clock_hz = *hz;
    }
    if (o.timing) m.timing = session::timing_option(*o.timing);
    if (o.max_instructions) m.stop.max_instructions = *o.max_instructions;
    if (o.wall_clock_seconds) m.stop.wall_clock_seconds = *o.wall_clock_seconds;
    if (o.stop_at) m.stop.at_symbol = *o.stop_at;
    if (o.cmdline) m.semihosting.cmdline = *o.cmdline;
    if (o.seed) m.seed = *o.seed;
    m.echo_output = o.echo_output;
}

// The ELF to run: the request's, else the one the scenario names (a path, or the name of an ELF
// the build put next to the emutrace binary, in firmware/).
std::string firmware_path(const RunRequest& r, const session::Scenario& sc) {
    if (!r.firmware.empty()) return r.firmware;
    if (sc.firmware.empty()) {
        if (!r.source.empty()) return "";  // a recorded source may decode without symbols (the ELF comes from --elf)
        throw ConfigError("no firmware: give an ELF on the command line, or a scenario with a 'firmware:' key");
    }
    if (sc.firmware.find('/') != std::string::npos) return sc.firmware;
    std::error_code ec;
    std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
    std::filesystem::path elf = exe.parent_path() / "firmware" / (sc.firmware + ".elf");
    if (!std::filesystem::exists(elf))
        throw ConfigError(sc.file + ": firmware '" + sc.firmware + "' is not built (looked for " + elf.string() +
                          "); build it with cmake --build, or give the ELF on the command line");
    return elf.string();
}

// The process's resident memory now, for the checkpoints of a long run (0 where /proc has none).
std::uint64_t resident_kib() {
    std::FILE* f = std::fopen("/proc/self/statm", "r");
    if (!f) return 0;
    unsigned long long size = 0, resident = 0;
    int n = std::fscanf(f, "%llu %llu", &size, &resident);
    std::fclose(f);
    return n == 2 ? resident * static_cast<std::uint64_t>(sysconf(_SC_PAGESIZE)) / 1024 : 0;
}

}  // namespace

struct Session::Impl final : InTreeSetup {
    AnalysisRegistry registry;
    RunRequest request;
    session::Scenario scenario;
    std::string elf;
    std::optional<decode::ElfImage> loaded;  ///< the firmware; none for a capture without one
    struct Running {
        std::string name;
        std::unique_ptr<Analysis> analysis;
    };
    std::vector<Running> analyses;
    std::unique_ptr<debug::gdb::GdbStub> gdb;  ///< --gdb: before the machine, which holds a pointer to it
    std::unique_ptr<emu::Machine> machine;
    std::unique_ptr<trace::RecordedSource> recorded;  ///< a registered source instead of the machine
    bool ran = false;

    // run()'s steps (below it).
    nlohmann::json source_result(RunReport& report, std::string& firmware_failed);
    void collect_analyses(RunReport& report, nlohmann::json& j, std::vector<TestCase>& cases, std::vector<emutrace::report::Part>& report_parts);

    Impl(const AnalysisRegistry& r, RunRequest req)
        : registry(r), request(std::move(req)), scenario(load(request.scenario, request.settings, registry)) {}

    // AnalysisSetup: what each analysis is built from.
    config::Node section(std::string_view key) const override { return (*scenario.root)[key]; }
    std::string output(std::string_view key) const override {
        auto it = request.options.find(std::string(key));
        if (it != request.options.end()) return it->second;
        auto s = scenario.outputs.find(std::string(key));
        return s == scenario.outputs.end() || !request.scenario_outputs ? "" : s->second;
    }
    std::optional<std::string> flag(std::string_view name) const override {
        auto it = request.options.find(std::string(name));
        return it == request.options.end() ? std::nullopt : std::optional<std::string>(it->second);
    }
    const std::string& scenario_file() const override { return scenario.file; }
    const std::string& firmware() const override { return elf; }
    std::optional<std::uint32_t> address_of(std::string_view symbol) const override {
        return loaded ? loaded->symbols().address_of(std::string(symbol)) : std::nullopt;
    }
    std::string describe(std::uint32_t address) const override { return loaded ? loaded->symbols().describe(address) : config::hex32(address); }
    std::uint64_t clock_hz() const override { return machine ? machine->config().clock_hz : scenario.machine.clock_hz; }
    std::string_view cycle_model() const override { return emu::to_string(machine ? machine->config().timing : scenario.machine.timing); }
    bool emulated() const override { return !recorded; }
    const decode::ElfImage& image() const override {
        if (!loaded) throw ConfigError(request.source_input + ": the analyses need the traced firmware's symbols: give the ELF (--elf)");
        return *loaded;
    }
    const decode::Program& program() const override {
        if (!program_built) program_built = decode::Program::build(image());
        return *program_built;
    }
    mutable std::optional<decode::Program> program_built;  ///< on the first analysis that asks
    std::string_view core() const override { return machine ? machine->config().core.name : scenario.machine.core.name; }
    decode::ThreadNames thread_names() const override { return {scenario.machine.rtos.name_offset, scenario.machine.rtos.name_length}; }

    // --checkpoint-every: the JSON result rewritten as the run goes, so that a run of days that is
    // killed keeps its figures up to the last period (the analyses' checkpoint()).
    std::unique_ptr<session::CheckpointSink> checkpoints() {
        std::string every = output("checkpoint_every");
        if (every.empty()) return nullptr;
        const std::string what = "--checkpoint-every / outputs.checkpoint_every";
        std::optional<double> seconds = config::parse_seconds(every);
        if (!seconds || *seconds <= 0) throw ConfigError(what + ": '" + every.substr(0, 80) + "' is no duration (10s, 15min, 1h)");
        std::string path = output("json");
        if (path.empty()) throw ConfigError(what + ": the checkpoints rewrite the JSON result: give --json FILE (or outputs.json)");
        std::uint64_t hz = clock_hz();
        if (!hz) throw ConfigError(what + ": the source has no clock to measure emulated time by");
        auto period = static_cast<std::uint64_t>(*seconds * static_cast<double>(hz));
        auto started = std::chrono::steady_clock::now();
        return std::make_unique<session::CheckpointSink>(period, [this, path, hz, started, n = std::uint64_t{0}](std::uint64_t cycle) mutable {
            nlohmann::json j;
            rusage usage{};
            getrusage(RUSAGE_SELF, &usage);
            j["status"] = "running";
            j["checkpoint"] = {{"number", ++n},
                               {"cycle", cycle},
                               {"emulated_seconds", static_cast<double>(cycle) / static_cast<double>(hz)},
                               {"host_seconds", std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count()},
                               {"rss_kib", resident_kib()},
                               {"peak_rss_kib", usage.ru_maxrss}};
            for (const auto& a : analyses) {
                try {  // e.g. no bound yet: the function has not run
                    std::string text = a.analysis->checkpoint();
                    if (text.empty()) continue;
                    nlohmann::json value = nlohmann::json::parse(text, nullptr, false);
                    if (!value.is_discarded()) j[a.name] = std::move(value);
                } catch (const std::exception& e) {
                    j[a.name] = {{"not_yet", e.what()}};
                }
            }
            // Written beside and renamed over: a kill during the write leaves the last whole checkpoint.
            try {
                config::write_text_file(path + ".partial", config::json_text(j, 2) + "\n", "checkpoint");
                std::filesystem::rename(path + ".partial", path);
            } catch (const std::exception& e) {  // no exception crosses the source's callbacks
                spdlog::warn("{}: checkpoint {} not written: {}", path, n, e.what());
            }
        });
    }

    // The registered source the request names, opened on its input.
    std::unique_ptr<trace::RecordedSource> open_source() const {
        const SourceType* type = registry.find_source(request.source);
        if (!type) {
            std::string known;
            for (const auto& t : registry.sources()) known += (known.empty() ? "" : ", ") + t.name;
            throw ConfigError("no trace source named '" + request.source + "' (known: " + known + ")");
        }
        if (request.source_input.empty()) throw ConfigError(request.source + ": give its input: " + type->input);
        if (type->needs_firmware && !loaded)
            throw ConfigError(request.source_input + ": decoding a " + type->name + " trace needs the traced firmware: give the ELF (--elf)");
        std::unique_ptr<trace::RecordedSource> source = type->open(*this, request.source_input);
        if (!source) throw ConfigError(request.source_input + ": the " + type->name + " source opened nothing");
        return source;
    }

    // Every option must be one some analysis or the run itself takes.
    void check_options() const {
        for (const auto& [name, value] : request.options) {
            bool known = name == "gdb" || std::count(std::begin(session::kRunOutputs), std::end(session::kRunOutputs), name) > 0 ||
                         std::count(std::begin(session::kRunOutputSettings), std::end(session::kRunOutputSettings), name) > 0;
            for (const auto& t : registry.types()) {
                for (const auto& o : t.outputs) known = known || o.name == name;
                for (const auto& f : t.flags) known = known || f.name == name;
            }
            if (const SourceType* source = registry.find_source(request.source))
                for (const auto& o : source->options) known = known || o.name == name;
            if (!known)
                throw ConfigError("--" + name + ": no registered analysis" +
                                  std::string(request.source.empty() ? "" : " or the " + request.source + " source") +
                                  " takes this option (see emutrace analyses)");
        }
        // Two outputs into one file: the second would overwrite the first without a word.
        std::vector<std::string> files(std::begin(session::kRunOutputs), std::end(session::kRunOutputs));
        for (const auto& t : registry.types())
            for (const auto& o : t.outputs)
                if (o.value_name == "FILE" || o.value_name == "DIR") files.push_back(o.name);
        std::map<std::string, std::string> writer;  // path -> the output writing it
        for (const auto& key : files) {
            std::string path = output(key);
            if (path.empty() || path.rfind("/dev/", 0) == 0) continue;
            std::string normal = std::filesystem::weakly_canonical(path).string();
            auto [it, added] = writer.emplace(normal, key);
            if (!added) throw ConfigError(path + ": both the " + it->second + " and the " + key + " output write this file; give each its own");
        }
    }
};

Session::Session(const AnalysisRegistry& registry, RunRequest request) : impl_(std::make_unique<Impl>(registry, std::move(request))) {
    Impl& s = *impl_;
    s.check_options();
    apply(s.request.machine, s.scenario.machine);
    s.elf = firmware_path(s.request, s.scenario);
    if (!s.elf.empty()) s.loaded = decode::ElfImage::load(s.elf);
    if (s.loaded) session::take_core_built_for(s.scenario, *s.loaded, s.request.machine.cpu.has_value());
    if (s.loaded) session::take_rtos_preset(s.scenario, *s.loaded);
    if (!s.request.source.empty()) s.recorded = s.open_source();
    std::vector<std::uint32_t> points, watches;
    for (const auto& type : s.registry.types()) {
        std::unique_ptr<Analysis> a = type.create(s);
        if (!a) continue;
        std::vector<std::uint32_t> p = a->trace_points(), w = a->watch_points();
        points.insert(points.end(), p.begin(), p.end());
        watches.insert(watches.end(), w.begin(), w.end());
        s.analyses.push_back({type.name, std::move(a)});
    }
    if (s.recorded) return;
    watches.insert(watches.end(), s.request.watch_points.begin(), s.request.watch_points.end());
    std::sort(points.begin(), points.end());
    points.erase(std::unique(points.begin(), points.end()), points.end());
    s.scenario.machine.trace_points = std::move(points);
    std::sort(watches.begin(), watches.end());
    watches.erase(std::unique(watches.begin(), watches.end()), watches.end());
    s.scenario.machine.watch_points = std::move(watches);
    if (auto g = s.request.options.find("gdb"); g != s.request.options.end()) {
        // A replay's run is its log's, moment for moment: GDB can go back in it (reverse execution).
        const bool replay = s.request.options.count("replay") || s.request.options.count("from-dump");
        // Going back runs part of the run again: a file written as the run goes would get it twice.
        std::string no_reverse;
        for (const char* streamed : {"events", "record"})
            if (s.request.options.count(streamed))
                no_reverse = std::string("--") + streamed +
                             " writes its file as the run goes, and going back would write part of it twice (write it from a replay without --gdb)";
        s.gdb = std::make_unique<debug::gdb::GdbStub>(g->second, replay, no_reverse);
        s.scenario.machine.debugger = s.gdb.get();
        // Time spent at a breakpoint is the user's: no host-time limit unless asked for.
        if (!s.request.machine.wall_clock_seconds) s.scenario.machine.stop.wall_clock_seconds = 0;
    }
    try {
        s.machine = std::make_unique<emu::Machine>(std::move(s.scenario.machine), *s.loaded);
    } catch (const ConfigError& e) {
        throw ConfigError(s.scenario.file + ": " + e.what());
    }
    for (const auto& a : s.analyses)
        if (trace::Steering* steering = a.analysis->steering()) s.machine->set_steering(*steering);
    // The reports name the machine as it runs.
    s.scenario.machine.core = s.machine->config().core;
    s.scenario.machine.clock_hz = s.machine->config().clock_hz;
    s.scenario.machine.timing = s.machine->config().timing;
}

Session::~Session() = default;

void Session::add_sink(trace::TraceSink& sink) {
    if (impl_->recorded)
        impl_->recorded->add_sink(sink);
    else
        impl_->machine->add_sink(sink);
}

std::vector<std::string> Session::analyses() const {
    std::vector<std::string> out;
    for (const auto& a : impl_->analyses) out.push_back(a.name);
    return out;
}

const std::string& Session::firmware() const {
    return impl_->elf;
}
const std::string& Session::scenario_file() const {
    return impl_->scenario.file;
}

// What the source said of the run: its summary, JSON and status (a machine's stop, or a decoded
// capture's verdict). `firmware_failed`: with emutrace_statuses, why the firmware's own verdict
// failed (decided after the analyses' failures).
nlohmann::json Session::Impl::source_result(RunReport& report, std::string& firmware_failed) {
    Impl& s = *this;
    if (!s.machine) {
        report.summary = s.recorded->summary();
        report.stopped = "decoded";
        std::string why;
        if ((report.status = s.recorded->verdict(why))) report.failures.push_back(why);
        if (report.totals.clock_hz)
            report.totals.emulated_seconds = static_cast<double>(report.totals.cycles) / static_cast<double>(report.totals.clock_hz);
        nlohmann::json j = nlohmann::json::parse(s.recorded->json(), nullptr, false);
        if (!j.is_object()) throw ConfigError("source '" + s.request.source + "' returned a summary that is no JSON object");
        return j;
    }
    emu::RunResult result = s.machine->result();
    if (result.reason == emu::StopReason::Hang && s.loaded) result.message += session::hang_context(*s.loaded, s.program(), result.pc);
    report.summary = session::format_summary(s.scenario, s.elf, result);
    report.status = emu::exit_status(result);
    if (s.request.emutrace_statuses && result.reason == emu::StopReason::Exited && result.exit_code != 0) {
        report.status = 0;
        firmware_failed = "the firmware exited with code " + std::to_string(result.exit_code) + " (exit status " + std::to_string(kFirmwareFailed) +
                          " with --exit-status emutrace)";
    }
    report.stopped = result.message;
    if (!report.totals.complete) report.error = s.elf + ": " + result.message;
    return session::to_json(s.scenario, s.elf, result);
}

// Each analysis finishes and speaks: its JSON into `j`, its summary, failures, test cases and report part.
void Session::Impl::collect_analyses(RunReport& report, nlohmann::json& j, std::vector<TestCase>& cases,
                                     std::vector<emutrace::report::Part>& report_parts) {
    for (const auto& [name, a] : analyses) {
        a->finish(report.totals);
        std::string text = a->json();
        if (!text.empty()) {
            nlohmann::json value = nlohmann::json::parse(text, nullptr, false);
            if (value.is_discarded()) throw ConfigError("analysis '" + name + "' returned a result that is not JSON");
            j[name] = std::move(value);
        }
        report.summary += a->summary();
        for (auto& f : a->failures()) report.failures.push_back(std::move(f));
        for (auto& t : a->test_cases()) {
            report.checks.push_back(t.name);
            cases.push_back(std::move(t));
        }
        if (std::string html = a->report_html(); !html.empty()) report_parts.push_back({name, std::move(html)});
    }
}

RunReport Session::run() {
    Impl& s = *impl_;
    if (s.ran) throw ConfigError("a session runs once");
    s.ran = true;
    trace::TraceSource& source = s.recorded ? static_cast<trace::TraceSource&>(*s.recorded) : *s.machine;
    for (const auto& a : s.analyses)
        for (trace::TraceSink* sink : a.analysis->sinks()) source.add_sink(*sink);

    std::unique_ptr<session::CheckpointSink> checkpoints = s.checkpoints();
    if (checkpoints) source.add_sink(*checkpoints);  // last: the analyses have seen each batch first
    std::optional<session::ProgressMeter> progress;
    using Progress = RunRequest::Progress;
    if (s.request.progress == Progress::Always || (s.request.progress == Progress::Auto && isatty(STDERR_FILENO))) {
        progress.emplace(s.clock_hz(), stderr);
        source.add_sink(*progress);
        if (s.machine)
            s.machine->set_progress([&progress](std::uint64_t cycles, std::uint64_t instructions) { progress->counts(cycles, instructions); });
    }

    RunReport report;
    report.totals = source.deliver();
    if (progress && s.machine) s.machine->set_progress({});  // the meter is gone when run() returns
    report.totals.clock_hz = s.clock_hz();
    std::string firmware_failed;
    nlohmann::json j = s.source_result(report, firmware_failed);
    if (std::string dump = s.output("dump-ram"); !dump.empty() && s.machine) write_ram_dump(*s.machine, dump);

    std::vector<TestCase> cases;
    std::vector<emutrace::report::Part> report_parts;
    s.collect_analyses(report, j, cases, report_parts);
    if (report.status == 0 && !report.failures.empty()) report.status = 1;
    if (!firmware_failed.empty()) {
        report.failures.push_back(firmware_failed);
        if (report.status == 0) report.status = kFirmwareFailed;
    }
    report.json = config::json_text(j, 2) + "\n";
    std::string json_path = s.output("json"), junit_path = s.output("junit");
    if (!json_path.empty()) config::write_text_file(json_path, report.json, "JSON result");
    if (!junit_path.empty()) config::write_text_file(junit_path, session::junit_xml(s.scenario.file, cases), "JUnit report");
    if (std::string path = s.output("report"); !path.empty())
        config::write_text_file(path, emutrace::report::run_page(j, report.failures, report.checks, report_parts), "HTML report");
    for (auto& part : report_parts) report.report_sections.push_back(std::move(part.html));
    return report;
}

}  // namespace emutrace
