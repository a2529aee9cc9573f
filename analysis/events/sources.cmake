# The event stream as JSON Lines (--events): the event_log analysis row.
list(APPEND analysis_sources events/event_log_writer.cpp events/event_log_analysis.cpp)
