"""mailstore: the pipeline's records in SQLite, derived one message at a time, asked in JSON Lines.

The store derives conversations and the calendar with conversation-group's and event-group's own
code; these tests hold it to their output on the same records, whatever the order and batches."""
import calendar
import json
import shutil
import os
import random
import re
import signal
import sqlite3
import stat
import subprocess
import time

import pytest

from conftest import BIN, ENV, SAMPLE, as_schema_5, parcel_stories, records, run

NOW = "2026-03-09T00:00:00Z"
STAGES = run("mailstore", "stages").stdout.decode().split()  # the order the pipeline declares


def pipeline_records(mbox, me=None):
    """The records of `make pipeline`'s stages, keyed by participant-hash (--me, else --me-auto):
    (lines as bytes, the addresses participant-hash used)."""
    data = run("mime-parse", "--no-progress", mbox).stdout
    for stage in STAGES:
        r = run(stage, "--no-progress", input=data)
        assert r.returncode == 0, r.stderr
        data = r.stdout
    args = ["--me", me] if me else ["--me-auto"]
    keyed = run("participant-hash", "--no-progress", *args, input=data)
    assert keyed.returncode == 0, keyed.stderr
    if me:
        return keyed.stdout, [me]
    found = re.search(r"--me-auto: you are (.*)", keyed.stderr.decode())
    return keyed.stdout, re.findall(r"(\S+@\S+) \(", found.group(1))


def tools_output(lines):
    conversations = run("conversation-group", "--now", NOW, input=lines)
    events = run("event-group", input=lines)
    assert conversations.returncode == 0 and events.returncode == 0
    return conversations.stdout, events.stdout


def store_output(db):
    conversations = run("mailstore", "conversations", "--all", "--now", NOW, db)
    events = run("mailstore", "events", db)
    assert conversations.returncode == 0, conversations.stderr
    assert events.returncode == 0, events.stderr
    return conversations.stdout, events.stdout


def add(db, *args, input=None):
    r = run("mailstore", "add", "-q", db, *args, input=input)
    assert r.returncode == 0, r.stderr
    return r


