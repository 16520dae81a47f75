// The tools' usage errors (see ToolCli.h).
#include "tooling/ToolCli.h"

#include "tooling/ExitCodes.h"

#include <CLI/CLI.hpp>

#include <cerrno>
#include <algorithm>
#include <cctype>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstring>
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
  // --help and --version win over anything else on the line, as CLI11 has it.
  bool asksForHelp = false;
  for (int i = 1; i < argc && std::strcmp(argv[i], "--") != 0; ++i)
    asksForHelp |= !std::strcmp(argv[i], "--help") || !std::strcmp(argv[i], "-h") ||
                   !std::strcmp(argv[i], "--version");
  if (!asksForHelp)
    if (std::string text = unknownOptionText(app, argc, argv, tool); !text.empty()) {
      std::fputs(text.c_str(), stderr);
      return kExitUsage;
    }
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp &e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp &e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion &e) {
    return app.exit(e);
  } catch (const CLI::ParseError &e) {
    return usageError(tool, cliMessage(e.what()));
  }
  return -1;
}

size_t editDistance(const std::string &a, const std::string &b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j)
    row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] != b[j - 1])});
      diagonal = up;
    }
  }
  return row[b.size()];
}

namespace {

/// A name without its dashes, '_' as '-', lower case: what a user meant.
std::string plainName(const std::string &name) {
  std::string out;
  size_t start = name.find_first_not_of('-');
  for (size_t i = start == std::string::npos ? name.size() : start; i < name.size(); ++i)
    out += name[i] == '_' ? '-' : static_cast<char>(std::tolower(static_cast<unsigned char>(name[i])));
  return out;
}

/// Whether `arg` is a value, not an option: "-", a negative number.
bool looksLikeValue(const char *arg) {
  if (arg[0] != '-' || arg[1] == '\0')
    return true;
  return std::isdigit(static_cast<unsigned char>(arg[1])) || arg[1] == '.';
}

} // namespace

std::string closestName(const std::string &given, const std::vector<std::string> &known) {
  const std::string want = plainName(given);
  std::string best;
  size_t bestDistance = SIZE_MAX;
  for (const std::string &name : known) {
    std::string have = plainName(name);
    size_t d = editDistance(want, have);
    // A prefix is close too ("--rep" for "--repeat").
    if (want.size() >= 3 && have.rfind(want, 0) == 0)
      d = std::min<size_t>(d, 1);
    if (d < bestDistance) {
      bestDistance = d;
      best = name;
    }
  }
  size_t longer = std::max(want.size(), plainName(best).size());
  if (best.empty() || bestDistance > std::max<size_t>(2, longer / 3))
    return "";
  return best;
}

std::vector<std::string> optionNames(const CLI::App &app) {
  std::vector<std::string> names;
  for (const CLI::Option *opt : app.get_options()) {
    for (const std::string &n : opt->get_snames())
      names.push_back("-" + n);
    for (const std::string &n : opt->get_lnames())
      names.push_back("--" + n);
  }
  return names;
}

std::string unknownOptionText(const CLI::App &app, int argc, const char *const *argv,
                              const std::string &tool) {
  const std::vector<std::string> known = optionNames(app);
  // The option an argument names, if the app has it.
  auto find = [&](const std::string &name) -> const CLI::Option * {
    for (const CLI::Option *opt : app.get_options())
      if (name.rfind("--", 0) == 0 ? opt->check_lname(name.substr(2))
                                   : opt->check_sname(name.substr(1)))
        return opt;
    return nullptr;
  };
  for (int i = 1; i < argc; ++i) {
    const char *arg = argv[i];
    if (!std::strcmp(arg, "--"))
      break;
    if (looksLikeValue(arg))
      continue;
    std::string text(arg);
    bool isLong = text.rfind("--", 0) == 0;
    size_t eq = text.find('=');
    // "-ofile" is -o with its value; "--x=v" is --x with its value.
    std::string name = isLong ? text.substr(0, eq) : text.substr(0, 2);
    bool attached = isLong ? eq != std::string::npos : text.size() > 2;
    if (const CLI::Option *opt = find(name)) {
      // A value follows the option unless it is attached: skip it, even
      // when it starts with '-'.
      bool takesValue = opt->get_items_expected_max() > 0 && opt->get_type_size() != 0;
      if (takesValue && !attached && i + 1 < argc &&
          (opt->get_items_expected_min() > 0 || argv[i + 1][0] != '-'))
        ++i;
      continue;
    }
    std::string shown = isLong ? name : text;
    std::string out = tool + ": error: unknown option '" + shown + "'\n";
    if (std::string near = closestName(isLong ? name : text, known); !near.empty())
      out += tool + ": note: did you mean '" + near + "'?\n";
    return out + "run '" + tool + " --help' for usage\n";
  }
  return "";
}

