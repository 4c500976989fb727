// twinbench::main: the main() of a program that is only its workloads (the suite, or a project's
// own bench files): everything else is twinbench's command line (common/run_main.hpp).
#include "common/run_main.hpp"

int main(int argc, char** argv) { return tb::run_main(argc, argv); }
