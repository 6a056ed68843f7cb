"""mail-compose as a user runs it (issue 43): what it writes is mail that Python's email and
mime-parse read alike, that lands in the conversation of what it answers, and whose RSVPs
libical, Python's icalendar and event-group read as the answer given; bad requests are named
by their line, counted, and leave the others written."""
import base64
import email
import email.policy
import hashlib
import json
import os
import pathlib
import subprocess

import icalendar
import pytest

from conftest import BIN, ENV, SAMPLE, run

ME = "mei@example.tw"
NOW = "2026-03-20T08:00:00Z"


@pytest.fixture(scope="module")
def sample_records(tmp_path_factory):
    path = tmp_path_factory.mktemp("compose") / "sample.jsonl"
    path.write_bytes(run("mime-parse", "--no-progress", SAMPLE).stdout)
    return path


def records(path):
    return [json.loads(l) for l in pathlib.Path(path).read_text().splitlines() if l.strip()]


def compose(requests, *args, input_name="requests.jsonl", tmp_path=None):
    data = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in requests).encode()
    if tmp_path is not None:
        f = tmp_path / input_name
        f.write_bytes(data)
        return run("mail-compose", "--now", NOW, *args, f)
    return run("mail-compose", "--now", NOW, *args, input=data)


def unflowed(text, delsp=False):
    """RFC 3676: soft line breaks joined, space-stuffing removed."""
    out, pending = [], ""
    for line in text.split("\n"):
        if line.startswith(" "):
            line = line[1:]
        if line.endswith(" ") and line != "-- ":
            pending += line[:-1] if delsp else line
        else:
            out.append(pending + line)
            pending = ""
    if pending:
        out.append(pending)
    return "\n".join(out)


def python_text(message):
    part = message.get_body(preferencelist=("plain",))
    if part is None:
        return None
    text = part.get_content().replace("\r\n", "\n")
    if part.get_param("format") == "flowed":
        text = unflowed(text, part.get_param("delsp") == "yes")
    return text


def mailboxes(header):
    return [(a.display_name, a.addr_spec.lower()) for a in header.addresses] if header is not None else []


def record_mailboxes(value):
    if value is None:
        return []
    return [((m.get("name") or ""), m["address"].lower()) for m in (value if isinstance(value, list) else [value])]


def sample_requests(originals, attachments):
    """Replies and replies to all of every sample message, forwards both ways, RSVPs to its
    invitations, and new mail with files."""
    requests = []
    for r in originals:
        if r.get("is_draft"):
            continue
        requests.append({"reply": r["id"], "text": "Thanks — 好的！\nSee you then."})
        requests.append({"reply": r["id"], "all": True, "text": "To everyone: " + "long line " * 12})
        if "REQUEST" in (r.get("calendar_methods") or []):
            requests.append({"rsvp": r["id"], "partstat": "accepted", "comment": "Looking forward; bring maps"})
    for r in originals[:4]:
        requests.append({"forward": r["id"], "to": "Mom <mom@example.tw>", "text": "FYI"})
        requests.append({"forward": r["id"], "to": ["dad@example.tw"], "as_attachment": True})
    requests.append({"to": "Jürgen Müller <jm@example.de>, \"Sato, Hana\" <hana.sato@example.jp>",
                     "subject": "Photos from Taroko: 太魯閣的照片 📷", "text": "Here they are.\n> not a quote\nFrom the trip",
                     "attachments": [str(p) for p in attachments]})
    return requests


@pytest.fixture(scope="module")
def attachments(tmp_path_factory):
    folder = tmp_path_factory.mktemp("files")
    files = {
        "notes.txt": b"plain notes\n",
        "太魯閣國家公園_行程表_" + "長い名前" * 10 + ".txt": "第一天：燕子口\n".encode(),
        "photo.jpg": pathlib.Path("/bin/true").read_bytes(),  # a program named like a picture
        "data.bin": bytes(range(256)) * 40,
    }
    for name, data in files.items():
        (folder / name).write_bytes(data)
    return [folder / name for name in files]


