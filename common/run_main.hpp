#pragma once
// twinbench's command line: parses the flags, registers the workloads linked into the program
// (the suite's, or a project's own), measures the ceilings, runs every selected row and writes
// the results. twinbench::main is a main() that calls it; a program with a main() of its own
// calls it from there. Exit statuses: docs/command-line.md.
namespace tb {

int run_main(int argc, char** argv);

}  // namespace tb
