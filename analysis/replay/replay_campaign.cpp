// Record/replay over a campaign's cases: how many replays reproduced their log (and in the same
// global order), which cases diverged, and how many recordings of how many events.
#include "analysis/replay/replay_campaign.h"

#include <cstdio>
#include <set>

#include "analysis/campaign_totals.h"
#include "report/html.h"
#include "report/json_fields.h"

namespace emutrace::analysis {
namespace {

using nlohmann::json;
using report::count_at;
using report::text_at;
using report::thousands;

constexpr std::size_t kShown = 50;

struct ReplayTotals {
    std::uint64_t replays = 0, reproduced = 0, same_global_order = 0, events = 0, events_reproduced = 0;
    std::uint64_t recordings = 0, recorded_events = 0;
    std::set<std::string> diverged;  ///< cases whose replay did not reproduce its log

    void add_case(const CampaignCase& c, const json& p) {
        ReplayTotals t;
        if (text_at(p, "mode") == "record") {
            t.recordings = 1;
            t.recorded_events = count_at(p, "events");
        } else {
            t.replays = 1;
            t.events = count_at(p, "events");
            t.events_reproduced = count_at(p, "reproduced");
            const json& divergence = member(p, "divergence");
            const bool reproduced = divergence.is_null() && t.events_reproduced == t.events;
            t.reproduced = reproduced;
            const json& order = member(p, "same_global_order");
            t.same_global_order = order.is_boolean() && order.get<bool>();
            if (!reproduced) t.diverged.insert(c.id);
        }
        merge(t);
    }
    void merge(const ReplayTotals& b) {
        using R = ReplayTotals;
        add_counts(*this, b, &R::replays, &R::reproduced, &R::same_global_order, &R::events, &R::events_reproduced, &R::recordings,
                   &R::recorded_events);
        diverged.insert(b.diverged.begin(), b.diverged.end());
    }
    json to_json() const {
        if (!replays && !recordings) return json::object();
        return {{"replay",
                 {{"replays", replays},
                  {"reproduced", reproduced},
                  {"diverged_cases", diverged},
                  {"same_global_order", same_global_order},
                  {"events", events},
                  {"events_reproduced", events_reproduced},
                  {"recordings", recordings},
                  {"recorded_events", recorded_events}}}};
    }
    std::string summary(bool) const;
};

std::string ReplayTotals::summary(bool) const {
    char line[256];
    std::string out;
    if (replays) {
        std::snprintf(line, sizeof line, "  replay        %llu of %llu replays reproduced their log (%llu in the same global order)%s\n",
                      static_cast<unsigned long long>(reproduced), static_cast<unsigned long long>(replays),
                      static_cast<unsigned long long>(same_global_order), diverged.empty() ? "" : "; diverged:");
        out += line;
        std::size_t shown = 0;
        for (const auto& id : diverged) {
            if (++shown > 10) {
                out += "    ... " + std::to_string(diverged.size() - 10) + " more\n";
                break;
            }
            out += "    " + id + "\n";
        }
    }
    if (recordings) {
        std::snprintf(line, sizeof line, "  recordings    %llu, %llu events\n", static_cast<unsigned long long>(recordings),
                      static_cast<unsigned long long>(recorded_events));
        out += line;
    }
    return out;
}

std::string replay_report(const json& merged) {
    const json& r = member(member(merged, "overall"), "replay");
    if (!r.is_object()) return {};
    std::string body = "<p>" + thousands(count_at(r, "reproduced")) + " of " + thousands(count_at(r, "replays")) + " replays reproduced their log (" +
                       thousands(count_at(r, "same_global_order")) + " in the same global order; " + thousands(count_at(r, "events_reproduced")) +
                       " of " + thousands(count_at(r, "events")) + " events); " + thousands(count_at(r, "recordings")) + " recordings of " +
                       thousands(count_at(r, "recorded_events")) + " events.</p>\n";
    const json& diverged = member(r, "diverged_cases");
    if (diverged.is_array() && !diverged.empty()) {
        body += "<ul class=\"diverged\">";
        std::size_t shown = 0;
        for (const auto& id : diverged)
            if (id.is_string() && shown++ < kShown) body += "<li><code>" + report::escape(id.get<std::string>()) + "</code> diverged</li>";
        body += "</ul>\n";
        if (diverged.size() > kShown)
            body +=
                "<p class=\"note\">&hellip; and " + thousands(diverged.size() - kShown) + " more (overall.replay.diverged_cases in the JSON).</p>\n";
    }
    return report::section("replay", "Replay over all cases", body);
}

}  // namespace

CampaignMerge replay_campaign() {
    return campaign_merge_of<ReplayTotals>(&replay_report);
}

}  // namespace emutrace::analysis
