// SymExpr evaluation: checked int64 evaluation under an environment, and
// interval bounds with a monotonicity check under symbol ranges, both on
// exact __int128 arithmetic.
#include "serde/pt2/SymExprInternal.h"

namespace ptec::pt2 {
namespace detail {
namespace {

// --------------------------------------------------------------- arithmetic
// Values are __int128 so that sums and products of int64 are exact; PINF/NINF
// stand for anything past int64: an overflow when evaluating, an unbounded end
// of an interval.

using X = __int128;
constexpr X PINF = X(1) << 100;
constexpr X NINF = -PINF;

bool isInf(X v) { return v == PINF || v == NINF; }
X norm(X v) { return v > kI64Max ? PINF : v < kI64Min ? NINF : v; }
// An exact sum of int64 values (or an infinity), so the order of terms never
// matters. A sum never mixes PINF and NINF: lower ends are never PINF, upper
// ends never NINF.
template <typename F>
X xsum(size_t n, F term) {
  X sum = 0;
  for (size_t i = 0; i < n; ++i) {
    if (isInf(term(i)))
      return term(i);
    sum += term(i);
  }
  return norm(sum);
}
X xmul(X a, X b) {
  if (a == 0 || b == 0)
    return 0;
  if (isInf(a) || isInf(b))
    return ((a < 0) != (b < 0)) ? NINF : PINF;
  return norm(a * b);
}
X xpow(X v, int64_t e) {  // e >= 1
  bool neg = v < 0 && (e % 2);
  if (isInf(v))
    return neg ? NINF : PINF;
  const X big = X(1) << 63;  // |r| <= 2^63 keeps r * a exact; past it nothing fits
  X a = v < 0 ? -v : v, r = a;
  for (int64_t i = 1; i < e && a > 1 && r <= big; ++i)
    r *= a;
  if (r > big)
    return neg ? NINF : PINF;
  return norm(neg ? -r : r);
}
// floor/ceil of a/b with b >= 1 (b may be PINF); a and b never both infinite.
X xdiv(X a, X b, bool ceil) {
  if (b == PINF)
    return a > 0 ? (ceil ? 1 : 0) : a == 0 ? 0 : (ceil ? 0 : -1);
  if (isInf(a))
    return a;
  X q = a / b;  // truncates; b > 0
  if (a % b != 0) {
    if (!ceil && a < 0)
      --q;
    if (ceil && a > 0)
      ++q;
  }
  return norm(q);
}
X xdivAny(X a, X b, bool ceil) { return b < 0 ? xdiv(-a, -b, ceil) : xdiv(a, b, ceil); }  // finite b != 0
X xmod(X a, X b) {  // finite b != 0; Python: the result has b's sign
  X r = a % b;
  return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;
}

}  // namespace

// --------------------------------------------------------------- evaluation

std::optional<int64_t> eval(const NodeP &n, const std::map<std::string, int64_t> &env, std::string *error) {
  if (n->kind == SymKind::Integer)
    return n->value;
  if (n->kind == SymKind::Symbol) {
    auto it = env.find(n->name);
    if (it == env.end()) {
      setError(error, "symbol '" + n->name + "' has no value");
      return std::nullopt;
    }
    return it->second;
  }
  std::vector<X> v;
  for (const NodeP &k : n->kids) {
    std::optional<int64_t> x = eval(k, env, error);
    if (!x)
      return std::nullopt;
    v.push_back(*x);
  }
  X r = v[0];
  switch (n->kind) {
  case SymKind::Add:
    r = xsum(v.size(), [&](size_t i) { return v[i]; });
    break;
  case SymKind::Mul:  // |partial products| only grow unless a factor is 0, and xmul(inf, 0) = 0
    for (size_t i = 1; i < v.size(); ++i)
      r = xmul(r, v[i]);
    break;
  case SymKind::Pow:
    r = n->value == 0 ? 1 : xpow(r, n->value);
    break;
  case SymKind::Max:
    r = *std::max_element(v.begin(), v.end());
    break;
  case SymKind::Min:
    r = *std::min_element(v.begin(), v.end());
    break;
  default:  // FloorDiv, CeilDiv, Mod
    if (v[1] == 0) {
      setError(error, "division by zero in '" + shortText(n) + "'");
      return std::nullopt;
    }
    r = n->kind == SymKind::Mod ? xmod(r, v[1]) : xdivAny(r, v[1], n->kind == SymKind::CeilDiv);
  }
  if (isInf(r)) {
    setError(error, "int64 overflow in '" + shortText(n) + "'");
    return std::nullopt;
  }
  return static_cast<int64_t>(r);
}

namespace {

// ----------------------------------------------------------------- intervals

struct Iv {
  X lo, hi;
};

// a / b for b entirely >= 1: both ends come from known corners (a/b rises
// with a, and with b falls for a >= 0 and rises for a < 0).
Iv divPositive(Iv a, Iv b, bool ceil) {
  return {xdiv(a.lo, a.lo >= 0 ? b.hi : b.lo, ceil), xdiv(a.hi, a.hi >= 0 ? b.lo : b.hi, ceil)};
}

struct Info {
  Iv iv;
  bool mono;   // non-decreasing in every symbol
  bool konst;  // no symbols
};

std::optional<Info> analyze(const NodeP &n, const std::map<std::string, SymRange> &ranges, std::string *error) {
  auto fail = [&](const std::string &msg) -> std::optional<Info> {
    setError(error, msg);
    return std::nullopt;
  };
  if (n->kind == SymKind::Integer)
    return Info{{n->value, n->value}, true, true};
  if (n->kind == SymKind::Symbol) {
    auto it = ranges.find(n->name);
    if (it == ranges.end())
      return fail("symbol '" + n->name + "' has no range");
    const SymRange &r = it->second;
    if (r.max && *r.max < r.min)
      return fail("symbol '" + n->name + "' has an empty range [" + std::to_string(r.min) + ", " +
                  std::to_string(*r.max) + "]");
    return Info{{r.min, r.max ? X(*r.max) : PINF}, true, false};
  }
  std::vector<Info> k;
  bool allMono = true, allConst = true;
  for (const NodeP &kid : n->kids) {
    std::optional<Info> i = analyze(kid, ranges, error);
    if (!i)
      return std::nullopt;
    allMono = allMono && i->mono;
    allConst = allConst && i->konst;
    k.push_back(*i);
  }
  if (allConst) {  // exact, so that a monotone expression reaches its upper bound
    std::optional<int64_t> v = eval(n, {}, error);
    if (!v)
      return std::nullopt;
    return Info{{*v, *v}, true, true};
  }
  Info out{k[0].iv, false, false};
  switch (n->kind) {
  case SymKind::Add:
    out.iv = {xsum(k.size(), [&](size_t i) { return k[i].iv.lo; }),
              xsum(k.size(), [&](size_t i) { return k[i].iv.hi; })};
    out.mono = allMono;
    break;
  case SymKind::Mul: {
    for (size_t i = 1; i < k.size(); ++i) {
      Iv a = out.iv, b = k[i].iv;
      X c[4] = {xmul(a.lo, b.lo), xmul(a.lo, b.hi), xmul(a.hi, b.lo), xmul(a.hi, b.hi)};
      out.iv = {*std::min_element(c, c + 4), *std::max_element(c, c + 4)};
    }
    // Monotone when every factor is monotone and >= 0, or when the only factor
    // that may be negative is multiplied by non-negative constants alone.
    size_t negative = 0;
    bool othersConstNonNeg = true;
    for (const Info &i : k)
      negative += i.iv.lo < 0;
    if (negative == 1)
      for (const Info &i : k)
        if (i.iv.lo >= 0 && !i.konst)
          othersConstNonNeg = false;
    out.mono = allMono && (negative == 0 || (negative == 1 && othersConstNonNeg));
    break;
  }
  case SymKind::Pow: {
    int64_t e = n->value;
    Iv b = k[0].iv;
    if (e == 0)
      out.iv = {1, 1};
    else if (b.lo >= 0 || e % 2)
      out.iv = {xpow(b.lo, e), xpow(b.hi, e)};
    else if (b.hi <= 0)
      out.iv = {xpow(b.hi, e), xpow(b.lo, e)};
    else
      out.iv = {0, std::max(xpow(b.lo, e), xpow(b.hi, e))};
    out.mono = e == 0 || (allMono && (b.lo >= 0 || e % 2));
    break;
  }
  case SymKind::FloorDiv:
  case SymKind::CeilDiv:
  case SymKind::Mod: {  // the divisor's positive and negative parts, zero left out
    bool ceil = n->kind == SymKind::CeilDiv, mod = n->kind == SymKind::Mod;
    Iv a = k[0].iv, b = k[1].iv;
    std::optional<Iv> r;
    auto unite = [&](Iv x) { r = r ? Iv{std::min(r->lo, x.lo), std::max(r->hi, x.hi)} : x; };
    X plo = std::max<X>(b.lo, 1), nhi = std::min<X>(b.hi, -1);
    if (b.hi >= 1 && !mod)
      unite(divPositive(a, {plo, b.hi}, ceil));
    if (b.lo <= -1 && !mod)  // a/b = (-a)/(-b)
      unite(divPositive({-a.hi, -a.lo}, {-nhi, -b.lo}, ceil));
    // a % p for p in [plo, hi]: in [0, p-1], at most a when a >= 0, a itself when 0 <= a < p.
    if (b.hi >= 1 && mod)
      unite(a.lo >= 0 && a.hi < plo ? a : Iv{0, std::min(b.hi == PINF ? PINF : b.hi - 1, a.lo >= 0 ? a.hi : PINF)});
    // a % q for q in [lo, nhi]: in [q+1, 0], at least a when a <= 0, a itself when q < a <= 0.
    if (b.lo <= -1 && mod)
      unite(a.hi <= 0 && a.lo > nhi ? a : Iv{std::max(b.lo == NINF ? NINF : b.lo + 1, a.hi <= 0 ? a.lo : NINF), 0});
    if (!r)
      return fail("division by zero in '" + shortText(n) + "'");
    out.iv = *r;
    out.mono = !mod && k[0].mono && k[1].konst && b.lo >= 1;
    break;
  }
  case SymKind::Max:
  case SymKind::Min:
    for (size_t i = 1; i < k.size(); ++i)
      out.iv = n->kind == SymKind::Max
                   ? Iv{std::max(out.iv.lo, k[i].iv.lo), std::max(out.iv.hi, k[i].iv.hi)}
                   : Iv{std::min(out.iv.lo, k[i].iv.lo), std::min(out.iv.hi, k[i].iv.hi)};
    out.mono = allMono;
    break;
  default:
    break;
  }
  if (out.iv.lo == PINF || out.iv.hi == NINF)
    return fail("int64 overflow for every value of '" + shortText(n) + "'");
  return out;
}

}  // namespace

void collectSymbols(const NodeP &n, std::set<std::string> &out) {
  if (n->kind == SymKind::Symbol)
    out.insert(n->name);
  for (const NodeP &k : n->kids)
    collectSymbols(k, out);
}

}  // namespace detail

using namespace detail;

std::optional<int64_t> SymExpr::evaluate(const std::map<std::string, int64_t> &env, std::string *error) const {
  return eval(root_, env, error);
}

std::optional<SymInterval> SymExpr::bounds(const std::map<std::string, SymRange> &ranges, std::string *error) const {
  std::optional<Info> info = analyze(root_, ranges, error);
  if (!info)
    return std::nullopt;
  SymInterval out;
  out.loUnbounded = info->iv.lo == NINF;
  out.hiUnbounded = info->iv.hi == PINF;
  out.lo = out.loUnbounded ? kI64Min : static_cast<int64_t>(info->iv.lo);
  out.hi = out.hiUnbounded ? kI64Max : static_cast<int64_t>(info->iv.hi);
  return out;
}

bool SymExpr::isMonotone(const std::map<std::string, SymRange> &ranges) const {
  std::optional<Info> info = analyze(root_, ranges, nullptr);
  return info && info->mono;
}

std::optional<int64_t> SymExpr::asConstant() const {
  std::set<std::string> syms;
  symbols(syms);
  if (!syms.empty())
    return std::nullopt;
  return evaluate({}, nullptr);
}

}  // namespace ptec::pt2
