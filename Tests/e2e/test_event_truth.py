"""The generated mailbox's calendar mail (../shared/gen, --events-rate) against its ground truth:
every message's events found, and event-group's final state of every event equal to the truth's
after all the mail is applied. Where the truth writes a field another way than mailpipe(5) (an
RRULE as written, a place without its name), the comparison says how."""
import json
import re
import subprocess

import pytest

from conftest import BIN, need_shared


@pytest.fixture(scope="module")
def calendar_mailbox(tmp_path_factory):
    d = tmp_path_factory.mktemp("calendar")
    mbox, truth = d / "cal.mbox", d / "cal.truth.jsonl"
    subprocess.run(["python3", str(need_shared("gen/gen_mbox.py")), "--messages", "1500", "--seed", "5", "--events-rate", "0.08",
                    "--out", str(mbox), "--truth", str(truth)], check=True, capture_output=True)
    extracted = subprocess.run(f"{BIN}/mime-parse --no-progress {mbox} | {BIN}/event-extract --no-progress", shell=True,
                               check=True, capture_output=True).stdout
    grouped = subprocess.run([BIN / "event-group", "--no-progress"], input=extracted, check=True, capture_output=True).stdout
    return dict(
        truth=[json.loads(l) for l in truth.read_text().splitlines()],
        final=json.loads((d / "cal.truth.events.json").read_text()),
        records=[json.loads(l) for l in extracted.decode().splitlines()],
        events=[json.loads(l) for l in grouped.decode().splitlines()],
    )


def rule_parts(rule):
    """An RRULE's parts as a set: libical writes them in its order and leaves out INTERVAL=1."""
    return None if rule is None else {p for p in rule.split(";") if p != "INTERVAL=1"}


def test_every_message_has_its_events(calendar_mailbox):
    truth, recs = calendar_mailbox["truth"], calendar_mailbox["records"]
    assert len(truth) == len(recs) == 1500
    calendar_mail = [t for t in truth if t.get("event_kind")]
    assert len(calendar_mail) > 80
    wrong = []
    for t, r in zip(truth, recs):
        want = [(e["source"], e["start"], e["start_local"] if e["source"] == "text" else None, e["status"]) for e in t["events"]]
        got = [(e["source"], e["start"], e["start_local"] if e["source"] == "text" else None,
                e["status"] if e["source"] != "text" else None) for e in r["events"]]
        if want != got:
            wrong.append((t["n"], t.get("event_kind"), want, got))
    assert wrong == []


def flight_code(summary):
    """'Flight UA 428: TPE → LAX' and the truth's 'UA428 TPE-LAX' as one form."""
    m = re.fullmatch(r"Flight (\w+) (\d+): (\w+) → (\w+)", summary or "")
    return f"{m[1]}{m[2]} {m[3]}-{m[4]}" if m else summary


def test_final_state_of_every_event(calendar_mailbox):
    def key(e):
        return (e["source"], e["uid"] if e["source"] == "icalendar" else e["start"] or e["start_local"])
    want = {key(e): e for e in calendar_mailbox["final"]}
    got = {key(e): e for e in calendar_mailbox["events"]}
    assert set(got) == set(want)
    for k, t in want.items():
        o = got[k]
        assert (o["status"], o["start"], o["all_day"], o["time_zone"]) == (t["status"], t["start"], t["all_day"], t["time_zone"]), k
        assert len(o["message_ids"]) == t["message_count"], k
        if t["source"] == "icalendar":
            rec = o["recurrence"] or {}
            assert (o["sequence"], o["summary"], o["end"], o["location"]) == (t["sequence"], t["summary"], t["end"], t["location"]), k
            assert rule_parts(rec.get("rule")) == rule_parts(t["recurrence_rule"]), k
            assert rec.get("exdates", []) == t["exdates"], k
            assert {(a["address"], a["status"]) for a in o["attendees"]} >= {(a["address"], a["status"]) for a in t["attendees"]}, k
        elif t["source"] == "schema.org":
            assert flight_code(o["summary"]) == t["summary"], k
            # mailpipe(5): the place's name before its address; no end is an instant (end = start);
            # a stay's last day is the checkout day, so the exclusive end is the day after it
            assert all(part.strip() in o["location"] for part in t["location"].split(",")), k
            if t["end"] is None:
                assert o["end"] == o["start"], k
            elif t["all_day"]:
                assert o["end"] > t["end"], k
            else:
                assert o["end"] == t["end"], k
        else:
            assert o["summary"] == t["summary"], k  # the business: the sender's name
