#include "analysis/wcet/block_statistics.h"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>

#include "config/input_file.h"
#include "config/json_text.h"
#include "config/text_file.h"
#include "emutrace/config_error.h"

namespace emutrace::analysis::wcet {
namespace {

constexpr const char* kFormat = "emutrace-wcet-statistics";
constexpr int kVersion = 1;

nlohmann::json to_json(const TimeStat& s) {
    if (!s.seen()) return nullptr;
    return {{"min", s.min}, {"max", s.max}, {"total", s.total}, {"count", s.count}};
}

// Counts and cycles as written by save(): unsigned integers, small enough that sums and the ILP's
// doubles stay exact.
// nlohmann's message without its "[json.exception.type_error.302] " prefix.
std::string plain(const std::exception& e) {
    std::string what = e.what();
    if (what.rfind("[json.exception.", 0) == 0)
        if (auto at = what.find("] "); at != std::string::npos) what = what.substr(at + 2);
    return what;
}

// An error already prefixed with the JSON path of the value at fault.
struct PathError : std::invalid_argument {
    using std::invalid_argument::invalid_argument;
};

// Calls `f` on each element of the list under `key`; an error in one says which: "blocks[3].first: ...".
template <typename F>
void each(const nlohmann::json& j, const char* key, F&& f) {
    if (!j.contains(key)) throw PathError(std::string(key) + ": missing");
    const nlohmann::json& list = j.at(key);
    if (!list.is_array()) throw PathError(std::string(key) + ": expected a list, not " + list.type_name());
    for (std::size_t i = 0; i < list.size(); ++i) {
        std::string at = std::string(key) + "[" + std::to_string(i) + "]";
        try {
            f(list[i]);
        } catch (const PathError& e) {
            throw PathError(at + "." + e.what());
        } catch (const std::exception& e) {
            throw PathError(at + ": " + plain(e));
        }
    }
}

std::uint64_t count_at(const nlohmann::json& j, const char* key) {
    if (!j.is_object()) throw PathError(std::string("expected an object, not ") + j.type_name());
    if (!j.contains(key)) throw PathError(std::string(key) + ": missing");
    const nlohmann::json& v = j.at(key);
    if (!v.is_number_unsigned() || v.get<std::uint64_t>() >= (1ull << 53))
        throw PathError(std::string(key) + ": " + config::json_text(v).substr(0, 40) + " is not an unsigned integer below 2^53");
    return v.get<std::uint64_t>();
}

std::uint32_t address_at(const nlohmann::json& j, const char* key) {
    std::uint64_t v = count_at(j, key);
    if (v > 0xFFFFFFFFu) throw std::invalid_argument(std::string("'") + key + "' is not a 32-bit address");
    return static_cast<std::uint32_t>(v);
}

TimeStat stat_from(const nlohmann::json& j) {
    TimeStat s;
    if (j.is_null()) return s;
    s.min = count_at(j, "min");
    s.max = count_at(j, "max");
    s.total = count_at(j, "total");
    s.count = count_at(j, "count");
    if (s.count == 0 || s.min > s.max) throw std::invalid_argument("a statistic with min > max or no count");
    return s;
}

// The statistic under `key`, its errors prefixed with the key.
TimeStat stat_at(const nlohmann::json& j, const char* key) {
    if (!j.is_object()) throw PathError(std::string("expected an object, not ") + j.type_name());
    if (!j.contains(key)) throw PathError(std::string(key) + ": missing");
    try {
        return stat_from(j.at(key));
    } catch (const PathError& e) {
        throw PathError(std::string(key) + "." + e.what());
    } catch (const std::exception& e) {
        throw PathError(std::string(key) + ": " + plain(e));
    }
}

}  // namespace

void StatisticsTable::merge(const StatisticsTable& other) {
    if (!code_id.empty() && !other.code_id.empty() && code_id != other.code_id)
        throw ConfigError("WCET statistics of " + (other.firmware.empty() ? "another firmware" : other.firmware) + " come from different code than " +
                          (firmware.empty() ? "this firmware" : firmware) + " (a rebuild moves blocks): they cannot be merged");
    if (firmware.empty()) firmware = other.firmware;
    if (code_id.empty()) code_id = other.code_id;
    runs += other.runs;
    checked_runs += other.checked_runs;
    for (const auto& [address, r] : other.blocks)
        for (int k = 0; k < 2; ++k) blocks[address].context[k].merge(r.context[k]);
    for (const auto& [header, bound] : other.loop_bounds) loop_bounds[header] = std::max(loop_bounds[header], bound);
    for (const auto& [header, total] : other.loop_totals) loop_totals[header] = std::max(loop_totals[header], total);
    for (const auto& [block, most] : other.most_per_call) most_per_call[block] = std::max(most_per_call[block], most);
    for (const auto& [address, f] : other.functions) functions[address].time.merge(f.time);
    for (const auto& [block, targets] : other.indirect_targets)
        for (const auto& [target, within] : targets) indirect_targets[block][target].insert(within.begin(), within.end());
}

void StatisticsTable::save(const std::string& path) const {
    nlohmann::json blocks_j = nlohmann::json::array(), loops_j = nlohmann::json::array(), functions_j = nlohmann::json::array();
    for (const auto& [address, r] : blocks) {
        nlohmann::json b = {{"address", address}, {"first", to_json(r.context[0])}, {"later", to_json(r.context[1])}};
        if (auto m = most_per_call.find(address); m != most_per_call.end()) b["most_per_call"] = m->second;
        blocks_j.push_back(b);
    }
    for (const auto& [header, bound] : loop_bounds) {
        nlohmann::json l = {{"header", header}, {"max_iterations", bound}};
        if (auto t = loop_totals.find(header); t != loop_totals.end()) l["max_total"] = t->second;
        loops_j.push_back(l);
    }
    for (const auto& [address, f] : functions) functions_j.push_back({{"address", address}, {"time", to_json(f.time)}});
    nlohmann::json indirect_j = nlohmann::json::array();
    for (const auto& [block, targets] : indirect_targets) {
        nlohmann::json t = nlohmann::json::array();
        for (const auto& [target, within] : targets) t.push_back({{"target", target}, {"within", within}});
        indirect_j.push_back({{"block", block}, {"targets", t}});
    }
    nlohmann::json j = {{"format", kFormat},           {"version", kVersion}, {"firmware", firmware},
                        {"code_id", code_id},          {"runs", runs},        {"checked_runs", checked_runs},
                        {"blocks", blocks_j},          {"loops", loops_j},    {"functions", functions_j},
                        {"indirect_calls", indirect_j}};
    config::write_text_file(path, config::json_text(j, 1) + "\n", "WCET statistics");
}

StatisticsTable StatisticsTable::load(const std::string& path) {
    // A firmware's statistics are a few MB; nlohmann's tree is about ten times its text (184 MB
    // peaked at 1.9 GB), so a file past 64 MiB is refused unread.
    nlohmann::json j = nlohmann::json::parse(config::read_input(path, "WCET statistics", std::size_t{64} << 20), nullptr, false);
    if (j.is_discarded()) throw ConfigError(path + ": not JSON (expected statistics written by --stats-out)");
    try {
        if (j.value("format", "") != kFormat)
            throw std::invalid_argument("not an emutrace WCET statistics file (format is not \"" + std::string(kFormat) + "\")");
        // Compared as JSON, not cast to int: a float out of int's range would be undefined behaviour.
        const nlohmann::json& version = j.at("version");
        if (!version.is_number_unsigned() || version.get<std::uint64_t>() != static_cast<std::uint64_t>(kVersion))
            throw std::invalid_argument("version " + config::json_text(version).substr(0, 40) + " is not supported");
        StatisticsTable t;
        t.firmware = j.at("firmware").get<std::string>();
        t.code_id = j.value("code_id", "");
        t.runs = count_at(j, "runs");
        t.checked_runs = j.contains("checked_runs") ? count_at(j, "checked_runs") : 0;  // older files did not check
        if (t.checked_runs > t.runs) throw std::invalid_argument("checked_runs is larger than runs");
        each(j, "blocks", [&](const nlohmann::json& b) {
            BlockRecord& r = t.blocks[address_at(b, "address")];
            r.context[0] = stat_at(b, "first");
            r.context[1] = stat_at(b, "later");
            if (b.contains("most_per_call")) t.most_per_call[address_at(b, "address")] = count_at(b, "most_per_call");
        });
        each(j, "loops", [&](const nlohmann::json& l) {
            t.loop_bounds[address_at(l, "header")] = count_at(l, "max_iterations");
            if (l.contains("max_total")) t.loop_totals[address_at(l, "header")] = count_at(l, "max_total");
        });
        each(j, "functions", [&](const nlohmann::json& f) { t.functions[address_at(f, "address")].time = stat_at(f, "time"); });
        if (j.contains("indirect_calls"))
            each(j, "indirect_calls", [&](const nlohmann::json& c) {
                auto& targets = t.indirect_targets[address_at(c, "block")];
                each(c, "targets", [&](const nlohmann::json& target) {
                    auto& within = targets[address_at(target, "target")];
                    each(target, "within", [&](const nlohmann::json& f) {
                        if (!f.is_number_unsigned() || f.get<std::uint64_t>() > UINT32_MAX)
                            throw PathError(config::json_text(f).substr(0, 40) + " is not a 32-bit address");
                        within.insert(f.get<std::uint32_t>());
                    });
                });
            });
        return t;
    } catch (const PathError& e) {
        throw ConfigError(path + ": bad WCET statistics at " + e.what());
    } catch (const std::exception& e) {
        throw ConfigError(path + ": bad WCET statistics: " + plain(e));
    }
}

}  // namespace emutrace::analysis::wcet
