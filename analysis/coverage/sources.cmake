# Which functions and basic blocks a run executed (--coverage); a campaign merges it over its cases.
list(APPEND analysis_sources coverage/coverage_campaign.cpp coverage/block_coverage.cpp coverage/coverage_analysis.cpp)
