"""mailstore against mime-parse, mu and notmuch on the generated mailbox (../shared/gen, SIZE 200m or 1g), in one run:
1. loading the pipeline's records (mime-parse | event-extract | html-sanitize | text-extract | newsletter-detect |
   carrier-detect | participant-hash --me-auto, written once, not timed) into a fresh database, search index
   included, against mime-parse's time on the mailbox, and `mu index` and `notmuch new` on the same messages as a
   maildir. Target: at most 3.5x mime-parse's time since issue 47 (3x before the index took the words the HTML
   alternative adds; mu is 7x here, notmuch 24x).
2. one message added to the store (30 new messages of another seed, each added alone) with its conversation and
   calendar derived again, on the stores of the first 9,860 messages and of the whole mailbox. Target: under 20 ms,
   not growing with the store (notmuch: `notmuch new` after one file is dropped into new/).
3. searches built from the data (words, "phrases", prefix*, from: to: subject:, date:, is:, label:, kind:,
   has:attachment, AND/OR/NOT/parentheses, Chinese and Japanese) over the whole store. Target: median under 10 ms,
   99th percentile under 100 ms; at least 90% of the queries notmuch can ask find the same Message-IDs as
   `notmuch search --output=messages` (each difference is listed, with a guess at its cause).
4. the database's size beside the records' and notmuch's and mu's. Target: at most 1.5x the records.
    .venv/bin/python bench/mailstore.py [SIZE]   (default 200m; 1g takes about half an hour)
    .venv/bin/python bench/mailstore.py --search DB [ME...]   (only the searches, on a store made before)
The binaries are taken from $MAILPIPE_BIN (default .build/release). Build them as `make build` does (Swift's
libraries linked in, as `make install` installs them): a search is a process, and starting one is most of a
median search (5 ms linked in, 8.6 ms with Swift's libraries loaded at start). The mailbox, records and maildir stay in
.bench-data/ for the next run; the databases are made again each run."""
import hashlib
import html.parser as htmlparser
import json
import math
import os
import pathlib
import random
import re
import resource
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
import unicodedata

ROOT = pathlib.Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"
GEN = SHARED / "gen" / "gen_mbox.py"
BIN = ROOT / os.environ.get("MAILPIPE_BIN", ".build/release")  # an absolute path stays as it is
DATA = ROOT / ".bench-data"
COUNT = {"50m": 2465, "200m": 9860, "1g": 48000}  # lib.sh's sizes, and 4x 50m
SMALL = COUNT["200m"]  # the smaller store of part 2: the mailbox's first 9,860 messages (gen_mbox.py writes prefixes)
# the per-message stages in the order the build declares them
FILTERS = subprocess.run([BIN / "mailstore", "stages"], capture_output=True, text=True).stdout.split() if (BIN / "mailstore").exists() else []
NEW_MESSAGES = 30
# notmuch and mu find Chinese and Japanese inside sentences only with Xapian's n-grams, as a CJK user would set
PEER_ENV = dict(os.environ, XAPIAN_CJK_NGRAM="1", TZ="UTC")


def fail(message):
    sys.exit(f"bench/mailstore.py: {message}")


def check_needs():
    if not GEN.exists():
        fail(f"needs the mailbox generator {GEN} (the shared checkout beside this one: ../shared/gen/gen_mbox.py)")
    missing = [p for p in ["mime-parse", *FILTERS, "participant-hash", "mailstore"] if not (BIN / p).exists()]
    if missing:
        fail(f"no {', '.join(missing)} in {BIN}: run `make build`, or set MAILPIPE_BIN to a folder that has them")
    peers = {"notmuch": shutil.which("notmuch"), "mu": shutil.which("mu")}
    for name, path in peers.items():
        if not path:
            print(f"note: {name} is not installed; its comparisons are skipped (scripts/install-deps --bench installs it)")
    return peers


# ---------------------------------------------------------------------------------------------- timing

def run(cmd, env=None, stdout=subprocess.DEVNULL, stdin=None):
    r = subprocess.run([str(c) for c in cmd], env=env, stdout=stdout, stdin=stdin, stderr=subprocess.PIPE)
    if r.returncode != 0:
        fail(f"{' '.join(map(str, cmd))} exited {r.returncode}: {r.stderr.decode(errors='replace')[-500:]}")
    return r


def timed(cmd, env=None):
    t0 = time.perf_counter()
    run(cmd, env=env)
    return time.perf_counter() - t0


def timed_cpu(cmd, env=None):
    """Wall seconds, and CPU seconds (user and system, every thread): the second is less disturbed by other load."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    wall = timed(cmd, env)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime


def warm(path):
    """Reads a file, or every file of a folder, so that its pages are cached."""
    path = pathlib.Path(path)
    for p in (path.rglob("*") if path.is_dir() else [path]):
        if p.is_file():
            with open(p, "rb") as f:
                while f.read(1 << 24):
                    pass


def percentile(values, p):
    """Nearest rank."""
    s = sorted(values)
    return s[max(0, math.ceil(p / 100 * len(s)) - 1)]


def ms(seconds):
    return f"{seconds * 1000:.1f}"


def size_of(*paths):
    total = 0
    for p in map(pathlib.Path, paths):
        if p.is_dir():
            total += sum(q.stat().st_size for q in p.rglob("*") if q.is_file())
        elif p.exists():
            total += p.stat().st_size
    return total


def newer(path, *than):
    return path.exists() and all(path.stat().st_mtime >= pathlib.Path(t).stat().st_mtime for t in than)


# ---------------------------------------------------------------------------------------------- inputs

def mailbox(size):
    """The generated mailbox, made as bench/lib.sh makes it (and shared with the other benchmarks)."""
    DATA.mkdir(exist_ok=True)
    mbox = DATA / f"{size}.mbox"
    if not mbox.exists() or mbox.stat().st_size == 0:
        print(f"generating {mbox} ({COUNT[size]} messages)...", file=sys.stderr)
        run(["python3", GEN, "--messages", COUNT[size], "--seed", "1", "--out", mbox, "--truth", DATA / f"{size}.truth.jsonl"])
    return mbox


def pipeline(mbox, out, me=None):
    """The records of `mbox` through every filter into `out`; your addresses: `me`, or participant-hash --me-auto's."""
    me_args = ["--me-auto"] if me is None else [a for m in me for a in ("--me", m)]
    stages = [[BIN / "mime-parse", "--no-progress", mbox]] + [[BIN / f, "--no-progress"] for f in FILTERS] + \
             [[BIN / "participant-hash", "--no-progress", *me_args]]
    procs = []
    with open(out, "wb") as sink:
        for k, cmd in enumerate(stages):
            last = k == len(stages) - 1
            p = subprocess.Popen([str(c) for c in cmd], stdin=procs[-1].stdout if procs else None,
                                 stdout=sink if last else subprocess.PIPE, stderr=subprocess.PIPE if last else None)
            if procs:
                procs[-1].stdout.close()
            procs.append(p)
        err = procs[-1].communicate()[1].decode(errors="replace")
    codes = [p.wait() for p in procs]
    if any(codes):
        out.unlink()
        fail(f"the pipeline on {mbox} failed (exit statuses {codes}): {err[-500:]}")
    if me is None:
        line = next((l for l in err.splitlines() if "--me-auto: you are" in l), "")
        me = re.findall(r"([^\s,()]+@[^\s,()]+) \(", line.split("you are", 1)[-1])
        if not me:
            fail(f"participant-hash --me-auto named no address: {err[-300:]}")
    return me


