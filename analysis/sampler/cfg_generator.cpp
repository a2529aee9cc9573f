#include "analysis/sampler/cfg_generator.h"

#include <random>
#include <string>

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
        return g_.add("b" + std::to_string(g_.vertices.size()), cost);
    }
    unsigned pick(unsigned n) { return static_cast<unsigned>(rng_() % n); }
    bool room() const { return g_.vertices.size() < o_.target_blocks; }

    // A sequence of statements starting after `from`; returns its last block. `head`/`exit`:
    // the enclosing loop's header and exit block for continue and break (-1 outside loops).
    std::uint32_t region(std::uint32_t from, unsigned depth, int head, int exit) {
        std::uint32_t at = from;
        unsigned statements = 1 + pick(depth == 0 ? 8 : 4);
        for (unsigned i = 0; i < statements && room(); ++i) at = statement(at, depth, head, exit);
        return at;
    }

    std::uint32_t statement(std::uint32_t from, unsigned depth, int head, int exit) {
        unsigned kind = depth >= o_.max_depth ? 0 : pick(10);
        if (kind <= 2) {  // straight-line code, maybe a break or continue out of it
            std::uint32_t b = block();
            g_.edge(from, b);
            if (head >= 0 && pick(4) == 0) g_.edge(b, static_cast<std::uint32_t>(pick(2) ? exit : head));
            return b;
        }
        if (kind <= 4) {  // if, if/else
            std::uint32_t cond = block(), join = 0;
            g_.edge(from, cond);
            std::uint32_t then_start = block();
            g_.edge(cond, then_start);
            std::uint32_t then_end = region(then_start, depth + 1, head, exit);
            if (pick(2)) {
                std::uint32_t else_start = block();
                g_.edge(cond, else_start);
                std::uint32_t else_end = region(else_start, depth + 1, head, exit);
                join = block();
                g_.edge(else_end, join);
            } else {
                join = block();
                g_.edge(cond, join);
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
        // Loops: while (test at the top) or do-while (test at the bottom).
        std::uint32_t header = block(), after = block();
        g_.edge(from, header);
        std::uint32_t body = block();
        g_.edge(header, body);
        std::uint32_t body_end = region(body, depth + 1, static_cast<int>(header), static_cast<int>(after));
        if (kind <= 7) {
            g_.edge(header, after);     // while: the test leaves at the top
            g_.edge(body_end, header);  // and the body goes back to it
        } else {
            g_.edge(body_end, header);  // do-while: the body's end tests
            g_.edge(body_end, after);
        }
        return after;
    }

    std::mt19937_64 rng_;
    GeneratorOptions o_;
    SamplingGraph g_;
};

}  // namespace

SamplingGraph generate_structured_cfg(std::uint64_t seed, const GeneratorOptions& options) {
    return Builder(seed, options).build();
}

}  // namespace emutrace::analysis::sampler
