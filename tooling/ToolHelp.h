// One --help layout for the four tools (docs/tools/README.md#help):
//
//   Usage: TOOL [options] ...
//          TOOL ...                      (more forms)
//
//   What the tool does, one paragraph.
//
//   <Group> options:                     (the tool's options, in groups)
//     -o, --output FILE      What it is (default: ...)
//
//   <Sections>:                          (backends, phases, other spellings)
//   Examples:
//   Exit status:                         (the codes of tooling/ExitCodes.h)
//   Documentation: docs/tools/TOOL.md
//
// aot-compile, pte-run and pte-inspect get it through installHelp (a CLI11
// formatter that writes every option from the app itself, so no CLI11
// notation shows); ptec-opt prints helpHead, LLVM's option list, helpTail.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace CLI {
class App;
} // namespace CLI

namespace ptec::tooling {

/// A titled list of rows: a name, and what it is.
struct HelpSection {
  std::string title;
  std::vector<std::pair<std::string, std::string>> rows;
};

struct ToolHelp {
  std::string tool;
  /// The forms of the command line, each after the tool's name.
  std::vector<std::string> usage;
  /// What the tool does (wrapped to the page width).
  std::string description;
  /// Option groups in the order shown (an option's CLI11 group); options of
  /// other groups follow, those of the group "" are hidden.
  std::vector<std::string> groups;
  /// After the options, before the examples.
  std::vector<HelpSection> sections;
  /// Commands, each with what it does.
  std::vector<std::pair<std::string, std::string>> examples;
  /// What exit status 1 and 2 mean for this tool (exitStatusRows).
  std::string failedMeans, usageMeans;
  /// The page of docs/tools/ about the tool.
  std::string docs;
};

/// The page width help is wrapped to.
constexpr size_t kHelpWidth = 80;

/// `rows` as "  name   text" lines, the text wrapped with a hanging indent.
std::string renderRows(const std::vector<std::pair<std::string, std::string>> &rows,
                       size_t maxNameWidth = 28);

/// The exit codes of tooling/ExitCodes.h with their meanings for a tool.
std::vector<std::pair<std::string, std::string>> exitStatusRows(const std::string &failedMeans,
                                                                const std::string &usageMeans);

/// Usage and description, with the blank line after them.
std::string helpHead(const ToolHelp &help);
/// Sections, examples, exit status and the documentation line.
std::string helpTail(const ToolHelp &help);

/// The option rows of `app`'s options in `group`, as help prints them.
std::vector<std::pair<std::string, std::string>> optionRows(const CLI::App &app,
                                                            const std::string &group);

/// Makes `app`'s --help print the tools' layout.
void installHelp(CLI::App &app, const ToolHelp &help);

} // namespace ptec::tooling
