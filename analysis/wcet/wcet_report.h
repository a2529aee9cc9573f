#pragma once
// The WCET bound's part of a --report page: the bound beside the longest observed run (and
// the bound without loop context, and the limit), where the worst path spends its cycles per
// function, and each function's CFG with the worst path drawn on it, every block on it labelled
// with its first- and later-iteration counts and costs.

#include <cstdint>
#include <string>

#include "analysis/wcet/wcet_bound.h"
#include "decode/program.h"

namespace emutrace::analysis::wcet {

/// A <section id="wcet">; `max_cycles` 0: no limit set.
std::string wcet_report_html(const decode::Program& program, const WcetResult& r, std::uint64_t clock_hz, std::uint64_t max_cycles);

}  // namespace emutrace::analysis::wcet
