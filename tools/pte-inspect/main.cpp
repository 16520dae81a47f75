// pte-inspect: look inside a .pte, or check it against the format rules. A
// thin main over serde/pte/PteInspect and serde/pte/PteCheck.
#include "runtime/core/ScalarType.h"
#include "runtime/executor/FlatTensorData.h"
#include "serde/pte/program_generated.h"

#include <algorithm>
#include <climits>
#include <cstdint>

#include "serde/pte/PteCheck.h"
#include "serde/pte/PteInspect.h"
#include "serde/pte/PteListing.h"
#include "serde/pte/PteWriter.h"
#include "tooling/ToolCli.h"
#include "tools/Version.h"

#include <CLI/CLI.hpp>

#include <cstdio>
#include <vector>

/// Why the .ptd's tensor_layout for `key` is not `t`'s ("" when it agrees or
/// it has none): the comparison the runtime's loader makes.
static std::string layoutProblem(const ptec::rt::FlatTensorData &ptd, const char *key,
                                 const executorch_flatbuffer::Tensor &t) {
  auto stored = ptd.layout(key);
  if (!stored.ok())
    return "";
  return ptec::rt::FlatTensorData::layoutMismatch(key, stored.get(),
                                                  ptec::rt::FlatTensorData::programLayout(t));
}

/// Every EXTERNAL tensor of the program found in the .ptd at `dataPath` with
/// at least its bytes: one line per one that is not; returns how many, or
/// SIZE_MAX when the .ptd itself is bad (`problems` says why).
static size_t checkExternalData(const std::vector<uint8_t> &bytes, const std::string &dataPath,
                                std::string *problems) {
  namespace fb = executorch_flatbuffer;
  auto ptd = ptec::rt::FlatTensorData::load(dataPath.c_str(), problems);
  if (!ptd.ok())
    return SIZE_MAX;
  flatbuffers::Verifier verifier(bytes.data(), bytes.size(), 64, 1u << 30);
  if (!fb::VerifyProgramBuffer(verifier))
    return 0; // --check has said why already
  size_t missing = 0, found = 0;
  const auto *plans = fb::GetProgram(bytes.data())->execution_plan();
  for (uint32_t m = 0; plans && m < plans->size(); ++m) {
    const auto *values = plans->Get(m)->values();
    for (uint32_t i = 0; values && i < values->size(); ++i) {
      const fb::Tensor *t = values->Get(i)->val_as_Tensor();
      const fb::ExtraTensorInfo *x = t ? t->extra_tensor_info() : nullptr;
      if (!x || x->location() != fb::TensorDataLocation::EXTERNAL || !x->fully_qualified_name())
        continue;
      size_t need = ptec::rt::elementSize(static_cast<ptec::rt::ScalarType>(t->scalar_type()));
      for (uint32_t d = 0; t->sizes() && d < t->sizes()->size(); ++d)
        need *= static_cast<size_t>(std::max(0, t->sizes()->Get(d)));
      auto data = ptd.get()->get(x->fully_qualified_name()->c_str());
      std::string where = "execution_plan[" + std::to_string(m) + "].values[" +
                          std::to_string(i) + "] '" + x->fully_qualified_name()->str() + "'";
      if (!data.ok()) {
        *problems += "error: [external.missing] " + where + ": not in " + dataPath + "\n";
        ++missing;
      } else if (data->size() < need) {
        *problems += "error: [external.size] " + where + ": " + std::to_string(data->size()) +
                     " bytes in " + dataPath + ", the tensor needs " + std::to_string(need) +
                     "\n";
        ++missing;
      } else if (std::string why = layoutProblem(*ptd.get(), x->fully_qualified_name()->c_str(), *t);
                 !why.empty()) {
        *problems += "error: [external.layout] " + where + ": " + why + "\n";
        ++missing;
      } else {
        ++found;
      }
    }
  }
  *problems += dataPath + ": " + std::to_string(found) + " external tensors found, " +
               std::to_string(missing) + " missing, short or laid out differently\n";
  return missing;
}