def records(size, mbox):
    """The pipeline's records of the mailbox and the addresses --me-auto found, made again when a binary is newer."""
    out, me_file = DATA / f"{size}.mailstore.jsonl", DATA / f"{size}.mailstore.me.json"
    binaries = [BIN / b for b in ["mime-parse", *FILTERS, "participant-hash"]]
    if not (newer(out, mbox, *binaries) and me_file.exists()):
        print(f"running the pipeline on {mbox} into {out}...", file=sys.stderr)
        me_file.write_text(json.dumps(pipeline(mbox, out)))
    return out, json.loads(me_file.read_text())


def split_mbox(mbox):
    """The messages of an mbox as bytes, mboxrd quoting undone, without their From_ lines."""
    message = None
    with open(mbox, "rb") as f:
        for line in f:
            if line.startswith(b"From "):
                if message is not None:
                    yield finish(message)
                message = []
                continue
            if line.startswith(b">") and line.lstrip(b">").startswith(b"From "):
                line = line[1:]
            if message is not None:
                message.append(line)
    if message is not None:
        yield finish(message)


def finish(lines):
    raw = b"".join(lines)
    for end in (b"\r\n\r\n", b"\n\n"):  # the blank line before the next From_ line is the mbox's
        if raw.endswith(end):
            return raw[:-len(end) // 2]
    return raw


def maildir_flags(raw):
    """Maildir flags from X-Gmail-Labels, so that notmuch's unread and flagged tags are Gmail's Unread and Starred."""
    head = re.split(rb"\r?\n\r?\n", raw, maxsplit=1)[0]
    m = re.search(rb"(?im)^x-gmail-labels:(.*(?:\r?\n[ \t].*)*)", head)
    labels = {l.strip().lower() for l in m.group(1).split(b",")} if m else set()
    return ("F" if b"starred" in labels else "") + ("" if b"unread" in labels else "S")


def maildir(size, mbox):
    """The mailbox as a maildir (every message in cur/, flags from its labels) and, in mailbox order, the sha1 of
    each file: notmuch's id for a message without a Message-ID is notmuch-sha1-<that>."""
    folder, index = DATA / f"{size}.maildir", DATA / f"{size}.maildir.json"
    if newer(index, mbox):
        return folder, json.loads(index.read_text())
    print(f"writing {folder}...", file=sys.stderr)
    shutil.rmtree(folder, ignore_errors=True)
    for d in ("cur", "new", "tmp"):
        (folder / d).mkdir(parents=True)
    sha1 = []
    for k, raw in enumerate(split_mbox(mbox), 1):
        (folder / "cur" / f"{k:06d}.bench:2,{maildir_flags(raw)}").write_bytes(raw)
        sha1.append(hashlib.sha1(raw).hexdigest())
    index.write_text(json.dumps(sha1))
    return folder, sha1


def new_messages(size, me):
    """NEW_MESSAGES messages of another seed (their Message-IDs made unique), as one record each, and as raw
    messages for notmuch."""
    mbox, out = DATA / "mailstore-new.mbox", DATA / f"{size}.mailstore-new.jsonl"
    if not mbox.exists():
        run(["python3", GEN, "--messages", NEW_MESSAGES, "--seed", "7", "--out", mbox])
        raw = mbox.read_bytes()  # bytes: the generated mail has charsets other than UTF-8
        mbox.write_bytes(raw.replace(b"Message-ID: <", b"Message-ID: <bench-new-").replace(b"Message-Id: <", b"Message-Id: <bench-new-"))
    binaries = [BIN / b for b in ["mime-parse", *FILTERS, "participant-hash"]]
    if not newer(out, mbox, *binaries):
        pipeline(mbox, out, me)
    lines = out.read_bytes().splitlines(keepends=True)
    return lines, list(split_mbox(mbox))


# ---------------------------------------------------------------------------------------------- 1. loading

def fresh(*paths):
    for p in paths:
        p = pathlib.Path(p)
        if p.is_dir():
            shutil.rmtree(p)
        for q in (p, p.with_name(p.name + "-wal"), p.with_name(p.name + "-shm")):
            if q.is_file():
                q.unlink()


def load(db, recs, me):
    fresh(db)
    warm(recs)
    return timed([BIN / "mailstore", "add", "-q", *[a for m in me for a in ("--me", m)], db, recs])


def notmuch_config(size, folder, me):
    db, config = DATA / f"{size}.notmuch", DATA / f"{size}.notmuch.config"
    config.write_text(f"""[database]
path={db}
mail_root={folder}
hook_dir={DATA / f"{size}.notmuch-no-hooks"}
[new]
tags=unread;inbox;
ignore=
[search]
exclude_tags=
[maildir]
synchronize_flags=true
[user]
primary_email={me[0]}
other_email={';'.join(me[1:])}
""")
    return db, dict(PEER_ENV, NOTMUCH_CONFIG=str(config))


def notmuch_new(db, env, folder):
    fresh(db)
    db.mkdir()
    warm(folder)
    return timed_cpu(["notmuch", "new", "--quiet", "--no-hooks"], env=env)


def mu_index(home, folder, me):
    fresh(home)
    run(["mu", "init", f"--maildir={folder}", f"--muhome={home}", *[f"--my-address={m}" for m in me]], env=PEER_ENV)
    warm(folder)
    return timed_cpu(["mu", "index", f"--muhome={home}"], env=PEER_ENV)


# ---------------------------------------------------------------------------------------------- 2. one message

def one_at_a_time(label, db, new_records, scratch):
    """Adds each new record alone to a copy of db: the times, and what an add costs without a message."""
    copy = scratch / f"{label}.db"
    fresh(copy)
    shutil.copyfile(db, copy)
    warm(copy)
    with sqlite3.connect(f"file:{copy}?mode=ro", uri=True) as con:
        before = con.execute("SELECT count(*) FROM messages").fetchone()[0]
    empty = scratch / "empty.jsonl"
    empty.write_bytes(b"")
    ms_ = BIN / "mailstore"
    floor = {
        "mailstore --version": statistics.median(timed([ms_, "--version"]) for _ in range(10)),
        "mailstore config": statistics.median(timed([ms_, "config", copy]) for _ in range(10)),
        "empty add": statistics.median(timed([ms_, "add", "-q", copy, empty]) for _ in range(10)),
    }
    files = []
    for k, line in enumerate(new_records):
        f = scratch / f"new-{k:02d}.jsonl"
        f.write_bytes(line)
        files.append(f)
    times = [timed([ms_, "add", "-q", copy, f]) for f in files]
    floor["the same record again"] = statistics.median(timed([ms_, "add", "-q", copy, files[0]]) for _ in range(5))
    ids = [json.loads(l)["id"] for l in new_records]
    with sqlite3.connect(f"file:{copy}?mode=ro", uri=True) as con:
        conv = [con.execute("SELECT c.message_count, c.kind FROM messages m JOIN conversations c ON c.id = m.conversation_id "
                            "WHERE m.id = ?", (i,)).fetchone() or (0, "?") for i in ids]
        added = con.execute("SELECT count(*) FROM messages").fetchone()[0] - before
    fresh(copy)
    return dict(times=times, floor=floor, conversations=conv, total=before, added=added)


def notmuch_one_at_a_time(env, folder, raws):
    new = folder / "new"
    nothing = statistics.median(timed(["notmuch", "new", "--quiet", "--no-hooks"], env=env) for _ in range(5))
    times = []
    try:
        for k, raw in enumerate(raws):
            (new / f"bench-new-{k:02d}.bench").write_bytes(raw)
            times.append(timed(["notmuch", "new", "--quiet", "--no-hooks"], env=env))
    finally:
        for f in new.glob("bench-new-*"):
            f.unlink()
        run(["notmuch", "new", "--quiet", "--no-hooks"], env=env)
    return times, nothing


# ---------------------------------------------------------------------------------------------- 3. search

LATIN = re.compile(r"[^\W\d_]{3,}")
HAN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]{2,}")
KANA = re.compile(r"[\u3040-\u30ff]{3,}")


