"""Issue 47, Gmail addresses: Gmail ignores dots and +tags in its addresses, and googlemail.com
is gmail.com, so alex.rivera@gmail.com, alexrivera+news@googlemail.com and
ALEX.Rivera@Gmail.com are one mailbox and one participant, by default, in participant-hash and
the store alike. Other domains keep their dots and +tags; --no-gmail-canonical (participant-hash,
conversation-group, mailstore) is the way out, and a store made before keeps its recorded rules."""
import json
import sqlite3

import pytest

from conftest import records, run

NOW = "2026-03-09T00:00:00Z"
ME = "mei@example.tw"


def message(n, sender, to, subject="Hello", cc=()):
    lines = [f"From x Mon Mar  2 0{n % 10}:00:00 2026", f"From: {sender}", f"To: {', '.join(to)}"]
    if cc:
        lines.append(f"Cc: {', '.join(cc)}")
    lines += [f"Subject: {subject}", f"Date: Mon, 2 Mar 2026 0{n % 10}:00:00 +0000",
              f"Message-ID: <g{n}@mail.example>", "", f"Message {n}.", ""]
    return "\n".join(lines) + "\n"


def parsed(tmp_path, mail):
    mbox = tmp_path / "g.mbox"
    mbox.write_text("".join(mail))
    r = run("mime-parse", mbox)
    assert r.returncode == 0, r.stderr
    return r.stdout


def keys(tmp_path, mail, *args):
    r = run("participant-hash", "--me", ME, *args, input=parsed(tmp_path, mail))
    assert r.returncode == 0, r.stderr
    return [k["conversation_key"] for k in records(r.stdout)]


ONE_GMAIL_PERSON = [message(1, "Alex Rivera <alex.rivera@gmail.com>", [ME]),
                    message(2, "Alex <alexrivera+news@googlemail.com>", [ME]),
                    message(3, "ALEX.Rivera@Gmail.com", [ME])]


def test_the_three_forms_are_one_participant(tmp_path):
    assert keys(tmp_path, ONE_GMAIL_PERSON) == ["alexrivera@gmail.com"] * 3


def test_dots_in_other_domains_stay(tmp_path):
    mail = [message(1, "alex.rivera@example.com", [ME]), message(2, "alexrivera@example.com", [ME]),
            message(3, "alex.rivera@gmail.co", [ME]), message(4, "alex.rivera@gmail.com.example.net", [ME])]
    assert keys(tmp_path, mail) == ["alex.rivera@example.com", "alexrivera@example.com", "alex.rivera@gmail.co",
                                    "alex.rivera@gmail.com.example.net"]


def test_plus_tags_in_other_domains_stay(tmp_path):
    mail = [message(1, "alex+news@example.com", [ME]), message(2, "alex@example.com", [ME]),
            message(3, "alex+news@yahoo.com", [ME]), message(4, "alex+news@mail.gmail.com", [ME])]
    assert keys(tmp_path, mail) == ["alex+news@example.com", "alex@example.com", "alex+news@yahoo.com",
                                    "alex+news@mail.gmail.com"]


def test_no_gmail_canonical_is_the_way_out(tmp_path):
    assert keys(tmp_path, ONE_GMAIL_PERSON, "--no-gmail-canonical") == \
        ["alex.rivera@gmail.com", "alexrivera+news@googlemail.com", "alex.rivera@gmail.com"]
    assert keys(tmp_path, ONE_GMAIL_PERSON, "--gmail-canonical") == ["alexrivera@gmail.com"] * 3, "still accepted"


def test_my_gmail_address_in_any_form_is_mine(tmp_path):
    mail = [message(1, "bo@example.org", ["Mei.Lin+Receipts@googlemail.com"]),
            message(2, "MEILIN@GMAIL.COM", ["bo@example.org"]),
            message(3, "bo@example.org", ["meilin@gmail.com", "alex.rivera@gmail.com"])]
    r = run("participant-hash", "--me", "mei.lin@gmail.com", input=parsed(tmp_path, mail))
    keyed = records(r.stdout)
    assert [k["conversation_key"] for k in keyed] == ["bo@example.org", "bo@example.org", "alexrivera@gmail.com,bo@example.org"]
    assert [k["from_me"] for k in keyed] == [False, True, False]


