#pragma once
// Files a scenario names beside itself (a board's SVD): found next to the scenario file, or for a
// board preset compiled into the binary, in the boards folder of the source tree or the install.

#include "decode/svd/svd_device.h"
#include "emutrace/config.h"

namespace emutrace::session {

/// Reads the SVD file `file` names (its value a path); throws ConfigError at `file` when it is
/// not there, naming where it looked.
decode::svd::Device read_scenario_svd_file(const config::Node& file);

}  // namespace emutrace::session