def fold(text):
    return "".join(c for c in unicodedata.normalize("NFKD", text.lower()) if not unicodedata.combining(c))


def latin_words(text):
    return [w.lower() for w in LATIN.findall(text) if all(ord(c) < 0x250 for c in w)]


class Q:
    """A query in mailstore's language, the same one in notmuch's (None: notmuch cannot ask it, `why`), and the
    texts it looks for, each with its kind (to explain a difference)."""

    def __init__(self, kind, ours, theirs, why=None, needle=None, needles=None):
        self.kind, self.ours, self.theirs, self.why = kind, ours, theirs, why
        self.needles = needles if needles is not None else [(kind, needle)]


def negated(q):
    """The texts of a query written after NOT: a message only one side found has them on the other side."""
    return [(kind, needle, True) for kind, needle, *_ in q.needles]


def quote(s):
    return f'"{s}"' if re.search(r"[\s()\"]", s) else s


def both_and(a, b, op="AND"):
    theirs = None if a.theirs is None or b.theirs is None else f"({a.theirs}) {op.lower()} ({b.theirs})"
    return Q("boolean", f"({a.ours}) {op} ({b.ours})", theirs, a.why or b.why, needles=a.needles + b.needles)


def date_query(a, b):
    """date:a..b in both languages: notmuch's local dates round differently, so it gets exact UTC seconds."""
    def bounds(s):
        parts = [int(p) for p in s.split("-")]
        y, m, d = (parts + [1, 1])[:3]
        start = dt_epoch(y, m, d)
        end = dt_epoch(y + 1, 1, 1) if len(parts) == 1 else dt_epoch(y + (m == 12), m % 12 + 1, 1) if len(parts) == 2 else start + 86400
        return start, end
    lo = bounds(a)[0] if a else None
    hi = bounds(b)[1] if b else None
    ours = f"date:{a}..{b}" if a != b else f"date:{a}"
    theirs = f"date:{'@%d' % lo if lo is not None else ''}..{'@%d' % (hi - 1) if hi is not None else ''}"
    return Q("date", ours, theirs)


def dt_epoch(y, m, d):
    import calendar
    return calendar.timegm((y, m, d, 0, 0, 0))


def messages_for_queries(db):
    rows = []
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as con:
        for r in con.execute("SELECT id, date, subject, from_address, from_name, labels, mail_kind, attachment_count, "
                             "json_extract(record, '$.to'), json_extract(record, '$.cc'), "
                             "substr(coalesce(json_extract(record, '$.body_text'), json_extract(record, '$.text'), ''), 1, 3000) "
                             "FROM messages ORDER BY rowid"):
            rows.append(dict(id=r[0], date=r[1] or "", subject=r[2] or "", from_address=r[3] or "", from_name=r[4] or "",
                             labels=json.loads(r[5]), kind=r[6], attachments=r[7],
                             to=[a.get("address") for a in json.loads(r[8] or "[]") + json.loads(r[9] or "[]") if a.get("address")],
                             body=r[10] or ""))
    return rows


