#include "analysis/sampler/code_graph.h"

#include <algorithm>

#include "config/config_error.h"
#include "decode/elf_image.h"
#include "decode/instruction_decoder.h"
#include "decode/program.h"
#include "models/timing_model.h"

namespace emutrace::analysis::sampler {

SamplingGraph code_graph(const decode::ElfImage& image, const decode::Function& function, models::CoreKind core) {
    decode::InstructionDecoder decoder;
    models::TimingModel timing(core);
    return graph_of(function, [&](std::uint32_t start, std::uint32_t end) -> std::uint32_t {
        std::vector<std::uint8_t> bytes = image.bytes_at(start, end - start);
        std::vector<decode::Instruction> insns = decoder.decode(bytes, start);
        if (insns.empty()) return 1;
        models::BlockTiming t = timing.block(insns);
        std::int64_t best = static_cast<std::int64_t>(t.cycles) + std::min<std::int64_t>(0, t.taken_extra);
        return static_cast<std::uint32_t>(std::max<std::int64_t>(best, 1));
    });
}

SamplingGraph code_graph(const decode::ElfImage& image, const decode::Program& program, const std::string& function, models::CoreKind core) {
    const decode::Function* f = program.function(function);
    if (!f || f->blocks.empty())
        throw ConfigError(image.path() + ": no function named '" + function + "' with a size in the symbol table (see emutrace cfg)");
    return code_graph(image, *f, core);
}

}  // namespace emutrace::analysis::sampler
