"""The Spark job (pipelines/spark/conversations.py) in local mode: the same filters on each
partition with RDD.pipe, conversations grouped by Spark, and the same messages and
conversations, byte for byte, as the single-machine pipeline."""
import os
import shutil
import subprocess
import sys

import pytest

from conftest import ENV, ROOT, SAMPLE, records

JOB = ROOT / "pipelines" / "spark" / "conversations.py"
SCRIPT = ROOT / "pipelines" / "mbox-to-conversations"

try:
    import pyspark  # noqa: F401
    HAVE_SPARK = shutil.which("java") is not None
except ImportError:
    HAVE_SPARK = False
pytestmark = pytest.mark.skipif(not HAVE_SPARK and not os.environ.get("CI"),
                                reason="PySpark or Java is not installed (scripts/install-deps --test)")


def both(tmp_path, mailbox, me, partitions):
    """(messages, conversations) from Spark and from mbox-to-conversations."""
    spark, single = tmp_path / "spark", tmp_path / "single"
    r = subprocess.run([sys.executable, str(JOB), "--master", "local[2]", "--partitions", str(partitions),
                        "--me", me, "--out", str(spark), str(mailbox)],
                       capture_output=True, timeout=600, env=ENV)
    assert r.returncode == 0, r.stderr.decode()[-3000:]
    r = subprocess.run([str(SCRIPT), "--me", me, "--out", str(single), str(mailbox)],
                       capture_output=True, timeout=300, env=ENV)
    assert r.returncode == 0, r.stderr.decode()
    read = lambda d: ((d / "messages.jsonl").read_bytes(), (d / "conversations.jsonl").read_bytes())
    return read(spark), read(single)


def test_sample_mailbox_gives_the_same_conversations(tmp_path):
    spark, single = both(tmp_path, SAMPLE, "mei@example.tw", partitions=3)
    assert len(records(spark[0])) == 19 and len(records(spark[1])) == 12
    assert spark == single


def test_generated_mailbox_gives_the_same_conversations(tmp_path, generated_mbox):
    """2,465 messages in 4 shards, with the repeated messages of a Takeout export: every
    conversation gathered from all partitions, counted once."""
    spark, single = both(tmp_path, generated_mbox[0], "meiling.chen@gmail.com", partitions=4)
    assert len(records(spark[0])) == 2465
    assert spark == single


def test_me_is_required(tmp_path):
    r = subprocess.run([sys.executable, str(JOB), str(SAMPLE)], capture_output=True, env=ENV)
    assert r.returncode == 2 and b"--me" in r.stderr
