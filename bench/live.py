"""The live path (mailpipe-log, the mailstore database, chat-render --store) on the generated mailboxes
(../shared/gen; SIZES 200m and 1g by default: 9,860 and 48,000 messages), in one run:
1. the first render of the site from the store (what mailpipe-site does when the site is new) against today's
   chat-render of the same conversations from files (mbox-to-conversations' messages.jsonl and
   conversations.jsonl), taken in turns, into tmpfs when there is one; the two sites are compared file by file.
   Target: no slower than chat-render from files.
2. one delivery: DELIVERIES new messages (gen_mbox.py --seed 7, Message-IDs made new), each handed as raw mail to
   `mailpipe-log --site` as procmail's recipes run it (one process: the stages, the journal, the database, then
   the pages of what changed), timed from its start to the pages written, into the store and site of part 1, each
   dated as it arrives (after the mailbox's last message). Target: median under 25 ms and 99th percentile under
   60 ms at 48,000 messages, the same within noise at 9,860. Beside it, the anchor: `notmuch insert` of the same
   messages into a notmuch database of the same mailbox (made once, kept in .bench-data/). The same messages dated
   at the mailbox's start are timed too: a message that old renders every list page from the oldest again, the
   most one delivery can cost.
    .venv/bin/python bench/live.py [SIZE...]
The binaries are taken from $MAILPIPE_BIN (default .build/release): build them as `make build` does (Swift's
libraries linked in, as installed), since a delivery starts a dozen processes. The mailbox and the pipeline's
output stay in .bench-data/ for the next run (remove SIZE.live/ after a filter gains fields)."""
import filecmp
import os
import pathlib
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))
from mailstore import (BIN, COUNT, DATA, GEN, fail, maildir, mailbox, ms, notmuch_config, notmuch_new,  # noqa: E402
                       percentile, run, split_mbox, timed_cpu, warm)

ME = "meiling.chen@gmail.com"
ZONE = "Asia/Taipei"
NOW = "2026-06-01T00:00:00Z"
DELIVERIES = 100
TURNS = 3


def conversations(size, mbox):
    """mbox-to-conversations' output for the mailbox: messages.jsonl, conversations.jsonl and
    parcels.jsonl (parcel-group's, made here for an output of before it)."""
    out = DATA / f"{size}.live"
    if not (out / "conversations.jsonl").exists():
        print(f"running mbox-to-conversations on {mbox} into {out}...", file=sys.stderr)
        run([ROOT / "pipelines" / "mbox-to-conversations", "--me", ME, "--zone", ZONE, "--out", out, mbox],
            env=dict(os.environ, PATH=f"{BIN}:{os.environ['PATH']}"))
    if not (out / "parcels.jsonl").exists():
        with open(out / "messages.jsonl", "rb") as messages, open(out / "parcels.jsonl", "wb") as parcels:
            subprocess.run([BIN / "parcel-group", "--no-progress"], stdin=messages, stdout=parcels, check=True)
    return out


def generated_mail():
    """DELIVERIES raw messages of another seed, as a delivery agent hands them over."""
    mbox = DATA / f"live-new-{DELIVERIES}.mbox"
    if not mbox.exists():
        run(["python3", GEN, "--messages", DELIVERIES, "--seed", "7", "--events-rate", "0.2", "--out", mbox])
        raw = mbox.read_bytes()  # bytes: the generated mail has charsets other than UTF-8
        mbox.write_bytes(raw.replace(b"Message-ID: <", b"Message-ID: <live-new-").replace(b"Message-Id: <", b"Message-Id: <live-new-"))
    return list(split_mbox(mbox))


