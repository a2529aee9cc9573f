# Program flow and per-function counts of a capture against an emulated run (emutrace crosscheck).
list(APPEND analysis_sources crosscheck/program_flow.cpp crosscheck/function_profile.cpp crosscheck/run_comparison.cpp crosscheck/call_comparison.cpp
     crosscheck/comparison_report.cpp crosscheck/sample_profile.cpp)
