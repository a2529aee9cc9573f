#include "analysis/crosscheck/program_flow.h"

#include <algorithm>
#include <cstdio>

#include "decode/elf_image.h"
#include "decode/instruction_decoder.h"

namespace emutrace::analysis {

std::string describe(const FlowStep& s) {
    char text[128];
    switch (s.kind) {
        case FlowStep::Kind::Range:
            std::snprintf(text, sizeof text, "range %#010x-%#010x (%u instructions) at cycle %llu", s.start, s.end, s.instructions,
                          static_cast<unsigned long long>(s.cycle));
            break;
        case FlowStep::Kind::Exception: std::snprintf(text, sizeof text, "exception %u, returning to %#010x", s.end, s.start); break;
        case FlowStep::Kind::ExceptionReturn: std::snprintf(text, sizeof text, "exception return"); break;
        case FlowStep::Kind::Gap: std::snprintf(text, sizeof text, "trace gap"); break;
    }
    return text;
}

void FlowRecorder::close() {
    open_ = false;
}

void FlowRecorder::cut_at(std::uint32_t address) {
    if (!open_) return;
    FlowStep& r = steps_.back();
    if (address > r.start && address < r.end) {
        r.end = address;
        r.last = trace::BlockEnd::Fallthrough;
        if (image_) r.instructions = decode::thumb_instruction_count(image_->bytes_at(r.start, address - r.start));
    }
    close();
}

void FlowRecorder::on_batch(const trace::EventBatch& batch) {
    for (const auto& e : batch.events) {
        switch (e.kind) {
            case trace::EventKind::Block: {
                auto end = static_cast<trace::BlockEnd>(e.width);
                if (open_ && steps_.back().end == e.address && steps_.back().last == trace::BlockEnd::Fallthrough) {
                    steps_.back().end = e.address + e.value;
                    steps_.back().instructions += e.extra;
                    steps_.back().last = end;
                } else {
                    steps_.push_back({FlowStep::Kind::Range, e.address, e.address + e.value, e.extra, e.cycle, end});
                    open_ = true;
                }
                break;
            }
            case trace::EventKind::ExceptionEntry:
                cut_at(e.address);
                steps_.push_back({FlowStep::Kind::Exception, e.address, e.value, 0, e.cycle});
                break;
            case trace::EventKind::ExceptionReturn:
                close();
                // A PFT exception-return packet carries no address: the next range says where.
                steps_.push_back({FlowStep::Kind::ExceptionReturn, 0, 0, 0, e.cycle});
                break;
            case trace::EventKind::Gap:
                close();
                steps_.push_back({FlowStep::Kind::Gap, 0, 0, 0, e.cycle});
                break;
            default: break;
        }
    }
}

FlowComparison compare_flows(const std::vector<FlowStep>& left, const std::vector<FlowStep>& right, bool compare_cycles) {
    FlowComparison c;
    c.left_steps = left.size();
    c.right_steps = right.size();
    auto same = [&](const FlowStep& a, const FlowStep& b) {
        // Exceptions and returns are stamped by the decoder at the last cycle count, so only
        // ranges carry comparable stamps.
        bool cycles = !compare_cycles || a.kind != FlowStep::Kind::Range || a.cycle == b.cycle;
        return a.kind == b.kind && a.start == b.start && a.end == b.end && cycles &&
               (a.kind != FlowStep::Kind::Range || (a.instructions == b.instructions && a.last == b.last));
    };
    std::size_t n = std::min(left.size(), right.size());
    while (c.matching < n && same(left[c.matching], right[c.matching])) ++c.matching;
    c.identical = c.matching == left.size() && c.matching == right.size();
    c.first_divergence = c.matching;
    return c;
}

}  // namespace emutrace::analysis
