#!/usr/bin/env python3
"""Finds calls whose arguments build IR in an unspecified order.

C++ leaves the order in which a call's arguments are evaluated to the
compiler: in `c.binary("aten::logical_and", c.unary("aten::isinf", a),
c.binary("aten::eq.Tensor", a, b))` GCC emits `eq` before `isinf` and Clang
emits `isinf` first. The program computes the same values, but ptec's output
must be the same bytes whichever compiler built it (and the lit tests check
the order). A braced list `{f(), g()}` is evaluated left to right, so it is
fine.

This check parses the legalizers' C++ roughly (comments and strings removed,
brackets matched) and reports every call with two or more arguments that
each call an IR-building helper. Usage:

  check_eval_order.py FILE...    exit 1 and one line per finding, or exit 0
"""
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
}
CALL = re.compile(r"(?:\.|->)([A-Za-z_]\w*)\s*\(")


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


def builds(text):
    return any(m.group(1) in BUILDERS for m in CALL.finditer(text))


def findings(path):
    src = strip(open(path, encoding="utf-8").read())
    pairs, stack = {}, []
    for i, ch in enumerate(src):
        if ch in "([{":
            stack.append(i)
        elif ch in ")]}" and stack:
            pairs[stack.pop()] = i
    for m in re.finditer(r"[A-Za-z_]\w*\s*\(", src):
        start = m.end() - 1
        if m.group(0).split("(")[0].strip() in ("if", "for", "while", "switch", "return"):
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
        building = [a for a in args if not a.strip().startswith("{") and builds(a)]
        if len(building) >= 2:
            line = src.count("\n", 0, start) + 1
            yield line, m.group(0).rstrip("( ")


def main(argv):
    bad = 0
    for path in argv[1:]:
        for line, name in findings(path):
            print(f"{path}:{line}: arguments of '{name}' build IR in an "
                  "unspecified order; name them in statements first")
            bad += 1
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
