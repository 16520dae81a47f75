//===- GuardedParse.cpp - parse saved IR without trusting it --------------===//

#include "dialects/exir/IR/GuardedParse.h"

#include "mlir/Bytecode/BytecodeImplementation.h"
#include "mlir/Bytecode/BytecodeReaderConfig.h"
#include "mlir/IR/AsmState.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Location.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdint>
#include <cstdio>

#if defined(__unix__)
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#define PTEC_HAVE_FORK_PROBE 1
#endif


using namespace mlir;

namespace ptec::exir {

bool isMlirBytecode(llvm::StringRef bytes) {
  return bytes.starts_with("ML\xefR");
}

LogicalResult checkTextNesting(llvm::StringRef text, llvm::StringRef name,
                               MLIRContext &ctx) {
  unsigned depth = 0, line = 1;
  size_t lineStart = 0;
  for (size_t i = 0, e = text.size(); i < e; ++i) {
    char c = text[i];
    switch (c) {
    case '\n':
      ++line;
      lineStart = i + 1;
      break;
    case '"': { // a string: to its closing quote, over escapes, as MLIR lexes it
      size_t open = i;
      for (++i; i < e && text[i] != '"' && text[i] != '\n'; ++i)
        if (text[i] == '\\')
          ++i;
      if (i >= e)
        // MLIR 19's lexer steps past the end of the buffer after this error
        // and reads on (a fuzz finding: SEGV in Lexer::lexToken).
        return emitError(FileLineColLoc::get(&ctx, name, line,
                                             static_cast<unsigned>(open - lineStart + 1)))
               << "a string runs to the end of the file (no closing quote)";
      if (text[i] == '\n') { // MLIR reports it; the scan goes on at the next line
        ++line;
        lineStart = i + 1;
      }
      break;
    }
    case '/': // a comment runs to the end of the line
      if (i + 1 < e && text[i + 1] == '/')
        while (i + 1 < e && text[i + 1] != '\n')
          ++i;
      break;
    case '-': // "->" in function types closes nothing
      if (i + 1 < e && text[i + 1] == '>')
        ++i;
      break;
    case '(':
    case '[':
    case '{':
    case '<':
      if (++depth > kMaxIrNesting)
        return emitError(FileLineColLoc::get(&ctx, name, line,
                                             static_cast<unsigned>(i - lineStart + 1)))
               << "brackets nest deeper than " << kMaxIrNesting
               << " levels; this is not IR ptec wrote (refused before parsing, "
                  "which would recurse once per level)";
      break;
    case ')':
    case ']':
    case '}':
    case '>':
      // Unbalanced closers are the parser's to report; never go below 0.
      if (depth > 0)
        --depth;
      break;
    default:
      break;
    }
  }
  return success();
}

namespace {

/// Checks, on every custom-encoded attribute or type the bytecode reader
/// starts, how much stack the parse has used. Every cycle between entries
/// passes through such a read, so a cyclic file is refused here instead of
/// recursing until the stack runs out. Returning success with no value lets
/// the dialect's own reader go on.
struct StackBudget {
  uintptr_t start;

