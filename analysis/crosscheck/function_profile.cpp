#include "analysis/crosscheck/function_profile.h"

#include <algorithm>

#include "decode/symbol_table.h"

namespace emutrace::analysis {

void FunctionProfile::on_batch(const trace::EventBatch& batch) {
    for (const auto& e : batch.events) {
        if (e.kind != trace::EventKind::Block) continue;
        if (last_ && e.cycle > last_cycle_) last_->cycles += e.cycle - last_cycle_;
        const decode::Symbol* f = symbols_.function_at(e.address);
        std::uint32_t key = f ? f->address : 0xFFFFFFFFu;
        auto [it, fresh] = by_address_.try_emplace(key);
        if (fresh) it->second = f ? FunctionCounts{f->name, f->address, f->size} : FunctionCounts{"(unknown)", 0, 0};
        it->second.instructions += e.extra;
        ++it->second.ranges;
        instructions_ += e.extra;
        std::uint32_t& end = executed_[e.address];
        end = std::max(end, e.address + e.value);
        last_ = &it->second;
        last_cycle_ = e.cycle;
    }
}

std::vector<FunctionCounts> FunctionProfile::functions() const {
    std::vector<FunctionCounts> out;
    for (const auto& [address, counts] : by_address_) {
        FunctionCounts c = counts;
        // Covered bytes: the union of executed ranges, clipped to the function.
        std::uint32_t lo = c.address, hi = c.address + c.size, covered = 0, reach = lo;
        for (auto it = executed_.upper_bound(lo) == executed_.begin() ? executed_.begin() : std::prev(executed_.upper_bound(lo));
             it != executed_.end() && it->first < hi; ++it) {
            std::uint32_t a = std::max({it->first, lo, reach}), b = std::min(it->second, hi);
            if (b > a) covered += b - a;
            reach = std::max(reach, b);
        }
        c.covered_bytes = c.size ? covered : 0;
        out.push_back(c);
    }
    return out;
}

}  // namespace emutrace::analysis
