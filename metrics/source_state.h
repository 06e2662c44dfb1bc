// A device's state per data source, kept without the device knowing the
// sources: one slot per registered source (metrics/source.h), filled when
// the source first records something on the device.
#pragma once

#include <cstddef>
#include <memory>
#include <vector>

namespace jank::metrics {

class SourceState {
 public:
  virtual ~SourceState() = default;
};

class SourceStates {
 public:
  SourceState* find(std::size_t slot) const { return slot < slots_.size() ? slots_[slot].get() : nullptr; }
  void put(std::size_t slot, std::unique_ptr<SourceState> state) {
    if (slot >= slots_.size()) slots_.resize(slot + 1);
    slots_[slot] = std::move(state);
  }
  // The slot's state as the source's own type, made on first use; the
  // casts of every source, once.
  template <class State>
  State& get(std::size_t slot) {
    if (SourceState* s = find(slot)) return static_cast<State&>(*s);
    auto made = std::make_unique<State>();
    State& out = *made;
    put(slot, std::move(made));
    return out;
  }
  // Null until the source recorded something there.
  template <class State>
  State* find_as(std::size_t slot) const {
    return static_cast<State*>(find(slot));
  }
  void clear(std::size_t slot) {
    if (slot < slots_.size()) slots_[slot].reset();
  }

 private:
  std::vector<std::unique_ptr<SourceState>> slots_;
};

}  // namespace jank::metrics
