#include "analysis/sampler/marker_records.h"

#include <algorithm>
#include <cstdio>

#include "config/little_endian.h"
#include "decode/elf_image.h"
#include "emutrace/config_error.h"

namespace emutrace::analysis::sampler {

std::uint32_t encode_marker_op(const MarkerOp& op) {
    return static_cast<std::uint32_t>(op.kind) << 24 | static_cast<std::uint32_t>(op.marker) << 16 | op.value;
}

RecordedPlan plan_from_records(const decode::ElfImage& image, const SamplingGraph& graph, const std::string& function) {
    const std::vector<std::uint8_t>& bytes = image.record_section(kMarkerRecordSection);
    auto fail = [&](const std::string& what) { throw ConfigError(image.path() + ": " + what); };
    if (bytes.empty())
        fail(std::string("no ") + kMarkerRecordSection +
             " section: build the firmware with the header of emutrace markers --header and its macros placed");
    if (bytes.size() % 8) fail(std::string(kMarkerRecordSection) + " is " + std::to_string(bytes.size()) + " bytes, not whole 8-byte records");
    RecordedPlan out{MarkerPlan(graph.vertices.size()), std::vector<std::uint32_t>(graph.vertices.size(), 0), 0};
    auto word = [&](std::size_t at) { return config::read_le32(bytes.data() + at); };
    const CodeIndex index(graph);
    for (std::size_t at = 0; at < bytes.size(); at += 8) {
        const std::uint32_t end = word(at) & ~1u, code = word(at + 4);
        char where[96];
        std::snprintf(where, sizeof where, "marker record %zu (operation ending at 0x%08x)", at / 8, end);
        MarkerOp op;
        const std::uint32_t kind = code >> 24;
        if (kind > static_cast<std::uint32_t>(MarkerOp::Kind::Assign)) fail(std::string(where) + ": unknown operation " + std::to_string(kind));
        op.kind = static_cast<MarkerOp::Kind>(kind);
        op.marker = static_cast<std::uint8_t>(code >> 16);
        op.value = static_cast<std::uint16_t>(code);
        if ((op.kind == MarkerOp::Kind::SetBit || op.kind == MarkerOp::Kind::ClearBit) && op.marker >= kMaxBits)
            fail(std::string(where) + ": bit " + std::to_string(op.marker) + " of " + std::to_string(kMaxBits));
        if (op.kind == MarkerOp::Kind::Increment && op.marker >= kMaxCounters)
            fail(std::string(where) + ": counter " + std::to_string(op.marker) + " of " + std::to_string(kMaxCounters));
        // The label follows the operation's last instruction, so that instruction holds end - 2.
        const std::int32_t v = end >= 2 ? index.holding(end - 2) : -1;
        if (v < 0) {
            // Records of other functions' plans are theirs; an operation in no function is a misplaced macro.
            if (!image.symbols().function_at(end - 2)) fail(std::string(where) + ": the operation is in no function");
            continue;
        }
        const auto u = static_cast<std::uint32_t>(v);
        out.plan.ops[u].push_back(op);
        out.ops_end[u] = std::max(out.ops_end[u], end);
        switch (op.kind) {
            case MarkerOp::Kind::SetBit:
            case MarkerOp::Kind::ClearBit: out.plan.bits = std::max<unsigned>(out.plan.bits, op.marker + 1u); break;
            case MarkerOp::Kind::Increment: out.plan.counters = std::max<unsigned>(out.plan.counters, op.marker + 1u); break;
            case MarkerOp::Kind::Assign: out.plan.assignment = true; break;
        }
        ++out.records;
    }
    if (!out.records) fail(std::string(kMarkerRecordSection) + " has no operation inside " + function);
    return out;
}

}  // namespace emutrace::analysis::sampler
