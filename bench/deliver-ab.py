"""Two builds of mailstore delivering the same new messages in turns, each into its own store made
by itself from the same records, with its pages (`mailstore deliver --site`, as mailpipe-log runs
it): the wall and CPU time (user and system) of each delivery, and each build's median, p90 and
p99. For a change to the live path's start or render worth a few milliseconds, where timing one
build after the other would measure the machine's mood (CPU time drifts less with it).
    .venv/bin/python bench/deliver-ab.py [--size 200m] [--count 99] OLD_MAILSTORE NEW_MAILSTORE
The records and the new messages are bench/live.py's (.bench-data/SIZE.live/, gen_mbox.py --seed 7)."""
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
sys.path.insert(0, str(ROOT / "bench"))
from live import ME, ZONE, conversations, new_mail  # noqa: E402
from mailstore import mailbox, percentile  # noqa: E402


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--size", default="200m")
    parser.add_argument("--count", type=int, default=99)
    parser.add_argument("old")
    parser.add_argument("new")
    options = parser.parse_args()
    records = conversations(options.size, mailbox(options.size)) / "messages.jsonl"
    mail = new_mail()
    shm = pathlib.Path("/dev/shm")
    scratch = pathlib.Path(tempfile.mkdtemp(prefix="mailpipe-deliver-ab-", dir=shm if shm.is_dir() else None))
    builds = {"old": options.old, "new": options.new}
    times = {name: [] for name in builds}
    cpu = {name: [] for name in builds}
    try:
        def deliver(name, raw):
            program, db, site = builds[name], scratch / f"{name}.db", scratch / f"{name}.site"
            t0 = time.perf_counter()
            p = subprocess.Popen([program, "deliver", "-q", "--me", ME, "--site", site, "--zone", ZONE, "--journal", scratch / f"{name}.jsonl", db],
                                 stdin=subprocess.PIPE)
            p.stdin.write(raw)
            p.stdin.close()
            _, status, usage = os.wait4(p.pid, 0)
            wall = time.perf_counter() - t0
            p.returncode = os.waitstatus_to_exitcode(status)
            if p.returncode != 0:
                raise subprocess.CalledProcessError(p.returncode, program)
            cpu[name].append(usage.ru_utime + usage.ru_stime)
            return wall
        for name, program in builds.items():
            subprocess.run([program, "add", "-q", "--me", ME, scratch / f"{name}.db", records], check=True)
            deliver(name, mail[0])  # the site's first render, every page: not timed
        for k in range(1, min(options.count + 1, len(mail))):
            for name in builds:
                times[name].append(deliver(name, mail[k]))
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    for name, t in times.items():
        c = cpu[name]
        print(f"{name}: median {1000 * statistics.median(t):.1f} ms, p90 {1000 * percentile(t, 90):.1f} ms, "
              f"p99 {1000 * percentile(t, 99):.1f} ms; CPU median {1000 * statistics.median(c):.1f} ms, "
              f"p90 {1000 * percentile(c, 90):.1f} ms, p99 {1000 * percentile(c, 99):.1f} ms ({len(t)} deliveries in turns, {options.size})")


if __name__ == "__main__":
    main()
