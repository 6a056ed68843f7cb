"""event-extract on real calendars and invitation mails: ../shared/vectors/ical/."""
import json

import pytest

from conftest import SHARED, check_bad_lines, records, run
import ical_oracle

ICAL = SHARED / "vectors" / "ical"
THUNDERBIRD = ICAL / "thunderbird-invitations"


def extract(*args, input):
    r = run("event-extract", "--no-progress", *args, input=input)
    assert r.returncode == 0, r.stderr
    return records(r.stdout)


def events_of_mail(name):
    parsed = run("mime-parse", THUNDERBIRD / name)
    assert parsed.returncode == 0, parsed.stderr
    [record] = extract(input=parsed.stdout)
    return record["events"]


# Thunderbird's invitation mails: what a calendar client reads in each.
THUNDERBIRD_EXPECTED = {
    "single-event.eml": dict(uid="02e79b96", sequence=0, method="REQUEST", summary="Single Event",
                             start="2022-03-16T11:00:00Z", end="2022-03-16T11:30:00Z", recurrence=None),
    "update-minor.eml": dict(uid="02e79b96", sequence=0, method="REQUEST", summary="Updated Event"),
    "update-major.eml": dict(uid="02e79b96", sequence=2, method="REQUEST", start="2022-03-16T05:00:00Z"),
    "cancel-single-event.eml": dict(uid="02e79b96", sequence=1, method="CANCEL", status="cancelled"),
    "repeat-event.eml": dict(recurrence={"rule": "FREQ=DAILY;COUNT=3;WKST=SU", "rdates": [], "exdates": []}),
    "exception-major.eml": dict(recurrence_id="2022-03-17T11:00:00Z", sequence=2, start="2022-03-17T05:00:00Z"),
    "exception-minor.eml": dict(recurrence_id="2022-03-17T11:00:00Z", summary="Exception title"),
    # the mail says it lacks DTSTART on purpose; a CANCEL needs none
    "cancel-repeat-event.eml": dict(method="CANCEL", status="cancelled", start=None, defects=[],
                                    recurrence={"rule": "FREQ=DAILY;COUNT=3;WKST=SU", "rdates": [],
                                                "exdates": ["2022-03-17T11:00:00Z"]}),
    "meet-meeting-invite.eml": dict(url="https://meet.google.com/pyb-ndcu-hhc", start="2021-03-22T09:30:00Z", defects=[]),
    "teams-meeting-invite.eml": dict(time_zone="Europe/Kiev", start="2020-12-02T17:00:00Z", start_local="2020-12-02T19:00:00"),
    # Outlook: a Windows zone name ("FLE Standard Time") with a VTIMEZONE from 1601
    "outlook-test-invite.eml": dict(time_zone="Europe/Kiev", start="2021-11-27T07:00:00Z", end="2021-11-27T07:30:00Z"),
    "message-non-invite.eml": dict(method="PUBLISH", time_zone="Europe/Helsinki", start_local="2021-11-29T10:55:00"),
    "event-with-file-attachment.eml": dict(uid="02e79b96-file", method="REQUEST"),
}


@pytest.mark.shared("vectors/ical/thunderbird-invitations")
@pytest.mark.parametrize("name", sorted(THUNDERBIRD_EXPECTED))
def test_thunderbird_invitations(name):
    [event] = events_of_mail(name)
    for key, value in THUNDERBIRD_EXPECTED[name].items():
        assert event[key] == value, key
    assert event["source"] == "icalendar"


@pytest.mark.shared("vectors/ical/thunderbird-invitations")
def test_teams_link_and_attendees():
    [event] = events_of_mail("teams-meeting-invite.eml")
    assert event["url"].startswith("https://teams.microsoft.com/l/meetup-join/")
    assert event["organizer"]["address"] and all(a["status"] in ("needs-action", "accepted", "declined", "tentative", "delegated")
                                                 for a in event["attendees"])


