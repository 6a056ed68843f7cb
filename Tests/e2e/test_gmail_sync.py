"""gmail-sync against a stand-in for Gmail's API on 127.0.0.1 (gmail_standin.py): a first full
sync, then a script of changes (messages added, archived, read, deleted, moved back to the
inbox) synced from the history, an expired historyId, 429 and 5xx answers, pagination, and a
message that cannot be fetched. After each script the store equals a full sync of the final
state into a new database."""
import json
import os
import sqlite3
import subprocess

import pytest

from conftest import BIN, ROOT, SAMPLE, generate_mailbox, run
from gmail_standin import GmailStandIn

SYNC = ROOT / "pipelines" / "gmail-sync"
NOW = "2026-03-09T00:00:00Z"


def message(n, subject="Hello", reply_to=None, sender="alex@example.org"):
    headers = [f"From: Alex <{sender}>", "To: me@example.com", f"Subject: {subject}",
               f"Date: Mon, 2 Mar 2026 10:{n:02d}:00 +0000", f"Message-ID: <sync-{n}@example.org>"]
    if reply_to:
        headers += [f"In-Reply-To: <{reply_to}>", f"References: <{reply_to}>"]
    return ("\r\n".join(headers) + f"\r\n\r\nMessage number {n}.\r\n").encode()


@pytest.fixture
def gmail():
    with GmailStandIn.from_mbox(SAMPLE, page_size=7) as server:
        yield server


def sync(server, tmp_path, db, *args, token="test-token", api=None, **env):
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    environment = dict(os.environ, PATH=f"{BIN}:{os.environ['PATH']}", HOME=str(home), GMAIL_API=api or server.url,
                       GMAIL_TOKEN=token, GMAIL_SYNC_BACKOFF="0.01", **env)
    return subprocess.run([str(SYNC), "--store", str(db), *map(str, args), str(tmp_path / f"{db.stem}.jsonl")],
                          capture_output=True, env=environment, timeout=300)


def synced(server, tmp_path, db, *args, **env):
    r = sync(server, tmp_path, db, *args, **env)
    assert r.returncode == 0, r.stderr.decode()
    return r


def state(db):
    """What a user sees of the store: the conversations, and each message's Gmail id and labels."""
    conversations = run("mailstore", "conversations", "--all", "--now", NOW, db)
    assert conversations.returncode == 0, conversations.stderr
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as con:
        messages = {gmail_id: sorted(json.loads(labels))
                    for gmail_id, labels in con.execute("SELECT gmail_id, labels FROM messages")}
    return conversations.stdout.decode(), messages


def history_id(db):
    return int(json.loads(run("mailstore", "config", db).stdout)["history_id"])


def assert_equals_full_sync(server, tmp_path, db):
    fresh = tmp_path / "fresh.db"
    synced(server, tmp_path, fresh)
    assert state(db) == state(fresh)
    assert set(state(db)[1]) == set(server.ids())
    for gmail_id, labels in state(db)[1].items():
        assert labels == sorted(server.labels(gmail_id)), gmail_id


def requests_to(server, path_part):
    return [r for r in server.requests if path_part in r["path"]]


def test_first_sync_lists_every_page_and_fetches_every_message(gmail, tmp_path):
    db = tmp_path / "mail.db"
    synced(gmail, tmp_path, db)
    assert set(state(db)[1]) == set(gmail.ids()) and len(gmail.ids()) == 19
    lists = requests_to(gmail, "/messages")
    assert sum(1 for r in lists if r["path"].endswith("/messages")) == 3  # 19 messages, pages of 7
    assert history_id(db) == gmail.history_id
    # the profile's address is the user's, remembered in the store
    assert json.loads(run("mailstore", "config", db).stdout)["me"] == ["me@example.com"]
    assert oct(db.stat().st_mode & 0o777) == "0o600"
    # nothing new: one history request, nothing fetched
    before = len(gmail.requests)
    synced(gmail, tmp_path, db)
    assert [r["path"].rsplit("/", 1)[1] for r in gmail.requests[before:]] == ["history"]


def test_a_script_of_changes_synced_from_the_history_equals_a_full_sync(gmail, tmp_path):
    db = tmp_path / "mail.db"
    synced(gmail, tmp_path, db)
    ids = gmail.ids()
    first = gmail.add_message(message(1, "Lunch?"))
    reply = gmail.add_message(message(2, "Re: Lunch?", reply_to="sync-1@example.org"))
    gmail.archive(ids[0])
    gmail.mark_read(ids[1])
    gmail.mark_unread(ids[2])
    gmail.delete(ids[3])
    gmail.archive(ids[4])
    gmail.move_to_inbox(ids[4])
    gmail.add_labels(first, "STARRED")
    gmail.mark_read(reply)
    gmail.delete(gmail.add_message(message(3, "gone before the sync")))
    synced(gmail, tmp_path, db)
    history = [r for r in requests_to(gmail, "/history") if r["status"] == 200]
    assert any("pageToken" in r["query"] for r in history)  # more changes than a page holds
    assert history_id(db) == gmail.history_id
    assert ids[3] not in state(db)[1]
    assert_equals_full_sync(gmail, tmp_path, db)


