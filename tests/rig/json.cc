#include "tests/rig/json.h"

#include <nlohmann/json.hpp>

namespace jank::rig {
namespace {

const Json kNull{};

// nlohmann's value as the rig's tree (absent keys and indices read as null).
Json from(const nlohmann::json& v) {
  Json j;
  switch (v.type()) {
    case nlohmann::json::value_t::null:
    case nlohmann::json::value_t::discarded:
      break;
    case nlohmann::json::value_t::boolean:
      j.type = Json::Type::boolean;
      j.b = v.get<bool>();
      break;
    case nlohmann::json::value_t::number_integer:
    case nlohmann::json::value_t::number_unsigned:
    case nlohmann::json::value_t::number_float:
      j.type = Json::Type::number;
      j.num = v.get<double>();
      break;
    case nlohmann::json::value_t::string:
      j.type = Json::Type::string;
      j.str = v.get<std::string>();
      break;
    case nlohmann::json::value_t::array:
      j.type = Json::Type::array;
      j.arr.reserve(v.size());
      for (const auto& e : v) j.arr.push_back(from(e));
      break;
    case nlohmann::json::value_t::object:
      j.type = Json::Type::object;
      for (const auto& [k, e] : v.items()) j.obj.emplace(k, from(e));
      break;
    case nlohmann::json::value_t::binary:
      break;
  }
  return j;
}

}  // namespace

const Json& Json::operator[](std::string_view key) const {
  auto it = obj.find(std::string(key));
  return it == obj.end() ? kNull : it->second;
}

const Json& Json::operator[](std::size_t idx) const { return idx < arr.size() ? arr[idx] : kNull; }

std::optional<Json> parse_json(std::string_view text) {
  const auto doc = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded()) return std::nullopt;
  return from(doc);
}

}  // namespace jank::rig
