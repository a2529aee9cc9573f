# Loop-context WCET: trace points, aggregation, IPET with GLPK, soundness check; the wcet analysis row.
list(APPEND analysis_sources wcet/wcet_campaign.cpp wcet/call_context.cpp wcet/ipet.cpp wcet/trace_points.cpp wcet/loop_context.cpp wcet/block_statistics.cpp
     wcet/wcet_aggregator.cpp wcet/wcet_bound.cpp wcet/recursion.cpp wcet/path_counts.cpp wcet/recursion_counter.cpp wcet/call_times.cpp wcet/soundness_check.cpp wcet/wcet_config.cpp wcet/flow_facts.cpp
     wcet/wcet_session.cpp wcet/wcet_analysis.cpp wcet/wcet_report.cpp)
list(APPEND analysis_libraries emutrace_dep::glpk)
