// Which methods pte-run calls, in which order, and how each call names its
// files and lines: --sequence or --method --calls, "{call}" and "{method}"
// in file patterns, "call 1 decode output 0" labels, NAME=FILE specs of
// --expected-state.
#pragma once

#include <string>
#include <vector>

namespace ptec::tooling {

/// `pattern` with every "{call}" replaced by the call index.
std::string forCall(std::string pattern, int call);
/// `pattern` with every "{method}" replaced by the method's name.
std::string forMethod(std::string pattern, const std::string &method);

/// The methods to call in order: `sequence` when given, else `method`
/// `calls` times.
std::vector<std::string> callSteps(const std::vector<std::string> &sequence,
                                   const std::string &method, int calls);

/// What starts the lines of call `call`: "" for a single call, "call 2 "
/// for repeated calls of one method, "call 2 decode " for a sequence.
std::string callLabel(size_t steps, bool bySequence, int call, const std::string &method);
/// What starts the files of call `call`: "" for a single call, "call2_" else.
std::string callFilePrefix(size_t steps, int call);

/// Splits "NAME=FILE" (--expected-state); false when there is no '=' or no
/// name, with `problem` set.
bool parseStateSpec(const std::string &spec, std::string &name, std::string &file,
                    std::string &problem);

} // namespace ptec::tooling
