#include "decode/program.h"

#include <capstone/arm.h>

#include <algorithm>
#include <map>
#include <set>
#include <span>

#include "config/little_endian.h"
#include "decode/instruction_decoder.h"

namespace emutrace::decode {
namespace {

constexpr std::uint16_t kPc = 1u << 15;
constexpr unsigned kMostTableEntries = 4096;

// The number of TBB/TBH entries, from the bounds check GCC puts before the table:
// `cmp rN, #k` then a branch to the default when above: k + 1 entries.
unsigned table_entries(const std::vector<Instruction>& insns, std::size_t tb, std::size_t look_back = 4) {
    for (std::size_t back = 1; back <= look_back && back <= tb; ++back) {
        const Instruction& i = insns[tb - back];
        if (i.id != ARM_INS_CMP) continue;
        auto pos = i.text.find('#');
        if (pos == std::string::npos) return 0;
        return static_cast<unsigned>(std::stoul(i.text.substr(pos + 1), nullptr, 0)) + 1;
    }
    return 0;
}

// ARMv6-M's jump table (no TBB there), as GCC emits it:
//   cmp rI, #k; bhi default; ldr rT, =table; lsls rI, rI, #2; ldr rX, [rT, rI]; mov pc, rX
// with the table of k + 1 code addresses in read-only data. Returns the table's address, or 0.
std::uint32_t v6m_table_address(const ElfImage& image, const std::vector<Instruction>& insns, std::size_t jump) {
    const Instruction& j = insns[jump];
    bool moves_pc = (j.id == ARM_INS_MOV || j.id == ARM_INS_BX) && (j.writes & kPc) && j.memory.mode == MemoryAccess::Mode::None;
    if (!moves_pc || jump < 3) return 0;
    const Instruction& load = insns[jump - 1];
    const Instruction& scale = insns[jump - 2];
    const Instruction& base = insns[jump - 3];
    bool loads_entry = load.id == ARM_INS_LDR && load.memory.mode == MemoryAccess::Mode::Offset && load.memory.index >= 0 && load.memory.shift == 0 &&
                       load.memory.disp == 0 && (j.reads & load.writes);
    bool scales_index =
        scale.id == ARM_INS_LSL && loads_entry && (scale.writes & (1u << load.memory.index)) && scale.text.find("#2") != std::string::npos;
    bool loads_base = base.id == ARM_INS_LDR && base.memory.mode == MemoryAccess::Mode::Offset && base.memory.base == 15 && base.memory.index < 0 &&
                      loads_entry && (base.writes & (1u << load.memory.base));
    if (!scales_index || !loads_base) return 0;
    std::vector<std::uint8_t> literal = image.bytes_at(((base.address + 4) & ~3u) + static_cast<std::uint32_t>(base.memory.disp), 4);
    if (literal.size() != 4) return 0;
    return config::read_le32(literal.data());
}

struct Decoded {
    std::vector<Instruction> insns;
    std::map<std::uint32_t, std::vector<std::uint32_t>> tables;  ///< TBB/TBH address -> targets
};

// ARM code's jump table: `ldr<cc> pc, [pc, rN, lsl #2]` followed by the table of addresses.
bool is_arm_table_load(const Instruction& i) {
    return i.id == ARM_INS_LDR && (i.writes & kPc) && i.memory.mode == MemoryAccess::Mode::Offset && i.memory.base == 15 && i.memory.index >= 0 &&
           i.memory.shift == 2 && i.memory.disp == 0 && !i.memory.subtract;
}

std::uint32_t little_endian(const std::vector<std::uint8_t>& bytes, std::uint32_t off, unsigned width) {
    std::uint32_t v = 0;
    for (unsigned k = 0; k < width; ++k) v |= static_cast<std::uint32_t>(bytes[off + k]) << (8 * k);
    return v;
}

Decoded decode_function(const ElfImage& image, const InstructionDecoder& decoder, std::uint32_t start, std::uint32_t end) {
    Decoded d;
    std::vector<std::uint8_t> bytes = image.bytes_at(start, end - start);
    if (bytes.empty()) return d;
    const bool arm = decoder.instruction_set() == InstructionSet::Arm;
    const std::uint32_t step = arm ? 4 : 2;
    std::uint32_t at = start;
    std::uint32_t table_from = 0, table_to = 0;  // an ARM jump table, after the instruction that follows its load
    // Capstone sees one instruction at a time here, so it cannot know that an IT governs the next
    // ones (`it gt; bxgt lr` decodes as `bx lr`): the IT block is followed here instead.
    unsigned in_it = 0;
    while (at + step <= end) {
        if (at >= table_from && at < table_to) at = table_to;
        if (at + step > end) break;
        if (image.is_data(at)) {  // literal pools and jump tables between instructions
            at += step;
            continue;
        }
        std::span<const std::uint8_t> rest(bytes.data() + (at - start), end - at);
        Instruction i = decoder.decode_one(rest, at);
        if (i.size == 0) {
            at += step;
            continue;
        }
        at += i.size;
        if (in_it > 0) {
            i.conditional = true;
            --in_it;
        }
        if (!arm) in_it = std::max(in_it, it_block_length(i));
        if (i.id == ARM_INS_NOP && image.is_data(at)) continue;  // alignment padding before a literal pool
        d.insns.push_back(i);
        if (i.id == ARM_INS_TBB || i.id == ARM_INS_TBH) {
            unsigned n = table_entries(d.insns, d.insns.size() - 1);
            std::uint32_t base = i.address + 4;
            unsigned width = i.id == ARM_INS_TBB ? 1 : 2;
            std::vector<std::uint32_t> targets;
            for (unsigned k = 0; k < n && base + (k + 1) * width <= end; ++k) {
                std::uint32_t off = base - start + k * width;
                targets.push_back(base + 2 * little_endian(bytes, off, width));
            }
            d.tables[i.address] = targets;
            if (!targets.empty()) at = std::max(at, (base + n * width + 1) & ~1u);  // code resumes after the table
        } else if (std::uint32_t table = arm ? 0 : v6m_table_address(image, d.insns, d.insns.size() - 1)) {
            unsigned n = table_entries(d.insns, d.insns.size() - 1, 8);
            if (n > kMostTableEntries) n = 0;  // no switch GCC compiles is this large: a hostile bounds check
            std::vector<std::uint8_t> words = image.bytes_at(table, 4 * n);
            std::vector<std::uint32_t> targets;
            for (unsigned k = 0; 4 * (k + 1) <= words.size(); ++k) {
                std::uint32_t t = little_endian(words, 4 * k, 4);
                // `mov pc` ignores bit 0, so GCC stores the labels as they are (Thumb bit or not).
                if ((t & ~1u) >= start && (t & ~1u) < end) targets.push_back(t & ~1u);
            }
            if (targets.size() == n && n > 0) d.tables[i.address] = targets;  // all or nothing: a partial table would hide paths
        } else if (arm && is_arm_table_load(i)) {
            unsigned n = table_entries(d.insns, d.insns.size() - 1);
            std::uint32_t base = i.address + 8;  // the pc an ARM instruction reads
            std::vector<std::uint32_t> targets;
            for (unsigned k = 0; k < n && base + (k + 1) * 4 <= end; ++k) targets.push_back(little_endian(bytes, base - start + 4 * k, 4) & ~1u);
            d.tables[i.address] = targets;
            table_from = base;
            table_to = base + static_cast<std::uint32_t>(targets.size()) * 4;
        }
    }
    return d;
}

// Iterative dominators over block indices (entry 0): dom[b] = set of blocks dominating b.
std::vector<std::vector<bool>> dominators(const Function& f) {
    std::size_t n = f.blocks.size();
    std::vector<std::vector<std::size_t>> preds(n);
    for (const auto& e : f.edges) preds[e.to].push_back(e.from);
    std::vector<std::vector<bool>> dom(n, std::vector<bool>(n, true));
    dom[0].assign(n, false);
    dom[0][0] = true;
    for (bool changed = true; changed;) {
        changed = false;
        for (std::size_t b = 1; b < n; ++b) {
            std::vector<bool> next(n, !preds[b].empty());
            for (std::size_t p : preds[b])
                for (std::size_t k = 0; k < n; ++k) next[k] = next[k] && dom[p][k];
            next[b] = true;
            if (next != dom[b]) {
                dom[b] = next;
                changed = true;
            }
        }
    }
    return dom;
}

void find_loops(Function& f) {
    auto dom = dominators(f);
    std::vector<std::vector<std::size_t>> preds(f.blocks.size());
    for (const auto& e : f.edges) preds[e.to].push_back(e.from);
    std::map<std::size_t, Loop> by_header;
    for (const auto& e : f.edges) {
        if (!dom[e.from][e.to]) continue;  // a back edge: its target dominates its source
        Loop& loop = by_header[e.to];
        loop.header = e.to;
        loop.back_edges_from.push_back(e.from);
        std::set<std::size_t> body(loop.blocks.begin(), loop.blocks.end());
        body.insert(e.to);
        std::vector<std::size_t> work{e.from};
        while (!work.empty()) {
            std::size_t b = work.back();
            work.pop_back();
            if (!body.insert(b).second) continue;
            for (std::size_t p : preds[b]) work.push_back(p);
        }
        loop.blocks.assign(body.begin(), body.end());
    }
    for (auto& [h, loop] : by_header) f.loops.push_back(loop);
    // Nesting: a loop's parent is the smallest other loop containing its header.
    for (std::size_t i = 0; i < f.loops.size(); ++i) {
        std::size_t best = SIZE_MAX;
        for (std::size_t j = 0; j < f.loops.size(); ++j) {
            if (i == j || f.loops[j].blocks.size() <= f.loops[i].blocks.size()) continue;
            if (!std::binary_search(f.loops[j].blocks.begin(), f.loops[j].blocks.end(), f.loops[i].header)) continue;
            if (best == SIZE_MAX || f.loops[j].blocks.size() < f.loops[best].blocks.size()) best = j;
        }
        f.loops[i].parent = best == SIZE_MAX ? -1 : static_cast<int>(best);
    }
    for (auto& loop : f.loops) {
        loop.depth = 1;
        for (int p = loop.parent; p >= 0; p = f.loops[static_cast<std::size_t>(p)].parent) ++loop.depth;
    }
    for (std::size_t b = 0; b < f.blocks.size(); ++b) {
        int best = -1;
        for (std::size_t l = 0; l < f.loops.size(); ++l)
            if (std::binary_search(f.loops[l].blocks.begin(), f.loops[l].blocks.end(), b) &&
                (best < 0 || f.loops[l].depth > f.loops[static_cast<std::size_t>(best)].depth))
                best = static_cast<int>(l);
        f.blocks[b].loop = best;
    }
}

// Marks the blocks on cycles that remain when the natural loops' back edges are left out: the
// strongly connected components (Tarjan) of that graph with more than one block, or a self edge.
void mark_irreducible(Function& f) {
    const std::size_t n = f.blocks.size();
    auto back_edge = [&](const Edge& e) {
        for (const auto& loop : f.loops)
            if (loop.header == e.to && std::find(loop.back_edges_from.begin(), loop.back_edges_from.end(), e.from) != loop.back_edges_from.end())
                return true;
        return false;
    };
    std::vector<std::vector<std::size_t>> succ(n);
    for (const auto& e : f.edges)
        if (!back_edge(e)) succ[e.from].push_back(e.to);
    std::vector<int> index(n, -1), low(n, 0);
    std::vector<bool> on_stack(n, false);
    std::vector<std::size_t> stack;
    int next = 0;
    // Iterative Tarjan: a function of a few thousand blocks must not exhaust the host stack.
    struct Visit {
        std::size_t block, edge;
    };
    for (std::size_t root = 0; root < n; ++root) {
        if (index[root] >= 0) continue;
        std::vector<Visit> calls{{root, 0}};
        index[root] = low[root] = next++;
        stack.push_back(root);
        on_stack[root] = true;
        while (!calls.empty()) {
            Visit& v = calls.back();
            if (v.edge < succ[v.block].size()) {
                std::size_t w = succ[v.block][v.edge++];
                if (index[w] < 0) {
                    index[w] = low[w] = next++;
                    stack.push_back(w);
                    on_stack[w] = true;
                    calls.push_back({w, 0});
                } else if (on_stack[w]) {
                    low[v.block] = std::min(low[v.block], index[w]);
                }
                continue;
            }
            std::size_t b = v.block;
            calls.pop_back();
            if (!calls.empty()) low[calls.back().block] = std::min(low[calls.back().block], low[b]);
            if (low[b] != index[b]) continue;
            std::vector<std::size_t> component;
            for (std::size_t w = SIZE_MAX; w != b;) {
                w = stack.back();
                stack.pop_back();
                on_stack[w] = false;
                component.push_back(w);
            }
            bool cycle = component.size() > 1 || std::find(succ[b].begin(), succ[b].end(), b) != succ[b].end();
            if (cycle)
                for (std::size_t w : component) f.blocks[w].irreducible = true;
        }
    }
}

// Leaders of `f`'s blocks: the entry, targets of branches inside the function or from others
// (`entered_at`), instructions after a branch.
std::set<std::uint32_t> block_leaders(const Function& f, const Decoded& d, const std::set<std::uint32_t>& entered_at) {
    std::set<std::uint32_t> leaders{d.insns.front().address};
    for (auto it = entered_at.lower_bound(f.start); it != entered_at.end() && *it < f.end; ++it) leaders.insert(*it);
    for (std::size_t k = 0; k < d.insns.size(); ++k) {
        const Instruction& i = d.insns[k];
        bool ends = (i.is_jump && i.id != ARM_INS_BL && i.id != ARM_INS_BLX) || (i.writes & kPc);
        if (!ends) continue;
        if (i.target && i.target >= f.start && i.target < f.end) leaders.insert(i.target);
        if (auto t = d.tables.find(i.address); t != d.tables.end())
            for (std::uint32_t target : t->second) leaders.insert(target);
        if (k + 1 < d.insns.size()) leaders.insert(d.insns[k + 1].address);
    }
    return leaders;
}

// How block `b` of `f`, ending with `i`, is left: its exit, edges and calls. `index`: blocks by
// start address.
void add_exit(Function& f, std::size_t b, const Instruction& i, const Decoded& d, const std::map<std::uint32_t, std::size_t>& index) {
    BasicBlock& block = f.blocks[b];
    const bool has_next = b + 1 < f.blocks.size();
    auto inside = [&](std::uint32_t a) { return a >= f.start && a < f.end; };
    auto add = [&](std::uint32_t to, EdgeKind kind) {
        if (auto it = index.find(to); it != index.end()) f.edges.push_back({b, it->second, kind});
    };
    if (auto t = d.tables.find(i.address); t != d.tables.end()) {
        block.exit = BlockExit::Table;
        std::set<std::uint32_t> seen;
        for (std::uint32_t target : t->second)
            if (seen.insert(target).second) add(target, EdgeKind::Table);
        if (t->second.empty()) f.has_unknown_indirect = true;
    } else if (is_conditional_branch(i)) {
        block.exit = BlockExit::Branch;
        if (i.target && inside(i.target)) {
            add(i.target, EdgeKind::Taken);
        } else if (i.target) {  // a conditional tail call (beq.w other_function)
            block.exit = BlockExit::TailCall;
            f.calls.push_back({i.address, i.target, true, false, true});
        }
        if (has_next) f.edges.push_back({b, b + 1, EdgeKind::FallThrough});
    } else if (control_flow(i) == ControlFlow::Return) {
        block.exit = BlockExit::Return;
    } else if (i.id == ARM_INS_B || (i.id == ARM_INS_BX)) {
        if (i.target && inside(i.target)) {
            block.exit = BlockExit::Branch;
            add(i.target, EdgeKind::Jump);
        } else if (i.target) {
            block.exit = BlockExit::TailCall;
            f.calls.push_back({i.address, i.target, true, false, i.conditional});
        } else {  // bx rN: a tail call through a pointer, or a computed jump
            block.exit = BlockExit::Indirect;
            f.has_unknown_indirect = true;
            f.calls.push_back({i.address, 0, true, false, i.conditional});
        }
    } else if (i.writes & kPc) {
        block.exit = BlockExit::Indirect;
        f.has_unknown_indirect = true;
        f.calls.push_back({i.address, 0, true, false, i.conditional});
    } else if (has_next) {
        f.edges.push_back({b, b + 1, EdgeKind::FallThrough});
    }
}

// Blocks, edges, calls and loops of `f` from its decoded code. `next_function`: the next function
// starts right at f.end. `entered_at`: addresses other functions branch to (shared code).
Function build_function(Function f, const Decoded& d, bool next_function, const std::set<std::uint32_t>& entered_at) {
    if (d.insns.empty()) return f;
    const std::set<std::uint32_t> leaders = block_leaders(f, d, entered_at);
    std::map<std::uint32_t, std::size_t> index;
    for (std::size_t k = 0; k < d.insns.size(); ++k) {
        const Instruction& i = d.insns[k];
        if (leaders.count(i.address) || f.blocks.empty()) {
            index[i.address] = f.blocks.size();
            f.blocks.push_back({i.address, i.address, 0});
        }
        f.blocks.back().end = i.address + i.size;
        ++f.blocks.back().instructions;
    }
    // Edges and exits from each block's last instruction.
    for (std::size_t b = 0; b < f.blocks.size(); ++b) {
        BasicBlock& block = f.blocks[b];
        auto last = std::find_if(d.insns.rbegin(), d.insns.rend(), [&](const Instruction& i) { return i.address < block.end; });
        const Instruction& i = *last;
        const bool has_next = b + 1 < f.blocks.size();
        if (i.id == ARM_INS_BL || i.id == ARM_INS_BLX) {
            // A call ends the block (as the emulator's translated blocks do) and returns to the next.
            f.calls.push_back({i.address, i.target, false, false, i.conditional});
            if (has_next) f.edges.push_back({b, b + 1, EdgeKind::FallThrough});
            continue;
        }
        add_exit(f, b, i, d, index);
        // A conditional return, table load or jump (ARM's bxeq lr or ldrls pc, Thumb's inside an
        // IT block) may also not happen: execution then goes on with the next block.
        bool may_skip = i.conditional && !is_conditional_branch(i) && block.exit != BlockExit::FallThrough;
        if (may_skip && has_next) f.edges.push_back({b, b + 1, EdgeKind::FallThrough});
        // The last block going on past the function's end runs into the next function.
        bool goes_on = block.exit == BlockExit::FallThrough || is_conditional_branch(i) || may_skip;
        if (goes_on && !has_next && next_function && block.end == f.end) {
            block.falls_out = true;
            f.calls.push_back({i.address, f.end, true, true, block.exit != BlockExit::FallThrough});
        }
    }
    find_loops(f);
    mark_irreducible(f);
    return f;
}

// Bytes of executable code from `start` up to `limit` within the segment holding `start`.
std::uint32_t code_extent(const ElfImage& image, std::uint32_t start, std::uint32_t limit) {
    for (const auto& seg : image.segments()) {
        std::uint32_t from = seg.virtual_address, to = seg.virtual_address + static_cast<std::uint32_t>(seg.bytes.size());
        if (!seg.executable || start < from || start >= to) continue;
        return std::min(to, limit) - start;
    }
    return 0;
}

InstructionSet instruction_set_of(const ElfImage& image, const Symbol& function) {
    bool has_arm_code =
        std::any_of(image.mapping_symbols().begin(), image.mapping_symbols().end(), [](const MappingSymbol& m) { return m.kind == 'a'; });
    bool m_profile = image.profile() == 'M' || (image.profile() == 0 && !has_arm_code);
    if (m_profile) return InstructionSet::ThumbM;
    return function.thumb ? InstructionSet::Thumb : InstructionSet::Arm;
}

}  // namespace

int Function::block_at(std::uint32_t address) const {
    for (std::size_t b = 0; b < blocks.size(); ++b)
        if (address >= blocks[b].start && address < blocks[b].end) return static_cast<int>(b);
    return -1;
}

Program Program::build(const ElfImage& image) {
    Program p;
    // One Capstone handle per instruction set, opened when a function first needs it.
    std::map<InstructionSet, InstructionDecoder> decoders;
    std::span<const Symbol> syms = image.symbols().functions();  // sorted by address
    std::vector<Decoded> decoded;                                // per function
    std::vector<bool> falls_into;                                // per function: the next one starts at its end
    for (std::size_t k = 0; k < syms.size();) {
        // The sized symbols at one address: one function, named as SymbolTable::describe() names
        // it (the last of them), the others its aliases.
        std::size_t same = k;
        const Symbol* named = nullptr;
        std::uint32_t size = 0;
        for (; same < syms.size() && syms[same].address == syms[k].address; ++same) {
            if (syms[same].size == 0) continue;
            size = std::max(size, syms[same].size);
            named = &syms[same];
        }
        std::size_t next = same;
        if (!named) {
            // Hand-written assembly without .size (libgcc's __aeabi_uldivmod): the code runs to
            // the next function symbol, or to the end of its segment.
            named = &syms[same - 1];
            size = code_extent(image, named->address, next < syms.size() ? syms[next].address : UINT32_MAX);
            if (size == 0) {
                k = same;
                continue;
            }
        }
        Function f;
        f.name = named->name;
        for (std::size_t a = k; a < same; ++a)
            if (syms[a].size && &syms[a] != named) f.aliases.push_back(syms[a].name);
        f.start = named->address;
        f.end = named->address + size;
        if (f.end < f.start) f.end = UINT32_MAX & ~1u;  // a size past the address space
        bool next_function = next < syms.size() && syms[next].address <= f.end;
        if (next_function) f.end = syms[next].address;
        f.isa = instruction_set_of(image, *named);
        auto it = decoders.try_emplace(f.isa, f.isa).first;
        decoded.push_back(decode_function(image, it->second, f.start, f.end));
        falls_into.push_back(next_function);
        p.functions_.push_back(std::move(f));
        k = same;
    }
    // Branches into the middle of another function (libgcc's double-precision routines share
    // their special-case code) start a block there, so that the code is measured from there.
    std::set<std::uint32_t> entered_at;
    for (std::size_t k = 0; k < p.functions_.size(); ++k)
        for (const Instruction& i : decoded[k].insns)
            if (i.target && (i.target < p.functions_[k].start || i.target >= p.functions_[k].end)) entered_at.insert(i.target);
    for (std::size_t k = 0; k < p.functions_.size(); ++k)
        p.functions_[k] = build_function(std::move(p.functions_[k]), decoded[k], falls_into[k], entered_at);
    return p;
}

const Function* Program::function(const std::string& name) const {
    for (const auto& f : functions_)
        if (f.name == name || std::find(f.aliases.begin(), f.aliases.end(), name) != f.aliases.end()) return &f;
    return nullptr;
}

std::string to_string(EdgeKind kind) {
    switch (kind) {
        case EdgeKind::FallThrough: return "fallthrough";
        case EdgeKind::Taken: return "taken";
        case EdgeKind::Jump: return "jump";
        case EdgeKind::Table: return "table";
    }
    return "?";
}

std::string to_string(BlockExit exit) {
    switch (exit) {
        case BlockExit::FallThrough: return "fallthrough";
        case BlockExit::Branch: return "branch";
        case BlockExit::Return: return "return";
        case BlockExit::TailCall: return "tail-call";
        case BlockExit::Indirect: return "indirect";
        case BlockExit::Table: return "table";
    }
    return "?";
}

}  // namespace emutrace::decode
