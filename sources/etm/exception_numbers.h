#pragma once
// How ETMv3 numbers an M-profile core's exceptions (the ETM Architecture's Exception[8:0]
// encoding, which OpenCSD and sigrok decode), against the architectural numbers the event model
// uses: IRQ0 is 8, IRQ1-7 are 1-7, NMI and the faults have numbers of their own, and from IRQ8 on
// the architectural number (16 + n) is kept.

#include <cstdint>

namespace emutrace::decode {

inline std::uint32_t etm_exception_number(std::uint32_t architectural) {
    switch (architectural) {
        case 1: return 17;  // Reset
        case 2: return 10;  // NMI
        case 3: return 19;  // HardFault
        case 4: return 13;  // MemManage
        case 5: return 21;  // BusFault
        case 6: return 9;   // UsageFault
        case 16: return 8;  // IRQ0
        default: return architectural >= 17 && architectural <= 23 ? architectural - 16 : architectural;
    }
}

inline std::uint32_t architectural_exception(std::uint32_t etm) {
    switch (etm) {
        case 17: return 1;
        case 10: return 2;
        case 19: return 3;
        case 13: return 4;
        case 21: return 5;
        case 9: return 6;
        case 8: return 16;
        default: return etm >= 1 && etm <= 7 ? etm + 16 : etm;
    }
}

}  // namespace emutrace::decode
