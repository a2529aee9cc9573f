// Golden control-flow graphs of the conditional exits in tests/firmware/cond_returns.c (code fixed by
// hand), and the shapes of real compiler and library output in tests/firmware/libcalls.c (newlib-nano
// and libgcc as Debian ships them): overlapping symbols, size-less assembly routines, branches into
// another function's code.
#include <doctest/doctest.h>

#include <algorithm>

#include "decode/program.h"
#include "support/programs.h"

using namespace emutrace::decode;
using emutrace::test::firmware;
using emutrace::test::program_of;

namespace {

const Program& cond_returns() {
    return program_of("cond_returns");
}

const Program& libcalls() {
    return program_of("libcalls");
}

const Function& fn(const Program& p, const char* name) {
    const Function* f = p.function(name);
    REQUIRE(f);
    return *f;
}

bool has_edge(const Function& f, std::size_t from, std::size_t to, EdgeKind kind) {
    return std::any_of(f.edges.begin(), f.edges.end(), [&](const Edge& e) { return e.from == from && e.to == to && e.kind == kind; });
}

// A function of two blocks whose first ends in a conditional exit of `kind` that may fall through.
void check_conditional_exit(const char* name, BlockExit kind) {
    CAPTURE(name);
    const Function& f = fn(cond_returns(), name);
    REQUIRE(f.blocks.size() == 2);
    CHECK(f.blocks[0].exit == kind);
    CHECK(has_edge(f, 0, 1, EdgeKind::FallThrough));  // the exit may not happen: the code after it is in the CFG
    CHECK(f.blocks[1].exit == BlockExit::Return);
    CHECK(f.edges.size() == 1);
}

}  // namespace

TEST_CASE("cfg: a return in an IT block falls through when its condition fails") {
    check_conditional_exit("cr_it_bx", BlockExit::Return);      // it gt; bxgt lr
    check_conditional_exit("cr_it_ldr_pc", BlockExit::Return);  // it eq; ldreq pc, [sp], #4
    check_conditional_exit("cr_ite_bx", BlockExit::Return);     // ite eq; moveq; bxne lr (the else slot)
}

TEST_CASE("cfg: a conditional pop {pc} falls through into the loop after it") {
    const Function& f = fn(cond_returns(), "cr_it_pop");
    REQUIRE(f.blocks.size() == 4);
    CHECK(f.blocks[0].exit == BlockExit::Return);
    CHECK(has_edge(f, 0, 1, EdgeKind::FallThrough));
    REQUIRE(f.loops.size() == 1);
    CHECK(f.loops[0].header == 2);
}

TEST_CASE("cfg: a conditional indirect branch is a tail call through a register that may fall through") {
    const Function& f = fn(cond_returns(), "cr_it_bx_reg");  // it ne; bxne r2
    check_conditional_exit("cr_it_bx_reg", BlockExit::Indirect);
    REQUIRE(f.calls.size() == 1);
    CHECK(f.calls[0].target == 0);
    CHECK(f.calls[0].tail);
    CHECK(f.calls[0].conditional);
}

TEST_CASE("cfg: a branch inside an IT block is a conditional branch") {
    const Function& f = fn(cond_returns(), "cr_it_b");  // it eq; beq.w 2f
    REQUIRE(f.blocks.size() == 3);
    CHECK(f.blocks[0].exit == BlockExit::Branch);
    CHECK(has_edge(f, 0, 1, EdgeKind::FallThrough));
    CHECK(has_edge(f, 0, 2, EdgeKind::Taken));
}

TEST_CASE("cfg: tail calls, conditional and not, name their callee") {
    const Function& callee = fn(cond_returns(), "cr_it_bx");
    const Function& cond = fn(cond_returns(), "cr_it_tail");  // it ne; bne.w cr_it_bx
    check_conditional_exit("cr_it_tail", BlockExit::TailCall);
    REQUIRE(cond.calls.size() == 1);
    CHECK(cond.calls[0].target == callee.start);
    CHECK(cond.calls[0].tail);
    CHECK(cond.calls[0].conditional);
    const Function& always = fn(cond_returns(), "cr_b_tail");  // b.w cr_it_bx
    REQUIRE(always.blocks.size() == 1);
    CHECK(always.blocks[0].exit == BlockExit::TailCall);
    CHECK(always.edges.empty());
    REQUIRE(always.calls.size() == 1);
    CHECK(always.calls[0].target == callee.start);
    CHECK_FALSE(always.calls[0].conditional);
}

