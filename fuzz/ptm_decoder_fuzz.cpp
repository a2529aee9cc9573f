// libFuzzer target: arbitrary bytes as a PTM trace stream must never crash the decoder.
// Build: cmake -B build-fuzz -DCMAKE_CXX_COMPILER=clang++ -DEMUTRACE_BUILD_FUZZERS=ON
//        cmake --build build-fuzz --target ptm_decoder_fuzz && build-fuzz/fuzz/ptm_decoder_fuzz -detect_leaks=0 CORPUS
// -detect_leaks=0: OpenCSD 1.3.3's C API never frees the callback object ocsd_dt_set_gen_elem_outfn
// allocates (32 bytes per decode tree), which LeakSanitizer would report at exit.
#include <cstddef>
#include <cstdint>

#include "sources/ptm/capture_decoder.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    emutrace::decode::decode_ptm_bytes(data, size);
    return 0;
}
