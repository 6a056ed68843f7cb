"""Issue 47, who "me" is, learned late: a mailbox whose first messages show none of my addresses
(no Delivered-To, nothing sent) and whose later mail does. Once an address is learned, every
conversation made before that it touches is keyed again as if it had been known from the start,
in the batch pipeline (participant-hash --me-auto | conversation-group) and in the live path
(mailstore deliver / pipelines/mailpipe-log, one message at a time): I am never a member of my
own chats. The mail imitates what Postfix, qmail, Exim and Gmail deliver."""
import json
import subprocess

import pytest

from conftest import BIN, records, run
from test_procmail import hook_env, mailpipe_log

NOW = "2026-03-09T00:00:00Z"
ME = "mei.lin@example.tw"


def message(n, sender, to, subject, cc=(), headers=(), day=2):
    """One message of mbox `n` (its Message-ID is <nN@...>)."""
    lines = [f"From {sender} Mon Mar  {day} 0{n % 10}:00:00 2026",
             f"From: {sender}",
             f"To: {', '.join(to)}"]
    if cc:
        lines.append(f"Cc: {', '.join(cc)}")
    lines += [f"Subject: {subject}",
              f"Date: Mon, {day} Mar 2026 0{n % 10}:00:00 +0000",
              f"Message-ID: <n{n}@mail.example>",
              *headers, "", f"Message {n}: {subject}.", ""]
    return "\n".join(lines) + "\n"


# Each case: the messages in the order they arrive, and the conversations they make when my
# address is known from the start (participants, the ids of their messages).
CASES = {
    # Postfix adds Delivered-To only for local delivery: the first two came through a relay
    "postfix-delivered-to-later": (
        [message(1, "Alex Rivera <alex@example.com>", [ME], "Dinner on Friday?"),
         message(2, "Alex Rivera <alex@example.com>", [ME], "Re: Dinner on Friday?"),
         message(3, "Alex Rivera <alex@example.com>", [ME], "Menu", headers=[f"Delivered-To: {ME}"])],
        {("alex@example.com",): ["n1@mail.example", "n2@mail.example", "n3@mail.example"]}),
    # a group chat first; the address shows only on a later one-to-one message
    "exim-group-first": (
        [message(1, "Bo Chen <bo@example.org>", [ME, "alex@example.com"], "Hiking plan"),
         message(2, "alex@example.com", ["bo@example.org"], "Re: Hiking plan", cc=[ME]),
         message(3, "Bo Chen <bo@example.org>", [ME], "Boots", headers=[f"Envelope-To: {ME}", f"Delivered-To: {ME}"])],
        {("alex@example.com", "bo@example.org"): ["n1@mail.example", "n2@mail.example"],
         ("bo@example.org",): ["n3@mail.example"]}),
    # qmail and Postfix virtual domains: X-Original-To names the address
    "qmail-x-original-to": (
        [message(1, "Hana Sato <hana@example.jp>", [ME], "Photos"),
         message(2, "Hana Sato <hana@example.jp>", [ME, "jordan@example.net"], "Trip"),
         message(3, "jordan@example.net", [ME], "Tickets", headers=[f"X-Original-To: {ME}"])],
        {("hana@example.jp",): ["n1@mail.example"],
         ("hana@example.jp", "jordan@example.net"): ["n2@mail.example"],
         ("jordan@example.net",): ["n3@mail.example"]}),
    # the address is learned from my own sent mail, late in the mailbox (Gmail's Sent label)
    "gmail-sent-later": (
        [message(1, "Layla Haddad <layla@example.ae>", [ME], "Lunch"),
         message(2, "Layla Haddad <layla@example.ae>", [ME, "bo@example.org"], "Lunch with Bo"),
         message(3, f"Mei <{ME}>", ["layla@example.ae"], "Re: Lunch", headers=["X-Gmail-Labels: Sent"])],
        {("layla@example.ae",): ["n1@mail.example", "n3@mail.example"],
         ("bo@example.org", "layla@example.ae"): ["n2@mail.example"]}),
    # a note to myself before the address was known: the conversation with myself
    "note-to-self-first": (
        [message(1, f"Mei <{ME}>", [ME], "Passport number"),
         message(2, "alex@example.com", [ME], "Keys"),
         message(3, "alex@example.com", [ME], "Re: Keys", headers=[f"Delivered-To: {ME}"])],
        {(ME,): ["n1@mail.example"], ("alex@example.com",): ["n2@mail.example", "n3@mail.example"]}),
    # the address in another form than the one learned (case, a Gmail +tag and dots)
    "other-forms-of-my-address": (
        [message(1, "alex@example.com", ["Mei.Lin+Shop@GoogleMail.com"], "Order"),
         message(2, "alex@example.com", ["MEILIN@gmail.com", "bo@example.org"], "Order, again"),
         message(3, "alex@example.com", ["meilin@gmail.com"], "Paid", headers=["Delivered-To: mei.lin@gmail.com"])],
        {("alex@example.com",): ["n1@mail.example", "n3@mail.example"],
         ("alex@example.com", "bo@example.org"): ["n2@mail.example"]}),
}
MY_FORMS = {ME, "meilin@gmail.com", "mei.lin@gmail.com"}


