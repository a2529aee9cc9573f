#include "decode/cfg_dot.h"

#include <sstream>

#include "config/text_file.h"
#include "config/units.h"
#include "emutrace/config_error.h"

namespace emutrace::decode {

void write_cfg_dot(const std::string& path, const std::vector<const decode::Function*>& functions, const DotAnnotation& annotate) {
    std::ostringstream out;
    out << "digraph cfg {\n  node [shape=box, fontname=monospace];\n";
    for (std::size_t k = 0; k < functions.size(); ++k) {
        const auto& f = *functions[k];
        out << "  subgraph cluster_" << k << " {\n    label=\"" << f.name << "\";\n";
        for (std::size_t b = 0; b < f.blocks.size(); ++b) {
            bool header = false;
            for (const auto& l : f.loops) header = header || l.header == b;
            DotBlockStyle style = annotate ? annotate(k, b) : DotBlockStyle{};
            out << "    f" << k << "b" << b << " [label=\"b" << b << "\\n"
                << config::hex32(f.blocks[b].start) << "\\n"
                << f.blocks[b].instructions << " insns" << style.label << "\"" << (header ? ", style=bold" : "")
                << (style.attributes.empty() ? "" : ", " + style.attributes) << "];\n";
        }
        for (const auto& e : f.edges)
            out << "    f" << k << "b" << e.from << " -> f" << k << "b" << e.to << " [label=\"" << decode::to_string(e.kind) << "\"];\n";
        out << "  }\n";
    }
    out << "}\n";
    config::write_text_file(path, out.str(), "DOT file");
}

}  // namespace emutrace::decode
