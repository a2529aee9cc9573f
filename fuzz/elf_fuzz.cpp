// libFuzzer target: arbitrary bytes as a firmware ELF. Loading it, and building its functions'
// CFGs when it loads, must end in the ELF or in a ConfigError, never a crash or a hang.
#include "decode/elf_image.h"
#include "decode/program.h"
#include "emutrace/config_error.h"
#include "fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    try {
        emutrace::decode::ElfImage image = emutrace::decode::ElfImage::load(emutrace::fuzz::as_file(data, size, ".elf"));
        (void)emutrace::decode::Program::build(image);
    } catch (const emutrace::ConfigError&) {}
    return 0;
}
