#include "silicon/silicon_report.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include "report/bar_chart.h"
#include "report/html.h"

namespace emutrace::silicon {
namespace {

using report::escape;

constexpr std::size_t kDiffersShown = 30;

std::string rate_text(const nlohmann::json& tally) {
    return report::percent(tally.value("rate", 0.0)) + " (" + report::thousands(tally.value("exact", std::uint64_t{0})) + " of " +
           report::thousands(tally.value("configurations", std::uint64_t{0})) + ")";
}

std::string sets_html(const nlohmann::json& sets) {
    if (sets.empty()) return {};
    report::Table t;
    t.headers = {"set", "configurations", "exact", "rate"};
    t.numeric = {false, true, true, true};
    for (const auto& [name, tally] : sets.items()) {
        t.rows.push_back({escape(name), report::thousands(tally.value("configurations", std::uint64_t{0})),
                          report::thousands(tally.value("exact", std::uint64_t{0})), report::percent(tally.value("rate", 0.0))});
        t.row_classes.push_back("set");
    }
    return "<h3>Given and validation sets</h3>\n<p class=\"note\">The validation set (every fifth test of a category) is held "
           "aside from the model's development: its rate is the one to believe.</p>\n" +
           t.html();
}

std::string categories_html(const nlohmann::json& categories) {
    std::vector<report::Bar> bars;
    for (const auto& [name, tally] : categories.items()) {
        double rate = tally.value("rate", 0.0);
        bars.push_back({name, 100 * rate, rate_text(tally), {}, rate < 0.95});
    }
    return "<h3>Exact by category</h3>\n" +
           report::horizontal_bars(bars, "Share of configurations whose every dumped word equals silicon's; red: under 95%");
}

// Every region's words, summed: how far off the words are that differ.
std::string word_errors_html(const nlohmann::json& errors) {
    std::vector<report::Bar> bins;
    for (const auto& [region, e] : errors.items()) {
        if (!e.contains("histogram")) continue;
        for (const auto& bin : e["histogram"].items()) {
            const std::string label = bin.key();  // named: clang 14 cannot capture a structured binding
            auto it = std::find_if(bins.begin(), bins.end(), [&](const report::Bar& b) { return b.label == label; });
            if (it == bins.end()) it = bins.insert(bins.end(), {label, 0, "", {}, true});
            it->value += bin.value().get<double>();
        }
    }
    // In the order of the error axis, not the JSON's alphabetical one.
    auto key = [](const std::string& label) {
        if (label.rfind("<", 0) == 0) return -1000.0;
        if (label.rfind(">", 0) == 0) return 1000.0;
        return std::strtod(label.c_str(), nullptr) - (label.find("..") != std::string::npos ? 0.5 : 0);
    };
    std::sort(bins.begin(), bins.end(), [&](const auto& a, const auto& b) { return key(a.label) < key(b.label); });
    // The words that match dwarf the rest: they are counted in the caption, not drawn.
    std::uint64_t matching = 0;
    for (auto it = bins.begin(); it != bins.end();)
        if (it->label == "0") {
            matching = static_cast<std::uint64_t>(it->value);
            it = bins.erase(it);
        } else {
            it->value_text = report::thousands(static_cast<std::uint64_t>(it->value));
            ++it;
        }
    if (bins.empty()) return {};
    return "<h3>Error per word</h3>\n" + report::columns(bins,
                                                         "Compared words that differ, by emulated - measured cycles (" + report::thousands(matching) +
                                                             " words match exactly and are not drawn)",
                                                         "emulated - measured (cycles)");
}

// A configuration that differs, in a few words: why it did not finish, or its first word off.
std::string differs_text(const nlohmann::json& c) {
    std::string what = c.contains("error") && c["error"].is_string() ? c["error"].get<std::string>() : "";
    if (!what.empty() || !c.contains("mismatches")) return what;
    const auto& m = c["mismatches"];
    const auto all = c.find("mismatched_words");  // the mismatches listed are the first ones
    what = std::to_string(all != c.end() && all->is_number_unsigned() ? all->get<std::uint64_t>() : m.size()) + " words";
    if (!m.empty()) {
        char first[96];
        std::snprintf(first, sizeof first, ", first %s[%llu]: %+lld", m[0].value("region", "").c_str(),
                      static_cast<unsigned long long>(m[0].value("index", std::uint64_t{0})), static_cast<long long>(m[0].value("error", 0)));
        what += first;
    }
    return what;
}

std::string differing_html(const nlohmann::json& tests) {
    report::Table d;
    d.headers = {"test", "configuration", "set", "differs"};
    std::size_t shown = 0, differing = 0;
    for (const auto& t : tests) {
        if (!t.contains("results")) continue;
        for (const auto& c : t["results"]) {
            if (c.value("exact", true)) continue;
            ++differing;
            if (shown >= kDiffersShown) continue;
            ++shown;
            d.rows.push_back({escape(t.value("category", "") + "/" + t.value("test", "")),
                              escape("#" + std::to_string(c.value("number", std::uint64_t{0})) + " " + c.value("configuration", "").substr(0, 80)),
                              escape(t.value("set", "")), escape(differs_text(c))});
            d.row_classes.push_back("differs");
        }
    }
    if (!differing) return {};
    std::string html = "<h3>Configurations that differ</h3>\n" + d.html();
    if (differing > shown) html += "<p class=\"note\">&hellip; and " + report::thousands(differing - shown) + " more (--json has them all).</p>\n";
    return html;
}

}  // namespace

std::string silicon_report_html(const nlohmann::json& r) {
    // Named, not temporaries: a range-for over a temporary's items() would outlive it.
    const nlohmann::json none = nlohmann::json::object(), no_tests = nlohmann::json::array();
    const nlohmann::json& sets = r.contains("sets") ? r["sets"] : none;
    const nlohmann::json& categories = r.contains("categories") ? r["categories"] : none;
    const nlohmann::json& errors = r.contains("errors") ? r["errors"] : none;
    const nlohmann::json& tests = r.contains("tests") ? r["tests"] : no_tests;
    std::string body = "<p>Board <b>" + escape(r.value("board", "")) + "</b>, " + escape(r.value("timing", "")) + " timing: " + rate_text(r) +
                       " of the configurations match the measured cycle counts exactly.</p>\n";
    body += sets_html(sets) + categories_html(categories) + word_errors_html(errors) + differing_html(tests);
    return report::section("silicon", "Silicon cycle counts", body);
}

}  // namespace emutrace::silicon
