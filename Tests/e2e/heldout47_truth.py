"""Scores the programs on the held-out mail of issue 47 (Tests/e2e/data/heldout47): per class, how
many cases are right, and each miss with a one-line reason.

    python3 Tests/e2e/heldout47_truth.py [BIN_DIR]

BIN_DIR holds the release programs (default: .build/release of the checkout this file sits in).

- Classes list_header, list_footer, bounce, tls_dmarc_report, read_receipt and
  service_notification: the mails go through mime-parse and the stages `mailstore stages` names
  (event-extract, html-sanitize, text-extract, carrier-detect, newsletter-detect); each case's
  record (by Message-ID) must hold every fact truth.json gives. A field a program does not write
  (yet) is a miss.
- me_late and gmail_folding: each case is a small mailbox and a mode (the exact commands are in
  truth.json): `mailstore deliver` one message at a time, `mailstore add` per message or at once
  (then `mailstore config --plain-addresses` for the store's way out), or the batch chain ending in
  participant-hash | conversation-group. Every conversation the case lists must hold exactly its
  messages (and, when given, exactly its participants); "me" must be a participant of none.
- search: the mails are added to a store; each query is one case: `mailstore search --output ids`
  must find every id in "found" and none in "not_found".

A case is right when every fact holds. Look-alikes (mail that must NOT be caught) count in their
class and are also shown apart. score(bin_dir) returns the numbers as a dict; the CLI prints them.
Exit status 0 when the scoring ran (whatever the score), 2 when a program is missing.
"""
import collections
import json
import pathlib
import re
import subprocess
import sys
import tempfile

HERE = pathlib.Path(__file__).resolve().parent
DATA = HERE / "data" / "heldout47"
CLASSES = ["list_header", "list_footer", "bounce", "tls_dmarc_report", "read_receipt", "service_notification",
           "me_late", "gmail_folding", "search"]
RECORD_CLASSES = set(CLASSES[:6])
PROGRAMS = ["mime-parse", "event-extract", "html-sanitize", "text-extract", "carrier-detect", "newsletter-detect",
            "participant-hash", "conversation-group", "mailstore"]
NOW = "2026-12-01T00:00:00Z"
MISSING = object()


class ToolFailed(Exception):
    pass


def run(bin_dir, tool, args=(), data=None):
    r = subprocess.run([str(bin_dir / tool), *args], input=data, capture_output=True, timeout=300)
    if r.returncode != 0:
        err = r.stderr.decode(errors="replace").strip().splitlines()
        raise ToolFailed(f"{tool} {' '.join(map(str, args))[:80]} exited {r.returncode}: {(err or [''])[-1][:200]}")
    return r.stdout


def lines(out):
    return [json.loads(line) for line in out.decode().splitlines() if line.strip()]


def stages(bin_dir):
    return run(bin_dir, "mailstore", ["stages"]).decode().split()


def chain(bin_dir, files):
    """The records of `files` through mime-parse and the store's stages, as bytes."""
    out = run(bin_dir, "mime-parse", ["--no-progress", *map(str, files)])
    for stage in stages(bin_dir):
        out = run(bin_dir, stage, ["--no-progress"], data=out)
    return out


def norm(s):
    return re.sub(r"\s+", " ", s).strip() if isinstance(s, str) else s


def show(v, width=90):
    s = "(missing)" if v is MISSING else json.dumps(v, ensure_ascii=False)
    return s if len(s) <= width else s[:width] + "…"


def absent(v):
    return v is MISSING or v is None


