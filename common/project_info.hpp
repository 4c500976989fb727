#pragma once
// The project a twinbench program belongs to (the suite itself, or a project of its own built
// with twinbench_add_benchmark): recorded in the run context beside twinbench's version, so that
// a results file says whose code it measured.
#include <string>

namespace tb {

struct ProjectInfo {
  std::string name;      // "" when the program was not built with twinbench_add_benchmark
  std::string version;
  std::string revision;  // git describe of the project's source tree at build time
};

bool set_project_info(ProjectInfo info);
const ProjectInfo& project_info();

}  // namespace tb
