//===- OpSupport.h - what ptec does with each operator ----------*- C++ -*-===//
//
// One answer per operator name, from the same tables the compiler uses: the
// legalization rules (legalize-to-core-aten), the portable kernels
// (to-out-variants), the functional forms of in-place and out= ops
// (functionalize) and the operators refused outright
// (dialects/exir/schema/Unsupported.h). `aot-compile --list-ops` prints it;
// test/conformance/check_training_ops.py holds it against torch's list of
// the ops a saved training-IR graph may contain.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"

#include <string>
#include <vector>

namespace ptec {

enum class OpStatus {
  Legalized, ///< legalize-to-core-aten rewrites it (maybe refusing some arguments)
  Kernel,    ///< runs as is: its out= form has a portable kernel
  Refused,   ///< refused outright, with a reason
  Missing,   ///< none of the above: refused as "not supported yet"
};

struct OpSupport {
  OpStatus status = OpStatus::Missing;
  /// Legalized: "rule"; Kernel: the kernel ("aten::add.out"); Refused: the
  /// reason; Missing: what is lacking. In-place and out= forms say which
  /// functional form they are handled as.
  std::string detail;
};

/// What ptec does with `name` ("aten::pad", "aten::add_.Tensor").
OpSupport opSupport(llvm::StringRef name);

/// "legalized", "kernel", "refused", "missing".
llvm::StringRef statusName(OpStatus s);

/// `aot-compile --list-ops`: "<op>\t<status>\t<detail>" for each of
/// `names`, or for every known operator (sorted) when `names` is empty.
void printOperatorSupport(llvm::raw_ostream &os, const std::vector<std::string> &names = {});

/// Every operator name ptec knows of (the schema registry, the legalization
/// rules, the refusal table), sorted.
std::vector<std::string> knownOperators();

} // namespace ptec
