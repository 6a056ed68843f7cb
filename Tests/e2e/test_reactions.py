"""Reactions (RFC 9078) as Delta Chat and Outlook send them: read by mime-parse, shown on the
bubble of the message they react to (never as bubbles of their own) from files, from the store
and as they are delivered; and the site's calendar as a file (calendar.ics) that a calendar
application subscribes to, read by Python's icalendar and by libical (event-extract) again."""
import base64
import datetime
import html
import json
import re

import icalendar

from conftest import SAMPLE, records, run

ME = "mei@example.tw"
NOW = "2026-03-11T00:00:00Z"


def mail(headers, body, content_type="text/plain; charset=utf-8"):
    head = "".join(f"{k}: {v}\n" for k, v in headers.items())
    return f"{head}MIME-Version: 1.0\nContent-Type: {content_type}\n{body}".encode()


def original(k, hour=9):
    return mail({"From": f"Mei <{ME}>", "To": "Alex Rivera <alex@example.com>", "Subject": f"Dinner {k}",
                 "Date": f"Mon, 2 Mar 2026 {hour:02d}:00:00 +0800", "Message-ID": f"<o{k}@example.tw>"},
                "\nAre you free on Friday?\n")


def delta_chat_reaction(emoji, to, k, minute=0, sender="Alex Rivera <alex@example.com>"):
    """A reaction as Delta Chat sends one: the reaction is the whole body."""
    return mail({"From": sender, "To": f"Mei <{ME}>", "Subject": "Re: Dinner",
                 "Date": f"Mon, 2 Mar 2026 10:{minute:02d}:00 +0800", "Message-ID": f"<r{k}@example.com>",
                 "In-Reply-To": f"<{to}>", "References": f"<{to}>", "Chat-Version": "1.0"},
                f"Content-Disposition: reaction\n\n{emoji}\n")


def outlook_reaction(emoji, to, k, minute=0, sender="Alex Rivera <alex@example.com>"):
    """A reaction as Outlook sends one: a fallback text and HTML, and the reaction part."""
    encoded = base64.b64encode(emoji.encode()).decode()
    body = (f"\n--M\nContent-Type: multipart/alternative; boundary=A\n\n"
            f"--A\nContent-Type: text/plain; charset=utf-8\n\nAlex reacted to your message\n"
            f"--A\nContent-Type: text/html; charset=utf-8\n\n<p>Alex reacted to your message</p>\n--A--\n"
            f"--M\nContent-Type: text/plain; charset=utf-8\nContent-Disposition: reaction\nContent-Transfer-Encoding: base64\n\n{encoded}\n--M--\n")
    return mail({"From": sender, "To": f"Mei <{ME}>", "Subject": "Reaction to Dinner",
                 "Date": f"Mon, 2 Mar 2026 11:{minute:02d}:00 +0800", "Message-ID": f"<x{k}@example.com>",
                 "In-Reply-To": f"<{to}>"}, body, "multipart/mixed; boundary=M")


def mbox(*messages):
    return b"".join(b"From x Mon Mar  2 00:00:00 2026\n" + m.rstrip(b"\n") + b"\n\n" for m in messages)


def parsed(*messages):
    r = run("mime-parse", "--no-progress", input=mbox(*messages))
    assert r.returncode == 0, r.stderr
    return records(r.stdout)


def test_a_delta_chat_reaction_and_an_outlook_one_are_read():
    delta, outlook, plain = parsed(delta_chat_reaction("👍", "o1@example.tw", 1), outlook_reaction("❤️", "o1@example.tw", 2),
                                   original(1))
    assert delta["reaction"] == "👍" and delta["in_reply_to"] == ["o1@example.tw"]
    assert outlook["reaction"] == "❤️" and outlook["in_reply_to"] == ["o1@example.tw"]
    assert outlook["text"].startswith("Alex reacted to your message") and outlook["attachments"] == []
    assert plain["reaction"] is None
    # more than one line of mail is no reaction: its text is the message's
    long = parsed(delta_chat_reaction("👍" * 300, "o1@example.tw", 3))[0]
    assert long["reaction"] is None and long["text"].startswith("👍")