std::string cliMessage(const std::string &m) {
  auto startsWith = [&](const char *p) { return m.rfind(p, 0) == 0; };
  // "--input: 1 required TEXT missing"
  if (size_t at = m.find(" required "); at != std::string::npos && m.size() > 8 &&
                                        m.compare(m.size() - 8, 8, " missing") == 0) {
    size_t colon = m.find(": ");
    if (colon != std::string::npos && colon < at)
      return m.substr(0, colon) + " needs a value";
  }
  // "--sequence excludes --method"
  if (size_t at = m.find(" excludes "); at != std::string::npos && m.find(' ') == at)
    return m.substr(0, at) + " and " + m.substr(at + 10) + " cannot be used together";
  // "--a requires --b"
  if (size_t at = m.find(" requires "); at != std::string::npos && m.find(' ') == at)
    return m.substr(0, at) + " needs " + m.substr(at + 10) + " too";
  for (const char *p : {"The following argument was not expected: ",
                        "The following arguments were not expected: "})
    if (startsWith(p))
      return std::string(m.find("arguments were") != std::string::npos ? "unexpected arguments"
                                                                        : "unexpected argument") +
             " '" + m.substr(std::strlen(p)) + "'";
  if (startsWith("Could not convert: ")) {
    std::string rest = m.substr(19);
    size_t eq = rest.find(" = ");
    if (eq != std::string::npos)
      return rest.substr(0, eq) + ": '" + rest.substr(eq + 3) + "' is not a valid value";
  }
  if (size_t at = m.find(": too many inputs for a flag"); at != std::string::npos)
    return m.substr(0, at) + " is a flag: it takes no value";
  if (size_t at = m.find(": Should be true/false or a number"); at != std::string::npos)
    return m.substr(0, at) + " takes true, false or a number";
  return m;
}

CLI::Option *oneOf(CLI::Option *option, const std::vector<std::string> &values) {
  std::string list;
  for (const std::string &v : values)
    list += (list.empty() ? "" : ", ") + v;
  return option->check(CLI::Validator(
      [values, list](std::string &text) -> std::string {
        for (const std::string &v : values)
          if (text == v)
            return "";
        std::string why = "'" + text + "' is not one of " + list;
        if (std::string near = closestName(text, values); !near.empty())
          why += " (did you mean '" + near + "'?)";
        return why;
      },
      ""));
}

CLI::Option *wholeNumber(CLI::Option *option, long long lo, long long hi) {
  return option->check(CLI::Validator(
      [lo, hi](std::string &text) -> std::string {
        errno = 0;
        char *end = nullptr;
        long long v = std::strtoll(text.c_str(), &end, 10);
        if (text.empty() || end == text.c_str() || *end != '\0')
          return "'" + text + "' is not a whole number";
        if (errno == ERANGE || v < lo || v > hi)
          return text + " is out of range: " + std::to_string(lo) + " to " + std::to_string(hi);
        return "";
      },
      ""));
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
      ""));
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
    // cl's "Unknown command line argument '--x'." as the other tools say it.
    const std::string unknown = "Unknown command line argument '";
    if (line.rfind(unknown, 0) == 0 && line.size() > unknown.size() + 2 &&
        line.compare(line.size() - 2, 2, "'.") == 0)
      line = "unknown option '" + line.substr(unknown.size(), line.size() - unknown.size() - 2) +
             "'";
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