def test_429_and_5xx_are_retried_with_backoff(gmail, tmp_path):
    db = tmp_path / "mail.db"
    gmail.fail_next(429, count=2, path_contains="/messages", retry_after=1)
    gmail.fail_next(503, count=1, path_contains="/profile")
    synced(gmail, tmp_path, db)
    statuses = [r["status"] for r in gmail.requests]
    assert statuses.count(429) == 2 and statuses.count(503) == 1
    gmail.add_message(message(4))
    gmail.fail_next(500, count=2, path_contains="/history")
    synced(gmail, tmp_path, db)
    assert_equals_full_sync(gmail, tmp_path, db)


def test_an_expired_history_makes_a_full_sync(gmail, tmp_path):
    db = tmp_path / "mail.db"
    synced(gmail, tmp_path, db)
    ids = gmail.ids()
    gmail.delete(ids[0])
    gmail.archive(ids[1])
    gmail.mark_read(ids[2])
    gmail.remove_labels(ids[3], *gmail.labels(ids[3]))  # Gmail then sends no labelIds at all
    gmail.add_message(message(5))
    gmail.expire_history()
    r = synced(gmail, tmp_path, db)
    assert b"a full sync" in r.stderr
    assert ids[0] not in state(db)[1] and state(db)[1][ids[3]] == []
    assert_equals_full_sync(gmail, tmp_path, db)


def test_a_message_that_cannot_be_fetched_is_fetched_by_the_next_pass(gmail, tmp_path):
    db = tmp_path / "mail.db"
    synced(gmail, tmp_path, db)
    stuck = gmail.add_message(message(6, "stuck"))
    after = gmail.add_message(message(7, "fine"))
    gmail.fail_next(500, count=2, path_contains=f"/messages/{stuck}")
    r = sync(gmail, tmp_path, db, GMAIL_SYNC_TRIES="2")
    assert r.returncode == 75, r.stderr.decode()
    assert b"1 messages could not be fetched" in r.stderr
    assert after in state(db)[1] and stuck not in state(db)[1]
    assert history_id(db) == gmail.history_id  # the history went on; the message waits in the store
    gmail.archive(stuck)  # changed before it was ever fetched
    synced(gmail, tmp_path, db)
    assert stuck in state(db)[1]
    log = (tmp_path / "mail.jsonl").read_text().splitlines()
    assert sum(1 for line in log if json.loads(line).get("gmail_id") == stuck) == 1
    assert_equals_full_sync(gmail, tmp_path, db)


def test_a_refused_token_exits_77_and_a_token_command_is_asked_again(gmail, tmp_path):
    db = tmp_path / "mail.db"
    r = sync(gmail, tmp_path, db, token="wrong")
    assert r.returncode == 77 and b"gmail-sync: Gmail refused the token (401)" in r.stderr
    assert not db.exists() or not state(db)[1]
    r = sync(gmail, tmp_path, db, token="expired", GMAIL_TOKEN_COMMAND="echo test-token")
    assert r.returncode == 0, r.stderr.decode()
    assert set(state(db)[1]) == set(gmail.ids())


def test_an_unreachable_api_exits_75_and_keeps_the_store(gmail, tmp_path):
    db = tmp_path / "mail.db"
    synced(gmail, tmp_path, db)
    before = state(db)
    url = gmail.url
    gmail.stop()
    r = sync(gmail, tmp_path, db, api=url, GMAIL_SYNC_TRIES="2")
    assert r.returncode == 75, r.stderr.decode()
    assert state(db) == before


def test_the_pages_are_rendered_again_where_they_changed(gmail, tmp_path):
    db, site = tmp_path / "mail.db", tmp_path / "site"
    synced(gmail, tmp_path, db, "--site", site, "--zone", "UTC")
    assert (site / "index.html").exists()
    gmail.add_message(message(8, "A new chat from Robin", sender="robin@example.org"))
    synced(gmail, tmp_path, db, "--site", site, "--zone", "UTC")
    assert "Message number 8." in (site / "index.html").read_text()


def test_usage_and_a_missing_token(tmp_path):
    env = dict(os.environ, PATH=f"{BIN}:{os.environ['PATH']}", HOME=str(tmp_path))
    env.pop("GMAIL_TOKEN", None)
    env.pop("GMAIL_TOKEN_COMMAND", None)
    r = subprocess.run([str(SYNC), "--bogus"], capture_output=True, env=env)
    assert r.returncode == 64 and b"usage: gmail-sync" in r.stderr
    r = subprocess.run([str(SYNC)], capture_output=True, env=env)
    assert r.returncode == 64 and b"no token" in r.stderr


@pytest.mark.shared("gen/gen_mbox.py")
def test_a_generated_mailbox_synced_through_a_script_equals_a_full_sync(tmp_path):
    mbox, _ = generate_mailbox(tmp_path, 300, 11)
    with GmailStandIn.from_mbox(mbox, page_size=50) as gmail:
        db = tmp_path / "mail.db"
        synced(gmail, tmp_path, db)
        ids = gmail.ids()
        for k, gmail_id in enumerate(ids[:120]):
            [gmail.archive, gmail.mark_read, gmail.mark_unread, gmail.delete, gmail.move_to_inbox][k % 5](gmail_id)
        for n in range(20):
            gmail.add_message(message(10 + n, f"New {n}", reply_to="sync-10@example.org" if n else None))
        gmail.fail_next(429, count=1, path_contains="/history")
        synced(gmail, tmp_path, db)
        assert_equals_full_sync(gmail, tmp_path, db)
