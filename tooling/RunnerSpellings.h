// pte-run takes the flags of ExecuTorch's executor_runner
// (examples/portable/executor_runner, gflags: `--model_path=m.pte`,
// `-model_path m.pte`, `--inputs a.bin,b.bin`, `--num_executions 10`) as
// aliases of its own, and names pte-run's way for the ones it has no
// equivalent of, so that a user coming from upstream is not stopped by a
// spelling (docs/tools/pte-run.md#executorch-spellings).
#pragma once

#include <string>
#include <vector>

namespace ptec::tooling {

/// One executor_runner flag and what pte-run does with it.
struct RunnerSpelling {
  const char *theirs; ///< the gflags name, without dashes ("model_path")
  const char *ours;   ///< pte-run's spelling, "" when pte-run has none
  const char *what;   ///< for help: what it means, or what to use instead
  bool takesValue;
};

/// Every executor_runner flag pte-run knows.
const std::vector<RunnerSpelling> &runnerSpellings();

/// `args` (without the program name) with executor_runner's spellings
/// replaced by pte-run's: `--model_path=m.pte` becomes the positional
/// `m.pte`, `--inputs a,b` becomes `--input a --input b`, `--num_executions
/// 5` becomes `--repeat 5`, ... Anything else is kept as it is (after
/// "--", everything). False, with `error` set, for a flag pte-run has no
/// equivalent of ("--input_shapes: pte-run takes each input's shape from
/// its .npy file") or one missing its value.
bool translateRunnerSpellings(const std::vector<std::string> &args,
                              std::vector<std::string> *out, std::string *error);

} // namespace ptec::tooling
