#include "common/project_info.hpp"

#include <utility>

namespace tb {
namespace {

ProjectInfo& stored() {
  static ProjectInfo info;
  return info;
}

}  // namespace

bool set_project_info(ProjectInfo info) {
  stored() = std::move(info);
  return true;
}

const ProjectInfo& project_info() { return stored(); }

}  // namespace tb
