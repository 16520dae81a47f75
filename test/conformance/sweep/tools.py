"""Running ptec's tools and upstream's runtime as child processes, with outcomes a sweep
can count: a refusal is a non-zero exit with a message, a crash is a signal (or a
time-out: a program that never ends is as bad for a user as one that dies)."""
import json
import os
import re
import signal
import subprocess
import time

# "file:line: " or "file:line:col: " in front of a diagnostic: the exported node's Python
# source line, the same for every sample of a sweep (dropped so that lines aggregate).
_LOC_RE = re.compile(r"^\S+?:\d+(?::\d+)?: (?=error|warning|note)")
# Error lines of our tools ("file:line: error: ...") and of upstream's runner / Python.
_ERROR_RE = re.compile(r"\berror\b|\bfailed\b|refus|unsupported|not supported|exception",
                       re.IGNORECASE)


def run(cmd, timeout, env=None):
    """{rc, out, seconds, signal (name or None), timed_out} of one child process."""
    t0 = time.perf_counter()
    full_env = dict(os.environ, **(env or {}))
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           timeout=timeout, env=full_env)
        rc, out, timed_out = p.returncode, p.stdout, False
    except subprocess.TimeoutExpired as e:
        rc, out, timed_out = None, e.stdout or b"", True
    out = out.decode("utf-8", errors="replace")
    sig = None
    if rc is not None and rc < 0:
        try:
            sig = signal.Signals(-rc).name
        except ValueError:
            sig = f"signal {-rc}"
    return {"rc": rc, "out": out, "seconds": time.perf_counter() - t0, "signal": sig,
            "timed_out": timed_out}


def first_error_line(out, strip=()):
    """The first line that says what went wrong (else the last non-empty line), with
    temporary paths replaced by their base names so that lines aggregate."""
    lines = [l.strip() for l in out.splitlines() if l.strip()]
    pick = next((l for l in lines if _ERROR_RE.search(l)), lines[-1] if lines else "")
    for s in strip:
        if s:
            pick = pick.replace(s + os.sep, "").replace(s, "")
    return _LOC_RE.sub("", pick)[:300]


def outcome_of(res, what, strip=()):
    """Classifies a finished tool run: None when it succeeded, else an outcome dict."""
    if res["timed_out"]:
        return {"status": "crashed", "error": f"{what}: timed out after {res['seconds']:.0f} s"}
    if res["signal"]:
        return {"status": "crashed",
                "error": f"{what}: killed by {res['signal']}: "
                         + first_error_line(res["out"], strip)}
    if res["rc"] != 0:
        return {"status": "refused",
                "error": (f"{what}: " if what != "compile" else "")
                         + first_error_line(res["out"], strip),
                "errors": error_lines(res["out"], strip)}
    return None


def error_lines(out, strip=()):
    """Every distinct error line (a compile refusal lists each blocking operator once)."""
    seen = []
    for l in out.splitlines():
        l = l.strip()
        if " error: " in l or l.startswith("error:"):
            for s in strip:
                if s:
                    l = l.replace(s + os.sep, "").replace(s, "")
            l = _LOC_RE.sub("", l)
            if l not in seen:
                seen.append(l[:300])
    return seen[:20]


def aot_compile(bin_dir, pt2, pte, backend, timeout=600, extra=()):
    cmd = [os.path.join(bin_dir, "aot-compile"), pt2, "-o", pte, "--no-progress"]
    if backend and backend != "portable":
        cmd += ["--backend", backend]
    cmd += list(extra)
    return run(cmd, timeout)


def pte_run(bin_dir, pte, inputs, out_dir, timeout=300, calls=1):
    os.makedirs(out_dir, exist_ok=True)
    cmd = [os.path.join(bin_dir, "pte-run"), pte, "--output-dir", out_dir]
    for f in inputs:
        cmd += ["--input", f]
    if calls > 1:
        cmd += ["--calls", str(calls)]
    return run(cmd, timeout, env={"PTEC_XNNPACK_THREADS": "1"})


def _trailing(out_dir, pattern, n):
    """The last n files of out_dir named by pattern (one int group: the output index).
    A program that writes user inputs returns their final contents first (ptec's
    convention for written inputs), so the user outputs are the trailing ones."""
    try:
        names = os.listdir(out_dir)
    except OSError:
        names = []
    found = sorted((int(m.group(1)), f) for f in names for m in [re.fullmatch(pattern, f)] if m)
    files = [os.path.join(out_dir, f) for _, f in found]
    if len(files) < n:
        return files + [os.path.join(out_dir, f"missing_{i}") for i in range(n - len(files))]
    return files[len(files) - n:]


def pte_run_outputs(out_dir, n, call=None):
    if call is None:
        return _trailing(out_dir, r"output_(\d+)\.npy", n)
    # pte-run --calls N with --output-dir: call<k>_output_<i>.npy
    return _trailing(out_dir, rf"call{call}_output_(\d+)\.npy", n)


def oracle_run(runner, pte, inputs, out_dir, timeout=300, calls=1):
    os.makedirs(out_dir, exist_ok=True)
    cmd = [runner, pte, "--out_dir", out_dir, "--no-print", "--threads", "1"]
    for f in inputs:
        cmd += ["--input", f]
    if calls > 1:
        cmd += ["--calls", str(calls)]
    return run(cmd, timeout)


def oracle_outputs(out_dir, n, call=0):
    return _trailing(out_dir, rf"call{call}_out(\d+)\.npy", n)


def planned_bytes(bin_dir, pte):
    """Planned (non-constant) memory of every method together: the sum of
    non_const_buffer_sizes from arena 1 on (pte-inspect --json), or None."""
    res = run([os.path.join(bin_dir, "pte-inspect"), pte, "--json", "--elide-bytes"], 120)
    if res["rc"] != 0:
        return None
    try:
        prog = json.loads(res["out"])
    except ValueError:
        return None
    prog = prog.get("program", prog)
    return sum(sum((p.get("non_const_buffer_sizes") or [0])[1:])
               for p in prog.get("execution_plan", []))


def delegate_count(bin_dir, pte):
    res = run([os.path.join(bin_dir, "pte-inspect"), pte, "--json", "--elide-bytes"], 120)
    if res["rc"] != 0:
        return None
    try:
        prog = json.loads(res["out"])
    except ValueError:
        return None
    prog = prog.get("program", prog)
    return sum(len(p.get("delegates") or []) for p in prog.get("execution_plan", []))
