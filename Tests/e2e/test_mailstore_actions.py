"""Acting on mail in the store (issue 44): marks happen at once and wait for their source;
mail I send is stored at once and sent by the local sendmail (mailstore push), sent or failed;
maildir messages get their flags as mblaze's mflag sets them."""
import json
import mailbox
import os
import re
import stat

import pytest

from conftest import SAMPLE, run

ME = "mei@example.tw"


def lines(r):
    assert r.returncode in (0, 1), r.stderr
    return [json.loads(l) for l in r.stdout.splitlines()]


@pytest.fixture
def store(tmp_path):
    db = tmp_path / "mail.db"
    records = tmp_path / "sample.jsonl"
    records.write_bytes(run("mime-parse", "--no-progress", SAMPLE).stdout)
    assert run("mailstore", "add", db, records, "--me", ME).returncode == 0
    return db


def chat(db, **match):
    return next(c for c in lines(run("mailstore", "conversations", db, "--all"))
                if all(c.get(k) == v for k, v in match.items()))


def test_marks_change_the_chat_at_once_and_wait_for_gmail(store):
    unread = next(c for c in lines(run("mailstore", "conversations", store)) if c["unread_count"] > 0)
    cid = unread["conversation_id"]
    assert run("mailstore", "mark", store, "--read", "--archive", f"conversation:{cid}").stdout.strip() != b"0"
    after = chat(store, conversation_id=cid)
    assert after["unread_count"] == 0 and after["archived"]
    assert cid not in [c["conversation_id"] for c in lines(run("mailstore", "conversations", store))]
    pending = lines(run("mailstore", "pending", store))
    assert pending and {p["source"] for p in pending} == {"gmail"} and all(p["state"] == "queued" for p in pending)
    assert all(set(p["remove"]) <= {"UNREAD", "INBOX"} and p["remove"] for p in pending)
    # undone before any push: nothing is left to send
    run("mailstore", "mark", store, "--unread", "--inbox", f"conversation:{cid}")
    assert [p for p in lines(run("mailstore", "pending", store)) if p["action"] == "labels" and
            set(p["add"]) - {"UNREAD", "INBOX"}] == []


def test_usage_errors(store):
    for args in (["--read", "--unread", "id:x"], ["id:x"], ["--read"], ["--spam", "--inbox", "id:x"]):
        assert run("mailstore", "mark", store, *args).returncode == 64, args


@pytest.fixture
def sendmail(tmp_path):
    """A sendmail that appends each message to sent.mbox, or fails as $FAIL says."""
    script = tmp_path / "sendmail"
    script.write_text('#!/bin/sh\ncat > "$0.in"\n[ -n "$FAIL" ] && { echo "relay refused" >&2; exit "$FAIL"; }\n'
                      '{ echo "From sendmail Sat Nov 28 00:00:00 2026"; cat "$0.in"; echo; } >> "$0.out"\n')
    script.chmod(0o755)
    return script


