"""What the user does in the store reaches Gmail exactly once (issue 44): marks pushed with
batchModify through an outage and a kill -9 part-way through a batch; sends with
users.messages.send, none twice when the connection drops after Gmail took one; Gmail's own later
changes win, and a message trashed there drops what waits for it."""
import email
import email.policy
import json
import os
import random
import signal
import sqlite3

from conftest import SAMPLE, run
from gmail_standin import GmailStandIn
from test_gmail_sync import finish, start_sync, sync, synced

ME = "mei@example.tw"


def friend_message(n):
    headers = [f"From: Friend {n} <friend{n}@example.org>", f"To: {ME}", f"Subject: News {n}",
               f"Date: Mon, 2 Mar 2026 {n // 60:02d}:{n % 60:02d}:00 +0000", f"Message-ID: <friend-{n}@example.org>"]
    return ("\r\n".join(headers) + f"\r\n\r\nHello from friend {n}.\r\n").encode()


def store_labels(db):
    connection = sqlite3.connect(db)
    try:
        return {gmail_id: sorted(json.loads(labels)) for gmail_id, labels in
                connection.execute("SELECT gmail_id, labels FROM messages WHERE gmail_id IS NOT NULL")}
    finally:
        connection.close()


def gmail_labels(gmail):
    return {id: sorted(gmail.labels(id)) for id in gmail.ids()}


def pending(db):
    return [json.loads(l) for l in run("mailstore", "pending", db).stdout.splitlines()]


def changes(gmail, kind):
    """How many times Gmail changed each label of each message: (message, label) -> count."""
    counted = {}
    for record in gmail._history:
        if record.kind == kind:
            for label in record.labels:
                counted[(record.message_id, label)] = counted.get((record.message_id, label), 0) + 1
    return counted


def test_marks_reach_gmail_once_through_an_outage_and_a_kill(tmp_path):
    with GmailStandIn([(friend_message(n), ["INBOX", "UNREAD"]) for n in range(130)], email=ME, page_size=100) as gmail:
        db = tmp_path / "mail.db"
        synced(gmail, tmp_path, db)
        chats = [json.loads(l)["conversation_id"] for l in run("mailstore", "conversations", db).stdout.splitlines()]
        assert len(chats) == 130
        # 100 chats read and 30 of them archived, while Gmail cannot be reached
        for c in chats[:100]:
            assert run("mailstore", "mark", db, "--read", f"conversation:{c}").returncode == 0
        for c in chats[70:100]:
            assert run("mailstore", "mark", db, "--archive", f"conversation:{c}").returncode == 0
        assert len(pending(db)) == 100
        gmail.fail_next(503, count=10_000)
        assert sync(gmail, tmp_path, db).returncode == 75
        gmail._faults.clear()
        assert all(p["state"] == "queued" for p in pending(db)) and len(pending(db)) == 100
        # a pass killed as Gmail carries out its first batch: Gmail has it, the store does not know
        process = start_sync(gmail, tmp_path, db)
        gmail.after("/messages/batchModify", lambda: os.killpg(process.pid, signal.SIGKILL))
        assert finish(process).returncode == -signal.SIGKILL
        batches = [r for r in gmail.requests if r["path"].endswith("/batchModify")]
        assert len(batches) == 1
        # the next pass does the rest
        synced(gmail, tmp_path, db)
        assert pending(db) == []
        assert gmail_labels(gmail) == store_labels(db)
        read = [id for id, labels in gmail_labels(gmail).items() if "UNREAD" not in labels]
        assert len(read) == 100 and sum("INBOX" not in labels for labels in gmail_labels(gmail).values()) == 30
        # each change made once on Gmail, though a batch was sent again after the kill
        assert all(n == 1 for n in changes(gmail, "labelsRemoved").values())
        # grouped by change, at most 1,000 ids a call: read (70), read and archived (30)
        assert len([r for r in gmail.requests if r["path"].endswith("/batchModify")]) <= 1 + 2
        # the history that echoes them back changes nothing
        before = store_labels(db)
        synced(gmail, tmp_path, db)
        assert store_labels(db) == before


def test_sends_reach_gmail_once_when_the_connection_drops(tmp_path):
    with GmailStandIn.from_mbox(SAMPLE, email=ME, page_size=50) as gmail:
        db = tmp_path / "mail.db"
        synced(gmail, tmp_path, db)
        originals = [json.loads(l) for l in run("mailstore", "search", db, "from:alex OR from:jordan OR from:hana OR from:layla OR from:priya",
                                                 "--output", "messages").stdout.splitlines()]
        requests = [{"reply": originals[i % len(originals)]["id"], "all": True, "text": f"Answer {i}"} for i in range(20)]
        composed = run("mail-compose", "--store", db, "--mbox", input="".join(json.dumps(r) + "\n" for r in requests))
        assert composed.returncode == 0, composed.stderr
        outbox = tmp_path / "out.mbox"
        outbox.write_bytes(composed.stdout)
        assert run("mailstore", "send", db, outbox).returncode == 0
        queued = pending(db)
        assert len(queued) == 20 and {p["source"] for p in queued} == {"gmail"}
        # Gmail takes the 7th, and the connection drops before the answer
        gmail.drop_after_applying("/messages/send", skip=6)
        assert sync(gmail, tmp_path, db).returncode == 75
        assert len(gmail.sent) == 7
        synced(gmail, tmp_path, db)
        assert pending(db) == []
        sent_ids = [email.message_from_bytes(raw, policy=email.policy.default)["Message-ID"].strip("<>") for raw in gmail.sent]
        assert len(sent_ids) == 20 and len(set(sent_ids)) == 20  # none twice
        assert sorted(sent_ids) == sorted(p["message_id"] for p in queued)
        lookups = [r for r in gmail.requests if "rfc822msgid:" in str(r["query"].get("q"))]
        assert len(lookups) == 1  # only the send whose outcome was unknown was looked for
        connection = sqlite3.connect(db)
        rows = {id: (state, gmail_id, thread) for id, state, gmail_id, thread in
                connection.execute("SELECT id, send_state, gmail_id, thread_id FROM messages WHERE send_state IS NOT NULL")}
        assert {s for s, _, _ in rows.values()} == {"sent"} and len(rows) == 20
        # each in the conversation of what it answers, on both sides
        for request, sent in zip(requests, queued):
            original = request["reply"]
            _, gmail_id, thread = rows[sent["message_id"]]
            original_thread = connection.execute("SELECT thread_id, conversation_id FROM messages WHERE id = ?", (original,)).fetchone()
            mine = connection.execute("SELECT conversation_id FROM messages WHERE id = ?", (sent["message_id"],)).fetchone()
            assert thread == original_thread[0] and gmail._messages[gmail_id].thread_id == original_thread[0]
            assert mine[0] == original_thread[1]
        connection.close()


