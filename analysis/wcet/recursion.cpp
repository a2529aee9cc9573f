#include "analysis/wcet/recursion.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>

#include "emutrace/config_error.h"

namespace emutrace::analysis::wcet {
namespace {

using Graph = std::map<std::size_t, std::vector<const CallEdge*>>;

// Tarjan's strongly connected components, iterative (a call graph can be deep).
std::vector<std::vector<std::size_t>> components(const std::set<std::size_t>& nodes, const Graph& out) {
    std::map<std::size_t, std::size_t> index, low;
    std::set<std::size_t> on_stack;
    std::vector<std::size_t> stack;
    std::vector<std::vector<std::size_t>> found;
    std::size_t next = 0;
    for (std::size_t start : nodes) {
        if (index.count(start)) continue;
        std::vector<std::pair<std::size_t, std::size_t>> work{{start, 0}};  // (node, next edge)
        index[start] = low[start] = next++;
        stack.push_back(start);
        on_stack.insert(start);
        while (!work.empty()) {
            auto& [v, e] = work.back();
            auto it = out.find(v);
            if (it != out.end() && e < it->second.size()) {
                const std::size_t w = it->second[e++]->to;
                if (!index.count(w)) {
                    index[w] = low[w] = next++;
                    stack.push_back(w);
                    on_stack.insert(w);
                    work.push_back({w, 0});
                } else if (on_stack.count(w)) {
                    low[v] = std::min(low[v], index[w]);
                }
                continue;
            }
            const std::size_t done = v;
            work.pop_back();
            if (!work.empty()) low[work.back().first] = std::min(low[work.back().first], low[done]);
            if (low[done] != index[done]) continue;
            std::vector<std::size_t> component;
            std::size_t w = 0;
            do {
                w = stack.back();
                stack.pop_back();
                on_stack.erase(w);
                component.push_back(w);
            } while (w != done);
            found.push_back(std::move(component));
        }
    }
    return found;
}

// Whether the edges among `members`, leaving out those into or out of `cut`, have a cycle.
bool has_cycle_without(const std::vector<std::size_t>& members, std::size_t cut, const Graph& out) {
    const std::set<std::size_t> in(members.begin(), members.end());
    std::map<std::size_t, int> state;  // 1 on the path, 2 done
    for (std::size_t start : members) {
        if (start == cut || state[start]) continue;
        std::vector<std::pair<std::size_t, std::size_t>> work{{start, 0}};
        state[start] = 1;
        while (!work.empty()) {
            auto& [v, e] = work.back();
            auto it = out.find(v);
            if (it != out.end() && e < it->second.size()) {
                const std::size_t w = it->second[e++]->to;
                if (w == cut || !in.count(w)) continue;
                if (state[w] == 1) return true;
                if (state[w] == 0) {
                    state[w] = 1;
                    work.push_back({w, 0});
                }
                continue;
            }
            state[v] = 2;
            work.pop_back();
        }
    }
    return false;
}

std::string cycle_text(const std::vector<std::size_t>& members, const std::vector<std::string>& names) {
    std::string s;
    for (std::size_t f : members) s += (s.empty() ? "" : ", ") + names[f];
    return s;
}

}  // namespace

std::vector<std::vector<std::size_t>> strongly_connected(const std::vector<CallEdge>& edges) {
    Graph out;
    std::set<std::size_t> nodes;
    for (const CallEdge& e : edges) {
        out[e.from].push_back(&e);
        nodes.insert(e.from);
        nodes.insert(e.to);
    }
    std::vector<std::vector<std::size_t>> found;
    for (std::vector<std::size_t>& members : components(nodes, out)) {
        const bool self = members.size() == 1 &&
                          std::any_of(edges.begin(), edges.end(), [&](const CallEdge& e) { return e.from == members[0] && e.to == members[0]; });
        if (members.size() > 1 || self) {
            std::sort(members.begin(), members.end());
            found.push_back(std::move(members));
        }
    }
    return found;
}

std::vector<Recursion> find_recursions(std::size_t root, const std::vector<CallEdge>& edges, const std::vector<std::string>& names) {
    Graph out;
    for (const CallEdge& e : edges) out[e.from].push_back(&e);
    std::vector<Recursion> found;
    for (std::vector<std::size_t>& members : strongly_connected(edges)) {
        const std::set<std::size_t> in(members.begin(), members.end());
        // A head is entered from outside (the bounded function counts as entered) and along the
        // cycles only at its entry, and every cycle passes through it.
        auto head_ok = [&](std::size_t h) {
            if (in.count(root) && root != h) return false;
            for (const CallEdge& e : edges) {
                if (!in.count(e.to)) continue;
                const bool from_outside = !in.count(e.from);
                if ((from_outside && e.to != h) || (e.to == h && !e.to_entry)) return false;
            }
            return !has_cycle_without(members, h, out);
        };
        auto head = std::find_if(members.begin(), members.end(), head_ok);
        if (head == members.end())
            throw ConfigError(names[root] + ": recursion among " + cycle_text(members, names) +
                              " has no single function that every call into it and every cycle in it passes through (entered at more "
                              "than one function, or a branch into one's middle); the bound counts a recursion's entries at such a function");
        Recursion r{members, *head};
        std::rotate(r.functions.begin(), r.functions.begin() + (head - members.begin()), r.functions.begin() + (head - members.begin()) + 1);
        found.push_back(std::move(r));
    }
    return found;
}

IpetRecursion recursion_budgets(const Recursion& rec, const std::vector<decode::Function>& fns, const RecursionView& view,
                                const std::function<std::uint64_t(std::size_t)>& head_most) {
    IpetRecursion ir;
    ir.name = "recursion of " + fns[rec.head].name;
    const std::set<std::size_t> in(rec.functions.begin(), rec.functions.end());
    auto enters = [&](std::size_t k, std::size_t f) { return view.instances[view.calls[k].callee].function == f && view.calls[k].callee_block == 0; };
    std::vector<std::size_t> starts;  // the head instance each activation starts in, parallel to ir.outer
    for (std::size_t k = 0; k < view.calls.size(); ++k)
        if (enters(k, rec.head) && !in.count(view.instances[view.calls[k].caller].function)) {
            ir.outer.push_back(k);
            starts.push_back(view.calls[k].callee);
        }
    ir.entry = view.instances.front().function == rec.head;

    IpetRecursion::Budget head{{}, {}, {}, 0, 1, "entries of " + fns[rec.head].name};
    for (std::size_t k = 0; k < view.calls.size(); ++k)
        if (enters(k, rec.head)) head.calls.push_back(k);
    for (std::size_t s : starts) head.most.push_back(head_most(s));
    if (ir.entry) head.entry_most = head_most(0);
    ir.budgets.push_back(std::move(head));

    // A budget's most per activation, from each start's context and the entry's: `count_in` says
    // what one context recorded, or nothing; a budget some context lacks is not made.
    using Count = std::optional<std::uint64_t>;
    auto fill = [&](IpetRecursion::Budget& b, const std::function<Count(const ContextRecord&)>& count_in) {
        for (std::size_t s : starts) {
            const Count n = count_in(*view.instances[s].stats);
            if (!n) return false;
            b.most.push_back(*n);
        }
        if (ir.entry) {
            const Count n = count_in(*view.instances.front().stats);
            if (!n) return false;
            b.entry_most = *n;
        }
        return true;
    };
    // Counts every activation's context recorded, or none: a function or loop whose count one of
    // them lacks (code reached through a function pointer) keeps only the head's budget.
    using Counts = std::map<std::uint32_t, std::uint64_t> ContextRecord::*;
    auto recorded = [](Counts counts, std::uint32_t key) {
        return [counts, key](const ContextRecord& r) -> Count {
            auto it = (r.*counts).find(key);
            return it == (r.*counts).end() ? Count{} : Count{it->second};
        };
    };
    // Block k of function f in every instance of f.
    auto add_blocks_of = [&](IpetRecursion::Budget& b, std::size_t f, std::size_t k) {
        for (const auto& i : view.instances)
            if (i.function == f) b.blocks.push_back(i.base + k);
    };
    for (std::size_t f : rec.functions) {
        if (f == rec.head) continue;
        IpetRecursion::Budget b{{}, {}, {}, 0, 0, "entries of " + fns[f].name};
        if (!fill(b, recorded(&ContextRecord::recursion_entries, fns[f].start))) continue;
        for (std::size_t k = 0; k < view.calls.size(); ++k)
            if (enters(k, f)) b.calls.push_back(k);
        ir.budgets.push_back(std::move(b));
    }
    for (std::size_t f : rec.functions)
        for (std::size_t l = 0; l < fns[f].loops.size(); ++l) {
            const std::size_t header = fns[f].loops[l].header;
            IpetRecursion::Budget b{{}, {}, {}, 0, 0, fns[f].name + " loop " + std::to_string(l)};
            if (!fill(b, recorded(&ContextRecord::recursion_headers, fns[f].blocks[header].start))) continue;
            add_blocks_of(b, f, header);
            ir.budgets.push_back(std::move(b));
        }
    // Every block of the recursion's functions that each activation, in every context one
    // starts in, ran as often: the call tree's shape (Fibonacci's leaves against its inner calls),
    // as a path count holds a routine's paths. A count that differed between activations is let go.
    for (std::size_t f : rec.functions)
        for (std::size_t k = 0; k < fns[f].blocks.size(); ++k) {
            IpetRecursion::Budget b{{}, {}, {}, 0, 0, fns[f].name + " block " + std::to_string(k)};
            const std::uint32_t block = fns[f].blocks[k].start;
            auto agreed = [block](const ContextRecord& r) -> Count {
                auto it = r.recursion_blocks.find(block);
                return it == r.recursion_blocks.end() || it->second.least != it->second.most ? Count{} : Count{it->second.most};
            };
            if (!fill(b, agreed)) continue;
            add_blocks_of(b, f, k);
            ir.budgets.push_back(std::move(b));
        }
    return ir;
}

}  // namespace emutrace::analysis::wcet
