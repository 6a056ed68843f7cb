#!/usr/bin/env python3
"""Accuracy of newsletter-detect and carrier-detect against a generated mailbox's truth file.
   .venv/bin/python bench/classifier-accuracy.py [50m|1g]   (the records and truth come from bench/stages.sh
   or bench/conversations.sh, in .bench-data/). The same mappings as Tests/e2e."""
import json
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "Tests" / "e2e"))
from test_carrier_detect import GENERATED_CARRIERS  # noqa: E402
from test_newsletter_detect import EXPECTED  # noqa: E402

size = sys.argv[1] if len(sys.argv) > 1 else "50m"
data = ROOT / ".bench-data"
records, truth_file = data / f"{size}.records.jsonl", data / f"{size}.truth.jsonl"
if not records.exists():
    mbox = data / f"{size}.mbox"
    if not mbox.exists():
        sys.exit(f"no {mbox}: run bench/stages.sh {size} first")
    records.write_bytes(subprocess.run([ROOT / ".build/release/mime-parse", "--no-progress", mbox],
                                       check=True, capture_output=True).stdout)
truth = [json.loads(line) for line in truth_file.open()]

def lines(tool):
    out = subprocess.run([ROOT / ".build/release" / tool, records], check=True, capture_output=True).stdout
    return [json.loads(line) for line in out.splitlines()]

kinds = lines("newsletter-detect")
agree = sum(o["mail_kind"] in EXPECTED[t["kind"]] for o, t in zip(kinds, truth))
print(f"newsletter-detect: {agree}/{len(truth)} agree with the truth ({agree / len(truth):.2%})")

found = lines("carrier-detect")
tp = fp = fn = 0
for o, t in zip(found, truth):
    expected = {c["tracking"]: GENERATED_CARRIERS[c["carrier"]] for c in t["carriers"]}
    hits = {s["tracking_number"] for s in o["shipments"] if s["carrier"] in expected.get(s["tracking_number"], ())}
    tp += len(hits)
    fp += len(o["shipments"]) - len(hits)
    fn += len(set(expected) - hits)
print(f"carrier-detect: {tp} parcels right, {fp} wrong, {fn} missed "
      f"(precision {tp / max(1, tp + fp):.2%}, recall {tp / max(1, tp + fn):.2%})")
