#include "emu/run_result.h"

namespace emutrace::emu {

std::string_view to_string(StopReason reason) {
    switch (reason) {
        case StopReason::Exited: return "exit";
        case StopReason::SymbolReached: return "symbol";
        case StopReason::MaxInstructions: return "max_instructions";
        case StopReason::WallClock: return "wall_clock";
        case StopReason::Hang: return "hang";
        case StopReason::Fault: return "fault";
        case StopReason::ResetRequested: return "reset_requested";
        case StopReason::Steered: return "steered";
        case StopReason::Interrupted: return "interrupted";
    }
    return "unknown";
}

std::string_view to_string(FaultKind kind) {
    switch (kind) {
        case FaultKind::UnmappedRead: return "unmapped_read";
        case FaultKind::UnmappedWrite: return "unmapped_write";
        case FaultKind::UnmappedFetch: return "unmapped_fetch";
        case FaultKind::WriteToReadOnly: return "write_to_read_only";
        case FaultKind::ReadProtected: return "read_protected";
        case FaultKind::FetchNotExecutable: return "fetch_not_executable";
        case FaultKind::UndefinedInstruction: return "undefined_instruction";
        case FaultKind::UnsupportedInstruction: return "unsupported_instruction";
        case FaultKind::UnclaimedMmio: return "unclaimed_mmio";
        case FaultKind::UnhandledException: return "unhandled_exception";
        case FaultKind::BadVectorTable: return "bad_vector_table";
        case FaultKind::Lockup: return "lockup";
        case FaultKind::Internal: return "internal";
    }
    return "unknown";
}

std::string_view describe(FaultKind kind) {
    switch (kind) {
        case FaultKind::UnmappedRead: return "read of unmapped memory";
        case FaultKind::UnmappedWrite: return "write to unmapped memory";
        case FaultKind::UnmappedFetch: return "instruction fetch from unmapped memory";
        case FaultKind::WriteToReadOnly: return "write to read-only memory";
        case FaultKind::ReadProtected: return "read of read-protected memory";
        case FaultKind::FetchNotExecutable: return "instruction fetch from non-executable memory";
        case FaultKind::UndefinedInstruction: return "undefined instruction";
        case FaultKind::UnsupportedInstruction: return "instruction the core does not implement";
        case FaultKind::UnclaimedMmio: return "MMIO access no device claims";
        case FaultKind::UnhandledException: return "unhandled exception";
        case FaultKind::BadVectorTable: return "bad vector table";
        case FaultKind::Lockup: return "lockup";
        case FaultKind::Internal: return "internal emulator error";
    }
    return "fault";
}

bool has_access_address(FaultKind kind) {
    return kind <= FaultKind::FetchNotExecutable || kind == FaultKind::UnclaimedMmio;
}

int exit_status(const RunResult& result) {
    switch (result.reason) {
        // A process status holds 0-255: a code beyond (256, 300, -1) is 255, never its low byte,
        // which would make 256 a success.
        case StopReason::Exited: return result.exit_code >= 0 && result.exit_code <= 255 ? result.exit_code : 255;
        case StopReason::SymbolReached: return 0;
        case StopReason::Fault: return 2;
        case StopReason::MaxInstructions: return 3;
        case StopReason::WallClock: return 4;
        case StopReason::Hang: return 5;
        case StopReason::ResetRequested: return 6;
        case StopReason::Steered: return 0;                           // the steering analysis's failures decide
        case StopReason::Interrupted: return 128 + result.exit_code;  // as the shell reports a process the signal ended
    }
    return 2;
}

}  // namespace emutrace::emu
