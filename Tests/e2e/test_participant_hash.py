"""participant-hash as a user runs it: who-am-I options, keys on real pipelines, bad lines."""
import hashlib
import json

import pytest

from conftest import SAMPLE, check_bad_lines, generate_mailbox, gmail_canonical, records, run


@pytest.fixture(scope="module")
def sample_records():
    return run("mime-parse", SAMPLE).stdout


def test_without_me_it_refuses_to_guess(sample_records):
    r = run("participant-hash", input=sample_records)
    assert r.returncode == 64
    assert b"--me ADDR, --me-file FILE or --me-auto" in r.stderr
    assert r.stdout == b""


def test_missing_me_file_is_66(tmp_path, sample_records):
    r = run("participant-hash", "--me-file", tmp_path / "nope", input=sample_records)
    assert r.returncode == 66
    assert f"participant-hash: {tmp_path / 'nope'}: No such file or directory".encode() in r.stderr


def test_keys_on_the_sample(sample_records, tmp_path):
    me_file = tmp_path / "me"
    me_file.write_text("# me\nMei@Example.TW\n")
    by_me = records(run("participant-hash", "--me", "mei@example.tw", input=sample_records).stdout)
    by_file = records(run("participant-hash", "--me-file", me_file, input=sample_records).stdout)
    auto = run("participant-hash", "--me-auto", input=sample_records)
    assert auto.stderr.decode().startswith("participant-hash: --me-auto: you are mei@example.tw")
    assert by_me == by_file == records(auto.stdout)
    subjects = {r["subject"]: r for r in by_me}
    dinner, reply = subjects["Dinner on Friday?"], subjects["Re: Dinner on Friday?"]
    assert dinner["participants"] == ["alex.rivera@example.com"]
    assert dinner["participant_hash"] == reply["participant_hash"] == hashlib.sha256(b"alex.rivera@example.com").hexdigest()
    assert reply["from_me"] and not dinner["from_me"]
    trip = subjects["Trip photos 📷"]
    assert trip["is_group"] and trip["conversation_key"] == "alex.rivera@example.com,hana.sato@example.jp,jordan@example.org,layla.haddad@example.ae"
    assert subjects["[swift-dev] Streaming JSON Lines in Swift"]["participants"] == ["swift-dev@lists.example.org"]


def test_fields_are_replaced_not_repeated(sample_records):
    once = run("participant-hash", "--me", "mei@example.tw", input=sample_records).stdout
    twice = run("participant-hash", "--me", "mei@example.tw", input=once).stdout
    assert once == twice
    first = json.loads(once.splitlines()[0])
    assert list(first).count("participants") == 1


def test_bad_lines_keep_their_place_and_are_counted():
    check_bad_lines("participant-hash", "--me", "mei@example.tw", bad_record=b'{"subject":"no addresses"}',
                    bad_record_error="the record has no from, to or cc (is it a mime-parse record?)")


def test_agrees_with_the_generated_mailboxs_truth(tmp_path):
    mbox, truth = generate_mailbox(tmp_path, 600, 7)
    parsed = run("mime-parse", mbox).stdout
    r = run("participant-hash", "--me-auto", input=parsed)
    owner = gmail_canonical("meiling.chen@gmail.com")  # Gmail's dots are folded by default
    assert f"you are {owner}".encode() in r.stderr
    out = records(r.stdout)
    expected = [json.loads(line) for line in truth.read_text().splitlines()]
    assert len(out) == len(expected) == 600
    for got, t in zip(out, expected):
        if t["kind"] == "forum":  # a forum post is in the list's conversation
            assert len(got["participants"]) == 1 and got["participants"][0] != gmail_canonical(t["from"]), t
            assert got["participants"][0] in [gmail_canonical(p) for p in t["participants"]], t
        else:
            assert got["participants"] == (sorted({gmail_canonical(p) for p in t["participants"]} - {owner}) or [owner]), t
