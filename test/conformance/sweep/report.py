"""Counting flow results and naming what blocks them, for the sweeps' tables."""
import collections
import json
import os
import re
import tempfile

from .flows import FLOWS, LABELS

STATUSES = ("matched", "wrong", "refused", "crashed")

# Operator names in refusal lines: ptec's "operator 'aten::pad' has no out-variant",
# "unknown operator 'torch.ops.aten.__and__.Tensor'"; upstream's "aten.pad.default",
# "Operator torch._ops.aten.sort.values is not Aten Canonical".
_OP_RES = [
    re.compile(r"needed by '(aten::[\w.]+)'"),
    re.compile(r"operator '(?:torch\.ops\.)?(aten[.:]+[\w.]+)'", re.IGNORECASE),
    re.compile(r"\b(aten::[A-Za-z_][\w.]*)"),
    re.compile(r"\btorch\.(?:_ops|ops)\.(aten\.[A-Za-z_][\w.]*)"),
    re.compile(r"\b((?:aten|quantized_decomposed|higher_order)\.[A-Za-z_][\w]*(?:\.[A-Za-z_]\w*)?)"),
]


def op_of(line):
    """The operator an error line names, normalised to aten::name.overload, else None."""
    for r in _OP_RES:
        m = r.search(line)
        if m:
            name = m.group(1).replace("::", ".").rstrip(".")
            parts = name.split(".")
            if parts[-1] == "default":
                parts = parts[:-1]
            return parts[0] + "::" + ".".join(parts[1:]) if len(parts) > 1 else name
    return None


def reason_key(result):
    """What to aggregate a refusal under: the operators its error lines name (each
    once), else the first error line with numbers and quoted names blurred."""
    lines = result.get("errors") or [result.get("error", "")]
    ops = []
    for l in lines:
        o = op_of(l)
        if o and o not in ops:
            ops.append(o)
    if ops:
        return ops
    line = result.get("error", "")
    line = re.sub(r"^[^ ]*:\d+(:\d+)?: ", "", line)  # file:line:
    line = re.sub(r"\d+", "N", line)
    return [line[:160]]


def tally(results_by_unit):
    """{flow: Counter(status)} over [{flow: result}]."""
    t = {f: collections.Counter() for f in FLOWS}
    for flows in results_by_unit:
        for f, r in flows.items():
            t[f][r.get("status", "crashed")] += 1
    return t


def blocking(results_by_unit, flow):
    """Counter {reason: number of units whose refusal on `flow` names it}."""
    c = collections.Counter()
    for flows in results_by_unit:
        r = flows.get(flow)
        if r and r.get("status") == "refused":
            for k in reason_key(r):
                c[k] += 1
    return c


def cell(counter, total):
    """'m/t' with the bad outcomes spelled out: '2/3, 1 wrong'."""
    if total == 0:
        return "-"
    s = f"{counter.get('matched', 0)}/{total}"
    extra = [f"{counter[k]} {k}" for k in ("wrong", "crashed") if counter.get(k)]
    return s + (" (" + ", ".join(extra) + ")" if extra else "")


def md_escape(s):
    return str(s).replace("|", "\\|").replace("\n", " ").replace("<", "&lt;")


def write_atomic(path, text):
    d = os.path.dirname(os.path.abspath(path))
    os.makedirs(d, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=d, prefix=".tmp_")
    with os.fdopen(fd, "w") as f:
        f.write(text)
    os.chmod(tmp, 0o644)
    os.replace(tmp, path)


def write_json(path, obj):
    write_atomic(path, json.dumps(obj, indent=1, sort_keys=True) + "\n")


def totals_table(t, flows, unit):
    rows = [f"| flow | {unit} | matched | wrong (no refusal) | refused | crashed |",
            "|---|---|---|---|---|---|"]
    for f in flows:
        c = t[f]
        n = sum(c.values())
        rows.append(f"| {LABELS[f]} | {n} | {c['matched']} | {c['wrong']} | {c['refused']} | "
                    f"{c['crashed']} |")
    return "\n".join(rows)


def blocking_table(results, flows, unit, top=40):
    out = []
    for f in flows:
        b = blocking(results, f)
        if not b:
            continue
        out.append(f"\n**{LABELS[f]}** ({sum(1 for r in results if r.get(f, {}).get('status') == 'refused')} "
                   f"{unit} refused; a {unit[:-1] if unit.endswith('s') else unit} refused for several "
                   f"operators counts under each):\n")
        out.append(f"| operator or reason | {unit} |")
        out.append("|---|---|")
        for k, n in sorted(b.items(), key=lambda kv: (-kv[1], kv[0]))[:top]:
            out.append(f"| `{md_escape(k)}` | {n} |")
        if len(b) > top:
            out.append(f"| ({len(b) - top} more reasons in the JSON) | |")
    return "\n".join(out)
