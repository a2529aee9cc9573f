#include "analysis/replay/replayer.h"

#include <algorithm>

namespace emutrace::analysis::replay {

Replayer::Replayer(ReplayConfig config, EventLog expected, const decode::ElfImage& image)
    : config_(std::move(config)), expected_(std::move(expected)), done_(expected_.events.size(), 0), calls_(image) {
    for (std::size_t i = 0; i < expected_.events.size(); ++i) {
        const LogEvent& e = expected_.events[i];
        queues_[e.thread].push_back(static_cast<std::uint32_t>(i));
        if (e.op == Operation::Interrupt && (e.flags & kExternal)) externals_.push_back(static_cast<std::uint32_t>(i));
        if (e.op == Operation::Send) sends_of_[e.object].first.push_back(e.seq);
    }
}

std::uint32_t Replayer::thread_of(const trace::MachineControl& m) {
    unsigned n = m.exception();
    return n ? kHandlerThread | n : m.thread();
}

const LogEvent* Replayer::next_of(std::uint32_t thread) const {
    auto q = queues_.find(thread);
    if (q == queues_.end()) return nullptr;
    auto c = cursor_.find(thread);
    std::size_t at = c == cursor_.end() ? 0 : c->second;
    return at < q->second.size() ? &expected_.events[q->second[at]] : nullptr;
}

std::optional<LogEvent> Replayer::first_missing() const {
    if (divergence_) return std::nullopt;
    for (std::size_t i = 0; i < done_.size(); ++i)
        if (!done_[i]) return expected_.events[i];
    return std::nullopt;
}

void Replayer::diverge(const LogEvent* expected, const LogEvent& seen, std::string why, trace::MachineControl& m) {
    if (divergence_) return;
    Divergence d;
    if (expected) d.expected = *expected;
    d.seen = seen;
    d.why = std::move(why);
    d.cycle = m.cycle();
    d.pc = m.reg(15);
    m.stop("the replay diverged from the log at event #" + std::to_string(expected ? expected->seq : seen.seq) + " (" + d.why +
           "); the summary says what was expected and what was seen");
    divergence_ = std::move(d);
}

void Replayer::check(const LogEvent& seen, bool compare_value, trace::MachineControl& m) {
    const LogEvent* want = next_of(seen.thread);
    if (!want) {
        // Past the thread's last event: a divergence only when the recording lasted as long as the
        // run, and not at an acquisition's entry: the recorded run may have ended with the thread
        // blocked in it (a FreeRTOS task waiting on its semaphore); its return is checked.
        if ((expected_.flags & kComplete) && compare_value) diverge(nullptr, seen, "the log has no more events of this thread", m);
        return;
    }
    // In order, an interrupt arrives where the run happens to be, not where it was recorded.
    const bool compare_pc = by_cycle_ || want->op != Operation::Interrupt;
    if (want->op != seen.op || want->object != seen.object || (compare_value && compare_pc && want->value != seen.value) ||
        (want->flags & kExternal) != (seen.flags & kExternal)) {
        diverge(want, seen, "a different event", m);
        return;
    }
    if (!compare_value) return;  // an acquisition entered: it happens at its return
    if (!ready(*want)) {
        diverge(want, seen, "it happened before its predecessor #" + std::to_string(want->before), m);
        return;
    }
    done_[want->seq - 1] = 1;
    ++cursor_[seen.thread];
    ++reproduced_;
    ++events_of_[seen.thread];
    if (waited_[seen.thread]) ++delayed_, ++delayed_of_[seen.thread];
    waited_[seen.thread] = false;
    holds_without_progress_ = 0;
    while (prefix_ < done_.size() && done_[prefix_]) ++prefix_;
    if (!by_cycle_) inject_due(m);
}

bool Replayer::waits_for_holder(const LogEvent& lock) const {
    if (lock.op != Operation::Lock || !lock.before) return false;
    const LogEvent& unlock = expected_.events[lock.before - 1];
    if (unlock.op != Operation::Unlock || unlock.object != lock.object || linker_.holder(lock.object) != unlock.thread) return false;
    // The holder's next unlock of this mutex, from where its replay stands.
    auto q = queues_.find(unlock.thread);
    auto c = cursor_.find(unlock.thread);
    for (std::size_t i = c == cursor_.end() ? 0 : c->second; q != queues_.end() && i < q->second.size(); ++i) {
        const LogEvent& e = expected_.events[q->second[i]];
        if (e.op == Operation::Unlock && e.object == lock.object) return e.seq == unlock.seq;
    }
    return false;
}

std::uint32_t Replayer::first_undone_send(std::uint32_t object) {
    auto it = sends_of_.find(object);
    if (it == sends_of_.end()) return 0;
    auto& [seqs, done] = it->second;
    while (done < seqs.size() && done_[seqs[done] - 1]) ++done;
    return done < seqs.size() ? seqs[done] : 0;
}

bool Replayer::waits_for_send(const LogEvent& receive) {
    if (receive.op != Operation::Receive || !receive.before || linker_.items(receive.object)) return false;
    const LogEvent& send = expected_.events[receive.before - 1];
    return send.op == Operation::Send && send.object == receive.object && first_undone_send(receive.object) == send.seq;
}

void Replayer::hold(std::uint32_t thread, std::uint32_t entry, trace::MachineControl& m) {
    Held h;
    h.resume = entry;
    for (unsigned i = 0; i < 4; ++i) h.r[i] = m.reg(i);
    h.lr = m.reg(14);
    h.since = m.cycle();
    held_[thread] = h;
    holds_of_[thread].emplace_back(h.since, ~std::uint64_t{0});
    waited_[thread] = true;
    ++holds_;
    ++holds_without_progress_;
    // As if the thread had called the hold function just before its synchronisation call.
    m.set_reg(0, config_.hold->argument);
    m.set_reg(14, entry | 1);
    m.set_reg(15, config_.hold->function);
}

trace::WatchOutcome Replayer::at_watch(std::uint32_t address, trace::MachineControl& m) {
    auto w = config_.calls.watches.find(address);
    if (w == config_.calls.watches.end() || divergence_) return trace::WatchOutcome::Continue;
    const std::uint32_t thread = thread_of(m);
    if (auto h = held_.find(thread); h != held_.end()) {
        // The hold call itself, and whatever it reaches, is the replay's, not the firmware's.
        const bool hold_entry = h->second.entering && address == config_.hold->function;
        h->second.entering = false;
        if (hold_entry || address != h->second.resume) return trace::WatchOutcome::Held;
        for (unsigned i = 0; i < 4; ++i) m.set_reg(i, h->second.r[i]);
        m.set_reg(14, h->second.lr);
        held_cycles_ += m.cycle() - h->second.since;
        holds_of_[thread].back().second = m.cycle();
        held_.erase(h);
    }
    const WatchedCall& call = w->second;
    const Operation op = call.operation(m.reg(1));  // a preset's role may depend on the item passed
    const std::uint32_t object = call.object(m.reg(0), thread);
    if (!call.at_return && !linker_.inside_call(thread)) {  // a call inside another is part of it
        const LogEvent* want = next_of(thread);
        // On the recording's own cycle model the run reproduces by itself; an acquisition whose
        // predecessor has not run yet at the entry may still meet it inside the call (the thread
        // preempted in mutex_lock while the other unlocks), and holding it would change the run.
        // Its return checks the order instead. On another cycle model it is held until its
        // predecessor has run, unless the RTOS makes it wait for exactly that predecessor (the
        // holder's next unlock); a wait in the RTOS could otherwise end at another partner (a
        // mutex re-taken by its holder, a queue item meant for another thread).
        const bool wait_inside =
            (by_cycle_ && is_acquisition(op)) || (want && want->object == object && (waits_for_holder(*want) || waits_for_send(*want)));
        // Sends to one queue run in their logged order, so that a receive waiting in the RTOS
        // gets the item it got when recorded.
        const bool overtakes = !by_cycle_ && want && want->op == Operation::Send && first_undone_send(want->object) != want->seq;
        // On another cycle model a thread can reach past its last event before the thread
        // that ended the recorded run has ended it: the recorded run ended first, so it waits.
        if (!want && !by_cycle_ && (expected_.flags & kComplete) && config_.hold && thread != 0 && thread < kHandlerThread &&
            holds_without_progress_ < config_.stall_holds) {
            hold(thread, address, m);
            return trace::WatchOutcome::Held;
        }
        if (want && ((!ready(*want) && !wait_inside) || overtakes)) {
            if (holds_without_progress_ >= config_.stall_holds) {
                LogEvent seen{0, 0, thread, op, 0, object, 0, m.cycle()};
                diverge(want, seen, "stalled: its predecessor #" + std::to_string(want->before) + " never ran", m);
                return trace::WatchOutcome::Continue;
            }
            if (config_.hold && thread != 0 && thread < kHandlerThread) {
                hold(thread, address, m);
                return trace::WatchOutcome::Held;
            }
            LogEvent seen{0, 0, thread, op, 0, object, 0, m.cycle()};
            diverge(want, seen, "it came before its predecessor #" + std::to_string(want->before) + " and this thread cannot be held", m);
            return trace::WatchOutcome::Continue;
        }
        if (is_acquisition(op)) {
            LogEvent entering{0, 0, thread, op, 0, object, 0, m.cycle()};
            check(entering, false, m);
        }
    }
    if (const LogEvent* seen = linker_.call(call, m.reg(0), m.reg(1), thread, m.cycle())) check(*seen, true, m);
    return trace::WatchOutcome::Continue;
}

void Replayer::at_exception(unsigned n, std::uint32_t pc, bool external, trace::MachineControl& m) {
    external = external || inputs_.is_input_exception(n);
    if (divergence_ || !config_.calls.records(n, external)) return;
    check(linker_.interrupt(n, pc, external, kHandlerThread | n, m.cycle()), true, m);
}

std::uint32_t Replayer::at_device_read(std::uint16_t device, std::uint32_t address, std::uint32_t value, trace::MachineControl& m) {
    if (divergence_ || !inputs_.is_input(device)) return value;
    const std::uint32_t thread = thread_of(m);
    const LogEvent* want = next_of(thread);
    if (want && want->op == Operation::Input && want->object == address) value = want->value;  // the recorded world
    check(linker_.input(address, value, thread, m.cycle()), true, m);
    return value;
}

std::uint64_t Replayer::next_time() const {
    if (next_external_ >= externals_.size()) return kNever;
    const LogEvent& e = expected_.events[externals_[next_external_]];
    if (by_cycle_) return e.cycle;
    return prefix_ + 1 >= e.seq ? 0 : kNever;
}

void Replayer::at_time(trace::MachineControl& m) {
    if (!by_cycle_) return inject_due(m);
    while (next_external_ < externals_.size() && expected_.events[externals_[next_external_]].cycle <= m.cycle())
        m.pend(expected_.events[externals_[next_external_++]].object);
}

void Replayer::inject_due(trace::MachineControl& m) {
    while (next_external_ < externals_.size() && prefix_ + 1 >= expected_.events[externals_[next_external_]].seq)
        m.pend(expected_.events[externals_[next_external_++]].object);
}

void Replayer::on_start(const trace::RunInfo& info) {
    const std::uint32_t timing = timing_fingerprint(info.cpu, info.clock_hz, info.timing);
    linker_.log().timing = timing;
    by_cycle_ = !config_.in_order && (expected_.flags & kEmulatedCycles) && expected_.timing == timing;
    inputs_.on_start(info, config_.calls.input_devices);
}

std::uint64_t Replayer::held_between(std::uint32_t thread, std::uint64_t from, std::uint64_t to) const {
    auto it = holds_of_.find(thread);
    if (it == holds_of_.end() || from >= to) return 0;
    const auto& list = it->second;
    // The first interval that ends after `from`; intervals are in time order and do not overlap.
    auto i = std::upper_bound(list.begin(), list.end(), from, [](std::uint64_t v, const auto& iv) { return v < iv.second; });
    std::uint64_t held = 0;
    for (; i != list.end() && i->first < to; ++i) held += std::min(to, i->second) - std::max(from, i->first);
    return held;
}

void Replayer::on_batch(const trace::EventBatch& batch) {
    calls_.on_batch(batch);
    for (const auto& e : batch.events) {
        tracker_.on_event(e, batch);
        // The run stops where it diverged: the call tracer's stack there is the report's.
        if (e.kind == trace::EventKind::Stop && divergence_) divergence_->stack = calls_.current_stack();
    }
}

}  // namespace emutrace::analysis::replay
