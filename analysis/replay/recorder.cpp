#include "analysis/replay/recorder.h"

#include <algorithm>

namespace emutrace::analysis::replay {

void Recorder::on_start(const trace::RunInfo& info) {
    input_device_.assign(info.devices.size(), false);
    for (std::size_t i = 0; i < info.devices.size(); ++i)
        input_device_[i] = std::find(config_.input_devices.begin(), config_.input_devices.end(), info.devices[i]) != config_.input_devices.end();
}

void Recorder::record(Operation op, std::uint32_t object, std::uint32_t value, std::uint32_t partner) {
    const std::uint32_t t = thread();
    auto [it, first] = last_of_thread_.try_emplace(t, 0);
    // A thread's first event happens after the create that made it (handlers are not created).
    if (first && !creates_.empty() && t < kHandlerThread) {
        partner = std::max(partner, creates_.front());
        creates_.pop_front();
    }
    LogEvent e;
    e.seq = static_cast<std::uint32_t>(log_.events.size() + 1);
    e.before = partner ? partner : it->second;
    e.thread = t;
    e.op = op;
    e.object = object;
    e.value = value;
    log_.events.push_back(e);
    it->second = e.seq;
    switch (op) {
        case Operation::Unlock: last_release_[object] = e.seq; break;
        case Operation::Send: sends_[object].push_back(e.seq); break;
        case Operation::Create: creates_.push_back(e.seq); break;
        default: break;
    }
}

void Recorder::on_watch(const trace::Event& e) {
    auto w = config_.watches.find(e.address);
    if (w == config_.watches.end()) return;
    const WatchedCall& call = w->second;
    const bool acquisition = call.op == Operation::Lock || call.op == Operation::Receive;
    if (!acquisition) {
        // Entry: r0 the object, r1 the argument (the item sent, the ticks, the entry function).
        std::uint32_t object = e.value, value = e.extra;
        if (call.op == Operation::Delay) object = 0, value = e.value;
        record(call.op, object, value, 0);
        return;
    }
    auto& pending = pending_[thread()];
    if (!call.at_return) {  // entered: the object is the first argument; it happens at the return
        pending.push_back({call.op, e.value});
        return;
    }
    if (pending.empty()) return;  // a return without its entry (recording started inside the call)
    Pending p = pending.back();
    pending.pop_back();
    std::uint32_t partner = 0;
    if (p.op == Operation::Lock) {
        auto r = last_release_.find(p.object);
        if (r != last_release_.end()) partner = r->second;
    } else {
        auto& q = sends_[p.object];
        if (!q.empty()) partner = q.front(), q.pop_front();
    }
    record(p.op, p.object, p.op == Operation::Receive ? e.value : 0, partner);
}

void Recorder::on_batch(const trace::EventBatch& batch) {
    for (const auto& e : batch.events) {
        switch (e.kind) {
            case trace::EventKind::Watch: on_watch(e); break;
            case trace::EventKind::ThreadSwitch: current_thread_ = e.address; break;
            case trace::EventKind::ExceptionEntry:
                if (config_.interrupts && e.value >= 15) record(Operation::Interrupt, e.value, e.address, 0);
                handlers_.push_back(e.value);
                break;
            case trace::EventKind::ExceptionReturn:
                if (!handlers_.empty()) handlers_.pop_back();
                break;
            case trace::EventKind::MmioRead:
                if (e.channel < input_device_.size() && input_device_[e.channel]) record(Operation::Input, e.address, e.value, 0);
                break;
            default: break;
        }
    }
}

}  // namespace emutrace::analysis::replay
