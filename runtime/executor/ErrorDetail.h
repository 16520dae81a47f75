// Formatting of load-time error details: one line naming the field and index
// that is wrong. Used by Program and Method; load time only (may allocate).
#pragma once

#include "runtime/core/Error.h"

#include <cstdarg>
#include <cstdio>
#include <string>

namespace ptec::rt {

#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
inline Error failWith(std::string *detail, Error e, const char *fmt, ...) {
  if (detail != nullptr) {
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    std::vsnprintf(buf, sizeof(buf), fmt, ap);
    va_end(ap);
    *detail = buf;
  }
  return e;
}

} // namespace ptec::rt
