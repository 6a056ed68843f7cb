"""carrier-detect's shipment statuses (issue 31): the held-out parcel stories, whose misses are
exactly those in data/parcels/heldout/MISSES.md, and the generated mailbox's parcel stories."""
import json
import subprocess

import parcel_status
from conftest import BIN, need_shared, records, run


def listed_misses():
    """The lines of MISSES.md's Misses section that start with '- `case`'."""
    section = (parcel_status.DATA / "MISSES.md").read_text().split("\n## Misses\n")[1].split("\n## ")[0]
    return {line.split("`")[1] for line in section.splitlines() if line.startswith("- `")}


def test_heldout():
    messages, stories = parcel_status.score(BIN / "carrier-detect", BIN / "mime-parse")
    misses = {case for verdicts in (messages, stories) for case, (ok, _, _) in verdicts.items() if not ok}
    assert misses == listed_misses(), {c: (messages.get(c) or stories.get(c)) for c in misses ^ listed_misses()}
    assert sum(ok for ok, _, _ in messages.values()) >= 71
    assert sum(ok for ok, _, _ in stories.values()) >= 25


def test_every_shipment_has_the_three_members():
    parsed = run("mime-parse", "--no-progress", *sorted(parcel_status.DATA.glob("*.eml"))).stdout
    out = records(run("carrier-detect", "--no-progress", input=parsed).stdout)
    ships = [s for r in out for s in r["shipments"]]
    assert ships and all({"status", "status_time", "expected_delivery"} <= s.keys() for s in ships)
    assert {s["status"] for s in ships} <= {None, "info_received", "in_transit", "out_for_delivery", "available_for_pickup",
                                           "attempt_failed", "delivered", "picked_up", "returned", "exception", "customs_hold"}


def test_generated_truth(tmp_path):
    """The generated parcel stories (seed 31, 3,000 messages, 30% story mail): the status of the
    shipment each story mail is about. Measured at 86.2% of 897 story mails, 95.4% of those where
    carrier-detect finds the shipment (2026-11-25); 91.6% and 95.7% once plain nouns label a
    number (包裹, 貨件, your shipment) and a carrier's own mail says "your item" (2026-11-27).
    Most of the rest are numbers the number search does not find (a shop's notice that names no
    carrier, or that says "your item"), which no status reading can fix. 98.4% and 98.7% once
    words are read in their clause and a number an earlier message tracked is known (issue 46,
    2026-11-28; customs_hold counts as the truth's exception). The thresholds leave about a point
    for changes in the words."""
    mbox, truth = tmp_path / "p.mbox", tmp_path / "p.truth.jsonl"
    subprocess.run(["python3", str(need_shared("gen/gen_mbox.py")), "--messages", "3000", "--seed", "31",
                    "--parcel-stories-rate", "0.3", "--out", str(mbox), "--truth", str(truth)], check=True, capture_output=True)
    parsed = run("mime-parse", "--no-progress", mbox, timeout=300).stdout
    out = records(run("carrier-detect", "--no-progress", input=parsed, timeout=300).stdout)
    rows = [json.loads(line) for line in truth.read_text().splitlines()]
    total = right = found = right_found = 0
    for want, rec in zip(rows, out):
        ps = want.get("parcel_status")
        if not ps:
            continue
        total += 1
        s = parcel_status.shipment({"tracking_number": ps["tracking_number"], "pickup": ps["pickup"]}, rec)
        if s:
            found += 1
            ok = s is not None and parcel_status.same_status(s["status"], ps["status"])
        right_found += ok
        right += ok
    assert total > 800
    assert right / total >= 0.97, (right, total)
    assert right_found / found >= 0.975, (right_found, found)
