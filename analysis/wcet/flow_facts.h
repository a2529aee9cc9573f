#pragma once
// Flow facts as a file a user reads, edits and gives back (docs/wcet.md, "Flow facts"): the loop
// bounds and totals a bound used, per call-string context, written after a run; read back, each
// one overrides what the runs observed, after a check that no run contributing to the bound did
// more than it allows. The entries are those of a scenario's wcet.flow_facts, plus `context`.

#include <string>
#include <vector>

#include "analysis/wcet/wcet_bound.h"
#include "emutrace/config.h"

namespace emutrace::analysis::wcet {

/// One entry of wcet.flow_facts or of a flow-facts file; fails naming the file and line.
FlowFact parse_flow_fact(const config::Node& entry);
/// Reads a file written by write_flow_facts (or by hand in its form); throws ConfigError naming
/// the file and line.
std::vector<FlowFact> read_flow_facts(const std::string& path);
/// Writes the loop bounds and totals `r` used, one fact each, with where they came from as a
/// comment; throws ConfigError when the file cannot be written.
void write_flow_facts(const std::string& path, const WcetResult& r, const std::string& firmware);

}  // namespace emutrace::analysis::wcet
