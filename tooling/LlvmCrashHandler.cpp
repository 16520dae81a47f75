// See LlvmCrashHandler.h.
#include "tooling/LlvmCrashHandler.h"

#include "tooling/CrashHandler.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/PrettyStackTrace.h"
#include "llvm/Support/Signals.h"

namespace ptec::tooling {

namespace {
/// LLVM's crash callbacks in the order they were registered: the pretty
/// stack entries ("Stack dump:"), then the stack trace; files registered
/// with RemoveFileOnSignal are removed first.
void printLlvmStack() {
  llvm::sys::RunInterruptHandlers();
  llvm::sys::RunSignalHandlers();
}
} // namespace

void installLlvmCrashHandler(const char *tool, const char *argv0) {
  // Our headline says what to do with the report; LLVM's own plea (report
  // to LLVM) would point at the wrong project.
  llvm::setBugReportMsg("");
  llvm::EnablePrettyStackTrace();
  llvm::sys::PrintStackTraceOnErrorSignal(argv0);
  installCrashHandler(tool, printLlvmStack);
}

} // namespace ptec::tooling
