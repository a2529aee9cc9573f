#include <nlohmann/json.hpp>

#include <cstdio>
#include <fstream>
#include <memory>

#include "analysis/writers/event_log_writer.h"
#include "app/commands.h"
#include "config/config_error.h"
#include "decode/capture_decoder.h"

namespace emutrace::app {

int crosscheck_command(const std::string& snapshot, unsigned trace_id, const std::string& json_path, const std::string& events) {
    std::unique_ptr<analysis::EventLogWriter> log;
    std::vector<trace::TraceSink*> sinks;
    if (!events.empty()) {
        log = std::make_unique<analysis::EventLogWriter>(events);
        sinks.push_back(log.get());
    }
    decode::CaptureSummary s = decode::decode_snapshot(snapshot, static_cast<std::uint8_t>(trace_id), sinks);
    std::printf("%s: %llu trace bytes decoded with OpenCSD\n", snapshot.c_str(), static_cast<unsigned long long>(s.bytes));
    std::string ids;
    for (auto id : s.trace_ids) {
        if (!ids.empty()) ids += ", ";
        ids += std::to_string(id);
    }
    std::printf("  trace sources   %s\n", ids.empty() ? "(none)" : ids.c_str());
    std::printf("  ranges          %llu\n  instructions    %llu\n  exceptions      %llu (returns %llu)\n  trace on        %llu\n"
                "  gaps            %llu\n  cycles          %llu\n",
                static_cast<unsigned long long>(s.ranges), static_cast<unsigned long long>(s.instructions),
                static_cast<unsigned long long>(s.exceptions), static_cast<unsigned long long>(s.exception_returns),
                static_cast<unsigned long long>(s.trace_on), static_cast<unsigned long long>(s.gaps),
                static_cast<unsigned long long>(s.cycles));
    if (!json_path.empty()) {
        std::ofstream out(json_path);
        if (!out) throw ConfigError(json_path + ": cannot write the JSON file");
        out << nlohmann::json{{"snapshot", snapshot}, {"trace_ids", s.trace_ids}, {"ranges", s.ranges}, {"instructions", s.instructions},
                              {"exceptions", s.exceptions}, {"exception_returns", s.exception_returns}, {"trace_on", s.trace_on},
                              {"gaps", s.gaps}, {"cycles", s.cycles}, {"bytes", s.bytes}}
                   .dump(2)
            << "\n";
    }
    return 0;
}

}  // namespace emutrace::app
