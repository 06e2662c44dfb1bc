// What a data source exports, said without any exposition format: the
// declaration of each metric family (name, type, unit, help, labels) and the
// sink a source writes its series into when asked. The exporters implement
// the sink (the text formats, prometheus-cpp families); sources never see
// Prometheus text, and the exporters never see a source's state.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "metrics/histogram.h"
#include "metrics/trace_status.h"
#include "parsers/time_units.h"

namespace jank::metrics {

enum class FamilyType : std::uint8_t { counter, gauge, histogram };
std::string_view family_type_name(FamilyType type);

// Which series profile a family belongs to (docs/metrics.md, "Series
// budget"): every family is in the default profile unless it is one of the
// detailed groups, each of which an operator turns on by name
// (series.detailed). The detailed groups split what the default already
// counts finer (per stage, per window, per cause) or give secondary
// distributions; no shipped rule or farm panel reads them.
enum class SeriesGroup : std::uint8_t {
  core,           // the default profile
  stages,         // per rendering stage (framestats, HWUI profile, FrameTimeline's joined rows)
  windows,        // per window of an app (gfxinfo window sections, FrameTimeline per activity)
  distributions,  // secondary distributions: GPU time, skip sizes, Davey durations, gfxinfo's own percentiles
  jank_types,     // per jank cause of gfxinfo and TimeStats (FrameTimeline's per type stay core: the rules read them)
};
inline constexpr std::size_t kSeriesGroups = 5;
std::string_view series_group_name(SeriesGroup group);
// The group named `name` (as series_group_name spells it), if any.
std::optional<SeriesGroup> series_group_named(std::string_view name);

// One metric family, declared once by whoever owns its series.
struct FamilySpec {
  std::string_view name;
  FamilyType type;
  std::string_view unit;    // base unit named in the family name ("seconds", "frames"), or ""
  std::string_view help;
  std::string_view labels;  // label names in series order, comma-separated ("" for none)
  SeriesGroup group = SeriesGroup::core;
};

struct Label {
  std::string name;
  std::string value;
};

// Labels shared by many series (a device's, a package's). Made by the sink
// (SeriesSink::labels), which renders them once for all the series that use
// them: `text` is the sink's rendering, `list` the repaired values.
class LabelSet {
 public:
  LabelSet(std::vector<Label> list, std::string text) : list_(std::move(list)), text_(std::move(text)) {}
  const std::vector<Label>& list() const { return list_; }
  const std::string& text() const { return text_; }

 private:
  std::vector<Label> list_;
  std::string text_;
};

// One more label for a single series (result, reason, cause, stage, …): a
// fixed ASCII name and value chosen by the source.
struct Extra {
  std::string_view name;
  std::string_view value;
};

// Receives every series in collection order.
class SeriesSink {
 public:
  virtual ~SeriesSink() = default;

  virtual LabelSet labels(std::vector<Label> list) const = 0;

  // The window SM is judged over for the device being collected: its
  // length (choreographer.sm_window_seconds), the span of it SM divides by
  // (the whole window, or in a replay the part the input covers, fractional)
  // and whether that span is exported. Set by the collector before each device.
  struct SmWindow {
    std::chrono::seconds length{60};
    parsers::units::Seconds span{60};
    bool span_exported = false;
  };
  const SmWindow& sm_window() const { return sm_window_; }
  void set_sm_window(const SmWindow& w) { sm_window_ = w; }
  // A counter or gauge, as `family` declares it.
  virtual void sample(const FamilySpec& family, const LabelSet& labels, const Extra* extra, double value) = 0;
  virtual void histogram(const FamilySpec& family, const LabelSet& labels, const Extra* extra, const Histogram& h) = 0;

  void sample(const FamilySpec& family, const LabelSet& labels, double v) { sample(family, labels, nullptr, v); }
  void sample(const FamilySpec& family, const LabelSet& labels, Extra extra, double v) {
    sample(family, labels, &extra, v);
  }
  void histogram(const FamilySpec& family, const LabelSet& labels, const Histogram& h) {
    histogram(family, labels, nullptr, h);
  }
  void histogram(const FamilySpec& family, const LabelSet& labels, Extra extra, const Histogram& h) {
    histogram(family, labels, &extra, h);
  }

  // A counter sample with the exemplar of its series (docs/traces.md), or
  // none (null: the common case, at the cost of a plain sample).
  void sample(const FamilySpec& family, const LabelSet& labels, double v, const TraceExemplar* exemplar) {
    if (exemplar == nullptr) {
      sample(family, labels, nullptr, v);
    } else {
      exemplar_sample(family, labels, v, *exemplar);
    }
  }

 protected:
  // Only OpenMetrics shows exemplars: any other sink writes the sample alone.
  virtual void exemplar_sample(const FamilySpec& family, const LabelSet& labels, double v, const TraceExemplar&) {
    sample(family, labels, nullptr, v);
  }

 private:
  SmWindow sm_window_;
};

// A count as a sample value.
inline double count_value(std::uint64_t n) { return static_cast<double>(n); }

}  // namespace jank::metrics