def batches(lines, count, seed):
    shuffled = lines.splitlines(keepends=True)
    random.Random(seed).shuffle(shuffled)
    size = -(-len(shuffled) // count)
    return [b"".join(shuffled[k:k + size]) for k in range(0, len(shuffled), size)]


@pytest.fixture(scope="module")
def sample():
    return pipeline_records(SAMPLE, me="mei@example.tw")


def test_the_sample_in_one_load_equals_conversation_group_and_event_group(sample, tmp_path):
    lines, me = sample
    db = tmp_path / "mail.db"
    add(db, "--me", me[0], input=lines)
    conversations, events = store_output(db)
    expected_conversations, expected_events = tools_output(lines)
    assert len(records(conversations)) == 12 and len(records(events)) == 5
    assert conversations == expected_conversations
    assert events == expected_events


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_the_sample_in_shuffled_batches_equals_one_load(sample, tmp_path, seed):
    lines, me = sample
    db = tmp_path / "mail.db"
    for k, batch in enumerate(batches(lines, 5, seed)):
        (tmp_path / f"{k}.jsonl").write_bytes(batch)
    add(db, "--me", me[0], *sorted(tmp_path.glob("*.jsonl")))
    assert store_output(db) == tools_output(lines)


def test_the_generated_mailbox_in_shuffled_batches_equals_the_tools(generated_mbox, tmp_path):
    mbox, _ = generated_mbox
    lines, me = pipeline_records(mbox)
    expected = tools_output(lines)
    assert len(records(expected[0])) > 500
    one = tmp_path / "one.db"
    add(one, *[a for m in me for a in ("--me", m)], input=lines)
    assert store_output(one) == expected
    shuffled = tmp_path / "shuffled.db"
    for k, batch in enumerate(batches(lines, 7, 11)):
        add(shuffled, *[a for m in me for a in ("--me", m)], input=batch)
    assert store_output(shuffled) == expected


def test_adding_the_same_records_again_changes_nothing(sample, tmp_path):
    lines, me = sample
    db = tmp_path / "mail.db"
    add(db, "--me", me[0], input=lines)
    before = store_output(db)
    config = json.loads(run("mailstore", "config", db).stdout)
    again = run("mailstore", "add", db, input=lines)
    assert again.returncode == 0
    assert again.stderr.decode().strip().endswith("0 added, 0 updated, 19 unchanged")
    assert store_output(db) == before
    assert json.loads(run("mailstore", "config", db).stdout)["change"] == config["change"]


def test_records_of_an_earlier_stage_are_replaced_by_a_later_ones(tmp_path):
    parsed = run("mime-parse", "--no-progress", SAMPLE).stdout
    keyed = run("participant-hash", "--me", "mei@example.tw", input=parsed).stdout
    db = tmp_path / "mail.db"
    add(db, "--me", "mei@example.tw", input=parsed)
    extracted = run("text-extract", input=keyed).stdout
    r = run("mailstore", "add", db, input=extracted)
    assert r.stderr.decode().strip().endswith("0 added, 19 updated, 0 unchanged")
    chats = records(run("mailstore", "conversations", "--all", "--now", NOW, db).stdout)
    assert chats == records(run("conversation-group", "--now", NOW, input=extracted).stdout)


def test_a_line_that_is_not_a_record_is_counted_and_the_rest_stored(sample, tmp_path):
    lines, me = sample
    good = lines.splitlines()
    stream = b"\n".join([good[0], b"{broken", b'{"subject": "no id"}', good[1]]) + b"\n"
    db = tmp_path / "mail.db"
    r = run("mailstore", "add", "--me", me[0], db, input=stream)
    assert r.returncode == 1
    err = r.stderr.decode().splitlines()
    assert err[0].startswith("mailstore: -:2: invalid JSON")
    assert err[1] == "mailstore: -:3: the record has no id (is it a mime-parse record?)"
    assert "mailstore: 2 records skipped" in err
    assert json.loads(run("mailstore", "config", db).stdout)["messages"] == 2
    strict = run("mailstore", "add", "--strict", tmp_path / "strict.db", "--me", me[0], input=stream)
    assert strict.returncode == 65
    assert json.loads(run("mailstore", "config", tmp_path / "strict.db").stdout)["messages"] == 0, "the input's transaction is undone"


def test_a_file_that_is_not_a_store_is_left_untouched(tmp_path):
    letter = tmp_path / "letter.txt"
    letter.write_bytes(b"Dear Mei,\nthis is not a database.\n" * 200)
    before = letter.read_bytes()
    for args in (["add", letter], ["conversations", letter], ["config", letter]):
        r = run("mailstore", *args, input=b"")
        assert r.returncode == 65, (args, r.stderr)
        assert r.stderr.decode() == f"mailstore: {letter}: not a mailstore database (left as it is)\n"
    assert letter.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["letter.txt"]
    other = tmp_path / "other.db"
    sqlite3.connect(other).execute("CREATE TABLE notes(text)").connection.commit()
    assert run("mailstore", "add", other, input=b"").returncode == 65


def test_a_newer_schema_is_refused(sample, tmp_path):
    db = tmp_path / "mail.db"
    add(db, "--me", "mei@example.tw", input=sample[0])
    connection = sqlite3.connect(db)
    version = connection.execute("PRAGMA user_version").fetchone()[0]
    connection.execute(f"PRAGMA user_version = {version + 1}")
    connection.commit()
    connection.close()
    r = run("mailstore", "conversations", db)
    assert r.returncode == 65
    assert "made by a newer mailstore" in r.stderr.decode()


def test_asking_a_database_that_is_not_there(tmp_path):
    r = run("mailstore", "conversations", tmp_path / "none.db")
    assert r.returncode == 66
    assert "no such database" in r.stderr.decode()
    assert not (tmp_path / "none.db").exists()


def test_the_database_is_readable_by_the_user_alone(sample, tmp_path):
    db = tmp_path / "mail.db"
    subprocess.run(["sh", "-c", f'umask 022 && exec "$0" add -q --me mei@example.tw "$1"', BIN / "mailstore", db],
                   input=sample[0], check=True, env=ENV)
    assert stat.S_IMODE(db.stat().st_mode) == 0o600


def test_the_chat_list_and_its_paging(sample, tmp_path):
    db = tmp_path / "mail.db"
    add(db, "--me", "mei@example.tw", input=sample[0])
    chats = records(run("mailstore", "conversations", db).stdout)
    dates = [c["last_date"] for c in chats]
    assert dates == sorted(dates, reverse=True) and all(not c["archived"] for c in chats)
    assert len(records(run("mailstore", "conversations", "--limit", "3", db).stdout)) == 3
    newsletters = records(run("mailstore", "conversations", "--kind", "newsletter", db).stdout)
    assert newsletters and all(c["is_newsletter"] for c in newsletters)
    group = next(c for c in chats if c["is_group"])
    messages = records(run("mailstore", "messages", db, group["conversation_id"]).stdout)
    assert [m["id"] for m in messages][::-1] == group["message_ids"]
    assert all(m["participant_hash"] == group["conversation_id"] for m in messages)
    older = records(run("mailstore", "messages", "--before", messages[0]["date"], "--limit", "1", db, group["conversation_id"]).stdout)
    assert [m["id"] for m in older] == [messages[1]["id"]]


def test_search_in_the_query_language(sample, tmp_path):
    db = tmp_path / "mail.db"
    add(db, "--me", "mei@example.tw", input=sample[0])

    def ids(*query):
        r = run("mailstore", "search", "--output", "ids", db, *query)
        assert r.returncode == 0, r.stderr
        return set(records(r.stdout))

    everything = [json.loads(line) for line in sample[0].splitlines()]

    def where(predicate):
        return {r["id"] for r in everything if predicate(r)}

    assert ids("黑貓") == where(lambda r: "黑貓" in (r["subject"] or "") + (r.get("body_text") or r["text"] or "") + json.dumps(r["from"], ensure_ascii=False))
    assert ids("黑貓")
    assert ids("from:alex.rivera@example.com") == where(lambda r: r["from"]["address"] == "alex.rivera@example.com")
    assert ids("is:unread") == where(lambda r: "UNREAD" in r["labels"])
    assert ids("NOT", "is:unread") == where(lambda r: "UNREAD" not in r["labels"])
    assert ids("date:2026-03-05") == where(lambda r: (r["date"] or "").startswith("2026-03-05"))
    assert ids("has:attachment") == where(lambda r: r["attachments"])
    assert ids("kind:newsletter") == where(lambda r: r.get("mail_kind") == "newsletter")
    assert ids("from:alex", "OR", "from:jordan") == ids("from:alex") | ids("from:jordan")
    # English endings are stemmed, as notmuch stems them: one form finds the others
    dinner = where(lambda r: "dinner" in ((r["subject"] or "") + (r.get("body_text") or r["text"] or "")).lower())
    assert dinner and ids("dinners") == ids("dinner") == ids("dinnering") >= dinner
    assert ids("(from:alex OR from:jordan) -subject:dinner") == (ids("from:alex") | ids("from:jordan")) - ids("subject:dinner")
    for bad in ["(from:alex", "date:2026-02-30..2025", "is:happy", '"open phrase']:
        r = run("mailstore", "search", db, bad)
        assert r.returncode == 64, bad
        assert r.stderr.decode().startswith("mailstore: search: "), r.stderr


def test_gmail_history_changes_labels_and_deletes(tmp_path):
    mbox = tmp_path / "g.mbox"
    mbox.write_bytes(SAMPLE.read_bytes())
    lines, _ = pipeline_records(mbox, me="mei@example.tw")
    mail = [json.loads(line) for line in lines.splitlines()]
    assert all(m["gmail_id"] for m in mail), "Takeout's From_ lines name every message"
    db = tmp_path / "mail.db"
    add(db, "--me", "mei@example.tw", input=lines)

    def chat(message_id):
        return next(c for c in records(run("mailstore", "conversations", "--all", "--now", NOW, db).stdout)
                    if message_id in c["message_ids"])

    inbox = next(m for m in mail if m["labels"] == ["INBOX", "IMPORTANT", "Opened"])
    assert not chat(inbox["id"])["archived"]
    conversation = chat(inbox["id"])
    others = [m for m in mail if m["id"] in conversation["message_ids"] and m["id"] != inbox["id"]]
    unread = next(m for m in mail if "UNREAD" in m["labels"])
    response = {"history": [
        {"id": "1001", "labelsRemoved": [{"message": {"id": m["gmail_id"], "threadId": "t"}, "labelIds": ["INBOX"]}
                                         for m in [inbox] + others]},
        {"id": "1002", "labelsRemoved": [{"message": {"id": unread["gmail_id"]}, "labelIds": ["UNREAD"]}]},
        {"id": "1003", "messagesAdded": [{"message": {"id": "ffff01", "threadId": "ffff01", "labelIds": ["INBOX", "UNREAD"]}}]},
    ], "historyId": "1004"}
    before = {c["conversation_id"]: c for c in records(run("mailstore", "conversations", "--all", "--now", NOW, db).stdout)}
    change = json.loads(run("mailstore", "config", db).stdout)["change"]
    r = run("mailstore", "history", db, input=json.dumps(response, indent=2))
    assert r.returncode == 0, r.stderr
    assert records(r.stdout) == [{"gmail_id": "ffff01", "thread_id": "ffff01", "label_ids": ["INBOX", "UNREAD"], "format": "raw"}]
    assert chat(inbox["id"])["archived"]
    assert chat(unread["id"])["unread_count"] == before[chat(unread["id"])["conversation_id"]]["unread_count"] - 1
    changed = records(run("mailstore", "conversations", "--all", "--changed-after", str(change), "--now", NOW, db).stdout)
    assert {c["conversation_id"] for c in changed} == {conversation["conversation_id"], chat(unread["id"])["conversation_id"]}
    config = json.loads(run("mailstore", "config", db).stdout)
    assert config["history_id"] == "1004"
    # un-archiving: INBOX comes back
    back = {"history": [{"id": "1005", "labelsAdded": [{"message": {"id": inbox["gmail_id"]}, "labelIds": ["INBOX"]}]}], "historyId": "1005"}
    assert run("mailstore", "history", db, input=json.dumps(back)).returncode == 0
    assert not chat(inbox["id"])["archived"]
    # a deleted message leaves its conversation and the search index
    gone = {"history": [{"id": "1006", "messagesDeleted": [{"message": {"id": m["gmail_id"]}} for m in [inbox] + others]}], "historyId": "1006"}
    assert run("mailstore", "history", db, input=json.dumps(gone)).returncode == 0
    remaining = records(run("mailstore", "conversations", "--all", db).stdout)
    assert conversation["conversation_id"] not in {c["conversation_id"] for c in remaining}
    assert not records(run("mailstore", "search", "--output", "ids", db, f"id:{inbox['id']}").stdout)
    assert json.loads(run("mailstore", "config", db).stdout)["messages"] == len(mail) - 1 - len(others)
    # a response that is not one changes nothing, and the sync is to try again later
    bad = run("mailstore", "history", db, input=b'{"kind": "something else"}\n')
    assert bad.returncode == 75 and "not a Gmail API response mailstore reads" in bad.stderr.decode()


def test_label_and_count_as_a_client_reads_and_archives_a_chat(sample, tmp_path):
    db = tmp_path / "mail.db"
    add(db, "--me", "mei@example.tw", input=sample[0])

    def count(query):
        r = run("mailstore", "count", db, query)
        assert r.returncode == 0, r.stderr
        return int(r.stdout)

    def conversation(cid):
        everything = records(run("mailstore", "conversations", "--all", db).stdout)
        return next(c for c in everything if c["conversation_id"] == cid)

    unread = count("is:unread")
    assert unread == len(records(run("mailstore", "search", "--output", "ids", db, "is:unread").stdout)) > 0
    chat = next(c for c in records(run("mailstore", "conversations", db).stdout) if c["unread_count"])
    read = run("mailstore", "label", db, "-UNREAD", "--", f"conversation:{chat['conversation_id']}")
    assert read.returncode == 0 and int(read.stdout) == chat["unread_count"]
    assert conversation(chat["conversation_id"])["unread_count"] == 0
    assert count("is:unread") == unread - chat["unread_count"]
    assert run("mailstore", "label", db, "-INBOX", f"conversation:{chat['conversation_id']}").returncode == 0
    assert conversation(chat["conversation_id"])["archived"], "a Gmail message that left the inbox is archived, even with no label left"
    archived = records(run("mailstore", "conversations", "--archived", db).stdout)
    assert chat["conversation_id"] in {c["conversation_id"] for c in archived}
    assert run("mailstore", "label", db, "+INBOX", "+STARRED", f"conversation:{chat['conversation_id']}").returncode == 0
    assert not conversation(chat["conversation_id"])["archived"]
    assert count("is:starred") == chat["message_count"]
    for bad in (["+X"], ["--", "is:unread"], ["+X", "--", "(is:unread"]):
        assert run("mailstore", "label", db, *bad).returncode == 64, bad


def many_records(lines, copies):
    """`copies` distinct copies of the records (ids and subjects changed), one list per copy."""
    result = []
    for k in range(copies):
        batch = []
        for line in lines.splitlines():
            r = json.loads(line)
            r["id"] = f"{k}-{r['id']}"
            r["gmail_id"] = f"{k:x}{r['gmail_id']}" if r.get("gmail_id") else None
            r["subject"] = f"{r['subject']} #{k}"
            batch.append(json.dumps(r, ensure_ascii=False).encode())
        result.append(b"\n".join(batch) + b"\n")
    return result


def test_eight_writers_at_once_while_readers_ask(sample, tmp_path):
    lines, me = sample
    db = tmp_path / "mail.db"  # made by whichever writer comes first
    inputs = input_files(tmp_path, many_records(lines, 40))
    writers = [subprocess.Popen([BIN / "mailstore", "add", "-q", "--me", me[0], db, *inputs[k::8]], stderr=subprocess.PIPE, env=ENV)
               for k in range(8)]
    while not db.exists():
        time.sleep(0.001)
    seen = []
    while any(w.poll() is None for w in writers):
        r = run("mailstore", "search", "--output", "ids", db, "subject:dinner")
        assert r.returncode == 0 and not r.stderr, r.stderr
        found = records(r.stdout)
        # a message is there whole or not at all: every copy of the thread comes with all its parts
        seen.append(len(found))
    for w in writers:
        assert w.wait() == 0
        assert b"locked" not in w.stderr.read()
    assert seen == sorted(seen)
    config = json.loads(run("mailstore", "config", db).stdout)
    assert config["messages"] == 40 * 19
    one = tmp_path / "one.db"
    add(one, "--me", me[0], *inputs)
    assert store_output(db) == store_output(one)


def killed_loads(tmp_path, inputs, me, count):
    """20 loads killed at random moments, each followed by the same load again: every message
    once, the index whole, and the conversations and calendar those of a clean load."""
    me_args = [a for m in me for a in ("--me", m)]
    clean = tmp_path / "clean.db"
    started = time.monotonic()
    add(clean, *me_args, *inputs)
    load_time = time.monotonic() - started
    expected = store_output(clean)
    db = tmp_path / "mail.db"
    add(db, *me_args, input=b"")
    rng = random.Random(5)
    for _ in range(20):
        p = subprocess.Popen([BIN / "mailstore", "add", "-q", db, *inputs], env=ENV, stderr=subprocess.DEVNULL)
        time.sleep(rng.uniform(0.0, load_time))
        p.send_signal(signal.SIGKILL)
        p.wait()
        add(db, *inputs)
        connection = sqlite3.connect(db)
        assert connection.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        assert connection.execute("SELECT count(*), count(DISTINCT id) FROM messages").fetchone() == (count, count)
        connection.execute("INSERT INTO search(search) VALUES('integrity-check')")
        connection.close()
        assert store_output(db) == expected


def input_files(tmp_path, batches):
    """Each batch of records in a file of its own, in order."""
    inputs = []
    for k, batch in enumerate(batches):
        path = tmp_path / f"{k}.jsonl"
        path.write_bytes(batch)
        inputs.append(path)
    return inputs


def test_killed_loads_leave_every_message_once(sample, tmp_path):
    lines, me = sample
    killed_loads(tmp_path, input_files(tmp_path, many_records(lines, 60)), me, 60 * 19)


def test_killed_loads_of_the_generated_mailbox(generated_mbox, tmp_path):
    lines, me = pipeline_records(generated_mbox[0])
    inputs = input_files(tmp_path, batches(lines, 10, 3))
    killed_loads(tmp_path, inputs, me, len({json.loads(line)["id"] for line in lines.splitlines()}))


def test_a_first_load_killed_leaves_no_database_and_the_same_load_makes_it(sample, tmp_path):
    """A load that makes the database builds it in a scratch file beside it: killed, there is
    no database (a reader says so) and the next maker removes the scratch file."""
    lines, me = sample
    inputs = input_files(tmp_path, many_records(lines, 60))
    clean = tmp_path / "clean.db"
    started = time.monotonic()
    add(clean, "--me", me[0], *inputs)
    load_time = time.monotonic() - started
    db = tmp_path / "mail.db"
    rng = random.Random(7)
    for _ in range(5):
        p = subprocess.Popen([BIN / "mailstore", "add", "-q", "--me", me[0], db, *inputs], env=ENV, stderr=subprocess.DEVNULL)
        time.sleep(rng.uniform(0.0, load_time * 0.8))
        p.send_signal(signal.SIGKILL)
        p.wait()
        if db.exists():  # it had finished
            db.unlink()
            continue
        assert run("mailstore", "count", db, "*").returncode == 66
    add(db, "--me", me[0], *inputs)
    assert not list(tmp_path.glob("mail.db.new-*"))
    assert store_output(db) == store_output(clean)
    assert oct(db.stat().st_mode & 0o777) == "0o600"


def test_a_full_disk_is_an_io_error_and_the_database_keeps_what_was_committed(sample, tmp_path):
    disk = tmp_path / "disk"
    disk.mkdir()
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1m,mode=700", "tmpfs", disk], capture_output=True)
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a small tmpfs here (needs root): {mounted.stderr.decode().strip()}")
    try:
        lines, me = sample
        db = disk / "mail.db"
        big = b"".join(many_records(lines, 200))
        # a first load that does not fit: no database, nothing left beside it
        r = run("mailstore", "add", "--me", me[0], db, input=big)
        assert r.returncode == 74, r.stderr
        assert not db.exists() and not list(disk.glob("mail.db.new-*"))
        add(db, "--me", me[0], input=lines)
        r = run("mailstore", "add", db, input=big)
        assert r.returncode == 74, r.stderr
        assert r.stderr.decode() == f"mailstore: {db}: database or disk is full\n"
        config = run("mailstore", "config", db)
        assert config.returncode == 0
        assert json.loads(config.stdout)["messages"] == 19
        assert records(run("mailstore", "conversations", "--all", "--now", NOW, db).stdout) == records(tools_output(lines)[0])
    finally:
        subprocess.run(["umount", disk])


def test_me_auto_infers_once_and_remembers(sample, tmp_path):
    parsed = run("mime-parse", "--no-progress", SAMPLE).stdout
    inferred = run("participant-hash", "--me-auto", input=parsed)
    db = tmp_path / "mail.db"
    r = run("mailstore", "add", "--me-auto", db, input=parsed)
    assert r.returncode == 0, r.stderr
    expected_note = re.search(r"--me-auto: you are .*", inferred.stderr.decode()).group(0)
    assert f"mailstore: {expected_note}" in r.stderr.decode()
    me = json.loads(run("mailstore", "config", db).stdout)["me"]
    assert me == re.findall(r"(\S+@\S+) \(", expected_note)
    assert records(run("mailstore", "conversations", "--all", "--now", NOW, db).stdout) == \
        records(run("conversation-group", "--now", NOW, input=inferred.stdout).stdout)
    again = run("mailstore", "add", "--me-auto", db, input=b"")
    assert again.returncode == 0 and "--me-auto" not in again.stderr.decode(), "inferred once"
    nobody = run("mailstore", "add", tmp_path / "new.db", input=parsed)
    assert nobody.returncode == 64
    assert "no address of yours" in nobody.stderr.decode()


def test_the_views_an_app_reads(sample, tmp_path):
    lines, me = sample
    db = tmp_path / "mail.db"
    add(db, "--me", me[0], input=lines)
    connection = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    chats = [json.loads(r) for (r,) in connection.execute("SELECT record FROM chats")]
    # the records as written at the load; mailstore works a conversation's upcoming events out
    # again when asked, so both are read at about the same time
    assert chats == records(run("mailstore", "conversations", db).stdout)
    unread = {i for (i,) in connection.execute("SELECT id FROM unread")}
    mail = [json.loads(line) for line in lines.splitlines()]
    assert unread == {m["id"] for m in mail if "UNREAD" in m["labels"]}
    calendar = [json.loads(r) for (r,) in connection.execute("SELECT record FROM calendar")]
    assert calendar == records(run("event-group", input=lines).stdout)
    numbers = {n for (n,) in connection.execute("SELECT tracking_number FROM shipments")}
    assert numbers == {s["tracking_number"] for m in mail for s in m.get("shipments", [])}
    assert numbers


def test_address_rules_are_remembered_and_changed(tmp_path):
    parsed = run("mime-parse", "--no-progress", SAMPLE).stdout
    mail = [json.loads(line) for line in parsed.splitlines()]
    for k, m in enumerate(mail):
        if m["from"]["address"] == "alex.rivera@example.com" and k % 2:
            m["from"]["address"] = "alex.rivera+dinner@example.com"
    parsed = b"".join(json.dumps(m, ensure_ascii=False).encode() + b"\n" for m in mail)

    def expected(*rules):
        keyed = run("participant-hash", "--me", "mei@example.tw", *rules, input=parsed).stdout
        return records(run("conversation-group", "--now", NOW, *rules, input=keyed).stdout)

    assert expected() != expected("--strip-plus"), "the rule matters to this mail"
    db = tmp_path / "mail.db"
    add(db, "--me", "mei@example.tw", "--strip-plus", input=parsed)
    # a new database folds Gmail addresses (the default, issue 47) and takes the rule given
    assert json.loads(run("mailstore", "config", db).stdout)["address_rules"] == ["gmail-canonical", "strip-plus"]
    assert records(run("mailstore", "conversations", "--all", "--now", NOW, db).stdout) == expected("--strip-plus")
    add(db, input=parsed)
    assert json.loads(run("mailstore", "config", db).stdout)["address_rules"] == ["gmail-canonical", "strip-plus"], "remembered"
    assert run("mailstore", "config", "--plain-addresses", db).returncode == 0
    assert json.loads(run("mailstore", "config", db).stdout)["address_rules"] == []
    assert records(run("mailstore", "conversations", "--all", "--now", NOW, db).stdout) == expected("--no-gmail-canonical")


def mine(db):
    """How many messages the store holds as yours, after checking that the from_me column (which
    a site's pages read) says what each message's summary says."""
    with sqlite3.connect(db) as c:
        assert c.execute("SELECT count(*) FROM messages WHERE from_me IS NOT json_extract(summary, '$.from_me')").fetchone()[0] == 0
        return c.execute("SELECT count(*) FROM messages WHERE from_me").fetchone()[0]


def test_changing_my_addresses_keys_every_message_again(sample, tmp_path):
    lines, _ = sample
    db = tmp_path / "mail.db"
    add(db, "--me", "somebody-else@example.org", input=lines)
    assert mine(db) == 0
    r = run("mailstore", "config", "--me", "mei@example.tw", db)
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["me"] == ["mei@example.tw"]
    assert store_output(db) == tools_output(lines)
    assert mine(db) > 0


def test_a_store_of_schema_3_gains_from_me(sample, tmp_path):
    lines, me = sample
    db = tmp_path / "mail.db"
    add(db, "--me", me[0], input=lines)
    expected = mine(db)
    with as_schema_5(db) as c:
        c.executescript("ALTER TABLE messages DROP COLUMN from_me; PRAGMA user_version = 3;")
    assert json.loads(run("mailstore", "config", db).stdout)["schema_version"] == 10
    assert mine(db) == expected > 0


def render(db, site, *args):
    r = run("chat-render", "--store", db, "--out", site, "--zone", "Asia/Taipei", "--now", NOW, *args)
    assert r.returncode == 0, r.stderr
    return r


def site_files(site):
    return {str(p.relative_to(site)): p.read_bytes() for p in sorted(site.rglob("*"))
            if p.is_file() and not p.name.startswith(".")}  # the renderers' own bookkeeping


@pytest.mark.parametrize("pages", [[], ["--list-page-size", "2", "--messages-per-page", "3"]], ids=["one-page", "paged"])
def test_chat_render_of_the_store_equals_chat_render_of_the_files(sample, tmp_path, pages):
    lines, me = sample
    db = tmp_path / "mail.db"
    add(db, "--me", me[0], input=lines)
    render(db, tmp_path / "from-store", *pages)
    conversations = tmp_path / "conversations.jsonl"
    conversations.write_bytes(run("conversation-group", "--now", NOW, input=lines).stdout)
    messages = tmp_path / "messages.jsonl"
    messages.write_bytes(lines)
    r = run("chat-render", "--conversations", conversations, "--out", tmp_path / "from-files", "--zone", "Asia/Taipei",
            "--now", NOW, *pages, messages)
    assert r.returncode == 0, r.stderr
    assert site_files(tmp_path / "from-store") == site_files(tmp_path / "from-files")
    if pages:
        assert (tmp_path / "from-store" / "events.p2.html").exists()


def test_one_folder_rendered_in_turns_from_files_and_from_the_store(sample, tmp_path):
    # paged and not, so that each render leaves files the next does not write: the next removes them,
    # whichever of the two wrote them and kept their list
    lines, me = sample
    db = tmp_path / "mail.db"
    add(db, "--me", me[0], input=lines)
    conversations, messages = tmp_path / "conversations.jsonl", tmp_path / "messages.jsonl"
    conversations.write_bytes(run("conversation-group", "--now", NOW, input=lines).stdout)
    messages.write_bytes(lines)
    paged = ["--list-page-size", "2", "--messages-per-page", "3"]
    site = tmp_path / "site"
    (site / "c").mkdir(parents=True)
    (site / "c" / "other.html").write_text("a page no render wrote")  # listed by neither: left alone
    for source, pages in [("store", paged), ("files", []), ("store", []), ("files", paged), ("store", [])]:
        args = ["--store", db] if source == "store" else ["--conversations", conversations, messages]
        r = run("chat-render", *args, "--out", site, "--zone", "Asia/Taipei", "--now", NOW, *pages)
        assert r.returncode == 0, r.stderr
        alone = tmp_path / f"{source}{len(pages)}"
        if not alone.exists():
            assert run("chat-render", *args, "--out", alone, "--zone", "Asia/Taipei", "--now", NOW, *pages).returncode == 0
        assert site_files(site) == site_files(alone) | {"c/other.html": b"a page no render wrote"}
        assert (site / ".mailstore-site.db").exists() == (source == "store")
        assert (site / ".chat-render-files").exists() == (source == "files")
    assert site_files(tmp_path / "store0") == site_files(tmp_path / "files0")


@pytest.mark.parametrize("pages", [[], ["--list-page-size", "3", "--messages-per-page", "4"]], ids=["one-page", "paged"])
def test_pages_after_deliveries_one_by_one_equal_a_full_render(sample, tmp_path, pages):
    lines, me = sample
    copies = many_records(lines, 5)
    first, deliveries = copies[0] + copies[1], b"".join(copies[2:]).splitlines(keepends=True)[:50]
    assert len(deliveries) == 50
    db, site = tmp_path / "mail.db", tmp_path / "site"
    add(db, "--me", me[0], input=first)
    render(db, site, *pages)
    written = []
    for k, line in enumerate(deliveries):
        add(db, input=line)
        before = {p: p.stat().st_mtime_ns for p in site.rglob("*.html")}
        render(db, site, *pages)
        written.append(sum(1 for p in site.rglob("*.html") if before.get(p) != p.stat().st_mtime_ns))
        # after each: a page left as it was could be put right by a later change
        shutil.rmtree(tmp_path / "whole", ignore_errors=True)
        render(db, tmp_path / "whole", *pages)
        assert site_files(site) == site_files(tmp_path / "whole"), k
    full_db, full = tmp_path / "full.db", tmp_path / "full"
    add(full_db, "--me", me[0], input=first + b"".join(deliveries))
    render(full_db, full, *pages)
    assert site_files(site) == site_files(full)
    files = len(list(full.rglob("*.html")))
    assert max(written) < files / 2, (written, files)  # only what a message changes
    # labels changed, and a conversation deleted through Gmail's history: the same again
    chat, gone = records(run("mailstore", "conversations", "--limit", "2", db).stdout)
    deleted = [m["gmail_id"] for m in records(run("mailstore", "messages", db, gone["conversation_id"]).stdout)]
    history = json.dumps({"history": [{"id": "7", "messagesDeleted": [{"message": {"id": g}} for g in deleted]}], "historyId": "7"})
    for database in (db, full_db):
        assert run("mailstore", "label", database, "-INBOX", "-UNREAD", "--", f"conversation:{chat['conversation_id']}").returncode == 0
        assert run("mailstore", "history", database, input=history).returncode == 0
    assert gone["conversation_id"] not in run("mailstore", "conversations", "--all", db).stdout.decode()
    render(db, site, *pages)
    render(full_db, tmp_path / "full-again", *pages)
    assert site_files(site) == site_files(tmp_path / "full-again")
    # the same folder from another database is rendered whole
    render(full_db, site, *pages)
    assert site_files(site) == site_files(tmp_path / "full-again")


def test_a_newest_message_is_added_to_its_conversations_newest_page_as_a_whole_render_writes_it(tmp_path):
    """A message that comes after every bubble of its conversation's newest page is put into the
    page as it is (the other bubbles are not rendered again); anything else renders the page
    again. Which way a page was made shows by a record changed behind the store's back (its
    change counter kept): a page rendered again shows it, one added to does not. After each
    step the site, the change put back, equals a whole render."""
    db, site = tmp_path / "mail.db", tmp_path / "site"
    pages = ["--messages-per-page", "4"]

    def deliver(k, when):
        mail = (f"From: Alex Rivera <alex@example.com>\nTo: mei@example.tw\nSubject: Dinner\nDate: {when} +0800\n"
                f"Message-ID: <n{k}@example.com>\n\nnote {k} of the dinner plans\n").encode()
        r = run("mailstore", "deliver", "-q", "--me", "mei@example.tw", "--journal", tmp_path / "m.jsonl", db, input=mail)
        assert r.returncode == 0, r.stderr

    def newest_page():
        return next(p for p in (site / "c").glob("*.html") if ".p" not in p.name).read_text()

    def rendered_again(k):
        """Renders the site, and a copy of it from a copy of the store where message k's record
        is changed: whether a page of the copy shows the change. The site equals a whole render."""
        probe_db, probe = tmp_path / "probe.db", tmp_path / "probe"
        probe_db.unlink(missing_ok=True)
        shutil.rmtree(probe, ignore_errors=True)
        with sqlite3.connect(db) as source, sqlite3.connect(probe_db) as copy:
            source.backup(copy)
            copy.execute("UPDATE messages SET record = replace(record, ?, ?) WHERE id = ?",
                         (f"note {k} of", f"NOTE {k} OF", f"n{k}@example.com"))
        shutil.copytree(site, probe)
        render(probe_db, probe, *pages)
        render(db, site, *pages)
        shutil.rmtree(tmp_path / "whole", ignore_errors=True)
        render(db, tmp_path / "whole", *pages)
        assert site_files(site) == site_files(tmp_path / "whole")
        return any(f"NOTE {k} OF" in p.read_text() for p in (probe / "c").glob("*.html"))

    deliver(1, "Mon, 2 Mar 2026 10:00:00")
    render(db, site, *pages)
    deliver(2, "Mon, 2 Mar 2026 11:00:00")  # the same day: no day between
    assert not rendered_again(1)
    assert newest_page().count('class="day"') == 1
    deliver(3, "Tue, 3 Mar 2026 09:00:00")  # another day
    assert not rendered_again(1)
    assert newest_page().count('class="day"') == 2
    deliver(4, "Mon, 2 Mar 2026 12:00:00")  # older than the newest on the page: its place is before it
    assert rendered_again(1)
    assert newest_page().index("note 4 of") < newest_page().index("note 3 of")
    deliver(5, "Tue, 3 Mar 2026 10:00:00")  # the page was full: a second page, and every title numbers them
    assert rendered_again(1)
    assert "(2 of 2)" in newest_page() and "(1 of 2)" in next((site / "c").glob("*.p1.html")).read_text()
    assert run("mailstore", "label", db, "+UNREAD", "--", "id:n5@example.com").returncode == 0
    deliver(6, "Wed, 4 Mar 2026 10:00:00")  # with another message of the page changed (read to unread)
    assert rendered_again(5)
    assert newest_page().count('class="unread"') == 1
    deliver(7, "Wed, 4 Mar 2026 11:00:00")  # a new message, unread, after an unread one
    assert run("mailstore", "label", db, "+UNREAD", "--", "id:n7@example.com").returncode == 0
    assert not rendered_again(5)
    assert newest_page().count('class="unread"') == 2

    # a render killed after its pages were written and before its state was kept: the message
    # on the page already is not put there twice
    state = site / ".mailstore-site.db"
    shutil.copy(state, tmp_path / "state-before")
    deliver(8, "Thu, 5 Mar 2026 09:00:00")
    render(db, site, *pages)
    for suffix in ["-wal", "-shm"]:
        (site / (state.name + suffix)).unlink(missing_ok=True)
    shutil.copy(tmp_path / "state-before", state)
    assert rendered_again(5)
    assert newest_page().count("note 8 of") == 1


CALENDAR = """BEGIN:VCALENDAR
BEGIN:VEVENT
UID:stand-up@example.org
DTSTAMP:20260101T000000Z
DTSTART;TZID=Europe/Berlin:20260302T100000
DTEND;TZID=Europe/Berlin:20260302T103000
RRULE:FREQ=WEEKLY;COUNT=3
SUMMARY:Stand-up
END:VEVENT
BEGIN:VEVENT
UID:birthday@example.org
DTSTAMP:20200101T000000Z
DTSTART;VALUE=DATE:19500314
RRULE:FREQ=YEARLY
SUMMARY:Birthday
END:VEVENT
BEGIN:VEVENT
UID:dentist@example.org
DTSTAMP:20260101T000000Z
DTSTART:20260310T100000Z
DTEND:20260310T110000Z
SUMMARY:Dentist
END:VEVENT
BEGIN:VEVENT
UID:reunion@example.org
DTSTAMP:20200101T000000Z
DTSTART:20200305T120000Z
DTEND:20200305T180000Z
RRULE:FREQ=YEARLY;INTERVAL=10;COUNT=2
SUMMARY:Reunion
END:VEVENT
END:VCALENDAR
"""


def test_the_calendar_is_written_again_when_an_event_may_become_past_or_upcoming(tmp_path):
    """The calendar splits the events into upcoming and past at the time of the render. A site
    of the store writes it again when that may change: when an event ends, a series' next
    occurrence ends, or a series' next occurrence comes within the four years a series is
    upcoming for (not at every render while a series is on it). Rendered at times on both
    sides of those instants, the site equals a whole render at each."""
    record = {"id": "cal1", "message_id": "cal1", "date": "2026-02-20T08:00:00Z", "subject": "Plans",
              "from": {"name": "Ana", "address": "ana@example.org"}, "to": [{"name": None, "address": "mei@example.tw"}],
              "calendar": [CALENDAR]}
    extracted = run("event-extract", "--no-progress", input=(json.dumps(record) + "\n").encode())
    assert extracted.returncode == 0, extracted.stderr
    db, site = tmp_path / "mail.db", tmp_path / "site"
    add(db, "--me", "mei@example.tw", input=extracted.stdout)
    epoch = lambda t: calendar.timegm(time.strptime(t, "%Y-%m-%dT%H:%M:%SZ"))

    def rendered(now):
        r = run("chat-render", "--store", db, "--out", site, "--zone", "Asia/Taipei", "--now", now)
        assert r.returncode == 0, r.stderr
        shutil.rmtree(tmp_path / "whole", ignore_errors=True)
        r = run("chat-render", "--store", db, "--out", tmp_path / "whole", "--zone", "Asia/Taipei", "--now", now)
        assert r.returncode == 0, r.stderr
        assert site_files(site) == site_files(tmp_path / "whole"), now
        with sqlite3.connect(site / ".mailstore-site.db") as c:
            return int(c.execute("SELECT value FROM state WHERE key = 'calendar_until'").fetchone()[0])

    # the reunion of 2030-03-05T12:00:00Z comes within four years (1461 days) a second after 2026-03-05T12:00:00Z
    assert rendered("2026-03-01T00:00:00Z") == epoch("2026-03-02T09:30:00Z")  # the stand-up's first occurrence ends
    assert rendered("2026-03-02T09:29:59Z") == epoch("2026-03-02T09:30:00Z")
    assert rendered("2026-03-02T09:30:00Z") == epoch("2026-03-02T09:30:01Z")  # the series' first occurrence ends, as an event
    assert rendered("2026-03-02T09:30:01Z") == epoch("2026-03-05T12:00:01Z")
    past = (site / "events.html").read_text()
    assert rendered("2026-03-05T12:00:01Z") == epoch("2026-03-09T09:30:00Z")
    assert (site / "events.html").read_text() != past and "Reunion" in past  # upcoming now
    assert rendered("2026-03-09T09:30:00Z") == epoch("2026-03-10T11:00:01Z")  # the dentist's end
    assert rendered("2026-03-10T11:00:01Z") == epoch("2026-03-14T00:00:00Z") + 86400  # the birthday's end
    assert rendered("2026-03-15T00:00:00Z") == epoch("2026-03-16T09:30:00Z")  # the stand-up's last end
    assert rendered("2026-03-16T09:30:00Z") == epoch("2027-03-15T00:00:00Z")  # the stand-up over: the next birthday's end


def test_a_conversation_a_newer_message_joins_is_written_from_its_record_as_from_every_message(generated_mbox, tmp_path):
    """A batch that adds one message after every message of its conversation writes the
    conversation from its stored record and the new message, not from every message read
    again: the generated mailbox, its first half in one batch and then a message at a time in
    date order, equals conversation-group's output. A record changed behind the store's back
    (the oldest message's date, which only a derivation from every message reads) shows which
    way a conversation was written."""
    mbox, _ = generated_mbox
    lines, me = pipeline_records(mbox)
    key = lambda line: (json.loads(line).get("date") or "", json.loads(line)["id"])
    ordered = sorted(lines.splitlines(keepends=True), key=key)
    inputs = [tmp_path / "first.jsonl"]
    inputs[0].write_bytes(b"".join(ordered[:len(ordered) // 2]))
    for k, line in enumerate(ordered[len(ordered) // 2:]):
        inputs.append(tmp_path / f"{k}.jsonl")
        inputs[-1].write_bytes(line)
    db = tmp_path / "mail.db"
    add(db, *[a for m in me for a in ("--me", m)], *inputs)
    assert store_output(db) == tools_output(lines)

    small = tmp_path / "small.db"
    def message(k, date, name="Ana"):
        record = {"id": f"a{k}@example.org", "message_id": f"a{k}@example.org", "date": date, "subject": "Lunch",
                  "from": {"name": name, "address": "ana@example.org"}, "to": [{"name": None, "address": "mei@example.tw"}],
                  "labels": ["INBOX"], "text": f"note {k}"}
        add(small, "--me", "mei@example.tw", input=(json.dumps(record) + "\n").encode())
    def first_date_after(k, date, **fields):
        with sqlite3.connect(small) as c:
            c.execute("UPDATE messages SET summary = replace(summary, '2026-03-01T09:00:00Z', '2000-01-01T00:00:00Z') WHERE id = 'a1@example.org'")
        message(k, date, **fields)
        with sqlite3.connect(small) as c:
            c.execute("UPDATE messages SET summary = replace(summary, '2000-01-01T00:00:00Z', '2026-03-01T09:00:00Z') WHERE id = 'a1@example.org'")
            return c.execute("SELECT json_extract(record, '$.first_date') FROM conversations").fetchone()[0]
    message(1, "2026-03-01T09:00:00Z")
    message(2, "2026-03-01T10:00:00Z")
    assert first_date_after(3, "2026-03-02T09:00:00Z") == "2026-03-01T09:00:00Z"  # from its record
    assert first_date_after(4, "2026-03-01T11:00:00Z") == "2000-01-01T00:00:00Z"  # older than the newest: from every message
    assert first_date_after(5, "2026-03-03T09:00:00Z", name="Ana Lee") == "2000-01-01T00:00:00Z"  # another name: from every message


def test_parcel_pages_after_deliveries_one_by_one_equal_a_full_render(tmp_path):
    """The parcels' pages keep each parcel's card between runs (made again when its parcel
    changes or the conversation it names comes, is renamed or goes): after each of 60 deliveries
    of ../shared/gen's parcel stories, and after a conversation with parcels is deleted, the
    site equals a whole render of the same database."""
    lines = parcel_stories(tmp_path, 300, 5, 0.5, me="meiling.chen@gmail.com").splitlines(keepends=True)
    db, site = tmp_path / "mail.db", tmp_path / "site"
    add(db, "--me", "meiling.chen@gmail.com", input=b"".join(lines[:200]))
    render(db, site, "--list-page-size", "7")
    for k, line in enumerate(lines[200:260]):
        add(db, input=line)
        render(db, site, "--list-page-size", "7")
        shutil.rmtree(tmp_path / "whole", ignore_errors=True)
        render(db, tmp_path / "whole", "--list-page-size", "7")
        assert site_files(site) == site_files(tmp_path / "whole"), k
    assert len(records(run("mailstore", "parcels", db).stdout)) > 20
    with sqlite3.connect(site / ".mailstore-site.db") as c:
        assert c.execute("SELECT count(*) FROM cards").fetchone()[0] > 20, "the cards are kept"
    # a conversation that parcels name, deleted
    parcel = next(p for p in records(run("mailstore", "parcels", db).stdout) if p.get("conversation_id"))
    deleted = [m["gmail_id"] for m in records(run("mailstore", "messages", db, parcel["conversation_id"]).stdout)]
    history = json.dumps({"history": [{"id": "9", "messagesDeleted": [{"message": {"id": g}} for g in deleted]}], "historyId": "9"})
    assert run("mailstore", "history", db, input=history).returncode == 0
    assert deleted and parcel["conversation_id"] not in run("mailstore", "conversations", "--all", db).stdout.decode()
    render(db, site, "--list-page-size", "7")
    shutil.rmtree(tmp_path / "whole")
    render(db, tmp_path / "whole", "--list-page-size", "7")
    assert site_files(site) == site_files(tmp_path / "whole")


def test_a_parcel_card_names_its_conversation_as_it_is_renamed(tmp_path):
    """A card kept between runs names its conversation: when the name seen most often for its
    sender changes (and the parcel does not), the card is made again."""
    def mail(k, name, day, body):
        return (f"From alice@example.tw Mon Mar  2 10:00:00 2026\nFrom: {name} <alice@example.tw>\nTo: mei@example.tw\n"
                f"Subject: note {k}\nDate: {day} Mar 2026 10:00:00 +0800\nMessage-ID: <n{k}@example.tw>\n\n{body}\n\n")
    mbox = tmp_path / "a.mbox"
    mbox.write_text(mail(1, "Alice", "02", "Your package 1Z999AA10123456784 has shipped with UPS.")
                    + mail(2, "Alice Chen", "03", "hello again") + mail(3, "Alice Chen", "04", "and again"))
    data = run("mime-parse", "--no-progress", mbox).stdout
    for stage in ["text-extract", "carrier-detect", "participant-hash --me mei@example.tw"]:
        data = run(*stage.split(), "--no-progress", input=data).stdout
    lines = data.splitlines(keepends=True)
    db, site = tmp_path / "mail.db", tmp_path / "site"
    add(db, "--me", "mei@example.tw", input=lines[1])
    render(db, site)
    add(db, input=lines[0])
    render(db, site)  # the parcel's card is made here, and kept
    assert ">Alice<" in (site / "parcels.html").read_text()
    with sqlite3.connect(site / ".mailstore-site.db") as c:
        assert c.execute("SELECT count(*) FROM cards").fetchone()[0] == 1
    add(db, input=lines[2])
    render(db, site)
    render(db, tmp_path / "whole")
    assert ">Alice Chen<" in (tmp_path / "whole" / "parcels.html").read_text()
    assert site_files(site) == site_files(tmp_path / "whole")


def test_list_pages_follow_a_conversation_that_moves_to_the_top_or_goes(sample, tmp_path):
    # two to a page: a reply to each of the oldest conversations brings it to the top past every page
    # between; then one is archived and one deleted. After each, the pages are those of a whole render.
    lines, me = sample
    db, site, whole = tmp_path / "mail.db", tmp_path / "site", tmp_path / "whole"
    pages = ["--list-page-size", "2", "--messages-per-page", "2"]
    add(db, "--me", me[0], input=lines)
    render(db, site, *pages)

    def rendered_as_a_whole():
        shutil.rmtree(whole, ignore_errors=True)
        render(db, whole, *pages)
        assert site_files(site) == site_files(whole)

    chats = "".join(p.read_text() for p in site.glob("index*.html"))
    listed = [c for c in records(run("mailstore", "conversations", db).stdout) if f'href="c/{c["conversation_id"]}.html"' in chats]
    assert len(listed) >= 8
    for k, c in enumerate(reversed(listed[-4:])):
        reply = records(run("mailstore", "messages", "--limit", "1", db, c["conversation_id"]).stdout)[0]
        parent = reply["message_id"]
        reply.update(id=f"reply-{k}@example.tw", message_id=f"reply-{k}@example.tw", gmail_id=None, in_reply_to=[parent],
                     references=[parent], date=f"2026-05-0{k + 1}T08:00:00Z", labels=["INBOX", "UNREAD"])
        add(db, input=json.dumps(reply, ensure_ascii=False).encode() + b"\n")
        top = records(run("mailstore", "conversations", "--limit", "1", db).stdout)[0]
        assert top["conversation_id"] == c["conversation_id"]
        before = {p: p.stat().st_ino for p in site.glob("index*.html")}  # a page is written anew by rename
        render(db, site, *pages)
        rendered_as_a_whole()
        assert sum(before.get(p) != p.stat().st_ino for p in site.glob("index*.html")) > 1  # not the first page only

    middle = listed[len(listed) // 2]["conversation_id"]
    assert run("mailstore", "label", db, "-INBOX", "--", f"conversation:{middle}").returncode == 0
    render(db, site, *pages)
    rendered_as_a_whole()
    assert middle in (site / "archived.html").read_text() + "".join(p.read_text() for p in site.glob("archived.p*.html"))

    # two to a page of messages too: the oldest message of a long conversation read or unread again,
    # then one of its messages deleted: its pages from there on change
    long = next(c for c in records(run("mailstore", "conversations", "--all", db).stdout) if c["message_count"] >= 5)
    messages = records(run("mailstore", "messages", db, long["conversation_id"]).stdout)  # newest first
    oldest = messages[-1]
    flip = "-UNREAD" if "UNREAD" in oldest["labels"] else "+UNREAD"
    assert run("mailstore", "label", db, flip, "--", f"id:{oldest['id']}").returncode == 0
    render(db, site, *pages)
    rendered_as_a_whole()
    history = json.dumps({"history": [{"id": "8", "messagesDeleted": [{"message": {"id": messages[-2]["gmail_id"]}}]}], "historyId": "8"})
    assert run("mailstore", "history", db, input=history).returncode == 0
    newest = {p: p.stat().st_ino for p in site.glob(f"c/{long['conversation_id']}*.html")}
    render(db, site, *pages)
    rendered_as_a_whole()
    assert len(newest) >= 3 and sum(newest.get(p) != p.stat().st_ino for p in site.glob(f"c/{long['conversation_id']}*.html")) >= 2
    # the newest message of a conversation deleted, its pages as many as before: its newest page changes
    newest_of = lambda c: records(run("mailstore", "messages", "--limit", "1", db, c["conversation_id"]).stdout)[0]
    even = next(c for c in records(run("mailstore", "conversations", "--all", db).stdout)
                if c["message_count"] % 2 == 0 and newest_of(c)["gmail_id"])
    newest = newest_of(even)
    history = json.dumps({"history": [{"id": "8", "messagesDeleted": [{"message": {"id": newest["gmail_id"]}}]}], "historyId": "8"})
    assert run("mailstore", "history", db, input=history).returncode == 0
    after = run("mailstore", "conversations", "--all", db).stdout.decode()
    assert f'"message_count":{even["message_count"] - 1},' in next(l for l in after.splitlines() if even["conversation_id"] in l)
    render(db, site, *pages)
    rendered_as_a_whole()

    gone = listed[1]["conversation_id"]
    deleted = [m["gmail_id"] for m in records(run("mailstore", "messages", db, gone).stdout)]
    assert all(deleted)
    history = json.dumps({"history": [{"id": "9", "messagesDeleted": [{"message": {"id": g}} for g in deleted]}], "historyId": "9"})
    assert run("mailstore", "history", db, input=history).returncode == 0
    render(db, site, *pages)
    rendered_as_a_whole()


def test_compact_rewrites_the_store_in_order_and_changes_no_answer(sample, tmp_path):
    lines, me = sample
    db = tmp_path / "mail.db"
    add(db, "--me", me[0], input=lines)
    run("mailstore", "history", db, input=json.dumps({"history": [], "historyId": "5"}))
    asked = [["conversations", "--all", db], ["search", db, "from:alex OR 取件"], ["events", db], ["parcels", db], ["config", db]]
    before = [run("mailstore", *a).stdout for a in asked]
    with sqlite3.connect(db) as c:
        c.execute("CREATE TABLE scratch AS SELECT record FROM messages")  # free pages for VACUUM to take back
        c.execute("DROP TABLE scratch")
    size = db.stat().st_size
    r = run("mailstore", "compact", db)
    assert r.returncode == 0 and r.stdout == b"" and r.stderr == b"", r.stderr
    with sqlite3.connect(db) as c:
        assert c.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        assert c.execute("PRAGMA freelist_count").fetchone() == (0,)
    assert db.stat().st_size <= size
    assert [run("mailstore", *a).stdout for a in asked] == before
    other = tmp_path / "other.db"
    other.write_text("not a database\n")
    r = run("mailstore", "compact", other)
    assert r.returncode == 65 and other.read_text() == "not a database\n"
    assert run("mailstore", "compact", tmp_path / "missing.db").returncode == 66