def field_misses(field, want, got):
    if field == "reply_text" or field == "snippet" or field == "body_text":
        out = []
        text = got if isinstance(got, str) else None
        if want.get("not_null") and not text:
            return [f"{field} is {show(got)}, wanted text"]
        for w in want.get("contains", []):
            if not text or norm(w) not in norm(text):
                out.append(f"{field} {show(got)} lacks {show(w)}")
        for w in want.get("not_contains", []):
            if text and norm(w) in norm(text):
                out.append(f"{field} still holds {show(w)}")
        for w in want.get("contains_exact", []):
            if not text or w not in text:
                out.append(f"{field} lacks exactly {show(w)} (a blank line between the parts)")
        for w in want.get("not_starts_with", []):
            if text and norm(text).startswith(w):
                out.append(f"{field} starts with {show(w)}: {show(got, 60)}")
        for w in want.get("starts_with", []):
            if not text or not norm(text).startswith(w):
                out.append(f"{field} {show(got, 60)} does not start with {show(w)}")
        return out
    if want is None:
        return [] if absent(got) else [f"{field} is {show(got)}, wanted none"]
    if isinstance(want, dict) and "not" in want:
        return [] if not absent(got) and got != want["not"] else [f"{field} is {show(got)}, wanted anything but {show(want['not'])}"]
    if isinstance(want, dict):
        if not isinstance(got, dict):
            return [f"{field} is {show(got)}, wanted {show(want)}"]
        return [m for k, w in want.items() for m in field_misses(f"{field}.{k}", w, got.get(k, MISSING))]
    if field.endswith(".name"):
        ok = isinstance(got, str) and norm(got).casefold() == norm(want).casefold()
    else:
        ok = got == want
    return [] if ok else [f"{field} is {show(got)}, wanted {show(want)}"]


def record_misses(case, record):
    if record is None:
        return [f"no record with Message-ID {case['message_id']}"]
    return [m for field, want in case["expect"].items() for m in field_misses(field, want, record.get(field, MISSING))]


def id_map(records):
    """Record id -> Message-ID (without brackets), for reading conversations' message_ids."""
    out = {}
    for r in records:
        mid = (r.get("message_id") or "").strip("<>")
        for key in (r.get("id"), r.get("message_id")):
            if key:
                out[key] = mid or key
                out[key.strip("<>")] = mid or key
    return out


def conversations_of(bin_dir, case, workdir):
    files = [DATA / f for f in case["files"]]
    me_args = case["me_args"].split()
    db = workdir / "mail.db"
    mode = case["mode"]
    records = lines(chain(bin_dir, files))
    if mode == "batch":
        keyed = run(bin_dir, "participant-hash", ["--no-progress", *me_args], data=chain(bin_dir, files))
        return lines(run(bin_dir, "conversation-group", ["--now", NOW], data=keyed)), records
    if mode == "deliver":
        for f in files:
            run(bin_dir, "mailstore", ["deliver", "-q", *me_args, str(db)], data=f.read_bytes())
    elif mode == "add_each":
        for f in files:
            run(bin_dir, "mailstore", ["add", "-q", *me_args, str(db)], data=chain(bin_dir, [f]))
    else:
        run(bin_dir, "mailstore", ["add", "-q", *me_args, str(db)], data=chain(bin_dir, files))
        if mode == "store_plain":
            run(bin_dir, "mailstore", ["config", "--plain-addresses", str(db)])
    return lines(run(bin_dir, "mailstore", ["conversations", "--all", "--now", NOW, str(db)])), records


def addresses(conversation):
    return sorted((p.get("address") if isinstance(p, dict) else p) or "" for p in conversation.get("participants") or [])


def conversation_misses(case, conversations, records):
    ids = id_map(records)
    made = [{"messages": {ids.get(m, m) for m in c.get("message_ids") or []}, "participants": addresses(c)}
            for c in conversations]
    out = []
    for want in case["expect"]["conversations"]:
        first = want["messages"][0]
        holding = [c for c in made if first in c["messages"]]
        if len(holding) != 1:
            out.append(f"{first} is in {len(holding)} conversations")
            continue
        got = holding[0]
        if got["messages"] != set(want["messages"]):
            out.append(f"{first}'s conversation holds {sorted(got['messages'])}, wanted {sorted(want['messages'])}"
                       f" (participants {got['participants']})")
        elif "participants" in want and got["participants"] != sorted(want["participants"]):
            out.append(f"{first}'s conversation is with {got['participants']}, wanted {sorted(want['participants'])}")
    for me in case["expect"].get("me_in_no_conversation", []):
        for c in made:
            if me in c["participants"]:
                out.append(f"me ({me}) is a participant of {sorted(c['messages'])}")
    return out


