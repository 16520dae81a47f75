#!/usr/bin/env python3
"""Checks a plan picture (--plan-svg): each method's group has both axes
with their labels, the offset ticks in the band's unit (B, KiB or MiB, by
the arena's size); each named state box has its name drawn; each arena band has a height that follows its size (the
largest of the picture at full height, none below the minimum); the
lower-bound line lies inside its band; inputs, outputs and state are drawn
after (over) the plain tensors of their band. Prints "svg ok: METHODS" or the
first problem. Usage: check_plan_svg.py FILE.svg"""
import re
import sys
import xml.etree.ElementTree as ET

NS = "{http://www.w3.org/2000/svg}"
root = ET.parse(sys.argv[1]).getroot()
problems, methods, bands = [], [], []
for g in root.iter(NS + "g"):
    if g.get("class") != "method":
        continue
    name = g.get("id")[len("method-"):]
    methods.append(name)
    for arena in g.findall(NS + "g"):
        if arena.get("class") != "arena":
            continue
        where = f"{name} {arena.get('id')}"
        axes = {a.get("class"): a for a in arena.findall(NS + "g")}
        for axis, label in (("axis x", "instruction"), ("axis y", "offset")):
            if axis not in axes:
                problems.append(f"{where}: no {axis}")
            elif label not in [t.text for t in axes[axis].iter(NS + "text")]:
                problems.append(f"{where}: {axis} has no '{label}' label")
        if "axis y" in axes:
            size = int(arena.get("data-bytes"))
            unit = axes["axis y"].get("data-unit")
            want = "MiB" if size >= 4 << 20 else "KiB" if size >= 4 << 10 else "B"
            if unit != want:
                problems.append(f"{where}: offsets in {unit} for {size} bytes, expected {want}")
            for t in axes["axis y"].iter(NS + "text"):
                if t.text != label and not re.fullmatch(r"\d+ " + want, t.text or ""):
                    problems.append(f"{where}: tick '{t.text}' is not in {want}")
        names = [t.text for t in arena.iter(NS + "text") if t.get("class") == "state-name"]
        for r in arena.findall(NS + "rect"):
            title = r.find(NS + "title")
            m = re.search(r"state '([^']*)'", title.text if title is not None else "")
            if r.get("class") == "state" and m and m.group(1) not in names:
                problems.append(f"{where}: state '{m.group(1)}' has no name drawn")
        frame = [r for r in arena.findall(NS + "rect") if r.get("class") == "frame"][0]
        top, height = float(frame.get("y")), float(frame.get("height"))
        bands.append((where, int(arena.get("data-bytes")), height))
        for line in arena.findall(NS + "line"):
            if line.get("class") == "lower-bound":
                y = float(line.get("y1"))
                if not top - 0.5 <= y <= top + height + 0.5:
                    problems.append(f"{where}: lower bound at y={y} outside [{top}, {top + height}]")
        kinds = [r.get("class") for r in arena.findall(NS + "rect") if r.get("class") != "frame"]
        if "tensor" in kinds:
            last_tensor = len(kinds) - 1 - kinds[::-1].index("tensor")
            for k in ("input", "output", "state"):
                if k in kinds and kinds.index(k) < last_tensor:
                    problems.append(f"{where}: an {k} is drawn under a tensor")
largest = max((b for _, b, _ in bands), default=0)
for where, size, height in bands:
    want = max(60.0, 360.0 * size / largest) if largest else 60.0
    if abs(height - want) > 0.5:
        problems.append(f"{where}: band height {height} for {size} bytes, expected {want:.1f}")
for p in problems:
    print(p)
if not problems:
    print("svg ok: " + " ".join(methods))
sys.exit(1 if problems else 0)
