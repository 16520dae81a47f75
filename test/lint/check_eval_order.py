#!/usr/bin/env python3
"""Finds calls whose arguments build IR in an unspecified order.

C++ leaves the order in which a call's arguments are evaluated to the
compiler: in `c.binary("aten::logical_and", c.unary("aten::isinf", a),
c.binary("aten::eq.Tensor", a, b))` GCC emits `eq` before `isinf` and Clang
emits `isinf` first. The program computes the same values, but ptec's output
must be the same bytes whichever compiler built it (and the lit tests check
the order). A braced list `{f(), g()}` is evaluated left to right, so its
elements are fine; the list as a whole is one argument like any other.

This check parses the legalizers' C++ roughly (comments and strings removed,
brackets matched) and reports every call with two or more arguments that
each call an IR-building helper. The helpers are the builder methods named
in BUILDERS (`e.mul(..)`, `L.make(..)`), free functions that take a builder
by reference (`vectorNorm(Emit &e, ..)`, `slice(Legalizer &L, ..)`, declared
in the files checked or in the headers beside them) and lambdas whose body
calls a helper (`auto roll = [&](..) { return e.op(..); }`). Usage:

  check_eval_order.py FILE|DIR...   exit 1 and one line per finding, or 0
                                    (a DIR stands for its *.cpp files)
"""
import glob
import os
import re
import sys

# Helper methods that create ops (the legalizers' builders). A name here that
# also reads existing IR is harmless: the check only over-reports.
BUILDERS = {
    "op", "make", "unary", "binary", "withScalar", "constant", "cast", "where",
    "filledLike", "view", "permute", "unsqueeze", "squeeze", "slice", "select",
    "cat", "stack", "t", "indexSelect", "expand", "pad", "add", "sub", "mul",
    "div", "addS", "subS", "mulS", "divS", "rsubS", "clamp", "compareS", "mm",
    "addmm", "toType", "arange", "full", "list", "powS", "mulF", "divF",
    "cmpS", "scalarOp", "reshape", "sum", "mean", "amax", "amin", "neg",
    "sqrt", "rsqrt", "exp", "log", "abs", "flatten", "transpose", "bmm",
    "matmul", "scalarTensor", "zerosLike", "onesLike", "fullLike", "gather",
    "scatter", "index", "copy", "clone", "convert", "broadcastTo", "opmath",
    "buildAten", "buildAtenInferred", "create", "emit", "reduce", "compare",
    "logical", "maximum", "minimum", "square", "pow", "sign", "floor", "ceil",
    "scalar", "clampMin", "clampMax", "anyDims", "moveToEnd", "moveFromEnd",
    "all", "makeAll", "transposeLast2", "finish", "done", "batchNormTraining",
    "evalBatchNorm",
}
CALL = re.compile(r"(?:\.|->)([A-Za-z_]\w*)\s*(?:<[^;(){}]*>\s*)?\(")
# The types of the objects that build IR; a free function with a parameter of
# one of these types by reference is an IR-building helper.
BUILDER_TYPES = r"(?:Legalizer|Emit|Chain|NNOps|OpBuilder|ImplicitLocOpBuilder|" \
    r"PatternRewriter|RewriterBase)"
HELPER = re.compile(r"\b([A-Za-z_]\w*)\s*\(([^(){};]*?)\b" + BUILDER_TYPES + r"\s*&")
LAMBDA = re.compile(r"\bauto\s+([A-Za-z_]\w*)\s*=\s*\[")
NOT_CALLS = {"if", "for", "while", "switch", "return", "sizeof", "decltype"}


def strip(src):
    """Blanks comments, string and char literals, keeping line numbers."""
    out, i, n = [], 0, len(src)
    while i < n:
        if src.startswith("//", i):
            j = src.find("\n", i)
            j = n if j < 0 else j
            i = j
        elif src.startswith("/*", i):
            j = src.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append("\n" * src.count("\n", i, j))
            i = j
        elif src[i] in "\"'":
            q, j = src[i], i + 1
            while j < n and src[j] != q:
                j += 2 if src[j] == "\\" else 1
            out.append(q + q)
            i = j + 1
        else:
            out.append(src[i])
            i += 1
    return "".join(out)


