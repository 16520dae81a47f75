// pte-inspect: look inside a .pte (or a .ptd), or check it against the
// format rules. A thin main over serde/pte/PteInspect, serde/pte/PteCheck
// and tooling/PtdInspect. Exit codes: tooling/ExitCodes.h.
#include "serde/io/ContentKind.h"
#include "serde/pte/OutputTarget.h"
#include "serde/pte/PteCheck.h"
#include "serde/pte/PteInspect.h"
#include "serde/pte/PteListing.h"
#include "serde/pte/PteWriter.h"
#include "tooling/CrashHandler.h"
#include "tooling/ExitCodes.h"
#include "tooling/PtdInspect.h"
#include "tooling/ToolCli.h"
#include "tooling/ToolHelp.h"
#include "tools/Version.h"

#include <CLI/CLI.hpp>

#include <cstdint>
#include <algorithm>
#include <cstdio>
#include <string_view>
#include <vector>

namespace {

using ptec::tooling::kExitFailed;
using ptec::tooling::kExitOk;
using ptec::tooling::kExitUsage;

/// pte-inspect FILE.ptd: the summary or JSON, or with --check whether the
/// runtime's reader takes it.
int inspectPtdFile(const std::string &path, const std::vector<uint8_t> &bytes, bool json,
                   bool check) {
  std::string out, err;
  if (check) {
    // Every rule, not only the reader's (tooling/PtdInspect.h).
    size_t errors = ptec::tooling::checkPtd(bytes, &out);
    out += path + (errors ? ": " + std::to_string(errors) + (errors == 1 ? " error\n" : " errors\n") : ": ok\n");
    std::fwrite(out.data(), 1, out.size(), stdout);
    return errors ? kExitFailed : kExitOk;
  }
  if (!ptec::tooling::inspectPtd(bytes, path, json, &out, &err)) {
    std::fprintf(stderr, "%s\n", err.c_str());
    return kExitFailed;
  }
  std::fwrite(out.data(), 1, out.size(), stdout);
  return kExitOk;
}

/// Why --plan-svg cannot be `svg` ("" when it can): the picture never
/// replaces what is inspected (compared as files, not names), and `-` is
/// taken when a listing prints on standard output too.
std::string planSvgProblem(const std::string &svg, const std::string &inspected,
                           const std::string &data, bool listing) {
  if (svg.empty())
    return "";
  std::vector<ptec::pte::NamedFile> inputs = {{"the inspected file", inspected}};
  if (!data.empty())
    inputs.push_back({"--data", data});
  if (std::string why = ptec::pte::checkDistinctFiles({{"--plan-svg", svg}}, inputs);
      !why.empty())
    return why;
  if (svg == "-" && listing)
    return "--plan-svg - writes the picture to standard output, where --instructions and "
           "--plan print; give the picture a file name";
  return "";
}

/// The help page's parts besides the options (tooling/ToolHelp.h).
ptec::tooling::ToolHelp helpPage() {
  ptec::tooling::ToolHelp h;
  h.tool = "pte-inspect";
  h.usage = {"[options] MODEL.pte", "[--json] [--check] WEIGHTS.ptd"};
  h.description =
      "Check an ExecuTorch program (.pte) and show what is inside: methods, inputs and "
      "outputs, state, operators, delegates and who shares them, planned memory, "
      "segments, constants. Or list a weights file (.ptd): header, segments, keys. Any "
      ".pte, ours or one upstream ExecuTorch wrote; nothing is run.";
  h.groups = {"Arguments", "What to show", "Checks"};
  h.examples = {{"pte-inspect model.pte", "the summary"},
                {"pte-inspect --json model.pte", "the whole program as JSON (flatc --json style)"},
                {"pte-inspect --json --elide-bytes model.pte > model.json", ""},
                {"pte-inspect --check model.pte", "every format rule the file breaks"},
                {"pte-inspect --check model.pte --data model.ptd",
                 "... and every external weight is in the .ptd"},
                {"pte-inspect --instructions model.pte", "every instruction and its arguments"},
                {"pte-inspect --plan --plan-svg plan.svg model.pte", "the memory plan"},
                {"pte-inspect --plan --method decode model.pte", "one method's plan"},
                {"pte-inspect model.ptd", "a .ptd's header, segments and keys"}};
  h.failedMeans = "the file is not a valid .pte (or .ptd) or cannot be read, or --check "
                  "found errors (warnings alone exit 0)";
  h.usageMeans = "a bad flag or value, an unknown --method, --plan-svg naming the inspected "
                 "file";
  h.docs = "docs/tools/pte-inspect.md";
  return h;
}

} // namespace

