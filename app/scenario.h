#pragma once
// A scenario file: everything about a run that is not the firmware (docs/scenario.md).

#include <string>

#include "config/node.h"
#include "emu/machine_config.h"

namespace emutrace::app {

struct Outputs {
    std::string json;    ///< run summary as JSON
    std::string events;  ///< event stream as JSON Lines
};

struct Scenario {
    std::string file;  ///< where it came from ("built-in mps2-an385 scenario" for the default)
    emu::MachineConfig machine;
    Outputs outputs;
};

/// Parses and validates a scenario; throws ConfigError naming file, line and key.
Scenario load_scenario(const config::Node& root);
Scenario load_scenario_file(const std::string& path);
/// The built-in MPS2-AN385 layout (scenarios/boards/mps2-an385.yaml, compiled in).
Scenario default_scenario();

}  // namespace emutrace::app
