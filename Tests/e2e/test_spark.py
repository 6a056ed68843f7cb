"""The Spark job (pipelines/spark/conversations.py) in local mode: the same filters on each
partition with RDD.pipe, conversations grouped by Spark, and the same messages and
conversations, byte for byte, as the single-machine pipeline."""
import os
import shutil
import subprocess
import sys

import pytest

from conftest import ENV, ROOT, SAMPLE, need_shared, records

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


def test_receipts_bounces_auto_replies_and_drafts_give_the_same_conversations(tmp_path):
    """../shared/gen's reports (2,000 messages, a fifth of them receipts, bounces, auto-replies,
    drafts and bad dates): each report is brought to its message's partition, each auto-reply
    after the message it answers, as the single pipeline places them."""
    mbox = tmp_path / "r.mbox"
    subprocess.run([sys.executable, str(need_shared("gen/gen_mbox.py")), "--messages", "2000", "--seed", "32",
                    "--reports-rate", "0.2", "--out", str(mbox)], check=True, capture_output=True)
    spark, single = both(tmp_path, mbox, "meiling.chen@gmail.com", partitions=3)
    conversations = records(single[1])
    assert sum(len(c["reports"]) for c in conversations) > 100
    assert spark == single


def test_me_is_required(tmp_path):
    r = subprocess.run([sys.executable, str(JOB), str(SAMPLE)], capture_output=True, env=ENV)
    assert r.returncode == 2 and b"--me" in r.stderr
