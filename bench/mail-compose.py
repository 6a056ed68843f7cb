"""mail-compose against `notmuch reply` (issue 43): 10,000 replies (every other one to all) to messages of the
generated 48,000-message mailbox (../shared/gen, SIZE 1g by default), in one run:
1. mail-compose, one process for the 10,000 requests, the originals read from a mailstore database of the mailbox
   (live.py's records, mbox-to-conversations' messages.jsonl, added to a new store): the time per message.
2. `notmuch reply` of each of the 10,000 (a process per message: notmuch has no other way) on a notmuch database of
   the same mailbox, and mail-compose one process per request, as an application that answers one message at a
   time runs it, on SAMPLE of them, each just before notmuch's of the same message so that load from elsewhere
   falls on both: the median, 90th and 99th percentile per message.
The ratios are notmuch's median time over mail-compose's (on the same SAMPLE messages for the process per reply).
    .venv/bin/python bench/mail-compose.py [SIZE]
The binaries are taken from $MAILPIPE_BIN (default .build/release). The mailbox, its records, its maildir and its
notmuch database are .bench-data/'s (made by live.py and mailstore.py, or here when missing, and kept); the store
is made again each run, in a temporary folder."""
import json
import os
import pathlib
import random
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))
from mailstore import BIN, COUNT, GEN, fail, maildir, mailbox, notmuch_new, percentile, run, warm  # noqa: E402
from live import ME, ZONE, conversations  # noqa: E402

REPLIES = 10_000
SAMPLE = 500
NOW = "2026-06-01T00:00:00Z"


def chosen(records):
    """REPLIES messages of the mailbox that have a Message-ID (notmuch names the others by a hash of their file),
    the same each run: their ids."""
    ids = []
    with open(records, "rb") as f:
        for line in f:
            r = json.loads(line)
            if r.get("message_id"):
                ids.append(r["id"])
    return random.Random(43).sample(ids, REPLIES)


