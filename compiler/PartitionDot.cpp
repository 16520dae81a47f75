//===- PartitionDot.cpp - the partitioned graph as Graphviz DOT -----------===//
//
// See PartitionDot.h. A weight is a function argument whose export kind is
// not user_input (parameter, buffer, constant): drawing one ellipse per
// weight made efficientnet a 27,000 x 30,000 pixel picture, so weights are
// lines in their users' labels (ops view) or a count in the cluster's label
// (regions view).
//
//===----------------------------------------------------------------------===//

#include "compiler/PartitionDot.h"

#include "compiler/Report.h"
#include "dialects/exir/IR/ExirDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <map>
#include <set>
#include <vector>

namespace ptec {
using namespace mlir;

std::optional<DotView> parseDotView(llvm::StringRef name) {
  if (name == "auto")
    return DotView::Auto;
  if (name == "ops")
    return DotView::Ops;
  if (name == "regions")
    return DotView::Regions;
  return std::nullopt;
}

namespace {

const char *kPortableFill = "#fde2e2";
const char *kValueFill = "#eeeeee";
constexpr size_t kWeightLines = 4; // per op in the ops view

/// "f32[2, 16]" for a ranked tensor ("?" for a run-time size), the type
/// otherwise.
std::string shapeText(Type t) {
  auto ranked = llvm::dyn_cast<RankedTensorType>(t);
  std::string s;
  llvm::raw_string_ostream os(s);
  if (!ranked) {
    os << t;
    return os.str();
  }
  os << ranked.getElementType() << "[";
  for (auto [i, d] : llvm::enumerate(ranked.getShape())) {
    os << (i ? ", " : "");
    if (ShapedType::isDynamic(d))
      os << "?";
    else
      os << d;
  }
  os << "]";
  return os.str();
}

std::string opName(Operation *op) {
  if (auto aten = llvm::dyn_cast<exir::AtenOp>(op))
    return aten.getOpName().str();
  if (auto call = llvm::dyn_cast<func::CallOp>(op))
    return "call @" + call.getCallee().str();
  return op->getName().getStringRef().str();
}

std::string quote(const std::string &s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '\n')
      out += "\\n";
    else
      out += (c == '"' || c == '\\') ? std::string("\\") + c : std::string(1, c);
  }
  return out + "\"";
}

/// At most `n` characters of `s`, "..." when cut.
std::string shorten(const std::string &s, size_t n) {
  return s.size() <= n ? s : s.substr(0, n - 3) + "...";
}

/// Backend colours, in first-seen order.
struct Palette {
  std::map<std::string, const char *> colors;
  const char *of(const std::string &backend) {
    static const char *palette[] = {"#7aa6d6", "#f0a35e", "#8cc68c", "#b08fd8", "#e06666"};
    return colors.try_emplace(backend, palette[colors.size() % 5]).first->second;
  }
};

/// The export kind of argument `i` of `f` ("user_input", "parameter", ...).
std::string argKind(func::FuncOp f, unsigned i) {
  exir::InputAttr in = exir::getInputAttr(f, i);
  return in ? in.getKind().getValue().str() : "input";
}

/// A weight: an argument that is not the caller's input.
bool isWeight(func::FuncOp f, BlockArgument a) {
  std::string kind = argKind(f, a.getArgNumber());
  return kind != "user_input" && kind != "input";
}

/// "user_input x\nf32[1, 3]" or "parameter fc.weight f32[4, 8]".
std::string argText(func::FuncOp f, BlockArgument a, const char *sep) {
  exir::InputAttr in = exir::getInputAttr(f, a.getArgNumber());
  std::string text = argKind(f, a.getArgNumber());
  if (in && in.getFqn())
    text += " " + in.getFqn().getValue().str();
  return text + sep + shapeText(a.getType());
}

uint64_t tensorBytes(Type t) {
  auto ranked = llvm::dyn_cast<RankedTensorType>(t);
  if (!ranked || !ranked.hasStaticShape())
    return 0;
  return static_cast<uint64_t>(ranked.getNumElements()) *
         ((ranked.getElementTypeBitWidth() + 7) / 8);
}

/// The cluster's label: the function, and the weights left out of the
/// picture with their size.
std::string clusterLabel(func::FuncOp f, bool regionsView) {
  int64_t weights = 0;
  uint64_t bytes = 0;
  for (BlockArgument a : f.getArguments())
    if (isWeight(f, a) && !a.use_empty()) {
      ++weights;
      bytes += tensorBytes(a.getType());
    }
  std::string s = "@" + f.getSymName().str();
  if (weights)
    s += " (" + std::to_string(weights) + (weights == 1 ? " weight, " : " weights, ") +
         humanBytes(bytes) +
         (regionsView ? ", not drawn)" : ", in the labels of the ops that read them)");
  return s;
}

