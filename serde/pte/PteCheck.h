// pte-inspect --check: every rule of the .pte format spec (header and file
// size, segments, constants, mutable data, delegates, required fields, values,
// tensors, instructions, the KernelCall argument convention) run over a file,
// listing each violation instead of stopping at the first. The rule ids,
// severities and locations are the same as test/conformance/pte_check.py's,
// an independent Python implementation; docs/tools/pte-inspect.md lists them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace ptec::pte {

struct Violation {
  enum class Severity { Error, Warning };
  Severity severity = Severity::Error;
  std::string rule;    ///< e.g. "kernel.arg-count"
  std::string where;   ///< e.g. "execution_plan[0].chains[0].instructions[3]"
  std::string message; ///< what is wrong, with the numbers
};

/// Every violation in the file's bytes. Each (rule, where) is reported once.
/// Never trusts the file: a malformed flatbuffer is one violation
/// (flatbuffer.verify) and ends the check.
std::vector<Violation> checkPte(const uint8_t *data, size_t size);

/// "FILE: error: [rule] where: message" lines and a closing count line
/// ("FILE: ok" when clean). Returns the number of errors.
size_t formatViolations(const std::string &file, const std::vector<Violation> &v,
                        std::string *out);

} // namespace ptec::pte
