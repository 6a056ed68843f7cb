"""Two builds of mailstore on the same records, in turns (each step by one build, then by the other, their order
swapped each round, so that a spell of load from elsewhere falls on both): the records loaded into a new store;
each of 30 new records added alone to a copy of it; labels changed in bulk (UNREAD taken off every unread message,
then put back) and on one conversation (archived, then back in the inbox); bench/mailstore.py's searches, each the
best of 3. Each build's median over the rounds. For a change to the store whose cost must be told from the
machine's drift (up to 40% here).
    .venv/bin/python bench/store-ab.py [--size 200m] [--rounds 3] OLD_MAILSTORE NEW_MAILSTORE
The records are bench/mailstore.py's (.bench-data/SIZE.mailstore.jsonl, and its 30 new messages), made with the
filters of $MAILPIPE_BIN (default .build/release); each build loads its own store, so either may have a schema the
other cannot open."""
import argparse
import contextlib
import pathlib
import shutil
import sqlite3
import statistics
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))
from mailstore import (build_queries, fresh, mailbox, messages_for_queries, ms, new_messages, percentile, records,  # noqa: E402
                       timed, timed_cpu, warm)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--size", default="200m")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("old")
    parser.add_argument("new")
    options = parser.parse_args()
    recs, me = records(options.size, mailbox(options.size))
    new_records, _ = new_messages(options.size, me)
    me_args = [a for m in me for a in ("--me", m)]
    scratch = pathlib.Path(tempfile.mkdtemp(prefix="mailstore-ab-", dir=ROOT / ".bench-data"))
    builds = {"old": pathlib.Path(options.old).resolve(), "new": pathlib.Path(options.new).resolve()}
    results = {name: {} for name in builds}

    def note(name, step, value):
        results[name].setdefault(step, []).append(value)

    try:
        files = []
        for k, line in enumerate(new_records):
            files.append(scratch / f"new-{k:02d}.jsonl")
            files[-1].write_bytes(line)
        queries = None
        for round in range(options.rounds):
            order = list(builds) if round % 2 == 0 else list(reversed(builds))
            dbs = {name: scratch / f"{name}.db" for name in builds}
            for name in order:
                fresh(dbs[name])
                warm(recs)
                wall, cpu = timed_cpu([builds[name], "add", "-q", *me_args, dbs[name], recs])
                note(name, "load: wall s", wall)
                note(name, "load: CPU s", cpu)
            for name in order:
                copy = scratch / f"{name}.copy.db"
                fresh(copy)
                shutil.copyfile(dbs[name], copy)
                warm(copy)
                note(name, "one record added: median ms", statistics.median(timed([builds[name], "add", "-q", copy, f]) for f in files) * 1000)
                fresh(copy)
            # closed at once: a reader left open would spare that build's writers the checkpoint at their close
            with contextlib.closing(sqlite3.connect(f"file:{dbs['old']}?mode=ro", uri=True)) as con:
                unread = con.execute("SELECT count(*) FROM message_labels WHERE label = 'UNREAD'").fetchone()[0]
                conversation, size = con.execute("SELECT id, message_count FROM conversations WHERE kind = 'people' "
                                                 "ORDER BY message_count DESC LIMIT 1").fetchone()
            for name in order:
                program, db = builds[name], dbs[name]
                note(name, f"UNREAD off {unread} messages: ms", timed([program, "label", db, "-UNREAD", "+Seen", "--", "is:unread"]) * 1000)
                note(name, f"UNREAD back on them: ms", timed([program, "label", db, "+UNREAD", "-Seen", "--", "label:seen"]) * 1000)
                for _ in range(3):
                    note(name, f"a chat of {size} archived: ms", timed([program, "label", db, "-INBOX", "--", f"conversation:{conversation}"]) * 1000)
                    note(name, f"and back in the inbox: ms", timed([program, "label", db, "+INBOX", "--", f"conversation:{conversation}"]) * 1000)
            if queries is None:
                queries = [q.ours for q in build_queries(messages_for_queries(dbs["old"]), me)]
            for name in order:
                times = [min(timed([builds[name], "search", "--output", "ids", dbs[name], q]) for _ in range(3)) for q in queries]
                note(name, f"{len(queries)} searches: median ms", statistics.median(times) * 1000)
                note(name, f"{len(queries)} searches: p99 ms", percentile(times, 99) * 1000)
            print(f"round {round + 1} of {options.rounds} done", file=sys.stderr)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    print(f"old: {builds['old']}\nnew: {builds['new']}\n{options.size}, {options.rounds} rounds in turns; each build's median "
          f"(and its rounds)")
    for step in results["old"]:
        o, n = (results[name][step] for name in builds)
        mo, mn = statistics.median(o), statistics.median(n)
        rounds = lambda v: " ".join(f"{x:.2f}" if "s" == step[-1] else f"{x:.1f}" for x in v)
        print(f"{step:40} old {mo:9.2f}  new {mn:9.2f}  {(mn / mo - 1) * 100:+6.1f}%   (old {rounds(o)}; new {rounds(n)})")


if __name__ == "__main__":
    main()
