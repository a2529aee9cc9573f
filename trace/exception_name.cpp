#include <array>

#include "emutrace/sink.h"

namespace emutrace::trace {

std::string exception_name(ExceptionModel model, std::uint32_t number) {
    if (model == ExceptionModel::PftA) {
        // PFT 1.1 branch address packet, exception field (PFT Architecture Specification, 4.5.2).
        static constexpr std::array<const char*, 16> kPft = {"no exception",       "Debug halt",      "SMC",   "Hyp",
                                                             "Asynchronous abort", "Jazelle/ThumbEE", nullptr, nullptr,
                                                             "Processor reset",    "Undefined",       "SVC",   "Prefetch abort",
                                                             "Data abort",         "Generic",         "IRQ",   "FIQ"};
        if (number < kPft.size() && kPft[number]) return kPft[number];
        return "exception " + std::to_string(number);
    }
    static constexpr std::array<const char*, 16> kM = {nullptr, "Reset", "NMI",   "HardFault", "MemManage",    "BusFault", "UsageFault", nullptr,
                                                       nullptr, nullptr, nullptr, "SVCall",    "DebugMonitor", nullptr,    "PendSV",     "SysTick"};
    if (number >= 16) return "IRQ" + std::to_string(number - 16);
    if (kM[number]) return kM[number];
    return "exception " + std::to_string(number);
}

}  // namespace emutrace::trace
