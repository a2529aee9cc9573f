// libFuzzer target: arbitrary bytes as a silicon measurement archive (emutrace silicon): the
// zstd/tar stream, its members and their msgpack dumps, read as `emutrace silicon` reads them before
// it runs a configuration. Running the images is not parsing (arbitrary code in the emulator is the
// hostile-firmware tests' part); doing it here made each execution cost a machine (190 a second).
#include "emutrace/config_error.h"
#include "fuzz/fuzz_input.h"
#include "silicon/silicon_archive.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    try {
        emutrace::silicon::read_silicon_archive(emutrace::fuzz::as_file(data, size, ".tzst"), [](emutrace::silicon::MeasuredConfiguration&&) {});
    } catch (const emutrace::ConfigError&) {}
    return 0;
}