def timed(cmd, **kwargs):
    """A process's result, its wall seconds and its CPU seconds (user and system): the CPU is less disturbed by load
    from elsewhere on a shared machine."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    r = subprocess.run([str(c) for c in cmd], **kwargs)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r, wall, after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime


def ms(seconds):
    return f"{seconds * 1000:.2f}"


def requests(ids):
    return [json.dumps({"reply": i, "all": k % 2 == 1, "text": "Thanks, see you then."}) + "\n" for k, i in enumerate(ids)]


def notmuch_database(size, mbox, scratch):
    """The mailbox's maildir and notmuch database (made once by `notmuch new`, kept in .bench-data/ as live.py keeps
    it), with a configuration of our own that names the owner."""
    folder, _ = maildir(size, mbox)
    db = folder.parent / f"{size}.notmuch"
    config = scratch / "notmuch-config"
    config.write_text(f"[database]\npath={db.resolve()}\nmail_root={folder.resolve()}\nhook_dir={scratch / 'no-hooks'}\n"
                      f"[new]\ntags=unread;inbox;\nignore=\n[search]\nexclude_tags=\n[maildir]\nsynchronize_flags=true\n"
                      f"[user]\nname=\nprimary_email={ME}\nother_email=\n")
    env = dict(os.environ, NOTMUCH_CONFIG=str(config))
    if not (db / ".notmuch" / "xapian").exists() and not (db / "xapian").exists():
        print(f"notmuch new on {folder} (once, many minutes)...", file=sys.stderr)
        notmuch_new(db, env, folder)
    return env


def main():
    size = sys.argv[1] if len(sys.argv) > 1 else "1g"
    if size not in COUNT:
        fail(f"SIZE is one of {', '.join(COUNT)}, not {size!r}")
    if not GEN.exists():
        fail(f"needs the mailbox generator {GEN} (the shared checkout beside this one: ../shared/gen/gen_mbox.py)")
    if not shutil.which("notmuch"):
        fail("needs notmuch (scripts/install-deps --bench installs it)")
    mbox = mailbox(size)
    work = conversations(size, mbox)
    scratch = pathlib.Path(tempfile.mkdtemp(prefix="mailpipe-compose-"))
    try:
        db = scratch / "mail.db"
        print(f"adding {work / 'messages.jsonl'} to a new store...", file=sys.stderr)
        run([BIN / "mailstore", "add", "-q", "--me", ME, db, work / "messages.jsonl"])
        env = notmuch_database(size, mbox, scratch)
        ids = chosen(work / "messages.jsonl")
        lines = requests(ids)
        compose = [BIN / "mail-compose", "--store", db, "--me", ME, "--zone", ZONE, "--now", NOW]
        print(f"(binaries from {BIN}; load average {os.getloadavg()[0]:.2f} at the start)")

        # 1. one process for every request, best of 3
        all_requests = scratch / "requests.jsonl"
        all_requests.write_text("".join(lines))
        warm(db)
        batch = []
        for _ in range(3):
            with open(all_requests, "rb") as stdin, open(scratch / "out.mbox", "wb") as out:
                r, wall, cpu = timed(compose + ["--mbox"], stdin=stdin, stdout=out, stderr=subprocess.PIPE)
                batch.append((wall, cpu))
            if r.returncode != 0:
                fail(f"mail-compose exited {r.returncode}: {r.stderr.decode(errors='replace')[-500:]}")
        written = (scratch / "out.mbox").read_bytes().count(b"\nFrom MAILER-DAEMON ") + 1
        if written != REPLIES:
            fail(f"mail-compose wrote {written} messages for {REPLIES} requests")

        # 2. notmuch reply of every message, a process each; mail-compose a process per request on every
        # (REPLIES / SAMPLE)th, just before notmuch's of the same message
        ours, theirs, theirs_sampled = [], [], []
        step = REPLIES // SAMPLE
        for k in range(REPLIES):
            if k % step == 0:
                r, wall, cpu = timed(compose, input=lines[k].encode(), capture_output=True)
                ours.append((wall, cpu))
                if r.returncode != 0 or not r.stdout:
                    fail(f"mail-compose exited {r.returncode} on {lines[k]!r}: {r.stderr.decode(errors='replace')[-300:]}")
            query = 'id:"' + ids[k].replace('"', '""') + '"'
            r, wall, cpu = timed(["notmuch", "reply", f"--reply-to={'all' if k % 2 else 'sender'}", query], env=env,
                                 capture_output=True)
            theirs.append((wall, cpu))
            if k % step == 0:
                theirs_sampled.append(theirs[-1])
            if r.returncode != 0 or not r.stdout:
                fail(f"notmuch reply exited {r.returncode} on {query}: {r.stderr.decode(errors='replace')[-300:]}")
    finally:
        shutil.rmtree(scratch, ignore_errors=True)

    def median(times, which):
        return statistics.median(t[which] for t in times)

    best = min(batch)
    one = [(best[0] / REPLIES, best[1] / REPLIES)]
    print(f"== {REPLIES} replies to messages of a {COUNT[size]}-message store; ms per message ==")
    print(f"{'':50} {'median':>7} {'p90':>7} {'p99':>7} {'CPU':>7}   notmuch's median over it: wall, CPU")
    rows = [(f"mail-compose, one process for all {REPLIES} (best of 3)", one, theirs),
            (f"mail-compose, a process per reply ({len(ours)})", ours, theirs_sampled),
            (f"notmuch reply, the same {len(theirs_sampled)}", theirs_sampled, theirs_sampled),
            (f"notmuch reply, all {len(theirs)}", theirs, theirs)]
    for name, times, anchor in rows:
        walls = [t[0] for t in times]
        spread = f"{ms(percentile(walls, 90)):>7} {ms(percentile(walls, 99)):>7}" if len(times) > 1 else f"{'':>7} {'':>7}"
        print(f"{name:50} {ms(median(times, 0)):>7} {spread} {ms(median(times, 1)):>7}   "
              f"{median(anchor, 0) / median(times, 0):7.2f}x {median(anchor, 1) / median(times, 1):7.2f}x")
    print(f"(the {REPLIES} in one process: {best[0]:.2f} s, {best[1]:.2f} s of CPU; runs "
          f"{', '.join(f'{t:.2f}' for t, _ in batch)}; load average at the end {os.getloadavg()[0]:.2f})")


if __name__ == "__main__":
    main()
