#pragma once
// A campaign: many runs, one answer. The file names the firmware and scenarios, a parameter
// matrix of scenario keys (each combination is one case, run as `emutrace run --set ...`), the
// extra arguments of every run, and where the results go (docs/campaign.md).

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "emutrace/config.h"

namespace emutrace::app {

/// One run of the campaign: the command line of `emutrace run` and what it is for.
struct CampaignCase {
    std::size_t index = 0;                                      ///< 0-based, in file order, the matrix's last key varying fastest
    std::string group;                                          ///< the `runs:` entry it comes from: its `name`, else firmware + scenario
    std::string firmware;                                       ///< ELF path, or the name of a firmware the build produced
    std::string scenario;                                       ///< scenario path; empty: the built-in board
    std::vector<std::pair<std::string, std::string>> settings;  ///< --set path=value, the matrix's values
    std::vector<std::string> args;                              ///< the entry's extra arguments
    std::string id() const;                                     ///< "case-0007": its results directory
};

struct Campaign {
    std::string file;  ///< the campaign file
    std::string name;
    std::vector<CampaignCase> cases;
    std::string results;      ///< directory of the cases' results (default: <file stem>.results beside the file)
    std::string json, junit;  ///< merged outputs; empty: not written
};

/// Reads a campaign file; mistakes are ConfigError naming file, line and key, as a scenario's are.
/// Relative paths are taken from the campaign file's directory.
Campaign load_campaign(const std::string& path);
/// The same from a loaded document; `path` is the file it came from.
Campaign parse_campaign(const config::Node& root, const std::string& path);

/// More cases than a campaign may have: a matrix that multiplies out beyond is refused before
/// any case is made (ten keys of ten values would be 10^10 of them). Each case is a run of the
/// emulator, so 100,000 is days of a cluster's time already.
inline constexpr std::size_t kMaxCampaignCases = 100'000;
/// What the cases' command lines may hold together: a short file of long values (YAML anchors,
/// a 90 KB file) multiplies out to gigabytes before a case runs.
inline constexpr std::size_t kMaxCampaignBytes = 256u << 20;

}  // namespace emutrace::app
