#pragma once
// The WCET analysis's part in a campaign: each case's bound and longest run over every case, and
// per run entry one bound from every case's loop-context statistics merged.

#include "emutrace/analysis.h"

namespace emutrace::analysis {

CampaignMerge wcet_campaign();

}  // namespace emutrace::analysis
