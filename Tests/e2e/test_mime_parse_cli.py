"""mime-parse as a Unix tool: inputs, exit statuses, messages, --on-error, SIGPIPE, attachments."""
import json
import os
import signal
import subprocess

import pytest

from conftest import BIN, ENV, ROOT, SAMPLE, records, run

GOOD = b"From: a@x\nSubject: ok\nMessage-ID: <ok@x>\nDate: Mon, 2 Mar 2026 09:14:58 +0800\n\nbody\n"


def test_help_and_version():
    r = run("mime-parse", "--help")
    assert r.returncode == 0
    assert b"Example:" in r.stdout and b"--save-attachments" in r.stdout
    v = run("mime-parse", "--version")
    assert v.returncode == 0 and v.stdout.strip()


def test_usage_error_is_64():
    r = run("mime-parse", "--no-such-option")
    assert r.returncode == 64
    assert b"no-such-option" in r.stderr


def test_reads_stdin_as_one_message():
    r = run("mime-parse", input=GOOD)
    assert r.returncode == 0, r.stderr
    [rec] = records(r.stdout)
    assert rec["subject"] == "ok"
    assert rec["source"] == {"path": "-", "offset": 0, "length": len(GOOD), "format": "eml"}


def test_dash_means_stdin_between_files(tmp_path):
    f = tmp_path / "m.eml"
    f.write_bytes(GOOD.replace(b"ok", b"file"))
    r = run("mime-parse", f, "-", f, input=GOOD)
    assert [x["subject"] for x in records(r.stdout)] == ["file", "ok", "file"]


def test_missing_input_is_66_and_the_rest_still_runs(tmp_path):
    f = tmp_path / "m.eml"
    f.write_bytes(GOOD)
    r = run("mime-parse", tmp_path / "missing.mbox", f)
    assert r.returncode == 66
    assert r.stderr.decode() == f"mime-parse: {tmp_path / 'missing.mbox'}: No such file or directory\n"
    assert len(records(r.stdout)) == 1


def test_directory_that_is_not_a_maildir(tmp_path):
    r = run("mime-parse", tmp_path)
    assert r.returncode == 66
    assert b"not a maildir" in r.stderr


BAD_API = b'{"id":"1","raw":"U3ViamVjdDogb25lCgp4Cg"}\n{not json}\n{"id":"3","raw":"U3ViamVjdDogdGhyZWUKCngK"}\n'


def test_bad_record_is_skipped_reported_and_counted(tmp_path):
    f = tmp_path / "api.jsonl"
    f.write_bytes(BAD_API)
    r = run("mime-parse", f)
    assert r.returncode == 1
    assert [x["subject"] for x in records(r.stdout)] == ["one", "three"]
    lines = r.stderr.decode().splitlines()
    assert lines[0].startswith(f"mime-parse: {f}:2: invalid JSON at byte 2")
    assert lines[-1] == "mime-parse: 1 record skipped"


def test_on_error_pass_keeps_the_record(tmp_path):
    f = tmp_path / "api.jsonl"
    f.write_bytes(BAD_API)
    r = run("mime-parse", "--on-error=pass", f)
    assert r.returncode == 1
    recs = records(r.stdout)
    assert len(recs) == 3
    assert recs[1]["errors"][0].startswith("invalid JSON")
    assert "passed on with errors" in r.stderr.decode()


def test_on_error_fail_stops_with_65(tmp_path):
    f = tmp_path / "api.jsonl"
    f.write_bytes(BAD_API)
    r = run("mime-parse", "--on-error=fail", f)
    assert r.returncode == 65
    assert len(records(r.stdout)) == 1


def test_strict_fails_on_defects():
    broken = b"Content-Type: multipart/mixed; boundary=x\n\n--x\n\nno end\n"
    assert run("mime-parse", input=broken).returncode == 0
    r = run("mime-parse", "--strict", input=broken)
    assert r.returncode == 65
    assert b"missing_end_boundary" in r.stderr


