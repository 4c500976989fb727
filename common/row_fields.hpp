#pragma once
// Text fields of a results row beside Google Benchmark's numeric counters: which CPU ISA or
// library kernel ran a row (`cpu_isa`), its precision, ... main() writes them into each row of
// the results file when it completes it. Set from a benchmark's body for the row running now.
#include <map>
#include <string>

namespace tb {

// Sets `key` = `value` on the row registered as `name`.
void set_row_field(const std::string& name, const std::string& key, const std::string& value);
// The fields of every row that has some, by registered name.
const std::map<std::string, std::map<std::string, std::string>>& row_fields();

}  // namespace tb