  template <typename T>
  LogicalResult check(DialectBytecodeReader &reader, llvm::StringRef dialect,
                      T &) const {
    auto here = reinterpret_cast<uintptr_t>(__builtin_frame_address(0));
    // The stack grows down on every target we build for.
    if (start > here && start - here > kBytecodeStackBudget)
      return reader.emitError()
             << "attributes or types nest too deeply (or refer to themselves) "
                "while reading a '"
             << dialect << "' entry; the bytecode is damaged or not written "
                           "by ptec";
    return success();
  }
};

} // namespace

/// Parses bytecode with the stack budget on every attribute and type entry.
static OwningOpRef<ModuleOp> parseBytecode(llvm::SourceMgr &sourceMgr,
                                           MLIRContext &ctx) {
  ParserConfig config(&ctx);
  StackBudget budget{reinterpret_cast<uintptr_t>(__builtin_frame_address(0))};
  BytecodeReaderConfig &bytecode = config.getBytecodeReaderConfig();
  bytecode.attachAttributeCallback(
      [budget](DialectBytecodeReader &reader, llvm::StringRef dialect,
               Attribute &attr) { return budget.check(reader, dialect, attr); });
  bytecode.attachTypeCallback(
      [budget](DialectBytecodeReader &reader, llvm::StringRef dialect, Type &type) {
        return budget.check(reader, dialect, type);
      });
  return parseSourceFile<ModuleOp>(sourceMgr, config);
}

#if PTEC_HAVE_FORK_PROBE
// Present in sanitizer builds only; libFuzzer records a crash through it.
extern "C" void __sanitizer_set_death_callback(void (*callback)(void))
    __attribute__((weak));
#endif

namespace {
enum class Probe { Parsed, Refused, Crashed, Unavailable };
} // namespace

/// MLIR 19's bytecode reader trusts the counts and sizes in the file (a
/// mutated count became a multi-terabyte allocation, a fuzz finding), so
/// bytecode is first read in a forked child: if that child dies, the file is
/// refused and this process never runs the reader on it. The child gets its
/// own single-threaded context (the parent's thread pool does not survive a
/// fork), no stderr, a time limit and, outside ASan, an address-space limit.
static Probe probeBytecode(llvm::SourceMgr &sourceMgr, MLIRContext &ctx) {
#if PTEC_HAVE_FORK_PROBE
  const DialectRegistry &registry = ctx.getDialectRegistry();
  size_t size = sourceMgr.getMemoryBuffer(sourceMgr.getMainFileID())->getBufferSize();
  pid_t pid = fork();
  if (pid < 0)
    return Probe::Unavailable;
  if (pid == 0) {
    // The probe dies plainly: no crash handler inherited from the parent
    // (a fuzzer's would record the probe's death as the parent's crash).
    for (int sig : {SIGABRT, SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGALRM})
      std::signal(sig, SIG_DFL);
    if (__sanitizer_set_death_callback)
      __sanitizer_set_death_callback(nullptr);
    int devNull = open("/dev/null", O_WRONLY);
    if (devNull >= 0)
      dup2(devNull, STDERR_FILENO);
    // Well under a fuzzer's per-input timeout (20 s here), generous for a
    // real file: reading bytecode runs at hundreds of MiB/s.
    alarm(static_cast<unsigned>(5 + size / (1u << 20)));
    // Room for the reader's own needs above what is mapped now: a multiple
    // of the file, at most 2 GiB. Under ASan too (its shadow is mapped
    // already), so that a mutated count fails here instead of reaching a
    // fuzzer's malloc limit, which would record the probe as a finding.
    rlimit limit;
    if (getrlimit(RLIMIT_AS, &limit) == 0) {
      long pages = 0;
      if (FILE *statm = std::fopen("/proc/self/statm", "r")) {
        if (std::fscanf(statm, "%ld", &pages) != 1)
          pages = 0;
        std::fclose(statm);
      }
      if (pages > 0) {
        rlim_t room = std::min<rlim_t>(rlim_t(2) << 30,
                                       (rlim_t(1) << 30) + static_cast<rlim_t>(size) * 32);
        rlim_t want =
            static_cast<rlim_t>(pages) * static_cast<rlim_t>(sysconf(_SC_PAGESIZE)) + room;
        if (limit.rlim_max == RLIM_INFINITY || want < limit.rlim_max) {
          limit.rlim_cur = want;
          setrlimit(RLIMIT_AS, &limit);
        }
      }
    }
    MLIRContext probe(registry, MLIRContext::Threading::DISABLED);
    probe.loadAllAvailableDialects();
    ScopedDiagnosticHandler quiet(&probe, [](Diagnostic &) { return success(); });
    bool parsed = static_cast<bool>(parseBytecode(sourceMgr, probe));
    _exit(parsed ? 0 : 3);
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR)
      return Probe::Unavailable;
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
    return Probe::Parsed;
  if (WIFEXITED(status) && WEXITSTATUS(status) == 3)
    return Probe::Refused;
  return Probe::Crashed;
#else
  (void)sourceMgr;
  (void)ctx;
  return Probe::Unavailable;
#endif
}

/// Runs `parse`; a failure that no error diagnostic explained gets one (some
/// of MLIR 19's bytecode failures say nothing, a fuzz finding), so no
/// failure is silent.
template <typename ParseFn>
static OwningOpRef<ModuleOp> parseExplained(MLIRContext &ctx, llvm::StringRef name,
                                            ParseFn parse) {
  bool reported = false;
  OwningOpRef<ModuleOp> module;
  {
    ScopedDiagnosticHandler watch(&ctx, [&](Diagnostic &diag) {
      reported |= diag.getSeverity() == DiagnosticSeverity::Error;
      return failure(); // still printed by the handlers below
    });
    module = parse();
  }
  if (!module && !reported)
    emitError(FileLineColLoc::get(&ctx, name, 0, 0))
        << "MLIR's parser refused this file without saying why; it is damaged "
           "or was not written by ptec";
  return module;
}

OwningOpRef<ModuleOp> parseModuleGuarded(llvm::SourceMgr &sourceMgr,
                                         MLIRContext &ctx) {
  const llvm::MemoryBuffer *main = sourceMgr.getMemoryBuffer(sourceMgr.getMainFileID());
  llvm::StringRef bytes = main->getBuffer();
  llvm::StringRef name = main->getBufferIdentifier();
  if (!isMlirBytecode(bytes)) {
    if (failed(checkTextNesting(bytes, name, ctx)))
      return nullptr;
    return parseExplained(ctx, name, [&] {
      return parseSourceFile<ModuleOp>(sourceMgr, ParserConfig(&ctx));
    });
  }
  if (probeBytecode(sourceMgr, ctx) == Probe::Crashed) {
    emitError(FileLineColLoc::get(&ctx, name, 0, 0))
        << "MLIR's bytecode reader fails on this file (it crashed, or ran out of "
           "time or memory, in a probe process); the .mlirbc is damaged or was "
           "not written by ptec";
    return nullptr;
  }
  // Parsed or refused in the probe: read it here, where a refusal gets its
  // diagnostics.
  return parseExplained(ctx, name, [&] { return parseBytecode(sourceMgr, ctx); });
}

} // namespace ptec::exir