@pytest.fixture(scope="module")
def written(sample_records, attachments, tmp_path_factory):
    """Every sample request written into a maildir, with mime-parse's records."""
    out = tmp_path_factory.mktemp("sent")
    requests = sample_requests(records(sample_records), attachments)
    r = compose(requests, "--records", sample_records, "--me", ME, "--name", "陳美玲", "--maildir", out / "Sent", "--record")
    assert r.returncode == 0, r.stderr
    lines = [json.loads(l) for l in r.stdout.splitlines()]
    assert len(lines) == len(requests)
    return requests, lines, out / "Sent"


def test_the_maildir_holds_each_message_whole_and_seen(written):
    requests, lines, maildir = written
    assert not os.listdir(maildir / "tmp") and not os.listdir(maildir / "new")
    files = sorted(os.listdir(maildir / "cur"))
    assert len(files) == len(requests) and all(f.endswith(":2,S") for f in files)
    assert sorted(pathlib.Path(l["source"]["path"]).name for l in lines) == files
    assert (os.stat(maildir).st_mode & 0o077) == 0


def test_python_and_mime_parse_read_every_message_alike(written, attachments):
    requests, lines, _ = written
    for request, record in zip(requests, lines):
        raw = pathlib.Path(record["source"]["path"]).read_bytes()
        assert max(len(l) for l in raw.split(b"\n")) <= 998
        message = email.message_from_bytes(raw, policy=email.policy.default)
        assert not [d for d in message.defects], (request, message.defects)
        assert str(message["subject"]) == record["subject"], request
        for field in ("from", "to", "cc"):
            assert mailboxes(message[field]) == record_mailboxes(record[field]), (request, field)
        assert message["message-id"].strip("<> ") == record["message_id"]
        part = message.get_body(preferencelist=("plain",))
        assert part is not None and part.get_param("format") == "flowed"
        # mime-parse keeps the text as sent (text_format says flowed; text-extract undoes it)
        assert part.get_content().replace("\r\n", "\n").rstrip("\n") == (record["text"] or "").rstrip("\n"), request
        assert record["text_format"] == "flowed"
        if request.get("text") and "rsvp" not in request and "forward" not in request:
            assert python_text(message).startswith(request["text"].rstrip(" ")), request
        names = [p.get_filename() for p in message.iter_attachments()]
        assert names == [a["filename"] for a in record["attachments"]], request
        for part, a in zip(message.iter_attachments(), record["attachments"]):
            if part.get_content_type() != "message/rfc822":
                data = part.get_payload(decode=True)
                assert hashlib.sha256(data).hexdigest() == a["sha256"], (request, a["filename"])


def test_attachments_keep_their_names_bytes_and_content_types(written, attachments):
    requests, lines, _ = written
    new = lines[-1]
    assert [a["filename"] for a in new["attachments"]] == [p.name for p in attachments]
    assert [a["sha256"] for a in new["attachments"]] == [hashlib.sha256(p.read_bytes()).hexdigest() for p in attachments]
    types = {a["filename"]: a["content_type"] for a in new["attachments"]}
    assert types["notes.txt"] == "text/plain"
    assert not types["photo.jpg"].startswith("image/")
    assert new["subject"] == "Photos from Taroko: 太魯閣的照片 📷"
    message = email.message_from_bytes(pathlib.Path(new["source"]["path"]).read_bytes(), policy=email.policy.default)
    assert new["text"] == "Here they are.\n> not a quote\n From the trip\n"  # space-stuffed (RFC 3676)
    assert python_text(message) == "Here they are.\n> not a quote\nFrom the trip\n"
    assert record_mailboxes(new["to"]) == [("Jürgen Müller", "jm@example.de"), ("Sato, Hana", "hana.sato@example.jp")]


