#pragma once
// The call tracer's part in a campaign (emutrace campaign): constraints and the profile over
// every case, a JUnit test case per constraint and case, and the report's sections.

#include "emutrace/analysis.h"

namespace emutrace::analysis {

CampaignMerge calltrace_campaign();

}  // namespace emutrace::analysis
