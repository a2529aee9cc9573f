#include "analysis/crosscheck/call_comparison.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "decode/elf_image.h"

namespace emutrace::analysis {

CallSide::CallSide(const decode::ElfImage& image, const std::set<std::uint32_t>* stacks_of, std::uint32_t entry_hook)
    : tracer_(image), stacks_of_(stacks_of), entry_hook_(entry_hook) {
    tracer_.add_listener(*this);
}

void CallSide::on_batch(const trace::EventBatch& batch) {
    // The call tracer sees the batch in pieces, up to each entry whose stack is kept.
    std::size_t from = 0;
    for (std::size_t i = 0; i < batch.events.size(); ++i) {
        const trace::Event& e = batch.events[i];
        if (e.kind == trace::EventKind::ExceptionEntry) ++depth_;
        if (e.kind == trace::EventKind::ExceptionReturn && depth_ > 0) --depth_;
        if (e.kind == trace::EventKind::Watch && entry_hook_ && (e.address & ~1u) == entry_hook_) {
            // The entry hook, for r0: its caller's own entry is the branch into it; for another
            // function it is an inlined copy's, which the board records and no branch shows here.
            tracer_.on_batch({batch.events.subspan(from, i + 1 - from), batch.text});
            from = i + 1;
            std::vector<std::uint32_t> stack = tracer_.current_stack();
            if (!stack.empty() && stack.back() == entry_hook_) stack.pop_back();
            const std::uint32_t f = e.value & ~1u;
            if (stack.empty() || stack.back() == f || (stacks_of_ && !stacks_of_->count(f))) continue;
            stack.push_back(f);
            (depth_ ? handlers_ : threads_).push_back({f, e.cycle, std::move(stack)});
            calls_.push_back({f, e.cycle, 0});  // counted, not timed: a copy has no return of its own
            continue;
        }
        if (e.kind != trace::EventKind::Branch ||
            (e.value != static_cast<std::uint32_t>(trace::BranchKind::Call) && e.value != static_cast<std::uint32_t>(trace::BranchKind::Vector)))
            continue;
        const std::uint32_t f = e.address & ~1u;
        Entry entry{f, e.cycle, {}};
        if (!stacks_of_ || stacks_of_->count(f)) {
            tracer_.on_batch({batch.events.subspan(from, i + 1 - from), batch.text});
            from = i + 1;
            entry.stack = tracer_.current_stack();
        }
        (depth_ ? handlers_ : threads_).push_back(std::move(entry));
    }
    if (from < batch.events.size()) tracer_.on_batch({batch.events.subspan(from), batch.text});
}

void CallSide::on_call_event(const CallEvent& e) {
    if (e.kind != CallEvent::Kind::Entry && e.kind != CallEvent::Kind::Exit) return;
    const std::size_t context = e.context >= kExceptionContext ? 1000 + (e.context - kExceptionContext) : e.context;
    if (open_.size() <= context) open_.resize(context + 1);
    if (e.kind == CallEvent::Kind::Entry) {
        open_[context].push_back(calls_.size());
        calls_.push_back({e.function, e.cycle, 0});
        return;
    }
    if (open_[context].empty()) return;
    Call& c = calls_[open_[context].back()];
    open_[context].pop_back();
    if (!e.at_end) c.cycles = e.cycle - c.entry;
}

namespace {

struct Alignment {
    std::size_t matched = 0;  ///< ring entries that match, from the start
    std::size_t ring_size = 0;
    std::uint64_t emulated_start = 0;                           ///< the emulated cycle where the ring's window begins
    std::vector<std::uint32_t> ring_context, emulated_context;  ///< from the first difference on
    std::vector<std::uint32_t> ring_stack, emulated_stack;      ///< at the first difference
};

Alignment align(const std::vector<CallSide::Entry>& ring, const std::vector<CallSide::Entry>& emulated, const std::set<std::uint32_t>& traced) {
    std::vector<const CallSide::Entry*> filtered;
    for (const auto& e : emulated)
        if (traced.count(e.function)) filtered.push_back(&e);
    Alignment a;
    a.ring_size = ring.size();
    if (ring.empty()) return a;
    const std::size_t start = filtered.size() >= ring.size() ? filtered.size() - ring.size() : 0;
    if (start < filtered.size()) a.emulated_start = filtered[start]->cycle;
    while (a.matched < ring.size() && start + a.matched < filtered.size() && ring[a.matched].function == filtered[start + a.matched]->function)
        ++a.matched;
    for (std::size_t k = a.matched; k < std::min(ring.size(), a.matched + 5); ++k) a.ring_context.push_back(ring[k].function);
    for (std::size_t k = start + a.matched; k < std::min(filtered.size(), start + a.matched + 5); ++k)
        a.emulated_context.push_back(filtered[k]->function);
    if (a.matched < ring.size()) a.ring_stack = ring[a.matched].stack;
    if (start + a.matched < filtered.size()) a.emulated_stack = filtered[start + a.matched]->stack;
    return a;
}

std::string names(const std::vector<std::uint32_t>& functions, const decode::ElfImage& image, const char* separator = " ") {
    std::string s;
    for (std::uint32_t f : functions) {
        if (!s.empty()) s += separator;
        s += image.symbols().describe(f);
    }
    return s.empty() ? "(end)" : s;
}

}  // namespace

std::set<std::uint32_t> traced_functions(const CallSide& ring) {
    std::set<std::uint32_t> traced;
    for (const auto& e : ring.threads()) traced.insert(e.function);
    for (const auto& e : ring.handlers()) traced.insert(e.function);
    return traced;
}

CallComparison compare_calls(const CallSide& ring, const CallSide& emulated, const decode::ElfImage& image, bool ring_has_timestamps) {
    const std::set<std::uint32_t> traced = traced_functions(ring);
    const Alignment threads = align(ring.threads(), emulated.threads(), traced), handlers = align(ring.handlers(), emulated.handlers(), traced);
    CallComparison out;
    out.identical = threads.matched == threads.ring_size && handlers.matched == handlers.ring_size;
    std::string& t = out.text;
    t += "comparison with the emulated run (the functions the ring names, over its window)\n";
    nlohmann::json diverged = nlohmann::json::array();
    for (const auto& [what, a] : {std::pair<const char*, const Alignment&>{"threads", threads}, {"handlers", handlers}}) {
        if (a.matched == a.ring_size) {
            t += "  " + std::string(what) + ": the ring's " + std::to_string(a.ring_size) + " entries are the emulated run's last ones, in order\n";
            continue;
        }
        t += "  " + std::string(what) + ": FIRST DIVERGENCE at the ring's entry " + std::to_string(a.matched) + " of " + std::to_string(a.ring_size) +
             "\n    ring:     " + names(a.ring_context, image) + "\n    emulated: " + names(a.emulated_context, image) +
             "\n    ring stack:     " + names(a.ring_stack, image, " > ") + "\n    emulated stack: " + names(a.emulated_stack, image, " > ") + "\n";
        diverged.push_back({{"sequence", what},
                            {"index", a.matched},
                            {"ring", names(a.ring_context, image)},
                            {"emulated", names(a.emulated_context, image)},
                            {"ring_stack", names(a.ring_stack, image, " > ")},
                            {"emulated_stack", names(a.emulated_stack, image, " > ")}});
    }
    // Per function, over the window: calls and mean inclusive time on each side.
    struct Stats {
        std::uint64_t calls = 0, cycles = 0, timed = 0;
    };
    std::map<std::uint32_t, std::pair<Stats, Stats>> by_function;
    for (const auto& c : ring.calls())
        if (traced.count(c.function)) {
            auto& s = by_function[c.function].first;
            ++s.calls;
            if (c.cycles) s.cycles += c.cycles, ++s.timed;
        }
    const std::uint64_t window = std::min(threads.emulated_start, handlers.ring_size ? handlers.emulated_start : threads.emulated_start);
    for (const auto& c : emulated.calls())
        if (traced.count(c.function) && c.entry >= window) {
            auto& s = by_function[c.function].second;
            ++s.calls;
            if (c.cycles) s.cycles += c.cycles, ++s.timed;
        }
    std::vector<std::pair<std::uint32_t, std::pair<Stats, Stats>>> rows(by_function.begin(), by_function.end());
    std::sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) { return a.second.first.cycles > b.second.first.cycles; });
    char line[200];
    std::snprintf(line, sizeof line, "  %-28s %10s %10s %14s %14s %9s\n", "function", "calls ring", "emulated", "mean ring", "mean emulated",
                  ring_has_timestamps ? "model err" : "");
    t += line;
    nlohmann::json functions = nlohmann::json::array();
    std::size_t listed = 0;
    for (const auto& [f, sides] : rows) {
        const auto& [r, e] = sides;
        const double rm = r.timed ? static_cast<double>(r.cycles) / static_cast<double>(r.timed) : 0,
                     em = e.timed ? static_cast<double>(e.cycles) / static_cast<double>(e.timed) : 0;
        // An error needs times on both sides: an inlined copy's calls are counted, not timed.
        const bool comparable = ring_has_timestamps && rm > 0 && em > 0;
        const double error = comparable ? (em - rm) / rm : 0;
        if (listed++ < 15) {
            char err[16] = "-";
            if (comparable) std::snprintf(err, sizeof err, "%.2f%%", 100 * error);
            std::snprintf(line, sizeof line, "  %-28s %10llu %10llu %14.1f %14.1f %9s\n", image.symbols().describe(f).c_str(),
                          static_cast<unsigned long long>(r.calls), static_cast<unsigned long long>(e.calls), rm, em, ring_has_timestamps ? err : "");
            t += line;
        }
        functions.push_back({{"function", image.symbols().describe(f)},
                             {"calls_ring", r.calls},
                             {"calls_emulated", e.calls},
                             {"mean_cycles_ring", rm},
                             {"mean_cycles_emulated", em},
                             {"timing_model_error", comparable ? nlohmann::json(error) : nlohmann::json(nullptr)}});
    }
    out.json = {{"identical", out.identical}, {"divergences", diverged}, {"functions", functions}};
    return out;
}

}  // namespace emutrace::analysis
