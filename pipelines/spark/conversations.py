"""mailpipe on Apache Spark: the same filters, run on each partition with RDD.pipe, and the
conversations grouped by Spark.

    spark-submit pipelines/spark/conversations.py --me ADDR [--partitions N] [--out DIR] MAILBOX...

Each mailbox is read in N shards (mime-parse --shard K/N), one partition each, so the workers
share a big mailbox by byte ranges; every partition then goes through newsletter-detect,
carrier-detect and participant-hash --me. Spark brings each conversation's messages into one
partition (by participant_hash, in mailbox order), where conversation-group --sorted sums them
up, and sorts the conversations newest first, as conversation-group does.
Writes DIR/messages.jsonl and DIR/conversations.jsonl: the same as pipelines/mbox-to-conversations
with the same --me (stages html-sanitize and text-extract run when they are installed).

On a cluster the mailpipe tools must be on every worker's PATH and the mailboxes on a path
every worker can read; in local mode (python3 conversations.py ..., or --master local[N]) the
tools built in this checkout are used.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys

from pyspark import SparkConf, SparkContext
from pyspark.rdd import portable_hash

HERE = os.path.dirname(os.path.abspath(__file__))
BUILT = os.path.normpath(os.path.join(HERE, "..", "..", ".build", "release"))


def arguments(argv):
    p = argparse.ArgumentParser(prog="conversations.py", description=__doc__.split("\n\n")[0])
    p.add_argument("--me", action="append", required=True, help="one of your addresses (repeat for more)")
    p.add_argument("--partitions", type=int, default=0, help="shards per mailbox (default: Spark's parallelism)")
    p.add_argument("--out", default="out", help="folder for messages.jsonl and conversations.jsonl")
    p.add_argument("--master", default=None, help="Spark master (default: spark-submit's, else local[*])")
    p.add_argument("mailbox", nargs="+")
    return p.parse_args(argv)


def main(argv):
    args = arguments(argv)
    path = os.environ.get("PATH", "")
    if os.path.isdir(BUILT):
        path = BUILT + os.pathsep + path
    env = {"PATH": path, "SWIFT_BACKTRACE": "enable=no"}
    os.environ.update(env)
    if shutil.which("mime-parse") is None or shutil.which("mailstore") is None:
        sys.exit("conversations.py: mime-parse or mailstore not found; run make, or put the mailpipe tools on PATH")

    conf = SparkConf().setAppName("mailpipe-conversations")
    if args.master or not conf.contains("spark.master"):
        conf.setMaster(args.master or "local[*]")
    sc = SparkContext(conf=conf)
    sc.setLogLevel("ERROR")
    try:
        run(sc, args, env)
    finally:
        sc.stop()


def run(sc, args, env):
    n = args.partitions or sc.defaultParallelism
    mailboxes = [os.path.abspath(m) for m in args.mailbox]
    shards = [f"{k}/{n}\t{m}" for m in mailboxes for k in range(1, n + 1)]
    # one shard per partition; the shell loop reads "K/N<TAB>path" lines
    parse = "sh -c 'while IFS=\"\t\" read -r shard path; do mime-parse --no-progress --shard \"$shard\" \"$path\" || exit; done'"
    records = sc.parallelize(shards, len(shards)).pipe(parse, env=env, checkCode=True)
    # the per-message stages in the one order every chain runs them
    stages = subprocess.run(["mailstore", "stages"], check=True, capture_output=True, text=True).stdout.split()
    for stage in stages:
        if shutil.which(stage):
            records = records.pipe(stage, env=env, checkCode=True)
    me = " ".join("--me " + shellquote(a) for a in args.me)
    records = records.pipe("participant-hash " + me, env=env, checkCode=True).cache()

    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "messages.jsonl"), "w") as f:
        for line in records.toLocalIterator():
            f.write(line + "\n")

    # Each conversation's messages in one partition, together and in mailbox order
    # (conversation-group --sorted wants them so); then newest first, ties by id. A read receipt
    # or a bounce goes with the message it is about (else with the others whose message is not
    # there, under the empty key), an auto-reply after the message it answers.
    parsed = records.zipWithIndex().map(lambda li: (json.loads(li[0]), li[0], li[1]))
    home = (parsed.filter(lambda t: role(t[0]) is None).map(lambda t: (t[0]["id"], t[0]["participant_hash"]))
            .reduceByKey(lambda a, b: a))
    placed = (parsed.filter(lambda t: answers(t[0]) is not None or role(t[0]) == "report")
              .map(lambda t: (answers(t[0]), t)).leftOuterJoin(home).map(lambda kv: placed_key(kv[1][0], kv[1][1])))
    keyed = parsed.filter(lambda t: answers(t[0]) is None and role(t[0]) != "report") \
        .map(lambda t: ((t[0]["participant_hash"], t[2]), t[1])).union(placed)
    grouped = keyed.repartitionAndSortWithinPartitions(
        numPartitions=max(1, records.getNumPartitions()), partitionFunc=lambda key: portable_hash(key[0]))
    conversations = (grouped.values().pipe("conversation-group --sorted", env=env, checkCode=True)
                     .map(lambda line: (json.loads(line), line))
                     .sortBy(lambda c: (descending(c[0]["last_date"]), c[0]["conversation_id"]))
                     .values())
    with open(os.path.join(args.out, "conversations.jsonl"), "w") as f:
        for line in conversations.toLocalIterator():
            f.write(line + "\n")


def role(record):
    """conversation-group's: a draft is in no conversation, a report is listed with its message."""
    if record.get("is_draft") is True:
        return "draft"
    if isinstance(record.get("report"), dict) and record["report"].get("type"):
        return "report"
    return None


def answers(record):
    """The id of the message whose conversation a report or an auto-reply joins, or None."""
    if role(record) == "report":
        return record["report"].get("original_message_id")
    if role(record) is None and record.get("mail_kind") == "automated":
        return (record.get("in_reply_to") or record.get("references", [])[-1:] or [None])[0]
    return None


def placed_key(t, original_hash):
    record, line, index = t
    if role(record) == "report":
        return (original_hash or "", index), line
    if original_hash is None:
        return (record["participant_hash"], index), line
    return (original_hash, (1 << 62) + index), line  # after every message of its run


def descending(date):
    """An RFC 3339 UTC date as a key that sorts newest first (the dates have one format and
    length, so inverting each character's code inverts their order)."""
    return "".join(chr(0x10FFFF - ord(c)) for c in date or "")


def shellquote(s):
    return "'" + s.replace("'", "'\\''") + "'"


if __name__ == "__main__":
    main(sys.argv[1:])
