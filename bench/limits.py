"""The resource cases of hostile mail (issue 41), each delivered whole through the live path
(mailpipe-log: mime-parse and the filters, the journal, mailstore add) into a new store, beside
an ordinary message delivered the same way in the same run:
  - a message to 100,000 named recipients,
  - a message of 1,000,000 header fields, each of its own name,
  - a 45 MB base64 text part of NULs.
Printed for each: the wall time, the largest process's peak memory, the journal line and the
database, and the ratio of its time to the ordinary message's. Target: each under 5 s and
256 MB, with the default limits of mailpipe(5).
    .venv/bin/python bench/limits.py
Set MAILPIPE_BIN to take the binaries elsewhere than .build/release."""
import base64
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parents[1]
BIN = pathlib.Path(os.environ.get("MAILPIPE_BIN", ROOT / ".build" / "release"))
SECONDS, MEGABYTES = 5.0, 256
HEAD = b"From: a@b.example\nSubject: s\nDate: Mon, 2 Mar 2026 09:14:58 +0800\n"


def cases():
    yield "an ordinary message", HEAD + b"To: d@e.example\nMessage-ID: <plain@b.example>\n\nAre you free on Friday?\n"
    to = b", ".join(b"Person %d <p%d@example.com>" % (i, i) for i in range(100_000))
    yield "100,000 recipients", HEAD + b"To: " + to + b"\nMessage-ID: <rcpt@b.example>\n\nbody\n"
    fields = b"".join(b"X-H%d: v\n" % i for i in range(1_000_000))
    yield "1,000,000 header names", HEAD + b"To: d@e.example\nMessage-ID: <fields@b.example>\n" + fields + b"\nbody\n"
    yield "45 MB of NULs", (HEAD + b"To: d@e.example\nMessage-ID: <nul@b.example>\n"
                            b"Content-Type: text/plain\nContent-Transfer-Encoding: base64\n\n" + base64.encodebytes(b"\0" * (45 << 20)))


def deliver(message, folder):
    """Seconds, and the peak resident memory in MB of the largest process of the delivery, as
    GNU time reads them (a child forked from this process would count this one's memory)."""
    env = dict(os.environ, PATH=f"{BIN}:{os.environ['PATH']}", SWIFT_BACKTRACE="enable=no")
    times = folder / "time"
    with tempfile.TemporaryFile() as mail:
        mail.write(message)
        mail.seek(0)
        r = subprocess.run(["/usr/bin/time", "-f", "%e %M", "-o", times, ROOT / "pipelines" / "mailpipe-log",
                            "--store", folder / "mail.db", "--me", "d@e.example", folder / "messages.jsonl"],
                           stdin=mail, capture_output=True, env=env)
    if r.returncode != 0:
        sys.exit(f"bench/limits.py: the delivery failed: {r.stderr.decode(errors='replace')}")
    seconds, kilobytes = times.read_text().split()
    return float(seconds), int(kilobytes) / 1024


def main():
    if not (BIN / "mailstore").exists():
        sys.exit(f"bench/limits.py: no {BIN}/mailstore: run make build first")
    print(f"{'case':<24} {'seconds':>8} {'peak MB':>8} {'journal MB':>11} {'store MB':>9} {'x ordinary':>11}  target")
    baseline = None
    failed = False
    for name, message in cases():
        folder = pathlib.Path(tempfile.mkdtemp(prefix="mailpipe-limits-"))
        try:
            seconds, peak = deliver(message, folder)
            journal = (folder / "messages.jsonl").stat().st_size / 1e6
            store = sum(f.stat().st_size for f in folder.glob("mail.db*")) / 1e6
        finally:
            shutil.rmtree(folder)
        baseline = baseline or seconds
        ok = seconds < SECONDS and peak < MEGABYTES
        failed |= not ok
        print(f"{name:<24} {seconds:8.2f} {peak:8.0f} {journal:11.1f} {store:9.1f} {seconds / baseline:11.1f}  "
              f"{'under' if ok else 'OVER'} {SECONDS:.0f} s and {MEGABYTES} MB")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
