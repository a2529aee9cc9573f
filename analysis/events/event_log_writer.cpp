#include "analysis/events/event_log_writer.h"

#include <spdlog/spdlog.h>
#include <nlohmann/json.hpp>

#include <cerrno>
#include <cstring>

#include "config/json_text.h"
#include "emutrace/config_error.h"

namespace emutrace::analysis {

EventLogWriter::EventLogWriter(const std::string& path, std::uint64_t limit) : path_(path), limit_(limit), out_(std::fopen(path.c_str(), "w")) {
    if (!out_) throw ConfigError(path + ": cannot write the event log: " + std::strerror(errno));
}

// A write error is kept and reported when the run ends: on_batch runs inside the emulator's
// callbacks, through which no exception may pass.
bool EventLogWriter::failed() {
    if (!error_ && std::ferror(out_)) error_ = errno ? errno : EIO;
    return error_ != 0;
}

void EventLogWriter::stop_at_limit(std::uint64_t cycle) {
    truncated_ = true;
    print("{\"cycle\":%llu,\"kind\":\"truncated\",\"limit_bytes\":%llu}\n", static_cast<unsigned long long>(cycle),
          static_cast<unsigned long long>(limit_));
    spdlog::warn(
        "{}: the event log reached its limit of {} bytes at cycle {}; later events are not written (raise it with --events-limit "
        "or outputs.events_limit)",
        path_, limit_, cycle);
}

EventLogWriter::~EventLogWriter() {
    if (out_) std::fclose(out_);
}

std::string EventLogWriter::device(std::uint16_t index) const {
    return names_.device(index);
}

std::string EventLogWriter::register_key(std::uint16_t index, std::uint32_t offset) const {
    const trace::DeviceRegister* r = names_.register_at(index, offset);
    return r ? ",\"register\":" + config::json_text(nlohmann::json(device(index) + "." + r->name)) : std::string();
}

void EventLogWriter::on_batch(const trace::EventBatch& batch) {
    if (truncated_ || failed()) return;
    for (const auto& e : batch.events) {
        if (written_ >= limit_) {
            stop_at_limit(e.cycle);
            break;
        }
        write_event(e, batch);
    }
}

// One JSON line per event, a case per kind: the table of what each kind's fields mean here.
void EventLogWriter::write_event(const trace::Event& e, const trace::EventBatch& batch) {
    using trace::EventKind;
    switch (e.kind) {
        case EventKind::Block:
            print("{\"cycle\":%llu,\"kind\":\"block\",\"address\":\"0x%08x\",\"size\":%u,\"instructions\":%u,\"cycles\":%u}\n",
                  static_cast<unsigned long long>(e.cycle), e.address, e.value, e.extra, e.channel);
            break;
        case EventKind::MmioRead:
        case EventKind::MmioWrite: write_mmio(e); break;
        case EventKind::Output: write_output(e, batch); break;
        case EventKind::ExceptionEntry: write_exception_entry(e); break;
        case EventKind::PcSample:
            print("{\"cycle\":%llu,\"kind\":\"pc_sample\",\"pc\":\"0x%08x\"}\n", static_cast<unsigned long long>(e.cycle), e.address);
            break;
        case EventKind::DataTrace: write_data_trace(e); break;
        case EventKind::CoreSwitch:
            core_ = e.value;
            if (core_ < cores_.size())
                print("{\"cycle\":%llu,\"kind\":\"core\",\"source\":%s,\"core\":%s,\"trace_id\":%u}\n", static_cast<unsigned long long>(e.cycle),
                      config::json_text(nlohmann::json(cores_[core_].name)).c_str(), config::json_text(nlohmann::json(cores_[core_].core)).c_str(),
                      e.address);
            break;
        case EventKind::ExceptionReturn:
            print(
                "{\"cycle\":%llu,\"kind\":\"exception_return\",\"exception\":%u,\"resume\":\"0x%08x\","
                "\"exc_return\":\"0x%08x\"}\n",
                static_cast<unsigned long long>(e.cycle), e.value, e.address, e.extra);
            break;
        case EventKind::ThreadSwitch:
            print("{\"cycle\":%llu,\"kind\":\"thread_switch\",\"from\":\"0x%08x\",\"to\":\"0x%08x\",\"name\":%s}\n",
                  static_cast<unsigned long long>(e.cycle), e.extra, e.address,
                  config::json_text(nlohmann::json(std::string(batch.thread_name(e)))).c_str());
            break;
        case EventKind::Marker:
            print("{\"cycle\":%llu,\"kind\":\"marker\",\"id\":%u,\"payload\":%u,\"pc\":\"0x%08x\",\"from\":\"%s\"}\n",
                  static_cast<unsigned long long>(e.cycle), e.value, e.extra, e.address, e.width ? "function" : "device");
            break;
        case EventKind::Branch: {
            static constexpr const char* kKinds[] = {"?", "call", "return", "jump", "vector", "resume"};
            print("{\"cycle\":%llu,\"kind\":\"branch\",\"branch\":\"%s\",\"to\":\"0x%08x\",\"fallthrough\":\"0x%08x\"}\n",
                  static_cast<unsigned long long>(e.cycle), kKinds[e.value < 6 ? e.value : 0], e.address, e.extra);
            break;
        }
        case EventKind::Gap: {
            static constexpr const char* kWhy[] = {"?", "trace_on", "no_sync", "not_in_memory"};
            print("{\"cycle\":%llu,\"kind\":\"gap\",\"why\":\"%s\",\"trace_index\":%u,\"address\":\"0x%08x\"}\n",
                  static_cast<unsigned long long>(e.cycle), kWhy[e.value < 4 ? e.value : 0], e.extra, e.address);
            break;
        }
        case EventKind::Watch:
            print("{\"cycle\":%llu,\"kind\":\"watch\",\"pc\":\"0x%08x\",\"r0\":\"0x%08x\",\"r1\":\"0x%08x\"}\n",
                  static_cast<unsigned long long>(e.cycle), e.address, e.value, e.extra);
            break;
        case EventKind::Access:
            print("{\"cycle\":%llu,\"kind\":\"%s\",\"address\":\"0x%08x\",\"width\":%u,\"pc\":\"0x%08x\",\"sp\":\"0x%08x\"}\n",
                  static_cast<unsigned long long>(e.cycle), e.channel ? "store" : "load", e.address, e.width, e.extra, e.value);
            break;
        case EventKind::Stop:
            print("{\"cycle\":%llu,\"kind\":\"stop\",\"pc\":\"0x%08x\",\"reason_code\":%u,\"fault_address\":\"0x%08x\"}\n",
                  static_cast<unsigned long long>(e.cycle), e.address, e.value, e.extra);
            break;
    }
}

void EventLogWriter::write_mmio(const trace::Event& e) {
    print(
        "{\"cycle\":%llu,\"kind\":\"%s\",\"address\":\"0x%08x\",\"device\":%s%s,\"offset\":\"0x%x\","
        "\"width\":%u,\"value\":\"0x%08x\"}\n",
        static_cast<unsigned long long>(e.cycle), e.kind == trace::EventKind::MmioRead ? "mmio_read" : "mmio_write", e.address,
        config::json_text(nlohmann::json(device(e.channel))).c_str(), register_key(e.channel, e.extra).c_str(), e.extra, e.width, e.value);
}

void EventLogWriter::write_output(const trace::Event& e, const trace::EventBatch& batch) {
    std::string from = e.channel >= 0x100                                                      ? device(static_cast<std::uint16_t>(e.channel - 0x100))
                       : e.channel == static_cast<std::uint16_t>(trace::OutputChannel::Stderr) ? "stderr"
                                                                                               : "stdout";
    nlohmann::json text = std::string(batch.output_text(e));
    print("{\"cycle\":%llu,\"kind\":\"output\",\"from\":%s,\"text\":%s}\n", static_cast<unsigned long long>(e.cycle),
          config::json_text(nlohmann::json(from)).c_str(), config::json_text(text).c_str());
}

void EventLogWriter::write_exception_entry(const trace::Event& e) {
    if (cores_.empty()) {  // emulated: the frame's stack is known
        print(
            "{\"cycle\":%llu,\"kind\":\"exception_entry\",\"exception\":%u,\"name\":\"%s\",\"return_address\":\"0x%08x\","
            "\"sp\":\"0x%08x\",\"stack\":\"%s\"}\n",
            static_cast<unsigned long long>(e.cycle), e.value, trace::exception_name(trace::ExceptionModel::MProfile, e.value).c_str(), e.address,
            e.extra, e.width ? "psp" : "msp");
        return;
    }
    // Captured: numbered as the core that took it numbers them; a trace shows no stack.
    const trace::TracedCore& core = cores_[core_ < cores_.size() ? core_ : 0];
    print("{\"cycle\":%llu,\"kind\":\"exception_entry\",\"exception\":%u,\"name\":\"%s\",\"return_address\":\"0x%08x\"}\n",
          static_cast<unsigned long long>(e.cycle), e.value, trace::exception_name(core.exceptions, e.value).c_str(), e.address);
}

// A DWT comparator's match: what its packets carry, and nothing they do not.
void EventLogWriter::write_data_trace(const trace::Event& e) {
    std::string parts;
    char field[64];
    if (e.channel & trace::kDataTracePc) std::snprintf(field, sizeof field, ",\"pc\":\"0x%08x\"", e.extra), parts += field;
    if (e.channel & trace::kDataTraceOffset) std::snprintf(field, sizeof field, ",\"address\":\"0x%08x\"", e.address), parts += field;
    if (e.channel & trace::kDataTraceValue)
        std::snprintf(field, sizeof field, ",\"value\":\"0x%0*x\",\"size\":%u", 2 * e.width, e.value, e.width), parts += field;
    print("{\"cycle\":%llu,\"kind\":\"data_trace\",\"comparator\":%u,\"access\":\"%s\"%s}\n", static_cast<unsigned long long>(e.cycle),
          e.channel & 3u, e.channel & trace::kDataTraceWrite ? "write" : "read", parts.c_str());
}

void EventLogWriter::on_end() {
    if (std::fflush(out_) != 0 && !error_) error_ = errno;
    if (failed()) throw ConfigError(path_ + ": writing the event log failed: " + std::strerror(error_));
}

}  // namespace emutrace::analysis
