#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <map>

#include "app/commands.h"
#include "config/config_error.h"
#include "config/text_file.h"
#include "config/units.h"
#include "silicon/silicon_suite.h"

namespace emutrace::app {
using namespace silicon;
namespace {

constexpr std::size_t kMismatchesShown = 4;  // per configuration in the text report; --json has them all

struct Tally {
    std::size_t configurations = 0, exact = 0;
    double rate() const { return configurations ? static_cast<double>(exact) / static_cast<double>(configurations) : 0; }
};

void print_row(const std::string& name, const Tally& t) {
    std::printf("  %-58s %6zu %6zu  %6.1f%%\n", name.c_str(), t.configurations, t.exact, 100.0 * t.rate());
}

nlohmann::json to_json(const std::vector<SiliconTest>& tests, const std::map<std::string, Tally>& categories, const Tally& total) {
    using nlohmann::json;
    json j_tests = json::array();
    for (const auto& t : tests) {
        json configs = json::array();
        for (const auto& c : t.configurations) {
            json mismatches = json::array();
            for (const auto& m : c.mismatches)
                mismatches.push_back({{"region", m.region}, {"index", m.index}, {"measured", m.measured}, {"emulated", m.emulated}});
            configs.push_back({{"number", c.number},
                               {"configuration", c.name},
                               {"exact", c.exact},
                               {"error", c.error},
                               {"mismatches", mismatches},
                               {"code", c.code}});
        }
        j_tests.push_back(
            {{"category", t.category}, {"test", t.name}, {"configurations", t.configurations.size()}, {"exact", t.exact()}, {"results", configs}});
    }
    json j_categories = json::object();
    for (const auto& [name, t] : categories) j_categories[name] = {{"configurations", t.configurations}, {"exact", t.exact}, {"rate", t.rate()}};
    return {
        {"configurations", total.configurations}, {"exact", total.exact}, {"rate", total.rate()}, {"categories", j_categories}, {"tests", j_tests}};
}

}  // namespace

int silicon_command(const SiliconOptions& o) {
    std::printf("silicon: %s on cortex-m3 (TRM model), STM32F100 board: flash 0x08000000, 8 KiB SRAM\n", o.dir.c_str());
    std::printf("  %-58s %6s %6s  %7s\n", "category/test", "configs", "exact", "rate");
    std::map<std::string, Tally> categories;
    Tally total;
    std::size_t details = 0;
    std::vector<SiliconTest> tests = run_silicon_suite(o.dir, {}, [&](const SiliconTest& t) {
        Tally tally{t.configurations.size(), t.exact()};
        print_row(t.category + "/" + t.name, tally);
        Tally& c = categories[t.category];
        c.configurations += tally.configurations;
        c.exact += tally.exact;
        total.configurations += tally.configurations;
        total.exact += tally.exact;
        for (const auto& config : t.configurations) {
            if (config.exact || details >= o.show) continue;
            ++details;
            std::printf("    #%u %s\n", config.number, config.name.substr(0, 100).c_str());
            if (!config.error.empty()) std::printf("      did not finish: %s\n", config.error.c_str());
            for (std::size_t i = 0; i < std::min(config.mismatches.size(), kMismatchesShown); ++i) {
                const auto& m = config.mismatches[i];
                std::printf("      %s[%u]: measured %u, emulated %u (%+lld)\n", m.region.c_str(), m.index, m.measured, m.emulated,
                            static_cast<long long>(m.emulated) - static_cast<long long>(m.measured));
            }
            if (config.mismatches.size() > kMismatchesShown) std::printf("      ... %zu words differ in all\n", config.mismatches.size());
            for (const auto& line : config.code) std::printf("        %s\n", line.c_str());
        }
    });
    std::printf("  by category:\n");
    for (const auto& [name, t] : categories) print_row(name, t);
    print_row("total", total);
    if (!o.json.empty()) {
        config::write_text_file(o.json, to_json(tests, categories, total).dump(1) + "\n", "JSON result");
    }
    if (o.min_rate > 0 && total.rate() < o.min_rate) {
        std::fprintf(stderr, "emutrace: exact-match rate %.2f%% is below --min-rate %.2f%%\n", 100.0 * total.rate(), 100.0 * o.min_rate);
        return 1;
    }
    return 0;
}

}  // namespace emutrace::app
