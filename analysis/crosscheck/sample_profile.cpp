#include "analysis/crosscheck/sample_profile.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>

#include "decode/symbol_table.h"

namespace emutrace::analysis {
namespace {

constexpr std::size_t kEntriesKept = 100'000;

double share(std::uint64_t part, std::uint64_t whole) {
    return whole ? 100.0 * static_cast<double>(part) / static_cast<double>(whole) : 0.0;
}

// The mean spacing of consecutive entries, in cycles; 0 for fewer than two.
double mean_interval(const std::vector<std::uint64_t>& at, double scale) {
    if (at.size() < 2) return 0;
    return static_cast<double>(at.back() - at.front()) * scale / static_cast<double>(at.size() - 1);
}

}  // namespace

void SampleProfile::on_batch(const trace::EventBatch& batch) {
    static const std::string unknown = "(unknown)";
    for (const trace::Event& e : batch.events) {
        if (e.kind == trace::EventKind::Block) {
            if (!last_name_ || e.address != last_address_) {
                const decode::Symbol* f = symbols_.function_at(e.address);
                last_name_ = f ? &f->name : &unknown;
                last_address_ = e.address;
            }
            const std::uint64_t w = weight_ == Weight::Samples ? 1 : e.channel;
            functions_[*last_name_] += w;
            total_ += w;
        } else if (e.kind == trace::EventKind::ExceptionEntry) {
            auto& at = entries_[e.value];
            if (at.size() < kEntriesKept) at.push_back(e.cycle);
        }
    }
}

SampleComparison compare_samples(const SampleProfile& capture, const SampleProfile& emulated, double cycles_per_tick, std::size_t top) {
    SampleComparison c;
    std::set<std::string> names;
    for (const auto& [name, w] : capture.functions()) names.insert(name);
    for (const auto& [name, w] : emulated.functions()) names.insert(name);
    struct Row {
        std::string name;
        double captured, emulated;
    };
    std::vector<Row> rows;
    for (const auto& name : names) {
        auto a = capture.functions().find(name), b = emulated.functions().find(name);
        rows.push_back({name, share(a == capture.functions().end() ? 0 : a->second, capture.total()),
                        share(b == emulated.functions().end() ? 0 : b->second, emulated.total())});
    }
    std::stable_sort(rows.begin(), rows.end(),
                     [](const Row& x, const Row& y) { return std::max(x.captured, x.emulated) > std::max(y.captured, y.emulated); });
    char line[256];
    std::snprintf(line, sizeof line, "\nwhere the time went: %llu PC samples of the capture against the emulated run's %llu cycles\n",
                  static_cast<unsigned long long>(capture.total()), static_cast<unsigned long long>(emulated.total()));
    c.text = line;
    std::snprintf(line, sizeof line, "  %-32s %9s %9s %8s\n", "function", "capture", "emulated", "diff");
    c.text += line;
    c.json["functions"] = nlohmann::json::array();
    for (std::size_t i = 0; i < rows.size(); ++i) {
        const Row& r = rows[i];
        c.largest_difference = std::max(c.largest_difference, std::fabs(r.captured - r.emulated));
        c.json["functions"].push_back({{"function", r.name}, {"capture_percent", r.captured}, {"emulated_percent", r.emulated}});
        if (i >= top) continue;
        std::snprintf(line, sizeof line, "  %-32s %8.2f%% %8.2f%% %+7.2f\n", r.name.substr(0, 32).c_str(), r.captured, r.emulated,
                      r.captured - r.emulated);
        c.text += line;
    }
    std::snprintf(line, sizeof line, "  largest difference %.2f percentage points (a sample's share has a standard error of about %.2f)\n",
                  c.largest_difference, capture.total() ? 100.0 * 0.5 / std::sqrt(static_cast<double>(capture.total())) : 0.0);
    c.text += line;
    c.json["largest_difference_points"] = c.largest_difference;
    c.json["samples"] = capture.total();
    c.json["exceptions"] = nlohmann::json::array();
    std::set<std::uint32_t> numbers;
    for (const auto& [n, at] : capture.entries()) numbers.insert(n);
    for (const auto& [n, at] : emulated.entries()) numbers.insert(n);
    if (!numbers.empty()) c.text += "exceptions: entries and mean spacing in cycles\n";
    static const std::vector<std::uint64_t> none;
    for (std::uint32_t n : numbers) {
        auto a = capture.entries().find(n), b = emulated.entries().find(n);
        const auto& ca = a == capture.entries().end() ? none : a->second;
        const auto& eb = b == emulated.entries().end() ? none : b->second;
        const double mc = mean_interval(ca, cycles_per_tick), me = mean_interval(eb, 1.0);
        std::snprintf(line, sizeof line, "  %-10s %8zu captured, %8zu emulated; every %10.1f captured, %10.1f emulated%s\n",
                      trace::exception_name(trace::ExceptionModel::MProfile, n).c_str(), ca.size(), eb.size(), mc, me,
                      mc > 0 && me > 0 ? (" (" + std::to_string(static_cast<int>(std::lround(100.0 * (mc - me) / me))) + "%)").c_str() : "");
        c.text += line;
        c.json["exceptions"].push_back({{"exception", n},
                                        {"name", trace::exception_name(trace::ExceptionModel::MProfile, n)},
                                        {"captured", ca.size()},
                                        {"emulated", eb.size()},
                                        {"captured_mean_interval_cycles", mc},
                                        {"emulated_mean_interval_cycles", me}});
    }
    return c;
}

}  // namespace emutrace::analysis
