// executor_runner's flags in pte-run (see RunnerSpellings.h).
#include "tooling/RunnerSpellings.h"

#include <cstring>

namespace ptec::tooling {

const std::vector<RunnerSpelling> &runnerSpellings() {
  static const std::vector<RunnerSpelling> spellings = {
      {"model_path", "MODEL.pte", "pte-run's first argument", true},
      {"data_path", "--data", "the .ptd with the program's external weights", true},
      {"inputs", "--input", "comma-separated input files: one --input each", true},
      {"method_name", "--method", "the method to run", true},
      {"num_executions", "--repeat", "how many times to run it", true},
      {"cpu_threads", "--xnnpack-threads", "threads of the XNNPACK backend (-1: the default)",
       true},
      {"bundleio_rtol", "--rtol", "relative tolerance of the comparison", true},
      {"bundleio_atol", "--atol", "absolute tolerance of the comparison", true},
      {"output_file", "",
       "pte-run writes each output as an .npy file into a folder: --output-dir DIR", true},
      {"print_output", "",
       "pte-run prints a summary of every output; --output-dir DIR writes them whole", true},
      {"input_shapes", "",
       "pte-run takes each input's shape from its .npy file (--input x.npy): any shape up "
       "to the input's bound",
       true},
      {"etdump_path", "",
       "pte-run has no ETDump: --profile times every instruction, --json writes the timings",
       true},
      {"bundled_program_path", "",
       "ptec's tools do not read bundled programs: give the .pte with --input and --expected "
       "files",
       true},
      {"server_mode", "", "pte-run runs the calls given on its command line (--calls, --sequence)",
       false},
  };
  return spellings;
}

namespace {

/// The spelling `arg` names ("--model_path", "-model_path=x"), or null.
const RunnerSpelling *spellingOf(const std::string &arg, std::string *value, bool *attached) {
  size_t dashes = arg.rfind("--", 0) == 0 ? 2 : arg.rfind('-', 0) == 0 ? 1 : 0;
  if (dashes == 0)
    return nullptr;
  std::string name = arg.substr(dashes);
  size_t eq = name.find('=');
  *attached = eq != std::string::npos;
  if (*attached) {
    *value = name.substr(eq + 1);
    name = name.substr(0, eq);
  }
  // gflags' negation of a boolean: --noserver_mode.
  for (const RunnerSpelling &s : runnerSpellings())
    if (name == s.theirs || (!s.takesValue && name == std::string("no") + s.theirs))
      return &s;
  return nullptr;
}

} // namespace

bool translateRunnerSpellings(const std::vector<std::string> &args,
                              std::vector<std::string> *out, std::string *error) {
  out->clear();
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string &arg = args[i];
    if (arg == "--") {
      out->insert(out->end(), args.begin() + static_cast<long>(i), args.end());
      return true;
    }
    std::string value;
    bool attached = false;
    const RunnerSpelling *s = spellingOf(arg, &value, &attached);
    if (!s) {
      out->push_back(arg);
      continue;
    }
    std::string theirs = std::string("--") + s->theirs;
    if (!*s->ours) {
      *error = theirs + " is executor_runner's; " + s->what;
      return false;
    }
    if (s->takesValue && !attached) {
      if (i + 1 >= args.size()) {
        *error = theirs + " (executor_runner's " + s->ours + ") needs a value";
        return false;
      }
      value = args[++i];
    }
    const std::string ours = s->ours;
    if (ours == "MODEL.pte") {
      out->push_back(value);
    } else if (ours == "--input") {
      // One file each; gflags' list is comma-separated.
      size_t start = 0;
      while (true) {
        size_t comma = value.find(',', start);
        out->push_back("--input");
        out->push_back(value.substr(start, comma - start));
        if (comma == std::string::npos)
          break;
        start = comma + 1;
      }
    } else if (ours == "--xnnpack-threads" && value == "-1") {
      // executor_runner's "choose for me": pte-run's default.
    } else {
      out->push_back(ours);
      out->push_back(value);
    }
  }
  return true;
}

} // namespace ptec::tooling
