# Record/replay over happens-before logs (Song and Lee, P-Replayer).
list(APPEND analysis_sources replay/event_log.cpp replay/recorder.cpp replay/replay_analysis.cpp)