def test_replies_thread_and_land_in_their_originals_conversations(written, sample_records, tmp_path):
    requests, lines, maildir = written
    originals = {r["id"]: r for r in records(sample_records)}
    for request, record in zip(requests, lines):
        if "reply" not in request:
            continue
        original = originals[request["reply"]]
        assert record["in_reply_to"] == [original["message_id"]]
        assert record["references"][-1] == original["message_id"]
        assert record["references"][:-1] == (original["references"] or original["in_reply_to"][:1])
        assert record["subject"].startswith("Re: ") and not record["subject"].startswith("Re: Re:")
        assert ME not in [a for _, a in record_mailboxes(record["to"]) + record_mailboxes(record["cc"])] \
            or original["from"]["address"] == ME
    # the sample and what was written, keyed and grouped as make pipeline does
    both = tmp_path / "both.jsonl"
    both.write_bytes(sample_records.read_bytes() + run("mime-parse", "--no-progress", maildir).stdout)
    keyed = run("participant-hash", "--me", ME, both)
    assert keyed.returncode == 0, keyed.stderr
    conversations = [json.loads(l) for l in run("conversation-group", input=keyed.stdout).stdout.splitlines()]
    where = {}
    for c in conversations:
        for id in c["message_ids"]:
            where[id] = c
    for request, record in zip(requests, lines):
        if "reply" in request:
            original = originals[request["reply"]]
            if original["id"] not in where:  # reports and drafts are in no conversation
                continue
            # a reply to all stays in the chat (a group's, a list's); a reply to the sender alone
            # is in the chat with them (the same one when the chat is theirs and mine alone)
            recipients = sorted(a for _, a in record_mailboxes(record["to"]) + record_mailboxes(record["cc"]))
            if request.get("all"):
                assert where[record["id"]] is where[original["id"]], request
            else:
                assert sorted(p["address"] for p in where[record["id"]]["participants"]) == recipients, request
                if sorted(p["address"] for p in where[original["id"]]["participants"]) == recipients:
                    assert where[record["id"]] is where[original["id"]], request


def test_rsvps_read_as_the_answer_given(written, sample_records, tmp_path):
    requests, lines, maildir = written
    rsvps = [(q, r) for q, r in zip(requests, lines) if "rsvp" in q]
    assert rsvps, "the sample has invitations"
    originals = {r["id"]: r for r in records(sample_records)}
    for request, record in rsvps:
        invitation = icalendar.Calendar.from_ical(originals[request["rsvp"]]["calendar"][0])
        reply = icalendar.Calendar.from_ical(record["calendar"][0])
        assert str(reply["METHOD"]) == "REPLY" and record["calendar_methods"] == ["REPLY"]
        invited = [e for e in invitation.walk("VEVENT")]
        answered = [e for e in reply.walk("VEVENT")]
        assert {str(e["UID"]) for e in answered} == {str(e["UID"]) for e in invited}
        for event in answered:
            attendees = event.get("ATTENDEE")
            attendees = attendees if isinstance(attendees, list) else [attendees]
            assert [str(a).lower() for a in attendees] == ["mailto:" + ME]
            assert attendees[0].params["PARTSTAT"] == "ACCEPTED"
            assert str(event["COMMENT"]) == "Looking forward; bring maps"
        organizer = str(invited[0]["ORGANIZER"]).lower().removeprefix("mailto:")
        assert [a for _, a in record_mailboxes(record["to"])] == [organizer]
        assert record["subject"].startswith("Accepted: ")
    # event-group applies the reply to the organizer's invitation
    both = tmp_path / "both.jsonl"
    both.write_bytes(sample_records.read_bytes() + run("mime-parse", "--no-progress", maildir).stdout)
    events = run("event-extract", both)
    grouped = run("event-group", input=events.stdout)
    assert grouped.returncode == 0, grouped.stderr
    grouped = [json.loads(l) for l in grouped.stdout.splitlines()]
    answered_uids = {str(e["UID"]) for _, r in rsvps for e in icalendar.Calendar.from_ical(r["calendar"][0]).walk("VEVENT")}
    statuses = [a["status"] for e in grouped if e.get("uid") in answered_uids for a in e.get("attendees") or [] if a["address"] == ME]
    assert statuses and set(statuses) == {"accepted"}


