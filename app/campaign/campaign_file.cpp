#include "app/campaign/campaign_file.h"

#include <algorithm>

#include <cstdio>
#include <filesystem>

#include "emutrace/config.h"
#include "emutrace/config_error.h"

namespace emutrace::app {
namespace {

namespace fs = std::filesystem;

// Absolute: a case runs in its own results directory.
std::string relative_to(const fs::path& dir, const std::string& path) {
    if (path.empty() || fs::path(path).is_absolute()) return path;
    return fs::absolute(dir / path).lexically_normal().string();
}

// A firmware name without a '/' and without .elf is one the build produced (as in a scenario).
std::string firmware_path(const fs::path& dir, const std::string& firmware) {
    bool is_path = firmware.find('/') != std::string::npos || firmware.ends_with(".elf");
    return is_path ? relative_to(dir, firmware) : firmware;
}

// The scalar text of a matrix value: a YAML scalar as written, or a list/map as flow YAML.
std::string value_text(const config::Node& n) {
    if (n.is_scalar()) return n.str();
    n.fail("a matrix value is one scalar (48MHz, 200us, 3); give a list of them, one per case");
}

}  // namespace

std::string CampaignCase::id() const {
    char text[32];
    std::snprintf(text, sizeof text, "case-%04zu", index);
    return text;
}

Campaign load_campaign(const std::string& path) {
    return parse_campaign(config::Node::load_file(path), path);
}

Campaign parse_campaign(const config::Node& root, const std::string& path) {
    root.allow_only({"name", "runs", "outputs"});
    root.require({"runs"});
    const fs::path dir = fs::path(path).parent_path();
    Campaign c;
    c.file = path;
    c.name = root.has("name") ? root["name"].str() : fs::path(path).stem().string();
    const config::Node out = root["outputs"];
    out.allow_only({"results", "json", "junit"});
    c.results = relative_to(dir, out.has("results") ? out["results"].str() : fs::path(path).stem().string() + ".results");
    if (out.has("json")) c.json = relative_to(dir, out["json"].str());
    if (out.has("junit")) c.junit = relative_to(dir, out["junit"].str());

    const std::vector<config::Node> runs = root["runs"].items();
    if (runs.empty()) root["runs"].fail("name at least one run: {firmware: ..., scenario: ..., matrix: {...}}");
    std::size_t bytes = 0;  // the cases' text so far (kMaxCampaignBytes)
    for (const config::Node& run : runs) {
        run.allow_only({"name", "firmware", "scenario", "matrix", "args"});
        if (!run.has("firmware") && !run.has("scenario")) run.fail("a run names its firmware, its scenario (with a firmware: key), or both");
        CampaignCase base;
        if (run.has("firmware")) base.firmware = firmware_path(dir, run["firmware"].str());
        if (run.has("scenario")) base.scenario = relative_to(dir, run["scenario"].str());
        base.group = run.has("name") ? run["name"].str() : base.firmware + (base.scenario.empty() ? "" : " on " + base.scenario);
        if (run.has("args"))
            for (const config::Node& a : run["args"].items()) base.args.push_back(a.str());
        // The matrix: each key's values; every combination is a case.
        std::vector<std::pair<std::string, std::vector<std::string>>> axes;
        if (run.has("matrix")) {
            for (const auto& [key, values] : run["matrix"].entries()) {
                std::vector<std::string> texts;
                if (values.is_sequence()) {
                    for (const config::Node& v : values.items()) texts.push_back(value_text(v));
                    if (texts.empty()) values.fail("an empty list makes no case");
                } else {
                    texts.push_back(value_text(values));
                }
                axes.emplace_back(key, std::move(texts));
            }
            std::size_t cases = 1;
            for (const auto& [key, texts] : axes)
                if ((cases *= texts.size()) > kMaxCampaignCases - c.cases.size())
                    run["matrix"].fail("the matrix makes more than the " + std::to_string(kMaxCampaignCases) +
                                       " cases a campaign may have; split it into campaigns");
            // Each case holds the run's own text and one value of each key (the longest, at most).
            std::size_t per_case = sizeof(CampaignCase) + base.group.size() + base.firmware.size() + base.scenario.size();
            for (const std::string& a : base.args) per_case += sizeof(std::string) + a.size();
            for (const auto& [key, texts] : axes) {
                std::size_t longest = 0;
                for (const std::string& t : texts) longest = std::max(longest, t.size());
                per_case += 2 * sizeof(std::string) + key.size() + longest;
            }
            if (per_case > (kMaxCampaignBytes - bytes) / cases)
                run["matrix"].fail("the matrix's " + std::to_string(cases) + " cases would hold more than " +
                                   std::to_string(kMaxCampaignBytes >> 20) + " MiB of settings; shorten its values or split it into campaigns");
            bytes += per_case * cases;
        }
        std::vector<std::size_t> at(axes.size(), 0);
        for (;;) {
            CampaignCase k = base;
            k.index = c.cases.size();
            for (std::size_t i = 0; i < axes.size(); ++i) k.settings.emplace_back(axes[i].first, axes[i].second[at[i]]);
            c.cases.push_back(std::move(k));
            std::size_t i = axes.size();
            while (i > 0 && ++at[i - 1] == axes[i - 1].second.size()) at[--i] = 0;
            if (i == 0) break;
        }
    }
    return c;
}

}  // namespace emutrace::app
