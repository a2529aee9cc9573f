# Timing constraints over call-trace events (used by the calltrace analysis).
list(APPEND analysis_sources constraints/constraint_checker.cpp)
