#pragma once
// The firmware's static structure, read from its ELF: per function the basic blocks, the
// intra-procedural edges (TBB/TBH and ARM ldr-pc jump tables decoded, other indirect branches marked), call
// sites, and natural loops found from dominators, with nesting and each block's innermost loop.
// The one view the WCET and sampling analyses use.

#include <cstdint>
#include <string>
#include <vector>

#include "decode/elf_image.h"
#include "decode/instruction_decoder.h"

namespace emutrace::decode {

enum class EdgeKind : std::uint8_t {
    FallThrough,  ///< to the next block
    Taken,        ///< a conditional branch taken (B<cc>, CBZ/CBNZ)
    Jump,         ///< an unconditional branch inside the function
    Table,        ///< one target of a TBB/TBH jump table
};

struct Edge {
    std::size_t from = 0, to = 0;  ///< block indices
    EdgeKind kind = EdgeKind::FallThrough;
};

enum class BlockExit : std::uint8_t { FallThrough, Branch, Return, TailCall, Indirect, Table };

struct BasicBlock {
    std::uint32_t start = 0, end = 0;  ///< [start, end)
    std::uint32_t instructions = 0;
    BlockExit exit = BlockExit::FallThrough;
    int loop = -1;  ///< innermost loop holding the block, or -1
    /// Going on to the next instruction runs into the next function (hand-written code such as
    /// libgcc's __aeabi_fsub falling into __aeabi_fadd): the code continues there, in the same
    /// call, and the next function's time belongs to this one (a CallSite with `falls_into`).
    bool falls_out = false;
    /// On a cycle that is no natural loop (entered at more than one block: a goto into a loop, or
    /// GCC entering a rotated loop at its test): no header bounds it, so the WCET analysis counts
    /// the block's executions per call of the function instead.
    bool irreducible = false;
    /// The block can leave the function: a return, a tail call, an unknown indirect branch, or
    /// running on into the next function.
    bool may_leave() const { return exit == BlockExit::Return || exit == BlockExit::TailCall || exit == BlockExit::Indirect || falls_out; }
};

struct Loop {
    std::size_t header = 0;                    ///< block index
    std::vector<std::size_t> blocks;           ///< all blocks of the loop, header included, sorted
    std::vector<std::size_t> back_edges_from;  ///< the latch blocks
    int parent = -1;                           ///< enclosing loop, or -1
    int depth = 1;                             ///< nesting level: 1 for an outermost loop
};

struct CallSite {
    std::uint32_t at = 0;      ///< address of the call instruction
    std::uint32_t target = 0;  ///< callee start, 0 when indirect (BLX rN; with `tail`, BX rN or a load of pc)
    bool tail = false;         ///< a tail call (B to another function), or falls_into
    bool falls_into = false;   ///< no branch: the code runs on into the function at `target`
    bool conditional = false;  ///< may not happen (B<cc>, in an IT block, or falling past a conditional exit)
};

struct Function {
    std::string name;                  ///< the name reports use (SymbolTable::describe() gives it too)
    std::vector<std::string> aliases;  ///< other function symbols at the same address (__addsf3 for __aeabi_fadd)
    InstructionSet isa = InstructionSet::ThumbM;
    /// [start, end): the symbol's range, cut where the next function symbol starts, so that
    /// functions never overlap (libgcc's entry points into shared code each get their own).
    std::uint32_t start = 0, end = 0;
    std::vector<BasicBlock> blocks;  ///< sorted by address; blocks[0] is the entry
    std::vector<Edge> edges;
    std::vector<Loop> loops;
    std::vector<CallSite> calls;
    bool has_unknown_indirect = false;  ///< an indirect branch that is not a return or a decoded table
    /// Index of the block holding `address`, or -1.
    int block_at(std::uint32_t address) const;
};

class Program {
public:
    /// Reconstructs every sized function symbol of the image: Thumb code of M-profile images, ARM
    /// and Thumb code (by each function symbol's Thumb bit) of A- and R-profile ones. Symbols at
    /// one address are one function; a symbol whose size reaches past the next function's start
    /// ends there.
    static Program build(const ElfImage& image);
    const std::vector<Function>& functions() const { return functions_; }
    /// By name or alias.
    const Function* function(const std::string& name) const;

private:
    std::vector<Function> functions_;
};

std::string to_string(EdgeKind kind);
std::string to_string(BlockExit exit);

}  // namespace emutrace::decode
