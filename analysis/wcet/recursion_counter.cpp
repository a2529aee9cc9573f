#include "analysis/wcet/recursion_counter.h"

#include <algorithm>
#include <map>

#include "analysis/wcet/recursion.h"

namespace emutrace::analysis::wcet {

RecursionCycles RecursionCycles::of(const decode::Program& program, const TracePoints& points) {
    const auto& fns = program.functions();
    std::map<std::uint32_t, std::size_t> by_start;
    for (std::size_t f = 0; f < fns.size(); ++f) by_start.emplace(fns[f].start, f);
    std::vector<CallEdge> edges;
    for (std::size_t f = 0; f < fns.size(); ++f)
        for (const auto& c : fns[f].calls)
            if (auto it = by_start.find(c.target); c.target && it != by_start.end()) edges.push_back({f, it->second, true});
    RecursionCycles out;
    out.cycle_of.assign(fns.size(), -1);
    for (const auto& members : strongly_connected(edges)) {
        const auto cycle = static_cast<int>(out.functions.size());
        out.functions.emplace_back();
        out.loops.emplace_back();
        for (std::size_t f : members) {
            out.cycle_of[f] = cycle;
            out.functions.back().push_back(static_cast<std::uint32_t>(f));
        }
    }
    out.points.resize(out.functions.size());
    for (std::uint32_t l = 0; l < points.loops().size(); ++l) {
        const std::uint32_t f = points.loops()[l].function;
        if (f < out.cycle_of.size() && out.cycle_of[f] >= 0) out.loops[static_cast<std::size_t>(out.cycle_of[f])].push_back(l);
    }
    for (std::uint32_t id = 0; id < points.points().size(); ++id) {
        const std::uint32_t f = points.points()[id].function;
        if (f < out.cycle_of.size() && out.cycle_of[f] >= 0) out.points[static_cast<std::size_t>(out.cycle_of[f])].push_back(id);
    }
    return out;
}

RecursionCounter::RecursionCounter(std::size_t functions, RecursionCycles cycles)
    : open_(functions, 0), running_(functions, 0), context_(functions, 0), cycles_(std::move(cycles)), item_of_function_(functions, -1),
      base_(functions, 0) {
    cycles_.cycle_of.resize(functions, -1);
    cycles_.points.resize(cycles_.functions.size());
    cycle_open_.assign(cycles_.functions.size(), 0);
    cycle_context_.assign(cycles_.functions.size(), 0);
    running_blocks_.resize(cycles_.functions.size());
    for (std::size_t c = 0; c < cycles_.points.size(); ++c) {
        running_blocks_[c].assign(cycles_.points[c].size(), 0);
        for (std::size_t k = 0; k < cycles_.points[c].size(); ++k) {
            const std::uint32_t id = cycles_.points[c][k];
            if (id >= block_of_point_.size()) {
                block_of_point_.resize(id + 1, -1);
                cycle_of_point_.resize(id + 1, -1);
            }
            block_of_point_[id] = static_cast<int>(k);
            cycle_of_point_[id] = static_cast<int>(c);
        }
    }
    std::size_t loops = 0;
    for (const auto& l : cycles_.loops)
        for (std::uint32_t id : l) loops = std::max<std::size_t>(loops, id + 1);
    item_of_loop_.assign(loops, -1);
    cycle_of_loop_.assign(loops, -1);
    for (std::size_t c = 0; c < cycles_.functions.size(); ++c) {
        first_item_.push_back(items_.size());
        for (std::uint32_t f : cycles_.functions[c]) items_.push_back({false, f});
        for (std::uint32_t l : cycles_.loops[c]) items_.push_back({true, l});
        for (std::size_t k = 0; k < cycles_.functions[c].size(); ++k) {
            const std::uint32_t f = cycles_.functions[c][k];
            item_of_function_[f] = static_cast<int>(k);
            base_[f] = running_items_.size();
            running_items_.resize(running_items_.size() + items(c), 0);
        }
        for (std::size_t k = 0; k < cycles_.loops[c].size(); ++k) {
            item_of_loop_[cycles_.loops[c][k]] = static_cast<int>(cycles_.functions[c].size() + k);
            cycle_of_loop_[cycles_.loops[c][k]] = static_cast<int>(c);
        }
    }
}

void RecursionCounter::entered(std::uint32_t f, std::uint32_t context) {
    if (f >= open_.size()) return;
    const int cycle = cycles_.cycle_of[f];
    if (open_[f]++ == 0) {
        running_[f] = 1;
        context_[f] = context;
        if (cycle >= 0) std::fill_n(running_items_.begin() + static_cast<std::ptrdiff_t>(base_[f]), items(static_cast<std::size_t>(cycle)), 0);
    } else {
        ++running_[f];
    }
    if (cycle >= 0) {
        count(static_cast<std::size_t>(cycle), item_of_function_[f]);
        const auto c = static_cast<std::size_t>(cycle);
        if (cycle_open_[c]++ == 0) {  // entered from outside: the cycle's activation begins
            cycle_context_[c] = context;
            std::fill(running_blocks_[c].begin(), running_blocks_[c].end(), 0);
        }
    }
}

void RecursionCounter::left(std::uint32_t f) {
    if (f >= open_.size() || open_[f] == 0) return;
    if (--open_[f] == 0) note(f);
    if (const int cycle = cycles_.cycle_of[f]; cycle >= 0) {
        const auto c = static_cast<std::size_t>(cycle);
        if (cycle_open_[c] > 0 && --cycle_open_[c] == 0) note_blocks(c, block_counts_);
    }
}

void RecursionCounter::note_blocks(std::size_t cycle, std::unordered_map<std::uint64_t, ScopeCount>& into) const {
    for (std::size_t k = 0; k < cycles_.points[cycle].size(); ++k)
        into[std::uint64_t{cycle_context_[cycle]} << 32 | cycles_.points[cycle][k]].add(running_blocks_[cycle][k]);
}

std::vector<RecursionCounter::BlockCount> RecursionCounter::block_counts() const {
    auto counts = block_counts_;
    for (std::size_t c = 0; c < cycle_open_.size(); ++c)
        if (cycle_open_[c] > 0) note_blocks(c, counts);
    std::vector<BlockCount> out;
    out.reserve(counts.size());
    for (const auto& [key, count] : counts) out.push_back({static_cast<std::uint32_t>(key >> 32), static_cast<std::uint32_t>(key), count});
    return out;
}

void RecursionCounter::note(std::uint32_t f) {
    if (cycles_.cycle_of[f] >= 0) note_items(f, most_items_);  // every activation: one that never recursed still bounds its cycle's counts
    note_entries(f, most_);
}

void RecursionCounter::note_entries(std::uint32_t f, std::unordered_map<std::uint32_t, std::uint64_t>& into) const {
    if (running_[f] < 2) return;  // no recursion: nothing to keep (the common case, no lookup)
    std::uint64_t& m = into[context_[f]];
    m = std::max(m, running_[f]);
}

void RecursionCounter::note_items(std::uint32_t f, std::unordered_map<std::uint64_t, std::uint64_t>& into) const {
    const auto cycle = static_cast<std::size_t>(cycles_.cycle_of[f]);
    for (std::size_t k = 0; k < items(cycle); ++k) {
        std::uint64_t& m = into[std::uint64_t{context_[f]} << 32 | (first_item_[cycle] + k)];
        m = std::max(m, running_items_[base_[f] + k]);
    }
}

std::unordered_map<std::uint32_t, std::uint64_t> RecursionCounter::most_by_context() const {
    auto out = most_;
    for (std::uint32_t f = 0; f < open_.size(); ++f)
        if (open_[f] > 0) note_entries(f, out);
    return out;
}

std::vector<RecursionCounter::CycleCount> RecursionCounter::cycle_counts() const {
    auto most = most_items_;
    for (std::uint32_t f = 0; f < open_.size(); ++f)
        if (open_[f] > 0 && cycles_.cycle_of[f] >= 0) note_items(f, most);
    std::vector<CycleCount> out;
    for (const auto& [key, m] : most) {
        const Item& item = items_[key & 0xFFFFFFFFu];
        out.push_back({static_cast<std::uint32_t>(key >> 32), item.loop, item.which, m});
    }
    return out;
}

}  // namespace emutrace::analysis::wcet
