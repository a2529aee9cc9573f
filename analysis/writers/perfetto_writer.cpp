#include "analysis/writers/perfetto_writer.h"

#include <charconv>
#include <cstdio>

#include <nlohmann/json.hpp>

#include "config/json_text.h"
#include "emutrace/config_error.h"

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

namespace {

/// Appends a number as JSON: integers exactly, microseconds as the shortest text that reads back
/// as the same double.
template <typename T>
void append_number(std::string& out, T value) {
    char buf[32];
    auto r = std::to_chars(buf, buf + sizeof buf, value);
    out.append(buf, r.ptr);
}

}  // namespace

// Each event's fixed members are written straight into one reused line, around names escaped
// once per function: a JSON document per event made writing the trace take three times as long
// as the run it describes (2 M events of a fully traced build).
void PerfettoWriter::write_event(config::TextFileWriter& out, const CallEvent& e, int& nesting) {
    std::string& line = line_;
    line.assign(",\n{\"pid\":1,\"ts\":");
    append_number(line, microseconds(e.cycle));
    switch (e.kind) {
        case CallEvent::Kind::Entry:
        case CallEvent::Kind::Exit: {
            if (!selected_(e.function)) return;  // decided after the run, so the automatic selection applies
            // Handlers get their own track per nesting level, so their slices nest within it.
            std::uint64_t tid = e.context >= kExceptionContext ? 1000 + (e.context - kExceptionContext) : e.context;
            line.append(e.kind == CallEvent::Kind::Entry ? ",\"ph\":\"B\",\"tid\":" : ",\"ph\":\"E\",\"tid\":");
            append_number(line, tid);
            line.append(",\"cat\":\"call\",\"name\":");
            auto [name, fresh] = names_.try_emplace(e.function);
            if (fresh) name->second = config::json_text(nlohmann::json(tracer_.function_name(e.function)));
            line.append(name->second);
            break;
        }
        case CallEvent::Kind::Marker:
            line.append(",\"ph\":\"i\",\"s\":\"p\",\"tid\":");
            append_number(line, e.thread);
            line.append(",\"cat\":\"marker\",\"name\":\"marker ");
            append_number(line, e.id);
            line.append("\",\"args\":{\"id\":");
            append_number(line, e.id);
            line.append(",\"payload\":");
            append_number(line, e.payload);
            line.append("}");
            break;
        case CallEvent::Kind::ExceptionEntry:
        case CallEvent::Kind::ExceptionReturn:
            nesting += e.kind == CallEvent::Kind::ExceptionEntry ? 1 : -1;
            line.append(",\"ph\":\"C\",\"name\":\"interrupt nesting\",\"args\":{\"depth\":");
            append_number(line, nesting);
            line.append("}");
            break;
        case CallEvent::Kind::ThreadSwitch:
        case CallEvent::Kind::Resume: return;
    }
    line.append("}");
    out.write(line);
}

// Each device's accesses on a track of its own, as instants named by register and direction, the
// value in their arguments: polling loops show as dense rows, configuration as a few marks.
void PerfettoWriter::write_mmio(config::TextFileWriter& out) {
    using nlohmann::json;
    std::vector<bool> named(mmio_->device_count() + 1, false);
    std::unordered_map<std::uint64_t, std::string> names;  // (device, offset, write) -> JSON string
    bool read = mmio_->for_each([&](const MmioLog::Access& a) {
        if (a.device < named.size() && !named[a.device]) {
            named[a.device] = true;
            out.write(",\n");
            out.write(config::json_text(json{{"ph", "M"},
                                             {"name", "thread_name"},
                                             {"pid", 1},
                                             {"tid", kMmioTrack + a.device},
                                             {"args", {{"name", "MMIO " + mmio_->device_name(a.device)}}}}));
        }
        const std::uint64_t key = std::uint64_t{a.device} << 33 | std::uint64_t{a.offset} << 1 | a.write;
        auto [name, fresh] = names.try_emplace(key);
        if (fresh) name->second = config::json_text(json(mmio_->register_name(a.device, a.offset) + (a.write ? " write" : " read")));
        std::string& line = line_;
        line.assign(",\n{\"pid\":1,\"ph\":\"i\",\"s\":\"t\",\"cat\":\"mmio\",\"tid\":");
        append_number(line, kMmioTrack + a.device);
        line.append(",\"ts\":");
        append_number(line, microseconds(a.cycle));
        line.append(",\"name\":");
        line.append(name->second);
        char value[48];
        std::snprintf(value, sizeof value, ",\"args\":{\"value\":\"0x%x\",\"width\":%u}}", a.value, static_cast<unsigned>(a.width));
        line.append(value);
        out.write(line);
    });
    if (!read) throw ConfigError("writing the Perfetto trace failed: the register accesses' temporary file could not be read back");
}

void PerfettoWriter::write(const std::string& path, const std::vector<ConstraintResult>& constraints) {
    using nlohmann::json;
    config::TextFileWriter out(path, "Perfetto trace");
    out.write("{\"displayTimeUnit\":\"ns\",\"otherData\":");
    json other{{"clock_hz", clock_hz_}, {"dropped_call_events", dropped_ + events_.lost()}, {"dropped_windows", windows_.lost()}};
    if (mmio_) other["dropped_mmio_accesses"] = mmio_->dropped();
    out.write(config::json_text(other));
    out.write(",\"traceEvents\":[\n");
    out.write(config::json_text(json{{"ph", "M"}, {"name", "process_name"}, {"pid", 1}, {"args", {{"name", "emutrace"}}}}));
    const auto& threads = tracer_.threads();
    for (std::size_t t = 0; t < threads.size(); ++t) {
        out.write(",\n");
        out.write(config::json_text(json{{"ph", "M"}, {"name", "thread_name"}, {"pid", 1}, {"tid", t}, {"args", {{"name", threads[t]}}}}));
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
        b["ts"] = microseconds(w.window.start_cycle);
        b["args"] = {{"key", w.window.key}, {"violated", w.window.violated}};
        e["ph"] = "e";
        e["ts"] = microseconds(w.window.end_cycle);
        out.write(",\n");
        out.write(config::json_text(b));
        out.write(",\n");
        out.write(config::json_text(e));
    });
    if (!read) unreadable();
    if (mmio_) write_mmio(out);
    out.write("\n]}\n");
    out.close();
}

}  // namespace emutrace::analysis
