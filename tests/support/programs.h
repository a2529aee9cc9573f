#pragma once
// The control-flow graphs of a test firmware, rebuilt once per test binary; tests keep
// references into them.
#include <map>
#include <string>

#include "decode/elf_image.h"
#include "decode/program.h"
#include "support/paths.h"

namespace emutrace::test {

inline const decode::Program& program_of(const std::string& name) {
    static std::map<std::string, decode::Program> built;  // std::map: references stay valid
    auto it = built.find(name);
    if (it == built.end()) it = built.emplace(name, decode::Program::build(decode::ElfImage::load(firmware(name)))).first;
    return it->second;
}

}  // namespace emutrace::test
