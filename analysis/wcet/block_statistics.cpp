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
// 2 added the exits per successor and the call-string contexts; version 1 files still load. A
// block's per_scope counts are optional: a table without them gives the IPET no path counts.
constexpr int kVersion = 3;

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

nlohmann::json scope_json(const ScopeCount& c) {
    return {{"most", c.most}, {"least", c.least}, {"scopes", c.scopes}};
}

// A ScopeCount as scope_json wrote it, checked for sense.
ScopeCount scope_from(const nlohmann::json& c) {
    ScopeCount out{count_at(c, "most"), count_at(c, "least"), count_at(c, "scopes")};
    if (out.scopes == 0 || out.least > out.most) throw std::invalid_argument("least above most, or no scopes");
    return out;
}

nlohmann::json blocks_json(const std::map<std::uint32_t, BlockRecord>& blocks, const std::map<std::uint32_t, std::uint64_t>* most_per_call) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& [address, r] : blocks) {
        nlohmann::json b = {{"address", address}, {"first", to_json(r.context[0])}, {"later", to_json(r.context[1])}};
        if (!r.exits.empty()) {
            nlohmann::json exits = nlohmann::json::array();
            for (const auto& [to, st] : r.exits) exits.push_back({{"to", to}, {"first", to_json(st[0])}, {"later", to_json(st[1])}});
            b["exits"] = exits;
        }
        if (most_per_call)
            if (auto m = most_per_call->find(address); m != most_per_call->end()) b["most_per_call"] = m->second;
        for (const auto& [key, c] : {std::pair{"per_scope", &r.per_scope}, std::pair{"cycles_per_scope", &r.cycles_per_scope}})
            if (c->seen()) b[key] = scope_json(*c);
        out.push_back(b);
    }
    return out;
}

using TotalsOver = std::map<std::pair<std::uint32_t, std::uint32_t>, std::uint64_t>;

nlohmann::json loops_json(const std::map<std::uint32_t, std::uint64_t>& bounds, const std::map<std::uint32_t, std::uint64_t>& totals,
                          const TotalsOver* over = nullptr) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& [header, bound] : bounds) {
        nlohmann::json l = {{"header", header}, {"max_iterations", bound}};
        if (auto t = totals.find(header); t != totals.end()) l["max_total"] = t->second;
        if (over)
            for (auto it = over->lower_bound({header, 0}); it != over->end() && it->first.first == header; ++it)
                l["over"].push_back({{"outer", it->first.second}, {"max_total", it->second}});
        out.push_back(l);
    }
    return out;
}

BlockRecord block_from(const nlohmann::json& b) {
    BlockRecord r;
    r.context[0] = stat_at(b, "first");
    r.context[1] = stat_at(b, "later");
    if (b.contains("exits"))
        each(b, "exits", [&](const nlohmann::json& e) {
            auto& st = r.exits[address_at(e, "to")];
            st[0] = stat_at(e, "first");
            st[1] = stat_at(e, "later");
        });
    for (const auto& [key, into] : {std::pair{"per_scope", &r.per_scope}, std::pair{"cycles_per_scope", &r.cycles_per_scope}}) {
        if (!b.contains(key)) continue;
        try {
            *into = scope_from(b.at(key));
        } catch (const PathError& e) {
            throw PathError(std::string(key) + "." + e.what());
        } catch (const std::exception& e) {
            throw PathError(std::string(key) + ": " + e.what());
        }
    }
    return r;
}

void loops_from(const nlohmann::json& j, std::map<std::uint32_t, std::uint64_t>& bounds, std::map<std::uint32_t, std::uint64_t>& totals,
                TotalsOver* over = nullptr) {
    each(j, "loops", [&](const nlohmann::json& l) {
        const std::uint32_t header = address_at(l, "header");
        bounds[header] = count_at(l, "max_iterations");
        if (l.contains("max_total")) totals[header] = count_at(l, "max_total");
        if (over && l.contains("over"))
            each(l, "over", [&](const nlohmann::json& o) { (*over)[{header, address_at(o, "outer")}] = count_at(o, "max_total"); });
    });
}

// Counts by address, as [address, count] pairs.
nlohmann::json counts_json(const std::map<std::uint32_t, std::uint64_t>& counts) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& [address, n] : counts) out.push_back({address, n});
    return out;
}

void counts_from(const nlohmann::json& j, const char* key, std::map<std::uint32_t, std::uint64_t>& into) {
    each(j, key, [&](const nlohmann::json& pair) {
        if (!pair.is_array() || pair.size() != 2 || !pair[0].is_number_unsigned() || pair[0].get<std::uint64_t>() > UINT32_MAX ||
            !pair[1].is_number_unsigned())
            throw std::invalid_argument(std::string(key) + ": expected [address, count]");
        into[pair[0].get<std::uint32_t>()] = pair[1].get<std::uint64_t>();
    });
}

std::vector<std::uint32_t> calls_from(const nlohmann::json& j) {
    std::vector<std::uint32_t> calls;
    each(j, "calls", [&](const nlohmann::json& a) {
        if (!a.is_number_unsigned() || a.get<std::uint64_t>() > UINT32_MAX)
            throw PathError(config::json_text(a).substr(0, 40) + " is not a 32-bit address");
        calls.push_back(a.get<std::uint32_t>());
    });
    return calls;
}

