# Record/replay over happens-before logs (Song and Lee, P-Replayer).
list(APPEND analysis_sources replay/replay_campaign.cpp replay/event_log.cpp replay/event_log_writer.cpp replay/event_linker.cpp replay/recorder.cpp replay/replayer.cpp replay/replay_config.cpp
     replay/replay_analysis.cpp replay/dump_log.cpp replay/log_translation.cpp replay/execution_times.cpp replay/time_report.cpp
     replay/race_detector.cpp replay/race_analysis.cpp)