def site_from_files(tmp_path, messages, name="site"):
    """The messages through mime-parse, participant-hash and conversation-group, and chat-render's
    site of them: (conversation records, the site)."""
    data = run("mime-parse", "--no-progress", input=mbox(*messages)).stdout
    keyed = run("participant-hash", "--no-progress", "--me", ME, input=data)
    assert keyed.returncode == 0, keyed.stderr
    (tmp_path / "m.jsonl").write_bytes(keyed.stdout)
    grouped = run("conversation-group", "--no-progress", "--now", NOW, tmp_path / "m.jsonl")
    assert grouped.returncode == 0, grouped.stderr
    (tmp_path / "c.jsonl").write_bytes(grouped.stdout)
    site = tmp_path / name
    r = run("chat-render", "--no-progress", "--conversations", tmp_path / "c.jsonl", "--out", site, "--zone", "Asia/Taipei",
            "--now", NOW, tmp_path / "m.jsonl")
    assert r.returncode == 0 and r.stderr == b"", r.stderr
    return records(grouped.stdout), site


def bubbles(page):
    """{message id: its <li> on the page}."""
    text = page.read_text()
    return {html.unescape(m.group(1)): m.group(0)
            for m in re.finditer(r'<li class="message [a-z]+" id="[^"]+" data-message-id="([^"]+)">.*?\n</li>', text, re.S)}


def reactions_on(bubble):
    """[(emoji, count, who)] of a bubble's reactions row."""
    return [(html.unescape(e), int(n), html.unescape(who))
            for who, e, n in re.findall(r'<li class="reaction" title="([^"]*)"><span aria-hidden="true">(.*?) <span class="reaction-count">(\d+)</span>', bubble)]


def test_reactions_show_on_the_bubble_they_react_to_and_a_later_one_replaces_an_earlier(tmp_path):
    messages = [original(1), original(2, hour=10),
                delta_chat_reaction("👍", "o1@example.tw", 1, minute=1),
                outlook_reaction("❤️", "o2@example.tw", 2, minute=2),
                delta_chat_reaction("😂", "o2@example.tw", 3, minute=30, sender="Sam <sam@example.com>")]
    conversations, site = site_from_files(tmp_path, messages)
    (alex,) = conversations  # Sam's reaction joins the conversation of the message it reacts to
    assert alex["participants"] == [{"name": "Alex Rivera", "address": "alex@example.com"}]
    assert alex["message_ids"] == ["o1@example.tw", "o2@example.tw"] and alex["message_count"] == 2
    assert [(r["of"], r["emoji"], r["message_id"], r["from"]["address"]) for r in alex["reactions"]] == [
        ("o1@example.tw", ["👍"], "r1@example.com", "alex@example.com"),
        ("o2@example.tw", ["😂"], "r3@example.com", "sam@example.com"),  # 02:30Z, before Alex's at 03:02Z
        ("o2@example.tw", ["❤️"], "x2@example.com", "alex@example.com")]
    page = site / "c" / f'{alex["conversation_id"]}.html'
    shown = bubbles(page)
    assert set(shown) == {"o1@example.tw", "o2@example.tw"}  # no bubble of a reaction
    assert reactions_on(shown["o1@example.tw"]) == [("👍", 1, "Alex Rivera")]
    assert reactions_on(shown["o2@example.tw"]) == [("😂", 1, "Sam"), ("❤️", 1, "Alex Rivera")]
    assert '<span class="visually-hidden">😂 from Sam</span>' in shown["o2@example.tw"]

    # Alex changes his mind: his latest reaction is his reaction
    conversations, site = site_from_files(tmp_path, messages + [delta_chat_reaction("😮", "o1@example.tw", 4, minute=40)], "site2")
    shown = bubbles(site / "c" / f'{alex["conversation_id"]}.html')
    assert reactions_on(shown["o1@example.tw"]) == [("😮", 1, "Alex Rivera")]
    # and takes it back
    conversations, site = site_from_files(tmp_path, messages + [delta_chat_reaction("", "o1@example.tw", 5, minute=50)], "site3")
    shown = bubbles(site / "c" / f'{alex["conversation_id"]}.html')
    assert reactions_on(shown["o1@example.tw"]) == [] and 'class="reactions"' not in shown["o1@example.tw"]


