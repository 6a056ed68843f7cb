"""The defects found by attacking the live path (issue 41): hostile mail, hostile neighbours,
failing disks. Each test fails on the code before its fix. gmail-sync's own (the token on a
command line, Retry-After, a server's escapes, ids in URLs, a malformed profile) are in
test_gmail_sync.py."""
import json

import pytest

from conftest import SAMPLE, run


def gmail_store(tmp_path):
    """A store of the sample mailbox (Takeout's From_ lines give every message a gmail_id), with
    a historyId remembered; its state, to compare with after a refused input."""
    db = tmp_path / "mail.db"
    data = run("mime-parse", "--no-progress", SAMPLE).stdout
    r = run("mailstore", "add", "-q", "--me", "mei@example.tw", db, input=data)
    assert r.returncode == 0, r.stderr
    r = run("mailstore", "history", db, input=json.dumps({"history": [], "historyId": "5000"}))
    assert r.returncode == 0, r.stderr
    return db


def state(db):
    config = json.loads(run("mailstore", "config", db).stdout)
    conversations = run("mailstore", "conversations", "--all", "--now", "2026-03-09T00:00:00Z", db).stdout
    pending = run("mailstore", "history", db, input=b"").stdout
    return config["messages"], config["history_id"], conversations, pending


PROFILE = {"emailAddress": "mei@example.tw", "messagesTotal": 3, "threadsTotal": 3, "historyId": "6000"}


@pytest.mark.parametrize("page", [
    b"{}\n",
    b'{"messages": "zzz"}\n',
    b"[1, 2, 3]\n",
    b'{"messages": [{"id": 7, "threadId": "t"}], "resultSizeEstimate": 1}\n',
    b'{"messages": [{"id": "a1", "threadId": "t"}], "resultSizeEstimate": 1}\n{"messages": [{"id": "a2"\n',
    b'{"resultSizeEstimate": "many"}\n',
], ids=["empty-object", "messages-not-a-list", "array", "id-not-a-string", "second-page-cut", "estimate-not-a-count"])
def test_a_malformed_list_page_of_a_full_sync_changes_nothing_and_exits_75(tmp_path, page):
    db = gmail_store(tmp_path)
    before = state(db)
    assert before[0] > 0 and before[1] == "5000"
    profile, pages = tmp_path / "profile.json", tmp_path / "list.jsonl"
    profile.write_text(json.dumps(PROFILE))
    pages.write_bytes(page)
    r = run("mailstore", "history", "--full", db, profile, pages)
    assert r.returncode == 75, r.stderr
    assert "nothing was changed" in r.stderr.decode()
    assert f"{pages}:" in r.stderr.decode()
    assert state(db) == before


@pytest.mark.parametrize("response", [
    {"history": [{"id": "5001", "messagesDeleted": [{"message": "x"}]}], "historyId": "5001"},
    {"history": [{"id": "5001", "labelsAdded": [{"message": {"id": "x"}, "labelIds": "INBOX"}]}], "historyId": "5001"},
    {"history": {"id": "5001"}, "historyId": "5001"},
    {"history": [], "historyId": "not a number"},
    {"history": [{"messagesDeleted": []}], "historyId": "5001"},
], ids=["message-not-an-object", "labels-not-a-list", "history-not-a-list", "history-id-not-a-number", "record-without-id"])
def test_a_malformed_history_page_changes_nothing_and_exits_75(tmp_path, response):
    db = gmail_store(tmp_path)
    before = state(db)
    good = {"history": [{"id": "5001", "messagesDeleted": [{"message": {"id": "whatever"}}]}], "historyId": "5001"}
    r = run("mailstore", "history", db, input=(json.dumps(good) + "\n" + json.dumps(response) + "\n").encode())
    assert r.returncode == 75, r.stderr
    assert "-:2:" in r.stderr.decode()
    assert state(db) == before


def test_a_full_sync_needs_its_profile_and_a_list_page(tmp_path):
    db = gmail_store(tmp_path)
    before = state(db)
    profile, pages = tmp_path / "profile.json", tmp_path / "list.jsonl"
    profile.write_text(json.dumps(PROFILE))
    pages.write_text(json.dumps({"resultSizeEstimate": 0}) + "\n")
    assert run("mailstore", "history", "--full", db, pages).returncode == 75
    assert run("mailstore", "history", "--full", db, profile).returncode == 75
    assert state(db) == before


def test_a_full_sync_remembers_the_profiles_history_id_even_when_lower(tmp_path):
    db = gmail_store(tmp_path)
    profile, pages = tmp_path / "profile.json", tmp_path / "list.jsonl"
    profile.write_text(json.dumps(dict(PROFILE, historyId="17")))
    pages.write_text(json.dumps({"resultSizeEstimate": 0}) + "\n")
    r = run("mailstore", "history", "--full", db, profile, pages)
    assert r.returncode == 0, r.stderr
    messages, history_id, _, _ = state(db)
    assert history_id == "17"
    assert messages == 0, "an empty mailbox listed whole: every stored Gmail message is gone"
