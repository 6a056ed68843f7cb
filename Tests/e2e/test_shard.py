"""mime-parse --shard K/N: N processes share one input, and their outputs, one after the other,
are byte for byte the output of one process reading it all: no message lost, none twice."""
import base64
import json

import pytest

from conftest import SAMPLE, records, run

# Everything that makes finding a message boundary from the middle of a file hard: a byte
# order mark and blank lines before the first From_ line, an unquoted "From " line in a body
# (not a message start), a quoted one, a From_ line without a date but with headers after it,
# Mozilla's "From -", CRLF line ends, and a message much longer than a shard.
AWKWARD = (b"\xef\xbb\xbf\n\n"
           b"From alice@example.com Mon Jan  6 04:49:45 2020\n"
           b"From: alice@example.com\nSubject: one\n\nFrom Russia with love\n>From the quoted side\n\n"
           b"From bob@example.com\nFrom: bob@example.com\nSubject: two\n\n" + b"long line\n" * 500 + b"\n"
           b"From -\nFrom: carol@example.com\nSubject: three\n\nFrom here on, at 6:30\n\n"
           b"From dave@example.com Tue Jan  7 10:00:00 2020\r\nFrom: dave@example.com\r\nSubject: four\r\n\r\nbody\r\n")


def sharded(path, n, *args):
    """The N shards' outputs concatenated, and their stderr lines."""
    out, err = b"", []
    for k in range(1, n + 1):
        r = run("mime-parse", "--no-progress", "--shard", f"{k}/{n}", *args, path)
        assert r.returncode in (0, 1), r.stderr
        out += r.stdout
        err += r.stderr.decode().splitlines()
    return out, err


@pytest.mark.parametrize("n", [2, 3, 7, 50, 400])
def test_awkward_mbox_in_shards_is_the_whole(tmp_path, n):
    f = tmp_path / "awkward.mbox"
    f.write_bytes(AWKWARD)
    whole = run("mime-parse", "--no-progress", f).stdout
    assert [r["subject"] for r in records(whole)] == ["one", "two", "three", "four"]
    assert sharded(f, n)[0] == whole


def test_text_before_the_first_message_goes_with_it(tmp_path):
    f = tmp_path / "preamble.mbox"
    f.write_bytes(b"stray text\n" + AWKWARD[5:])
    whole = run("mime-parse", "--no-progress", "--format", "mbox", f).stdout
    assert len(records(whole)) == 5
    for n in (2, 9, 300):
        assert sharded(f, n, "--format", "mbox")[0] == whole


def test_generated_mailbox_in_shards_is_the_whole(generated_mbox, generated):
    mbox, _ = generated_mbox
    assert sharded(mbox, 2)[0] == generated[0]
    assert sharded(mbox, 5)[0] == generated[0]


def test_a_shard_holds_its_part(generated_mbox, generated):
    """Shards split the work, not just the output: each holds roughly its share."""
    mbox, _ = generated_mbox
    counts = [len(records(run("mime-parse", "--shard", f"{k}/4", mbox).stdout)) for k in range(1, 5)]
    total = len(records(generated[0]))
    assert sum(counts) == total
    assert all(c > total / 8 for c in counts), counts


def test_maildir_in_shards(tmp_path):
    md = tmp_path / "md"
    for sub in ("cur", "new", "tmp"):
        (md / sub).mkdir(parents=True)
    for i, rec in enumerate(records(run("mime-parse", SAMPLE).stdout)):
        sub = "cur" if i % 2 else "new"
        name = f"{1700000000 + i}.M{i}.host" + (":2,S" if sub == "cur" else "")
        (md / sub / name).write_bytes(f"From: a{i}@x\nSubject: {rec['subject']}\n\nbody {i}\n".encode())
    whole = run("mime-parse", md).stdout
    assert len(records(whole)) == 19
    for n in (2, 3, 10, 25):
        assert sharded(md, n)[0] == whole


def test_gmail_api_in_shards_keeps_line_numbers(tmp_path):
    messages = SAMPLE.read_bytes().split(b"\nFrom ")
    lines = []
    for i, m in enumerate(messages):
        body = m.split(b"\n", 1)[1]
        lines.append(json.dumps({"id": str(i), "threadId": f"t{i}", "labelIds": ["INBOX"],
                                 "raw": base64.urlsafe_b64encode(body).decode().rstrip("=")}).encode())
    lines.insert(6, b"{not json")
    f = tmp_path / "api.jsonl"
    f.write_bytes(b"\n".join(lines) + b"\n")
    whole = run("mime-parse", "--no-progress", f)
    assert whole.returncode == 1
    assert whole.stderr.decode().splitlines()[0].startswith(f"mime-parse: {f}:7: ")
    for n in (2, 4, 11, 200):
        out, err = sharded(f, n)
        assert out == whole.stdout
        assert [e for e in err if ":7: " in e] == whole.stderr.decode().splitlines()[:1]


def test_one_message_belongs_to_the_first_shard(tmp_path):
    f = tmp_path / "one.eml"
    f.write_bytes(b"From: a@x\nSubject: only\n\nbody\n")
    assert len(records(run("mime-parse", "--shard", "1/3", f).stdout)) == 1
    assert run("mime-parse", "--shard", "2/3", f).stdout == b""


def test_shard_needs_a_file_and_a_sane_k_of_n(tmp_path):
    r = run("mime-parse", "--shard", "1/2", input=AWKWARD)
    assert r.returncode == 64
    assert r.stderr.decode().startswith("mime-parse: -: cannot be read in shards: not a regular file")
    for bad in ("0/2", "3/2", "2", "a/b", "1/0"):
        assert run("mime-parse", "--shard", bad, SAMPLE).returncode == 64, bad
    f = tmp_path / "cl.mbox"
    f.write_bytes(AWKWARD)
    r = run("mime-parse", "--format", "mboxcl2", "--shard", "1/2", f)
    assert r.returncode == 64 and b"Content-Length" in r.stderr
