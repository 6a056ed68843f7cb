"""Mail that is not a chat message (issue 32) in conversations: drafts are in none, read receipts
and bounces are listed as `reports` of the conversation that holds their message (else in the
notices conversation, with nobody), auto-replies join the conversation of the message they
answer and are never unread; conversation-group and mailstore agree whatever the order."""
import json
import random
import sqlite3
import subprocess

import pytest

from conftest import as_schema_2, as_schema_5, need_shared, records, run

NOW = "2026-03-09T00:00:00Z"
ME = "mei@example.tw"
NOTICES = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"  # sha256 of the empty key


def message(headers, body="Hello.\n"):
    text = "".join(f"{k}: {v}\n" for k, v in headers.items()) + "\n" + body
    return "From MAILER-DAEMON Mon Mar  2 09:00:00 2026\n" + text + "\n"


def report(kind, frm, to, date, msgid, original, recipient, disposition_or_action, status=None, diagnostic=None):
    boundary = "rep-" + msgid.split("@")[0]
    if kind == "disposition-notification":
        fields = (f"Reporting-UA: mail.example; Thunderbird\nFinal-Recipient: rfc822;{recipient}\n"
                  f"Original-Message-ID: <{original}>\nDisposition: manual-action/MDN-sent-manually; {disposition_or_action}\n")
    else:
        fields = (f"Reporting-MTA: dns; mx.example.tw\n\nFinal-Recipient: rfc822; {recipient}\nAction: {disposition_or_action}\n"
                  f"Status: {status}\nDiagnostic-Code: smtp; {diagnostic}\n")
    body = (f"--{boundary}\nContent-Type: text/plain\n\nAbout your message.\n\n"
            f"--{boundary}\nContent-Type: message/{kind}\n\n{fields}\n"
            f"--{boundary}\nContent-Type: text/rfc822-headers\n\nMessage-ID: <{original}>\nFrom: {ME}\nSubject: x\n\n"
            f"--{boundary}--\n")
    return message({"From": frm, "To": to, "Date": date, "Message-ID": f"<{msgid}>", "Subject": "Report",
                    "MIME-Version": "1.0",
                    "Content-Type": f'multipart/report; report-type={kind}; boundary="{boundary}"'}, body)


MAILBOX = "".join([
    message({"From": f"Mei <{ME}>", "To": "Alex <alex@example.org>", "Date": "Mon, 2 Mar 2026 09:00:00 +0000",
             "Message-ID": "<m1@example.tw>", "Subject": "Lunch?"}, "Lunch on Friday?\n"),
    message({"From": f"Mei <{ME}>", "To": "Alex <alex@example.org>, Jordan <jordan@example.com>",
             "Date": "Mon, 2 Mar 2026 10:00:00 +0000", "Message-ID": "<g1@example.tw>", "Subject": "Trip"}, "Plans.\n"),
    report("disposition-notification", "Alex <alex@example.org>", ME, "Mon, 2 Mar 2026 11:00:00 +0000",
           "mdn1@example.org", "m1@example.tw", "alex@example.org", "displayed"),
    report("delivery-status", "Mail Delivery System <MAILER-DAEMON@mx.example.tw>", ME, "Mon, 2 Mar 2026 10:01:00 +0000",
           "dsn1@mx.example.tw", "g1@example.tw", "jordan@example.com", "failed", "5.1.1", "550 5.1.1 user unknown"),
    report("delivery-status", "Mail Delivery System <MAILER-DAEMON@mx.example.tw>", ME, "Tue, 3 Mar 2026 08:00:00 +0000",
           "dsn2@mx.example.tw", "gone@example.tw", "kim@example.net", "failed", "5.1.1", "550 no such user"),
    message({"From": "Jordan <jordan@example.com>", "To": ME, "Date": "Mon, 2 Mar 2026 10:02:00 +0000",
             "Message-ID": "<ooo1@example.com>", "In-Reply-To": "<g1@example.tw>", "Auto-Submitted": "auto-replied",
             "Subject": "Automatic reply: Trip"}, "I am away until Monday.\n"),
    message({"From": f"Mei <{ME}>", "To": "Alex <alex@example.org>", "Date": "Mon, 2 Mar 2026 12:00:00 +0000",
             "Message-ID": "<d1@example.tw>", "X-Mozilla-Draft-Info": "internal/draft; vcard=0; receipt=0",
             "Subject": "Not sent yet"}, "Half a thought\n"),
])


