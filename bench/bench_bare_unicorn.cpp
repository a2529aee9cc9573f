// Bare Unicorn on one ELF, in a process of its own with the C library's allocator, as a user's own
// Unicorn runner would be: the baseline bench_command.py sets the emutrace command against.
// Prints the run's CPU seconds.
#include <cstdio>
#include <exception>

#include "bench/bare_unicorn.h"

int main(int argc, char** argv) {
    if (argc != 2) {
        std::fputs("usage: bench_bare_unicorn firmware.elf\n", stderr);
        return 2;
    }
    try {
        std::printf("%.6f\n", emutrace::bench::run_bare_unicorn(emutrace::decode::ElfImage::load(argv[1]), false));
    } catch (const std::exception& e) {
        std::fprintf(stderr, "bench_bare_unicorn: %s\n", e.what());
        return 2;
    }
    return 0;
}
