"""What every program does the same way, as Unix users expect (mailpipe(7), issue of the shared
conventions): --help with an example, --version, 64 for usage, 66 for a missing input, records
flushed at once with --line-buffered, and a quiet end when the reader goes away."""
import json
import re
import signal
import subprocess

import pytest

from conftest import BIN, ENV, SAMPLE, run

# the per-record filters, with the arguments each needs
FILTERS = {
    "html-sanitize": [],
    "text-extract": [],
    "newsletter-detect": [],
    "carrier-detect": [],
    "participant-hash": ["--me", "mei@example.tw"],
}
PROGRAMS = {"mime-parse": [], **FILTERS, "conversation-group": [], "event-group": [], "parcel-group": [],
            "mail-compose": ["--me", "mei@example.tw"]}


@pytest.fixture(scope="module")
def sample_records():
    return run("mime-parse", SAMPLE).stdout.splitlines()


@pytest.mark.parametrize("tool", PROGRAMS)
def test_help_version_usage_and_missing_input(tool):
    h = run(tool, "--help")
    assert h.returncode == 0 and re.search(rb"\nExamples?:\n  \S", h.stdout) and b"--on-error" in h.stdout
    v = run(tool, "--version")
    assert v.returncode == 0 and v.stdout == run("mime-parse", "--version").stdout
    u = run(tool, *PROGRAMS[tool], "--no-such-option")
    assert u.returncode == 64 and b"no-such-option" in u.stderr
    m = run(tool, *PROGRAMS[tool], "/nonexistent/in.jsonl")
    assert m.returncode == 66
    assert m.stderr.decode().startswith(f"{tool}: /nonexistent/in.jsonl: ")


@pytest.mark.parametrize("tool", FILTERS)
def test_line_buffered_record_goes_out_at_once(tool, sample_records):
    p = subprocess.Popen([str(BIN / tool), *FILTERS[tool], "--line-buffered"],
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=ENV)
    p.stdin.write(sample_records[0] + b"\n")
    p.stdin.flush()
    line = p.stdout.readline()  # would hang if the record waited in a buffer
    assert json.loads(line)["message_id"] == json.loads(sample_records[0])["message_id"]
    p.stdin.close()
    assert p.wait(timeout=60) == 0


@pytest.mark.parametrize("tool", FILTERS)
def test_reader_going_away_ends_quietly(tool, sample_records, tmp_path):
    big = tmp_path / "big.jsonl"
    with open(big, "wb") as f:
        for _ in range(3000):
            f.write(b"\n".join(sample_records) + b"\n")
    p1 = subprocess.Popen([str(BIN / tool), *FILTERS[tool], str(big)], stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, env=ENV)
    p2 = subprocess.Popen(["head", "-n", "1"], stdin=p1.stdout, stdout=subprocess.PIPE)
    p1.stdout.close()
    out, _ = p2.communicate(timeout=60)
    assert json.loads(out)
    assert p1.wait(timeout=60) == -signal.SIGPIPE
    assert p1.stderr.read() == b""


# The input on which the fuzzer found newsletter-detect's second run changing bytes: carriage
# returns inside an object and a tab before a comma, between members a filter leaves alone.
SPACED_RECORD = (b'{"id":"1@x","from":{"name":null,"address":"no-reply@example.org"' + b"\r" * 40 +
                 b'},"l":[]\t,"headers":{"h":240} ,"text":"Your order has shipped" }\n')


# (html-sanitize is not among them: its counts of what it removed differ on a second run)
@pytest.mark.parametrize("tool", [t for t in FILTERS if t != "html-sanitize"] + ["event-extract"])
def test_a_second_run_over_a_filters_own_output_changes_no_byte(tool):
    args = FILTERS.get(tool, [])
    once = subprocess.run([str(BIN / tool), *args], input=SPACED_RECORD, capture_output=True, env=ENV).stdout
    twice = subprocess.run([str(BIN / tool), *args], input=once, capture_output=True, env=ENV).stdout
    assert once.startswith(SPACED_RECORD[:-3]) and twice == once
