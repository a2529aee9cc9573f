#pragma once
// Record/replay's part in a campaign: replays that reproduced their log, and recordings, over every case.

#include "emutrace/analysis.h"

namespace emutrace::analysis {

CampaignMerge replay_campaign();

}  // namespace emutrace::analysis