TEST_CASE("cfg: a CBZ-guarded return and a cycle with two entries") {
    const Function& cbz = fn(cond_returns(), "cr_cbz_ret");
    REQUIRE(cbz.blocks.size() == 3);
    CHECK(cbz.blocks[0].exit == BlockExit::Branch);
    CHECK(cbz.blocks[1].exit == BlockExit::Return);
    CHECK(cbz.blocks[2].exit == BlockExit::Return);
    // Neither block of the cycle dominates the other: no natural loop (the WCET bound refuses it).
    const Function& twice = fn(cond_returns(), "cr_two_entries");
    CHECK(twice.loops.empty());
    CHECK(twice.blocks.size() == 4);
}

TEST_CASE("cfg on newlib and libgcc: functions never overlap, and aliases name one function") {
    const auto& fns = libcalls().functions();
    REQUIRE(fns.size() > 100);
    for (std::size_t k = 0; k + 1 < fns.size(); ++k) {
        CAPTURE(fns[k].name);
        CHECK(fns[k].start < fns[k].end);
        CHECK(fns[k].end <= fns[k + 1].start);
    }
    // libgcc's __aeabi_fadd is __addsf3, __aeabi_dmul is __muldf3: one code, several symbols.
    CHECK(libcalls().function("__aeabi_fadd") == libcalls().function("__addsf3"));
    CHECK(libcalls().function("__aeabi_dmul") == libcalls().function("__muldf3"));
}

TEST_CASE("cfg on libgcc: __aeabi_fsub runs on into __aeabi_fadd, and is no dead end") {
    const Function& sub = fn(libcalls(), "__aeabi_fsub");
    const Function& add = fn(libcalls(), "__aeabi_fadd");
    CHECK(sub.end == add.start);  // its symbol's size covered fadd's code too
    const BasicBlock& last = sub.blocks.back();
    CHECK(last.falls_out);
    CHECK(last.may_leave());
    auto into = std::find_if(sub.calls.begin(), sub.calls.end(), [](const CallSite& c) { return c.falls_into; });
    REQUIRE(into != sub.calls.end());
    CHECK(into->target == add.start);
}

TEST_CASE("cfg on libgcc: size-less assembly routines are functions, and branches into shared code start blocks") {
    const Function& uldivmod = fn(libcalls(), "__aeabi_uldivmod");  // no .size in libgcc's assembly
    CHECK(uldivmod.blocks.size() >= 1);
    const Function& udivmoddi4 = fn(libcalls(), "__udivmoddi4");
    CHECK(std::any_of(uldivmod.calls.begin(), uldivmod.calls.end(), [&](const CallSite& c) { return c.target == udivmoddi4.start; }));
    // Every direct branch or call lands on a block start of the function that holds its target.
    std::size_t into_shared = 0;
    for (const auto& f : libcalls().functions())
        for (const auto& c : f.calls) {
            if (!c.target) continue;
            auto holder = std::find_if(libcalls().functions().begin(), libcalls().functions().end(),
                                       [&](const Function& g) { return c.target >= g.start && c.target < g.end; });
            if (holder == libcalls().functions().end()) continue;
            CAPTURE(f.name);
            CAPTURE(c.at);
            int b = holder->block_at(c.target);
            REQUIRE(b >= 0);
            CHECK(holder->blocks[static_cast<std::size_t>(b)].start == c.target);
            into_shared += c.target != holder->start;
        }
    CHECK(into_shared > 0);  // __aeabi_ddiv's special cases branch into __aeabi_dmul's
}

TEST_CASE("cfg on newlib and libgcc: conditional returns keep the code after them") {
    // libgcc's soft-float routines return from inside IT blocks (do_it ne; RETc(ne)) all the time:
    // each such return has a fall-through edge to the block after it.
    std::size_t conditional_returns = 0;
    for (const auto& f : libcalls().functions())
        for (std::size_t b = 0; b + 1 < f.blocks.size(); ++b)
            conditional_returns += f.blocks[b].exit == BlockExit::Return && has_edge(f, b, b + 1, EdgeKind::FallThrough);
    CHECK(conditional_returns > 10);
    const Function& add = fn(libcalls(), "__aeabi_fadd");
    CHECK(std::count_if(add.blocks.begin(), add.blocks.end(), [](const BasicBlock& b) { return b.exit == BlockExit::Return; }) > 1);
}
