#include "common/row_fields.hpp"

#include <mutex>

namespace tb {
namespace {
std::mutex g_mutex;
std::map<std::string, std::map<std::string, std::string>> g_fields;
}  // namespace

void set_row_field(const std::string& name, const std::string& key, const std::string& value) {
  const std::lock_guard lock(g_mutex);
  g_fields[name][key] = value;
}

const std::map<std::string, std::map<std::string, std::string>>& row_fields() { return g_fields; }

}  // namespace tb
