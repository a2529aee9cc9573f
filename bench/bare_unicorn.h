#pragma once
// Unicorn alone, as anyone would drive it: the ELF's segments in flash and SRAM, the reset
// vector, no hooks (or one empty block hook), run to the first BKPT. The baseline of bench_mips
// and bench_command.py.
#include "decode/elf_image.h"

namespace emutrace::bench {

/// CPU seconds of one run of `image` on bare Unicorn; with `block_hook`, an empty UC_HOOK_BLOCK
/// callback, which is Unicorn's own dispatch cost.
double run_bare_unicorn(const decode::ElfImage& image, bool block_hook);

}  // namespace emutrace::bench