@pytest.fixture(scope="module")
def small(tmp_path_factory):
    mbox = tmp_path_factory.mktemp("reports") / "r.mbox"
    mbox.write_text(MAILBOX)
    data = run("mime-parse", "--no-progress", mbox).stdout
    for stage in ["newsletter-detect"]:
        data = run(stage, input=data).stdout
    keyed = run("participant-hash", "--me", ME, input=data)
    assert keyed.returncode == 0, keyed.stderr
    return keyed.stdout


def by_message(conversations):
    return {m: c for c in conversations for m in c["message_ids"]}


def test_reports_drafts_and_auto_replies_in_conversations(small):
    r = run("conversation-group", "--now", NOW, input=small)
    assert r.returncode == 0, r.stderr
    conversations = records(r.stdout)
    chats = by_message(conversations)
    assert "d1@example.tw" not in chats
    assert not any("mdn1" in m or "dsn" in m for m in chats)
    alex, group = chats["m1@example.tw"], chats["g1@example.tw"]
    assert alex["reports"] == [{"message_id": "mdn1@example.org", "type": "read", "of": "m1@example.tw",
                                "recipient": "alex@example.org", "date": "2026-03-02T11:00:00Z", "status": None,
                                "diagnostic": None}]
    assert [(x["type"], x["recipient"], x["status"]) for x in group["reports"]] == [("failed", "jordan@example.com", "5.1.1")]
    assert "user unknown" in group["reports"][0]["diagnostic"]
    # the auto-reply is in the group's conversation, and not unread although it carries no label
    assert chats["ooo1@example.com"] is group and group["message_ids"] == ["g1@example.tw", "ooo1@example.com"]
    notices = [c for c in conversations if c["conversation_id"] == NOTICES]
    assert len(notices) == 1 and notices[0]["participants"] == [] and notices[0]["message_ids"] == []
    assert [x["of"] for x in notices[0]["reports"]] == ["gone@example.tw"]
    assert notices[0]["last_date"] == "2026-03-03T08:00:00Z"
    # nobody is a chat with the daemon or a draft's own conversation
    assert all(p["address"] != "mailer-daemon@mx.example.tw" for c in conversations for p in c["participants"])
    assert len(conversations) == 3


def test_auto_replies_are_never_unread(small):
    lines = [json.loads(x) for x in small.splitlines()]
    for m in lines:
        m["labels"] = ["INBOX", "UNREAD"]
    marked = "".join(json.dumps(m) + "\n" for m in lines).encode()
    group = by_message(records(run("conversation-group", "--now", NOW, input=marked).stdout))["g1@example.tw"]
    assert group["unread_count"] == 1  # g1 itself; the auto-reply is a note


def test_with_sorted_input_reports_before_their_message_are_claimed(small):
    lines = small.splitlines(keepends=True)
    keyed = sorted(lines, key=lambda x: (json.loads(x)["report"] is None, json.loads(x)["participant_hash"]))
    r = run("conversation-group", "--sorted", "--now", NOW, input=b"".join(keyed))
    assert r.returncode == 0, r.stderr
    chats = by_message(records(r.stdout))
    assert [x["message_id"] for x in chats["m1@example.tw"]["reports"]] == ["mdn1@example.org"]
    assert [x["message_id"] for x in chats["g1@example.tw"]["reports"]] == ["dsn1@mx.example.tw"]


