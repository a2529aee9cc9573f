#include <nlohmann/json.hpp>

#include <cstdio>

#include "app/commands.h"
#include "config/json_text.h"
#include "config/text_file.h"
#include "config/units.h"
#include "decode/cfg_dot.h"
#include "decode/program.h"
#include "emutrace/config_error.h"

namespace emutrace::app {
namespace {

void print_function(const decode::Function& f, const decode::SymbolTable& symbols) {
    std::string aliases;
    for (const auto& a : f.aliases) aliases += (aliases.empty() ? " (also " : ", ") + a;
    if (!aliases.empty()) aliases += ")";
    std::printf("%s%s %s-%s (%s): %zu blocks, %zu edges, %zu loops, %zu calls%s\n", f.name.c_str(), aliases.c_str(), config::hex32(f.start).c_str(),
                config::hex32(f.end).c_str(), decode::to_string(f.isa).c_str(), f.blocks.size(), f.edges.size(), f.loops.size(), f.calls.size(),
                f.has_unknown_indirect ? ", unknown indirect branches" : "");
    for (std::size_t b = 0; b < f.blocks.size(); ++b) {
        const auto& block = f.blocks[b];
        std::string succ;
        for (const auto& e : f.edges)
            if (e.from == b) {
                succ += ' ';
                succ += std::to_string(e.to);
                succ += '(';
                succ += decode::to_string(e.kind);
                succ += ')';
            }
        if (block.falls_out) succ += " (next function)";
        std::printf("  b%-3zu %s-%s %3u insns  %-11s ->%s%s\n", b, config::hex32(block.start).c_str(), config::hex32(block.end).c_str(),
                    block.instructions, decode::to_string(block.exit).c_str(), succ.empty() ? " (exit)" : succ.c_str(),
                    block.loop >= 0     ? ("  [loop " + std::to_string(block.loop) + "]").c_str()
                    : block.irreducible ? "  [irreducible cycle]"
                                        : "");
    }
    for (std::size_t l = 0; l < f.loops.size(); ++l) {
        const auto& loop = f.loops[l];
        std::string blocks;
        for (std::size_t b : loop.blocks) blocks += " b" + std::to_string(b);
        std::printf("  loop %zu: header b%zu, depth %d%s, blocks%s\n", l, loop.header, loop.depth,
                    loop.parent >= 0 ? (", inside loop " + std::to_string(loop.parent)).c_str() : "", blocks.c_str());
    }
    for (const auto& c : f.calls) {
        const char* kind = c.tail ? (c.conditional ? "conditional tail call" : "tail call") : (c.conditional ? "conditional call" : "call");
        if (c.falls_into)
            std::printf("  last instruction at %s runs on into %s\n", config::hex32(c.at).c_str(), symbols.describe(c.target).c_str());
        else
            std::printf("  %s at %s -> %s\n", kind, config::hex32(c.at).c_str(), c.target ? symbols.describe(c.target).c_str() : "(indirect)");
    }
}

nlohmann::json to_json(const decode::Function& f, const decode::SymbolTable& symbols) {
    using nlohmann::json;
    json blocks = json::array(), edges = json::array(), loops = json::array(), calls = json::array();
    for (const auto& b : f.blocks)
        blocks.push_back({{"start", b.start},
                          {"end", b.end},
                          {"instructions", b.instructions},
                          {"exit", decode::to_string(b.exit)},
                          {"loop", b.loop},
                          {"irreducible", b.irreducible}});
    for (const auto& e : f.edges) edges.push_back({{"from", e.from}, {"to", e.to}, {"kind", decode::to_string(e.kind)}});
    for (const auto& l : f.loops)
        loops.push_back({{"header", l.header}, {"blocks", l.blocks}, {"latches", l.back_edges_from}, {"parent", l.parent}, {"depth", l.depth}});
    for (const auto& c : f.calls)
        calls.push_back({{"at", c.at},
                         {"target", c.target},
                         {"callee", c.target ? symbols.describe(c.target) : ""},
                         {"tail", c.tail},
                         {"conditional", c.conditional},
                         {"falls_into", c.falls_into}});
    return {{"name", f.name},   {"aliases", f.aliases}, {"start", f.start}, {"end", f.end},   {"isa", decode::to_string(f.isa)},
            {"blocks", blocks}, {"edges", edges},       {"loops", loops},   {"calls", calls}, {"unknown_indirect", f.has_unknown_indirect}};
}

}  // namespace

int cfg_command(const CfgOptions& o) {
    decode::ElfImage image = decode::ElfImage::load(o.elf);
    decode::Program program = decode::Program::build(image);
    std::vector<const decode::Function*> chosen;
    for (const auto& f : program.functions())
        if (o.function.empty() || &f == program.function(o.function)) chosen.push_back(&f);  // by name or alias
    if (chosen.empty()) throw ConfigError(o.elf + ": no function named '" + o.function + "'");
    for (const auto* f : chosen) print_function(*f, image.symbols());
    if (!o.dot.empty()) decode::write_cfg_dot(o.dot, chosen);
    if (!o.json.empty()) {
        nlohmann::json all = nlohmann::json::array();
        for (const auto* f : chosen) all.push_back(to_json(*f, image.symbols()));
        config::write_text_file(o.json, config::json_text(nlohmann::json{{"firmware", o.elf}, {"functions", all}}, 2) + "\n", "JSON file");
    }
    return 0;
}

}  // namespace emutrace::app
