#pragma once
// The wcet section of a scenario (docs/wcet.md).

#include <cstdint>
#include <string>
#include <vector>

#include "analysis/wcet/wcet_bound.h"
#include "emutrace/config.h"

namespace emutrace::analysis::wcet {

struct WcetConfig {
    bool enabled = false;  ///< the section is present
    std::string function;  ///< whose bound is computed
    std::vector<FlowFact> flow_facts;
    std::uint64_t max_cycles = 0;               ///< a bound above this fails the run (exit 1); 0: none
    unsigned call_context = kDefaultCallDepth;  ///< call-string length k (wcet_bound.h)
    std::string flow_facts_file;                ///< facts to read (flow_facts.h), relative to the scenario
    bool path_counts = true;                    ///< path_counts: runs (true) or any (WcetQuery::path_counts)
};

/// Reads `wcet:` (undefined: disabled); throws ConfigError naming file and line.
WcetConfig parse_wcet_config(const config::Node& wcet);

}  // namespace emutrace::analysis::wcet
