"""Rewrites the zoo's mlp archive the way Python-zipfile packagers do.

Any python3 works (no torch). Run from this folder:

  python3 make_python_zipfile_pt2.py

Output python_zipfile_mlp.pt2: the records of test/models/mlp/model.pt2 with
the root folder removed, written by zipfile (no alignment, flags 0), the
model JSON DEFLATE-compressed, archive_version dropped and a top-level
`version` record added instead.
"""
import zipfile

SRC = "../../../models/mlp/model.pt2"
OUT = "python_zipfile_mlp.pt2"

with zipfile.ZipFile(SRC) as src, zipfile.ZipFile(OUT, "w") as out:
    for info in src.infolist():
        name = info.filename.split("/", 1)[1]
        if name in ("archive_version", "data/sample_inputs/model.pt"):
            continue
        method = zipfile.ZIP_DEFLATED if name.endswith(".json") else zipfile.ZIP_STORED
        out.writestr(zipfile.ZipInfo(name, date_time=(2025, 1, 1, 0, 0, 0)), src.read(info),
                     compress_type=method)
    out.writestr(zipfile.ZipInfo("version", date_time=(2025, 1, 1, 0, 0, 0)), "8.12")
