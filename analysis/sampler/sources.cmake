# Sampling-based execution monitoring with markers (Thomas, Fischmeister, Kumar; LCTES 2011).
list(APPEND analysis_sources sampler/sampler_campaign.cpp sampler/sampling_graph.cpp sampler/marker_plan.cpp sampler/pair_search.cpp sampler/marker_scheme.cpp
     sampler/marker_planner.cpp sampler/cfg_generator.cpp sampler/code_graph.cpp sampler/path_reconstruction.cpp
     sampler/sampling_monitor.cpp sampler/sampler_analysis.cpp sampler/marker_header.cpp
     sampler/interval_checker.cpp sampler/marker_records.cpp sampler/firmware_sample_monitor.cpp sampler/marker_report.cpp)
