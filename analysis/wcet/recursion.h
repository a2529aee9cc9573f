#pragma once
// Recursion in a bound's call graph. Each recursion (a strongly connected set of functions) is
// bounded through its head: the function every entry into it and every cycle in it passes
// through, whose entries per call from outside the runs counted (RecursionCounter). Self-recursion
// always has one; mutual recursion has one when it is entered at a single function and that
// function breaks all its cycles (the recursive-descent shape: expr -> term -> factor -> expr).

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "analysis/wcet/block_statistics.h"
#include "analysis/wcet/ipet.h"
#include "decode/program.h"

namespace emutrace::analysis::wcet {

/// A call between functions (indices into the caller's function list), as the bound follows it.
struct CallEdge {
    std::size_t from = 0, to = 0;
    bool to_entry = true;  ///< enters the callee at its entry (not a branch into its shared code)
};

struct Recursion {
    std::vector<std::size_t> functions;  ///< the recursion's functions, the head first
    std::size_t head = 0;
};

/// The sets of functions that call each other in a cycle (each of more than one function, or of
/// one that calls itself), along `edges`.
std::vector<std::vector<std::size_t>> strongly_connected(const std::vector<CallEdge>& edges);

/// The recursions among the functions reachable from `root` along `edges`; `names` name functions
/// in messages. Throws ConfigError naming a recursion that has no head.
std::vector<Recursion> find_recursions(std::size_t root, const std::vector<CallEdge>& edges, const std::vector<std::string>& names);

/// A bound's function instances (a function in a call-string context) and the calls between them,
/// as a recursion's budgets see them.
struct RecursionView {
    struct Instance {
        std::size_t function = 0;  ///< Program::functions() index
        std::size_t base = 0;      ///< its first block in the IPET problem
        const ContextRecord* stats = nullptr;
    };
    struct Call {
        std::size_t caller = 0, callee = 0;  ///< instances
        std::size_t callee_block = 0;        ///< the block of the callee's function it enters (0: its entry)
    };
    std::vector<Instance> instances;  ///< [0] the bounded function's
    std::vector<Call> calls;          ///< parallel to IpetProblem::calls
};

/// The IPET budgets of recursion `rec` per activation a call from outside starts: the head's
/// entries, the most `head_most(instance)` gives for the head instance the call enters; and, where
/// the context of every such instance recorded them (ContextRecord::recursion_entries and
/// recursion_headers), the entries into each other function of the recursion and the executions
/// of each of its loop headers.
IpetRecursion recursion_budgets(const Recursion& rec, const std::vector<decode::Function>& fns, const RecursionView& view,
                                const std::function<std::uint64_t(std::size_t)>& head_most);

}  // namespace emutrace::analysis::wcet
