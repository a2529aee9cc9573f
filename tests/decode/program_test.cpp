// Golden control-flow graphs of tests/firmware/cfg_shapes.c, each function written to compile to
// one shape. Addresses are offsets from the function's start, so a different layout still passes.
#include <doctest/doctest.h>

#include <algorithm>
#include <set>

#include "decode/program.h"
#include "support/programs.h"

using namespace emutrace::decode;
using emutrace::test::firmware;
using emutrace::test::program_of;

namespace {

const Program& program() {
    return program_of("cfg_shapes");
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
    std::size_t into_join = static_cast<std::size_t>(
        std::count_if(f.edges.begin(), f.edges.end(), [&](const Edge& e) { return e.to == static_cast<std::size_t>(join); }));
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
    CHECK(f.blocks[0].instructions == 4);     // ldr, ldr, mla, bx lr
    CHECK(f.block_at(f.start + 0x0c) == -1);  // the pool
}

// A-profile: tests/firmware/cfg_shapes_arm.c built for a Cortex-A9 in the ARM instruction set, with
// one Thumb function.
namespace {

const Program& a9_program() {
    return program_of("cfg_shapes_a9");
}

const Function& a9(const char* name) {
    const Function* f = a9_program().function(name);
    REQUIRE(f);
    return *f;
}

}  // namespace

TEST_CASE("cfg, A-profile: the build attributes say A, and functions are ARM or Thumb by their symbol") {
    ElfImage image = ElfImage::load(firmware("cfg_shapes_a9"));
    CHECK(image.profile() == 'A');
    CHECK(ElfImage::load(firmware("cfg_shapes")).profile() == 'M');
    CHECK(a9("arm_switch").isa == InstructionSet::Arm);
    CHECK(a9("thumb_helper").isa == InstructionSet::Thumb);
    CHECK(fn("shape_switch").isa == InstructionSet::ThumbM);
    for (const auto& f : a9_program().functions())
        for (const auto& b : f.blocks) {
            CAPTURE(f.name);
            if (f.isa == InstructionSet::Arm) CHECK((b.end - b.start) == 4 * b.instructions);  // ARM instructions are all 4 bytes
        }
}

TEST_CASE("cfg, A-profile: an ARM switch is a decoded ldr-pc jump table, its words are not code") {
    const Function& f = a9("arm_switch");
    CHECK(f.blocks.size() == 11);  // bounds check + table load, branch to default, eight cases (one shared), default
    CHECK(edges(f, EdgeKind::Table) == 8);
    CHECK(exits(f, BlockExit::Table) == 1);
    CHECK(exits(f, BlockExit::Return) == 9);
    CHECK_FALSE(f.has_unknown_indirect);
    // ldrls: when x > 7 the load does not happen and the next instruction branches to the default.
    const Edge* skip = nullptr;
    for (const auto& e : f.edges)
        if (e.from == 0 && e.kind == EdgeKind::FallThrough) skip = &e;
    REQUIRE(skip);
    CHECK(f.blocks[skip->to].start == f.start + 8);
    for (std::uint32_t word = 0; word < 8; ++word) CHECK(f.block_at(f.start + 0x0c + 4 * word) == -1);
}

TEST_CASE("cfg, A-profile: nested loops in ARM code") {
    const Function& f = a9("arm_nested_loops");
    REQUIRE(f.loops.size() == 2);
    const Loop& outer = f.loops[0].depth == 1 ? f.loops[0] : f.loops[1];
    const Loop& inner = f.loops[0].depth == 2 ? f.loops[0] : f.loops[1];
    CHECK(inner.blocks.size() == 1);
    CHECK(outer.blocks.size() == 3);
    CHECK(&f.loops[static_cast<std::size_t>(inner.parent)] == &outer);
    CHECK(exits(f, BlockExit::Return) == 2);  // pop {r4, pc} on both paths
}

TEST_CASE("cfg, A-profile: a conditional return falls through when not taken, then a tail call") {
    const Function& f = a9("arm_early_return");
    REQUIRE(f.blocks.size() == 2);
    CHECK(f.blocks[0].exit == BlockExit::Return);  // bxhi lr
    REQUIRE(f.edges.size() == 1);
    CHECK(f.edges[0].from == 0);
    CHECK(f.edges[0].to == 1);
    CHECK(f.blocks[1].exit == BlockExit::TailCall);
    REQUIRE(f.calls.size() == 1);
    CHECK(f.calls[0].tail);
    CHECK(f.calls[0].target == a9("arm_literal").start);
}

TEST_CASE("cfg, A-profile: a literal pool inside ARM code is branched over and not decoded") {
    const Function& f = a9("arm_literal");
    REQUIRE(f.blocks.size() == 2);
    CHECK(f.blocks[0].end + 4 == f.blocks[1].start);  // the pool word between them
    CHECK(f.blocks[0].exit == BlockExit::Branch);
    CHECK(f.blocks[1].exit == BlockExit::Return);
    CHECK_FALSE(f.has_unknown_indirect);
}

TEST_CASE("cfg, A-profile: Thumb code between ARM functions, and interworking calls into it") {
    const Function& t = a9("thumb_helper");
    REQUIRE(t.loops.size() == 1);
    CHECK(exits(t, BlockExit::Return) == 2);
    const Function& start = a9("_start");
    std::vector<std::uint32_t> targets;
    for (const auto& c : start.calls) targets.push_back(c.target);
    CHECK(std::count(targets.begin(), targets.end(), t.start) == 1);  // blx to the Thumb function
    CHECK(start.calls.size() == 5);
    REQUIRE(start.loops.size() == 1);
}