def by_participants(conversations):
    return {tuple(p["address"] for p in c["participants"]): sorted(c["message_ids"]) for c in conversations}


def mine_in(conversations):
    """My addresses that are a member of a conversation other than the one with myself."""
    return [(c["participants"], c["message_ids"]) for c in conversations
            if len(c["participants"]) > 1 and MY_FORMS & {p["address"] for p in c["participants"]}]


@pytest.mark.parametrize("case", CASES)
def test_batch_me_auto_keys_earlier_messages_as_if_known(tmp_path, case):
    mail, expected = CASES[case]
    mbox = tmp_path / "m.mbox"
    mbox.write_text("".join(mail))
    keyed = run("participant-hash", "--me-auto", input=run("mime-parse", mbox).stdout)
    assert keyed.returncode == 0, keyed.stderr
    conversations = records(run("conversation-group", "--now", NOW, input=keyed.stdout).stdout)
    assert mine_in(conversations) == []
    assert by_participants(conversations) == expected


def deliveries(tmp_path, mail, *args):
    """Each message delivered alone, as mailpipe-log does: the store and its journal."""
    log, db = tmp_path / "m.jsonl", tmp_path / "mail.db"
    for m in mail:
        r = run("mailstore", "deliver", "-q", "--me-auto", "--journal", log, *args, db, input=m)
        assert r.returncode == 0, r.stderr
    return db, log


def conversations(db):
    r = run("mailstore", "conversations", "--all", "--now", NOW, db)
    assert r.returncode == 0, r.stderr
    return records(r.stdout)


@pytest.mark.parametrize("case", CASES)
def test_live_deliveries_key_earlier_conversations_again(tmp_path, case):
    mail, expected = CASES[case]
    db, log = deliveries(tmp_path, mail)
    live = conversations(db)
    assert mine_in(live) == []
    assert by_participants(live) == expected
    # the journal makes the same database again (mailstore add --me-auto reads it all first)
    again = tmp_path / "again.db"
    r = run("mailstore", "add", "-q", "--me-auto", again, log)
    assert r.returncode == 0, r.stderr
    assert conversations(again) == live


def test_the_learned_address_is_remembered_and_said(tmp_path):
    mail, _ = CASES["postfix-delivered-to-later"]
    log, db = tmp_path / "m.jsonl", tmp_path / "mail.db"
    notes = []
    for m in mail:
        r = run("mailstore", "deliver", "--me-auto", "--journal", log, db, input=m)
        assert r.returncode == 0, r.stderr
        notes.append(r.stderr.decode())
    assert "not known yet" in notes[0] and "not known yet" in notes[1]
    assert f"--me-auto: you are {ME}" in notes[2]
    assert json.loads(run("mailstore", "config", db).stdout)["me"] == [ME]
    with_me = tmp_path / "known.db"
    for m in mail:
        assert run("mailstore", "deliver", "-q", "--me", ME, with_me, input=m).returncode == 0
    assert conversations(db) == conversations(with_me), "as if my address had been known from the start"


def test_mailpipe_log_learns_late_and_keys_again(tmp_path):
    mail, expected = CASES["exim-group-first"]
    log, db = tmp_path / "m.jsonl", tmp_path / "mail.db"
    env = hook_env(tmp_path)
    for m in mail:
        r = mailpipe_log("--store", db, log, input=m.encode(), env=env)
        assert r.returncode == 0, r.stderr
    chats = records(subprocess.run([BIN / "mailstore", "conversations", "--all", "--now", NOW, db],
                                   capture_output=True, check=True).stdout)
    assert by_participants(chats) == expected


def test_a_later_batch_into_a_store_that_knew_no_address(tmp_path):
    mail, expected = CASES["qmail-x-original-to"]
    db, log = deliveries(tmp_path, mail[:2])
    assert ("hana@example.jp", ME) in by_participants(conversations(db)), "not known yet: I am a participant"
    mbox = tmp_path / "later.mbox"
    mbox.write_text(mail[2])
    r = run("mailstore", "add", "--me-auto", db, input=run("mime-parse", mbox).stdout)
    assert r.returncode == 0, r.stderr
    assert f"you are {ME}" in r.stderr.decode()
    assert by_participants(conversations(db)) == expected
