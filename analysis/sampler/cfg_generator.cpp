#include "analysis/sampler/cfg_generator.h"

#include <random>
#include <string>
#include <vector>

namespace emutrace::analysis::sampler {
namespace {

class Builder {
public:
    Builder(std::uint64_t seed, const GeneratorOptions& o) : rng_(seed), o_(o) {}

    SamplingGraph build() {
        std::uint32_t entry = block();
        std::uint32_t end = entry;
        while (room()) end = statement(end, 0, -1, -1);
        g_.edge(end, entry);  // the main loop: a monitored program runs on
        return std::move(g_);
    }

private:
    std::uint32_t block() {
        // Short blocks dominate real code: costs skew towards 1.
        std::uint32_t cost = 1 + static_cast<std::uint32_t>(std::min(pick(o_.max_cost), pick(o_.max_cost)));
        std::string name = "b";
        name += std::to_string(g_.vertices.size());  // not "b" + ...: GCC 12 warns falsely (-Wrestrict)
        return g_.add(name, cost);
    }
    unsigned pick(unsigned n) { return static_cast<unsigned>(rng_() % n); }

    // A condition of one or more terms entered from `from`; `decide(true_target, false_target)`
    // adds its edges once both targets exist. Each term but the last short-circuits to one side.
    struct Condition {
        std::vector<std::uint32_t> terms;
        std::vector<bool> exits_true;  ///< term i short-circuits to the true side (||) or false (&&)
    };
    Condition condition(std::uint32_t from) {
        Condition c;
        unsigned n = 1 + pick(std::max(1u, o_.max_condition_terms));
        for (unsigned i = 0; i < n; ++i) {
            c.terms.push_back(block());
            c.exits_true.push_back(pick(2));
            g_.edge(i ? c.terms[i - 1] : from, c.terms[i]);
        }
        return c;
    }
    void decide(const Condition& c, std::uint32_t true_target, std::uint32_t false_target) {
        for (std::size_t i = 0; i + 1 < c.terms.size(); ++i) g_.edge(c.terms[i], c.exits_true[i] ? true_target : false_target);
        g_.edge(c.terms.back(), true_target);
        g_.edge(c.terms.back(), false_target);
    }
    bool room() const { return g_.vertices.size() < o_.target_blocks; }

    // A sequence of statements starting after `from`; returns its last block. `head`/`exit`:
    // the enclosing loop's header and exit block for continue and break (-1 outside loops).
    std::uint32_t region(std::uint32_t from, unsigned depth, int head, int exit) {
        if (o_.jumps_from_region_starts) maybe_jump(from, head, exit);
        std::uint32_t at = from;
        unsigned statements = 1 + pick(depth == 0 ? 8 : 4);
        for (unsigned i = 0; i < statements && room(); ++i) at = statement(at, depth, head, exit);
        return at;
    }

    // A block that may also leave conditionally: break or continue in a loop, else return.
    void maybe_jump(std::uint32_t b, int head, int exit) {
        if (head >= 0 && pick(std::max(1u, o_.jump_one_in)) == 0)
            g_.edge(b, static_cast<std::uint32_t>(pick(2) ? exit : head));
        else if (o_.return_one_in && pick(o_.return_one_in) == 0)
            g_.edge(b, 0);  // return: the main loop calls the function again
    }

    std::uint32_t statement(std::uint32_t from, unsigned depth, int head, int exit) {
        unsigned kind = depth >= o_.max_depth ? 0 : pick(10);
        if (kind <= 2) {  // straight-line code, maybe a break or continue out of it
            std::uint32_t b = block();
            g_.edge(from, b);
            maybe_jump(b, head, exit);
            return b;
        }
        if (kind <= 4) {  // if, if/else
            Condition cond = condition(from);
            std::uint32_t join = 0;
            std::uint32_t then_start = block();
            std::uint32_t then_end = region(then_start, depth + 1, head, exit);
            if (pick(2)) {
                std::uint32_t else_start = block();
                std::uint32_t else_end = region(else_start, depth + 1, head, exit);
                join = block();
                g_.edge(else_end, join);
                decide(cond, then_start, else_start);
            } else {
                join = block();
                decide(cond, then_start, join);
            }
            g_.edge(then_end, join);
            return join;
        }
        if (kind == 5) {  // switch: cases that break, some falling through
            std::uint32_t sw = block(), join = block();
            g_.edge(from, sw);
            unsigned cases = 2 + pick(4);
            int previous = -1;
            for (unsigned c = 0; c < cases; ++c) {
                std::uint32_t start = block();
                g_.edge(sw, start);
                if (previous >= 0) g_.edge(static_cast<std::uint32_t>(previous), start);  // fall-through
                std::uint32_t end = region(start, depth + 1, head, exit);
                if (pick(3) == 0 && c + 1 < cases) {
                    previous = static_cast<int>(end);
                } else {
                    g_.edge(end, join);
                    previous = -1;
                }
            }
            return join;
        }
        // Loops: while (test at the top) or do-while (test at the bottom). The test may have
        // several terms; continue goes to its first.
        if (kind <= 7) {
            Condition test = condition(from);
            std::uint32_t header = test.terms.front(), after = block(), body = block();
            std::uint32_t body_end = region(body, depth + 1, static_cast<int>(header), static_cast<int>(after));
            decide(test, body, after);
            g_.edge(body_end, header);
            return after;
        }
        std::uint32_t body = block(), after = block();  // do-while: continue goes to the body here
        g_.edge(from, body);
        std::uint32_t body_end = region(body, depth + 1, static_cast<int>(body), static_cast<int>(after));
        Condition test = condition(body_end);
        decide(test, body, after);
        return after;
    }

    std::mt19937_64 rng_;
    GeneratorOptions o_;
    SamplingGraph g_;
};

}  // namespace

GeneratorOptions paper_density_options() {
    GeneratorOptions o;
    o.max_condition_terms = 4;
    o.jump_one_in = 1;
    o.return_one_in = 1;
    o.jumps_from_region_starts = true;
    return o;
}

SamplingGraph generate_structured_cfg(std::uint64_t seed, const GeneratorOptions& options) {
    return Builder(seed, options).build();
}

}  // namespace emutrace::analysis::sampler
