# Trace writers: event log, Perfetto, PFT; the pft and event_log analysis rows.
list(APPEND analysis_sources writers/event_log_writer.cpp writers/event_log_analysis.cpp writers/perfetto_writer.cpp
     writers/pft_writer.cpp writers/pft_analysis.cpp)
