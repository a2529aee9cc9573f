#include "analysis/wcet/trace_points.h"

#include <algorithm>
#include <set>
#include <utility>

namespace emutrace::analysis::wcet {

TracePoints::TracePoints(const decode::Program& program) {
    const auto& functions = program.functions();
    // A BL to code that is no function's entry (libgcc's `bleq Lml_s` inside __aeabi_dmul) calls
    // no function: its target and the return from it stay in the calling function's run.
    std::set<std::uint32_t> entries;
    for (const auto& fn : functions) entries.insert(fn.start);
    for (std::uint32_t f = 0; f < functions.size(); ++f) {
        const decode::Function& fn = functions[f];
        std::vector<std::uint32_t> loop_base(fn.loops.size());
        for (std::uint32_t l = 0; l < fn.loops.size(); ++l) loop_base[l] = static_cast<std::uint32_t>(loops_.size()) + l;
        auto first_point = static_cast<std::uint32_t>(points_.size());
        for (std::uint32_t b = 0; b < fn.blocks.size(); ++b) {
            const decode::BasicBlock& block = fn.blocks[b];
            TracePoint p;
            p.first = block.start;
            p.end = block.end;
            p.function = f;
            p.block = b;
            if (block.loop >= 0) {
                const decode::Loop& loop = fn.loops[static_cast<std::size_t>(block.loop)];
                p.level = static_cast<std::uint8_t>(std::min(loop.depth, 255));
                p.distinctor = static_cast<std::uint16_t>(block.loop + 1);
                p.loop = static_cast<int>(loop_base[static_cast<std::size_t>(block.loop)]);
            }
            p.entry = b == 0;
            p.counted = block.irreducible;
            p.indirect = block.exit == decode::BlockExit::Return;  // a pop {pc} may enter a function (wcet_bound's sites_of)
            p.exit =
                block.exit == decode::BlockExit::Return || block.exit == decode::BlockExit::TailCall || block.exit == decode::BlockExit::Indirect;
            for (const auto& c : fn.calls) {
                if (c.at < block.start || c.at >= block.end) continue;
                if (!c.tail && (c.target == 0 || entries.count(c.target))) p.call = true;
                if (c.target == 0) p.indirect = true;
            }
            p.ret = b > 0 && points_.back().call && points_.back().function == f;
            points_.push_back(p);
        }
        for (std::uint32_t l = 0; l < fn.loops.size(); ++l) {
            int parent = fn.loops[l].parent;
            loops_.push_back({f, l, first_point + static_cast<std::uint32_t>(fn.loops[l].header),
                              parent < 0 ? -1 : static_cast<int>(loop_base[static_cast<std::size_t>(parent)])});
        }
    }
    index_addresses();
}

TracePoints::TracePoints(std::vector<TracePoint> points, std::vector<LoopRef> loops) : points_(std::move(points)), loops_(std::move(loops)) {
    index_addresses();
}

void TracePoints::index_addresses() {
    std::size_t size = 16;
    unsigned bits = 4;
    while (size < 2 * points_.size()) {
        size *= 2;
        ++bits;
    }
    slots_.assign(size, Slot{});
    mask_ = size - 1;
    shift_ = 32 - bits;  // the multiplicative hash's top bits
    for (std::size_t id = 0; id < points_.size(); ++id) {
        std::size_t k = slot_of(points_[id].first);
        while (slots_[k].id >= 0 && slots_[k].address != points_[id].first) k = (k + 1) & mask_;
        if (slots_[k].id < 0) slots_[k] = {points_[id].first, static_cast<int>(id)};
    }
}

std::vector<std::uint32_t> TracePoints::addresses() const {
    std::vector<std::uint32_t> out;
    out.reserve(points_.size());
    for (const auto& p : points_) out.push_back(p.first);
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
}

}  // namespace emutrace::analysis::wcet
