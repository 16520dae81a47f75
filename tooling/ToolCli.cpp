// The tools' usage errors (see ToolCli.h).
#include "tooling/ToolCli.h"

#include "tooling/ExitCodes.h"

#include <CLI/CLI.hpp>

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <sstream>

namespace ptec::tooling {

std::string usageErrorText(const std::string &tool, const std::string &message) {
  return tool + ": error: " + message + "\nrun '" + tool + " --help' for usage\n";
}

int usageError(const std::string &tool, const std::string &message) {
  std::string text = usageErrorText(tool, message);
  std::fputs(text.c_str(), stderr);
  return kExitUsage;
}

int parseCommandLine(CLI::App &app, int argc, const char *const *argv, const std::string &tool) {
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp &e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp &e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion &e) {
    return app.exit(e);
  } catch (const CLI::ParseError &e) {
    return usageError(tool, e.what());
  }
  return -1;
}

std::string parseFinite(const std::string &text, double *value) {
  const char *begin = text.c_str();
  char *end = nullptr;
  errno = 0;
  double v = std::strtod(begin, &end);
  if (text.empty() || end == begin || *end != '\0')
    return "'" + text + "' is not a number";
  if (std::isnan(v))
    return "'" + text + "' is not a number (NaN)";
  if (std::isinf(v) || (errno == ERANGE && std::fabs(v) > 1))
    return "'" + text + "' is not a finite number";
  *value = v;
  return "";
}

CLI::Option *requireFinite(CLI::Option *option, bool nonNegative) {
  return option->check(CLI::Validator(
      [nonNegative](std::string &text) {
        double v = 0;
        std::string why = parseFinite(text, &v);
        if (why.empty() && nonNegative && v < 0)
          why = "'" + text + "' is negative";
        return why;
      },
      nonNegative ? "FINITE >= 0" : ""));
}

std::string rewriteLlvmUsageErrors(const std::string &tool, const std::string &clOutput) {
  std::istringstream lines(clOutput);
  std::string line, text;
  while (std::getline(lines, line)) {
    // cl names the program by its file name: drop "<name>: ".
    if (size_t colon = line.find(": "); colon != std::string::npos &&
                                        line.find(' ') > colon && line.rfind(tool, 0) == 0)
      line = line.substr(colon + 2);
    if (size_t tryAt = line.find("  Try: "); tryAt != std::string::npos)
      line = line.substr(0, tryAt);
    while (!line.empty() && (line.back() == ' ' || line.back() == '\r'))
      line.pop_back();
    if (line.empty())
      continue;
    if (line.rfind("Did you mean", 0) == 0)
      text += tool + ": note: d" + line.substr(1) + "\n";
    else
      text += tool + ": error: " + line + "\n";
  }
  if (text.empty())
    text = tool + ": error: bad command line\n";
  return text + "run '" + tool + " --help' for usage\n";
}

} // namespace ptec::tooling
