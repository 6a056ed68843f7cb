"""gmail-sync, the program, against the bash script it replaced (31b942d:pipelines/gmail-sync),
both against the tests' stand-in for Gmail's API on 127.0.0.1 in the same run, in turns: a pass
with nothing to do (issue 44's target: under 300 ms; the bash pass took 0.42 s), and the first
sync of the sample mailbox. Prints each one's median and p90 wall time, the requests each pass
made, and the ratio. Then the push (issue 44): a mailbox of --push messages, each its own chat,
all marked read in the store, and the pass that takes the marks to Gmail: its requests
(batchModify calls) and its time.
    .venv/bin/python bench/gmail-sync.py [--runs 21] [--first-syncs 5] [--push 1000]
Needs the release build, git (for the old script), and curl and jq (the old script's; scripts/
install-deps --bench)."""
import argparse
import os
import pathlib
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "Tests" / "e2e"))
from gmail_standin import GmailStandIn  # noqa: E402

OLD_COMMIT = "31b942d"  # the last commit with the bash gmail-sync and the interface the program keeps
SAMPLE = ROOT / "samples" / "sample.mbox"


def percentile(values, p):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1)))]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=21, help="passes with nothing to do, each program")
    parser.add_argument("--first-syncs", type=int, default=5, help="first syncs of the sample, each program")
    parser.add_argument("--push", type=int, default=1000, help="read marks pushed in one pass")
    options = parser.parse_args()
    new = ROOT / ".build" / "release" / "gmail-sync"
    if not new.exists():
        sys.exit("bench/gmail-sync.py: build first (make build)")
    for tool in ("curl", "jq", "git"):
        if not shutil.which(tool):
            sys.exit(f"bench/gmail-sync.py: the old script needs {tool} (scripts/install-deps --bench)")
    scratch = pathlib.Path(tempfile.mkdtemp(prefix="mailpipe-gmail-sync-bench-"))
    try:
        old = scratch / "old" / "gmail-sync"
        old.parent.mkdir()
        old.write_bytes(subprocess.run(["git", "-C", str(ROOT), "show", f"{OLD_COMMIT}:pipelines/gmail-sync"],
                                       check=True, capture_output=True).stdout)
        old.chmod(0o755)
        programs = {"bash (31b942d)": old, "program": new}
        # the old script finds mailpipe-log in pipelines/ and mailstore in the build on PATH
        path = f"{ROOT / 'pipelines'}:{ROOT / '.build' / 'release'}:{os.environ['PATH']}"
        with GmailStandIn.from_mbox(SAMPLE, page_size=100) as gmail:
            def run(name, db, *args):
                env = dict(os.environ, PATH=path, HOME=str(scratch), GMAIL_API=gmail.url, GMAIL_TOKEN=gmail.token,
                           SWIFT_BACKTRACE="enable=no")
                before = len(gmail.requests)
                t0 = time.perf_counter()
                r = subprocess.run([str(programs[name]), "--store", str(db), *args, str(db.with_suffix(".jsonl"))],
                                   env=env, capture_output=True)
                elapsed = time.perf_counter() - t0
                if r.returncode != 0:
                    sys.exit(f"{name}: exit {r.returncode}: {r.stderr.decode()[-2000:]}")
                return elapsed, len(gmail.requests) - before

            first = {name: [] for name in programs}
            for k in range(options.first_syncs):
                for name in programs:
                    first[name].append(run(name, scratch / f"{name.split()[0]}-first-{k}.db"))
            idle = {name: [] for name in programs}
            for k in range(options.runs):
                for name in programs:
                    idle[name].append(run(name, scratch / f"{name.split()[0]}-first-0.db"))
        pushed = push(new, scratch, options.push)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)

    print(f"gmail-sync against the stand-in on 127.0.0.1 ({len(gmail.ids())} messages of samples/sample.mbox), "
          f"the two in turns, {os.cpu_count()} cores")
    for title, results in (("a pass with nothing to do", idle), ("the first sync of the sample", first)):
        medians = {}
        print(f"{title}:")
        for name, runs in results.items():
            times = [t for t, _ in runs]
            medians[name] = statistics.median(times)
            requests = sorted({n for _, n in runs})
            print(f"  {name:15} median {1000 * medians[name]:7.1f} ms, p90 {1000 * percentile(times, 90):7.1f} ms, "
                  f"{'/'.join(map(str, requests))} requests a pass ({len(runs)} runs)")
        old_name, new_name = programs
        print(f"  ratio: the program takes {medians[new_name] / medians[old_name]:.2f} of the bash script's time "
              f"({medians[old_name] / medians[new_name]:.1f}x faster)")
    met = statistics.median(t for t, _ in idle["program"]) < 0.3
    print(f"target (issue 44): a pass with nothing to do under 300 ms: {'met' if met else 'NOT met'}")
    seconds, batches, requests, left = pushed
    print(f"pushing {options.push} read marks queued in the store: one pass, {1000 * seconds:.0f} ms, "
          f"{requests} requests ({batches} batchModify, the history.list before them), {left} left queued")


def push(program, scratch, count):
    """One pass that pushes `count` read marks: (seconds, batchModify calls, requests, left)."""
    def message(n):
        return (f"From: Friend {n} <friend{n}@example.org>\r\nTo: me@example.com\r\nSubject: News {n}\r\n"
                f"Date: Mon, 2 Mar 2026 {n // 3600 % 24:02d}:{n // 60 % 60:02d}:{n % 60:02d} +0000\r\n"
                f"Message-ID: <bench-{n}@example.org>\r\n\r\nHello {n}.\r\n").encode()
    mailstore = ROOT / ".build" / "release" / "mailstore"
    db = scratch / "push.db"
    with GmailStandIn([(message(n), ["INBOX", "UNREAD"]) for n in range(count)], page_size=500) as gmail:
        env = dict(os.environ, HOME=str(scratch), GMAIL_API=gmail.url, GMAIL_TOKEN=gmail.token, SWIFT_BACKTRACE="enable=no")
        def sync():
            return subprocess.run([str(program), "--store", str(db), str(db.with_suffix(".jsonl"))], env=env, capture_output=True)
        if sync().returncode != 0:
            sys.exit("the push bench's first sync failed")
        subprocess.run([str(mailstore), "mark", str(db), "--read", "*"], check=True, capture_output=True)
        before = len(gmail.requests)
        t0 = time.perf_counter()
        r = sync()
        elapsed = time.perf_counter() - t0
        if r.returncode != 0:
            sys.exit(f"the push pass: exit {r.returncode}: {r.stderr.decode()[-2000:]}")
        made = gmail.requests[before:]
        left = len(subprocess.run([str(mailstore), "pending", str(db)], capture_output=True).stdout.splitlines())
        return elapsed, sum(q["path"].endswith("/batchModify") for q in made), len(made), left


if __name__ == "__main__":
    main()
