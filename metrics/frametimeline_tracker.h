// Turns successive FrameTimeline dumps of one device into app frames, each
// counted once with its final verdict.
//
// A dump holds SurfaceFlinger's newest 64 display frames; polls overlap, and
// times are relative to each dump's oldest frame, so a frame is known by its
// Token (the app's vsync id, growing) and Layer ID. A frame is final once it
// is dropped or presented and classified; one still waiting for its present
// fence is kept pending and counted when a later dump shows its verdict (or,
// unclassified, when it has left the window). A full dump that holds no frame
// seen before means frames went by unseen: an overflow. Tokens that start
// again below the newest seen mean SurfaceFlinger restarted.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "parsers/frametimeline.h"

namespace jank::metrics {

// Display frames FrameTimeline keeps (FrameTimeline.h kDefaultMaxDisplayFrames).
inline constexpr std::size_t kFrameTimelineDisplayFrames = 64;

struct FtFrame {
  std::string layer;
  std::int64_t token = -1;
  std::int64_t layer_id = -1;
  std::int64_t owner_pid = -1;
  std::uint32_t jank = 0;  // parsers::JankBit set; a dropped frame has kJankDropped on every version
  bool classified = true;  // false: left the window before SurfaceFlinger judged it
  // How much later than predicted it was presented (0: on time, or unknown):
  // on Android 12 a frame keeps the vsync id it was meant for, so a stalled
  // frame shows its stall here.
  std::int64_t late_ns = 0;
};

class FrameTimelineTracker {
 public:
  // The frames this dump made final (in dump order), then those that left the
  // window, or went with a restart, before SurfaceFlinger judged them.
  // `since_previous_ns`: an upper bound on the time between the previous
  // dump and this one (host time from the previous request to this answer),
  // when known. A full window without a frame seen before is an overflow
  // unless that time is shorter than the window can be: SurfaceFlinger
  // composes at most once a refresh period, so this dump's 64 display frames
  // span at least 64 of its shortest period, and reach back before the
  // previous dump: the apps drew nothing in between, nothing was missed.
  std::vector<FtFrame> observe(const parsers::FrameTimelineDump& dump,
                               std::optional<std::int64_t> since_previous_ns = std::nullopt);

  // FrameTimeline was not polled for a while on purpose (per-frame polling
  // paused): the next window may hold no frame seen before without that
  // being an overflow.
  void expect_gap() { gap_expected_ = true; }

  std::uint64_t overflows() const { return overflows_; }
  std::uint64_t restarts() const { return restarts_; }
  std::size_t pending() const { return pending_.size(); }

  // The frames seen inside the window and the counts, for the checkpoint: a
  // restarted exporter does not count again what the window still holds.
  void save(class StateWriter& w) const;
  bool load(class StateReader& r);
  static constexpr std::size_t kMaxSavedFrames = 16384;

 private:
  struct Key {
    std::int64_t token, layer_id;
    bool operator==(const Key&) const = default;
  };
  struct KeyHash {
    std::size_t operator()(const Key& k) const {
      return std::hash<std::int64_t>()(k.token) * 31u + std::hash<std::int64_t>()(k.layer_id);
    }
  };

  std::unordered_set<Key, KeyHash> counted_;  // final frames still inside the window
  std::unordered_map<Key, FtFrame, KeyHash> pending_;
  std::int64_t newest_token_ = -1;  // newest token seen (any state)
  bool gap_expected_ = false;       // not checkpointed: the session sets it again
  std::uint64_t overflows_ = 0;
  std::uint64_t restarts_ = 0;
};

}  // namespace jank::metrics
