#include "analysis/sampler/marker_plan.h"

#include <cstdio>

namespace emutrace::analysis::sampler {

std::string MarkerOp::text() const {
    // snprintf, not "m" + std::to_string(...): GCC 12 warns falsely (-Wrestrict) on the latter.
    char s[48];
    switch (kind) {
        case Kind::SetBit: std::snprintf(s, sizeof s, "set bit %u", marker); break;
        case Kind::ClearBit: std::snprintf(s, sizeof s, "clear bit %u", marker); break;
        case Kind::Increment: std::snprintf(s, sizeof s, "m%u += %u", marker, value); break;
        case Kind::Assign: std::snprintf(s, sizeof s, "m = %u", value); break;
        default: return "?";
    }
    return s;
}

void MarkerPlan::apply(std::uint32_t vertex, MarkerState& s) const {
    for (const MarkerOp& op : ops[vertex]) {
        switch (op.kind) {
            case MarkerOp::Kind::SetBit: s.bits |= std::uint64_t{1} << op.marker; break;
            case MarkerOp::Kind::ClearBit: s.bits &= ~(std::uint64_t{1} << op.marker); break;
            case MarkerOp::Kind::Increment: s.counters[op.marker] = static_cast<std::uint16_t>(s.counters[op.marker] + op.value); break;
            case MarkerOp::Kind::Assign: s.assigned = op.value; break;
        }
    }
}

MarkerState MarkerPlan::after(const std::vector<std::uint32_t>& path) const {
    MarkerState s;
    for (std::uint32_t v : path) apply(v, s);
    return s;
}

std::size_t MarkerPlan::bytes() const {
    return bits + 2 * counters + (assignment ? 2 : 0);
}

std::size_t MarkerPlan::instrumented_vertices() const {
    std::size_t n = 0;
    for (const auto& v : ops) n += !v.empty();
    return n;
}

std::uint32_t MarkerPlan::cost(std::uint32_t vertex) const {
    // The header's code: a bit is a byte of its own and an assignment a halfword, each set by one
    // store so that the sampling interrupt cannot tear it (movs, strb/strh); a counter is ldrh,
    // adds, strh.
    std::uint32_t cycles = 0;
    for (const MarkerOp& op : ops[vertex]) cycles += op.kind == MarkerOp::Kind::Increment ? 4 : 2;
    return cycles;
}

}  // namespace emutrace::analysis::sampler
