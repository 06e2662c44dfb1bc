#include "metrics/series.h"

namespace jank::metrics {

std::string_view family_type_name(FamilyType type) {
  switch (type) {
    case FamilyType::counter: return "counter";
    case FamilyType::gauge: return "gauge";
    case FamilyType::histogram: return "histogram";
  }
  return "untyped";
}

}  // namespace jank::metrics