@pytest.mark.parametrize("seed", [1, 2, 3, 4])
def test_the_store_in_any_order_equals_conversation_group(small, tmp_path, seed):
    expected = run("conversation-group", "--now", NOW, input=small).stdout
    lines = small.splitlines(keepends=True)
    random.Random(seed).shuffle(lines)
    db = tmp_path / "mail.db"
    for line in lines:  # one at a time, as deliveries come
        assert run("mailstore", "add", "-q", db, "--me", ME, input=line).returncode == 0
    got = run("mailstore", "conversations", "--all", "--now", NOW, db)
    assert got.stdout == expected, got.stderr
    # a conversation's messages are its messages: no report, no draft
    group = by_message(records(expected))["g1@example.tw"]["conversation_id"]
    ids = [m["id"] for m in records(run("mailstore", "messages", db, group).stdout)]
    assert sorted(ids) == ["g1@example.tw", "ooo1@example.com"]
    notices = records(run("mailstore", "conversations", "--kind", "notices", db).stdout)
    assert [c["conversation_id"] for c in notices] == [NOTICES]


def test_an_original_that_goes_leaves_its_reports_to_the_notices(small, tmp_path):
    db = tmp_path / "mail.db"
    assert run("mailstore", "add", "-q", db, "--me", ME, input=small).returncode == 0
    connection = sqlite3.connect(db)
    rowid = connection.execute("SELECT rowid FROM messages WHERE id = 'g1@example.tw'").fetchone()[0]
    connection.execute("UPDATE messages SET gmail_id = 'abc1' WHERE rowid = ?", (rowid,))
    connection.commit()
    connection.close()
    gone = {"history": [{"id": "9", "messagesDeleted": [{"message": {"id": "abc1"}}]}], "historyId": "9"}
    assert run("mailstore", "history", db, input=json.dumps(gone)).returncode == 0
    without = b"".join(x + b"\n" for x in small.splitlines() if json.loads(x)["id"] != "g1@example.tw")
    expected = run("conversation-group", "--now", NOW, input=without).stdout
    assert run("mailstore", "conversations", "--all", "--now", NOW, db).stdout == expected
    notices = next(c for c in records(expected) if c["conversation_id"] == NOTICES)
    assert sorted(x["of"] for x in notices["reports"]) == ["g1@example.tw", "gone@example.tw"]


def test_a_report_that_names_no_message_is_a_notice_in_the_store_too(small, tmp_path):
    """A bounce that names no message is listed in the notices conversation, by conversation-group
    and by the store; a store of schema 4, which kept it in its participants' conversation, is
    made right when it is opened."""
    mail = [json.loads(x) for x in small.splitlines()]
    bounce = next(m for m in mail if m["id"] == "dsn2@mx.example.tw")
    bounce["report"]["original_message_id"] = None
    lines = "".join(json.dumps(m) + "\n" for m in mail).encode()
    expected = run("conversation-group", "--now", NOW, input=lines).stdout
    [notices] = [c for c in records(expected) if c["conversation_id"] == NOTICES]
    assert [(x["message_id"], x["of"]) for x in notices["reports"]] == [("dsn2@mx.example.tw", None)]
    db = tmp_path / "mail.db"
    assert run("mailstore", "add", "-q", db, "--me", ME, input=lines).returncode == 0
    assert run("mailstore", "conversations", "--all", "--now", NOW, db).stdout == expected
    with as_schema_5(db) as c:  # where schema 4 stored it: its notices were its alone
        c.execute("UPDATE messages SET conversation_id = ? WHERE id = ?", (bounce["participant_hash"], bounce["id"]))
        c.execute("DELETE FROM conversations WHERE id = ?", (NOTICES,))
        c.execute("PRAGMA user_version = 4")
    assert run("mailstore", "conversations", "--all", "--now", NOW, db).stdout == expected
    placed = sqlite3.connect(db).execute("SELECT conversation_id FROM messages WHERE id = ?", (bounce["id"],)).fetchone()
    assert placed == (NOTICES,)


def test_a_store_of_schema_2_is_migrated(small, tmp_path):
    """A store the landed schema 2 made (reports and drafts stored as messages, keyed on their
    participants) is made current when it is opened: the same as a new one."""
    db = tmp_path / "mail.db"
    assert run("mailstore", "add", "-q", db, "--me", ME, input=small).returncode == 0
    as_schema_2(db)
    expected = run("conversation-group", "--now", NOW, input=small).stdout
    got = run("mailstore", "conversations", "--all", "--now", NOW, db)
    assert got.returncode == 0, got.stderr
    assert got.stdout == expected
    assert sqlite3.connect(db).execute("PRAGMA user_version").fetchone()[0] == 10