def build_queries(rows, me):
    """At least 50 queries of every kind the language has, from words, people, subjects, dates and labels that
    occur in the store."""
    rnd = random.Random(1)
    n = len(rows)
    df = {}
    for r in rows:
        for w in set(latin_words(r["subject"] + " " + r["body"])):
            df[w] = df.get(w, 0) + 1
    words = sorted(df)

    def pick(lo, hi, count, accented=None):
        pool = [w for w in words if lo <= df[w] <= hi and len(w) >= 4 and (accented is None or accented == (not w.isascii()))]
        return rnd.sample(pool, min(count, len(pool)))

    qs = []
    for w in pick(1, 3, 2) + pick(n // 200, n // 20, 3) + pick(n // 20 + 1, n // 3, 2) + pick(1, n // 3, 2, accented=True):
        qs.append(Q("word", w, w, needle=w))
    subjects = [r["subject"] for r in rows if len(latin_words(r["subject"])) >= 3]
    for s in rnd.sample(subjects, 6):
        ws = latin_words(s)
        k = rnd.randrange(len(ws) - 1)
        phrase = " ".join(ws[k:k + rnd.choice((2, 3))])
        qs.append(Q("phrase", f'"{phrase}"', f'"{phrase}"', needle=phrase))
    for w in pick(n // 100, n // 3, 6):
        if len(w) >= 6:
            qs.append(Q("prefix", w[:4] + "*", w[:4] + "*", needle=w[:4]))
        else:
            qs.append(Q("prefix", w[:3] + "*", w[:3] + "*", needle=w[:3]))
    others = [r for r in rows if r["from_address"] and r["from_address"] not in me]
    for r in rnd.sample(others, 4):
        qs.append(Q("from", f"from:{r['from_address']}", f"from:{r['from_address']}", needle=r["from_address"]))
    named = [r for r in others if latin_words(r["from_name"])]
    for r in rnd.sample(named, 2):
        w = latin_words(r["from_name"])[-1]
        qs.append(Q("from", f"from:{w}", f"from:{w}", needle=w))
    recipients = sorted({a.lower() for r in rows for a in r["to"] if a.lower() not in me})
    for a in rnd.sample(recipients, 4) + [me[0]]:
        qs.append(Q("to", f"to:{a}", f"to:{a}", needle=a))
    for s in rnd.sample(subjects, 4):
        w = max(latin_words(s), key=len)
        qs.append(Q("subject", f"subject:{w}", f"subject:{w}", needle=w))
    s = latin_words(rnd.choice(subjects))[:2]
    qs.append(Q("subject", f'subject:"{" ".join(s)}"', f'subject:"{" ".join(s)}"', needle=" ".join(s)))
    dates = sorted(r["date"] for r in rows if r["date"])
    some = [rnd.choice(dates[len(dates) // 10: -len(dates) // 10]) for _ in range(4)]
    qs.append(date_query(some[0][:7], some[0][:7]))
    qs.append(date_query(some[1][:10], some[1][:10]))
    a, b = sorted([some[2][:10], some[3][:10]])
    qs.append(date_query(a, b))
    qs.append(date_query(dates[len(dates) * 9 // 10][:7], ""))
    qs.append(date_query("", dates[len(dates) // 10][:10]))
    qs.append(date_query(dates[len(dates) // 2][:4], dates[len(dates) // 2][:4]))
    not_labels = "notmuch knows no Gmail labels (only the maildir flags: unread, flagged)"
    qs += [Q("is", "is:unread", "tag:unread"), Q("is", "is:starred", "tag:flagged"), Q("is", "is:read", "not tag:unread"),
           Q("is", "is:inbox", None, not_labels), Q("is", "is:sent", None, not_labels), Q("is", "is:archived", None, not_labels),
           Q("is", "is:important", None, not_labels)]
    system = {"INBOX", "UNREAD", "SENT", "STARRED", "IMPORTANT", "SPAM", "TRASH", "DRAFT", "CHAT", "Opened", "Archived"}
    labels = sorted({l for r in rows for l in r["labels"] if l not in system and not l.startswith("CATEGORY_")})
    for l in rnd.sample(labels, min(5, len(labels))):
        qs.append(Q("label", f"label:{quote(l)}", None, not_labels))
    qs.append(Q("label", "label:category_promotions", None, not_labels))
    for k in ("newsletter", "list", "personal", "notification"):
        qs.append(Q("kind", f"kind:{k}", None, "newsletter-detect's mail_kind: notmuch has no such thing"))
    att = [r for r in rows if r["attachments"]]
    qs.append(Q("has", "has:attachment", "tag:attachment"))
    r = rnd.choice(att)
    qs.append(Q("has", f"has:attachment from:{r['from_address']}", f"tag:attachment and from:{r['from_address']}",
                needles=[("has", None), ("from", r["from_address"])]))
    qs.append(both_and(Q("has", "has:attachment", "tag:attachment"), date_query(r["date"][:7], r["date"][:7])))
    # AND, OR, NOT, -term and parentheses
    w = [q for q in qs if q.kind == "word"]
    f = [q for q in qs if q.kind == "from"]
    sub = [q for q in qs if q.kind == "subject"]
    d = [q for q in qs if q.kind == "date"]
    qs.append(both_and(w[2], w[3], "OR"))
    qs.append(both_and(w[4], w[5], "AND"))
    qs.append(Q("boolean", f"{w[5].ours} -{w[3].ours}", f"{w[5].theirs} and not {w[3].theirs}", needles=w[5].needles + negated(w[3])))
    qs.append(Q("boolean", f"{w[6].ours} NOT {f[0].ours}", f"{w[6].theirs} and not {f[0].theirs}", needles=w[6].needles + negated(f[0])))
    qs.append(Q("boolean", f"({f[0].ours} OR {f[1].ours}) AND {d[5].ours}", f"({f[0].theirs} or {f[1].theirs}) and {d[5].theirs}",
                needles=f[0].needles + f[1].needles))
    qs.append(Q("boolean", f"({sub[0].ours} OR {sub[1].ours}) NOT is:unread", f"({sub[0].theirs} or {sub[1].theirs}) and not tag:unread",
                needles=sub[0].needles + sub[1].needles))
    qs.append(Q("boolean", f"is:unread {w[4].ours}", f"tag:unread and {w[4].theirs}", needles=w[4].needles))
    qs.append(Q("boolean", f"kind:newsletter AND NOT is:unread AND {d[3].ours}", None, "kind: and is: labels"))
    qs.append(Q("boolean", f"(label:{quote(labels[0])} OR is:starred) AND has:attachment", None, not_labels))
    qs.append(Q("boolean", f"NOT ({w[5].ours} OR {w[6].ours}) AND {d[1].ours}", f"{d[1].theirs} and not ({w[5].theirs} or {w[6].theirs})",
                needles=negated(w[5]) + negated(w[6])))
    # Chinese and Japanese, found inside sentences
    texts = [r["subject"] + "\n" + r["body"] for r in rows]
    han = sorted({run_[k:k + ln] for t in rnd.sample(texts, min(400, n)) for run_ in HAN.findall(t)
                  for ln in (2, 3) for k in range(0, len(run_) - ln + 1, 3)})
    kana = sorted({run_[:4] for t in texts for run_ in KANA.findall(t)})
    cjk = rnd.sample(han, min(6, len(han))) + rnd.sample(kana, min(2, len(kana)))
    cjk += [w for w in ("黑貓", "取件", "会议", "ありがとう") if any(w in t for t in texts) and w not in cjk]
    for c in cjk:
        qs.append(Q("chinese/japanese", c, c, needle=c))
    h = [r for r in rows if HAN.search(r["subject"])]
    s = HAN.findall(rnd.choice(h)["subject"])[0][:2]
    qs.append(Q("chinese/japanese", f"subject:{s}", f"subject:{s}", needles=[("subject", s)]))
    qs.append(Q("chinese/japanese", f"{cjk[0]} OR {cjk[1]}", f"{cjk[0]} or {cjk[1]}", needles=[("chinese/japanese", cjk[0]), ("chinese/japanese", cjk[1])]))
    # issue 47's example: a word the generated newsletters' HTML alternatives hold and their plain parts mostly do not
    qs.append(Q("word", "weekend", "weekend", needle="weekend"))
    return qs


def our_search(db, q):
    r = run([BIN / "mailstore", "search", "--output", "ids", db, q], stdout=subprocess.PIPE)
    return {json.loads(l) for l in r.stdout.splitlines() if l.strip()}


def their_search(env, q, to_ours):
    r = run(["notmuch", "search", "--output=messages", "--format=json", q], env=env, stdout=subprocess.PIPE)
    return {to_ours.get(i, i) for i in json.loads(r.stdout or b"[]")}


def best_time(cmd, env=None, runs=3):
    return min(timed(cmd, env=env) for _ in range(runs))


# Why a message is found by one side only. The causes marked True explain a difference (the other side is right,
# or both are, by their own rules); False ones are not understood and may be a bug.
CAUSES = {
    "html-unseen": ("the text is in the HTML alternative where a reader does not see it (a hidden element such as a "
                    "preheader, a style, a script, the head): notmuch indexes the HTML's text whatever it is, mailstore "
                    "what a reader sees of it", True),
    "alt": ("the text is an image's alt text: mailstore indexes it as a reader sees it (images off, a screen reader), "
            "notmuch indexes no attribute of HTML", True),
    "html-phrase": ("the phrase is in what a reader sees of the HTML alternative, of which mailstore indexes the words "
                    "the body text lacks, each once where it first appears: there the phrase's words are not side by side "
                    "(one is in the body text, or first appears elsewhere)", True),
    "missed-html": ("the text is in what a reader sees of the HTML alternative, which mailstore indexes, but mailstore "
                    "did not find it", False),
    "url": ("the text is in a link's URL only: text-extract writes an HTML link's URL into body_text, and notmuch "
            "indexes no URLs of HTML", True),
    "mime": ("the text is in a MIME header (Content-Type, a file name): notmuch indexes those as words", True),
    "stem": ("both stem English words, differently (notmuch with Xapian's stemmer, mailstore with Porter's): one of "
             "them found another form of the word", True),
    "inline": ("mailstore's has:attachment counts inline parts (cid: images), as Gmail's does; notmuch's attachment "
               "tag does not", True),
    "notmuch-missed": ("the text is in the subject, people or body_text: notmuch did not index it", True),
    "accents": ("mailstore folds accents (remove_diacritics 2); notmuch does not", True),
    "cjk-wrap": ("a Chinese or Japanese word broken by a line break (hard-wrapped or quoted text, '明\\n> 天'): "
                 "notmuch's n-grams join across it, mailstore's character pairs stop at it, so mailstore misses it", True),
    "attached": ("the message has a message/rfc822 attachment (a forwarded mail): notmuch indexes its text, "
                 "mailstore only the message's own", True),
    "missed": ("the text is in the subject, people or body_text that mailstore indexes, but mailstore did not find it", False),
    "nowhere": ("the text is nowhere in the message that this test looks", False),
}


def message_texts(con, raw_files, i):
    row = con.execute("SELECT record FROM messages WHERE id = ?", (i,)).fetchone()
    if row is None:
        return None
    r = json.loads(row[0])

    def people(v):
        return " ".join(f"{p.get('name') or ''} {p.get('address') or ''}" for p in v if isinstance(p, dict))

    body = r.get("body_text") or r.get("text") or ""
    urls = re.findall(r"https?://[^\s<>\"]+", body)
    mime, rfc822 = "", False
    path = raw_files.get(i)
    if path and path.exists():
        raw = path.read_bytes().decode("utf-8", errors="replace")
        mime = " ".join(re.findall(r"(?im)^content-(?:type|disposition):.*(?:\r?\n[ \t].*)*", raw))
        rfc822 = bool(re.search(r"(?im)^content-type:\s*message/rfc822", raw))
    seen = SeenHTML(r.get("html") or "")
    return {
        "subject": r.get("subject") or "",
        "from": people([r.get("from") or {}]),
        "to": people((r.get("to") or []) + (r.get("cc") or [])),
        "body": re.sub(r"https?://[^\s<>\"]+", " ", body),
        "url": " ".join(urls),
        "html": seen.text(),
        "html_unseen": seen.unseen_text(),
        "alt": " ".join(seen.alts),
        "mime": mime,
        "attachments": r.get("attachments") or [],
        "rfc822": rfc822,
    }


class SeenHTML(htmlparser.HTMLParser):
    """What a reader sees of an HTML body, by text-extract's rules (HTMLText.swift), which mailstore's index
    follows: no text of style, script, head and the like, nor of hidden elements; the alt text of an image
    that is not 1x1. What is left out is kept apart (unseen_text) to name a difference."""
    SKIPPED = {"script", "style", "head", "title", "template", "noscript", "svg", "math", "object", "iframe", "button",
               "select", "input", "textarea", "map", "audio", "video"}
    VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}
    HIDING = ("display:none", "visibility:hidden", "mso-hide:all", "font-size:0;", "font-size:0px", "opacity:0;")

    def __init__(self, source):
        super().__init__(convert_charrefs=True)
        self.seen, self.unseen, self.alts, self.depth = [], [], [], 0
        self.feed(source)
        self.close()

    def hides(self, tag, a):
        style = re.sub(r"\s", "", (a.get("style") or "").lower()) + ";"
        return ("hidden" in a or a.get("aria-hidden") == "true" and tag != "img" or any(h in style for h in self.HIDING)
                or "max-height:0" in style and "overflow:hidden" in style)

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "img" and self.depth == 0 and a.get("alt") and not self.hides(tag, a):
            sizes = [(a.get(k) or "").strip() for k in ("width", "height")]
            tiny = any(v.isdigit() and int(v) <= 1 for v in sizes)
            (self.unseen if tiny else self.alts).append(a["alt"])
        if tag in self.VOID:
            return
        if self.depth or tag in self.SKIPPED or self.hides(tag, a):
            self.depth += 1

    def handle_endtag(self, tag):
        if self.depth and tag not in self.VOID:
            self.depth -= 1

    def handle_data(self, data):
        (self.unseen if self.depth else self.seen).append(data)

    def text(self):
        return " ".join(self.seen + self.alts)

    def unseen_text(self):
        return " ".join(self.unseen)


def matcher(kind, needle):
    needle = fold(needle)
    if SEARCH_CJK.search(needle):
        return lambda text: needle in fold(text)
    words = [re.escape(w) for w in re.findall(r"\w+", needle)]
    tail = "" if kind == "prefix" else r"(?!\w)"
    pattern = re.compile(r"(?<!\w)" + r"\W+".join(words) + tail)
    return lambda text: bool(pattern.search(fold(text)))


SEARCH_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")


def cause(q, texts, side):
    """The key of CAUSES for one message that only `side` found: of the query's texts, the first that explains."""
    other = {"mailstore": "notmuch", "notmuch": "mailstore"}
    results = [cause_of(kind, needle, texts, other[side] if not_ else side) for kind, needle, *not_ in q.needles]
    explained = [c for c in results if CAUSES[c][1]]
    specific = [c for c in explained if c != "notmuch-missed"]
    return (specific or explained or results)[0]


def cause_of(kind, needle, texts, side):
    if texts is None:
        return "nowhere"
    if kind == "has" and side == "mailstore":
        if texts["attachments"] and all(a.get("disposition") == "inline" for a in texts["attachments"]):
            return "inline"
    if not needle:
        return "nowhere"
    found = matcher(kind, needle)
    scope = {"from": ["from"], "to": ["to"], "subject": ["subject"]}.get(kind, ["subject", "from", "to", "body"])
    indexed = any(found(texts[f]) for f in scope)
    if side == "mailstore":
        if indexed or "body" in scope and found(texts["html"]):
            if not indexed and found(texts["alt"]):
                return "alt"
            plain = needle.lower()
            if plain != fold(plain) and not any(plain in texts[f].lower() for f in scope + ["html"]):
                return "accents"
            return "notmuch-missed"
        if found(texts["url"]):
            return "url"
        if kind == "word" and stemmed(needle, texts, scope):
            return "stem"
        return "nowhere"
    if indexed:
        return "missed"
    if SEARCH_CJK.search(needle) and any(fold(needle) in re.sub(r"[\s>]+", "", fold(texts[f])) for f in scope):
        return "cjk-wrap"
    if "body" in scope and found(texts["html"]):
        if kind == "phrase" or " " in needle.strip():
            return "html-phrase"
        return "missed-html"
    if found(texts["html_unseen"]):
        return "html-unseen"
    if found(texts["mime"]):
        return "mime"
    if texts["rfc822"]:
        return "attached"
    if kind == "word" and stemmed(needle, texts, scope + ["html"]):
        return "stem"
    return "nowhere"


def stemmed(needle, texts, fields):
    """Whether another form of the word is in `fields`: roughly what an English stemmer removes."""
    stem = re.sub(r"(ing|ed|es|e|s|ly|er|y)$", "", fold(needle))
    return len(stem) >= 3 and any(re.search(r"(?<!\w)" + re.escape(stem) + r"\w*", fold(texts[f])) for f in fields)


def explain(con, raw_files, q, ids, side, limit=400):
    """How many of `ids` (a sample of at most `limit`) have each cause, and one example of each."""
    sample = ids if len(ids) <= limit else random.Random(3).sample(ids, limit)
    counts, examples = {}, {}
    for i in sample:
        c = cause(q, message_texts(con, raw_files, i), side)
        counts[c] = counts.get(c, 0) + 1
        examples.setdefault(c, i)
    return counts, examples, len(sample)


def search_part(db, env, to_ours, raw_files, me, peers):
    rows = messages_for_queries(db)
    qs = build_queries(rows, me)
    ms_ = BIN / "mailstore"
    floor_cmd = [ms_, "search", "--output", "ids", db, "id:no-such-message"]
    run(floor_cmd)
    floor = min(timed(floor_cmd) for _ in range(11))
    start = min(timed([ms_, "--version"]) for _ in range(11))
    results = []
    for q in qs:
        cmd = [ms_, "search", "--output", "ids", db, q.ours]
        ours = our_search(db, q.ours)  # also warms
        t = best_time(cmd)
        theirs = tt = None
        if peers["notmuch"] and q.theirs is not None:
            theirs = their_search(env, q.theirs, to_ours)
            tt = best_time(["notmuch", "search", "--output=messages", q.theirs], env=env)
        results.append((q, t, ours, theirs, tt))
    times = [r[1] for r in results]
    net = [max(0.0, t - floor) for t in times]
    print(f"== search over {len(rows)} messages: {len(qs)} queries of {len({q.kind for q in qs})} kinds, "
          f"each the best of 3 runs of `mailstore search --output ids DB QUERY` ==")
    med, p99 = statistics.median(times), percentile(times, 99)
    print(f"mailstore search   median {ms(med)} ms, 99th percentile {ms(p99)} ms (targets < 10 and < 100: "
          f"{'met' if med < 0.010 and p99 < 0.100 else 'NOT met'})")
    print(f"  of which starting the process: {ms(start)} ms (mailstore --version); starting, opening the database and "
          f"an id: query that finds nothing: {ms(floor)} ms")
    print(f"  the query alone (time less the latter): median {ms(statistics.median(net))} ms, "
          f"99th percentile {ms(percentile(net, 99))} ms")
    nt = [r[4] for r in results if r[4] is not None]
    if nt:
        print(f"notmuch search     median {ms(statistics.median(nt))} ms, 99th percentile {ms(percentile(nt, 99))} ms "
              f"(the {len(nt)} queries it can ask)")
    print(f"{'kind':18} {'queries':>7} {'median ms':>10} {'max ms':>8}")
    for kind in dict.fromkeys(q.kind for q in qs):
        ts = [r[1] for r in results if r[0].kind == kind]
        print(f"{kind:18} {len(ts):7} {ms(statistics.median(ts)):>10} {ms(max(ts)):>8}")
    print("slowest:")
    for q, t, ours, _, _ in sorted(results, key=lambda r: -r[1])[:6]:
        print(f"  {ms(t):>7} ms  {len(ours):6} found  {q.ours}")
    # the same queries on a copy after `mailstore compact`: a load leaves the indexes' pages among the records'
    scratch = pathlib.Path(tempfile.mkdtemp(prefix="mailstore-compact-", dir="/dev/shm" if pathlib.Path("/dev/shm").is_dir() else DATA))
    try:
        copy = scratch / db.name
        shutil.copy(db, copy)
        took = timed([ms_, "compact", copy])
        compact = [best_time([ms_, "search", "--output", "ids", copy, q.ours]) for q in qs]
        print(f"after `mailstore compact` ({took:.1f} s, on a copy in {scratch.parent}): median {ms(statistics.median(compact))} ms, "
              f"99th percentile {ms(percentile(compact, 99))} ms")
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    if not peers["notmuch"]:
        return dict(median=med, p99=p99)
    comparable = [r for r in results if r[3] is not None]
    agree = [r for r in comparable if r[2] == r[3]]
    rate = len(agree) / len(comparable) if comparable else 0
    print(f"agreement with `notmuch search --output=messages`: {len(agree)} of {len(comparable)} queries find the same "
          f"Message-IDs ({rate:.0%}; target >= 90%: {'met' if rate >= 0.9 else 'NOT met'})")
    skipped = [r[0] for r in results if r[3] is None]
    if skipped:
        print(f"not compared ({len(skipped)}): " + "; ".join(sorted({q.why for q in skipped})) + ":")
        print("  " + ", ".join(q.ours for q in skipped))
    explained, seen = 0, {}
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as con:
        for q, _, ours, theirs, _ in comparable:
            if ours == theirs:
                continue
            only_ours, only_theirs = sorted(ours - theirs), sorted(theirs - ours)
            print(f"differs: {q.ours}   (notmuch: {q.theirs}): mailstore {len(ours)}, notmuch {len(theirs)}; "
                  f"only mailstore {len(only_ours)}, only notmuch {len(only_theirs)}")
            ok = True
            for side, ids in (("mailstore", only_ours), ("notmuch", only_theirs)):
                if not ids:
                    continue
                counts, examples, n = explain(con, raw_files, q, ids, side)
                ok = ok and all(CAUSES[c][1] for c in counts)
                parts = []
                for c, k in sorted(counts.items(), key=lambda x: -x[1]):
                    seen[c] = CAUSES[c][0]
                    parts.append(f"{c} {k}" + ("" if CAUSES[c][1] else f" (e.g. id:{examples[c]})"))
                print(f"    only {side}{'' if n == len(ids) else f' (a sample of {n})'}: {', '.join(parts)}; "
                      f"e.g. id:{ids[0]}")
            explained += ok
    print(f"agreement or every difference explained: {len(agree) + explained} of {len(comparable)} queries "
          f"({(len(agree) + explained) / max(1, len(comparable)):.0%})")
    for c, text in seen.items():
        print(f"  {c}: {text}" + ("" if CAUSES[c][1] else "  <- NOT explained"))
    return dict(median=med, p99=p99, rate=rate)


# ---------------------------------------------------------------------------------------------- main

def load_average():
    return "load average " + " ".join(f"{x:.1f}" for x in os.getloadavg()) + f" on {os.cpu_count()} CPUs"


def search_only(db, me):
    """`--search DB [ME]`: the search part's queries on a store made before (a copy, a compacted one, one
    loaded by another build), each the best of 3 runs, their median and 99th percentile: to compare stores."""
    qs = build_queries(messages_for_queries(db), me)
    for q in qs:
        our_search(db, q.ours)  # warms
    times = [best_time([BIN / "mailstore", "search", "--output", "ids", db, q.ours]) for q in qs]
    print(f"{db}: {len(qs)} queries, median {ms(statistics.median(times))} ms, "
          f"99th percentile {ms(percentile(times, 99))} ms ({load_average()})")


def main():
    if len(sys.argv) > 2 and sys.argv[1] == "--search":
        db = pathlib.Path(sys.argv[2])
        me = sys.argv[3:] or json.loads((DATA / "1g.mailstore.me.json").read_text())
        return search_only(db, me)
    size = sys.argv[1] if len(sys.argv) > 1 else "200m"
    if size not in COUNT:
        fail(f"SIZE is one of {', '.join(COUNT)}, not {size!r}")
    peers = check_needs()
    mbox = mailbox(size)
    recs, me = records(size, mbox)
    ids = [json.loads(l)["id"] for l in open(recs, "rb")]
    n = len(ids)
    folder, sha1 = maildir(size, mbox) if any(peers.values()) else (None, [])
    runs = 3
    peer_runs = 3 if n <= SMALL else 1  # notmuch new takes many minutes on the 1 GB mailbox
    db = DATA / f"{size}.mailstore.db"
    nmdb, env = notmuch_config(size, folder, me) if peers["notmuch"] else (None, None)
    muhome = DATA / f"{size}.mu"
    print(f"(binaries from {BIN}; {load_average()} at the start)")

    # 1. loading
    def parse():
        warm(mbox)
        return timed_cpu([BIN / "mime-parse", "--no-progress", mbox])

    def add():
        fresh(db)
        warm(recs)
        return timed_cpu([BIN / "mailstore", "add", "-q", *[a for m in me for a in ("--me", m)], db, recs])

    # taken in turns, so that a spell of load from elsewhere falls on both; the CPU times are less disturbed by it
    parses, adds = [], []
    for _ in range(runs):
        parses.append(parse())
        adds.append(add())
    mime, mime_cpu = min(t for t, _ in parses), min(c for _, c in parses)
    ours, ours_cpu = min(t for t, _ in adds), min(c for _, c in adds)
    mu = min(mu_index(muhome, folder, me) for _ in range(peer_runs)) if peers["mu"] else None
    nm = min(notmuch_new(nmdb, env, folder) for _ in range(peer_runs)) if peers["notmuch"] else None
    print(f"== loading the generated mailbox {size}: {n} messages, {mbox.stat().st_size / 1e6:.0f} MB; "
          f"records {recs.stat().st_size / 1e6:.0f} MB; your addresses {', '.join(me)} ==")
    print(f"{'':15} {'wall s':>8} {'ratio':>7} {'CPU s':>8} {'ratio':>7}")
    print(f"{'mime-parse':15} {mime:8.2f} {'':7} {mime_cpu:8.2f} {'':7}   best of {runs}")
    met = ours <= 3.5 * mime and ours_cpu <= 3.5 * mime_cpu
    print(f"{'mailstore add':15} {ours:8.2f} {ours / mime:6.2f}x {ours_cpu:8.2f} {ours_cpu / mime_cpu:6.2f}x   best of {runs}, "
          f"{n / ours:.0f} messages/s; target <= 3.5x (wall and CPU): {'met' if met else 'NOT met'}")
    for name, r in (("mu index", mu), ("notmuch new", nm)):
        if r is not None:
            note = "after mu init" if name == "mu index" else "XAPIAN_CJK_NGRAM=1"
            print(f"{name:15} {r[0]:8.2f} {r[0] / mime:6.2f}x {r[1]:8.2f} {r[1] / mime_cpu:6.2f}x   best of {peer_runs}, {note}")

    # 4. sizes (the load's last database: SQLite checkpointed its WAL when mailstore closed it)
    store = size_of(db, f"{db}-wal", f"{db}-shm")
    rb = recs.stat().st_size
    print("== sizes ==")
    print(f"records            {rb / 1e6:8.1f} MB")
    print(f"mailstore database {store / 1e6:8.1f} MB   {store / rb:.2f}x the records "
          f"(target <= 1.5: {'met' if store <= 1.5 * rb else 'NOT met'})")
    if nm is not None:
        print(f"notmuch database   {size_of(nmdb) / 1e6:8.1f} MB   {size_of(nmdb) / rb:.2f}x")
    if mu is not None:
        print(f"mu database        {size_of(muhome) / 1e6:8.1f} MB   {size_of(muhome) / rb:.2f}x")
    if folder is not None:
        print(f"the maildir        {size_of(folder) / 1e6:8.1f} MB   (the mbox: {mbox.stat().st_size / 1e6:.1f} MB)")

    # 3. search (before part 2 adds to notmuch's database)
    to_ours, raw_files = {}, {}
    if peers["notmuch"]:
        nulls = [json.loads(l).get("message_id") is None for l in open(recs, "rb")]
        if len(sha1) == n:
            to_ours = {f"notmuch-sha1-{h}": i for h, i, null in zip(sha1, ids, nulls) if null}
            files = {int(p.name[:6]): p for p in (folder / "cur").iterdir()}
            raw_files = {i: files.get(k) for k, i in enumerate(ids, 1)}
        else:
            print(f"note: the maildir has {len(sha1)} messages and the records {n}: messages without a Message-ID "
                  f"cannot be matched with notmuch's")
    search_part(db, env, to_ours, raw_files, me, peers)

    # 2. one message at a time
    new_records, raws = new_messages(size, me)
    scratch = pathlib.Path(tempfile.mkdtemp(prefix="mailstore-bench-", dir=DATA))
    stores, tmpfs, nm_times = [], None, None
    try:
        if n > SMALL:
            head = scratch / "head.jsonl"
            with open(recs, "rb") as src, open(head, "wb") as out:
                for k, line in enumerate(src):
                    if k >= SMALL:
                        break
                    out.write(line)
            small = scratch / "first.db"
            load(small, head, me)
            stores.append(one_at_a_time("small", small, new_records, scratch))
            fresh(small)
        stores.append(one_at_a_time("whole", db, new_records, scratch))
        if pathlib.Path("/dev/shm").is_dir():
            t = pathlib.Path(tempfile.mkdtemp(prefix="mailstore-bench-", dir="/dev/shm"))
            try:
                tmpfs = one_at_a_time("whole", db, new_records, t)
            finally:
                shutil.rmtree(t)
        if peers["notmuch"]:
            nm_times = notmuch_one_at_a_time(env, folder, raws)
    finally:
        shutil.rmtree(scratch)
    print(f"== one message added: {len(new_records)} new messages (gen_mbox.py --seed 7, Message-IDs made new), each by "
          f"its own `mailstore add -q DB one.jsonl` into a copy of the store; times in ms ==")
    print(f"{'store':>8} {'median':>7} {'p90':>7} {'max':>7} {'empty add':>10} {'config':>7} {'--version':>10} "
          f"{'same again':>11} {'median less empty add':>22}")

    def row(s, note=""):
        t, f = s["times"], s["floor"]
        print(f"{s['total']:8} {ms(statistics.median(t)):>7} {ms(percentile(t, 90)):>7} {ms(max(t)):>7} "
              f"{ms(f['empty add']):>10} {ms(f['mailstore config']):>7} {ms(f['mailstore --version']):>10} "
              f"{ms(f['the same record again']):>11} {ms(statistics.median(t) - f['empty add']):>22}{note}")

    for s in stores:
        row(s)
        if s["added"] != len(new_records):
            print(f"  note: the store grew by {s['added']} messages, not {len(new_records)}")
    if tmpfs:
        row(tmpfs, "   a copy in /dev/shm: no disk")
    big = stores[-1]
    worst = sorted(zip(big["times"], range(1, len(big["times"]) + 1), big["conversations"]), key=lambda x: -x[0])[:3]
    print("slowest adds on the largest store: " + ", ".join(f"{ms(t)} ms (the {k}. add, into a {kind} conversation of "
                                                          f"{c} messages)" for t, k, (c, kind) in worst))
    print("the conversations the new messages joined, their sizes: " + " ".join(str(c) for c, _ in big["conversations"]))
    print("(an add is a process: `--version` is the cost of starting one; `empty add` adds opening, the write "
          "transaction and closing, which checkpoints the WAL)")
    med = statistics.median(big["times"])
    growth = med / statistics.median(stores[0]["times"]) if len(stores) > 1 else None
    verdict = "met" if med < 0.020 and (growth is None or growth < 1.25) else "NOT met"
    print(f"target: under 20 ms on the largest store (median {ms(med)} ms)" +
          (f", not growing from {stores[0]['total']} to {big['total']} messages ({growth:.2f}x the median)" if growth else
           " (run with 1g to compare 9,860 and 48,000 messages)") + f": {verdict}")
    if nm_times:
        t, nothing = nm_times
        print(f"notmuch new, one file dropped into new/ ({n} messages): median {ms(statistics.median(t))} ms, "
              f"p90 {ms(percentile(t, 90))} ms, max {ms(max(t))} ms; with nothing new {ms(nothing)} ms")
    print(f"({load_average()} at the end)")


if __name__ == "__main__":
    main()
