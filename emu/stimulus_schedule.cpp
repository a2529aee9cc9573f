#include "emu/stimulus_schedule.h"

#include <algorithm>
#include <cmath>

namespace emutrace::emu {
namespace {
std::uint64_t to_cycles(double seconds, std::uint64_t clock_hz) {
    return static_cast<std::uint64_t>(std::llround(seconds * static_cast<double>(clock_hz)));
}
}  // namespace

StimulusSchedule::StimulusSchedule(const std::vector<Stimulus>& stimuli, std::uint64_t clock_hz, std::uint64_t seed) {
    std::uint64_t index = 0;
    for (const auto& s : stimuli) {
        // mt19937_64's output sequence is fixed by the standard, so runs repeat across hosts.
        Entry e{&s,
                to_cycles(s.at_seconds, clock_hz),
                to_cycles(s.every_seconds, clock_hz),
                to_cycles(s.jitter_seconds, clock_hz),
                0,
                kNever,
                std::mt19937_64(seed * 0x9E3779B97F4A7C15ull + index++)};
        if (!s.source.empty()) {
            sources_.push_back(std::make_unique<LiveSource>(s.source));
            e.source = sources_.back().get();
        }
        e.next = occurrence(e);
        entries_.push_back(e);
    }
    refresh_next();
}

std::uint64_t StimulusSchedule::occurrence(Entry& e) {
    const Stimulus& s = *e.stimulus;
    bool periodic = e.period > 0;
    if ((!periodic && e.fired > 0) || (periodic && s.count && e.fired >= s.count) || (e.source && e.source->ended())) return kNever;
    std::uint64_t t = e.start + e.fired * e.period;
    if (periodic && e.jitter) {
        std::uint64_t span = 2 * e.jitter + 1;
        std::int64_t offset = static_cast<std::int64_t>(e.rng() % span) - static_cast<std::int64_t>(e.jitter);
        t = offset < 0 && static_cast<std::uint64_t>(-offset) > t ? 0 : t + offset;
    }
    return t;
}

void StimulusSchedule::refresh_next() {
    next_ = kNever;
    for (const auto& e : entries_) next_ = std::min(next_, e.next);
}

void StimulusSchedule::fire_due(std::uint64_t now, StimulusTarget& target) {
    while (next_ <= now) {
        auto it = std::min_element(entries_.begin(), entries_.end(), [](const Entry& a, const Entry& b) { return a.next < b.next; });
        const Stimulus& s = *it->stimulus;
        switch (s.kind) {
            case Stimulus::Kind::Irq: target.raise_irq(s.irq); break;
            case Stimulus::Kind::SetRegister: target.set_device_register(s.device, s.register_name, s.value); break;
            case Stimulus::Kind::UartRx:
                if (!it->source) {
                    target.receive_bytes(s.device, s.data);
                } else if (std::string bytes = it->source->poll(); !bytes.empty()) {
                    target.receive_bytes(s.device, bytes);  // what the host wrote since the last poll
                }
                break;
        }
        ++it->fired;
        it->next = occurrence(*it);
        refresh_next();
    }
}

void StimulusSchedule::open_live_sources() {
    for (auto& s : sources_) s->open();
}

}  // namespace emutrace::emu
