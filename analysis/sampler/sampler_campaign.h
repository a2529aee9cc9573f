#pragma once
// The sampler's part in a campaign: per function and scheme, the intervals' verdicts over every case.

#include "emutrace/analysis.h"

namespace emutrace::analysis {

CampaignMerge sampler_campaign();

}  // namespace emutrace::analysis
