#pragma once
// A scenario file: everything about a run that is not the firmware (docs/scenario.md): the
// machine, parsed here, and the analyses' sections, which each analysis parses itself.

#include <optional>
#include <string>
#include <vector>

#include <map>
#include <memory>

#include "emu/machine_config.h"
#include "emutrace/config.h"
#include "emutrace/registry.h"

namespace emutrace::decode {
class ElfImage;
namespace svd {
struct Device;
}  // namespace svd
}  // namespace emutrace::decode

namespace emutrace::session {

struct Scenario {
    std::string file;  ///< where it came from ("built-in mps2-an385 scenario" for the default)
    emu::MachineConfig machine;
    /// The scenario names its core (`cpu:`); when it does not, nor does --cpu, the run takes the
    /// core the ELF's build attributes name.
    bool core_given = false;
    bool core_from_elf = false;  ///< the ELF's build attributes chose another core than the board's
    /// `rtos: NAME`, a preset (decode/rtos_preset.h): the machine's rtos keys come from the ELF.
    std::string rtos_preset;
    /// outputs.<key>: the run's files (json, junit) and the analyses' (perfetto, pft, ...).
    std::map<std::string, std::string> outputs;
    /// The firmware the scenario is for: an ELF path relative to the scenario file, or the name of
    /// an ELF the build produced (build/firmware/<name>.elf). Empty: give it on the command line.
    std::string firmware;
    /// Shared objects with out-of-tree analyses (`plugins:`), relative to the scenario file.
    std::vector<std::string> plugins;
    /// The document: analyses parse their own sections from it (AnalysisSetup::section).
    std::optional<config::Node> root;
};

/// The outputs every run has, whatever analyses run: the JSON result and the JUnit report.
inline constexpr const char* kRunOutputs[] = {"json", "junit", "report", "dump-ram"};
/// How the run writes them: outputs.checkpoint_every (--checkpoint-every), emulated time between
/// rewrites of the JSON result during the run.
inline constexpr const char* kRunOutputSettings[] = {"checkpoint_every"};

/// Parses and validates the machine and the keys; a top-level key or output no analysis of
/// `registry` registered is an error naming file and line. Analyses parse their sections later.
Scenario load_scenario(const config::Node& root, const AnalysisRegistry& registry = AnalysisRegistry::builtin());
Scenario load_scenario_file(const std::string& path, const AnalysisRegistry& registry = AnalysisRegistry::builtin());

/// A scenario read once to be made into machines many times (each run needs devices of its own,
/// which keep state): the SVD file it names is parsed once, not on every make().
class ScenarioPrototype {
public:
    explicit ScenarioPrototype(config::Node root, const AnalysisRegistry& registry = AnalysisRegistry::builtin());
    /// A fresh scenario, as load_scenario(root, registry) reads it; throws as it does.
    Scenario make() const;

private:
    config::Node root_;
    AnalysisRegistry registry_;
    std::shared_ptr<const decode::svd::Device> svd_;  // null: the scenario names no SVD file
};
/// The `plugins:` list of a scenario document, resolved against its file.
std::vector<std::string> scenario_plugins(const config::Node& root);
/// The built-in MPS2-AN385 layout (scenarios/boards/mps2-an385.yaml, compiled in).
Scenario default_scenario(const std::vector<std::string>& settings = {});
/// When the scenario names no core (and `cpu_option`, --cpu, is not set): the core the ELF's
/// build attributes name, so that an ARMv6-M or FPU build is not run as the board's Cortex-M3.
void take_core_built_for(Scenario& scenario, const decode::ElfImage& image, bool cpu_option = false);
/// With `rtos: NAME`: the current-thread symbol and where a thread's name lies in its control
/// block, from the ELF's symbols and DWARF; throws ConfigError naming the ELF when they are not there.
void take_rtos_preset(Scenario& scenario, const decode::ElfImage& image);
/// The board presets compiled in from scenarios/boards/*.yaml, by file stem, in name order.
std::vector<std::string> board_preset_names();
/// The cycle model a --timing value names; throws ConfigError listing the choices.
emu::TimingMode timing_option(const std::string& value);
/// A board preset's document by name ("stm32f100"), or a scenario file by path. An argument that is
/// neither throws a one-line ConfigError listing the presets.
config::Node load_board(const std::string& name_or_file);

}  // namespace emutrace::session
