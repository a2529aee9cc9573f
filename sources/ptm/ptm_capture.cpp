#include "sources/ptm/ptm_capture.h"

#include "config/json_text.h"

#include <cstdio>

#include <nlohmann/json.hpp>

namespace emutrace::decode {

SourceTotals PtmCapture::deliver() {
    summary_ = decode_snapshot(dir_, only_id_, sinks_);
    SourceTotals t;
    t.source = dir_;
    t.instructions = summary_.instructions;
    t.cycles = summary_.cycles ? summary_.cycles : summary_.instructions;
    t.complete = summary_.lost_bytes == 0;
    return t;
}

int PtmCapture::verdict(std::string& why) const {
    const CaptureSummary& s = summary_;
    std::string first = s.errors.empty() ? std::string() : "; first at byte " + std::to_string(s.errors[0].offset) + ": " + s.errors[0].reason;
    if (!s.instructions) {
        why = dir_ + ": no instruction decoded from " + std::to_string(s.bytes) + " trace bytes (" + std::to_string(s.error_count) +
              " OpenCSD errors" + first + ")";
        return kNothingDecoded;
    }
    if (s.damaged()) {
        why = dir_ + ": part of the capture could not be decoded: " + std::to_string(s.error_count) + " OpenCSD errors, " +
              std::to_string(s.lost_bytes) + " bytes skipped to resynchronise" + first;
        return kPartlyDecoded;
    }
    return 0;
}

std::string PtmCapture::summary() const {
    const CaptureSummary& s = summary_;
    char line[512];
    std::string out;
    std::snprintf(line, sizeof line, "%s: %llu trace bytes decoded with OpenCSD\n", s.snapshot.c_str(), static_cast<unsigned long long>(s.bytes));
    out += line;
    std::string ids;
    for (auto id : s.trace_ids) ids += (ids.empty() ? "" : ", ") + std::to_string(id);
    out += "  trace sources   " + (ids.empty() ? std::string("(none)") : ids) + "\n";
    std::snprintf(line, sizeof line,
                  "  ranges          %llu\n  instructions    %llu\n  exceptions      %llu (returns %llu)\n  trace on        %llu\n"
                  "  gaps            %llu\n  cycles          %llu\n",
                  static_cast<unsigned long long>(s.ranges), static_cast<unsigned long long>(s.instructions),
                  static_cast<unsigned long long>(s.exceptions), static_cast<unsigned long long>(s.exception_returns),
                  static_cast<unsigned long long>(s.trace_on), static_cast<unsigned long long>(s.gaps), static_cast<unsigned long long>(s.cycles));
    out += line;
    if (s.cores.size() > 1)  // each core apart: its own instructions and its own clock
        for (const auto& c : s.cores) {
            std::snprintf(line, sizeof line, "    %-12s trace ID %-4u %-14s %llu instructions, %llu exceptions, %llu cycles\n", c.core.name.c_str(),
                          c.core.trace_id, (c.core.core + (c.core.core_type.empty() ? "" : " " + c.core.core_type)).c_str(),
                          static_cast<unsigned long long>(c.instructions), static_cast<unsigned long long>(c.exceptions),
                          static_cast<unsigned long long>(c.cycles));
            out += line;
        }
    if (s.lost_bytes) {
        std::snprintf(line, sizeof line, "  lost            %llu bytes while resynchronising, first at byte %lld\n",
                      static_cast<unsigned long long>(s.lost_bytes), static_cast<long long>(s.first_loss_at));
        out += line;
    }
    if (s.error_count) {
        out += "  errors          " + std::to_string(s.error_count) + " (OpenCSD could not decode there)\n";
        for (std::size_t i = 0; i < s.errors.size() && i < 3; ++i)
            out += "    at byte " + std::to_string(s.errors[i].offset) + ": " + s.errors[i].reason.substr(0, 160) + "\n";
    }
    return out;
}

std::string PtmCapture::json() const {
    const CaptureSummary& s = summary_;
    nlohmann::json errors = nlohmann::json::array();
    for (const auto& e : s.errors) errors.push_back({{"offset", e.offset}, {"reason", e.reason}});
    nlohmann::json cores = nlohmann::json::array();
    for (const auto& c : s.cores)
        cores.push_back({{"source", c.core.name},
                         {"core", c.core.core},
                         {"core_type", c.core.core_type},
                         {"trace_id", c.core.trace_id},
                         {"exceptions_numbered", c.core.exceptions == trace::ExceptionModel::MProfile ? "M-profile" : "PFT (A/R-profile)"},
                         {"ranges", c.ranges},
                         {"instructions", c.instructions},
                         {"exceptions", c.exceptions},
                         {"cycles", c.cycles}});
    nlohmann::json j = {{"snapshot", s.snapshot},       {"trace_ids", s.trace_ids},
                        {"ranges", s.ranges},           {"instructions", s.instructions},
                        {"exceptions", s.exceptions},   {"exception_returns", s.exception_returns},
                        {"trace_on", s.trace_on},       {"gaps", s.gaps},
                        {"cycles", s.cycles},           {"bytes", s.bytes},
                        {"lost_bytes", s.lost_bytes},   {"first_loss_at", s.first_loss_at},
                        {"error_count", s.error_count}, {"errors", errors},
                        {"damaged", s.damaged()},       {"cores", cores}};
    return config::json_text(j);
}

}  // namespace emutrace::decode
