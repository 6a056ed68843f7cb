"""mail-compose's messages delivered for real (issue 43): written from a store of the sample
mailbox, sent with Debian's msmtp as `sendmail -t` to an SMTP server the test starts on
127.0.0.1 (aiosmtpd, delivering into a maildir as a delivery agent does: tmp/, then new/), read
back from the maildir, and delivered into the store again, where each reply is in the
conversation of the message it answers."""
import asyncio
import email
import email.policy
import hashlib
import json
import mailbox
import os
import shutil
import struct
import subprocess
import threading
import zlib

import pytest

from conftest import ENV, SAMPLE, records, run

ME = "mei@example.tw"
NOW = "2026-03-11T02:00:00Z"  # after the sample's newest message

# A text as a person writes it, with what a transport may spoil: a line that starts with a dot
# (SMTP's transparency), one that starts with "From " (mbox), a paragraph longer than a line
# (format=flowed's soft breaks) and a link longer than SMTP's 998 octets (quoted-printable).
REPLY_TEXT = ("Yes, Friday works — 6:30 at the usual place?\n"
              ".sig files start with a dot, and so does this line\n"
              "From the station it is a ten-minute walk.\n"
              + " ".join(f"word{i}" for i in range(40)) + "\n"
              "https://maps.example.com/route?" + "x" * 1100 + "\n")
GROUP_TEXT = "Lovely photos! 太魯閣好美 — شكرا ليلى\n\nSee you all in Hualien.\n"
NEW_SUBJECT = "太魯閣の写真 — Taroko 2026 🏞️ café"
NEW_TEXT = "Here are the photos, as promised.\n"
ATTACHMENT_NAME = "太魯閣 été.png"
RSVP_COMMENT = "See you there — 我會準時到"

REQUESTS = {
    "reply": {"reply": "CAF1-alex-0001@mail.example.com", "text": REPLY_TEXT},
    "reply-all": {"reply": "jordan-0003@example.org", "all": True, "text": GROUP_TEXT},
    "new": {"to": "太田 蓮 <ren@example.jp>", "bcc": "archive@example.net", "subject": NEW_SUBJECT, "text": NEW_TEXT},
    "rsvp": {"rsvp": "000000000000d4e5f6trip0012@google.com", "partstat": "accepted", "comment": RSVP_COMMENT},
}
ORIGINALS = {"reply": "CAF1-alex-0001@mail.example.com", "reply-all": "jordan-0003@example.org",
             "rsvp": "000000000000d4e5f6trip0012@google.com"}


