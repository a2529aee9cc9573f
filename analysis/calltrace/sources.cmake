# Function entry/exit tracer, profile, compact trace, and the calltrace analysis row.
list(APPEND analysis_sources calltrace/calltrace_campaign.cpp calltrace/call_tracer.cpp calltrace/profile.cpp calltrace/compact_trace.cpp
     calltrace/calltrace_config.cpp calltrace/calltrace_analysis.cpp calltrace/call_path_tree.cpp calltrace/call_timeline.cpp
     calltrace/calltrace_report.cpp)