def new_mail():
    """The messages dated as they arrive, after every message of the mailbox (the generator dates its mail from its
    mailbox's first day): the Date header and the newest Received header's date, which mime-parse takes for the
    delivery (a Date more than a day after it is not believed)."""
    def arriving(raw, k):
        head, sep, body = raw.partition(b"\n\n")
        date = f"Sun, 31 May 2026 {22 + k // 60}:{k % 60:02d}:00 +0000".encode()
        head = re.sub(rb"(?im)^Date:[^\n]*(\n[ \t][^\n]*)*", b"Date: " + date, head, count=1)
        head = re.sub(rb"(?im)^(Received:[^\n]*(?:\n[ \t][^\n]*)*;)[^;]*?(?=\n(?![ \t]))", lambda m: m.group(1) + b" " + date, head, count=1)
        return head + sep + body
    return [arriving(raw, k) for k, raw in enumerate(generated_mail())]


def old_mail():
    """The messages as the generator dated them, at the mailbox's start, under other Message-IDs: the most a delivery
    can cost, every list page from the oldest rendered again."""
    return [raw.replace(b"<live-new-", b"<live-old-") for raw in generated_mail()]


def same_site(a, b):
    """The files two sites differ in (the store's own bookkeeping files aside)."""
    names = lambda root: {str(p.relative_to(root)) for p in root.rglob("*") if p.is_file() and not p.name.startswith(".")}
    left, right = names(a), names(b)
    differ = sorted(left ^ right)
    differ += [n for n in sorted(left & right) if not filecmp.cmp(a / n, b / n, shallow=False)]
    return differ


def measure(size, scratch):
    mbox = mailbox(size)
    work = conversations(size, mbox)
    db, journal = scratch / f"{size}.db", scratch / f"{size}.journal.jsonl"
    run([BIN / "mailstore", "add", "-q", "--me", ME, db, work / "messages.jsonl"])
    shutil.copy(work / "messages.jsonl", journal)

    store_site, file_site = scratch / f"{size}.store-site", scratch / f"{size}.file-site"
    from_store, from_files = [], []
    for _ in range(TURNS):  # in turns, so that a spell of load from elsewhere falls on both
        for site, times, cmd in [
            (file_site, from_files, [BIN / "chat-render", "--no-progress", "--zone", ZONE, "--now", NOW,
                                     "--conversations", work / "conversations.jsonl", "--parcels", work / "parcels.jsonl",
                                     "--out", file_site, work / "messages.jsonl"]),
            (store_site, from_store, [BIN / "chat-render", "--no-progress", "--zone", ZONE, "--now", NOW,
                                      "--store", db, "--out", store_site]),
        ]:
            shutil.rmtree(site, ignore_errors=True)
            warm(work / "messages.jsonl")
            warm(db)
            times.append(timed_cpu(cmd))
    differ = same_site(store_site, file_site)
    shutil.rmtree(file_site)

    # deliveries, as procmail's recipes run the hook: one process, the pages included
    env = dict(os.environ, PATH=f"{BIN}:{os.environ['PATH']}", HOME=str(scratch), TZ=ZONE)
    hook = [ROOT / "pipelines" / "mailpipe-log", "--store", db, "--me", ME, "--site", store_site, "--zone", ZONE, journal]
    run([ROOT / "pipelines" / "mailpipe-site", "--store", db, "--zone", ZONE, journal, store_site], env=env)  # the site as it is kept
    result = {"size": size, "messages": COUNT[size], "store": from_store, "files": from_files, "differ": differ}
    for name, mail in [("new", new_mail()), ("old", old_mail())]:
        deliveries = []
        for raw in mail:
            t0 = time.perf_counter()
            r = subprocess.run(hook, input=raw, env=env, stderr=subprocess.PIPE)
            deliveries.append(time.perf_counter() - t0)
            if r.returncode != 0 or r.stderr:
                fail(f"mailpipe-log exited {r.returncode}: {r.stderr.decode(errors='replace')[-300:]}")
        result[name] = deliveries
    result["notmuch"] = notmuch_inserts(size, mbox)
    return result