def test_gmails_later_changes_win(tmp_path):
    with GmailStandIn.from_mbox(SAMPLE, email=ME, page_size=50) as gmail:
        db = tmp_path / "mail.db"
        synced(gmail, tmp_path, db)
        ids = {json.loads(l)["id"]: json.loads(l)["gmail_id"] for l in run("mailstore", "search", db, "*", "--output", "messages").stdout.splitlines()}
        alex, priya = ids["CAF1-alex-0001@mail.example.com"], ids["priya-0007@example.net"]
        run("mailstore", "mark", db, "--read", "id:CAF1-alex-0001@mail.example.com")
        gmail.archive(alex)  # meanwhile, on Gmail
        run("mailstore", "mark", db, "--star", "id:priya-0007@example.net")
        gmail.trash(priya)
        r = synced(gmail, tmp_path, db)
        assert b"1 change waiting for Gmail dropped: the message was trashed or deleted there" in r.stderr
        # both the read mark and the archive take effect
        assert "UNREAD" not in gmail.labels(alex) and "INBOX" not in gmail.labels(alex)
        assert store_labels(db)[alex] == sorted(gmail.labels(alex))
        # the star waits no more: dropped, and said
        assert "STARRED" not in gmail.labels(priya) and "TRASH" in gmail.labels(priya)
        dropped = pending(db)
        assert [(p["message_id"], p["state"], p["last_error"]) for p in dropped] == [("priya-0007@example.net", "dropped", "trashed on Gmail")]
        assert store_labels(db)[priya] == sorted(gmail.labels(priya))


def test_a_pass_killed_at_any_moment_loses_no_action_and_sends_nothing_twice(tmp_path):
    """Marks, trash and sends queued, then passes killed with -9 at random moments (a request
    carried out by Gmail, before its answer), until nothing waits: Gmail equals the store, every
    change was made once, and every message was sent once."""
    with GmailStandIn([(friend_message(n), ["INBOX", "UNREAD"]) for n in range(40)], email=ME, page_size=500) as gmail:
        db = tmp_path / "mail.db"
        synced(gmail, tmp_path, db)
        chats = [json.loads(l)["conversation_id"] for l in run("mailstore", "conversations", db).stdout.splitlines()]
        for n, c in enumerate(chats):
            verbs = [["--read"], ["--read", "--archive"], ["--star"], ["--trash"]][n % 4]
            assert run("mailstore", "mark", db, *verbs, f"conversation:{c}").returncode == 0
        requests = [{"reply": f"friend-{n}@example.org", "text": f"Thanks, {n}"} for n in range(0, 40, 5)]
        composed = run("mail-compose", "--store", db, "--mbox", input="".join(json.dumps(r) + "\n" for r in requests))
        assert composed.returncode == 0, composed.stderr
        (tmp_path / "out.mbox").write_bytes(composed.stdout)
        assert run("mailstore", "send", db, tmp_path / "out.mbox").returncode == 0
        queued_sends = {p["message_id"] for p in pending(db) if p["action"] == "send"}
        assert len(queued_sends) == 8
        # passes killed at random moments (seeded), until what waits is done
        moments = random.Random(44)
        killed_at = []
        for _ in range(50):
            if not pending(db):
                break
            process = start_sync(gmail, tmp_path, db)
            gmail.after("/users/me/", lambda p=process: os.killpg(p.pid, signal.SIGKILL), requests=moments.randint(1, 4))
            r = finish(process)
            gmail._after.clear()
            if r.returncode == -signal.SIGKILL:
                killed_at.append(gmail.requests[-1]["path"].rsplit("/", 1)[-1])
            else:
                assert r.returncode in (0, 75), r.stderr.decode()
        assert pending(db) == [] and len(killed_at) >= 10
        # among the moments: a batch carried out, a trash, a send (each done on Gmail, not known here)
        assert {"batchModify", "trash", "send"} <= set(killed_at), killed_at
        synced(gmail, tmp_path, db)
        assert pending(db) == []
        assert gmail_labels(gmail) == store_labels(db)
        sent = [email.message_from_bytes(raw, policy=email.policy.default)["Message-ID"].strip("<>") for raw in gmail.sent]
        assert sorted(sent) == sorted(queued_sends)  # each once
        assert all(n == 1 for n in changes(gmail, "labelsAdded").values())
        assert all(n == 1 for n in changes(gmail, "labelsRemoved").values())
