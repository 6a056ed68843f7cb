"""Shared helpers for the end-to-end tests: they run the release binaries as a user would."""
import collections
import json
import os
import pathlib
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
BIN = ROOT / ".build" / "release"
SHARED = ROOT.parent / "shared"
CORPUS = SHARED / "corpus"
SAMPLE = ROOT / "samples" / "sample.mbox"
ENV = dict(os.environ, SWIFT_BACKTRACE="enable=no")

# The external corpora in ../shared (beside the checkout, not in the repository) are optional: a
# test that reads them is skipped with this reason when they are missing, and the summary counts
# those skips. With MAILPIPE_REQUIRE_SHARED=1 (.ci/run sets it when ../shared is there) a missing
# part of them fails the test instead, so that nothing quietly stops running.
SHARED_MISSING = "optional external corpus missing:"
REQUIRE_SHARED = os.environ.get("MAILPIPE_REQUIRE_SHARED") == "1"


def need_shared(path):
    """../shared/PATH (PATH relative to ../shared, or a path in it), for a test to read; when it
    is missing the test is skipped, or fails under MAILPIPE_REQUIRE_SHARED=1."""
    path = SHARED / path
    if path.exists():
        return path
    where = f"../shared/{path.relative_to(SHARED)}"
    if REQUIRE_SHARED:
        pytest.fail(f"{where} is missing, and MAILPIPE_REQUIRE_SHARED=1 requires every external corpus")
    pytest.skip(f"{SHARED_MISSING} {where} (a folder named shared beside the checkout; see docs/testing.md)")


def parcel_stories(tmp_path, messages, seed, rate, me=None):
    """../shared/gen's mailbox of `messages` with parcel stories at `rate`, through mime-parse,
    text-extract and carrier-detect (and participant-hash --me ME when given): the records, as
    bytes. The generator's truth is left beside it: p.truth.jsonl and p.truth.parcels.json."""
    mbox = tmp_path / "p.mbox"
    subprocess.run(["python3", str(need_shared("gen/gen_mbox.py")), "--messages", str(messages), "--seed", str(seed),
                    "--parcel-stories-rate", str(rate), "--out", str(mbox), "--truth", str(tmp_path / "p.truth.jsonl")],
                   check=True, capture_output=True)
    data = run("mime-parse", "--no-progress", mbox).stdout
    for stage in ["text-extract", "carrier-detect"] + (["participant-hash --me " + me] if me else []):
        r = run(*stage.split(), "--no-progress", input=data)
        assert r.returncode == 0, r.stderr
        data = r.stdout
    return data


def shared_params(path, make, names=1):
    """parametrize's cases made by make() from ../shared/PATH, or when that is missing one case
    marked to skip as need_shared does (no cases at all would skip with pytest's own reason)."""
    if (SHARED / path).exists():
        return make()
    return [pytest.param(*[None] * names, marks=pytest.mark.shared(path), id="without-shared")]


def pytest_configure(config):
    config.addinivalue_line("markers", "shared(path): the test reads ../shared/PATH, an optional external corpus")


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item):
    """Tests marked shared(path) skip before their fixtures are made."""
    for mark in item.iter_markers("shared"):
        need_shared(mark.args[0])


def pytest_terminal_summary(terminalreporter, config):
    """What was skipped for want of the external corpora, by missing folder, and the count."""
    if config.option.collectonly:
        return
    stats = terminalreporter.stats
    skipped = {r.nodeid: r.longrepr[2] if isinstance(r.longrepr, tuple) else "" for r in stats.get("skipped", [])}
    missing = collections.Counter(reason.split(SHARED_MISSING, 1)[1].split()[0]
                                  for reason in skipped.values() if SHARED_MISSING in reason)
    ran = {r.nodeid for kind in ("passed", "failed", "error", "xfailed", "xpassed") for r in stats.get(kind, [])} - set(skipped)
    write = terminalreporter.write_line
    if missing:
        write(f"Skipped for want of the external corpora at {SHARED} (optional; docs/testing.md says how to add them):")
        width = max(map(len, missing))
        for where, count in sorted(missing.items()):
            write(f"  {where:<{width}}  {count:3} test{'s' if count > 1 else ''}")
    others = len(skipped) - sum(missing.values())
    write(f"{len(ran)} tests ran, {sum(missing.values())} skipped for want of the external corpora"
          + (f", {others} skipped for other reasons" if others else ""))


def run(tool, *args, input=None, timeout=120, env=None):
    """Runs a tool; returns CompletedProcess with bytes stdout/stderr. `env`: more variables."""
    if isinstance(input, str):
        input = input.encode()
    return subprocess.run([str(BIN / tool), *map(str, args)], input=input, capture_output=True,
                          timeout=timeout, env=dict(ENV, **(env or {})))


def gmail_canonical(address):
    """An address (of the generator's truth, say) in the form participant-hash keys it by default
    (issue 47): lowercased, and in gmail.com and googlemail.com without dots or a +tag, in gmail.com."""
    local, _, domain = address.lower().rpartition("@")
    if domain in ("gmail.com", "googlemail.com"):
        if not local.startswith("+"):
            local = local.split("+", 1)[0]
        return local.replace(".", "") + "@gmail.com"
    return address.lower()


def records(stdout):
    return [json.loads(line) for line in stdout.decode().splitlines() if line.strip()]