int main(int argc, char **argv) {
  CLI::App app{"pte-inspect: verify an ExecuTorch .pte program and show what is "
               "inside (methods, inputs/outputs, operators, delegates and who "
               "shares them, planned memory, segments, constants)."};
  app.footer("Examples:\n"
             "  pte-inspect model.pte                  human summary\n"
             "  pte-inspect --json model.pte           full JSON dump (flatc --json style)\n"
             "  pte-inspect --json --elide-bytes model.pte > model.json\n"
             "  pte-inspect --check model.pte          list every format rule violation\n"
             "  pte-inspect --instructions model.pte   every instruction and its arguments\n"
             "  pte-inspect --plan --plan-svg plan.svg model.pte   the memory plan\n"
             "  pte-inspect --plan --method decode model.pte      one method's plan\n"
             "\n"
             "Exit codes: 0 ok; 1 the file is not a valid .pte (or cannot be\n"
             "read), or --check found errors (warnings alone exit 0); 2 usage error.");
  app.set_version_flag("--version", PTEC_VERSION_LINE("pte-inspect"));
  std::string path;
  bool json = false, check = false;
  ptec::pte::JsonOptions opts;
  app.add_option("file", path, "the .pte file to inspect")->required();
  app.add_flag("--json", json,
               "print the whole program as JSON, plus the extended header and "
               "segment table");
  app.add_flag("--elide-bytes", opts.elideBytes,
               "with --json: summarize byte vectors (constant data, delegate "
               "blobs, compile spec values) as \"<N bytes, fnv1a64 H>\"");
  app.add_flag("--check", check,
               "run every rule of the .pte format spec and list each violation "
               "(errors and warnings) instead of the summary");
  bool instructions = false, plan = false;
  std::string planSvgPath, svgMethod;
  app.add_flag("--instructions", instructions,
               "list every instruction with its operator (or delegate) and each "
               "argument value");
  app.add_flag("--plan", plan,
               "list every planned tensor with its lifetime, arena, offset and size, "
               "and each arena against its lower bound");
  app.add_option("--plan-svg", planSvgPath,
                 "write the memory plan as an SVG picture (tensors as boxes over time x "
                 "offset; inputs, outputs, state and delegate scratch marked)");
  app.add_option("--method", svgMethod,
                 "only this method in --instructions, --plan and --plan-svg (default: "
                 "every method)");
  std::string dataPath;
  app.add_option("--data", dataPath,
                 "with --check: the .ptd holding the program's external weights; every "
                 "EXTERNAL tensor must be there with at least its bytes");
  if (int rc = ptec::tooling::parseCommandLine(app, argc, argv, "pte-inspect"); rc >= 0)
    return rc;
  std::string out, err;
  // --method narrows a listing; with none it would be silently ignored.
  if (!svgMethod.empty() && !instructions && !plan && planSvgPath.empty()) {
    std::fprintf(stderr, "%s: error: --method selects the method of --instructions, --plan "
                         "or --plan-svg; give one of them\n", path.c_str());
    return 2;
  }
  if (check) {
    std::vector<uint8_t> bytes;
    if (!ptec::pte::readFileBytes(path, &bytes, &err)) {
      std::fprintf(stderr, "%s: error: %s\n", path.c_str(), err.c_str());
      return 1;
    }
    size_t errors =
        ptec::pte::formatViolations(path, ptec::pte::checkPte(bytes.data(), bytes.size()), &out);
    if (!dataPath.empty()) {
      std::string problems;
      size_t missing = checkExternalData(bytes, dataPath, &problems);
      if (missing == SIZE_MAX) {
        std::fprintf(stderr, "%s: error: %s\n", dataPath.c_str(), problems.c_str());
        return 1;
      }
      out += problems;
      errors += missing;
    }
    std::fwrite(out.data(), 1, out.size(), stdout);
    return errors > 0 ? 1 : 0;
  }
  if (instructions || plan || !planSvgPath.empty()) {
    std::vector<uint8_t> bytes;
    ptec::pte::PteView view;
    if (!ptec::pte::readFileBytes(path, &bytes, &err) ||
        !ptec::pte::openPte(bytes.data(), bytes.size(), &view, &err)) {
      std::fprintf(stderr, "%s: error: %s\n", path.c_str(), err.c_str());
      return 1;
    }
    if (!svgMethod.empty()) {
      bool known = false;
      auto *plans = view.program->execution_plan();
      for (uint32_t m = 0; plans && m < plans->size(); ++m)
        known |= plans->Get(m)->name() && plans->Get(m)->name()->str() == svgMethod;
      if (!known) {
        std::fprintf(stderr, "%s: error: no method named '%s'\n", path.c_str(),
                     svgMethod.c_str());
        return 2;
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
        return 2;
      }
      if (!ptec::pte::writeFileAtomic(planSvgPath, std::vector<uint8_t>(svg.begin(), svg.end()),
                                      &err)) {
        std::fprintf(stderr, "%s: error: %s\n", planSvgPath.c_str(), err.c_str());
        return 1;
      }
    }
    std::fwrite(out.data(), 1, out.size(), stdout);
    return 0;
  }
  int rc = ptec::pte::inspectPteFile(path, json, opts, &out, &err);
  if (rc != 0) {
    std::fprintf(stderr, "%s\n", err.c_str());
    return 1; // the file is not a valid .pte or cannot be read
  }
  std::fwrite(out.data(), 1, out.size(), stdout);
  return 0;
}