def test_a_reaction_to_a_message_not_in_the_mail_is_kept_and_shown_on_none(tmp_path):
    conversations, site = site_from_files(tmp_path, [original(1), delta_chat_reaction("👍", "gone@example.tw", 1)])
    (c,) = conversations
    assert c["message_ids"] == ["o1@example.tw"] and c["message_count"] == 1
    assert [(r["of"], r["emoji"]) for r in c["reactions"]] == [("gone@example.tw", ["👍"])]
    assert "reaction" not in (site / "c" / f'{c["conversation_id"]}.html').read_text().replace("reactions", "")


def deliver(db, message, site):
    r = run("mailstore", "deliver", "-q", "--me", ME, "--site", site, "--zone", "Asia/Taipei", db, input=message)
    assert r.returncode == 0, r.stderr


def test_a_delivered_reaction_updates_the_bubble_it_reacts_to(tmp_path):
    db, site = tmp_path / "mail.db", tmp_path / "site"
    deliver(db, original(1), site)
    deliver(db, original(2, hour=10), site)
    pages = list((site / "c").glob("*.html"))
    assert len(pages) == 1
    assert reactions_on(bubbles(pages[0])["o1@example.tw"]) == []
    deliver(db, outlook_reaction("👍", "o1@example.tw", 1), site)
    shown = bubbles(pages[0])
    assert set(shown) == {"o1@example.tw", "o2@example.tw"}
    assert reactions_on(shown["o1@example.tw"]) == [("👍", 1, "Alex Rivera")]
    assert reactions_on(shown["o2@example.tw"]) == []
    # an older reaction (sent before, delivered after) changes nothing; a later one replaces it
    deliver(db, delta_chat_reaction("🎉", "o1@example.tw", 2, minute=5), site)
    assert reactions_on(bubbles(pages[0])["o1@example.tw"]) == [("👍", 1, "Alex Rivera")]
    deliver(db, outlook_reaction("🎉", "o1@example.tw", 3, minute=5), site)
    assert reactions_on(bubbles(pages[0])["o1@example.tw"]) == [("🎉", 1, "Alex Rivera")]
    # the pages kept current delivery by delivery are those chat-render makes of the store whole
    again = run("chat-render", "--no-progress", "--zone", "Asia/Taipei", "--store", db, "--out", tmp_path / "again")
    assert again.returncode == 0, again.stderr
    assert (tmp_path / "again" / "c" / pages[0].name).read_bytes() == pages[0].read_bytes()
    stored = records(run("mailstore", "conversations", db).stdout)
    assert [c["message_count"] for c in stored] == [2]


# calendar.ics

BERLIN = """BEGIN:VCALENDAR
VERSION:2.0
PRODID:-//Example//EN
METHOD:{method}
BEGIN:VTIMEZONE
TZID:Europe/Berlin
BEGIN:STANDARD
DTSTART:19701025T030000
RRULE:FREQ=YEARLY;BYMONTH=10;BYDAY=-1SU
TZOFFSETFROM:+0200
TZOFFSETTO:+0100
END:STANDARD
BEGIN:DAYLIGHT
DTSTART:19700329T020000
RRULE:FREQ=YEARLY;BYMONTH=3;BYDAY=-1SU
TZOFFSETFROM:+0100
TZOFFSETTO:+0200
END:DAYLIGHT
END:VTIMEZONE
BEGIN:VEVENT
UID:{uid}
SEQUENCE:{sequence}
DTSTAMP:20260301T080000Z
DTSTART;TZID=Europe/Berlin:{start}
DTEND;TZID=Europe/Berlin:{end}
SUMMARY:{summary}
LOCATION:Hauptstraße 1\\, Berlin
STATUS:{status}
ORGANIZER;CN=Dr. Weber:mailto:praxis@example.de
ATTENDEE;PARTSTAT=NEEDS-ACTION:mailto:{me}
END:VEVENT
END:VCALENDAR
"""


def invitation(k, uid, method, sequence, status, summary, start, end):
    ics = BERLIN.format(method=method, uid=uid, sequence=sequence, start=start, end=end, summary=summary, status=status, me=ME)
    return mail({"From": "Praxis Weber <praxis@example.de>", "To": ME, "Subject": summary,
                 "Date": f"Sun, 1 Mar 2026 {8 + k:02d}:00:00 +0000", "Message-ID": f"<i{k}@example.de>"},
                "\n" + ics, f"text/calendar; charset=utf-8; method={method}")