RunProfile profile_from(const nlohmann::json& lr) {
    RunProfile run;
    run.function = address_at(lr, "function");
    run.cycles = count_at(lr, "cycles");
    each(lr, "blocks", [&](const nlohmann::json& b) {
        ContextKey key{calls_from(b), address_at(b, "function")};
        auto& e = run.blocks[{key, address_at(b, "address")}];
        for (std::size_t k = 0; k < 2; ++k) {
            const nlohmann::json& pair = b.at(k == 0 ? "first" : "later");
            if (!pair.is_array() || pair.size() != 2 || !pair[0].is_number_unsigned() || !pair[1].is_number_unsigned())
                throw std::invalid_argument("expected [count, cycles]");
            e[k] = {pair[0].get<std::uint64_t>(), pair[1].get<std::uint64_t>()};
        }
    });
    return run;
}

template <typename Map>
void merge_max(Map& into, const Map& from) {
    for (const auto& [key, value] : from) into[key] = std::max(into[key], value);
}

}  // namespace

void BlockRecord::merge(const BlockRecord& other) {
    for (int k = 0; k < 2; ++k) context[k].merge(other.context[k]);
    for (const auto& [to, st] : other.exits)
        for (int k = 0; k < 2; ++k) exits[to][static_cast<std::size_t>(k)].merge(st[static_cast<std::size_t>(k)]);
    per_scope.merge(other.per_scope);
    cycles_per_scope.merge(other.cycles_per_scope);
}

void ContextRecord::merge(const ContextRecord& other) {
    for (const auto& [address, r] : other.blocks) blocks[address].merge(r);
    merge_max(loop_bounds, other.loop_bounds);
    merge_max(loop_totals, other.loop_totals);
    merge_max(loop_totals_over, other.loop_totals_over);
    merge_recursion(other);
}

void ContextRecord::merge_recursion(const ContextRecord& other) {
    recursion = std::max(recursion, other.recursion);
    merge_max(recursion_entries, other.recursion_entries);
    merge_max(recursion_headers, other.recursion_headers);
    for (const auto& [address, c] : other.recursion_blocks) recursion_blocks[address].merge(c);
}

void StatisticsTable::truncate_contexts(unsigned depth) {
    if (depth >= call_depth) return;
    std::map<ContextKey, ContextRecord> shorter;
    for (auto& [key, record] : contexts) {
        ContextKey k = key;
        if (k.calls.size() > depth) k.calls.erase(k.calls.begin(), k.calls.end() - depth);
        shorter[k].merge(record);
    }
    contexts = std::move(shorter);
    call_depth = depth;
}

void StatisticsTable::merge(const StatisticsTable& other) {
    if (!code_id.empty() && !other.code_id.empty() && code_id != other.code_id)
        throw ConfigError("WCET statistics of " + (other.firmware.empty() ? "another firmware" : other.firmware) + " come from different code than " +
                          (firmware.empty() ? "this firmware" : firmware) + " (a rebuild moves blocks): they cannot be merged");
    if (firmware.empty()) firmware = other.firmware;
    if (code_id.empty()) code_id = other.code_id;
    const bool was_empty = runs == 0 && blocks.empty();
    runs += other.runs;
    checked_runs += other.checked_runs;
    for (const auto& [address, r] : other.blocks) blocks[address].merge(r);
    merge_max(loop_bounds, other.loop_bounds);
    merge_max(loop_totals, other.loop_totals);
    merge_max(most_per_call, other.most_per_call);
    if (was_empty) {
        call_depth = other.call_depth;
        contexts = other.contexts;
    } else {
        // Different call-string lengths meet at the shorter one.
        StatisticsTable shorter;
        const StatisticsTable* from = &other;
        if (other.call_depth > call_depth) {
            shorter.contexts = other.contexts;
            shorter.call_depth = other.call_depth;
            shorter.truncate_contexts(call_depth);
            from = &shorter;
        } else {
            truncate_contexts(other.call_depth);
        }
        for (const auto& [key, record] : from->contexts) contexts[key].merge(record);
    }
    contexts_folded = contexts_folded || other.contexts_folded;
    counts_recursion = counts_recursion && other.counts_recursion;
    if (other.longest_run &&
        (!longest_run || (other.longest_run->function == longest_run->function && other.longest_run->cycles > longest_run->cycles)))
        longest_run = other.longest_run;
    for (const auto& [address, f] : other.functions) functions[address].time.merge(f.time);
    for (const auto& [block, targets] : other.indirect_targets)
        for (const auto& [target, within] : targets) indirect_targets[block][target].insert(within.begin(), within.end());
}

