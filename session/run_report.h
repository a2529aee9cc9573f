#pragma once
// What a run says afterwards: the terminal summary and the --json document.

#include <string>

#include <nlohmann/json.hpp>

#include "emu/run_result.h"
#include "session/scenario.h"

namespace emutrace::session {

/// Readable at a glance: what ran, for how long in emulated time, why it stopped.
std::string format_summary(const Scenario& scenario, const std::string& elf, const emu::RunResult& result);
/// Stable keys: instructions, cycles, stop_reason, exit_code, host_seconds, ... (docs/cli.md).
nlohmann::json to_json(const Scenario& scenario, const std::string& elf, const emu::RunResult& result);

}  // namespace emutrace::session
