#!/usr/bin/env python3
"""A stand-in for mail-thumbnail in chat-render's tests, behind its interface (mailpipe's
design: `mail-thumbnail [--size PX] [--display PX] [--max-pixels N] --out DIR FILE...`, one
JSON line per FILE), made with Debian's vipsthumbnail. Only JPEG, PNG, GIF, WebP (by their
first bytes) and PDF are read; anything else, or a picture over --max-pixels, is a file.
Point chat-render at it with MAILPIPE_THUMBNAIL=path/to/this."""
import argparse
import hashlib
import json
import os
import subprocess
import sys

MAGIC = [(b"\xff\xd8\xff", "image"), (b"\x89PNG\r\n\x1a\n", "image"), (b"GIF87a", "image"), (b"GIF89a", "image"),
         (b"%PDF-", "pdf")]


def header(path, field):
    r = subprocess.run(["vipsheader", "-f", field, path], capture_output=True, text=True)
    return r.stdout.strip() if r.returncode == 0 else None


def one(path, out, size, display, max_pixels):
    data = open(path, "rb").read()
    sha = hashlib.sha256(data).hexdigest()
    answer = {"file": path, "sha256": sha, "kind": "file", "width": None, "height": None,
              "thumbnail": None, "display": None, "error": None}
    kind = next((k for m, k in MAGIC if data.startswith(m)), None)
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        kind = "image"
    if kind is None:
        answer["error"] = "not a picture this program reads"
        return answer
    width, height = header(path, "width"), header(path, "height")
    if width is None or height is None:
        answer["error"] = "vips cannot read it"
        return answer
    width, height = int(width), int(height)
    if width * height > max_pixels:
        answer["error"] = f"{width} × {height} pixels is over the limit"
        return answer
    if (header(path, "orientation") or "1") in ("5", "6", "7", "8"):
        width, height = height, width
    ext = "png" if kind == "image" and header(path, "bands") in ("2", "4") else "jpg"
    thumbnail = os.path.join(out, f"{sha}.t.{ext}")
    r = subprocess.run(["vipsthumbnail", path, "--size", f"{size}x{size}", "-o", f"{thumbnail}[strip]"], capture_output=True)
    if r.returncode != 0:
        answer["error"] = "vipsthumbnail failed"
        return answer
    answer.update(kind=kind, width=width, height=height, thumbnail=thumbnail)
    if kind == "image":
        shown = os.path.join(out, f"{sha}.{ext}")
        r = subprocess.run(["vipsthumbnail", path, "--size", f"{display}x{display}>", "-o", f"{shown}[strip]"], capture_output=True)
        if r.returncode != 0:
            return dict(answer, kind="file", thumbnail=None, error="vipsthumbnail failed")
        answer["display"] = shown
    return answer


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--size", type=int, default=320)
    p.add_argument("--display", type=int, default=1600)
    p.add_argument("--max-pixels", type=int, default=100_000_000)
    p.add_argument("--out", required=True)
    p.add_argument("files", nargs="+")
    a = p.parse_args()
    os.makedirs(a.out, exist_ok=True)
    if os.environ.get("STANDIN_LOG"):  # the tests count the runs
        with open(os.environ["STANDIN_LOG"], "a") as log:
            log.write(json.dumps(a.files) + "\n")
    for f in a.files:
        print(json.dumps(one(f, a.out, a.size, a.display, a.max_pixels)), flush=True)


if __name__ == "__main__":
    sys.exit(main())