def search_results(bin_dir, case, workdir):
    """(query, misses) for each query of the search case."""
    files = [DATA / f for f in case["files"]]
    db = workdir / "search.db"
    records = lines(chain(bin_dir, files))
    run(bin_dir, "mailstore", ["add", "-q", *case["me_args"].split(), str(db)], data=chain(bin_dir, files))
    ids = id_map(records)
    out = []
    for q in case["expect"]["queries"]:
        try:
            found = {ids.get(i, i) for i in lines(run(bin_dir, "mailstore", ["search", "--output", "ids", str(db), q["query"]]))}
        except ToolFailed as e:
            out.append((q, [str(e)]))
            continue
        misses = [f"{q['query']!r} did not find {m} ({q['why']})" for m in q["found"] if m not in found]
        misses += [f"{q['query']!r} found {m} ({q['why']})" for m in q.get("not_found", []) if m in found]
        out.append((q, misses))
    return out


def score(bin_dir):
    """{"classes": {class: {"right", "total", "lookalikes_right", "lookalikes_total"}}, "all": {...},
    "misses": [{"class", "case", "lookalike", "reasons"}]}."""
    bin_dir = pathlib.Path(bin_dir)
    for p in PROGRAMS:
        if not (bin_dir / p).is_file():
            raise FileNotFoundError(f"heldout47_truth: {bin_dir / p}: no such program (build it, or give BIN_DIR)")
    truth = json.loads((DATA / "truth.json").read_text())
    cases = truth["cases"]
    tally = {c: collections.Counter() for c in CLASSES}
    misses = []

    def count(case, name, reasons):
        t = tally[case["class"]]
        t["total"] += 1
        t["right"] += not reasons
        if case.get("lookalike"):
            t["lookalikes_total"] += 1
            t["lookalikes_right"] += not reasons
        if reasons:
            misses.append({"class": case["class"], "case": name, "lookalike": bool(case.get("lookalike")), "reasons": reasons})

    record_cases = [c for c in cases if c["class"] in RECORD_CLASSES]
    try:
        records = lines(chain(bin_dir, sorted({DATA / f for c in record_cases for f in c["files"]})))
        failed = None
    except ToolFailed as e:
        records, failed = [], str(e)
    by_id = {(r.get("message_id") or "").strip("<>"): r for r in records}
    for c in record_cases:
        count(c, c["id"], [failed] if failed else record_misses(c, by_id.get(c["message_id"])))

    for c in cases:
        if c["class"] not in ("me_late", "gmail_folding", "search"):
            continue
        with tempfile.TemporaryDirectory(prefix="heldout47-") as tmp:
            if c["class"] == "search":
                try:
                    for q, found in search_results(bin_dir, c, pathlib.Path(tmp)):
                        count(c, f"{c['id']}: {q['query']}", found)
                except ToolFailed as e:
                    for q in c["expect"]["queries"]:
                        count(c, f"{c['id']}: {q['query']}", [str(e)])
                continue
            try:
                conversations, recs = conversations_of(bin_dir, c, pathlib.Path(tmp))
                found = conversation_misses(c, conversations, recs)
            except ToolFailed as e:
                found = [str(e)]
            count(c, c["id"], found)

    classes = {c: {k: tally[c][k] for k in ("right", "total", "lookalikes_right", "lookalikes_total")} for c in CLASSES}
    total = {k: sum(v[k] for v in classes.values()) for k in ("right", "total", "lookalikes_right", "lookalikes_total")}
    return {"classes": classes, "all": total, "misses": misses}


def main(argv):
    bin_dir = pathlib.Path(argv[1]) if len(argv) > 1 else HERE.parent.parent / ".build" / "release"
    try:
        result = score(bin_dir)
    except FileNotFoundError as e:
        print(e, file=sys.stderr)
        return 2
    for c in CLASSES + ["all"]:
        v = result["all"] if c == "all" else result["classes"][c]
        extra = f" (look-alikes {v['lookalikes_right']} of {v['lookalikes_total']})" if v["lookalikes_total"] else ""
        print(f"{c}: {v['right']} of {v['total']}{extra}")
    for m in result["misses"]:
        print(f"\nmiss [{m['class']}] {m['case']}" + (" (look-alike)" if m["lookalike"] else ""))
        for r in m["reasons"]:
            print(f"  {r}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
