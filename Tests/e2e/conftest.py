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


@pytest.fixture(scope="session")
def generated(tmp_path_factory):
    """The generated 50 MB Takeout-style mailbox (2,465 messages, seed 1) parsed by mime-parse,
    with its truth file: (records as bytes, truth as a list of dicts)."""
    import subprocess
    d = tmp_path_factory.mktemp("generated")
    mbox, truth = d / "g.mbox", d / "g.truth.jsonl"
    subprocess.run(["python3", str(SHARED / "gen" / "gen_mbox.py"), "--messages", "2465", "--seed", "1",
                    "--out", str(mbox), "--truth", str(truth)], check=True, capture_output=True)
    parsed = run("mime-parse", "--no-progress", mbox)
    assert parsed.returncode == 0, parsed.stderr
    return parsed.stdout, [json.loads(line) for line in truth.read_text().splitlines()]
