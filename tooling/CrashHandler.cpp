// The tools' crash report (see CrashHandler.h). Everything the signal
// handler uses is prepared before a crash: fixed buffers, write(2), and a
// backtrace() warmed up at install time (its first call loads libgcc).
#include "tooling/CrashHandler.h"

#include "tooling/ExitCodes.h"

#include <algorithm>
#include <atomic>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <execinfo.h>
#include <stdexcept>
#include <unistd.h>

namespace ptec::tooling {

namespace {

char gTool[64] = "ptec";
char gContext[512] = "";
CrashStackPrinter gPrintStack = nullptr;
std::atomic<bool> gReporting{false};

constexpr int kFatalSignals[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTRAP, SIGSYS};

const char *signalText(int sig) {
  switch (sig) {
  case SIGSEGV: return "SIGSEGV: segmentation fault";
  case SIGBUS: return "SIGBUS: bus error";
  case SIGILL: return "SIGILL: illegal instruction";
  case SIGFPE: return "SIGFPE: arithmetic exception";
  case SIGABRT: return "SIGABRT: aborted";
  case SIGTRAP: return "SIGTRAP: trap";
  case SIGSYS: return "SIGSYS: bad system call";
  default: return "a fatal signal";
  }
}

void copyTo(char *dst, size_t cap, const char *src) {
  size_t n = std::min(std::strlen(src), cap - 1);
  std::memcpy(dst, src, n);
  dst[n] = '\0';
}

void put(const char *s) {
  size_t n = std::strlen(s);
  while (n > 0) {
    ssize_t w = ::write(STDERR_FILENO, s, n);
    if (w <= 0)
      return;
    s += w;
    n -= static_cast<size_t>(w);
  }
}

/// The headline into `buf` (async-signal-safe: no allocation).
void headline(int sig, const char *exceptionText, char *buf, size_t cap) {
  buf[0] = '\0';
  auto add = [&](const char *s) {
    size_t at = std::strlen(buf);
    copyTo(buf + at, cap - at, s);
  };
  add(gTool);
  add(": internal error: ");
  if (sig != 0) {
    add("crashed (");
    add(signalText(sig));
    add(")");
  } else {
    add("uncaught exception");
    if (exceptionText && *exceptionText) {
      add(" (");
      add(exceptionText);
      add(")");
    }
  }
  if (gContext[0]) {
    add(" while ");
    add(gContext);
  }
  add("\n");
}

[[noreturn]] void reportAndExit(int sig, const char *exceptionText) {
  // A second fault while reporting (a broken stack printer) ends at once.
  if (gReporting.exchange(true))
    ::_exit(kExitInternal);
  char line[1024];
  headline(sig, exceptionText, line, sizeof line);
  put(line);
  put(gTool);
  put(": note: this is a bug in ptec, not a problem with the input; please report it "
      "with this message and the stack below\n");
  if (gPrintStack) {
    gPrintStack();
  } else {
    void *frames[128];
    int n = ::backtrace(frames, 128);
    put("Stack:\n");
    ::backtrace_symbols_fd(frames, n, STDERR_FILENO);
  }
  ::_exit(kExitInternal);
}

/// The text of an uncaught exception std::terminate is ending the process
/// with ("" when the crash is a signal of its own).
char gException[256] = "";
std::atomic<bool> gTerminating{false};

void onSignal(int sig) {
  if (sig == SIGABRT && gTerminating.load())
    reportAndExit(0, gException);
  reportAndExit(sig, nullptr);
}

void onTerminate() {
  // Not in a signal handler: the exception's text may be read normally.
  if (std::exception_ptr e = std::current_exception()) {
    try {
      std::rethrow_exception(e);
    } catch (const std::exception &ex) {
      copyTo(gException, sizeof gException, ex.what());
    } catch (...) {
      copyTo(gException, sizeof gException, "not a std::exception");
    }
  }
  // The report comes from the SIGABRT handler, so that a process whose
  // handlers were reset (a forked probe that must die by its signal) still
  // dies as abort() would make it.
  gTerminating = true;
  std::abort();
}

void installAltStack() {
  // Room for the report (LLVM's symbolizing printer included) after a
  // stack overflow. Kept for the life of the process.
  stack_t current;
  if (::sigaltstack(nullptr, &current) == 0 && !(current.ss_flags & SS_DISABLE) &&
      current.ss_size >= (size_t(256) << 10))
    return;
  static constexpr size_t kSize = size_t(256) << 10;
  static char *memory = static_cast<char *>(std::malloc(kSize));
  if (!memory)
    return;
  stack_t alt{};
  alt.ss_sp = memory;
  alt.ss_size = kSize;
  ::sigaltstack(&alt, nullptr);
}

[[gnu::noinline]] int recurse(volatile int depth) {
  volatile char pad[1024];
  pad[0] = static_cast<char>(depth);
  return recurse(depth + 1) + pad[0];
}

} // namespace

void installCrashHandler(const char *tool, CrashStackPrinter printStack) {
  copyTo(gTool, sizeof gTool, tool);
  gPrintStack = printStack;
  if (!printStack) {
    void *warm[2];
    (void)::backtrace(warm, 2);
  }
  installAltStack();
  struct sigaction sa{};
  sa.sa_handler = onSignal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_ONSTACK | SA_NODEFER | SA_RESETHAND;
  for (int sig : kFatalSignals)
    ::sigaction(sig, &sa, nullptr);
  std::set_terminate(onTerminate);
}

void setCrashContext(const std::string &context) {
  copyTo(gContext, sizeof gContext, context.c_str());
}

std::string crashHeadline(int signal) {
  char line[1024];
  headline(signal, nullptr, line, sizeof line);
  return line;
}

// A real invalid store, not one UBSan reports and aborts on first (the
// ASan+UBSan tree runs crash-handler.test too, and must see the SIGSEGV path).
__attribute__((no_sanitize("undefined"))) void crashIfAsked() {
  const char *what = std::getenv("PTEC_DEBUG_CRASH");
  if (!what)
    return;
  std::string kind = what;
  if (kind == "segv") {
    static int *volatile nowhere = nullptr;
    *nowhere = 1;
  } else if (kind == "abort") {
    std::abort();
  } else if (kind == "throw") {
    throw std::runtime_error("PTEC_DEBUG_CRASH=throw");
  } else if (kind == "stack-overflow") {
    (void)recurse(0);
  }
}

} // namespace ptec::tooling
