#include "analysis/replay/race_detector.h"

#include <algorithm>

namespace emutrace::analysis::replay {
namespace {

bool releases(Operation op) {
    return op == Operation::Unlock || op == Operation::Send || op == Operation::Create;
}

}  // namespace

RaceDetector::RaceDetector(RaceConfig config) : config_(std::move(config)) {
    std::sort(config_.ignored.begin(), config_.ignored.end());
}

void RaceDetector::join(Clock& into, const Clock& from) {
    if (into.size() < from.size()) into.resize(from.size(), 0);
    for (std::size_t i = 0; i < from.size(); ++i) into[i] = std::max(into[i], from[i]);
}

RaceDetector::Context& RaceDetector::context_of(std::uint32_t id) {
    auto [it, fresh] = index_.try_emplace(id, static_cast<std::uint32_t>(contexts_.size()));
    if (fresh) {
        Context c;
        c.id = id;
        c.clock.assign(it->second + 1, 0);
        c.clock[it->second] = 1;
        if (id != 0 && id < kHandlerThread) join(c.clock, creates_);  // a thread starts after the creates before it
        contexts_.push_back(std::move(c));
    }
    return contexts_[it->second];
}

RaceDetector::Context& RaceDetector::context() {
    return context_of(tracker_.context());
}

bool RaceDetector::ignored(std::uint32_t address) const {
    auto it = std::upper_bound(config_.ignored.begin(), config_.ignored.end(), std::make_pair(address, ~0u));
    return it != config_.ignored.begin() && address < std::prev(it)->second;
}

void RaceDetector::acquire_mask(Context& c) {
    join(c.clock, mask_lock_);
}

void RaceDetector::release_mask(Context& c) {
    mask_lock_ = c.clock;
    ++c.clock[index_.at(c.id)];
}

void RaceDetector::on_sync(const LogEvent& e, Context& c) {
    if (e.before) {
        auto r = released_.find(e.before);
        if (r != released_.end()) join(c.clock, r->second);
    }
    if (e.op == Operation::Lock)
        if (auto u = unlocked_.find(e.object); u != unlocked_.end()) join(c.clock, u->second);
    if (!releases(e.op)) return;
    released_[e.seq] = c.clock;
    if (e.op == Operation::Unlock) join(unlocked_[e.object], c.clock);
    if (e.op == Operation::Create) join(creates_, c.clock);
    ++c.clock[index_.at(c.id)];
}

void RaceDetector::report(std::uint32_t address, const Epoch& earlier, bool earlier_write, const Context& c, std::uint32_t pc, bool write) {
    const std::uint64_t key = static_cast<std::uint64_t>(earlier.pc) << 32 | pc;
    auto [it, fresh] = race_index_.try_emplace(key, races_.size());
    if (!fresh) {
        ++races_[it->second].count;
        return;
    }
    races_.push_back({address, {contexts_[earlier.thread].id, earlier.pc, earlier_write}, {c.id, pc, write}, 1});
}

void RaceDetector::on_access(const trace::Event& e) {
    Context& c = context();
    if (!c.frames.empty() && c.frames.back()) return;  // inside the RTOS or a synchronisation function
    const std::uint32_t sp = e.value;
    c.sp_high = std::max(c.sp_high, sp);
    if (e.address >= sp && e.address < c.sp_high + config_.stack_slack) return;  // the context's own stack
    const bool write = e.channel & 1, masked = e.channel & 2;
    if (c.id < kHandlerThread && masked != c.masked) {
        // Entering or leaving a critical section: handlers cannot run inside it.
        if (masked)
            acquire_mask(c);
        else
            release_mask(c);
        c.masked = masked;
    }
    ++checked_;
    const std::uint32_t me = index_.at(c.id);
    const Epoch now{me, c.clock[me], e.extra};
    auto ordered = [&](const Epoch& ep) {
        return ep.clock == 0 || ep.thread == me || (ep.thread < c.clock.size() && ep.clock <= c.clock[ep.thread]);
    };
    const std::uint32_t word = e.address & ~3u;
    Shadow& s = shadow_[word];
    if (!ordered(s.write)) report(word, s.write, true, c, e.extra, write);
    if (write) {
        for (const Epoch& r : s.reads)
            if (!ordered(r)) report(word, r, false, c, e.extra, true);
        s.write = now;
        s.reads.clear();
        return;
    }
    for (Epoch& r : s.reads)
        if (r.thread == me) {
            r = now;
            return;
        }
    s.reads.push_back(now);
}

void RaceDetector::on_scs_write(std::uint32_t address, std::uint32_t value) {
    constexpr std::uint32_t kSystCsr = 0xE000E010, kIser = 0xE000E100, kTickInt = 2;
    Context& c = context();
    auto release = [&](std::uint32_t exception) {
        join(enabled_[exception], c.clock);
        ++c.clock[index_.at(c.id)];
    };
    if (address == kSystCsr && (value & kTickInt)) release(15);
    if (address >= kIser && address < kIser + 32 && value)
        for (unsigned bit = 0; bit < 32; ++bit)
            if (value >> bit & 1) release(16 + (address - kIser) * 8 + bit);
}

void RaceDetector::on_batch(const trace::EventBatch& batch) {
    for (const auto& e : batch.events) {
        if (e.kind == trace::EventKind::ExceptionReturn && tracker_.in_handler()) release_mask(context());  // the handler's end
        tracker_.on_event(e, batch);
        switch (e.kind) {
            case trace::EventKind::Access: on_access(e); break;
            case trace::EventKind::ThreadSwitch: context(); break;  // a new thread starts with the creates so far
            case trace::EventKind::ExceptionEntry:
                context().frames.clear();
                acquire_mask(context());
                if (auto en = enabled_.find(e.value); en != enabled_.end()) join(context().clock, en->second);
                break;
            case trace::EventKind::MmioWrite:
                if (e.address >= 0xE000E000 && e.address < 0xE000F000) on_scs_write(e.address & ~3u, e.value);
                break;
            case trace::EventKind::Branch: {
                Context& c = context();
                const auto kind = static_cast<trace::BranchKind>(e.value);
                if (kind == trace::BranchKind::Call || kind == trace::BranchKind::Vector)
                    c.frames.push_back((!c.frames.empty() && c.frames.back()) || ignored(e.address));
                else if (kind == trace::BranchKind::Return && !c.frames.empty())
                    c.frames.pop_back();
                else if (kind == trace::BranchKind::Jump && ignored(e.address)) {
                    // A tail call into ignored code (count_once ending in `b mutex_unlock`): the
                    // frame is the callee's until its return.
                    if (c.frames.empty())
                        c.frames.push_back(true);
                    else
                        c.frames.back() = true;
                }
                break;
            }
            case trace::EventKind::Watch: {
                auto w = config_.watches.find(e.address);
                if (w == config_.watches.end()) break;
                Context& c = context();
                if (const LogEvent* ev = linker_.call(w->second, e.value, e.extra, c.id, e.cycle)) on_sync(*ev, c);
                break;
            }
            default: break;
        }
    }
}

}  // namespace emutrace::analysis::replay