def test_the_generated_reports_in_shuffled_batches(tmp_path):
    """../shared/gen's receipts, bounces, auto-replies and drafts (2,000 messages, a fifth of
    them such): each report with its message, each auto-reply in the conversation it answers,
    no draft anywhere; the store, fed in shuffled batches, the same."""
    mbox, truth_path = tmp_path / "r.mbox", tmp_path / "r.truth.jsonl"
    subprocess.run(["python3", str(need_shared("gen/gen_mbox.py")), "--messages", "2000", "--seed", "32",
                    "--reports-rate", "0.2", "--out", str(mbox), "--truth", str(truth_path)], check=True, capture_output=True)
    data = run("mime-parse", "--no-progress", mbox).stdout
    data = run("newsletter-detect", input=data).stdout
    keyed = run("participant-hash", "--me", "meiling.chen@gmail.com", input=data).stdout
    truth = [json.loads(x) for x in truth_path.read_text().splitlines()]
    lines = keyed.splitlines(keepends=True)
    mail = [json.loads(x) for x in lines]
    expected = run("conversation-group", "--now", NOW, input=keyed).stdout
    conversations = records(expected)
    chats = by_message(conversations)
    reported = {x["message_id"]: c["conversation_id"] for c in conversations for x in c["reports"]}
    counts = {"report": 0, "auto_reply": 0, "draft": 0}
    for m, t in zip(mail, truth):
        if t["is_draft"]:
            counts["draft"] += 1
            assert m["id"] not in chats and m["id"] not in reported
        elif t["report"]:
            counts["report"] += 1
            assert reported[m["id"]] == chats[t["report"]["original_message_id"]]["conversation_id"]
        elif t["auto_reply"]:
            counts["auto_reply"] += 1
            answered = (m["in_reply_to"] or m["references"][-1:])[0]
            assert chats[m["id"]] is chats[answered]
    assert min(counts.values()) > 50, counts
    assert NOTICES not in {c["conversation_id"] for c in conversations}
    random.Random(7).shuffle(lines)
    db = tmp_path / "mail.db"
    for k in range(0, len(lines), 300):
        add = run("mailstore", "add", "-q", db, "--me", "meiling.chen@gmail.com", input=b"".join(lines[k:k + 300]))
        assert add.returncode == 0, add.stderr
    assert run("mailstore", "conversations", "--all", "--now", NOW, db).stdout == expected


def site_files(site):
    return {str(p.relative_to(site)): p.read_bytes() for p in sorted(site.rglob("*"))
            if p.is_file() and not p.name.startswith(".")}


def render(*args):
    r = run("chat-render", "--zone", "Asia/Taipei", "--now", NOW, *args)
    assert r.returncode == 0, r.stderr
    return r


def page(site, conversations, message_id):
    c = by_message(conversations)[message_id]
    return (site / "c" / f"{c['conversation_id']}.html").read_text()


