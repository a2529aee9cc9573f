#include "analysis/sampler/code_graph.h"

#include <algorithm>

#include "decode/elf_image.h"
#include "decode/instruction_decoder.h"
#include "decode/program.h"
#include "emutrace/config_error.h"
#include "models/best_case.h"
#include "models/instruction_class.h"

namespace emutrace::analysis::sampler {

SamplingGraph code_graph(const decode::ElfImage& image, const decode::Function& function, models::CoreKind core) {
    decode::InstructionDecoder decoder;
    const models::PipelineParameters& parameters = models::core_spec(core).pipeline;
    std::vector<models::ClassifiedInstruction> classified;
    return graph_of(function, [&](std::uint32_t start, std::uint32_t end) -> std::uint32_t {
        std::vector<std::uint8_t> bytes = image.bytes_at(start, end - start);
        classified.clear();
        for (const decode::Instruction& insn : decoder.decode(bytes, start)) classified.push_back(models::classify(insn));
        return static_cast<std::uint32_t>(std::max<std::uint64_t>(models::best_case_cycles(classified, parameters), 1));
    });
}

SamplingGraph code_graph(const decode::ElfImage& image, const decode::Program& program, const std::string& function, models::CoreKind core) {
    const decode::Function* f = program.function(function);
    if (!f || f->blocks.empty())
        throw ConfigError(image.path() + ": no function named '" + function + "' with a size in the symbol table (see emutrace cfg)");
    return code_graph(image, *f, core);
}

}  // namespace emutrace::analysis::sampler
