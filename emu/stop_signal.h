#pragma once
// A stop asked of the process from outside (SIGINT, SIGTERM): a run ends at its machine's next
// limit check, as at the wall-clock limit, so that what was traced so far is still written and
// the outputs are whole. Process-wide, as a signal is.

namespace emutrace::emu {

/// Installs the handlers: the first SIGINT or SIGTERM asks for the stop (and says so on stderr); a
/// second one ends the process at once, as it would have without them.
void catch_stop_signals();
/// The signal that asked for the stop, or 0.
int stop_signal();

}  // namespace emutrace::emu