/// "81 convolution, 65 mul.Tensor, +3 kinds" for the op names in `names`.
std::string kindsText(const std::map<std::string, int64_t> &names, size_t shown) {
  std::vector<std::pair<std::string, int64_t>> v(names.begin(), names.end());
  std::stable_sort(v.begin(), v.end(),
                   [](const auto &a, const auto &b) { return a.second > b.second; });
  std::string s;
  for (size_t k = 0; k < v.size() && k < shown; ++k) {
    llvm::StringRef n = v[k].first;
    n.consume_front("aten::");
    s += (k ? ", " : "") + std::to_string(v[k].second) + " " + n.str();
  }
  if (v.size() > shown)
    s += ", +" + std::to_string(v.size() - shown) + (v.size() - shown == 1 ? " kind" : " kinds");
  return s;
}

/// Result shapes of `values`, up to three, for a label.
std::string shapesText(ValueRange values) {
  std::string s;
  size_t k = 0;
  for (Value v : values) {
    if (k == 3) {
      s += ", +" + std::to_string(values.size() - 3) + " more";
      break;
    }
    s += (k++ ? ", " : "") + shapeText(v.getType());
  }
  return s;
}

/// Nodes the ops view would draw: ops (inside regions too), used inputs.
int64_t opsViewNodes(ModuleOp module) {
  int64_t n = 0;
  for (auto f : module.getOps<func::FuncOp>()) {
    if (f.isDeclaration())
      continue;
    for (BlockArgument a : f.getArguments())
      n += !a.use_empty() && !isWeight(f, a);
    f.walk([&](Operation *op) {
      n += op != f.getOperation() && !llvm::isa<exir::YieldOp>(op) &&
           !llvm::isa<exir::DelegateRegionOp>(op);
    });
  }
  return n;
}

//===----------------------------------------------------------------------===//
// The ops view
//===----------------------------------------------------------------------===//

void writeOpsView(llvm::raw_ostream &os, func::FuncOp f, Palette &palette) {
  std::string fn = f.getSymName().str();
  os << "  subgraph " << quote("cluster_" + fn) << " {\n    label=" << quote(clusterLabel(f, false))
     << ";\n";
  llvm::DenseMap<Operation *, std::string> id;
  llvm::DenseMap<Value, std::string> producer; // value -> node id
  int next = 0, regions = 0;
  for (BlockArgument a : f.getArguments()) {
    if (a.use_empty() || isWeight(f, a)) // unused, or a line in its users' labels
      continue;
    std::string n = fn + "_arg" + std::to_string(a.getArgNumber());
    os << "    " << quote(n) << " [label=" << quote(argText(f, a, "\n"))
       << ", shape=ellipse, style=filled, fillcolor=" << quote(kValueFill) << "];\n";
    producer[a] = n;
  }
  auto node = [&](Operation *op, const std::string &indent, const char *fill) {
    std::string n = fn + "_op" + std::to_string(next++);
    id[op] = n;
    std::string text = opName(op), extra;
    for (Type t : op->getResultTypes())
      text += "\n" + shapeText(t);
    // The weights it reads, folded in.
    size_t weights = 0;
    for (Value v : op->getOperands()) {
      auto a = llvm::dyn_cast<BlockArgument>(v);
      if (!a || a.getOwner() != &f.getBody().front() || !isWeight(f, a))
        continue;
      if (weights++ < kWeightLines)
        text += "\n" + argText(f, a, " ");
    }
    if (weights > kWeightLines)
      text += "\n+" + std::to_string(weights - kWeightLines) + " more weights";
    // Left on portable kernels: say why (exir-partition's reason).
    if (auto why = op->getAttrOfType<StringAttr>("exir.refused")) {
      text += "\nportable: " + shorten(why.str(), 60);
      fill = kPortableFill;
      extra = ", class=\"refused\", tooltip=" + quote(why.str());
    }
    os << indent << quote(n) << " [label=" << quote(text) << ", style=filled, fillcolor="
       << quote(fill) << extra << "];\n";
    for (Value r : op->getResults())
      producer[r] = n;
  };
  for (Operation &op : f.getBody().front()) {
    if (auto region = llvm::dyn_cast<exir::DelegateRegionOp>(op)) {
      std::string backend = region.getBackend().str();
      Block &body = region.getBody().front();
      int64_t ops = static_cast<int64_t>(body.getOperations().size()) - 1;
      // "region k" numbers the regions of a function in program order,
      // as the compile report's delegate regions do.
      int index = regions++;
      os << "    subgraph " << quote("cluster_" + fn + "_region" + std::to_string(index))
         << " {\n      label="
         << quote("region " + std::to_string(index) + ": " + backend + " (" +
                  std::to_string(ops) + (ops == 1 ? " op)" : " ops)"))
         << ";\n      style=filled;\n      color=" << quote(palette.of(backend))
         << ";\n      class=\"delegate-region\";\n";
      for (Operation &inner : body.without_terminator())
        node(&inner, "      ", "#ffffff");
      os << "    }\n";
      // The region's results come from the ops that yield them.
      auto yield = body.getTerminator();
      for (auto [r, v] : llvm::zip(region.getResults(), yield->getOperands()))
        producer[r] = producer.lookup(v);
      continue;
    }
    node(&op, "    ", llvm::isa<func::ReturnOp>(op) ? kValueFill : "#ffffff");
  }
  // Edges: producer -> every user (ops inside regions included).
  f.walk([&](Operation *user) {
    auto it = id.find(user);
    if (it == id.end())
      return;
    for (Value v : user->getOperands()) {
      std::string from = producer.lookup(v);
      if (!from.empty())
        os << "    " << quote(from) << " -> " << quote(it->second) << ";\n";
    }
  });
  os << "  }\n";
}

