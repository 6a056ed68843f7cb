"""Shipment statuses measured on the held-out parcel stories (data/parcels/heldout, issue 31):
per message the status carrier-detect gives against truth.json's, per story the final state (the
status of its latest mail by status_time, else by the mail's date).

    python3 Tests/e2e/parcel_status.py [CARRIER-DETECT [MIME-PARSE]]
prints the scores and each miss; test_carrier_status.py asserts them.
"""
import json
import pathlib
import subprocess
import sys

HERE = pathlib.Path(__file__).resolve().parent
DATA = HERE / "data" / "parcels" / "heldout"
BIN = HERE.parents[1] / ".build" / "release"


def truth():
    return json.loads((DATA / "truth.json").read_text())


def detect(carrier_detect=BIN / "carrier-detect", mime_parse=BIN / "mime-parse"):
    """file name -> the carrier-detect record of that message."""
    t = truth()
    files = [DATA / m["file"] for m in t["messages"]]
    parsed = subprocess.run([str(mime_parse), "--no-progress", *map(str, files)], capture_output=True, check=True).stdout
    out = subprocess.run([str(carrier_detect), "--no-progress"], input=parsed, capture_output=True, check=True).stdout
    records = [json.loads(line) for line in out.decode().splitlines() if line.strip()]
    assert len(records) == len(files)
    return {m["file"]: r for m, r in zip(t["messages"], records)}


def same_status(given, wanted):
    """The truth here was written before issue 46's customs_hold (AfterShip's exception
    sub-status for a parcel held for customs or duty): it says exception for those."""
    return given == wanted or (given == "customs_hold" and wanted == "exception")


def shipment(want, record):
    """The shipment a message's truth is about: its number, else its pickup code, else the first."""
    ships = record.get("shipments") or []
    norm = lambda n: (n or "").replace("-", "")
    for s in ships:
        if want.get("tracking_number") and norm(s.get("tracking_number")) == norm(want["tracking_number"]):
            return s
    code = (want.get("pickup") or {}).get("code")
    for s in ships:
        if code and (s.get("pickup") or {}).get("code") == code:
            return s
    return ships[0] if ships else None


def score(carrier_detect=BIN / "carrier-detect", mime_parse=BIN / "mime-parse"):
    """(message verdicts, story verdicts): {case: (right, what was given, what was wanted)}."""
    t = truth()
    got = detect(carrier_detect, mime_parse)
    messages, stories = {}, {}
    for want in t["messages"]:
        s = shipment(want, got[want["file"]])
        status = s.get("status") if s else None
        name = want["file"].removesuffix(".eml")
        messages[name] = (same_status(status, want["status"]), status, want["status"])
    for story in t["stories"]:
        told = []
        for want in t["messages"]:
            if want["story"] != story["story"]:
                continue
            rec = got[want["file"]]
            s = shipment(want, rec)
            if s and s.get("status"):
                told.append((s.get("status_time") or rec["date"], rec["date"], s["status"]))
        final = max(told)[2] if told else None
        stories[story["story"]] = (same_status(final, story["final"]), final, story["final"])
    return messages, stories


def fields(carrier_detect=BIN / "carrier-detect", mime_parse=BIN / "mime-parse"):
    """How many of the stated status times, expected dates and pickup fields are right:
    {field: (right, stated)}, for the messages whose truth states them (and status_time also
    where it is given but the truth says null: a wrong time counts)."""
    t = truth()
    got = detect(carrier_detect, mime_parse)
    counts = {}
    for want in t["messages"]:
        if want["status"] is None:
            continue
        s = shipment(want, got[want["file"]]) or {}
        pairs = [("status_time", s.get("status_time"), want["status_time"]),
                 ("expected_delivery", s.get("expected_delivery"), want["expected_delivery"])]
        for key in ("store", "store_id", "code", "deadline"):
            if want["pickup"] and want["pickup"][key] is not None:
                pairs.append(("pickup." + key, (s.get("pickup") or {}).get(key), want["pickup"][key]))
        for name, given, wanted in pairs:
            if wanted is None and given is None:
                continue
            right, total = counts.get(name, (0, 0))
            counts[name] = (right + (given == wanted), total + 1)
    return counts


if __name__ == "__main__":
    args = [pathlib.Path(a) for a in sys.argv[1:]]
    messages, stories = score(*args)
    for title, verdicts in (("messages", messages), ("stories", stories)):
        right = sum(v[0] for v in verdicts.values())
        print(f"{title}: {right} of {len(verdicts)} right")
        for case, (ok, given, wanted) in verdicts.items():
            if not ok:
                print(f"  miss {case}: gave {given}, wanted {wanted}")
    for name, (right, total) in fields(*args).items():
        print(f"{name}: {right} of {total}")