def test_bad_requests_are_named_by_line_and_the_others_written(sample_records, tmp_path):
    requests = [
        {"reply": "CAF1-alex-0001@mail.example.com", "text": "fine"},
        {"reply": "nowhere@example.com", "text": "?"},
        {"to": "not an address", "text": "x"},
        {"reply": "CAF1-alex-0001@mail.example.com", "attachments": [str(tmp_path / "missing.pdf")]},
        {"rsvp": "CAF1-alex-0001@mail.example.com", "partstat": "accepted"},
        {"reply": "CAF1-alex-0001@mail.example.com", "all": True, "text": "fine too"},
    ]
    r = compose(requests, "--records", sample_records, "--me", ME, "--mbox", tmp_path=tmp_path)
    assert r.returncode == 65
    err = r.stderr.decode().splitlines()
    name = str(tmp_path / "requests.jsonl")
    assert err[0] == f"mail-compose: {name}:2: no message nowhere@example.com"
    assert err[1].startswith(f"mail-compose: {name}:3: to: 'not an address' is not an address")
    assert err[2].startswith(f"mail-compose: {name}:4: attachments: {tmp_path}/missing.pdf: ")
    assert err[3].startswith(f"mail-compose: {name}:5: not an invitation")
    assert "4 requests not written" in r.stderr.decode()
    messages = [m for m in r.stdout.split(b"\nFrom MAILER-DAEMON ") if m.strip()]
    assert len(messages) == 2
    # a line that is not JSON is one failed request too
    r = run("mail-compose", "--records", sample_records, "--me", ME, input=b'{"reply": \n')
    assert r.returncode == 65 and r.stderr.startswith(b"mail-compose: -:1: ") and r.stdout == b""


def test_standard_output_takes_one_message(sample_records):
    r = compose([{"to": "a@example.com", "text": "1"}, {"to": "b@example.com", "text": "2"}], "--me", ME)
    assert r.returncode == 65 and b":2: a second message" in r.stderr
    assert r.stdout.count(b"\nMessage-ID: ") == 1


def test_gmail_lines_carry_the_raw_message_and_its_thread(sample_records):
    original = next(r for r in records(sample_records) if r.get("thread_id"))
    r = compose([{"reply": original["id"], "text": "ok"}], "--records", sample_records, "--me", ME, "--gmail", "--record")
    assert r.returncode == 0, r.stderr
    line = json.loads(r.stdout)
    assert line["threadId"] == original["thread_id"]
    raw = base64.urlsafe_b64decode(line["raw"] + "=" * (-len(line["raw"]) % 4))
    assert b"\r\n" in raw and b"\n" not in raw.replace(b"\r\n", b"")
    message = email.message_from_bytes(raw, policy=email.policy.default)
    assert message["in-reply-to"] == f"<{original['message_id']}>"
    assert line["record"]["in_reply_to"] == [original["message_id"]]


def test_a_chat_is_answered_from_the_store(sample_records, tmp_path):
    db = tmp_path / "mail.db"
    add = run("mailstore", "add", db, sample_records, "--me", ME)
    assert add.returncode == 0, add.stderr
    chats = [json.loads(l) for l in run("mailstore", "conversations", db).stdout.splitlines()]
    group = next(c for c in chats if c["is_group"])
    newest = json.loads(run("mailstore", "messages", db, group["conversation_id"]).stdout.splitlines()[0])
    r = compose([{"conversation": group["conversation_id"], "text": "Lovely photos!"}], "--store", db)
    assert r.returncode == 0, r.stderr
    message = email.message_from_bytes(r.stdout, policy=email.policy.default)
    assert message["in-reply-to"] == f"<{newest['message_id']}>"
    # the store knows who I am, and the name I write beside my address
    assert (message["from"].addresses[0].addr_spec, message["from"].addresses[0].display_name) == (ME, "陳美玲")
    everyone = {a for _, a in mailboxes(message["to"]) + mailboxes(message["cc"])}
    assert everyone == {p["address"] for p in group["participants"]}  # everyone in the chat but me
