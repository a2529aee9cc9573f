#include "analysis/coverage/block_coverage.h"

#include <algorithm>
#include <map>

#include "config/units.h"

namespace emutrace::analysis {

void BlockCoverage::on_batch(const trace::EventBatch& batch) {
    for (const trace::Event& e : batch.events)
        if (e.kind == trace::EventKind::Block) add(e.address, e.value);
}

void BlockCoverage::add(std::uint32_t address, std::uint32_t size) {
    Seen& slot = recent_[(address >> 1) & (recent_.size() - 1)];
    if (slot.address == address && slot.size >= size) return;
    std::uint32_t& longest = blocks_[address];
    longest = std::max(longest, size);
    slot = {address, longest};
}

CoverageFigures BlockCoverage::figures(const decode::Program& program) const {
    // What ran as disjoint ranges [first, second), sorted.
    std::vector<std::pair<std::uint64_t, std::uint64_t>> ran;
    ran.reserve(blocks_.size());
    for (const auto& [address, size] : blocks_) ran.emplace_back(address, std::uint64_t{address} + std::max<std::uint32_t>(size, 1));
    std::sort(ran.begin(), ran.end());
    std::vector<std::pair<std::uint64_t, std::uint64_t>> merged;
    for (const auto& r : ran) {
        if (!merged.empty() && r.first <= merged.back().second)
            merged.back().second = std::max(merged.back().second, r.second);
        else
            merged.push_back(r);
    }
    auto executed = [&](std::uint32_t address) {
        auto it = std::upper_bound(merged.begin(), merged.end(), std::pair<std::uint64_t, std::uint64_t>{address, UINT64_MAX});
        return it != merged.begin() && address < std::prev(it)->second;
    };
    // Two static functions of one name (in two files) are two functions: named by their address too.
    std::map<std::string, int> uses;
    for (const decode::Function& fn : program.functions()) ++uses[fn.name];
    auto name_of = [&](const decode::Function& fn) { return uses[fn.name] > 1 ? fn.name + "@" + config::hex32(fn.start) : fn.name; };
    CoverageFigures f;
    for (const decode::Function& fn : program.functions()) {
        f.functions_defined.push_back(name_of(fn));
        bool any = false;
        for (const decode::BasicBlock& b : fn.blocks) {
            ++f.blocks_defined;
            if (executed(b.start)) f.blocks_executed.push_back(b.start), any = true;
        }
        if (any) f.functions_executed.push_back(name_of(fn));
    }
    std::sort(f.functions_defined.begin(), f.functions_defined.end());
    f.functions_defined.erase(std::unique(f.functions_defined.begin(), f.functions_defined.end()), f.functions_defined.end());
    std::sort(f.functions_executed.begin(), f.functions_executed.end());
    f.functions_executed.erase(std::unique(f.functions_executed.begin(), f.functions_executed.end()), f.functions_executed.end());
    std::sort(f.blocks_executed.begin(), f.blocks_executed.end());
    return f;
}

}  // namespace emutrace::analysis
