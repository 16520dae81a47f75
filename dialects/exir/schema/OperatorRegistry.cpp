// The operator registry: schemas by full name, and the mappings between
// functional, in-place and out-variant forms of an operator.
#include "dialects/exir/schema/OperatorSchema.h"

#include <algorithm>

namespace ptec::schema {

namespace {

void setError(ParseError *err, std::string msg, size_t pos = 0) {
  if (err) {
    err->message = std::move(msg);
    err->position = pos;
  }
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\r'))
    s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r'))
    s.remove_suffix(1);
  return s;
}

// A line without its '#' comment (a '#' inside a quoted default is kept).
std::string_view stripComment(std::string_view line) {
  char quote = 0;
  for (size_t i = 0; i < line.size(); ++i) {
    char c = line[i];
    if (quote) {
      if (c == '\\')
        ++i;
      else if (c == quote)
        quote = 0;
    } else if (c == '\'' || c == '"') {
      quote = c;
    } else if (c == '#') {
      return line.substr(0, i);
    }
  }
  return line;
}

// The non-out arguments of `candidate` are the arguments of `functional`:
// same names and types in the same order (alias annotations ignored).
bool sameNonOutArguments(const FunctionSchema &functional, const FunctionSchema &candidate) {
  size_t k = 0;
  for (const Argument &a : candidate.arguments) {
    if (a.isOut())
      continue;
    if (k >= functional.arguments.size())
      return false;
    const Argument &f = functional.arguments[k++];
    if (f.name != a.name || !f.type.equals(a.type, /*withAlias=*/false))
      return false;
  }
  return k == functional.arguments.size();
}

// Same argument names and types, ignoring annotations (in-place vs functional).
bool sameArgumentsIgnoringAlias(const FunctionSchema &a, const FunctionSchema &b) {
  if (a.arguments.size() != b.arguments.size())
    return false;
  for (size_t i = 0; i < a.arguments.size(); ++i)
    if (a.arguments[i].name != b.arguments[i].name ||
        !a.arguments[i].type.equals(b.arguments[i].type, /*withAlias=*/false))
      return false;
  return true;
}

bool endsWith(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

} // namespace

bool splitOperatorName(std::string_view fullName, std::string *ns, std::string *name,
                       std::string *overload) {
  std::string_view rest = fullName;
  std::string_view nsPart = "aten";
  size_t colons = rest.find("::");
  if (colons != std::string_view::npos) {
    nsPart = rest.substr(0, colons);
    rest = rest.substr(colons + 2);
  }
  std::string_view namePart = rest, overloadPart;
  size_t dot = rest.find('.');
  if (dot != std::string_view::npos) {
    namePart = rest.substr(0, dot);
    overloadPart = rest.substr(dot + 1);
    if (overloadPart.empty() || overloadPart.find('.') != std::string_view::npos)
      return false;
  }
  if (nsPart.empty() || namePart.empty() || namePart.find(':') != std::string_view::npos)
    return false;
  if (overloadPart == "default")
    overloadPart = {};
  *ns = std::string(nsPart);
  *name = std::string(namePart);
  *overload = std::string(overloadPart);
  return true;
}

OperatorRegistry::OperatorRegistry() = default;
OperatorRegistry::~OperatorRegistry() = default;
OperatorRegistry::OperatorRegistry(OperatorRegistry &&) noexcept = default;
OperatorRegistry &OperatorRegistry::operator=(OperatorRegistry &&) noexcept = default;

const OperatorRegistry &OperatorRegistry::builtin() {
  // Function-local static: initialised once, thread-safe (C++11).
  static const OperatorRegistry registry = [] {
    OperatorRegistry r;
    r.addTable(builtinSchemaTable(), &r.loadErrors_);
    return r;
  }();
  return registry;
}

const FunctionSchema *OperatorRegistry::lookup(std::string_view fullName) const {
  std::string ns, name, overload;
  if (!splitOperatorName(fullName, &ns, &name, &overload))
    return nullptr;
  std::string key = ns + "::" + name;
  if (overload.empty()) {
    auto it = byName_.find(key);
    if (it != byName_.end())
      return it->second;
    // Operators stored with an explicit "default" overload (executorch_prim::et_view.default).
    it = byName_.find(key + ".default");
    return it == byName_.end() ? nullptr : it->second;
  }
  auto it = byName_.find(key + "." + overload);
  return it == byName_.end() ? nullptr : it->second;
}

const FunctionSchema *OperatorRegistry::lookupTarget(std::string_view target) const {
  if (target.find("::") != std::string_view::npos)
    return lookup(target);
  std::string_view t = target;
  if (t.substr(0, 10) == "torch.ops.")
    t.remove_prefix(10);
  // ns.op.overload: the last three dot-separated atoms.
  size_t d2 = t.rfind('.');
  if (d2 == std::string_view::npos || d2 == 0)
    return nullptr;
  size_t d1 = t.rfind('.', d2 - 1);
  if (d1 == std::string_view::npos)
    return nullptr;
  size_t d0 = d1 == 0 ? std::string_view::npos : t.rfind('.', d1 - 1);
  std::string_view ns = t.substr(d0 == std::string_view::npos ? 0 : d0 + 1,
                                 d1 - (d0 == std::string_view::npos ? 0 : d0 + 1));
  std::string full = std::string(ns) + "::" + std::string(t.substr(d1 + 1));
  return lookup(full);
}

const FunctionSchema *OperatorRegistry::outVariantOf(const FunctionSchema &schema) const {
  if (schema.isOutVariant())
    return lookup(schema.fullName());
  // In-place ops map through their functional form; other mutating ops
  // (_native_batch_norm_legit updates running stats) match as they are.
  const FunctionSchema *functional = &schema;
  if (schema.isInplace()) {
    functional = functionalOf(schema);
    if (!functional)
      return nullptr;
  }
  std::string fname = functional->fullName();
  auto ov = outOverrides_.find(fname);
  if (ov != outOverrides_.end())
    return ov->second;

  auto group = byOpName_.find(functional->ns + "::" + functional->name);
  if (group == byOpName_.end())
    return nullptr;
  std::string preferred = functional->overload.empty() ? "out" : functional->overload + "_out";
  const FunctionSchema *best = nullptr;
  int bestRank = 3;
  for (const FunctionSchema *c : group->second) {
    if (!c->isOutVariant() || !sameNonOutArguments(*functional, *c))
      continue;
    int rank = c->overload == preferred ? 0 : (c->overload == "out" ? 1 : 2);
    if (rank < bestRank) {
      best = c;
      bestRank = rank;
    }
  }
  return best;
}

const FunctionSchema *OperatorRegistry::functionalOf(const FunctionSchema &schema) const {
  if (!schema.isMutable())
    return lookup(schema.fullName());
  std::string sname = schema.fullName();
  for (const auto &kv : outOverrides_)
    if (kv.second->fullName() == sname)
      return lookup(kv.first);

  if (schema.isOutVariant()) {
    auto group = byOpName_.find(schema.ns + "::" + schema.name);
    if (group == byOpName_.end())
      return nullptr;
    std::string preferred;
    if (schema.overload != "out") {
      preferred = schema.overload;
      if (endsWith(preferred, "_out"))
        preferred.resize(preferred.size() - 4);
      else if (endsWith(preferred, "out"))
        preferred.resize(preferred.size() - 3);
    }
    const FunctionSchema *best = nullptr;
    int bestRank = 2;
    for (const FunctionSchema *c : group->second) {
      if (c->isMutable() || !sameNonOutArguments(*c, schema))
        continue;
      int rank = c->overload == preferred ? 0 : 1;
      if (rank < bestRank) {
        best = c;
        bestRank = rank;
      }
    }
    return best;
  }

  // In-place: add_.Tensor -> add.Tensor (same arguments without annotations);
  // Python's in-place operators: __iand__.Tensor -> __and__.Tensor.
  if (!endsWith(schema.name, "_") || schema.name.size() < 2)
    return nullptr;
  std::string base = schema.name.substr(0, schema.name.size() - 1);
  if (schema.name.size() > 5 && schema.name.compare(0, 3, "__i") == 0 &&
      endsWith(schema.name, "__"))
    base = "__" + schema.name.substr(3);
  auto group = byOpName_.find(schema.ns + "::" + base);
  if (group == byOpName_.end())
    return nullptr;
  const FunctionSchema *best = nullptr;
  for (const FunctionSchema *c : group->second) {
    if (c->isMutable() || !sameArgumentsIgnoringAlias(*c, schema))
      continue;
    if (c->overload == schema.overload)
      return c;
    if (!best)
      best = c;
  }
  if (best)
    return best;
  // Same types in the same order under other names (`dropout_(self, ...)`
  // and `dropout(input, ...)`): the arguments correspond by position.
  for (const FunctionSchema *c : group->second) {
    if (c->isMutable() || c->arguments.size() != schema.arguments.size())
      continue;
    bool same = true;
    for (size_t i = 0; i < c->arguments.size() && same; ++i)
      same = c->arguments[i].type.equals(schema.arguments[i].type, /*withAlias=*/false);
    if (same)
      return c;
  }
  return nullptr;
}

size_t OperatorRegistry::size() const { return schemas_.size(); }

std::vector<const FunctionSchema *> OperatorRegistry::all() const {
  std::vector<const FunctionSchema *> out;
  out.reserve(byName_.size());
  for (const auto &kv : byName_)
    out.push_back(kv.second);
  return out;
}

bool OperatorRegistry::add(std::string_view schemaText, ParseError *err) {
  ParseError perr;
  std::optional<FunctionSchema> fs = parseSchema(schemaText, &perr);
  if (!fs) {
    if (err)
      *err = perr;
    return false;
  }
  if (!fs->hasSignature) {
    setError(err, "schema '" + fs->fullName() + "' has no signature");
    return false;
  }
  std::string full = fs->fullName();
  if (byName_.count(full)) {
    setError(err, "duplicate schema '" + full + "'");
    return false;
  }
  schemas_.push_back(std::make_unique<FunctionSchema>(std::move(*fs)));
  const FunctionSchema *p = schemas_.back().get();
  byName_.emplace(full, p);
  auto &group = byOpName_[p->ns + "::" + p->name];
  group.push_back(p);
  std::sort(group.begin(), group.end(), [](const FunctionSchema *a, const FunctionSchema *b) {
    return a->overload < b->overload;
  });
  return true;
}

bool OperatorRegistry::addOutOverride(std::string_view functional, std::string_view out,
                                      ParseError *err) {
  const FunctionSchema *f = lookup(functional);
  const FunctionSchema *o = lookup(out);
  if (!f) {
    setError(err, "unknown operator '" + std::string(functional) + "'");
    return false;
  }
  if (!o) {
    setError(err, "unknown operator '" + std::string(out) + "'");
    return false;
  }
  if (!o->isOutVariant()) {
    setError(err, "'" + o->fullName() + "' is not an out variant");
    return false;
  }
  outOverrides_[f->fullName()] = o;
  return true;
}

bool OperatorRegistry::addTable(std::string_view table, std::vector<std::string> *errors) {
  bool ok = true;
  auto report = [&](size_t line, const std::string &msg) {
    ok = false;
    if (errors)
      errors->push_back("line " + std::to_string(line) + ": " + msg);
  };
  struct Override {
    size_t line;
    std::string functional, out;
  };
  std::vector<Override> overrides;
  size_t lineNo = 0;
  size_t pos = 0;
  while (pos <= table.size()) {
    size_t nl = table.find('\n', pos);
    std::string_view line =
        table.substr(pos, nl == std::string_view::npos ? std::string_view::npos : nl - pos);
    pos = nl == std::string_view::npos ? table.size() + 1 : nl + 1;
    ++lineNo;
    line = trim(stripComment(line));
    if (line.empty())
      continue;
    if (line.substr(0, 4) == "@out") {
      std::string_view rest = trim(line.substr(4));
      size_t sp = rest.find_first_of(" \t");
      if (sp == std::string_view::npos) {
        report(lineNo, "'@out' needs a functional and an out-variant name");
        continue;
      }
      overrides.push_back(
          {lineNo, std::string(trim(rest.substr(0, sp))), std::string(trim(rest.substr(sp)))});
      continue;
    }
    ParseError err;
    if (!add(line, &err))
      report(lineNo, err.message);
  }
  for (const Override &o : overrides) {
    ParseError err;
    if (!addOutOverride(o.functional, o.out, &err))
      report(o.line, err.message);
  }
  return ok;
}

} // namespace ptec::schema