def test_the_site_calendar_is_a_file_icalendar_reads_with_the_events_of_event_group(tmp_path):
    invitations = [invitation(1, "dentist@example.de", "REQUEST", 0, "CONFIRMED", "Zahnarzt", "20260315T090000", "20260315T100000"),
                   invitation(2, "checkup@example.de", "REQUEST", 0, "CONFIRMED", "Kontrolle", "20260320T140000", "20260320T143000"),
                   invitation(3, "checkup@example.de", "CANCEL", 1, "CANCELLED", "Kontrolle", "20260320T140000", "20260320T143000")]
    db, site, log = tmp_path / "mail.db", tmp_path / "site", tmp_path / "m.jsonl"
    for m in [SAMPLE.read_bytes()] + invitations:
        r = run("mailstore", "deliver", "-q", "--me", ME, "--journal", log, "--site", site, "--zone", "Asia/Taipei", db, input=m)
        assert r.returncode == 0, r.stderr
    text = (site / "calendar.ics").read_bytes()
    assert 'href="calendar.ics"' in (site / "events.html").read_text()

    (cal,) = icalendar.Calendar.from_ical(text, multiple=True)
    assert str(cal["METHOD"]) == "PUBLISH" and str(cal["VERSION"]) == "2.0" and "mailpipe" in str(cal["PRODID"])
    vevents = cal.walk("VEVENT")
    for v in vevents:
        for name in ["UID", "DTSTAMP", "DTSTART", "SEQUENCE"]:
            assert name in v, (name, v)
        assert "ATTENDEE" not in v
    uids = [str(v["UID"]) for v in vevents]
    assert len(uids) == len(set(uids))

    # the events event-group makes of the same records, each once, at the same time
    grouped = records(run("event-group", "--no-progress", log).stdout)
    assert len(grouped) == len(vevents) >= 3

    def instant(v, name):
        value = v.decoded(name)
        if isinstance(value, datetime.datetime):
            if value.tzinfo is None:
                return value.isoformat()
            return value.astimezone(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
        return value.isoformat()

    theirs = sorted((e["summary"] or "", e.get("start") or e.get("start_local"), e["status"] == "cancelled") for e in grouped)
    ours = sorted((str(v["SUMMARY"]) if "SUMMARY" in v else "", instant(v, "DTSTART"), str(v.get("STATUS", "")) == "CANCELLED")
                  for v in vevents)
    assert ours == theirs
    dentist = next(v for v in vevents if str(v["UID"]) == "dentist@example.de")
    assert dentist["DTSTART"].params["TZID"] == "Europe/Berlin" and str(dentist["LOCATION"]) == "Hauptstraße 1, Berlin"
    checkup = next(v for v in vevents if str(v["UID"]) == "checkup@example.de")
    assert str(checkup["STATUS"]) == "CANCELLED" and int(checkup["SEQUENCE"]) == 1
    assert any(str(t["TZID"]) == "Europe/Berlin" for t in cal.walk("VTIMEZONE"))

    # libical reads it back the same: calendar.ics as an invitation through event-extract
    back = mail({"From": "me@example.tw", "Subject": "calendar", "Date": "Sun, 1 Mar 2026 12:00:00 +0000",
                 "Message-ID": "<back@example.tw>"}, "\n" + text.decode(), "text/calendar; charset=utf-8")
    extracted = run("event-extract", "--no-progress", input=run("mime-parse", "--no-progress", input=back).stdout)
    assert extracted.returncode == 0, extracted.stderr
    (record,) = records(extracted.stdout)
    events = record["events"]
    assert all(not e.get("defects") for e in events)
    assert sorted((e["summary"] or "", e.get("start") or e.get("start_local"), e["status"] == "cancelled") for e in events) == theirs
    assert {e["method"] for e in events} == {"PUBLISH"}

    # the same calendar, the same file
    again = run("chat-render", "--no-progress", "--zone", "Asia/Taipei", "--store", db, "--out", tmp_path / "again")
    assert again.returncode == 0, again.stderr
    assert (tmp_path / "again" / "calendar.ics").read_bytes() == text