def notmuch_inserts(size, mbox):
    """`notmuch insert` of the new messages (their Message-IDs made unique to this run) into a notmuch database of
    the mailbox, made once by `notmuch new` and kept: the times of each."""
    folder, _ = maildir(size, mbox)
    db, env = notmuch_config(size, folder, [ME])
    if not (db / ".notmuch" / "xapian").exists() and not (db / "xapian").exists():
        print(f"notmuch new on {folder} (once)...", file=sys.stderr)
        notmuch_new(db, env, folder)
    tag = f"<nm{time.time_ns()}-"
    times = []
    for raw in new_mail():
        t0 = time.perf_counter()
        subprocess.run(["notmuch", "insert", "--folder=live", "--create-folder", "--no-hooks"],
                       input=raw.replace(b"<live-new-", tag.encode()), env=env, check=True)
        times.append(time.perf_counter() - t0)
    # the inserted messages taken out again: the maildir and its database are the mailbox's own,
    # which bench/mailstore.py indexes and compares mailstore's searches against
    shutil.rmtree(folder / "live", ignore_errors=True)
    subprocess.run(["notmuch", "new", "--quiet", "--no-hooks"], env=env, check=True)
    return times


def main():
    sizes = sys.argv[1:] or ["200m", "1g"]
    for size in sizes:
        if size not in COUNT:
            fail(f"SIZE is one of {', '.join(COUNT)}")
    if not GEN.exists():
        fail(f"needs the mailbox generator {GEN} (the shared checkout beside this one)")
    shm = pathlib.Path("/dev/shm")
    scratch = pathlib.Path(tempfile.mkdtemp(prefix="mailpipe-live-", dir=shm if shm.is_dir() else DATA))
    try:
        results = [measure(size, scratch) for size in sizes]
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    print(f"== the live path: first render from the store against chat-render from files ({TURNS} turns, best; "
          f"into {scratch.parent}) ==")
    for r in results:
        (store, store_cpu), (files, files_cpu) = min(r["store"]), min(r["files"])
        same = "the same site" if not r["differ"] else f"{len(r['differ'])} files differ, e.g. {r['differ'][:3]}"
        print(f"{r['messages']:6} messages: from the store {store:6.2f} s (CPU {store_cpu:.2f} s), from files {files:6.2f} s "
              f"(CPU {files_cpu:.2f} s): {store / files:.2f}x ({same}). Target: at most 1x: "
              f"{'met' if store <= files * 1.05 else 'NOT met'}")
    print(f"== one delivery: mailpipe-log --site (message in, pages written), {DELIVERIES} messages one by one; ms ==")
    print(f"{'store':>7} {'median':>7} {'p90':>7} {'p99':>7} {'max':>7}   dated")
    for name, dated in [("new", "as they arrive"), ("old", "at the mailbox's start: every list page again")]:
        for r in results:
            d = r[name]
            print(f"{r['messages']:7} {ms(statistics.median(d)):>7} {ms(percentile(d, 90)):>7} {ms(percentile(d, 99)):>7} "
                  f"{ms(max(d)):>7}   {dated}")
    for r in results:
        n = r["notmuch"]
        print(f"{r['messages']:7} {ms(statistics.median(n)):>7} {ms(percentile(n, 90)):>7} {ms(percentile(n, 99)):>7} "
              f"{ms(max(n)):>7}   the anchor: notmuch insert of the same messages (no pages)")
    largest = max(results, key=lambda r: r["messages"])
    median, p99 = statistics.median(largest["new"]), percentile(largest["new"], 99)
    print(f"target at {largest['messages']} messages: median under 25 ms ({'met' if median < 0.025 else 'NOT met'}), "
          f"p99 under 60 ms ({'met' if p99 < 0.060 else 'NOT met'})")
    if len(results) > 1:
        medians = [statistics.median(r["new"]) for r in results]
        growth = max(medians) / min(medians)
        print(f"the same at every size: {growth:.2f}x between them ({'met' if growth < 1.25 else 'NOT met'})")
    print(f"(load average at the end: {os.getloadavg()[0]:.2f})")


if __name__ == "__main__":
    main()
