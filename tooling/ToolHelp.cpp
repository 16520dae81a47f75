// The tools' --help layout (see ToolHelp.h).
#include "tooling/ToolHelp.h"

#include "tooling/ExitCodes.h"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <memory>
#include <sstream>

namespace ptec::tooling {

namespace {

/// `text` wrapped to `width` columns, every line after the first starting
/// with `indent` spaces (the first line starts at column `first`). Explicit
/// newlines in `text` are kept.
std::string wrap(const std::string &text, size_t first, size_t indent, size_t width) {
  std::string out;
  size_t column = first;
  std::istringstream paragraphs(text);
  std::string paragraph;
  bool firstParagraph = true;
  while (std::getline(paragraphs, paragraph)) {
    if (!firstParagraph) {
      out += "\n" + std::string(indent, ' ');
      column = indent;
    }
    firstParagraph = false;
    std::istringstream words(paragraph);
    std::string word;
    bool lineStart = true;
    while (words >> word) {
      if (!lineStart && column + 1 + word.size() > width) {
        out += "\n" + std::string(indent, ' ');
        column = indent;
        lineStart = true;
      }
      if (!lineStart) {
        out += ' ';
        ++column;
      }
      out += word;
      column += word.size();
      lineStart = false;
    }
  }
  return out;
}

/// "-o, --output FILE", "--progress, --no-progress", "--report[=text|json]".
std::string optionName(const CLI::Option *opt) {
  std::string names;
  // (CLI11 appends its validators' descriptions after a ':': the tools'
  // validators have none.)
  std::string type = opt->get_type_name();
  if (opt->get_positional())
    return type.empty() ? opt->get_name() : type;
  for (const std::string &s : opt->get_snames())
    names += (names.empty() ? "-" : ", -") + s;
  for (const std::string &l : opt->get_lnames())
    names += (names.empty() ? "--" : ", --") + l;
  bool flag = opt->get_type_size() == 0;
  if (!type.empty() && (!flag || type.front() == '['))
    names += (type.front() == '[' ? "" : " ") + type;
  return names;
}

} // namespace

std::string renderRows(const std::vector<std::pair<std::string, std::string>> &rows,
                       size_t maxNameWidth) {
  size_t nameWidth = 0;
  for (const auto &[name, text] : rows)
    if (name.size() <= maxNameWidth)
      nameWidth = std::max(nameWidth, name.size());
  const size_t indent = 2 + nameWidth + 2;
  std::string out;
  for (const auto &[name, text] : rows) {
    out += "  " + name;
    if (text.empty()) {
      out += "\n";
      continue;
    }
    if (name.size() > nameWidth)
      out += "\n" + std::string(indent, ' ');
    else
      out += std::string(nameWidth - name.size() + 2, ' ');
    out += wrap(text, indent, indent, kHelpWidth) + "\n";
  }
  return out;
}

std::vector<std::pair<std::string, std::string>> exitStatusRows(const std::string &failedMeans,
                                                                const std::string &usageMeans) {
  return {{std::to_string(kExitOk), "success (also --help and --version)"},
          {std::to_string(kExitFailed), failedMeans},
          {std::to_string(kExitUsage), "usage error: " + usageMeans},
          {std::to_string(kExitInternal),
           "internal error: a crash, or a step that failed without saying why; a bug in ptec, "
           "please report it with the message"}};
}

std::string helpHead(const ToolHelp &help) {
  std::string out;
  for (size_t i = 0; i < help.usage.size(); ++i)
    out += (i == 0 ? "Usage: " : "       ") + help.tool + " " + help.usage[i] + "\n";
  out += "\n" + wrap(help.description, 0, 0, kHelpWidth) + "\n\n";
  return out;
}

std::string helpTail(const ToolHelp &help) {
  std::string out;
  for (const HelpSection &section : help.sections)
    out += section.title + ":\n" + renderRows(section.rows) + "\n";
  if (!help.examples.empty()) {
    out += "Examples:\n";
    for (const auto &[command, what] : help.examples)
      out += "  " + command + "\n" + (what.empty() ? "" : "      " + wrap(what, 6, 6, kHelpWidth) + "\n");
    out += "\n";
  }
  out += "Exit status:\n" + renderRows(exitStatusRows(help.failedMeans, help.usageMeans), 4);
  if (!help.docs.empty())
    out += "\nDocumentation: " + help.docs + "\n";
  return out;
}

std::vector<std::pair<std::string, std::string>> optionRows(const CLI::App &app,
                                                            const std::string &group) {
  std::vector<std::pair<std::string, std::string>> rows;
  for (const CLI::Option *opt : app.get_options()) {
    if (opt->get_group() != group)
      continue;
    std::string text = opt->get_description();
    std::string value = opt->get_default_str();
    if (!value.empty() && opt->get_type_size() != 0)
      text += " (default: " + value + ")";
    rows.push_back({optionName(opt), text});
  }
  return rows;
}

namespace {

class ToolFormatter : public CLI::FormatterBase {
public:
  explicit ToolFormatter(ToolHelp help) : help_(std::move(help)) {}

  std::string make_help(const CLI::App *app, std::string, CLI::AppFormatMode) const override {
    std::string out = helpHead(help_);
    std::vector<std::string> groups = help_.groups;
    for (const CLI::Option *opt : app->get_options())
      if (!opt->get_group().empty() &&
          std::find(groups.begin(), groups.end(), opt->get_group()) == groups.end())
        groups.push_back(opt->get_group());
    for (const std::string &group : groups) {
      auto rows = optionRows(*app, group);
      if (rows.empty())
        continue;
      out += (group == "Options" ? std::string("Other options") : group) + ":\n" +
             renderRows(rows) + "\n";
    }
    return out + helpTail(help_);
  }

private:
  ToolHelp help_;
};

} // namespace

void installHelp(CLI::App &app, const ToolHelp &help) {
  app.formatter(std::make_shared<ToolFormatter>(help));
  if (CLI::Option *h = app.get_help_ptr())
    h->description("Show this help");
}

} // namespace ptec::tooling
