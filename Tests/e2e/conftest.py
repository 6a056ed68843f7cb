"""Shared helpers for the end-to-end tests: they run the release binaries as a user would."""
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


def run(tool, *args, input=None, timeout=120):
    """Runs a tool; returns CompletedProcess with bytes stdout/stderr."""
    if isinstance(input, str):
        input = input.encode()
    return subprocess.run([str(BIN / tool), *map(str, args)], input=input, capture_output=True,
                          timeout=timeout, env=ENV)


def records(stdout):
    return [json.loads(line) for line in stdout.decode().splitlines() if line.strip()]


@pytest.fixture(scope="session")
def corpus():
    if not CORPUS.is_dir():
        pytest.fail(f"the shared corpus is missing at {CORPUS}")
    return CORPUS


def generate_mailbox(directory, messages, seed):
    """A Takeout-style mailbox from ../shared/gen: (mbox, truth) paths."""
    mbox, truth = directory / "g.mbox", directory / "g.truth.jsonl"
    subprocess.run(["python3", str(SHARED / "gen" / "gen_mbox.py"), "--messages", str(messages), "--seed", str(seed),
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
