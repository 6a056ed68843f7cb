"""conversation-group on real pipelines: the generator's truth, duplicates, bad lines,
--embed with --sorted streaming, and the documented way to sort a huge stream."""
import collections
import json
import subprocess

import pytest

from conftest import BIN, ENV, generate_mailbox, gmail_canonical, records, run

OWNER = gmail_canonical("meiling.chen@gmail.com")


@pytest.fixture(scope="module")
def generated(tmp_path_factory):
    mbox, truth = generate_mailbox(tmp_path_factory.mktemp("gen"), 800, 11)
    keyed = run("participant-hash", "--me-auto", input=run("mime-parse", mbox).stdout).stdout
    return keyed, [json.loads(line) for line in truth.read_text().splitlines()]


def groups(conversations):
    return sorted(sorted(c["message_ids"]) for c in conversations)


def test_conversations_are_the_truths_participant_sets(generated):
    keyed, truth = generated
    ids = [r["id"] for r in records(keyed)]
    expected = collections.defaultdict(list)
    for t, i in zip(truth, ids):
        if t["kind"] == "forum":
            key = ("list", [p for p in t["participants"] if p.lower() != t["from"].lower()][-1].lower())
        else:
            key = tuple(sorted({gmail_canonical(p) for p in t["participants"]} - {OWNER}) or [OWNER])
        expected[key].append(i)
    r = run("conversation-group", input=keyed)
    assert r.returncode == 0, r.stderr
    out = records(r.stdout)
    assert sum(c["message_count"] for c in out) == len(ids)  # every message in exactly one
    assert groups(out) == sorted(sorted(v) for v in expected.values())
    dates = [c["last_date"] for c in out]
    assert dates == sorted(dates, reverse=True)


def test_threads_are_the_truths_threads(generated):
    keyed, truth = generated
    ids = [r["id"] for r in records(keyed)]
    expected = collections.defaultdict(list)
    for t, i in zip(truth, ids):
        expected[t["thrid"]].append(i)
    by_gmail = records(run("conversation-group", "--by", "thread", input=keyed).stdout)
    assert groups(by_gmail) == sorted(sorted(v) for v in expected.values())
    # without Gmail's thread ids, References and In-Reply-To rebuild the same threads
    stripped = "".join(json.dumps(dict(r, thread_id=None), ensure_ascii=False) + "\n" for r in records(keyed))
    by_headers = records(run("conversation-group", "--by", "thread", input=stripped).stdout)
    assert groups(by_headers) == sorted(sorted(v) for v in expected.values())


def test_duplicates_collapse_and_merge_labels(generated):
    keyed, _ = generated
    lines = keyed.splitlines()
    first = json.loads(lines[0])
    copy = dict(first, labels=first["labels"] + ["Copied"])
    twice = keyed + (json.dumps(copy, ensure_ascii=False) + "\n").encode() + keyed
    once = records(run("conversation-group", input=keyed).stdout)
    again = records(run("conversation-group", input=twice).stdout)
    assert [c["message_count"] for c in again] == [c["message_count"] for c in once]
    holder = next(c for c in again if first["id"] in c["message_ids"])
    assert "Copied" in holder["labels"]


def test_bad_lines_are_reported_with_their_number(generated):
    keyed, _ = generated
    lines = keyed.splitlines()
    stream = b"\n".join([lines[0], b"not json", b'{"id":"x@y","subject":"no key"}'] + lines[1:5]) + b"\n"
    r = run("conversation-group", input=stream)
    assert r.returncode == 1
    err = r.stderr.decode().splitlines()
    assert err[0].startswith("conversation-group: -:2: invalid JSON")
    assert err[1] == "conversation-group: -:3: the record has no participant_hash (run participant-hash first)"
    assert err[-1] == "conversation-group: 2 records skipped"
    assert sum(c["message_count"] for c in records(r.stdout)) == 5
    passed = records(run("conversation-group", "--on-error=pass", input=stream).stdout)
    assert sum(1 for c in passed if "errors" in c) == 2


def test_sorted_embed_streams_the_same_conversations(generated):
    keyed, _ = generated
    whole = records(run("conversation-group", "--embed", input=keyed).stdout)
    assert all(len(c["messages"]) == c["message_count"] and "message_ids" not in c for c in whole)
    # the documented way to sort a stream by conversation with standard tools
    sort = subprocess.run(
        "jq -r '\"\\(.participant_hash)\\t\\(tojson)\"' | sort -s -t \"$(printf '\\t')\" -k1,1 | cut -f2-",
        shell=True, input=keyed, capture_output=True, check=True)
    streamed = records(run("conversation-group", "--embed", "--sorted", input=sort.stdout).stdout)
    key = lambda c: c["conversation_id"]
    assert sorted(streamed, key=key) == sorted(whole, key=key)
    unsorted = run("conversation-group", "--sorted", input=keyed)
    assert unsorted.returncode == 1 and b"appears again" in unsorted.stderr


def test_usage_errors():
    assert run("conversation-group", "--max-gap", "soon", input=b"").returncode == 64
    assert run("conversation-group", "--sorted", "--by", "thread", input=b"").returncode == 64
    assert run("conversation-group", "--by", "subject", input=b"").returncode == 64


