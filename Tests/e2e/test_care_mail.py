"""Care mail (issue 46): appointment mail and prescription notices are notifications whatever
bulk headers their booking system adds, and a prescription becomes a reminder on the calendar;
a clinic's own newsletter stays a newsletter. The cases are data/care-mail (README.md there)."""
import json
import pathlib

import pytest

from conftest import records, run

DATA = pathlib.Path(__file__).parent / "data" / "care-mail"
CASES = json.loads((DATA / "cases.json").read_text())
# The per-message stages in the chains' order (mailstore stages).
STAGES = ["event-extract", "html-sanitize", "text-extract", "carrier-detect", "newsletter-detect"]


def through_the_stages(names):
    data = run("mime-parse", "--no-progress", *[DATA / n for n in names]).stdout
    for stage in STAGES:
        r = run(stage, "--no-progress", input=data)
        assert r.returncode == 0, (stage, r.stderr)
        data = r.stdout
    out = records(data)
    assert len(out) == len(names)
    return {pathlib.Path(o["source"]["path"]).name: o for o in out}


@pytest.fixture(scope="module")
def mail():
    return through_the_stages([n for cls in ("appointment", "prescription", "newsletter") for n in CASES[cls]])


def score(mail):
    """(right, total, wrong) over every case's kind, care, and prescription event."""
    wrong = {}
    for cls in ("appointment", "prescription"):
        for name in CASES[cls]:
            o = mail[name]
            got = (o["mail_kind"], o.get("care"), "care_mail" in o["newsletter_reasons"])
            if got != ("notification", cls, True):
                wrong[name] = got
    for name, want in CASES["prescription"].items():
        events = [e for e in mail[name]["events"] if e["kind"] == "prescription"]
        got = [(e.get("prescription"), e["start"], want["location"] in (e["location"] or "")) for e in events]
        if got != [(want["prescription"], want["date"], True)]:
            wrong[name + " event"] = [(e.get("prescription"), e["start"], e["location"]) for e in events]
    for name in CASES["newsletter"]:
        o = mail[name]
        got = (o["mail_kind"], o.get("care"), [e["kind"] for e in o["events"] if e["kind"] == "prescription"])
        if got != ("newsletter", None, []):
            wrong[name] = got
    total = len(CASES["appointment"]) + 2 * len(CASES["prescription"]) + len(CASES["newsletter"])
    return total - len(wrong), total, wrong


def test_care_mail_cases(mail):
    right, total, wrong = score(mail)
    print(f"care mail: {right}/{total} right")
    assert wrong == {}, wrong


def test_appointments_behind_a_booking_systems_list_unsubscribe_are_read(mail):
    """List-Unsubscribe hides a list's or a newsletter's text from event-extract, not a
    reminder whose subject is about the appointment."""
    for name, want in CASES["appointment"].items():
        if "start_local" in want:
            assert [e["start_local"] for e in mail[name]["events"] if e["kind"] == "appointment"] == [want["start_local"]], name


def test_care_is_null_on_other_mail(mail):
    for name in CASES["newsletter"]:
        assert "care" in mail[name] and mail[name]["care"] is None
        assert "care_mail" not in mail[name]["newsletter_reasons"]


def test_prescription_event_fields(mail):
    [e] = [e for e in mail["uk-rx-ready-boots.eml"]["events"] if e["kind"] == "prescription"]
    assert (e["source"], e["all_day"], e["start"], e["start_local"], e["end"]) == ("text", True, "2026-03-14", "2026-03-14", "2026-03-15")
    assert "collect" in e["summary"].lower()
    assert e["location"].startswith("Boots, High Street, Elmfield")
    assert e["organizer"]["address"] == "no-reply@rx.elmfield-surgery.example.uk"
    [r] = [e for e in mail["uk-repeat-due.eml"]["events"] if e["kind"] == "prescription"]
    assert "reorder" in r["summary"].lower()


def test_a_prescription_without_a_date_is_care_mail_but_no_event():
    text = (b"From: Boots <no-reply@boots-rx.example.co.uk>\nTo: a@example.co.uk\nSubject: Your prescription is ready\n"
            b"Date: Thu, 05 Mar 2026 09:30:00 +0000\nMessage-ID: <n@x>\nFeedback-ID: 1:2:3\nPrecedence: bulk\n\n"
            b"Your prescription is ready to collect from Boots, High Street.\n")
    data = run("mime-parse", "--no-progress", input=text).stdout
    for stage in STAGES:
        data = run(stage, "--no-progress", input=data).stdout
    [o] = records(data)
    assert (o["mail_kind"], o["care"], o["events"]) == ("notification", "prescription", [])


def test_event_group_keeps_prescriptions_beside_an_appointment(mail):
    """A surgery's appointment and its prescription notice, and the notice again: two events on
    the calendar, the prescription as it was read."""
    lines = [json.dumps(mail[n], ensure_ascii=False) for n in ("uk-gp-reminder.eml", "uk-rx-ready-boots.eml", "uk-rx-ready-boots.eml")]
    r = run("event-group", "--no-progress", input=("\n".join(lines) + "\n").encode())
    assert r.returncode == 0, r.stderr
    out = records(r.stdout)
    prescriptions = [e for e in out if e["kind"] == "prescription"]
    assert [(e["prescription"], e["start"], e["status"]) for e in prescriptions] == [("collect", "2026-03-14", None)]


def test_procmail_mode_reads_the_words():
    """newsletter-detect --mail and -q have no events to read: the subject's and the text's
    words decide, the same way."""
    for cls in ("appointment", "prescription", "newsletter"):
        for name in CASES[cls]:
            message = (DATA / name).read_bytes()
            r = run("newsletter-detect", "--mail", input=message)
            want = b"newsletter" if cls == "newsletter" else b"notification"
            assert b"\nX-Mail-Kind: " + want + b"\n" in r.stdout, name
            assert run("newsletter-detect", "-q", input=message).returncode == (0 if cls == "newsletter" else 1), name
