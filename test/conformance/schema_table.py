"""Reads ptec's built-in ATen schema table (standard library only).

The table is the folder dialects/exir/schema/aten/: its ORDER file lists the
parts (one file name a line, '#' starts a comment) in the order the build
concatenates them into the embedded table (dialects/exir/schema/
SchemaParts.cmake), and every .txt in the folder must be listed there. A
path that is a single file is read as a whole table (the layout before the
split, and hand-written tables in tests).
"""
import os


def table_parts(path):
    """The files of the table at `path`, in the build's order."""
    if not os.path.isdir(path):
        return [path]
    names = []
    with open(os.path.join(path, "ORDER"), encoding="utf-8") as f:
        for line in f:
            name = line.split("#", 1)[0].strip()
            if name:
                names.append(name)
    missing = [n for n in names if not os.path.isfile(os.path.join(path, n))]
    if missing:
        raise ValueError("%s/ORDER lists %s, which does not exist" % (path, ", ".join(missing)))
    unlisted = sorted(n for n in os.listdir(path) if n.endswith(".txt") and n not in names)
    if unlisted:
        raise ValueError("%s: %s not listed in ORDER" % (path, ", ".join(unlisted)))
    return [os.path.join(path, n) for n in names]


def table_lines(path):
    """The lines of the table at `path` (parts concatenated, newlines kept)."""
    lines = []
    for part in table_parts(path):
        with open(part, encoding="utf-8") as f:
            lines.extend(f)
    return lines


def split_top(text, brackets="()[]"):
    """`text` split at the commas outside `brackets` (pairs of opening and closing
    characters), each part stripped; a last part that is empty is dropped. For schema
    argument lists (`Tensor self, int[2] size=[1, 1]`) and MLIR attribute lists."""
    opening, closing = brackets[0::2], brackets[1::2]
    parts, depth, cur = [], 0, ""
    for ch in text:
        if ch in opening:
            depth += 1
        elif ch in closing:
            depth -= 1
        if ch == "," and depth == 0:
            parts.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        parts.append(cur.strip())
    return parts