def test_chat_render_shows_reports_under_their_message_and_no_draft(small, tmp_path):
    conversations = tmp_path / "conversations.jsonl"
    conversations.write_bytes(run("conversation-group", "--now", NOW, input=small).stdout)
    messages = tmp_path / "messages.jsonl"
    messages.write_bytes(small)  # drafts and reports among them: passed over, not errors
    site = tmp_path / "site"
    render("--conversations", conversations, "--out", site, messages)
    listed = records(conversations.read_bytes())
    alex = page(site, listed, "m1@example.tw")
    assert 'class="read">Read by Alex · <time datetime="2026-03-02T11:00:00Z">19:00</time>' in alex
    assert "Half a thought" not in alex and "Not sent yet" not in alex
    group = page(site, listed, "g1@example.tw")
    assert 'class="failed">Not delivered to jordan@example.com: user unknown · <time' in group
    # the auto-reply is a note in the group, with its sender, never marked unread
    note = group.split('class="message automated"')[1].split("</li>")[0]
    assert "Jordan" in note and "away until Monday" in note and "unread" not in note
    notices = (site / "c" / f"{NOTICES}.html").read_text()
    assert "<h1 dir=\"auto\">Delivery notices</h1>" in notices
    assert "Not delivered to kim@example.net: no such user" in notices
    index = (site / "index.html").read_text()
    assert "Delivery notices" in index and "MAILER-DAEMON" not in index and "mailer-daemon" not in index
    # the store renders the same site
    db = tmp_path / "mail.db"
    assert run("mailstore", "add", "-q", db, "--me", ME, input=small).returncode == 0
    render("--store", db, "--out", tmp_path / "from-store")
    assert site_files(tmp_path / "from-store") == site_files(site)


# reports before their message (moved to it when it comes), and after it (a line under a page
# already written)
@pytest.mark.parametrize("order", [[2, 4, 0, 3, 6, 5, 1], [4, 0, 2, 5, 1, 3, 6]], ids=["before", "after"])
def test_pages_follow_reports_as_they_come(small, tmp_path, order):
    """Delivered one at a time: after each, the pages the store renders are those of a whole render."""
    lines = small.splitlines(keepends=True)
    db, site = tmp_path / "mail.db", tmp_path / "site"
    for k in order:
        assert run("mailstore", "add", "-q", db, "--me", ME, input=lines[k]).returncode == 0
        render("--store", db, "--out", site)
        whole = tmp_path / f"whole{k}"
        render("--store", db, "--out", whole)
        assert site_files(site) == site_files(whole), k
    # a report that goes (Gmail deleted it) takes its line with it
    connection = sqlite3.connect(db)
    connection.execute("UPDATE messages SET gmail_id = 'mdn' WHERE id = 'mdn1@example.org'")
    connection.commit()
    connection.close()
    gone = {"history": [{"id": "9", "messagesDeleted": [{"message": {"id": "mdn"}}]}], "historyId": "9"}
    assert run("mailstore", "history", db, input=json.dumps(gone)).returncode == 0
    render("--store", db, "--out", site)
    render("--store", db, "--out", tmp_path / "last")
    assert site_files(site) == site_files(tmp_path / "last")
    assert not any("Read by" in text.decode(errors="replace") for text in site_files(site).values())


def test_the_calendar_has_the_events_of_reports_and_drafts_from_files_as_from_the_store(small, tmp_path):
    """event-group and the store take every record's events: chat-render from files too, a read
    receipt's and a draft's among them."""
    def event(summary, day):
        return {"summary": summary, "start": f"2026-03-{day}T04:00:00Z", "end": f"2026-03-{day}T05:00:00Z", "all_day": False,
                "source": "text", "kind": "appointment"}
    mail = [json.loads(x) for x in small.splitlines()]
    for m in mail:
        if m["id"] == "mdn1@example.org":
            m["events"] = [event("Noodles at noon", 20)]
        if m["id"] == "d1@example.tw":
            m["events"] = [event("Dinner, not sent yet", 21)]
    messages = tmp_path / "messages.jsonl"
    messages.write_text("".join(json.dumps(m) + "\n" for m in mail))
    assert [e["summary"] for e in records(run("event-group", messages).stdout)] == ["Noodles at noon", "Dinner, not sent yet"]
    conversations = tmp_path / "conversations.jsonl"
    conversations.write_bytes(run("conversation-group", "--now", NOW, messages).stdout)
    render("--conversations", conversations, "--out", tmp_path / "files", messages)
    calendar = (tmp_path / "files" / "events.html").read_text()
    assert "Noodles at noon" in calendar and "Dinner, not sent yet" in calendar
    db = tmp_path / "mail.db"
    assert run("mailstore", "add", "-q", db, "--me", ME, messages).returncode == 0
    render("--store", db, "--out", tmp_path / "store")
    assert site_files(tmp_path / "files") == site_files(tmp_path / "store")