def test_conversation_group_makes_one_conversation_with_a_name(tmp_path):
    keyed = run("participant-hash", "--me", ME, input=parsed(tmp_path, ONE_GMAIL_PERSON)).stdout
    [conversation] = records(run("conversation-group", "--now", NOW, input=keyed).stdout)
    [person] = conversation["participants"]
    assert person["address"] == "alexrivera@gmail.com"
    assert person["name"] in {"Alex Rivera", "Alex"}, "a name one of the forms gave"
    assert conversation["message_count"] == 3


def config(db):
    return json.loads(run("mailstore", "config", db).stdout)


def chats(db):
    return {tuple(p["address"] for p in c["participants"]): c["message_count"]
            for c in records(run("mailstore", "conversations", "--all", "--now", NOW, db).stdout)}


def test_a_new_store_folds_gmail_addresses(tmp_path):
    db = tmp_path / "mail.db"
    r = run("mailstore", "add", "-q", "--me", ME, db, input=parsed(tmp_path, ONE_GMAIL_PERSON))
    assert r.returncode == 0, r.stderr
    assert config(db)["address_rules"] == ["gmail-canonical"]
    assert chats(db) == {("alexrivera@gmail.com",): 3}


def test_a_new_store_made_without_gmail_folding(tmp_path):
    db = tmp_path / "mail.db"
    r = run("mailstore", "add", "-q", "--me", ME, "--no-gmail-canonical", db, input=parsed(tmp_path, ONE_GMAIL_PERSON))
    assert r.returncode == 0, r.stderr
    assert config(db)["address_rules"] == []
    assert chats(db) == {("alex.rivera@gmail.com",): 2, ("alexrivera+news@googlemail.com",): 1}
    # remembered: a later add without the flag keeps them, config --gmail-canonical turns them on
    assert run("mailstore", "add", "-q", db, input=parsed(tmp_path, ONE_GMAIL_PERSON)).returncode == 0
    assert config(db)["address_rules"] == []
    assert run("mailstore", "config", "--gmail-canonical", db).returncode == 0
    assert config(db)["address_rules"] == ["gmail-canonical"]
    assert chats(db) == {("alexrivera@gmail.com",): 3}


def test_a_store_made_before_keeps_its_recorded_rules(tmp_path):
    # a database from before issue 47 recorded no address rules: its messages were keyed plain
    db = tmp_path / "mail.db"
    mail = parsed(tmp_path, ONE_GMAIL_PERSON)
    assert run("mailstore", "add", "-q", "--me", ME, "--no-gmail-canonical", db, input=mail).returncode == 0
    with sqlite3.connect(db) as c:
        c.execute("DELETE FROM config WHERE key = 'address_rules'")
    more = parsed(tmp_path, [message(7, "alex.rivera+later@gmail.com", [ME])])
    assert run("mailstore", "add", "-q", db, input=more).returncode == 0
    assert config(db)["address_rules"] == []
    assert chats(db) == {("alex.rivera@gmail.com",): 2, ("alexrivera+news@googlemail.com",): 1,
                         ("alex.rivera+later@gmail.com",): 1}


def test_the_store_and_participant_hash_agree(tmp_path):
    mail = parsed(tmp_path, ONE_GMAIL_PERSON + [message(5, "bo@example.org", ["Mei@example.tw", "alex.rivera+x@googlemail.com"])])
    keyed = run("participant-hash", "--me", ME, input=mail).stdout
    expected = records(run("conversation-group", "--now", NOW, input=keyed).stdout)
    db = tmp_path / "mail.db"
    assert run("mailstore", "add", "-q", "--me", ME, db, input=mail).returncode == 0
    assert records(run("mailstore", "conversations", "--all", "--now", NOW, db).stdout) == expected
