"""Scores the programs on the held-out mail of issue 46 (Tests/e2e/data/care46): per class, how
many cases are right, and each miss with what was given and what was wanted.

    python3 Tests/e2e/care46_truth.py [BIN]

BIN is a directory holding the release programs (default: .build/release of the checkout this
file sits in). The mails go through mime-parse | event-extract | html-sanitize | text-extract |
carrier-detect | newsletter-detect; event-group and parcel-group then read that output.

A case is right when every fact truth.json gives for it holds; a field the programs do not write
(yet) is simply a miss. The moved and cancelled classes are scored by story (the confirmation and
the mail that changes it): event-group's merged calendar must hold what the story says, and each
mail's own event what its file says.

Exit status 0 when the programs ran (whatever the score), 1 when one of them failed.
"""
import collections
import json
import pathlib
import re
import subprocess
import sys

HERE = pathlib.Path(__file__).resolve().parent
DATA = HERE / "data" / "care46"
CHAIN = ["mime-parse", "event-extract", "html-sanitize", "text-extract", "carrier-detect", "newsletter-detect"]
CLASSES = ["moved", "cancelled", "dates", "forwarded", "care_bulk", "pickup", "customs", "cod", "status",
           "crossborder", "lookalike"]
MISSING = object()


def run(bin_dir, tool, args=(), data=None):
    if not (bin_dir / tool).is_file():
        sys.exit(f"care46_truth: {bin_dir / tool}: no such program (build it, or give the BIN directory)")
    r = subprocess.run([str(bin_dir / tool), "--no-progress", *args], input=data, capture_output=True, timeout=300)
    if r.returncode != 0:
        sys.exit(f"care46_truth: {tool} exited {r.returncode}: {r.stderr.decode(errors='replace')[:2000]}")
    return r.stdout


def lines(out):
    return [json.loads(line) for line in out.decode().splitlines() if line.strip()]


def pipeline(bin_dir, files):
    """The records of `files` through the chain, the calendar and the parcels."""
    out = run(bin_dir, CHAIN[0], [str(f) for f in files])
    for tool in CHAIN[1:]:
        out = run(bin_dir, tool, data=out)
    return lines(out), lines(run(bin_dir, "event-group", data=out)), lines(run(bin_dir, "parcel-group", data=out))


def norm(s):
    return re.sub(r"\s+", " ", s).strip() if isinstance(s, str) else s


def tracking(s):
    return re.sub(r"[^0-9A-Za-z]", "", s).upper() if isinstance(s, str) else s


def show(v):
    return "(missing)" if v is MISSING else json.dumps(v, ensure_ascii=False)


def match(want, got, where):
    """What of `want` `got` does not hold, as "where: got … wanted …" lines."""
    if isinstance(want, dict) and "any_of" in want:
        ok = isinstance(got, str) and norm(got) in [norm(w) for w in want["any_of"]]
        return [] if ok else [f"{where}: got {show(got)}, wanted one of {show(want['any_of'])}"]
    if isinstance(want, dict) and "none_of" in want:
        ok = got in (MISSING, None) or got not in want["none_of"]
        return [] if ok else [f"{where}: got {show(got)}, wanted none of {show(want['none_of'])}"]
    if isinstance(want, dict) and "includes" in want:
        ok = isinstance(got, list) and want["includes"] in got
        return [] if ok else [f"{where}: got {show(got)}, wanted a list with {show(want['includes'])}"]
    if isinstance(want, dict) and "contains" in want:
        ok = isinstance(got, str) and norm(want["contains"]) in norm(got)
        return [] if ok else [f"{where}: got {show(got)}, wanted one containing {show(want['contains'])}"]
    if isinstance(want, dict):
        if not isinstance(got, dict):
            return [f"{where}: got {show(got)}, wanted {show(want)}"]
        return [m for k, w in want.items() for m in match(w, got.get(k, MISSING), f"{where}.{k}")]
    if isinstance(want, bool) or want is None:
        ok = got is want
    elif isinstance(want, (int, float)):
        ok = isinstance(got, (int, float)) and not isinstance(got, bool) and abs(got - want) < 0.005
    elif where.endswith("tracking_number"):
        ok = tracking(got) == tracking(want)
    else:
        ok = norm(got) == norm(want)
    return [] if ok else [f"{where}: got {show(got)}, wanted {show(want)}"]


def best(wanted, candidates, key):
    """The candidate that `wanted` misses least on (by tracking number first when it gives one)."""
    if "tracking_number" in wanted:
        same = [c for c in candidates if tracking(c.get("tracking_number")) == tracking(wanted["tracking_number"])]
        candidates = same or candidates
    return min(candidates, key=lambda c: len(match(wanted, c, key)), default=None)