//===----------------------------------------------------------------------===//
// The regions view
//===----------------------------------------------------------------------===//

/// A node of the regions view: a delegate region, a run of ops left on
/// portable kernels, or the results.
struct Group {
  enum Kind { Region, Portable, Results } kind;
  std::string id;
  std::vector<Operation *> ops; // top-level ops of the function
};

/// `noBackend`: the module has no delegate region and no refusal reason,
/// so no backend was asked about its ops.
std::string groupLabel(const Group &g, int regionIndex, bool noBackend) {
  std::map<std::string, int64_t> kinds, reasons;
  int64_t n = 0, aten = 0;
  for (Operation *top : g.ops)
    top->walk([&](Operation *op) {
      if (llvm::isa<exir::DelegateRegionOp, exir::YieldOp>(op))
        return;
      ++n;
      aten += llvm::isa<exir::AtenOp>(op);
      ++kinds[opName(op)];
      if (auto why = op->getAttrOfType<StringAttr>("exir.refused"))
        ++reasons[why.str()];
    });
  if (g.kind == Group::Results)
    return "results\n" + shapesText(g.ops.front()->getOperands());
  if (g.kind == Group::Region) {
    auto region = llvm::cast<exir::DelegateRegionOp>(g.ops.front());
    return "region " + std::to_string(regionIndex) + ": " + region.getBackend().str() + "\n" +
           std::to_string(n) + (n == 1 ? " op: " : " ops: ") + kindsText(kinds, 3) + "\n" +
           shapesText(region.getResults());
  }
  // Calls of extracted functions and other structure are not kernels.
  std::string s = std::to_string(n) + (n == 1 ? " op" : " ops") +
                  (aten == n ? " on portable kernels\n" : " outside delegate regions\n") +
                  kindsText(kinds, 3);
  if (!reasons.empty()) {
    auto most = std::max_element(reasons.begin(), reasons.end(), [](auto &a, auto &b) {
      return a.second < b.second;
    });
    s += "\nwhy: " + shorten(most->first, 60);
    if (reasons.size() > 1)
      s += " (+" + std::to_string(reasons.size() - 1) +
           (reasons.size() == 2 ? " other reason)" : " other reasons)");
  } else if (noBackend) {
    s += "\nwhy: no backend requested (--backend)";
  }
  return s;
}

