#include <cstdio>

#include "app/commands.h"
#include "decode/elf_image.h"

namespace emutrace::app {

int info_command(const std::string& elf) {
    decode::ElfImage image = decode::ElfImage::load(elf);
    const auto& symbols = image.symbols();
    std::printf("%s: 32-bit ARM executable\n", elf.c_str());
    std::printf("  entry     0x%08x (%s)\n", image.entry() & ~1u, symbols.describe(image.entry() & ~1u).c_str());
    std::printf("  segments  %zu loadable\n", image.segments().size());
    for (const auto& s : image.segments())
        std::printf("    load 0x%08x  run 0x%08x  file %7zu  memory %7u  %c%c%c\n", s.load_address, s.virtual_address, s.bytes.size(), s.memory_size,
                    'r', s.writable ? 'w' : '-', s.executable ? 'x' : '-');
    std::printf("  symbols   %zu (%zu functions)\n", symbols.size(), symbols.functions().size());
    std::printf("  functions\n");
    for (const auto& f : symbols.functions()) std::printf("    0x%08x %6u  %s\n", f.address, f.size, f.name.c_str());
    return 0;
}

}  // namespace emutrace::app
