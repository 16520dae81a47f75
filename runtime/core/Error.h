// Error codes of the reference runtime. No exceptions anywhere in runtime/:
// every fallible call returns an Error or a Result<T>.
#pragma once

#include <cstdint>

namespace ptec::rt {

enum class [[nodiscard]] Error : uint32_t {
  Ok = 0,
  Internal,
  InvalidArgument,
  InvalidProgram,
  InvalidState,
  NotFound,
  NotSupported,
  NotImplemented,
  OperatorMissing,
  DelegateInvalidCompatibility,
  DelegateInvalidHandle,
  MemoryAllocationFailed,
  AccessFailed,
  OutOfResources,
};

/// Stable, human-readable name of an error code ("InvalidProgram").
inline const char *toString(Error e) {
  switch (e) {
  case Error::Ok: return "Ok";
  case Error::Internal: return "Internal";
  case Error::InvalidArgument: return "InvalidArgument";
  case Error::InvalidProgram: return "InvalidProgram";
  case Error::InvalidState: return "InvalidState";
  case Error::NotFound: return "NotFound";
  case Error::NotSupported: return "NotSupported";
  case Error::NotImplemented: return "NotImplemented";
  case Error::OperatorMissing: return "OperatorMissing";
  case Error::DelegateInvalidCompatibility: return "DelegateInvalidCompatibility";
  case Error::DelegateInvalidHandle: return "DelegateInvalidHandle";
  case Error::MemoryAllocationFailed: return "MemoryAllocationFailed";
  case Error::AccessFailed: return "AccessFailed";
  case Error::OutOfResources: return "OutOfResources";
  }
  return "Unknown";
}

} // namespace ptec::rt

/// Propagate a non-Ok Error from an expression returning Error.
#define PTEC_TRY(expr)                                                         \
  do {                                                                         \
    ::ptec::rt::Error ptec_err_ = (expr);                                      \
    if (ptec_err_ != ::ptec::rt::Error::Ok)                                    \
      return ptec_err_;                                                        \
  } while (0)
