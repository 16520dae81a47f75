//===- SessionDiagnostics.cpp - how a compile says what went wrong ---------===//
//
// See SessionDiagnostics.h.
//
//===----------------------------------------------------------------------===//

#include "compiler/SessionDiagnostics.h"

#include "dialects/exir/IR/ExirDialect.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"

using namespace mlir;

namespace ptec {

namespace {

/// "file:line:col: " of the innermost file location ("" when none); line
/// and column left out when 0.
std::string whereOf(Location loc, DiagnosticGroup *g = nullptr) {
  std::optional<FileLineColLoc> f = innermostFileLoc(loc);
  if (!f)
    return "";
  std::string where = f->getFilename().str();
  if (g) {
    g->file = where;
    g->line = f->getLine();
    g->column = f->getColumn();
  }
  if (f->getLine() > 0) {
    where += ":" + std::to_string(f->getLine());
    if (f->getColumn() > 0)
      where += ":" + std::to_string(f->getColumn());
  }
  return where + ": ";
}

const char *severityName(DiagnosticSeverity s) {
  switch (s) {
  case DiagnosticSeverity::Error:
    return "error";
  case DiagnosticSeverity::Warning:
    return "warning";
  case DiagnosticSeverity::Note:
    return "note";
  case DiagnosticSeverity::Remark:
    return "remark";
  }
  return "error";
}

/// The one graph node `loc` is about ("" for none, or for several: a
/// delegate call fuses the locations of its ops).
std::string nodeOfLoc(Location loc) {
  llvm::SmallVector<exir::TaggedNode> nodes;
  exir::collectTaggedNodes(loc, nodes);
  std::string name;
  for (const exir::TaggedNode &n : nodes) {
    if (n.name.empty() || (!name.empty() && n.name != name))
      return "";
    name = n.name;
  }
  return name;
}

constexpr llvm::StringLiteral kNodeMark = "node '\x01'";

} // namespace

MessageSubject subjectOf(llvm::StringRef message) {
  MessageSubject s;
  if (size_t at = message.find("node '"); at != llvm::StringRef::npos) {
    llvm::StringRef rest = message.substr(at + 6);
    if (size_t end = rest.find('\''); end != llvm::StringRef::npos)
      s.node = rest.take_front(end).str();
  }
  if (size_t at = message.find("aten::"); at != llvm::StringRef::npos) {
    size_t end = at + 6;
    while (end < message.size() &&
           (llvm::isAlnum(message[end]) || message[end] == '_' || message[end] == '.'))
      ++end;
    s.op = message.slice(at, end).rtrim('.').str();
  }
  return s;
}

std::string hintFor(llvm::StringRef message, llvm::ArrayRef<std::string> backends) {
  std::string lower = message.lower();
  llvm::StringRef text(lower);
  // A message that already says what to do needs no second line.
  if (text.contains("model.eval()") || text.contains("no_grad"))
    return "";
  if (text.contains("training mode") || text.contains("gradient") ||
      text.contains("requires_grad") || text.contains("autograd"))
    return "the model was exported for training; re-export it for inference: call "
           "model.eval() and run torch.export.export under torch.no_grad()";
  if (text.contains("not supported") || text.contains("unknown operator") ||
      text.contains("no cpu kernel")) {
    std::string op = subjectOf(message).op;
    if (!backends.empty() && !op.empty())
      return "--backend " + llvm::join(backends, " or --backend ") + " takes " + op +
             " here: an op given to a backend needs no CPU kernel of ptec's";
    if (op.empty())
      return "";
    return "ptec does not support " + op + " yet; 'aot-compile --list-ops " + op +
           "' says why, 'aot-compile --list-ops' lists every operator ptec supports";
  }
  return "";
}

std::string nodeList(llvm::ArrayRef<std::string> nodes) {
  constexpr size_t kShown = 6;
  std::string text = std::to_string(nodes.size()) + " nodes (";
  size_t shown = nodes.size() <= kShown + 2 ? nodes.size() : kShown;
  for (size_t i = 0; i < shown; ++i)
    text += (i == 0 ? "" : i + 1 == shown && shown == nodes.size() ? " and " : ", ") + nodes[i];
  if (shown < nodes.size())
    text += " and " + std::to_string(nodes.size() - shown) + " more";
  return text + ")";
}

CompileSession::DiagnosticPrinter::DiagnosticPrinter(MLIRContext &ctx, llvm::raw_ostream &os)
    : ctx(ctx), os(os) {
  id = ctx.getDiagEngine().registerHandler([this](Diagnostic &d) {
    // exir-partition's "'aten::mm' in @forward not delegated (demo: why)"
    // remarks: the report and the partition picture take the reasons from
    // the IR instead.
    if (swallowRefusals && d.getSeverity() == DiagnosticSeverity::Remark &&
        llvm::StringRef(d.str()).contains(" not delegated ("))
      return success();
    if (d.getSeverity() == DiagnosticSeverity::Warning)
      ++warnings;
    if (report && capture(d))
      return success();
    take(d);
    return success();
  });
}

CompileSession::DiagnosticPrinter::~DiagnosticPrinter() {
  flush();
  ctx.getDiagEngine().eraseHandler(id);
}

bool CompileSession::DiagnosticPrinter::capture(Diagnostic &d) {
  if (d.getSeverity() == DiagnosticSeverity::Warning) {
    std::string where;
    if (std::optional<FileLineColLoc> f = innermostFileLoc(d.getLocation()))
      where = f->getFilename().str() + ":" + std::to_string(f->getLine());
    report->warnings.push_back((where.empty() ? "" : where + ": ") + d.str());
  }
  return false;
}

void CompileSession::DiagnosticPrinter::take(Diagnostic &d) {
  if (d.getSeverity() == DiagnosticSeverity::Error)
    ++errors;
  Pending p;
  DiagnosticGroup &g = p.group;
  g.severity = severityName(d.getSeverity());
  p.where = whereOf(d.getLocation(), &g);
  if (auto input = exir::inputOfLoc(d.getLocation())) {
    g.input = input->first;
    g.method = input->second;
  }
  g.firstText = d.str();
  // Every message names its node: from the text, else from the location.
  std::string node = subjectOf(g.firstText).node;
  if (node.empty()) {
    node = nodeOfLoc(d.getLocation());
    // ("tensor 'y' has 17 dims" names node y's value already.)
    if (!node.empty() && g.firstText.find("'" + node + "'") == std::string::npos)
      g.firstText = "node '" + node + "': " + g.firstText;
    else
      node.clear();
  }
  if (!node.empty())
    g.nodes.push_back(node);
  g.text = g.firstText;
  for (Diagnostic &note : d.getNotes()) {
    p.notes.push_back(whereOf(note.getLocation()) + "note: " + note.str());
    g.notes.push_back(note.str());
  }
  pending.push_back(std::move(p));
}

void CompileSession::DiagnosticPrinter::flush() {
  if (pending.empty())
    return;
  // Group: the key is everything printed but the node's name.
  std::vector<Pending> groups;
  llvm::StringMap<size_t> index;
  for (Pending &p : pending) {
    DiagnosticGroup &g = p.group;
    std::string text = g.firstText;
    if (!g.nodes.empty())
      if (size_t at = text.find("node '" + g.nodes.front() + "'"); at != std::string::npos)
        text.replace(at, g.nodes.front().size() + 7, kNodeMark.str());
    std::string key = g.severity + '\0' + p.where + '\0' + g.input + '\0' + g.method + '\0' +
                      text + '\0' + llvm::join(p.notes, "\n");
    auto [it, fresh] = index.try_emplace(key, groups.size());
    if (fresh) {
      g.text = text;
      groups.push_back(std::move(p));
      continue;
    }
    DiagnosticGroup &into = groups[it->second].group;
    ++into.count;
    for (const std::string &n : g.nodes)
      if (!llvm::is_contained(into.nodes, n))
        into.nodes.push_back(n);
  }
  pending.clear();

  if (statusShown) { // the progress line goes away before any message
    os << "\r\033[K";
    statusShown = false;
  }
  std::vector<std::string> unsupported, hints;
  for (Pending &p : groups) {
    DiagnosticGroup &g = p.group;
    // The text as printed: the one node, or the count and names.
    std::string text = g.text;
    if (size_t at = text.find(kNodeMark.str()); at != std::string::npos)
      text.replace(at, kNodeMark.size(),
                   g.nodes.size() > 1 ? nodeList(g.nodes) : "node '" + g.nodes.front() + "'");
    if (g.count > 1 && g.nodes.size() <= 1)
      text += " (" + std::to_string(g.count) + " times)";
    g.text = text;
    if (g.severity == "error") {
      std::vector<std::string> backends;
      if (backendsTaking && !g.nodes.empty())
        backends = backendsTaking(g.nodes);
      g.hint = hintFor(g.firstText, backends);
      MessageSubject subject = subjectOf(g.firstText);
      if (llvm::StringRef(g.hint).starts_with("ptec does not support ")) {
        if (!llvm::is_contained(unsupported, subject.op))
          unsupported.push_back(subject.op);
      } else if (!g.hint.empty() && !llvm::is_contained(hints, g.hint)) {
        hints.push_back(g.hint);
      }
    }
    // GCC's "In function" convention: a line naming the input (.pt2 and
    // method) before the first diagnostic from it, so errors that point at
    // the user's Python line still say which exported program they are in.
    if (!g.input.empty()) {
      std::pair<std::string, std::string> input{g.input, g.method};
      if (input != lastInput)
        os << "In " << g.input << ", method " << g.method << ":\n";
      lastInput = input;
    }
    os << p.where << g.severity << ": " << text << '\n';
    for (const std::string &note : p.notes)
      os << note << '\n';
    printed.push_back(g);
  }
  // What to do, once for all the groups: the operators not supported yet in
  // one line, then each other suggestion.
  if (!unsupported.empty())
    os << "note: ptec does not support " << llvm::join(unsupported, ", ")
       << " yet; 'aot-compile --list-ops " << unsupported.front()
       << "' says why, 'aot-compile --list-ops' lists every operator ptec supports\n";
  for (const std::string &hint : hints)
    os << "note: " << hint << '\n';
  os.flush();
}

} // namespace ptec
