// libFuzzer target: arbitrary bytes as a silicon measurement archive (emutrace silicon): the
// zstd/tar stream, its members and their msgpack dumps.
#include <unistd.h>

#include <filesystem>
#include <string>

#include "config/config_error.h"
#include "fuzz/fuzz_input.h"
#include "session/scenario.h"
#include "silicon/silicon_suite.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    namespace fs = std::filesystem;
    static const fs::path dir = [] {
        fs::path d = fs::temp_directory_path() / ("emutrace-fuzz-silicon-" + std::to_string(::getpid()));
        fs::create_directories(d / "memory");
        return d;
    }();
    const std::string& file = emutrace::fuzz::as_file(data, size, ".tzst");
    fs::copy_file(file, dir / "memory" / "t.tzst", fs::copy_options::overwrite_existing);
    static const emutrace::config::Node board = emutrace::session::load_board("stm32f100");
    emutrace::silicon::SiliconRunOptions options;
    options.board = [] { return emutrace::session::load_scenario(board).machine; };
    options.max_instructions = 100'000;
    options.wall_clock_seconds = 1;
    try {
        (void)emutrace::silicon::run_silicon_suite(dir.string(), options);
    } catch (const emutrace::ConfigError&) {}
    return 0;
}
