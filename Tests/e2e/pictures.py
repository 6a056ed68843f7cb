"""Kept attachments for chat-render's tests of pictures and files: real pictures (PNG written
here, JPEG through vips), a one-page PDF, and files whose types run in a browser; the stand-in
mail-thumbnail (mail_thumbnail_standin.py, Debian's vipsthumbnail behind mail-thumbnail's
interface) until the real one is built."""
import fcntl
import hashlib
import os
import pathlib
import shutil
import struct
import subprocess
import time
import zlib

from conftest import BIN, ENV

HERE = pathlib.Path(__file__).parent
STANDIN = HERE / "mail_thumbnail_standin.py"
OWL = pathlib.Path("/usr/share/gtk-doc/html/libvips/owl.jpg")  # a photo Debian's libvips-doc ships


def thumbnailer():
    """The real mail-thumbnail when it is built, else the stand-in (which needs vipsthumbnail)."""
    real = BIN / "mail-thumbnail"
    if real.exists():
        return real
    if not shutil.which("vipsthumbnail"):
        import pytest
        pytest.skip("neither mail-thumbnail nor vipsthumbnail (libvips-tools) is installed")
    return STANDIN


def png(path, width, height, hue=0):
    """A PNG of a sky-to-ground gradient with a sun: something a person sees as a picture."""
    rows = []
    for y in range(height):
        row = bytearray([0])
        for x in range(width):
            sun = (x - width * 0.7) ** 2 + (y - height * 0.3) ** 2 < (min(width, height) * 0.12) ** 2
            if sun:
                r, g, b = 255, 214, 90
            elif y < height * 0.6:
                t = y / (height * 0.6)
                r, g, b = int(70 + 120 * t), int(130 + 90 * t), 235
            else:
                t = (y - height * 0.6) / (height * 0.4)
                r, g, b = int(40 + 40 * t), int(120 - 40 * t), int(60 - 20 * t)
            r, g, b = [(c + hue) % 256 for c in (r, g, b)] if hue else (r, g, b)
            row += bytes((r, g, b))
        rows.append(bytes(row))

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    data = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)) \
        + chunk(b"IDAT", zlib.compress(b"".join(rows))) + chunk(b"IEND", b"")
    pathlib.Path(path).write_bytes(data)
    return path


def jpeg(path, width, height, hue=0):
    """A JPEG, through vips from a PNG."""
    source = pathlib.Path(str(path) + ".png")
    png(source, width, height, hue)
    subprocess.run(["vips", "copy", str(source), str(path)], check=True, capture_output=True)
    source.unlink()
    return path


def pdf(path):
    """A valid one-page PDF (a page with a line of text), offsets computed."""
    stream = b"BT /F1 24 Tf 72 720 Td (Taroko trail map) Tj ET"
    objects = [b"<< /Type /Catalog /Pages 2 0 R >>", b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
               b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>",
               b"<< /Length %d >>\nstream\n" % len(stream) + stream + b"\nendstream",
               b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>"]
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for i, o in enumerate(objects, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % i + o + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    for off in offsets:
        out += b"%010d 00000 n \n" % off
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref)
    pathlib.Path(path).write_bytes(bytes(out))
    return path


def attachment(path, content_type, **fields):
    path = pathlib.Path(path)
    return {"filename": path.name, "content_type": content_type, "size": path.stat().st_size, "content_id": None,
            "disposition": "attachment", "sha256": hashlib.sha256(path.read_bytes()).hexdigest(), "saved_as": str(path), **fields}


def kept_files(folder, photo=None):
    """The kept files of a conversation with pictures: {name: attachment}."""
    folder = pathlib.Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    if photo is None:
        photo = jpeg(folder / "IMG_2041.jpg", 1200, 900)
    else:
        shutil.copy(photo, folder / "IMG_2041.jpg")
        photo = folder / "IMG_2041.jpg"
    (folder / "page.html").write_text("<html><body><script>alert(1)</script></body></html>")
    (folder / "logo.svg").write_text('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>')
    (folder / "fake.jpg").write_text("not a picture at all")
    return {
        "photo": attachment(photo, "image/jpeg"),
        "gorge": attachment(png(folder / "gorge.png", 800, 600, hue=40), "image/png"),
        "river": attachment(jpeg(folder / "river.jpg", 640, 960, hue=90), "image/jpeg"),
        "ridge": attachment(png(folder / "ridge.png", 900, 600, hue=150), "image/png"),
        "map": attachment(pdf(folder / "太魯閣-trail.pdf"), "application/pdf"),
        "page": attachment(folder / "page.html", "text/html"),
        "svg": attachment(folder / "logo.svg", "image/svg+xml"),
        "fake": attachment(folder / "fake.jpg", "image/jpeg"),
        "inline": attachment(png(folder / "inline.png", 300, 200, hue=200), "image/png", content_id="in1@x", disposition="inline"),
    }


def environment(log=None, program=None):
    """chat-render's environment with mail-thumbnail chosen; with `log`, each run of it is written there."""
    env = dict(ENV)
    program = program if program is not None else thumbnailer()
    env["MAILPIPE_THUMBNAIL"] = str(program)
    if log:
        env["STANDIN_LOG"] = str(log)
        if program != STANDIN and str(program):
            env["MAILPIPE_THUMBNAIL"], env["MAILPIPE_THUMBNAIL_REAL"] = str(HERE / "mail_thumbnail_logged.py"), str(program)
    return env


def turn_held(site):
    """Whether a render holds the site's turn (a delivery's pictures made after its pages, in the background)."""
    with open(site / ".mailpipe-site.lock", "a") as lock:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return True
        fcntl.flock(lock, fcntl.LOCK_UN)
        return False


def wait_for_turn(site, seconds=60):
    deadline = time.time() + seconds
    while turn_held(site):
        assert time.time() < deadline, "the site's turn was never given back"
        time.sleep(0.05)