def test_max_gap_splits_a_conversation(generated):
    keyed, _ = generated
    plain = records(run("conversation-group", input=keyed).stdout)
    split = records(run("conversation-group", "--max-gap", "1h", input=keyed).stdout)
    assert len(split) > len(plain)
    assert sum(c["message_count"] for c in split) == sum(c["message_count"] for c in plain)
    assert any(c["conversation_id"].endswith("-2") for c in split)


LIST_MAIL = {
    "post": """From ana@example.net Mon Mar  2 09:00:00 2026
From: Ana <ana@example.net>
To: swift-dev@lists.example.org
Subject: [swift-dev] Streaming parsers
Message-ID: <post1@example.net>
Date: Mon, 2 Mar 2026 09:00:00 +0000
List-Id: Swift development <swift-dev.lists.example.org>
List-Post: <mailto:swift-dev@lists.example.org>
Delivered-To: mei@example.tw

How do you stream JSON Lines without holding the file?
""",
    # The sent copy of the user's reply: no list headers; the author in To, the list in Cc.
    "reply": """From mei@example.tw Mon Mar  2 10:00:00 2026
From: Mei <mei@example.tw>
To: Ana <ana@example.net>
Cc: swift-dev@lists.example.org
Subject: Re: [swift-dev] Streaming parsers
Message-ID: <reply1@example.tw>
In-Reply-To: <post1@example.net>
Date: Mon, 2 Mar 2026 10:00:00 +0000
X-Gmail-Labels: Sent

Read it line by line into a reused buffer.
""",
    "private": """From ana@example.net Mon Mar  2 11:00:00 2026
From: Ana <ana@example.net>
To: Mei <mei@example.tw>
Subject: Coffee?
Message-ID: <coffee@example.net>
Date: Mon, 2 Mar 2026 11:00:00 +0000
Delivered-To: mei@example.tw

Off the list: coffee on Thursday?
""",
}


@pytest.mark.parametrize("order, who", [
    (["post", "reply", "private"], ["--me", "mei@example.tw"]),       # the list's mail first: learned
    (["reply", "post", "private"], ["--me-auto"]),                     # the first pass learns it
    (["reply", "private"], ["--me", "mei@example.tw", "--list", "Swift-Dev@lists.example.org"]),  # not in the input
])
def test_the_users_reply_to_a_list_is_in_the_lists_conversation(tmp_path, order, who):
    mbox = tmp_path / "list.mbox"
    mbox.write_text("\n".join(LIST_MAIL[name] for name in order))
    keyed = run("participant-hash", *who, input=run("mime-parse", mbox).stdout)
    assert keyed.returncode == 0, keyed.stderr
    conversations = records(run("conversation-group", input=keyed.stdout).stdout)
    by_people = {",".join(p["address"] for p in c["participants"]): sorted(c["message_ids"]) for c in conversations}
    ids = {"post": "post1@example.net", "reply": "reply1@example.tw", "private": "coffee@example.net"}
    assert by_people == {"swift-dev@lists.example.org": sorted(ids[n] for n in order if n != "private"),
                         "ana@example.net": [ids["private"]]}


def test_a_reply_before_the_lists_mail_needs_the_first_pass(tmp_path):
    # Without --me-auto or --list, participant-hash reads once: a reply earlier in the input
    # than any of the list's mail cannot know the list yet (documented in participant-hash(1)).
    mbox = tmp_path / "list.mbox"
    mbox.write_text("\n".join(LIST_MAIL[name] for name in ["reply", "post"]))
    keyed = records(run("participant-hash", "--me", "mei@example.tw", input=run("mime-parse", mbox).stdout).stdout)
    assert [k["conversation_key"] for k in keyed] == ["ana@example.net,swift-dev@lists.example.org", "swift-dev@lists.example.org"]


def test_the_users_subject_prefixes_join_threads_by_subject(tmp_path):
    mbox = tmp_path / "lunch.mbox"
    mbox.write_text("\n".join(f"""From ana@example.net Mon Mar  {day} 09:00:00 2026
From: {sender}
To: {to}
Subject: {subject}
Message-ID: <{day}@example.net>
Date: Mon, {day} Mar 2026 09:00:00 +0000

Obiad?
""" for day, sender, to, subject in [(2, "ana@example.net", "mei@example.tw", "Obiad w piątek"),
                                     (3, "mei@example.tw", "ana@example.net", "Odp: Obiad w piątek")]))
    keyed = run("participant-hash", "--me", "mei@example.tw", input=run("mime-parse", mbox).stdout).stdout
    config = tmp_path / "config"
    (config / "mailpipe").mkdir(parents=True)

    def threads():
        r = subprocess.run([str(BIN / "conversation-group"), "--by", "thread", "--subject-fallback"], input=keyed,
                           capture_output=True, env=dict(ENV, XDG_CONFIG_HOME=str(config)))
        return r.returncode, r.stderr, [c["message_count"] for c in records(r.stdout)]

    assert threads() == (0, b"", [1, 1])
    prefixes = config / "mailpipe" / "subject-prefixes.json"
    prefixes.write_text(json.dumps({"reply": ["ODP"]}))  # Polish mail programs' reply
    assert threads() == (0, b"", [2])
    prefixes.write_text(json.dumps({"reply": ["Odp:"]}))
    status, errors, _ = threads()
    assert status == 65 and f"conversation-group: {prefixes}: reply: not a word without its colon: 'Odp:'".encode() in errors
