// A device's series as its series budget lets them through (the collector's
// part of exporters/series_budget.h): series of groups the budget leaves out,
// and every series of a part (exporters::SeriesSink::begin_part) the plan
// drops, go nowhere; the rest go on to the sink behind, counted per part.
#pragma once

#include <cstddef>
#include <vector>

#include "exporters/prometheus_collector.h"
#include "exporters/series_budget.h"

namespace jank::exporters {

class BudgetedSink final : public SeriesSink {
 public:
  using SeriesSink::histogram;
  using SeriesSink::sample;

  // `keep`, when not empty, says per part whether it is written at all.
  BudgetedSink(SeriesSink& out, const SeriesBudget& budget, std::vector<bool> keep = {})
      : out_(out), budget_(budget), keep_(std::move(keep)) {}

  void sample(const FamilySpec& spec, const LabelSet& labels, const Extra* extra, double value) override {
    if (admit(spec, 1)) out_.sample(spec, labels, extra, value);
  }
  void histogram(const FamilySpec& spec, const LabelSet& labels, const Extra* extra,
                 const metrics::Histogram& h) override {
    if (admit(spec, series_written(h))) out_.histogram(spec, labels, extra, h);
  }
  LabelSet labels(std::vector<metrics::Label> list) const override { return out_.labels(std::move(list)); }
  void mark(Mark& m) const override { out_.mark(m); }
  void rollback(const Mark& m) override { out_.rollback(m); }
  void begin_part(std::size_t part) override {
    part_ = part;
    if (core_.size() <= part) core_.resize(part + 1, 0);  // parts come in order: one more each time
  }

  // Series written, and of them the default profile's per part.
  std::size_t written() const { return written_; }
  const std::vector<std::size_t>& core_per_part() const { return core_; }

 protected:
  void exemplar_sample(const FamilySpec& spec, const LabelSet& labels, double value,
                       const metrics::TraceExemplar& exemplar) override {
    if (admit(spec, 1)) out_.sample(spec, labels, value, &exemplar);
  }

 private:
  bool admit(const FamilySpec& spec, std::size_t series) {
    if (!budget_.exports(spec.group)) return false;
    if (part_ < keep_.size() && !keep_[part_]) return false;
    written_ += series;
    if (spec.group == metrics::SeriesGroup::core) core_[part_] += series;
    return true;
  }

  SeriesSink& out_;
  const SeriesBudget& budget_;
  std::vector<bool> keep_;
  std::size_t part_ = 0;
  std::size_t written_ = 0;
  std::vector<std::size_t> core_ = std::vector<std::size_t>(1, 0);  // part 0, the device's own, is never begun
};

}  // namespace jank::exporters
