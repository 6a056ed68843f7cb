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
4. a delivery with a 5 MB photo (a phone's JPEG, base64 in a multipart message, a new photo each
   time), `mailstore deliver --site` as mailpipe-log runs it: time to pages, against the same
   message without the photo, and mail-thumbnail alone on the photo, in turns.
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
        photo_delivery(work, me["address"])
    finally:
        shutil.rmtree(work, ignore_errors=True)


def photo(path, seed, megabytes=5):
    """A JPEG of about `megabytes` (noise compresses as a phone's detailed photo does not: the size is what counts)."""
    import random
    from PIL import Image
    rng = random.Random(seed)
    width, height = 2000, 1500
    smooth = Image.frombytes("RGB", (width // 8, height // 8), rng.randbytes(width // 8 * height // 8 * 3)).resize((width, height))
    noise = Image.frombytes("RGB", (width, height), rng.randbytes(width * height * 3))
    Image.blend(smooth, noise, 0.35).save(path, quality=97)
    assert abs(path.stat().st_size - megabytes * 1_000_000) < 2_500_000, path.stat().st_size
    return path


def photo_delivery(work, me, turns=5):
    import base64
    env = environment()
    db, site = work / "photo.db", work / "photo-site"
    times = {"photo": [], "text": [], "mail-thumbnail": []}
    for k in range(turns):
        jpeg = photo(work / f"photo{k}.jpg", k)
        body = base64.encodebytes(jpeg.read_bytes()).decode()
        for name in ("photo", "text"):
            head = (f"From: Ana <ana@x.example>\nTo: {me}\nSubject: Look\nDate: Wed, 11 Mar 2026 09:{k:02d}:00 +0800\n"
                    f"Message-ID: <{name}{k}@x.example>\nMIME-Version: 1.0\n")
            if name == "photo":
                mail = (head + 'Content-Type: multipart/mixed; boundary="b"\n\n--b\nContent-Type: text/plain\n\nthe view from the top\n'
                        f'--b\nContent-Type: image/jpeg; name="IMG_{k}.jpg"\nContent-Disposition: attachment; filename="IMG_{k}.jpg"\n'
                        f"Content-Transfer-Encoding: base64\n\n{body}--b--\n")
            else:
                mail = head + "Content-Type: text/plain\n\nthe view from the top\n"
            times[name].append(timed([BIN / "mailstore", "deliver", "-q", "--me", me, "--site", site, db], input=mail.encode(), env=env))
        out = work / "alone"
        shutil.rmtree(out, ignore_errors=True)
        out.mkdir()
        times["mail-thumbnail"].append(timed([env["MAILPIPE_THUMBNAIL"], "--out", out, jpeg]))
    photo_t, text_t, alone = (sorted(times[n])[turns // 2] for n in ("photo", "text", "mail-thumbnail"))
    shown = sum(1 for p in (site / "c").glob("*.html") if "/a/" in p.read_text() and 'class="picture"' in p.read_text())
    print(f"4. deliver --site with a 5 MB photo: {photo_t * 1000:.0f} ms to pages; the same message without it: "
          f"{text_t * 1000:.0f} ms (ratio {photo_t / text_t:.1f}); mail-thumbnail alone on the photo: {alone * 1000:.0f} ms "
          f"(medians of {turns}, in turns; {shown} page(s) show the photos)")


if __name__ == "__main__":
    main()
