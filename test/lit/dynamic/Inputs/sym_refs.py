"""Reads `pte-inspect --json` and counts how the program refers to the values
that aten::sym_size.int writes: every IntList item that names one is a size
the kernel reads at run time."""
import json
import sys

prog = json.load(sys.stdin)
plan = prog.get("program", prog)["execution_plan"][0]
ops = [o["name"] + ("." + o["overload"] if o.get("overload") else "") for o in plan["operators"]]
values = plan["values"]
sym = set()
calls = []
for ins in plan["chains"][0]["instructions"]:
    if ins["instr_args_type"] != "KernelCall":
        continue
    a = ins["instr_args"]
    name = ops[a.get("op_index", 0)]
    calls.append((name, a["args"]))
    if name == "aten::sym_size.int":
        sym.add(a["args"][-1])
items = 0
views = 0
for name, args in calls:
    for i in args:
        v = values[i]
        if v["val_type"] == "IntList":
            hits = sum(1 for k in v["val"]["items"] if k in sym)
            items += hits
            if name in ("aten::view_copy.out", "executorch_prim::et_view.default") and hits:
                views += 1
print("sym_size result values: %d" % len(sym))
print("IntList items naming a sym_size result: %d" % items)
print("view size lists with a run-time element: %d" % views)