def record_misses(truth, record, parcels_of):
    """The misses of one file's facts on its record (and its shipments' parcels)."""
    if record is None:
        return ["no record (mime-parse wrote none for this file)"]
    out = []
    for field in ("mail_kind", "newsletter_reasons", "care", "unread_dates"):
        if field in truth:
            got = record.get(field, MISSING)
            if field == "unread_dates":
                for w in truth[field]:
                    if not (isinstance(got, list) and any(not match(w, g, "") for g in got if isinstance(g, dict))):
                        out.append(f"unread_dates: got {show(got)}, wanted one {show(w)}")
            else:
                out += match(truth[field], got, field)
    for field in ("events", "shipments"):
        if field not in truth:
            continue
        got = record.get(field) or []
        want = truth[field]
        if not want:
            if got:
                out.append(f"{field}: got {show([summary(field, g) for g in got])}, wanted none")
            continue
        if field == "events" and len(got) != len(want):
            out.append(f"events: got {len(got)} {show([summary(field, g) for g in got])}, wanted {len(want)}")
        left = list(got)
        for i, w in enumerate(want):
            g = best(w, left, field)
            if g is None:
                out.append(f"{field}[{i}]: none, wanted {show(w)}")
                continue
            left.remove(g)
            out += match(w, g, f"{field}[{i}]")
            if field == "shipments":
                parcel = parcels_of(record, g)
                if parcel is None:
                    out.append(f"parcel of shipments[{i}]: none in parcel-group's output")
                else:
                    out += match(w, parcel, f"parcel of shipments[{i}]")
    return out


def summary(field, x):
    keys = ("start_local", "status", "kind") if field == "events" else ("carrier", "tracking_number", "status")
    return {k: x.get(k) for k in keys}


def story_misses(story, ids, calendar):
    """What event-group's calendar holds for the story's mails that the story does not want."""
    want = story["calendar"]
    events = [e for e in calendar if ids & set(e.get("message_ids") or [])]
    brief = [{"start_local": e.get("start_local"), "status": e.get("status")} for e in events]
    out = []
    if len(events) != want["count"]:
        out.append(f"calendar: {len(events)} events {show(brief)}, wanted {want['count']}")
    at = [e for e in events if e.get("start_local") == want["start_local"]]
    if not at:
        out.append(f"calendar: no event at {want['start_local']} in {show(brief)}")
    for e in at:
        if "status" in want and e.get("status") != want["status"]:
            out.append(f"calendar: {want['start_local']} status {show(e.get('status', MISSING))}, wanted {want['status']!r}")
        if "not_status" in want and e.get("status") == want["not_status"]:
            out.append(f"calendar: {want['start_local']} is {want['not_status']}")
    for old in want.get("gone", []):
        if any(e.get("start_local") == old and e.get("status") != "cancelled" for e in events):
            out.append(f"calendar: the old time {old} is still booked")
    return out


def score(bin_dir):
    """(right, total, misses): per class the cases right and all, and per class the misses as
    (case, [what differs]); a case is a story's name (its files' common prefix) or a file's."""
    truth = json.loads((DATA / "truth.json").read_text())
    files = sorted(DATA / name for name in truth["files"])
    records, calendar, parcels = pipeline(bin_dir, files)
    by_id = {}
    for r in records:
        for key in (r.get("message_id"), r.get("id")):
            if key:
                by_id[key.strip("<>")] = r

    def parcels_of(record, shipment):
        ids = {record.get("id"), record.get("message_id")} - {None}
        mine = [p for p in parcels if ids & set(p.get("message_ids") or [])]
        same = [p for p in mine if tracking(p.get("tracking_number")) == tracking(shipment.get("tracking_number"))]
        return (same or mine or [None])[0]

    right, total, misses = collections.Counter(), collections.Counter(), collections.defaultdict(list)
    in_story = {f for s in truth["stories"] for f in s["files"]}
    for s in truth["stories"]:
        ids = {truth["files"][f]["message_id"] for f in s["files"]}
        found = story_misses(s, ids, calendar)
        for f in s["files"]:
            found += [f"{f}: {m}" for m in record_misses(truth["files"][f], by_id.get(truth["files"][f]["message_id"]), parcels_of)]
        total[s["class"]] += 1
        right[s["class"]] += not found
        if found:
            misses[s["class"]].append((s['files'][0].rsplit('-', 1)[0], found, s['note']))
    for name, t in truth["files"].items():
        if name in in_story:
            continue
        found = record_misses(t, by_id.get(t["message_id"]), parcels_of)
        total[t["class"]] += 1
        right[t["class"]] += not found
        if found:
            misses[t["class"]].append((name.removesuffix(".eml"), found, None))
    return right, total, misses


def main(argv):
    bin_dir = pathlib.Path(argv[1]) if len(argv) > 1 else HERE.parent.parent / ".build" / "release"
    right, total, misses = score(bin_dir)
    for c in CLASSES:
        print(f"{c}: {right[c]} of {total[c]}")
    print(f"all: {sum(right.values())} of {sum(total.values())}")
    for c in CLASSES:
        for name, found, note in misses[c]:
            print(f"\nmiss [{c}] {name}" + (f" ({note})" if note else ""))
            for m in found:
                print(f"  {m}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