int main(int argc, char **argv) {
  ptec::tooling::installCrashHandler("pte-inspect");
  CLI::App app{"pte-inspect"};
  ptec::tooling::installHelp(app, helpPage());
  app.set_version_flag("--version", PTEC_VERSION_LINE("pte-inspect"), "Print the version");
  std::string path;
  bool json = false, check = false;
  ptec::pte::JsonOptions opts;
  CLI::Option *fileOpt =
      app.add_option("file", path,
                     "The .pte file to inspect, or a .ptd (external weights): its header, "
                     "segments and keys")
          ->type_name("FILE")
          ->group("Arguments");
  app.add_flag("--json", json,
               "Print the whole program as JSON, plus the extended header and segment table")
      ->group("What to show");
  app.add_flag("--elide-bytes", opts.elideBytes,
               "With --json: summarize byte vectors (constant data, delegate blobs, compile "
               "spec values) as \"<N bytes, fnv1a64 H>\"")
      ->group("What to show");
  bool instructions = false, plan = false;
  std::string planSvgPath, svgMethod;
  app.add_flag("--instructions", instructions,
               "List every instruction with its operator (or delegate) and each argument value")
      ->group("What to show");
  app.add_flag("--plan", plan,
               "List every planned tensor with its lifetime, arena, offset and size, and each "
               "arena against its lower bound")
      ->group("What to show");
  app.add_option("--plan-svg", planSvgPath,
                 "Write the memory plan as an SVG picture (tensors as boxes over time x "
                 "offset; inputs, outputs, state and delegate scratch marked)")
      ->type_name("FILE")
      ->group("What to show");
  app.add_option("--method", svgMethod,
                 "Only this method in --instructions, --plan and --plan-svg (default: every "
                 "method)")
      ->type_name("NAME")
      ->group("What to show");
  app.add_flag("--check", check,
               "Run every rule of the .pte format spec and list each violation (errors and "
               "warnings) instead of the summary")
      ->group("Checks");
  std::string dataPath;
  app.add_option("--data", dataPath,
                 "With --check: the .ptd holding the program's external weights; every "
                 "EXTERNAL tensor must be there with at least its bytes")
      ->type_name("FILE.ptd")
      ->group("Checks");
  if (int rc = ptec::tooling::parseCommandLine(app, argc, argv, "pte-inspect"); rc >= 0)
    return rc;
  if (fileOpt->count() == 0)
    return ptec::tooling::usageError("pte-inspect",
                                     "no file given: pte-inspect MODEL.pte (or WEIGHTS.ptd)");
  ptec::tooling::setCrashContext("inspecting " + path);
  ptec::tooling::crashIfAsked();
  if (std::string why = planSvgProblem(planSvgPath, path, dataPath, instructions || plan);
      !why.empty())
    return ptec::tooling::usageError("pte-inspect", why);
  std::string out, err;
  std::vector<uint8_t> bytes;
  if (!ptec::pte::readFileBytes(path, &bytes, &err)) {
    std::fprintf(stderr, "%s: error: %s\n", path.c_str(), err.c_str());
    return kExitFailed;
  }
  // A file of another kind is named as what it is (serde/io/ContentKind.h);
  // bytes (or text) of no known kind go to the .pte reader, which names the
  // field.
  ptec::io::ContentKind kind = ptec::io::sniffContent(
      std::string_view(reinterpret_cast<const char *>(bytes.data()),
                       std::min(bytes.size(), ptec::io::kSniffHeadBytes)),
      std::string_view(reinterpret_cast<const char *>(bytes.data()), bytes.size())
          .substr(bytes.size() - std::min(bytes.size(), ptec::io::kSniffTailBytes)));
  auto knownOther = [](ptec::io::ContentKind k) {
    return k != ptec::io::ContentKind::Binary && k != ptec::io::ContentKind::Empty &&
           k != ptec::io::ContentKind::Text;
  };
  if (kind != ptec::io::ContentKind::Pte && kind != ptec::io::ContentKind::Ptd && knownOther(kind)) {
    std::fprintf(stderr, "%s: error: %s\n", path.c_str(),
                 ptec::io::wrongContentMessage(path, kind,
                                               "an ExecuTorch program (.pte) or weights file "
                                               "(.ptd)",
                                               "this file")
                     .c_str());
    return kExitFailed;
  }
  if (!dataPath.empty()) {
    ptec::io::ContentKind dataKind = ptec::io::ContentKind::Binary;
    if (ptec::io::sniffFile(dataPath, &dataKind, &err) &&
        dataKind != ptec::io::ContentKind::Ptd && knownOther(dataKind)) {
      std::fprintf(stderr, "%s: error: %s\n", dataPath.c_str(),
                   ptec::io::wrongContentMessage(dataPath, dataKind,
                                                 "a weights file (.ptd) for --data", "this file")
                       .c_str());
      return kExitFailed;
    }
    err.clear();
  }
  if (kind == ptec::io::ContentKind::Ptd || ptec::tooling::looksLikePtd(bytes)) {
    if (instructions || plan || !planSvgPath.empty() || !dataPath.empty())
      return ptec::tooling::usageError(
          "pte-inspect", path + " is a .ptd (named data): --instructions, --plan, --plan-svg "
                                "and --data need a .pte");
    return inspectPtdFile(path, bytes, json, check);
  }
  // --method narrows a listing; with none it would be silently ignored.
  if (!svgMethod.empty() && !instructions && !plan && planSvgPath.empty()) {
    std::fprintf(stderr, "%s: error: --method selects the method of --instructions, --plan "
                         "or --plan-svg; give one of them\n", path.c_str());
    return kExitUsage;
  }
  if (check) {
    size_t errors =
        ptec::pte::formatViolations(path, ptec::pte::checkPte(bytes.data(), bytes.size()), &out);
    if (!dataPath.empty()) {
      std::string problems;
      size_t missing = ptec::tooling::checkExternalData(bytes, dataPath, &problems);
      if (missing == SIZE_MAX) {
        std::fprintf(stderr, "%s: error: %s\n", dataPath.c_str(), problems.c_str());
        return kExitFailed;
      }
      out += problems;
      errors += missing;
    }
    std::fwrite(out.data(), 1, out.size(), stdout);
    return errors > 0 ? kExitFailed : kExitOk;
  }
  if (instructions || plan || !planSvgPath.empty()) {
    ptec::pte::PteView view;
    if (!ptec::pte::openPte(bytes.data(), bytes.size(), &view, &err)) {
      std::fprintf(stderr, "%s: error: %s\n", path.c_str(), err.c_str());
      return kExitFailed;
    }
    if (!svgMethod.empty()) {
      bool known = false;
      auto *plans = view.program->execution_plan();
      for (uint32_t m = 0; plans && m < plans->size(); ++m)
        known |= plans->Get(m)->name() && plans->Get(m)->name()->str() == svgMethod;
      if (!known) {
        std::fprintf(stderr, "%s: error: no method named '%s'\n", path.c_str(),
                     svgMethod.c_str());
        return kExitUsage;
      }
    }
    if (instructions)
      out += ptec::pte::listInstructions(view, svgMethod);
    if (plan)
      out += ptec::pte::listPlan(view, svgMethod);
    if (!planSvgPath.empty()) {
      std::string svg;
      if (!ptec::pte::planSvg(view, svgMethod, &svg, &err)) {
        std::fprintf(stderr, "%s: error: %s\n", path.c_str(), err.c_str());
        return kExitUsage;
      }
      if (!ptec::pte::writeFileAtomic(planSvgPath, std::vector<uint8_t>(svg.begin(), svg.end()),
                                      &err)) {
        std::fprintf(stderr, "%s: error: %s\n", planSvgPath.c_str(), err.c_str());
        return kExitFailed;
      }
    }
    std::fwrite(out.data(), 1, out.size(), stdout);
    return kExitOk;
  }
  ptec::pte::PteView view;
  if (!ptec::pte::openPte(bytes.data(), bytes.size(), &view, &err) ||
      (json && !ptec::pte::dumpPteJson(view, opts, &out, &err))) {
    std::fprintf(stderr, "%s: error: %s\n", path.c_str(), err.c_str());
    return kExitFailed; // the file is not a valid .pte
  }
  if (!json)
    out = ptec::pte::summarizePte(view, path);
  std::fwrite(out.data(), 1, out.size(), stdout);
  return kExitOk;
}
