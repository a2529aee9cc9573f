#pragma once
// Coverage's part in a campaign: per firmware, what ran in any case.

#include "emutrace/analysis.h"

namespace emutrace::analysis {

CampaignMerge coverage_campaign();

}  // namespace emutrace::analysis
