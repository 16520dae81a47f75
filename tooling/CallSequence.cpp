// Call order, labels and file patterns of pte-run (see CallSequence.h).
#include "tooling/CallSequence.h"

namespace ptec::tooling {

namespace {
std::string replaceAll(std::string pattern, const std::string &key, const std::string &with) {
  for (size_t at = pattern.find(key); at != std::string::npos;
       at = pattern.find(key, at + with.size()))
    pattern.replace(at, key.size(), with);
  return pattern;
}
} // namespace

std::string forCall(std::string pattern, int call) {
  return replaceAll(std::move(pattern), "{call}", std::to_string(call));
}

std::string forMethod(std::string pattern, const std::string &method) {
  return replaceAll(std::move(pattern), "{method}", method);
}

std::vector<std::string> callSteps(const std::vector<std::string> &sequence,
                                   const std::string &method, int calls) {
  if (!sequence.empty())
    return sequence;
  return std::vector<std::string>(static_cast<size_t>(calls > 0 ? calls : 1), method);
}

std::string callLabel(size_t steps, bool bySequence, int call, const std::string &method) {
  if (steps <= 1)
    return "";
  return "call " + std::to_string(call) + " " + (bySequence ? method + " " : "");
}

std::string callFilePrefix(size_t steps, int call) {
  return steps > 1 ? "call" + std::to_string(call) + "_" : "";
}

bool parseStateSpec(const std::string &spec, std::string &name, std::string &file,
                    std::string &problem) {
  size_t eq = spec.find('=');
  if (eq == std::string::npos || eq == 0) {
    problem = "--expected-state '" + spec + "': expected NAME=FILE.npy";
    return false;
  }
  name = spec.substr(0, eq);
  file = spec.substr(eq + 1);
  return true;
}

} // namespace ptec::tooling
