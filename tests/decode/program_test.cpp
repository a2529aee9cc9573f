// Golden control-flow graphs of tests/firmware/cfg_shapes.c, each function written to compile to
// one shape. Addresses are offsets from the function's start, so a different layout still passes.
#include <doctest/doctest.h>

#include <algorithm>
#include <set>

#include "decode/program.h"
#include "support/paths.h"

using namespace emutrace::decode;
using emutrace::test::firmware;

namespace {

const Program& program() {
    static const ElfImage image = ElfImage::load(firmware("cfg_shapes"));
    static const Program p = Program::build(image);
    return p;
}

const Function& fn(const char* name) {
    const Function* f = program().function(name);
    REQUIRE(f);
    return *f;
}

std::size_t edges(const Function& f, EdgeKind kind) {
    return static_cast<std::size_t>(std::count_if(f.edges.begin(), f.edges.end(), [&](const Edge& e) { return e.kind == kind; }));
}

std::size_t exits(const Function& f, BlockExit kind) {
    return static_cast<std::size_t>(std::count_if(f.blocks.begin(), f.blocks.end(), [&](const BasicBlock& b) { return b.exit == kind; }));
}

}  // namespace

TEST_CASE("cfg: if/else is a diamond") {
    const Function& f = fn("shape_if_else");
    CHECK(f.blocks.size() == 4);  // entry, then-arm, join, else-arm (placed after the join)
    CHECK(exits(f, BlockExit::Return) == 1);
    CHECK(edges(f, EdgeKind::Taken) == 1);
    CHECK(edges(f, EdgeKind::Jump) == 1);  // the else arm jumps back to the join
    CHECK(f.loops.empty());
    int join = f.block_at(f.start + 0x16);
    REQUIRE(join >= 0);
    std::size_t into_join = static_cast<std::size_t>(std::count_if(f.edges.begin(), f.edges.end(), [&](const Edge& e) {
        return e.to == static_cast<std::size_t>(join);
    }));
    CHECK(into_join == 2);
}

TEST_CASE("cfg: a switch becomes a decoded TBB jump table") {
    const Function& f = fn("shape_switch");
    CHECK(f.blocks.size() == 13);  // bounds check, tbb, ten cases, default
    CHECK(edges(f, EdgeKind::Table) == 10);
    CHECK(exits(f, BlockExit::Table) == 1);
    CHECK(exits(f, BlockExit::Return) == 11);
    CHECK_FALSE(f.has_unknown_indirect);
    // The table's bytes (after the tbb) are data, not a block.
    CHECK(f.block_at(f.start + 0x0e) == -1);
}

TEST_CASE("cfg: nested loops, with the inner one at depth 2") {
    const Function& f = fn("shape_nested_loops");
    CHECK(f.blocks.size() == 7);
    REQUIRE(f.loops.size() == 2);
    const Loop& outer = f.loops[0].depth == 1 ? f.loops[0] : f.loops[1];
    const Loop& inner = f.loops[0].depth == 2 ? f.loops[0] : f.loops[1];
    CHECK(f.blocks[outer.header].start == f.start + 0x16);
    CHECK(f.blocks[inner.header].start == f.start + 0x18);
    CHECK(inner.depth == 2);
    CHECK(inner.blocks.size() == 1);
    CHECK(outer.blocks.size() == 3);
    CHECK(&f.loops[static_cast<std::size_t>(inner.parent)] == &outer);
    CHECK(f.blocks[inner.header].loop == static_cast<int>(&inner - f.loops.data()));  // innermost loop of its block
}

TEST_CASE("cfg: sibling loops are both outermost") {
    const Function& f = fn("shape_sibling_loops");
    CHECK(f.blocks.size() == 7);
    REQUIRE(f.loops.size() == 2);
    CHECK(f.loops[0].depth == 1);
    CHECK(f.loops[1].depth == 1);
    CHECK(f.loops[0].parent == -1);
    CHECK(f.loops[1].parent == -1);
    CHECK(exits(f, BlockExit::Return) == 2);  // one of them is ldr.w pc, [sp], #4
}

TEST_CASE("cfg: early returns, an IT block that stays inside its block") {
    const Function& f = fn("shape_early_return");
    CHECK(f.blocks.size() == 5);
    CHECK(exits(f, BlockExit::Return) == 3);
}

TEST_CASE("cfg: tail calls and calls") {
    const Function& t = fn("shape_tail_call");
    CHECK(t.blocks.size() == 1);
    REQUIRE(t.calls.size() == 1);
    CHECK(t.calls[0].tail);
    CHECK(t.calls[0].target == fn("shape_if_else").start);
    CHECK(t.blocks[0].exit == BlockExit::TailCall);

    const Function& c = fn("shape_calls");
    CHECK(c.blocks.size() == 3);  // a call ends its block, as the emulator's blocks do
    REQUIRE(c.calls.size() == 2);
    CHECK(c.calls[0].target == fn("shape_if_else").start);
    CHECK(c.calls[1].target == fn("shape_early_return").start);
    CHECK_FALSE(c.calls[0].tail);
}

TEST_CASE("cfg: literal pools are data, not code") {
    const Function& f = fn("shape_literal_pool");
    CHECK(f.blocks.size() == 1);
    CHECK(f.blocks[0].instructions == 4);  // ldr, ldr, mla, bx lr
    CHECK(f.block_at(f.start + 0x0c) == -1);  // the pool
}
