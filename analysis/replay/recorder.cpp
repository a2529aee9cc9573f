#include "analysis/replay/recorder.h"

namespace emutrace::analysis::replay {

void InputDevices::on_start(const trace::RunInfo& info, const std::vector<std::string>& names) {
    input_.assign(info.devices.size(), false);
    exceptions_.clear();
    for (std::size_t i = 0; i < info.devices.size(); ++i) {
        input_[i] = std::find(names.begin(), names.end(), info.devices[i]) != names.end();
        if (input_[i] && i < info.device_irqs.size() && info.device_irqs[i] >= 0)
            exceptions_.push_back(16u + static_cast<unsigned>(info.device_irqs[i]));
    }
}

void Recorder::on_start(const trace::RunInfo& info) {
    linker_.log().timing = timing_fingerprint(info.cpu, info.clock_hz, info.timing);
    inputs_.on_start(info, config_.input_devices);
}

void Recorder::on_batch(const trace::EventBatch& batch) {
    for (const auto& e : batch.events) {
        tracker_.on_event(e, batch);
        switch (e.kind) {
            case trace::EventKind::Watch:
                if (auto w = config_.watches.find(e.address); w != config_.watches.end())
                    if (const LogEvent* made_now = linker_.call(w->second, e.value, e.extra, tracker_.context(), e.cycle)) made(*made_now);
                break;
            case trace::EventKind::ExceptionEntry: {
                const bool external = e.channel == 1 || inputs_.is_input_exception(e.value);
                if (config_.records(e.value, external)) made(linker_.interrupt(e.value, e.address, external, tracker_.context(), e.cycle));
                break;
            }
            case trace::EventKind::MmioRead:
                if (inputs_.is_input(e.channel)) made(linker_.input(e.address, e.value, tracker_.context(), e.cycle));
                break;
            default: break;
        }
    }
}

}  // namespace emutrace::analysis::replay