@pytest.mark.shared("vectors/ical/thunderbird-invitations")
def test_invitation_sent_twice_in_one_mail_is_one_event():
    # the Meet mail carries the calendar as text/calendar and again as invite.ics (application/ics)
    parsed = records(run("mime-parse", THUNDERBIRD / "meet-meeting-invite.eml").stdout)[0]
    assert len(parsed["calendar"]) == 2 and parsed["calendar_methods"] == ["REQUEST", None]
    assert len(events_of_mail("meet-meeting-invite.eml")) == 1


def calendar_record(path):
    return json.dumps({"subject": path.name, "calendar": [path.read_bytes().decode("utf-8", "replace")]})


def every_calendar_file():
    return sorted(p for p in ICAL.rglob("*") if p.is_file() and (p.suffix == ".ics" or p.parent.name == "test-data")
                  and p.suffix not in (".txt", ".vcf", ".data", ".tab") and not p.name.startswith("vcardfuzz"))


@pytest.mark.shared("vectors/ical")
def test_every_real_calendar_gives_one_line_and_no_crash():
    """libical's fuzz and crash reproducers among them: each record in is a line out, in time."""
    files = every_calendar_file()
    assert len(files) > 300
    r = run("event-extract", "--no-progress", input="\n".join(calendar_record(p) for p in files) + "\n", timeout=300)
    assert r.returncode == 0 and r.stderr == b"", r.stderr[:2000]
    out = records(r.stdout)
    assert len(out) == len(files)
    unreadable = [o["subject"] for o in out if "unreadable_calendar" in o.get("defects", [])]
    assert all(name.startswith(("fuzz", "crash", "poc", "timezonefuzz")) or name in UNREADABLE_BY_LIBICAL
               for name in unreadable), unreadable


# Files libical cannot read at all (a named defect on the message), with the reason.
UNREADABLE_BY_LIBICAL = {
    "get_char_test.ics": "libical's reader test: binary junk between the BEGIN lines",
    "issue250.ics": "libical's crash reproducer (BEGIN;\\r\\n and escaped junk)",
    "issue251.ics": "libical's crash reproducer", "issue252.ics": "libical's crash reproducer",
    "issue253.ics": "libical's crash reproducer", "malloc.ics": "libical's crash reproducer (cut-off lines)",
    "zday.ics": "libical's fuzzed calendar (components named 000)",
    "big_bad_calendar.ics": "icalendar's deliberately broken calendar", "small_bad_calendar.ics": "the same, smaller",
    "issue_178_component_with_invalid_name_represented.ics": "a top-level component with an invalid name",
    "issue_178_custom_component_contains_other.ics": "a VEVENT inside a top-level X component: libical gives up",
}

# Where Python's icalendar and we disagree, file by file, and why ours stands.
KNOWN_DIFFERENCES = {
    "0.ics": "two SUMMARY properties: icalendar returns both as a list, we the first (libical's get)",
    "issue_526_calendar_with_different_events.ics": "TZID 'Western/Central Europe' is neither a VTIMEZONE of the file nor "
        "a zone ICU knows: icalendar guesses Europe/Berlin, we name unknown_time_zone (never a silent guess)",
    "issue_526_calendar_with_event_subset.ics": "as issue_526_calendar_with_different_events.ics",
    "issue_526_calendar_with_events.ics": "as issue_526_calendar_with_different_events.ics",
    "issue_526_calendar_with_shuffeled_events.ics": "as issue_526_calendar_with_different_events.ics",
    "multiple_calendar_components.ics": "every property is folded after an empty line ('UID\\r\\n\\r\\n :956630271'): "
        "libical ends the property at the empty line, icalendar unfolds across it; RFC 5545 folds only CRLF + space",
    "issue_86_x_wr_timezone_without_time_zone_in_dt.ics": "floating times in a Google export read in X-WR-TIMEZONE, "
        "as event-extract(1) says; plain icalendar leaves them floating",
    "issue_178_custom_component_contains_other.ics": "a VEVENT inside a top-level X component: libical reads nothing",
    "issue_201_test_matrix.ics": "a start in UTC with a floating DTEND: we name invalid_dtend and end at the start "
        "(RFC 5545's default for a date-time); icalendar keeps the floating end, which has no instant",
}