def test_no_progress_line_when_stderr_is_not_a_terminal():
    r = run("mime-parse", SAMPLE)
    assert r.returncode == 0 and r.stderr == b""


def test_sigpipe_ends_quietly(tmp_path):
    big = tmp_path / "big.mbox"
    with open(big, "wb") as f:
        for i in range(20000):
            f.write(b"From a@x Mon Jan  1 00:00:00 2024\nSubject: %d\n\nbody\n\n" % i)
    p1 = subprocess.Popen([str(BIN / "mime-parse"), str(big)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=ENV)
    p2 = subprocess.Popen(["head", "-n", "1"], stdin=p1.stdout, stdout=subprocess.PIPE)
    p1.stdout.close()
    out, _ = p2.communicate(timeout=60)
    err = p1.stderr.read()
    assert p1.wait(timeout=60) == -signal.SIGPIPE
    assert err == b""
    assert json.loads(out)["subject"] == "0"


def test_save_attachments_never_overwrites(tmp_path):
    out = tmp_path / "att"
    r1 = run("mime-parse", "--save-attachments", out, SAMPLE)
    r2 = run("mime-parse", "--save-attachments", out, SAMPLE)
    assert r1.returncode == 0 and r2.returncode == 0
    saved = sorted(p.name for p in out.iterdir())
    invites = ["invite.ics"] + [f"invite ({n}).ics" for n in range(1, 10)]  # five invitations' invite.ics, twice
    assert saved == sorted(["gorge (1).png", "gorge.png", "太魯閣-trail (1).pdf", "太魯閣-trail.pdf"] + invites)
    paths = [a["saved_as"] for rec in records(r2.stdout) for a in rec["attachments"]]
    assert sorted(os.path.basename(p) for p in paths) == sorted(["gorge (1).png", "太魯閣-trail (1).pdf"] + invites[5:])
    assert (out / "gorge.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_maildir_on_the_command_line(tmp_path):
    for sub in ("cur", "new", "tmp"):
        (tmp_path / sub).mkdir()
    (tmp_path / "new" / "1.host").write_bytes(GOOD)
    r = run("mime-parse", tmp_path)
    assert r.returncode == 0
    [rec] = records(r.stdout)
    assert rec["labels"] == ["UNREAD"]
    assert rec["source"]["format"] == "maildir"


def test_sample_mailbox():
    r = run("mime-parse", SAMPLE)
    recs = records(r.stdout)
    assert len(recs) == 19
    assert all(rec["defects"] == [] for rec in recs)
    by_id = {rec["id"]: rec for rec in recs}
    assert by_id["ship-0005@shop.example.tw"]["subject"] == "您的訂單已出貨"
    assert "黑貓宅急便" in by_id["ship-0005@shop.example.tw"]["text"]
    assert by_id["daisuke-0008@example.jp"]["from"] == {"name": "佐藤大輔", "address": "daisuke@example.jp"}
    assert "“The Glass Orchard”" in by_id["20260304000002.12345@mail.bookshelf.example"]["html"]
    assert by_id["CAF1-alex-0001@mail.example.com"]["text"].count("\n") == 8  # the From line stayed in
    assert by_id["jordan-0003@example.org"]["cc"] == [{"name": "Sato, Hana", "address": "hana.sato@example.jp"}, {"name": "ليلى حداد", "address": "layla.haddad@example.ae"}]


def test_progress_line_on_a_terminal(tmp_path):
    """With stderr on a terminal and a regular file as input, a progress line is drawn (and
    cleared); the records on stdout are unaffected."""
    import pty
    big = tmp_path / "p.mbox"
    with open(big, "wb") as f:
        for i in range(200):
            f.write(b"From a@x Mon Jan  1 00:00:00 2024\nSubject: %d\n\nbody\n\n" % i)
    master, slave = pty.openpty()
    p = subprocess.Popen([str(BIN / "mime-parse"), str(big)], stdout=subprocess.PIPE, stderr=slave, env=ENV)
    os.close(slave)
    out, _ = p.communicate(timeout=60)
    err = b""
    while True:
        try:
            chunk = os.read(master, 4096)
        except OSError:
            break
        if not chunk:
            break
        err += chunk
    os.close(master)
    assert p.returncode == 0
    assert len(out.splitlines()) == 200
    assert b"\r" in err and b"messages" in err and b"/s" in err
    assert err.endswith(b"\r\x1b[K")  # cleared at the end


def test_no_progress_flag_silences_the_terminal(tmp_path):
    import pty
    master, slave = pty.openpty()
    p = subprocess.Popen([str(BIN / "mime-parse"), "--no-progress", str(SAMPLE)], stdout=subprocess.PIPE, stderr=slave, env=ENV)
    os.close(slave)
    p.communicate(timeout=60)
    os.set_blocking(master, False)
    try:
        err = os.read(master, 4096)
    except OSError:
        err = b""
    os.close(master)
    assert err == b""


def test_write_error_is_74():
    with open("/dev/full", "wb") as full:
        r = subprocess.run([str(BIN / "mime-parse"), str(SAMPLE)], stdout=full, stderr=subprocess.PIPE, env=ENV, timeout=60)
    assert r.returncode == 74
    assert r.stderr.decode().startswith("mime-parse: write error: No space left on device")


def test_format_forces_the_reader(tmp_path):
    f = tmp_path / "looks-like-mbox.eml"
    f.write_bytes(b"From a@x Mon Jan  1 00:00:00 2024\nSubject: one\n\nFrom b@x Mon Jan  1 00:00:00 2024\nSubject: two\n\n")
    assert len(records(run("mime-parse", f).stdout)) == 2
    forced = records(run("mime-parse", "--format", "eml", f).stdout)
    assert len(forced) == 1 and forced[0]["source"]["format"] == "eml"
    bad = run("mime-parse", "--format", "pdf", f)
    assert bad.returncode == 64


def test_line_buffered_output_reaches_a_pipe_at_once(tmp_path):
    """With --line-buffered each record is written as soon as it is made: read the first line
    while mime-parse still waits for more input."""
    p = subprocess.Popen([str(BIN / "mime-parse"), "--line-buffered", "--format", "gmail-api"],
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=ENV)
    p.stdin.write(b'{"id":"1","raw":"U3ViamVjdDogb25lCgp4Cg"}\n')
    p.stdin.flush()
    line = p.stdout.readline()
    assert json.loads(line)["subject"] == "one"
    p.stdin.close()
    p.wait(timeout=60)


@pytest.mark.parametrize("empty", [b"", b"\n\n", b"\r\n \t\r\n"])
def test_an_empty_input_is_no_message(tmp_path, empty):
    """Nothing on stdin (procmail handing over nothing) or an empty file: no record, the
    reason on stderr, exit 65; the other inputs of the run are still read."""
    r = run("mime-parse", input=empty)
    assert (r.returncode, r.stdout, r.stderr) == (65, b"", b"mime-parse: -: empty input, no message\n")
    f = tmp_path / "empty.eml"
    f.write_bytes(empty)
    r = run("mime-parse", f, SAMPLE)
    assert r.returncode == 65 and r.stderr == f"mime-parse: {f}: empty input, no message\n".encode()
    assert len(records(r.stdout)) == 19


def test_mailpipe_log_refuses_an_empty_message_for_good(tmp_path):
    """For the delivery hook an empty message is bad data (65), not a failure to retry (75)."""
    log = tmp_path / "log.jsonl"
    r = subprocess.run([str(ROOT / "pipelines" / "mailpipe-log"), str(log)], input=b"", capture_output=True,
                       env=dict(ENV, PATH=f"{BIN}:{ENV['PATH']}", HOME=str(tmp_path)), timeout=60)
    assert r.returncode == 65 and b"empty message" in r.stderr
    assert not log.exists() or log.read_bytes() == b""
