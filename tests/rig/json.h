// The tests' view of a JSON document (the simulator's ready file and ground
// truth, the exporter's and Prometheus's answers): parsed by nlohmann-json,
// held as a tree where an absent key or index reads as null (0, "", false),
// so a test can walk a document it is checking without a guard at each step.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace jank::rig {

struct Json {
  enum class Type { null, boolean, number, string, array, object } type = Type::null;
  bool b = false;
  double num = 0;
  std::string str;
  std::vector<Json> arr;
  std::map<std::string, Json> obj;

  const Json& operator[](std::string_view key) const;  // null Json when absent
  const Json& operator[](std::size_t i) const;
  std::int64_t integer() const { return static_cast<std::int64_t>(num); }
  std::uint64_t u64() const { return static_cast<std::uint64_t>(num); }
  std::size_t size() const { return type == Type::array ? arr.size() : obj.size(); }
};

// nullopt when `text` is not one JSON document.
std::optional<Json> parse_json(std::string_view text);

}  // namespace jank::rig