def png(width, height):
    """A real PNG (libmagic reads image/png from its content), its pixels from a fixed seed so
    that its base64 holds every kind of byte."""
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
    rows = b"".join(b"\x00" + hashlib.sha256(b"row %d" % y).digest()[:width * 3 // 2] * 2 for y in range(height))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b""))


class MaildirDelivery:
    """aiosmtpd's handler: each message accepted is written into the maildir as a delivery agent
    writes it (Python's mailbox.Maildir: a file in tmp/, then moved into new/), with LF line
    ends and a Return-Path of its envelope sender; each envelope is kept for the test to read."""

    def __init__(self, path):
        self.maildir = mailbox.Maildir(path, create=True)
        self.envelopes = []

    async def handle_DATA(self, server, session, envelope):
        content = envelope.original_content.replace(b"\r\n", b"\n")
        key = self.maildir.add(b"Return-Path: <" + envelope.mail_from.encode() + b">\n" + content)
        self.envelopes.append({"from": envelope.mail_from, "to": list(envelope.rcpt_tos), "key": key})
        return "250 2.0.0 delivered"


class SMTPServer:
    """An SMTP server on 127.0.0.1, on a port the system picks, in a thread of its own."""

    def __init__(self, handler):
        from aiosmtpd.smtp import SMTP
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()
        made = self.loop.create_server(lambda: SMTP(handler, hostname="mx.test", loop=self.loop), "127.0.0.1", 0)
        self.server = asyncio.run_coroutine_threadsafe(made, self.loop).result(10)
        self.port = self.server.sockets[0].getsockname()[1]

    def close(self):
        async def stop():
            self.server.close()
            await self.server.wait_closed()
        asyncio.run_coroutine_threadsafe(stop(), self.loop).result(10)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)
        self.loop.close()


def msmtp_config(path, port):
    """msmtp's configuration: the test's server, no TLS, no authentication (mode 0600, as msmtp
    wants its file)."""
    path.write_text(f"""defaults
auth off
tls off
timeout 30
domain localhost

account test
host 127.0.0.1
port {port}

account default : test
""")
    path.chmod(0o600)
    return path


def unflowed(text):
    """format=flowed text (RFC 3676, DelSp=no) as the lines its writer meant: a line ending in a
    space goes on in the next, a space-stuffed line loses its first space."""
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    out, paragraph = [], ""
    for line in lines:
        if line.startswith(" "):
            line = line[1:]
        paragraph += line
        if line.endswith(" ") and line != "-- ":
            continue
        out.append(paragraph)
        paragraph = ""
    if paragraph:
        out.append(paragraph)
    return "".join(line + "\n" for line in out)


def deliver_to_store(db, mail):
    r = run("mailstore", "deliver", "-q", "--me", ME, db, input=mail)
    assert r.returncode == 0, r.stderr.decode()


def conversation_of(db, message_id):
    found = records(run("mailstore", "search", "--output", "conversations", db, f"id:{message_id}").stdout)
    assert len(found) == 1, (message_id, found)
    return found[0]


@pytest.fixture(scope="module")
def delivered(tmp_path_factory):
    """The four messages written from the sample's store, sent with msmtp and read back: per
    request, what mail-compose wrote, its envelope as the server saw it and the maildir's file;
    the store, with the sample's conversations as they were before the mail came back."""
    msmtp = shutil.which("msmtp")
    if msmtp is None:
        pytest.fail("msmtp is missing (scripts/install-deps --test installs it)")
    try:
        import aiosmtpd  # noqa: F401
    except ImportError:
        pytest.fail("aiosmtpd is missing from .venv (scripts/install-deps --test installs it)")

    tmp = tmp_path_factory.mktemp("delivery")
    db = tmp / "mail.db"
    deliver_to_store(db, SAMPLE.read_bytes())
    before = {key: conversation_of(db, id) for key, id in ORIGINALS.items()}
    attachment = tmp / ATTACHMENT_NAME
    attachment.write_bytes(png(16, 16))
    requests = dict(REQUESTS, new=dict(REQUESTS["new"], attachments=[str(attachment)]))

    handler = MaildirDelivery(str(tmp / "Maildir"))
    server = SMTPServer(handler)
    try:
        config = msmtp_config(tmp / "msmtprc", server.port)
        written = {}
        for key, request in requests.items():
            composed = run("mail-compose", "--store", db, "--me", ME, "--name", "陳美玲", "--zone", "Asia/Taipei", "--now", NOW,
                           input=json.dumps(request, ensure_ascii=False) + "\n")
            assert composed.returncode == 0, composed.stderr.decode()
            written[key] = composed.stdout
            # msmtp -t takes the envelope's sender from its configuration's `from`, or with
            # --read-envelope-from from the message's From (the address mail-compose chose)
            sent = subprocess.run([msmtp, "-C", str(config), "-t", "--read-envelope-from"], input=composed.stdout,
                                  capture_output=True, timeout=60, env=ENV)
            assert sent.returncode == 0, sent.stderr.decode()
            assert len(handler.envelopes) == len(written), f"{key}: msmtp said it sent it, the server has no new message"
    finally:
        server.close()

    arrived = {}
    for key, envelope in zip(written, handler.envelopes):
        path = next((tmp / "Maildir" / "new").glob(envelope["key"] + "*"))
        arrived[key] = {"envelope": envelope, "bytes": path.read_bytes()}
        deliver_to_store(db, arrived[key]["bytes"])
    return {"written": written, "arrived": arrived, "requests": requests, "attachment": attachment,
            "db": db, "before": before, "maildir": tmp / "Maildir"}


def parsed(message):
    return email.message_from_bytes(message, policy=email.policy.default)


def test_every_message_arrived_once_in_the_maildir(delivered):
    maildir = mailbox.Maildir(str(delivered["maildir"]), create=False)
    ids = [m["Message-ID"] for m in maildir]
    assert len(ids) == 4 and len(set(ids)) == 4
    assert sorted(ids) == sorted(parsed(w)["Message-ID"] for w in delivered["written"].values())
    assert not os.listdir(delivered["maildir"] / "tmp"), "a delivery left a file in tmp/"


def test_each_message_arrived_byte_for_byte_as_written_but_its_bcc(delivered):
    """The transport changes nothing: the maildir's file is the Return-Path line, then what
    mail-compose wrote; `sendmail -t` takes Bcc out of the header (and sends to it)."""
    for key, written in delivered["written"].items():
        arrived = delivered["arrived"][key]["bytes"]
        return_path, rest = arrived.split(b"\n", 1)
        sender = parsed(written)["From"].addresses[0].addr_spec
        assert return_path == f"Return-Path: <{sender}>".encode(), key
        expected = b"".join(line for line in written.splitlines(keepends=True) if not line.startswith(b"Bcc:"))
        assert rest == expected, key
    assert b"\nBcc: archive@example.net\n" in delivered["written"]["new"]


def test_the_envelopes_are_the_headers_addresses(delivered):
    """msmtp -t sends to To, Cc and Bcc, from From: each recipient once, mine never."""
    for key, written in delivered["written"].items():
        message, envelope = parsed(written), delivered["arrived"][key]["envelope"]
        assert envelope["from"] == ME, key
        recipients = [a.addr_spec for field in ("To", "Cc", "Bcc") for a in (message[field].addresses if message[field] else [])]
        assert sorted(envelope["to"]) == sorted(recipients) and len(set(recipients)) == len(recipients), key
        assert ME not in recipients, key
    assert delivered["arrived"]["new"]["envelope"]["to"] == ["ren@example.jp", "archive@example.net"]
    assert sorted(delivered["arrived"]["reply-all"]["envelope"]["to"]) == [
        "alex.rivera@example.com", "hana.sato@example.jp", "jordan@example.org", "layla.haddad@example.ae"]


def test_headers_and_text_read_back_with_pythons_email(delivered):
    arrived = {key: parsed(a["bytes"]) for key, a in delivered["arrived"].items()}
    for key in ("reply", "reply-all", "new"):
        body = arrived[key].get_body(("plain",))
        assert body.get_param("format") == "flowed"
        assert unflowed(body.get_content()) == delivered["requests"][key]["text"], key
    assert arrived["reply"]["Subject"] == "Re: Dinner on Friday?"
    assert arrived["reply"]["In-Reply-To"] == "<CAF1-alex-0001@mail.example.com>"
    assert arrived["reply"]["To"].addresses[0].addr_spec == "alex.rivera@example.com"
    assert arrived["reply-all"]["Subject"] == "Re: Trip photos 📷"
    assert arrived["reply"]["From"].addresses[0].display_name == "陳美玲"
    new = arrived["new"]
    assert new["Subject"] == NEW_SUBJECT and new["Bcc"] is None
    assert new["To"].addresses[0].display_name == "太田 蓮"
    (part,) = list(new.iter_attachments())
    assert part.get_filename() == ATTACHMENT_NAME
    assert part.get_content_type() == "image/png"
    assert part.get_content() == delivered["attachment"].read_bytes()


def test_the_rsvp_is_an_imip_reply_to_the_organizer(delivered):
    import icalendar
    invitation = records(run("mime-parse", "--no-progress", SAMPLE).stdout)
    invitation = next(r for r in invitation if r["id"] == ORIGINALS["rsvp"])
    asked = next(c for c in icalendar.Calendar.from_ical(invitation["calendar"][0]).walk("VEVENT"))
    message = parsed(delivered["arrived"]["rsvp"]["bytes"])
    assert message["Subject"] == "Accepted: " + str(asked["SUMMARY"])
    assert message["In-Reply-To"] == f"<{ORIGINALS['rsvp']}>"
    assert [a.addr_spec for a in message["To"].addresses] == [str(asked["ORGANIZER"]).removeprefix("mailto:").lower()]
    part = next(p for p in message.walk() if p.get_content_type() == "text/calendar")
    assert part.get_param("method") == "REPLY"
    calendar = icalendar.Calendar.from_ical(part.get_content())
    assert str(calendar["METHOD"]) == "REPLY"
    (event,) = calendar.walk("VEVENT")
    assert event["UID"] == asked["UID"] and int(event.get("SEQUENCE", 0)) == int(asked.get("SEQUENCE", 0))
    (attendee,) = event["ATTENDEE"] if isinstance(event["ATTENDEE"], list) else [event["ATTENDEE"]]
    assert str(attendee).lower() == f"mailto:{ME}" and attendee.params["PARTSTAT"] == "ACCEPTED"
    assert str(event["COMMENT"]) == RSVP_COMMENT


def test_each_reply_is_in_the_conversation_of_its_original_in_the_store(delivered):
    db = delivered["db"]
    for key, original in ORIGINALS.items():
        message_id = parsed(delivered["written"][key])["Message-ID"].strip("<>")
        before, now = delivered["before"][key], conversation_of(db, message_id)
        assert now["conversation_id"] == before["conversation_id"], key
        assert now["message_count"] == before["message_count"] + 1, key
        assert now["participants"] == before["participants"], key
        messages = records(run("mailstore", "messages", db, now["conversation_id"]).stdout)
        assert messages[0]["id"] == message_id, f"{key}: the reply is the conversation's newest message"
        assert original in {m["id"] for m in messages}, key
    new_id = parsed(delivered["written"]["new"])["Message-ID"].strip("<>")
    (stored,) = records(run("mailstore", "search", db, f"id:{new_id}").stdout)
    assert stored["subject"] == NEW_SUBJECT
    assert [a["filename"] for a in stored["attachments"]] == [ATTACHMENT_NAME]
    assert conversation_of(db, new_id)["conversation_id"] not in {c["conversation_id"] for c in delivered["before"].values()}
