"""chat-render on the generated mailbox (../shared/gen, SIZE 50m or 1g, with calendar mail), in one run:
1. its time to write the whole site from the pipeline's messages and conversations, against
   mime-parse's time on the mailbox itself. Target: faster than mime-parse.
2. its peak RSS. Target: under 256 MiB at 1g (memory is a summary per conversation and a few
   dozen bytes a message; the bubbles wait in a scratch file).
3. ten messages appended to the mailbox, the pipeline run again, and chat-render run over the
   same folder: which files it writes. Target: only the pages of the conversations the ten
   messages joined, their full-size pages, and the lists (index, newsletters, lists, parcels,
   events, archived); no other conversation's page.
    .venv/bin/python bench/chat-render.py [SIZE]   (default 1g)"""
import json
import os
import pathlib
import shutil
import subprocess
import sys
import time

from events import COUNT, DATA, mailbox
from realhtml import BIN, ROOT, SHARED

ME = "meiling.chen@gmail.com"
NOW = "2026-06-01T00:00:00Z"
LISTS = ("index", "newsletters", "lists", "parcels", "parcels-earlier", "events", "archived")


def pipeline(out, *mailboxes):
    if not (out / "conversations.jsonl").exists():
        subprocess.run([ROOT / "pipelines" / "mbox-to-conversations", "--me", ME, "--zone", "Asia/Taipei", "--out", out,
                        *mailboxes], check=True, stderr=subprocess.DEVNULL)
    return out


def render(work, site):
    """Seconds, peak RSS (KiB) and CPU seconds in the program and in the kernel of one chat-render run."""
    t0 = time.perf_counter()
    r = subprocess.run(["/usr/bin/time", "-f", "%M %U %S", BIN / "chat-render", "--no-progress", "--conversations",
                        work / "conversations.jsonl", "--out", site, "--zone", "Asia/Taipei", "--now", NOW,
                        work / "messages.jsonl"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, check=True)
    rss, user, system = r.stderr.decode().split()[-3:]
    return time.perf_counter() - t0, (int(rss), float(user), float(system))


def du(folder):
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())


def warm(path):
    with open(path, "rb") as f:
        while f.read(1 << 24):
            pass


def main():
    size = sys.argv[1] if len(sys.argv) > 1 else "1g"
    mbox = mailbox(size)
    work = pipeline(DATA / f"{size}.chat", mbox)
    runs = 3 if size == "50m" else 2

    def parse():
        warm(mbox)
        t0 = time.perf_counter()
        subprocess.run([BIN / "mime-parse", "--no-progress", mbox], stdout=subprocess.DEVNULL, check=True)
        return time.perf_counter() - t0

    # The timed runs write into tmpfs when there is one: deleting a site of thousands of files
    # makes ext4's inode allocator slow for a while after (its recently_deleted check), and that
    # would be measured instead of chat-render. One run on the disk is reported beside them.
    shm = pathlib.Path("/dev/shm")
    scratch = shm / f"mailpipe-bench-{os.getpid()}" if shm.is_dir() else DATA / f"{size}.site-timed"
    renders = []

    def whole_site(site):
        shutil.rmtree(site, ignore_errors=True)
        warm(work / "messages.jsonl")
        seconds, usage = render(work, site)
        renders.append((seconds, *usage))
        return seconds

    mime = min(parse() for _ in range(runs))
    chat = min(whole_site(scratch) for _ in range(runs))
    rss = max(r[1] for r in renders) / 1024
    _, _, user, system = min(renders)
    pages = sum(1 for _ in scratch.rglob("*.html"))
    written = du(scratch) / 1e6
    shutil.rmtree(scratch)
    site = DATA / f"{size}.site"
    on_disk = whole_site(site)
    mb = mbox.stat().st_size / 1e6
    print(f"== generated mailbox {size}: {COUNT[size]} messages, {mb:.0f} MB; {pages} pages, {written:.0f} MB ==")
    print(f"mime-parse   {mime:7.2f} s")
    print(f"chat-render  {chat:7.2f} s   {chat / mime:.2f} of mime-parse's time (target < 1) into {scratch.parent}; "
          f"CPU {user:.2f} s in chat-render, {system:.2f} s in the kernel")
    print(f"chat-render  {on_disk:7.2f} s   {on_disk / mime:.2f} of mime-parse's time into {site} (the disk, once, after deleting the last site)")
    print(f"chat-render peak RSS {rss:.0f} MiB (target < 256)")

    # ten more messages, as a mail hook would bring them
    tail = DATA / "ten-more.mbox"
    subprocess.run(["python3", SHARED / "gen" / "gen_mbox.py", "--messages", "10", "--seed", "7", "--events-rate", "0.2",
                    "--out", tail], check=True, stderr=subprocess.DEVNULL)
    raw = tail.read_bytes()  # bytes: the generated mail has charsets other than UTF-8
    tail.write_bytes(raw.replace(b"Message-ID: <", b"Message-ID: <ten-more-").replace(b"Message-Id: <", b"Message-Id: <ten-more-"))
    grown = pipeline(DATA / f"{size}.chat-ten-more", mbox, tail)
    new_ids = {i for i in (json.loads(l)["id"] for l in (grown / "messages.jsonl").open() if '"ten-more-' in l)
               if i.startswith("ten-more-")}
    joined = {c["conversation_id"] for c in map(json.loads, (grown / "conversations.jsonl").open())
              if new_ids & set(c["message_ids"])}
    before = {p: p.stat().st_mtime_ns for p in site.rglob("*") if p.is_file()}
    seconds, _ = render(grown, site)
    written = sorted(str(p.relative_to(site)) for p in site.rglob("*")
                     if p.is_file() and before.get(p) != p.stat().st_mtime_ns)
    removed = [str(p.relative_to(site)) for p in before if not p.exists()]
    conversation_pages = [w for w in written if w.startswith("c/")]
    others = [w for w in conversation_pages if w[2:].split(".")[0] not in joined]
    list_pages = [w for w in written if w.split(".")[0] in LISTS]
    message_pages = [w for w in written if w.startswith("m/")]
    rest = [w for w in written if w not in conversation_pages + list_pages + message_pages and not w.startswith(".")]
    print(f"ten messages appended ({len(new_ids)} read, joining {len(joined)} conversations): the re-run took {seconds:.2f} s and wrote "
          f"{len(written)} of {len(before)} files: {len(conversation_pages)} conversation pages, {len(message_pages)} message pages, "
          f"{len(list_pages)} list pages, {len(rest)} other; removed {len(removed)}")
    print(f"conversation pages written that the ten messages did not join: {len(others)} (target 0) {others[:5]}")
    if rest:
        print("other files written:", rest[:10])
    shutil.rmtree(DATA / f"{size}.chat-ten-more")
    tail.unlink()
    ok = chat < mime and rss < 256 and not others and not rest and len(new_ids) == 10
    print("chat-render targets:", "met" if ok else "NOT met")


if __name__ == "__main__":
    main()
