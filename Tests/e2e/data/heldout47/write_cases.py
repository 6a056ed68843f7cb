"""Writes the held-out mail of issue 47 (the .eml files) and truth.json beside this file.

    python3 Tests/e2e/data/heldout47/write_cases.py

Every message is invented (names, addresses, ids); its form follows what the named program
writes (see README.md for where each form comes from). The .eml files and truth.json are the
held-out set; this script is kept so that a fact and its mail stay side by side.
"""
import base64
import gzip
import io
import json
import pathlib
import re
import zipfile

HERE = pathlib.Path(__file__).resolve().parent
CASES = []


def b64(data, width=76):
    s = base64.b64encode(data).decode()
    return "\n".join(s[i:i + width] for i in range(0, len(s), width))


def write(rel, text, crlf=False):
    path = HERE / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    data = text.lstrip("\n")
    if crlf:
        data = data.replace("\r\n", "\n").replace("\n", "\r\n")
    path.write_bytes(data.encode("utf-8"))
    return rel


def case(cls, name, files, expect, form, lookalike=False, **extra):
    files = files if isinstance(files, list) else [files]
    entry = {"id": name, "class": cls, "files": files, "lookalike": lookalike, "form": form}
    if len(files) == 1:
        found = re.search(rb"^Message-I[Dd]: *<([^>]+)>", (HERE / files[0]).read_bytes(), re.M)
        entry["message_id"] = found.group(1).decode()
    CASES.append({**entry, "expect": expect, **extra})


from cases_lists import add_lists           # noqa: E402
from cases_kinds import add_kinds           # noqa: E402
from cases_people import add_people         # noqa: E402
from cases_search import add_search         # noqa: E402


def main():
    ctx = {"write": write, "case": case, "b64": b64, "gzip": gzip, "zipfile": zipfile, "io": io}
    add_lists(ctx)
    add_kinds(ctx)
    add_people(ctx)
    add_search(ctx)
    ids = [c["id"] for c in CASES]
    assert len(ids) == len(set(ids)), "case ids must be unique"
    truth = {
        "about": "Held-out cases of issue 47, written before any code change. Field names are "
                 "those of /work/notes/issue47-design.md. See README.md.",
        "cases": CASES,
    }
    (HERE / "truth.json").write_text(json.dumps(truth, indent=1, ensure_ascii=False) + "\n")
    print(f"{len(CASES)} cases")


if __name__ == "__main__":
    main()