@pytest.fixture(scope="session")
def corpus():
    return need_shared(CORPUS)


def generate_mailbox(directory, messages, seed):
    """A Takeout-style mailbox from ../shared/gen: (mbox, truth) paths."""
    mbox, truth = directory / "g.mbox", directory / "g.truth.jsonl"
    subprocess.run(["python3", str(need_shared("gen/gen_mbox.py")), "--messages", str(messages), "--seed", str(seed),
                    "--out", str(mbox), "--truth", str(truth)], check=True, capture_output=True)
    return mbox, truth


@pytest.fixture(scope="session")
def generated_mbox(tmp_path_factory):
    """The generated 50 MB Takeout-style mailbox (2,465 messages, seed 1): (mbox, truth) paths."""
    return generate_mailbox(tmp_path_factory.mktemp("generated"), 2465, 1)


@pytest.fixture(scope="session")
def generated(generated_mbox):
    """The generated mailbox parsed by mime-parse, with its truth file: (records as bytes,
    truth as a list of dicts)."""
    mbox, truth = generated_mbox
    parsed = run("mime-parse", "--no-progress", mbox)
    assert parsed.returncode == 0, parsed.stderr
    return parsed.stdout, [json.loads(line) for line in truth.read_text().splitlines()]


def check_bad_lines(tool, *args, bad_record, bad_record_error, bad_json=b"{broken"):
    """The shared convention for lines a filter cannot use: a line that is not JSON and a record
    that lacks the tool's fields, between two good sample records. By default both are skipped
    with `tool: -:N: message` and counted (exit 1); --on-error=pass keeps N lines in, N out;
    --strict stops at the first (exit 65)."""
    good = run("mime-parse", SAMPLE).stdout.splitlines()
    stream = b"\n".join([good[0], bad_json, bad_record, good[1]]) + b"\n"
    r = run(tool, *args, input=stream)
    assert r.returncode == 1
    assert len(records(r.stdout)) == 2
    err = r.stderr.decode().splitlines()
    assert err[0].startswith(f"{tool}: -:2: invalid JSON")
    assert err[1] == f"{tool}: -:3: {bad_record_error}"
    assert err[-1] == f"{tool}: 2 records skipped"
    passed = records(run(tool, *args, "--on-error=pass", input=stream).stdout)
    assert len(passed) == 4
    assert passed[1]["invalid_line"] == bad_json.decode() and passed[2]["errors"] == [bad_record_error]
    strict = run(tool, *args, "--strict", input=stream)
    assert strict.returncode == 65 and len(records(strict.stdout)) == 1


@pytest.fixture(scope="module")
def browser():
    """Headless Chromium and its recording server (browser.py), for html-sanitize's tests."""
    from browser import Browser, chromium_path
    if not chromium_path():
        if os.environ.get("CI"):
            pytest.fail("chromium is missing (scripts/install-deps --test installs it)")
        pytest.skip("chromium is not installed")
    b = Browser()
    yield b
    b.close()


def as_schema_5(db, labels_as_added=None):
    """Turns a mailstore database back into what schema 5 made of the same records and changes:
    each stored record with the labels it was added with (`labels_as_added`, id to labels; else
    those it has now), to test the migration. Returns the connection, its changes not committed."""
    import re
    import sqlite3
    connection = sqlite3.connect(db)
    connection.execute("PRAGMA user_version = 5")
    connection.executescript("DROP TABLE attachments")  # schema 8's
    connection.executescript("DROP TABLE actions; ALTER TABLE messages DROP COLUMN send_state")  # schema 7's
    for rowid, id, record, labels in connection.execute("SELECT rowid, id, record, labels FROM messages").fetchall():
        if labels_as_added is not None and id in labels_as_added:
            labels = json.dumps(labels_as_added[id], ensure_ascii=False, separators=(",", ":"))
        restored, n = re.subn(r'("labels"\s*:\s*)null', lambda m: m.group(1) + labels, record, count=1)
        assert n == 1 or '"labels"' not in record, record
        connection.execute("UPDATE messages SET record = ? WHERE rowid = ?", (restored, rowid))
    return connection


def as_schema_2(db):
    """Turns a mailstore database back into what the landed schema 2 made of the same records
    (no role, answers, from_me or parcels; every message with its own participants; no reports in the
    conversations' records), to test the migration."""
    connection = as_schema_5(db)
    connection.executescript("""
        DROP TABLE parcel_observations;
        DROP TABLE parcels;
        DROP INDEX messages_answering;
        DROP INDEX messages_by_conversation;
        ALTER TABLE messages DROP COLUMN role;
        ALTER TABLE messages DROP COLUMN answers;
        ALTER TABLE messages DROP COLUMN from_me;
        CREATE INDEX messages_by_conversation ON messages(conversation_id, date, id, change);
        UPDATE messages SET summary = json_remove(summary, '$.report', '$.is_draft');
        UPDATE conversations SET record = json_remove(record, '$.reports');
        PRAGMA user_version = 2;
    """)
    for rowid, record in connection.execute("SELECT rowid, record FROM messages").fetchall():
        key = json.loads(record).get("participant_hash")
        if key:
            connection.execute("UPDATE messages SET conversation_id = ? WHERE rowid = ?", (key, rowid))
    connection.commit()
    connection.close()