void writeRegionsView(llvm::raw_ostream &os, func::FuncOp f, Palette &palette,
                      bool noBackend) {
  std::string fn = f.getSymName().str();
  Block &body = f.getBody().front();
  os << "  subgraph " << quote("cluster_" + fn) << " {\n    label=" << quote(clusterLabel(f, true))
     << ";\n";
  // Program order: a region is a group; the ops between two regions are one.
  std::vector<Group> groups;
  for (Operation &op : body) {
    Group::Kind kind = llvm::isa<exir::DelegateRegionOp>(op) ? Group::Region
                       : llvm::isa<func::ReturnOp>(op)       ? Group::Results
                                                             : Group::Portable;
    if (kind != Group::Portable || groups.empty() || groups.back().kind != Group::Portable)
      groups.push_back({kind, fn + "_g" + std::to_string(groups.size()), {}});
    groups.back().ops.push_back(&op);
  }
  llvm::DenseMap<Operation *, size_t> groupOf; // top-level op -> group
  for (size_t g = 0; g < groups.size(); ++g)
    for (Operation *op : groups[g].ops)
      groupOf[op] = g;
  std::map<unsigned, std::string> inputs; // used user inputs: arg -> node id
  for (BlockArgument a : f.getArguments())
    if (!a.use_empty() && !isWeight(f, a)) {
      std::string n = fn + "_arg" + std::to_string(a.getArgNumber());
      inputs[a.getArgNumber()] = n;
      os << "    " << quote(n) << " [label=" << quote(argText(f, a, "\n"))
         << ", shape=ellipse, style=filled, fillcolor=" << quote(kValueFill) << "];\n";
    }
  int regionIndex = 0;
  for (const Group &g : groups) {
    std::string fill = "#ffffff", extra;
    if (g.kind == Group::Region) {
      fill = palette.of(llvm::cast<exir::DelegateRegionOp>(g.ops.front()).getBackend().str());
      extra = ", class=\"delegate-region\"";
    } else if (g.kind == Group::Portable) {
      fill = kPortableFill;
      extra = ", class=\"portable\"";
    } else {
      fill = kValueFill;
    }
    os << "    " << quote(g.id) << " [label=" << quote(groupLabel(g, regionIndex, noBackend))
       << ", style=filled, fillcolor=" << quote(fill) << extra << "];\n";
    regionIndex += g.kind == Group::Region;
  }
  // Edges between groups (and from inputs), once each.
  std::set<std::pair<std::string, std::string>> edges;
  for (const Group &g : groups)
    for (Operation *top : g.ops)
      top->walk([&](Operation *user) {
        for (Value v : user->getOperands()) {
          std::string from;
          if (auto a = llvm::dyn_cast<BlockArgument>(v)) {
            if (a.getOwner() == &body && inputs.count(a.getArgNumber()))
              from = inputs[a.getArgNumber()];
          } else if (Operation *def = body.findAncestorOpInBlock(*v.getDefiningOp())) {
            auto it = groupOf.find(def);
            if (it != groupOf.end() && groups[it->second].id != g.id)
              from = groups[it->second].id;
          }
          if (!from.empty() && edges.insert({from, g.id}).second)
            os << "    " << quote(from) << " -> " << quote(g.id) << ";\n";
        }
      });
  os << "  }\n";
}

void writeLegend(llvm::raw_ostream &os, const Palette &palette, bool regionsView) {
  os << "  subgraph \"cluster_legend\" {\n    label=\"legend\";\n    class=\"legend\";\n"
     << "    \"legend_value\" [label=\"user input\\n(name, shape)\", shape=ellipse, "
        "style=filled, fillcolor="
     << quote(kValueFill) << "];\n";
  if (regionsView)
    os << "    \"legend_portable\" [label=\"N ops on portable kernels\\n(kinds; why)\", "
          "style=filled, fillcolor="
       << quote(kPortableFill) << "];\n";
  else
    os << "    \"legend_op\" [label=\"op\\n(result shapes;\\nweights it reads)\", "
          "style=filled, fillcolor=\"#ffffff\"];\n"
       << "    \"legend_portable\" [label=\"op left on portable kernels\\n(portable: why)\", "
          "style=filled, fillcolor="
       << quote(kPortableFill) << "];\n";
  int k = 0;
  for (auto &[backend, color] : palette.colors)
    os << "    " << quote("legend_backend" + std::to_string(k++))
       << " [label=" << quote("region k: " + backend + "\n(delegated to it)")
       << ", style=filled, fillcolor=" << quote(color) << "];\n";
  os << "  }\n";
}

} // namespace

std::string partitionGraphDot(ModuleOp module, DotView view) {
  bool regions = view == DotView::Regions ||
                 (view == DotView::Auto && opsViewNodes(module) > kCollapseAbove);
  Palette palette;
  std::string s;
  llvm::raw_string_ostream os(s);
  os << "digraph partition {\n  rankdir=TB;\n  node [shape=box, fontname=\"sans-serif\", "
        "fontsize=10];\n";
  os << "  label=" << quote(regions ? "one node per delegate region and per run of portable ops"
                                    : "one node per op")
     << ";\n  class=" << quote(regions ? "view-regions" : "view-ops") << ";\n";
  bool noBackend = !module
                        .walk([](Operation *op) {
                          return llvm::isa<exir::DelegateRegionOp>(op) ||
                                         op->hasAttr("exir.refused")
                                     ? WalkResult::interrupt()
                                     : WalkResult::advance();
                        })
                        .wasInterrupted();
  for (auto f : module.getOps<func::FuncOp>()) {
    if (f.isDeclaration())
      continue;
    if (regions)
      writeRegionsView(os, f, palette, noBackend);
    else
      writeOpsView(os, f, palette);
  }
  writeLegend(os, palette, regions);
  os << "}\n";
  return os.str();
}

} // namespace ptec
