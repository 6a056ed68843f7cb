"""chat-render's pictures and files, in one run, on COUNT kept images of mixed sizes (PNG and
JPEG, 320 to 3000 pixels wide) in messages of ten conversations, with a PDF and an HTML file:
1. the first render, which runs mail-thumbnail (built, else Tests/e2e's stand-in over
   vipsthumbnail) on every image, against vipsthumbnail itself run on the same files for a
   thumbnail and a display copy each. Target: mail-thumbnail runs once.
2. a render again, all made: against a render of the same records with nothing kept (no
   attachment to copy or show). Target: under 1.5x, no process started.
3. `mailstore deliver --site` of a message without attachments into a store whose conversation
   shows the pictures, against the same delivery into a store with nothing kept. Target: about
   1x, no process started.
    .venv/bin/python bench/site-pictures.py [COUNT]   (default 100)"""
import json
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]
BIN = ROOT / ".build" / "release"
sys.path.insert(0, str(ROOT / "Tests" / "e2e"))
from pictures import attachment, environment, kept_files, png  # noqa: E402

NOW = "2026-03-11T00:00:00Z"


def timed(args, **kw):
    t = time.perf_counter()
    subprocess.run(args, check=True, stdout=subprocess.DEVNULL, **kw)
    return time.perf_counter() - t


def median(f, n=5):
    return sorted(f() for _ in range(n))[n // 2]


def main():
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 100
    work = pathlib.Path(tempfile.mkdtemp(prefix="site-pictures-"))
    try:
        kept = work / "kept"
        kept.mkdir()
        images = []
        for i in range(count):  # a small picture made here, scaled by vips to its size
            scale, ext = (0.8, 2, 4, 7.5)[i % 4], ("jpg" if i % 2 else "png")
            base = png(kept / f"base{i}.png", 400, 300, hue=i % 200)
            path = kept / f"p{i}.{ext}"
            subprocess.run(["vips", "resize", base, path, str(scale)], check=True)
            base.unlink()
            images.append(attachment(path, "image/jpeg" if i % 2 else "image/png"))
        files = kept_files(work / "files")
        me = {"address": "mei@example.tw"}
        key = json.loads(subprocess.run([BIN / "participant-hash", "--me", me["address"]], check=True, capture_output=True,
                                        input=json.dumps({"id": "x", "from": {"address": "ana@x.example"}, "to": [me]}).encode()
                                        + b"\n").stdout)["participant_hash"]
        messages = []
        for i, a in enumerate(images):
            extra = [files["map"], files["page"]] if i % 25 == 0 else []
            messages.append({"id": f"m{i}@x.example", "date": f"2026-03-{1 + i % 9:02d}T{i % 24:02d}:{i % 60:02d}:00Z",
                             "from": {"name": "Ana", "address": "ana@x.example"}, "to": [me], "from_me": False,
                             "subject": "Photos", "reply_text": f"photo {i}", "participant_hash": key,
                             "attachments": [a] + extra})
        bare = [dict(m, attachments=[dict(a, saved_as=None) for a in m["attachments"]]) for m in messages]
        for name, records in (("kept", messages), ("bare", bare)):
            (work / f"{name}.jsonl").write_text("".join(json.dumps(m) + "\n" for m in records))
            (work / f"{name}-c.jsonl").write_bytes(subprocess.run([BIN / "conversation-group", "--now", NOW, work / f"{name}.jsonl"],
                                                                  check=True, capture_output=True).stdout)
        log = work / "runs.log"
        env = environment(log)

        def render(name):
            return timed([BIN / "chat-render", "--no-progress", "--conversations", work / f"{name}-c.jsonl", "--out", work / f"site-{name}",
                          "--zone", "Asia/Taipei", "--now", NOW, work / f"{name}.jsonl"], env=env)

        first = render("kept")
        runs = len(log.read_text().splitlines())
        peer_out = work / "peer"
        peer_out.mkdir()

        def peer():
            t = time.perf_counter()
            for i, a in enumerate(images):
                for size, suffix in ((320, "t.jpg"), (1600, "jpg")):
                    subprocess.run(["vipsthumbnail", a["saved_as"], "--size", f"{size}x{size}>", "-o", f"{peer_out}/{i}.{suffix}[strip]"],
                                   check=True)
            return time.perf_counter() - t
        vips = peer()
        print(f"1. first render with {count} images: {first:.2f} s, mail-thumbnail ran {runs} time(s) "
              f"({os.path.basename(env['MAILPIPE_THUMBNAIL'])}); vipsthumbnail on the same files: {vips:.2f} s; "
              f"ratio {first / vips:.2f}")

        again = median(lambda: render("kept"))
        render("bare")
        bare_time = median(lambda: render("bare"))
        print(f"2. render again, all made: {again * 1000:.0f} ms; nothing kept: {bare_time * 1000:.0f} ms; ratio {again / bare_time:.2f}; "
              f"mail-thumbnail runs now {len(log.read_text().splitlines()) - runs}")

        times = {}
        for name in ("kept", "bare"):
            db = work / f"{name}.db"
            subprocess.run([BIN / "mailstore", "add", "-q", "--me", me["address"], db, work / f"{name}.jsonl"], check=True)
            subprocess.run([BIN / "chat-render", "--store", db, "--out", work / f"store-{name}"], check=True, env=env)
            times[name] = []
        before = len(log.read_text().splitlines())
        for k in range(15):
            for name in ("kept", "bare"):
                mail = (f"From: Ana <ana@x.example>\nTo: mei@example.tw\nSubject: Photos\nDate: Tue, 10 Mar 2026 10:{k:02d}:00 +0800\n"
                        f"Message-ID: <live{k}@x.example>\n\nno picture in this one\n").encode()
                times[name].append(timed([BIN / "mailstore", "deliver", "-q", "--me", me["address"], "--site", work / f"store-{name}",
                                          work / f"{name}.db"], input=mail, env=env))
        kept_t, bare_t = (sorted(times[n])[7] for n in ("kept", "bare"))
        print(f"3. deliver --site without attachments: {kept_t * 1000:.0f} ms into a store with pictures, {bare_t * 1000:.0f} ms with "
              f"nothing kept (medians of 15, alternating); ratio {kept_t / bare_t:.2f}; mail-thumbnail runs {len(log.read_text().splitlines()) - before}")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
