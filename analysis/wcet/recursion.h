#pragma once
// Recursion in a bound's call graph. Each recursion (a strongly connected set of functions) is
// bounded through its head: the function every entry into it and every cycle in it passes
// through, whose entries per call from outside the runs counted (RecursionCounter). Self-recursion
// always has one; mutual recursion has one when it is entered at a single function and that
// function breaks all its cycles (the recursive-descent shape: expr -> term -> factor -> expr).

#include <cstddef>
#include <string>
#include <vector>

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

/// The recursions among the functions reachable from `root` along `edges`; `names` name functions
/// in messages. Throws ConfigError naming a recursion that has no head.
std::vector<Recursion> find_recursions(std::size_t root, const std::vector<CallEdge>& edges, const std::vector<std::string>& names);

}  // namespace emutrace::analysis::wcet
