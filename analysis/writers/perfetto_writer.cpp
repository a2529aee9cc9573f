#include "analysis/writers/perfetto_writer.h"

#include <nlohmann/json.hpp>

#include "config/config_error.h"

namespace emutrace::analysis {

void PerfettoWriter::on_call_event(const CallEvent& e) {
    if (events_.size() >= kMaxEvents) {
        ++dropped_;
        return;
    }
    events_.add(e);
}

void PerfettoWriter::on_window(std::size_t constraint, const ConstraintWindow& window) {
    windows_.add({constraint, window});
}

void PerfettoWriter::write_event(config::TextFileWriter& out, const CallEvent& e, int& nesting) const {
    using nlohmann::json;
    auto us = [this](std::uint64_t cycle) { return static_cast<double>(cycle) * 1e6 / static_cast<double>(clock_hz_); };
    // Handlers get their own track per nesting level, so their slices nest within it.
    std::uint64_t tid = e.context >= kExceptionContext ? 1000 + (e.context - kExceptionContext) : e.context;
    json j;
    switch (e.kind) {
        case CallEvent::Kind::Entry:
        case CallEvent::Kind::Exit:
            if (!selected_(e.function)) return;  // decided after the run, so the automatic selection applies
            j = {{"ph", e.kind == CallEvent::Kind::Entry ? "B" : "E"}, {"pid", 1},     {"tid", tid}, {"ts", us(e.cycle)},
                 {"name", tracer_.function_name(e.function)},          {"cat", "call"}};
            break;
        case CallEvent::Kind::Marker:
            j = {{"ph", "i"},         {"s", "p"},
                 {"pid", 1},          {"tid", e.thread},
                 {"ts", us(e.cycle)}, {"name", "marker " + std::to_string(e.id)},
                 {"cat", "marker"},   {"args", {{"id", e.id}, {"payload", e.payload}}}};
            break;
        case CallEvent::Kind::ExceptionEntry:
        case CallEvent::Kind::ExceptionReturn:
            nesting += e.kind == CallEvent::Kind::ExceptionEntry ? 1 : -1;
            j = {{"ph", "C"}, {"pid", 1}, {"ts", us(e.cycle)}, {"name", "interrupt nesting"}, {"args", {{"depth", nesting}}}};
            break;
        case CallEvent::Kind::ThreadSwitch:
        case CallEvent::Kind::Resume: return;
    }
    out.write(",\n");
    out.write(j.dump());
}

void PerfettoWriter::write(const std::string& path, const std::vector<ConstraintResult>& constraints) const {
    using nlohmann::json;
    auto us = [this](std::uint64_t cycle) { return static_cast<double>(cycle) * 1e6 / static_cast<double>(clock_hz_); };
    config::TextFileWriter out(path, "Perfetto trace");
    out.write("{\"displayTimeUnit\":\"ns\",\"otherData\":");
    out.write(json{{"clock_hz", clock_hz_}, {"dropped_call_events", dropped_ + events_.lost()}, {"dropped_windows", windows_.lost()}}.dump());
    out.write(",\"traceEvents\":[\n");
    out.write(json{{"ph", "M"}, {"name", "process_name"}, {"pid", 1}, {"args", {{"name", "emutrace"}}}}.dump());
    const auto& threads = tracer_.threads();
    for (std::size_t t = 0; t < threads.size(); ++t) {
        out.write(",\n");
        out.write(json{{"ph", "M"}, {"name", "thread_name"}, {"pid", 1}, {"tid", t}, {"args", {{"name", threads[t]}}}}.dump());
    }
    int nesting = 0;
    auto unreadable = [&] { throw ConfigError(path + ": writing the Perfetto trace failed: its temporary file could not be read back"); };
    if (!events_.for_each([&](const CallEvent& e) { write_event(out, e, nesting); })) unreadable();
    std::uint64_t id = 1;
    bool read = windows_.for_each([&](const Window& w) {
        if (w.constraint >= constraints.size()) return;
        std::string name = constraints[w.constraint].spec->name + (w.window.violated ? " VIOLATED" : "");
        json common = {{"pid", 1}, {"cat", "constraint"}, {"name", name}, {"id", id++}};
        if (w.window.violated) common["cname"] = "terrible";  // the trace viewers' red
        json b = common, e = common;
        b["ph"] = "b";
        b["ts"] = us(w.window.start_cycle);
        b["args"] = {{"key", w.window.key}, {"violated", w.window.violated}};
        e["ph"] = "e";
        e["ts"] = us(w.window.end_cycle);
        out.write(",\n");
        out.write(b.dump());
        out.write(",\n");
        out.write(e.dump());
    });
    if (!read) unreadable();
    out.write("\n]}\n");
    out.close();
}

}  // namespace emutrace::analysis