def test_mail_i_send_is_in_its_chat_at_once_then_sent_or_failed(store, sendmail, tmp_path):
    requests = tmp_path / "requests.jsonl"
    requests.write_text('{"reply": "CAF1-alex-0001@mail.example.com", "text": "6:30 it is"}\n'
                        '{"reply": "hana-0009@example.jp", "all": true, "text": "Lovely"}\n')
    composed = run("mail-compose", "--store", store, "--mbox", requests)
    assert composed.returncode == 0, composed.stderr
    outbox = tmp_path / "out.mbox"
    outbox.write_bytes(composed.stdout)
    sent = run("mailstore", "send", store, outbox)
    assert sent.returncode == 0 and b"2 queued to send" in sent.stderr
    assert b"2 already queued" in run("mailstore", "send", store, outbox).stderr  # keyed by Message-ID
    ids = [m["Message-ID"].strip("<>") for m in mailbox.mbox(outbox)]
    queued = lines(run("mailstore", "pending", store))
    assert [p["message_id"] for p in queued] == ids and {p["source"] for p in queued} == {"sendmail"}
    # stored at once, in the chat of what it answers, labelled SENT, sending
    alex = lines(run("mailstore", "search", store, "id:CAF1-alex-0001@mail.example.com", "--output", "conversations"))[0]
    newest = lines(run("mailstore", "messages", store, alex["conversation_id"], "--limit", "1"))[0]
    assert newest["id"] == ids[0] and newest["labels"] == ["SENT"]
    state = lambda: {r[0]: r[1] for r in __import__("sqlite3").connect(store).execute(
        "SELECT id, send_state FROM messages WHERE send_state IS NOT NULL")}
    assert state() == {ids[0]: "sending", ids[1]: "sending"}

    site = store.parent / "site"

    def shown():
        """What the site's pages say of the two messages' delivery."""
        r = run("chat-render", "--store", store, "--out", site)
        assert r.returncode == 0, r.stderr
        pages = "".join(p.read_text() for p in (site / "c").glob("*.html"))
        return [re.search(r'data-message-id="%s">.*?</li>' % re.escape(i), pages, re.S).group(0) for i in ids]

    assert all('class="delivery sending" role="status">Sending…<' in b for b in shown())
    r = run("mailstore", "push", store, "--sendmail", str(sendmail), env={"FAIL": "75"})
    assert r.returncode == 1 and json.loads(r.stdout)["failed"] == 2 and b"relay refused" in r.stderr
    assert state() == {ids[0]: "sending", ids[1]: "sending"}  # 75: tried again later
    r = run("mailstore", "push", store, "--sendmail", str(sendmail), env={"FAIL": "1"})
    assert state() == {ids[0]: "failed", ids[1]: "failed"}
    assert all('class="delivery failed" role="status">Not sent: ' in b and "relay refused" in b for b in shown())
    failed = lines(run("mailstore", "pending", store))
    assert [p["state"] for p in failed] == ["failed", "failed"] and "relay refused" in failed[0]["last_error"]
    assert json.loads(run("mailstore", "push", store, "--sendmail", str(sendmail)).stdout)["done"] == 0  # failed ones wait for --retry
    assert run("mailstore", "send", store, "--retry", ids[0]).returncode == 0
    assert run("mailstore", "send", store, "--retry", "no-such@x").returncode == 65
    r = run("mailstore", "push", store, "--sendmail", str(sendmail))
    assert r.returncode == 0 and json.loads(r.stdout)["done"] == 1
    assert state() == {ids[0]: "sent", ids[1]: "failed"}
    bubbles = shown()
    assert 'class="delivery' not in bubbles[0] and "Not sent" in bubbles[1]
    delivered = list(mailbox.mbox(str(sendmail) + ".out"))
    assert [m["Message-ID"].strip("<>") for m in delivered] == [ids[0]]


def test_maildir_flags_follow_marks_as_mflag_sets_them(tmp_path):
    maildir = tmp_path / "Mail"
    box = mailbox.Maildir(maildir)
    for message in mailbox.mbox(SAMPLE):
        box.add(mailbox.MaildirMessage(message))
    db = tmp_path / "mail.db"
    records = run("mime-parse", "--no-progress", maildir).stdout
    assert run("mailstore", "add", db, "--me", ME, input=records).returncode == 0
    run("mailstore", "mark", db, "--read", "--star", "id:CAF1-alex-0001@mail.example.com")
    run("mailstore", "mark", db, "--trash", "id:priya-0007@example.net")
    run("mailstore", "mark", db, "--archive", "id:daisuke-0008@example.jp")
    assert {p["source"] for p in lines(run("mailstore", "pending", db))} == {"maildir"}
    # another mail program renames a file meanwhile: it is found by its unique name
    alex = next(k for k, m in box.items() if "CAF1-alex-0001" in m["Message-ID"])
    os.rename(maildir / "new" / alex, maildir / "cur" / f"{alex}:2,R")  # replied to, in mutt
    archive = tmp_path / "Archive"
    r = run("mailstore", "push", db, "--archive-folder", archive)
    assert r.returncode == 0 and json.loads(r.stdout)["done"] == 3, r.stderr
    flags = {}
    for folder in (maildir, archive):
        for sub in ("cur", "new"):
            for name in os.listdir(folder / sub):
                message = mailbox.MaildirMessage(open(folder / sub / name, "rb"))
                flags[message["Message-ID"].strip("<>")] = (folder.name, sub, name.partition(":2,")[2])
    assert flags["CAF1-alex-0001@mail.example.com"] == ("Mail", "cur", "FRS")
    assert flags["priya-0007@example.net"] == ("Mail", "cur", "T")
    assert flags["daisuke-0008@example.jp"] == ("Archive", "cur", "")
    assert stat.S_IMODE(os.stat(archive).st_mode) & 0o077 == 0
    assert lines(run("mailstore", "pending", db)) == []
