#include "analysis/constraints/constraint_checker.h"

#include <cstdio>

namespace emutrace::analysis {

bool EventSpec::matches(const CallEvent& e, const std::vector<std::string>& threads) const {
    if (!thread.empty() && (e.thread >= threads.size() || threads[e.thread] != thread)) return false;
    switch (kind) {
        case Kind::Enter: return e.kind == CallEvent::Kind::Entry && e.function == value;
        case Kind::Exit: return e.kind == CallEvent::Kind::Exit && e.function == value;
        case Kind::Marker: return e.kind == CallEvent::Kind::Marker && e.id == value;
        case Kind::Exception: return e.kind == CallEvent::Kind::ExceptionEntry && e.function == value;
    }
    return false;
}

ConstraintChecker::ConstraintChecker(std::vector<ConstraintSpec> specs, const CallTracer& tracer)
    : specs_(std::move(specs)), tracer_(tracer), open_(specs_.size()) {
    for (const auto& s : specs_) {
        ConstraintResult r;
        r.spec = &s;
        results_.push_back(r);
    }
}

std::vector<std::string> ConstraintChecker::stack_names() const {
    std::vector<std::string> out;
    for (std::uint32_t f : tracer_.current_stack()) out.push_back(tracer_.function_name(f));
    return out;
}

void ConstraintChecker::close(std::size_t i, std::uint32_t key, std::uint64_t start, std::uint64_t end, const std::string& deadline_reason) {
    ConstraintResult& r = results_[i];
    const ConstraintSpec& s = specs_[i];
    std::uint64_t d = end - start;
    ++r.occurrences;
    r.total += d;
    r.min = std::min(r.min, d);
    r.max = std::max(r.max, d);
    std::string reason = deadline_reason;
    if (reason.empty() && s.limit_cycles && d > s.limit_cycles) {
        reason = "took " + std::to_string(d) + " cycles, over the limit of " + std::to_string(s.limit_cycles);
    }
    if (!reason.empty() && ++r.violation_count <= ConstraintResult::kMaxViolations) r.violations.push_back({start, end, key, reason, stack_names()});
    if (window_listener_) window_listener_(i, {start, end, key, !reason.empty()});
}

void ConstraintChecker::on_call_event(const CallEvent& e) {
    for (std::size_t i = 0; i < specs_.size(); ++i) {
        const ConstraintSpec& s = specs_[i];
        std::uint32_t key = s.by_payload ? e.payload : 0;
        auto& open = open_[i];
        if (s.deadline && s.deadline->matches(e, tracer_.threads())) {
            if (auto it = open.find(key); it != open.end()) {
                close(i, key, it->second, e.cycle, "the deadline (" + s.deadline->text + ") came before the end (" + s.end.text + ")");
                open.erase(it);
            }
        }
        if (s.end.matches(e, tracer_.threads())) {
            if (auto it = open.find(key); it != open.end()) {
                close(i, key, it->second, e.cycle, "");
                open.erase(it);
            }
        }
        if (s.start.matches(e, tracer_.threads())) open[key] = e.cycle;
    }
}

void ConstraintChecker::on_finish(std::uint64_t) {
    for (std::size_t i = 0; i < specs_.size(); ++i) results_[i].open_at_end = open_[i].size();
}

bool ConstraintChecker::all_passed() const {
    for (const auto& r : results_)
        if (!r.passed()) return false;
    return true;
}

}  // namespace emutrace::analysis