def strip(text):
    return text.strip() if text else text


def comparable(event):
    return {"uid": strip(event["uid"]), "sequence": event["sequence"], "status": event["status"],
            "summary": strip(event["summary"]),
            "start": event["start"], "end": event["end"],
            "attendees": [[a["address"], a["status"]] for a in event["attendees"]]}


@pytest.mark.shared("vectors/ical")
def test_differential_against_python_icalendar():
    """start, end, summary, uid, sequence, status and attendees agree with icalendar on every
    calendar both read: each event icalendar reads, event-extract reads alike (where icalendar
    skips an event it cannot decode, event-extract may read more). The rest are listed above
    with their reasons. Summaries are compared without the spaces at their ends: libical drops
    them, icalendar keeps them (so uids too)."""
    files = sorted(ICAL.rglob("*.ics"))
    out = records(run("event-extract", "--no-progress", input="\n".join(calendar_record(p) for p in files) + "\n").stdout)
    agree, disagree, theirs_unreadable = 0, [], 0
    for path, record in zip(files, out):
        theirs = ical_oracle.events(path.read_bytes().decode("utf-8", "replace"))
        if theirs is None:
            theirs_unreadable += 1
            continue
        ours = [comparable(e) for e in record["events"]]
        # an event icalendar cannot decode (its oracle raised) is not compared
        theirs = [dict(e, summary=strip(e["summary"]), uid=strip(e["uid"])) for e in theirs if "error" not in e]
        if all(e in ours for e in theirs):
            agree += 1
        else:
            disagree.append(path.name)
    unexplained = [name for name in disagree if name not in KNOWN_DIFFERENCES]
    assert unexplained == []
    stale = [name for name in KNOWN_DIFFERENCES if name not in disagree]
    assert stale == [], "listed as differing but agreeing now"
    assert agree >= 260 and theirs_unreadable < 25


def test_bad_lines_follow_the_convention():
    check_bad_lines("event-extract", bad_record=b'{"id":"x"}',
                    bad_record_error="no calendar, subject, text or html: not a mime-parse record")


def test_floating_zone_option():
    cal = "BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\nUID:f\r\nDTSTART:20260312T103000\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n"
    line = json.dumps({"subject": "x", "calendar": [cal]}) + "\n"
    [floating] = extract(input=line)[0]["events"]
    assert floating["start"] is None and floating["start_local"] == "2026-03-12T10:30:00"
    [read] = extract("--floating-zone", "Asia/Taipei", input=line)[0]["events"]
    assert read["start"] == "2026-03-12T02:30:00Z" and read["time_zone"] == "Asia/Taipei"
    bad = run("event-extract", "--floating-zone", "Nowhere/Atlantis", input=line)
    assert bad.returncode == 64 and b"unknown time zone" in bad.stderr


def test_ics_attachment_of_any_type_is_read():
    mail = ("From: a@example.com\r\nTo: b@example.com\r\nSubject: Dinner\r\nDate: Tue, 10 Mar 2026 09:00:00 +0000\r\n"
            "MIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary=b\r\n\r\n--b\r\nContent-Type: text/plain\r\n\r\n"
            "See you there.\r\n--b\r\nContent-Type: application/octet-stream; name=dinner.ics\r\n"
            "Content-Disposition: attachment; filename=dinner.ics\r\n\r\n"
            "BEGIN:VCALENDAR\r\nMETHOD:PUBLISH\r\nBEGIN:VEVENT\r\nUID:dinner-1\r\nDTSTART;TZID=Asia/Taipei:20260320T190000\r\n"
            "DURATION:PT2H\r\nSUMMARY:Dinner\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n--b--\r\n")
    parsed = run("mime-parse", input=mail)
    [event] = extract(input=parsed.stdout)[0]["events"]
    assert event["uid"] == "dinner-1" and event["start"] == "2026-03-20T11:00:00Z" and event["end"] == "2026-03-20T13:00:00Z"
    assert event["method"] == "PUBLISH" and event["end_local"] == "2026-03-20T21:00:00"
