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