void StatisticsTable::save(const std::string& path) const {
    nlohmann::json blocks_j = blocks_json(blocks, &most_per_call), loops_j = loops_json(loop_bounds, loop_totals),
                   functions_j = nlohmann::json::array(), contexts_j = nlohmann::json::array();
    nlohmann::json profile_j = nullptr;
    if (longest_run) {
        nlohmann::json entries = nlohmann::json::array();
        for (const auto& [where, e] : longest_run->blocks)
            entries.push_back({{"calls", where.first.calls},
                               {"function", where.first.function},
                               {"address", where.second},
                               {"first", {e[0].count, e[0].cycles}},
                               {"later", {e[1].count, e[1].cycles}}});
        profile_j = {{"function", longest_run->function}, {"cycles", longest_run->cycles}, {"blocks", entries}};
    }
    for (const auto& [key, record] : contexts) {
        contexts_j.push_back({{"calls", key.calls},
                              {"function", key.function},
                              {"blocks", blocks_json(record.blocks, nullptr)},
                              {"loops", loops_json(record.loop_bounds, record.loop_totals, &record.loop_totals_over)}});
        if (record.recursion) contexts_j.back()["recursion"] = record.recursion;
        if (!record.recursion_entries.empty()) contexts_j.back()["recursion_entries"] = counts_json(record.recursion_entries);
        if (!record.recursion_headers.empty()) contexts_j.back()["recursion_headers"] = counts_json(record.recursion_headers);
        for (const auto& [address, c] : record.recursion_blocks) {
            nlohmann::json b = scope_json(c);
            b["address"] = address;
            contexts_j.back()["recursion_blocks"].push_back(b);
        }
    }
    for (const auto& [address, f] : functions) functions_j.push_back({{"address", address}, {"time", to_json(f.time)}});
    nlohmann::json indirect_j = nlohmann::json::array();
    for (const auto& [block, targets] : indirect_targets) {
        nlohmann::json t = nlohmann::json::array();
        for (const auto& [target, within] : targets) t.push_back({{"target", target}, {"within", within}});
        indirect_j.push_back({{"block", block}, {"targets", t}});
    }
    nlohmann::json j = {{"format", kFormat},
                        {"version", kVersion},
                        {"firmware", firmware},
                        {"code_id", code_id},
                        {"runs", runs},
                        {"checked_runs", checked_runs},
                        {"blocks", blocks_j},
                        {"loops", loops_j},
                        {"functions", functions_j},
                        {"indirect_calls", indirect_j},
                        {"call_depth", call_depth},
                        {"contexts_folded", contexts_folded},
                        {"contexts", contexts_j},
                        {"longest_run", profile_j}};
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
        if (!version.is_number_unsigned() || version.get<std::uint64_t>() < 1 || version.get<std::uint64_t>() > static_cast<std::uint64_t>(kVersion))
            throw std::invalid_argument("version " + config::json_text(version).substr(0, 40) + " is not supported");
        StatisticsTable t;
        t.firmware = j.at("firmware").get<std::string>();
        t.code_id = j.value("code_id", "");
        t.runs = count_at(j, "runs");
        t.checked_runs = j.contains("checked_runs") ? count_at(j, "checked_runs") : 0;  // older files did not check
        if (t.checked_runs > t.runs) throw std::invalid_argument("checked_runs is larger than runs");
        each(j, "blocks", [&](const nlohmann::json& b) {
            t.blocks[address_at(b, "address")] = block_from(b);
            if (b.contains("most_per_call")) t.most_per_call[address_at(b, "address")] = count_at(b, "most_per_call");
        });
        loops_from(j, t.loop_bounds, t.loop_totals);
        if (j.contains("contexts")) {
            std::uint64_t depth = count_at(j, "call_depth");
            if (depth > 16) throw PathError("call_depth: " + std::to_string(depth) + " is more than 16 call sites");
            t.call_depth = static_cast<unsigned>(depth);
            t.contexts_folded = j.value("contexts_folded", false);
            each(j, "contexts", [&](const nlohmann::json& c) {
                ContextKey key{calls_from(c), address_at(c, "function")};
                if (key.calls.size() > t.call_depth) throw PathError("calls: more call sites than call_depth");
                ContextRecord& record = t.contexts[key];
                each(c, "blocks", [&](const nlohmann::json& b) { record.blocks[address_at(b, "address")] = block_from(b); });
                loops_from(c, record.loop_bounds, record.loop_totals, &record.loop_totals_over);
                if (c.contains("recursion")) record.recursion = count_at(c, "recursion");
                if (c.contains("recursion_entries")) counts_from(c, "recursion_entries", record.recursion_entries);
                if (c.contains("recursion_headers")) counts_from(c, "recursion_headers", record.recursion_headers);
                if (c.contains("recursion_blocks"))
                    each(c, "recursion_blocks", [&](const nlohmann::json& b) { record.recursion_blocks[address_at(b, "address")] = scope_from(b); });
            });
            t.counts_recursion = version.get<std::uint64_t>() >= 3;
        } else {
            t.contexts_folded = !t.blocks.empty();  // written before contexts: bounds from it use none
            t.counts_recursion = false;
        }
        if (j.contains("longest_run") && !j.at("longest_run").is_null()) try {
                t.longest_run = profile_from(j.at("longest_run"));
            } catch (const PathError& e) {
                throw PathError(std::string("longest_run.") + e.what());
            }
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
