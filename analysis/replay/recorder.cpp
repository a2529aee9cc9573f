#include "analysis/replay/recorder.h"

#include <algorithm>

namespace emutrace::analysis::replay {

void Recorder::on_start(const trace::RunInfo& info) {
    linker_.log().timing = timing_fingerprint(info.cpu, info.clock_hz, info.timing);
    input_device_.assign(info.devices.size(), false);
    for (std::size_t i = 0; i < info.devices.size(); ++i)
        input_device_[i] = std::find(config_.input_devices.begin(), config_.input_devices.end(), info.devices[i]) != config_.input_devices.end();
}

void Recorder::on_batch(const trace::EventBatch& batch) {
    for (const auto& e : batch.events) {
        switch (e.kind) {
            case trace::EventKind::Watch:
                if (auto w = config_.watches.find(e.address); w != config_.watches.end())
                    linker_.call(w->second, e.value, e.extra, thread(), e.cycle);
                break;
            case trace::EventKind::ThreadSwitch: current_thread_ = e.address; break;
            case trace::EventKind::ExceptionEntry:
                handlers_.push_back(e.value);
                if (config_.records(e.value, e.channel == 1)) linker_.interrupt(e.value, e.address, e.channel == 1, thread(), e.cycle);
                break;
            case trace::EventKind::ExceptionReturn:
                if (!handlers_.empty()) handlers_.pop_back();
                break;
            case trace::EventKind::MmioRead:
                if (e.channel < input_device_.size() && input_device_[e.channel]) linker_.input(e.address, e.value, thread(), e.cycle);
                break;
            default: break;
        }
    }
}

}  // namespace emutrace::analysis::replay
