#include "analysis/writers/perfetto_writer.h"

#include <nlohmann/json.hpp>

#include <fstream>

#include "config/config_error.h"
#include "config/text_file.h"

namespace emutrace::analysis {

void PerfettoWriter::on_call_event(const CallEvent& e) {
    if (events_.size() >= kMaxEvents) {
        ++dropped_;
        return;
    }
    events_.push_back(e);
}

void PerfettoWriter::write(const std::string& path, const std::vector<ConstraintResult>& constraints) const {
    using nlohmann::json;
    auto us = [this](std::uint64_t cycle) { return static_cast<double>(cycle) * 1e6 / static_cast<double>(clock_hz_); };
    json events = json::array();
    const auto& threads = tracer_.threads();
    for (std::size_t t = 0; t < threads.size(); ++t)
        events.push_back({{"ph", "M"}, {"name", "thread_name"}, {"pid", 1}, {"tid", t}, {"args", {{"name", threads[t]}}}});
    events.push_back({{"ph", "M"}, {"name", "process_name"}, {"pid", 1}, {"args", {{"name", "emutrace"}}}});
    int nesting = 0;
    for (const auto& e : events_) {
        // Handlers get their own track per nesting level, so their slices nest within it.
        std::uint64_t tid = e.context >= kExceptionContext ? 1000 + (e.context - kExceptionContext) : e.context;
        switch (e.kind) {
            case CallEvent::Kind::Entry:
            case CallEvent::Kind::Exit:
                if (!selected_(e.function)) break;  // decided after the run, so the automatic selection applies
                events.push_back({{"ph", e.kind == CallEvent::Kind::Entry ? "B" : "E"},
                                  {"pid", 1},
                                  {"tid", tid},
                                  {"ts", us(e.cycle)},
                                  {"name", tracer_.function_name(e.function)},
                                  {"cat", "call"}});
                break;
            case CallEvent::Kind::Marker:
                events.push_back({{"ph", "i"},
                                  {"s", "p"},
                                  {"pid", 1},
                                  {"tid", e.thread},
                                  {"ts", us(e.cycle)},
                                  {"name", "marker " + std::to_string(e.id)},
                                  {"cat", "marker"},
                                  {"args", {{"id", e.id}, {"payload", e.payload}}}});
                break;
            case CallEvent::Kind::ExceptionEntry:
            case CallEvent::Kind::ExceptionReturn:
                nesting += e.kind == CallEvent::Kind::ExceptionEntry ? 1 : -1;
                events.push_back({{"ph", "C"}, {"pid", 1}, {"ts", us(e.cycle)}, {"name", "interrupt nesting"}, {"args", {{"depth", nesting}}}});
                break;
            case CallEvent::Kind::ThreadSwitch:
            case CallEvent::Kind::Resume: break;
        }
    }
    std::uint64_t id = 1;
    for (const auto& r : constraints) {
        for (const auto& w : r.windows) {
            std::string name = r.spec->name + (w.violated ? " VIOLATED" : "");
            json common = {{"pid", 1}, {"cat", "constraint"}, {"name", name}, {"id", id++}};
            if (w.violated) common["cname"] = "terrible";  // the trace viewers' red
            json b = common, e = common;
            b["ph"] = "b";
            b["ts"] = us(w.start_cycle);
            b["args"] = {{"key", w.key}, {"violated", w.violated}};
            e["ph"] = "e";
            e["ts"] = us(w.end_cycle);
            events.push_back(b);
            events.push_back(e);
        }
    }
    json doc = {{"traceEvents", events}, {"displayTimeUnit", "ns"}, {"otherData", {{"clock_hz", clock_hz_}, {"dropped_call_events", dropped_}}}};
    config::write_text_file(path, doc.dump() + "\n", "Perfetto trace");
}

}  // namespace emutrace::analysis
