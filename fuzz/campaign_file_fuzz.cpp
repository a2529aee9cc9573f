// libFuzzer target: arbitrary text as a campaign file. Reading it must end in a campaign of at
// most kMaxCampaignCases cases or a one-line ConfigError, whatever its matrix multiplies out to.
#include <string>

#include "app/campaign/campaign_file.h"
#include "emutrace/config.h"
#include "emutrace/config_error.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    try {
        auto root = emutrace::config::Node::load_string(std::string(reinterpret_cast<const char*>(data), size), "fuzz-campaign.yaml");
        emutrace::app::Campaign c = emutrace::app::parse_campaign(root, "fuzz-campaign.yaml");
        if (c.cases.empty() || c.cases.size() > emutrace::app::kMaxCampaignCases) __builtin_trap();
    } catch (const emutrace::ConfigError& e) {
        if (std::string(e.what()).find('\n') != std::string::npos) __builtin_trap();  // errors are one line
    }
    return 0;
}
