"""A message's labels in the store: kept in one place (messages.labels; message_labels is its
index; the stored record's own labels member null), so that what search's
label: and is: find and what reading a message writes are its labels as they are now, however
they changed; and a store of schema 4 or 5, whose records kept the labels they were added with,
comes forward to what a new store holds after the same changes."""
import json
import sqlite3

import pytest

from conftest import as_schema_5, records, run
from test_mailstore import NOW, add, pipeline_records, sample  # noqa: F401 (a fixture)

ME = "mei@example.tw"


def labels_read(db):
    """Each message's labels as reading writes them, in their order."""
    out = run("mailstore", "search", "--output", "messages", db, "*")
    assert out.returncode == 0, out.stderr
    return {m["id"]: m["labels"] for m in records(out.stdout)}


def found(db, query):
    out = run("mailstore", "search", "--output", "ids", db, query)
    assert out.returncode == 0, out.stderr
    return set(records(out.stdout))


def assert_seen_as_they_are(db, expected):
    """Reading writes `expected` (id to labels, in order); label: and is: find exactly the
    messages that have each label, whatever its case; and the labels are held once."""
    assert labels_read(db) == expected
    for label in {l for ls in expected.values() for l in ls} | {"UNREAD", "STARRED", "Work"}:
        has = {i for i, ls in expected.items() if label.lower() in (l.lower() for l in ls)}
        assert found(db, f"label:{label}") == has, label
        assert found(db, f"label:{label.swapcase()}") == has, label
    assert found(db, "is:unread") == {i for i, ls in expected.items() if "UNREAD" in ls}
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as c:
        assert c.execute("SELECT count(*) FROM messages WHERE json_type(record, '$.labels') IS NOT 'null'").fetchone()[0] == 0
        column = set(c.execute("SELECT l.value, m.rowid FROM messages m, json_each(m.labels) l").fetchall())
        index = set(c.execute("SELECT label, message FROM message_labels").fetchall())
        assert {(l.lower(), r) for l, r in column} == {(l.lower(), r) for l, r in index}


def changes(db, mail):
    """Labels changed every way the store knows, on `db` holding the sample: the label command, Gmail's
    history (labelsAdded, labelsRemoved) and a message resource (its labels as they are now), and a
    Takeout copy of a message with another label. Returns each message's labels expected after."""
    expected = {m["id"]: list(m["labels"]) for m in mail}
    unread = [m for m in mail if "UNREAD" in m["labels"]]
    inbox = [m for m in mail if m["labels"] == ["INBOX"]]
    label = run("mailstore", "label", db, "+Work", "+WORK", "-UNREAD", "--", f"id:{unread[0]['id']}")
    assert label.returncode == 0 and label.stdout == b"1\n", label.stderr
    expected[unread[0]["id"]] = ["INBOX", "Work", "WORK"]
    # one of two labels the same but for case taken off: the other is still found
    assert run("mailstore", "label", db, "-Work", "--", f"id:{unread[0]['id']}").returncode == 0
    expected[unread[0]["id"]] = ["INBOX", "WORK"]
    history = {"history": [
        {"id": "2001", "labelsAdded": [{"message": {"id": inbox[0]["gmail_id"]}, "labelIds": ["STARRED", "UNREAD"]}]},
        {"id": "2002", "labelsRemoved": [{"message": {"id": inbox[1]["gmail_id"]}, "labelIds": ["INBOX"]}]},
    ], "historyId": "2002"}
    assert run("mailstore", "history", db, input=json.dumps(history)).returncode == 0
    expected[inbox[0]["id"]] = ["INBOX", "STARRED", "UNREAD"]
    expected[inbox[1]["id"]] = []
    resource = {"id": inbox[2]["gmail_id"], "threadId": "t", "labelIds": ["IMPORTANT", "INBOX"]}
    assert run("mailstore", "history", db, input=json.dumps(resource)).returncode == 0
    expected[inbox[2]["id"]] = ["INBOX", "IMPORTANT"]  # the stored order kept for those that stay
    copy = dict(inbox[3], labels=["Travel"])
    assert run("mailstore", "add", "-q", db, input=json.dumps(copy).encode() + b"\n").returncode == 0
    expected[inbox[3]["id"]] = ["INBOX", "Travel"]
    return expected


def outputs(db):
    """What the store answers, from the messages to the calendar."""
    out = [run("mailstore", "search", "--output", "messages", db, "*"),
           run("mailstore", "search", "--output", "conversations", db, "label:work OR is:starred OR -label:inbox"),
           run("mailstore", "conversations", "--all", "--now", NOW, db),
           run("mailstore", "events", db),
           run("mailstore", "parcels", db),
           run("mailstore", "count", db, "is:unread")]
    assert all(r.returncode == 0 for r in out), [r.stderr for r in out]
    return [r.stdout for r in out]


def test_labels_as_they_are_now_are_what_search_and_reading_see(sample, tmp_path):
    lines, _ = sample
    mail = [json.loads(line) for line in lines.splitlines()]
    db = tmp_path / "mail.db"
    add(db, "--me", ME, input=lines)
    assert_seen_as_they_are(db, {m["id"]: m["labels"] for m in mail})
    assert_seen_as_they_are(db, changes(db, mail))


@pytest.mark.parametrize("version", [4, 5])
def test_a_store_of_schema_4_or_5_comes_forward_as_a_new_store(sample, tmp_path, version):
    """The same records and label changes in a new store and in one of schema 4 or 5 (each record
    with the labels it was added with, message_labels written by the program): once opened, the
    old one answers as the new one, holds the same rows, and keeps its labels once from then on."""
    lines, _ = sample
    mail = [json.loads(line) for line in lines.splitlines()]
    new, old = tmp_path / "new.db", tmp_path / "old.db"
    for db in (new, old):
        add(db, "--me", ME, input=lines)
        expected = changes(db, mail)
    with as_schema_5(old, {m["id"]: m["labels"] for m in mail}) as c:
        c.execute(f"PRAGMA user_version = {version}")
        stale = c.execute("SELECT count(*) FROM messages WHERE json_extract(record, '$.labels') IS NOT labels").fetchone()[0]
    assert stale == 5, "the old store's records have the labels they were added with"
    assert outputs(old) == outputs(new)
    assert json.loads(run("mailstore", "config", old).stdout)["schema_version"] == 10
    rows = "SELECT id, record, labels, conversation_id, summary FROM messages ORDER BY rowid"
    with sqlite3.connect(f"file:{old}?mode=ro", uri=True) as o, sqlite3.connect(f"file:{new}?mode=ro", uri=True) as n:
        assert o.execute(rows).fetchall() == n.execute(rows).fetchall()
    assert_seen_as_they_are(old, expected)
    # from now on too
    assert run("mailstore", "label", old, "+Later", "-INBOX", "--", "*").returncode == 0
    assert_seen_as_they_are(old, {i: [l for l in ls if l != "INBOX"] + ["Later"] for i, ls in expected.items()})