def helpers(src, pairs):
    """The free functions of `src` that take a builder by reference: name to
    body (None for a declaration without one)."""
    found = {}
    for m in HELPER.finditer(src):
        if m.group(1) in NOT_CALLS:
            continue
        close = pairs.get(src.find("(", m.start()))
        if close is None:
            continue
        rest = src[close + 1:close + 200].lstrip()
        rest = rest[len("const"):].lstrip() if rest.startswith("const") else rest
        body = None
        if rest.startswith("{"):
            open_ = src.index("{", close)
            body = src[open_:pairs.get(open_, open_)]
        if body is not None or m.group(1) not in found:
            found[m.group(1)] = body
    return found


def building_helpers(defs):
    """The helpers of `defs` that build IR: those whose body calls a builder
    or another such helper, and those whose body is not among the files."""
    free = {name for name, body in defs.items() if body is None}
    changed = True
    while changed:
        changed = False
        for name, body in defs.items():
            if name not in free and body is not None and builds(body, free):
                free.add(name)
                changed = True
    return free


def builds(text, free):
    if any(m.group(1) in BUILDERS for m in CALL.finditer(text)):
        return True
    return any(m.group(1) in free and (k == 0 or text[k - 1] not in ".>:")
               for m in re.finditer(r"\b([A-Za-z_]\w*)\s*\(", text)
               for k in [m.start()])


def match_brackets(src):
    pairs, stack = {}, []
    for i, ch in enumerate(src):
        if ch in "([{":
            stack.append(i)
        elif ch in ")]}" and stack:
            pairs[stack.pop()] = i
    return pairs


def lambdas(src, pairs, free):
    """Adds to `free` the lambdas of `src` whose body builds IR."""
    found = True
    while found:
        found = False
        for m in LAMBDA.finditer(src):
            if m.group(1) in free:
                continue
            close = pairs.get(m.end() - 1)
            body = src.find("{", close) if close is not None else -1
            if body < 0 or body not in pairs:
                continue
            if builds(src[body:pairs[body]], free):
                free.add(m.group(1))
                found = True


def findings(src, free):
    pairs = match_brackets(src)
    free = set(free)
    lambdas(src, pairs, free)
    for m in re.finditer(r"[A-Za-z_]\w*\s*\(", src):
        start = m.end() - 1
        if m.group(0).split("(")[0].strip() in NOT_CALLS:
            continue
        end = pairs.get(start)
        if end is None:
            continue
        args, depth, last = [], 0, start + 1
        for k in range(start + 1, end):
            ch = src[k]
            if ch in "([{":
                depth += 1
            elif ch in ")]}":
                depth -= 1
            elif ch == "," and depth == 0:
                args.append(src[last:k])
                last = k + 1
        args.append(src[last:end])
        building = [a for a in args if builds(a, free)]
        if len(building) >= 2:
            line = src.count("\n", 0, start) + 1
            yield line, m.group(0).rstrip("( ")


def main(argv):
    paths = []
    for arg in argv[1:]:
        paths += sorted(glob.glob(os.path.join(arg, "*.cpp"))) if os.path.isdir(arg) else [arg]
    headers = {h for p in paths for h in glob.glob(os.path.join(os.path.dirname(p), "*.h"))}
    sources = {p: strip(open(p, encoding="utf-8").read()) for p in sorted(headers) + paths}
    defs = {}
    for src in sources.values():
        for name, body in helpers(src, match_brackets(src)).items():
            if body is not None or name not in defs:
                defs[name] = body
    free = building_helpers(defs)
    bad = 0
    for path in paths:
        for line, name in findings(sources[path], free):
            print(f"{path}:{line}: arguments of '{name}' build IR in an "
                  "unspecified order; name them in statements first")
            bad += 1
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
