// emutrace analyses: what the registry (and any --plugin) holds.
#include "app/cli/subcommand.h"

namespace emutrace::app::cli {
namespace {

class AnalysesSubcommand : public Subcommand {
public:
    Command declare(Command& parser, const AnalysisRegistry&) override {
        return parser.subcommand("analyses", "List the registered analyses: scenario sections, outputs, options, events.");
    }
    int run(const AnalysisRegistry& registry) override { return analyses_command(registry); }
};

}  // namespace

std::unique_ptr<Subcommand> analyses_subcommand() {
    return std::make_unique<AnalysesSubcommand>();
}

}  // namespace emutrace::app::cli
