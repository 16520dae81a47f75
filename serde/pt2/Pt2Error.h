// Internal: the one exception type the reader throws inside its .cpp files.
// The public API (Pt2Reader.h) catches it and returns a ReadError instead.
#ifndef PTEC_SERDE_PT2_PT2ERROR_H
#define PTEC_SERDE_PT2_PT2ERROR_H

#include <stdexcept>
#include <string>

namespace ptec::pt2 {

class Pt2Error : public std::runtime_error {
public:
  explicit Pt2Error(const std::string &message) : std::runtime_error(message) {}
};

[[noreturn]] inline void fail(const std::string &message) { throw Pt2Error(message); }

}  // namespace ptec::pt2

#endif  // PTEC_SERDE_PT2_PT2ERROR_H
