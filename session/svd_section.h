#pragma once
// A scenario's `svd:` section (docs/scenario.md, "Peripherals from an SVD file"): the part's SVD
// file, which of its peripherals become devices, and the rules that give their registers the
// behaviour start-up code waits on.

#include <optional>

#include "decode/svd/svd_device.h"
#include "emu/machine_config.h"
#include "emutrace/config.h"

namespace emutrace::session {

/// The SVD the section names, found beside the scenario file (or, for a compiled-in board
/// preset, in the installed boards folder); throws ConfigError naming the key.
decode::svd::Device read_scenario_svd(const config::Node& section);

/// A `peripherals:` entry; one named as a peripheral of `svd` takes its base, interrupts and
/// registers from there.
emu::DeviceConfig parse_device(const config::Node& entry, const decode::svd::Device* svd);

/// The SVD's peripherals the section takes that `m.devices` does not already declare, as plain
/// register devices; then the section's rules on the devices' fields.
void add_svd_devices(const config::Node& section, const decode::svd::Device& svd, emu::MachineConfig& m);

}  // namespace emutrace::session
