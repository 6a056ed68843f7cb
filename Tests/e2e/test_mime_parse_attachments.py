"""mime-parse's attachment objects through the built program: names in the RFC 2231/2047 forms
mail programs write, detected_type read from the content (compared with file(1) where it is
installed), and hostile names saved only inside the folder."""
import base64
import io
import os
import pathlib
import shutil
import subprocess
import zipfile

import pytest

from conftest import records, run

DATE = "Date: Mon, 2 Mar 2026 09:14:58 +0800\n"


def message(parts, n=0):
    """An mbox message of a text body and `parts`: (header lines, bytes) each, base64."""
    out = [f"From a@x Mon Mar  2 09:14:58 2026\nFrom: a@x\nMessage-ID: <m{n}@x>\n{DATE}"
           "Content-Type: multipart/mixed; boundary=zz\n\n--zz\nContent-Type: text/plain\n\nsee attached\n"]
    for headers, data in parts:
        out.append(f"--zz\n{headers}\nContent-Transfer-Encoding: base64\n\n{base64.encodebytes(data).decode()}")
    out.append("--zz--\n\n")
    return "".join(out)


# Header lines as mail programs write them, and the name each means.
NAMES = [
    # Thunderbird: RFC 2231 continuations, split inside words and at spaces
    ("Content-Type: application/pdf\nContent-Disposition: attachment;\n filename*0*=UTF-8''%C3%9C%62%65%72%73%69%63%68%74%20;\n filename*1*=%32%30%32%36%2E%70%64%66",
     "Übersicht 2026.pdf"),
    ("Content-Type: application/pdf\nContent-Disposition: attachment;\n filename*0=\"Annual \";\n filename*1=\"report.pdf\"", "Annual report.pdf"),
    # Apple Mail: filename* with a language; older mailers: the plain name beside it
    ("Content-Type: image/jpeg;\n name=\"=?ISO-8859-1?Q?Eelanal=FC=FCsi_p=E4ring.jpg?=\"\nContent-Disposition: inline;\n filename*=ISO-8859-1'et'Eelanal%FC%FCsi%20p%E4ring.jpg",
     "Eelanalüüsi päring.jpg"),
    ("Content-Type: text/plain\nContent-Disposition: attachment; filename=\"resume.txt\"; filename*=UTF-8''r%C3%A9sum%C3%A9.txt", "résumé.txt"),
    # Outlook and webmailers: RFC 2047 words, inside RFC 2231 values and continuations too
    ("Content-Type: application/octet-stream;\n name=\"=?utf-8?B?5paH5Lu2LnR4dA==?=\"\nContent-Disposition: attachment", "文件.txt"),
    ("Content-Type: application/octet-stream\nContent-Disposition: attachment;\n filename*0=\"=?UTF-8?B?5paH5Lu2?=\";\n filename*1=\"=?UTF-8?B?LnR4dA==?=\"", "文件.txt"),
    ("Content-Type: application/octet-stream\nContent-Disposition: attachment; filename*=\"=?UTF-8?Q?caf=C3=A9.txt?=\"", "café.txt"),
    ("Content-Type: application/octet-stream\nContent-Disposition: attachment; filename*=iso-2022-jp''%1B%24B%24F%24%39%24H%1B%28B.txt", "てすと.txt"),
]


@pytest.mark.parametrize("headers,expected", NAMES, ids=[n for _, n in NAMES])
def test_names_in_every_form(headers, expected):
    r = run("mime-parse", "--no-progress", input=message([(headers, b"hello\n")]))
    assert r.returncode == 0, r.stderr
    [rec] = records(r.stdout)
    assert [a["filename"] for a in rec["attachments"]] == [expected]
    assert rec["defects"] == []


def pictures():
    """Small real files of each kind, as their writers make them."""
    from PIL import Image
    files = {}
    for fmt, name in [("PNG", "photo.png"), ("JPEG", "photo.jpg"), ("GIF", "anim.gif"), ("WEBP", "photo.webp"), ("PDF", "scan.pdf")]:
        out = io.BytesIO()
        Image.new("RGB", (16, 16), (200, 30, 30)).save(out, fmt)
        files[name] = out.getvalue()
    zipped = io.BytesIO()
    with zipfile.ZipFile(zipped, "w") as z:
        z.writestr("notes.txt", "hello\n")
    files["notes.zip"] = zipped.getvalue()
    files["drawing.svg"] = b'<?xml version="1.0"?>\n<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>\n'
    files["page.html"] = b"<!DOCTYPE html>\n<html><head><title>x</title></head><body><script>alert(1)</script></body></html>\n"
    files["empty.txt"] = b""
    return files


def test_detected_type_is_what_the_content_is(tmp_path):
    files = pictures()
    program = pathlib.Path("/bin/true").read_bytes()
    # each file declared as something else, so that only the content can say what it is
    parts = [(f'Content-Type: application/octet-stream; name="{name}"\nContent-Disposition: attachment; filename="{name}"', data)
             for name, data in files.items()]
    parts.append(('Content-Type: image/jpeg; name="holiday.jpg"\nContent-Disposition: attachment; filename="holiday.jpg"', program))
    out = tmp_path / "saved"
    r = run("mime-parse", "--no-progress", "--save-attachments", out, input=message(parts))
    assert r.returncode == 0, r.stderr
    [rec] = records(r.stdout)
    found = {a["filename"]: a for a in rec["attachments"]}
    expected = {"photo.png": "image/png", "photo.jpg": "image/jpeg", "anim.gif": "image/gif", "photo.webp": "image/webp",
                "scan.pdf": "application/pdf", "notes.zip": "application/zip", "drawing.svg": "image/svg+xml",
                "page.html": "text/html", "empty.txt": "application/octet-stream"}
    assert {name: found[name]["detected_type"] for name in expected} == expected
    assert found["holiday.jpg"]["content_type"] == "image/jpeg"
    assert found["holiday.jpg"]["detected_type"] in ("application/x-pie-executable", "application/x-executable", "application/x-sharedlib")
    # the bytes saved are the bytes sent, and file(1) (the same library, reading the saved file)
    # says the same of each
    for name, a in found.items():
        saved = pathlib.Path(a["saved_as"])
        assert saved.parent == out
        assert saved.read_bytes() == (program if name == "holiday.jpg" else files[name])
    if shutil.which("file"):
        for name, a in found.items():
            if a["size"] == 0 or name == "holiday.jpg":
                # file(1) says application/x-empty where the record says octet-stream (mailpipe(5));
                # of a program, file(1) reads the ELF sections of the file and can tell a PIE
                # executable, libmagic reading bytes in memory says x-sharedlib
                continue
            said = subprocess.run(["file", "--brief", "--mime-type", a["saved_as"]], capture_output=True, text=True).stdout.strip()
            assert a["detected_type"] == said, name


def test_held_by_reference_has_no_detected_type():
    line = ('{"id":"1","threadId":"1","labelIds":["INBOX"],"internalDate":"1700000001000","payload":{"mimeType":"multipart/mixed",'
            '"headers":[{"name":"From","value":"a@x"},{"name":"Content-Type","value":"multipart/mixed; boundary=zz"}],'
            '"parts":[{"partId":"0","mimeType":"text/plain","headers":[],"body":{"size":2,"data":"aGk"}},'
            '{"partId":"1","mimeType":"image/png","filename":"a.png","headers":[{"name":"Content-Disposition","value":"attachment"}],'
            '"body":{"attachmentId":"ANGjdJ","size":5000}}]}}\n')
    r = run("mime-parse", "--no-progress", "--format", "gmail-api", input=line)
    assert r.returncode == 0, r.stderr
    [a] = records(r.stdout)[0]["attachments"]
    assert a["detected_type"] is None and a["size"] == 5000


HOSTILE = ["../../../../tmp/escaped.txt", "/etc/passwd", "..\\..\\evil.exe", "..", ".bashrc", "a\u0000b.txt",
           "line\nbreak.txt", "invoice\u202egpj.exe", "x" * 5000 + ".pdf", "%2e%2e%2fx"]


def test_hostile_names_never_leave_the_folder(tmp_path):
    # the names travel as RFC 2231 values, percent-encoded, so that NUL and newlines survive
    from urllib.parse import quote
    parts = [(f"Content-Type: application/octet-stream\nContent-Disposition: attachment; filename*=utf-8''{quote(name, safe='')}",
              name.encode()) for name in HOSTILE]
    out = tmp_path / "box" / "saved"
    out.parent.mkdir()
    r = run("mime-parse", "--no-progress", "--save-attachments", out, input=message(parts))
    assert r.returncode == 0, r.stderr
    [rec] = records(r.stdout)
    # the record keeps each name as decoded; the files are all in the folder, nothing beside it
    assert [a["filename"] for a in rec["attachments"]] == HOSTILE
    saved = [pathlib.Path(a["saved_as"]) for a in rec["attachments"]]
    assert all(p.parent == out for p in saved)
    assert sorted(os.listdir(out)) == sorted(p.name for p in saved)
    assert os.listdir(out.parent) == ["saved"]
    assert not pathlib.Path("/tmp/escaped.txt").exists() or pathlib.Path("/tmp/escaped.txt").read_bytes() != HOSTILE[0].encode()
    for p in saved:
        assert not p.name.startswith(".") and len(p.name.encode()) <= 200
        assert not any(ord(c) < 0x20 or c in "/\\\u202e" for c in p.name)
    assert [p.read_bytes() for p in saved] == [n.encode() for n in HOSTILE]


def test_a_million_parameters_take_time_in_proportion():
    """Each parameter's name was compared with every other's: 60,000 parameters (530 KB) took
    7 s, so these would take hours. Read in one pass, they take about a second."""
    params = "".join(f";p{i}=v" for i in range(1_000_000))
    pieces = "".join(f";filename*{i}=x" for i in range(100_000))
    mail = f"From: a@x\n{DATE}Content-Type: application/x-thing{params}\nContent-Disposition: attachment{pieces}\n\nxyz\n"
    r = run("mime-parse", "--no-progress", input=mail, timeout=60)
    assert r.returncode == 0, r.stderr
    [a] = records(r.stdout)[0]["attachments"]
    assert a["content_type"] == "application/x-thing" and a["filename"] == "x" * 100_000


def test_libmagic_is_loaded_only_for_a_message_with_an_attachment():
    """Nothing links libmagic: it is opened at the first attachment, so mail without one never
    pays for it (nor for the compression libraries it brings)."""
    def loaded(mail):
        r = run("mime-parse", "--no-progress", input=mail, env={"LD_DEBUG": "files"})
        assert r.returncode == 0
        return b"libmagic.so" in r.stderr
    assert not loaded(f"From: a@x\n{DATE}\nhello\n")
    assert loaded(message([("Content-Type: application/pdf", b"%PDF-1.4\n")]))


def test_without_a_magic_database_types_are_null_and_that_is_said_once(tmp_path):
    mail = message([("Content-Type: application/pdf", b"%PDF-1.4\n"), ("Content-Type: image/png", b"\x89PNG\r\n\x1a\n")])
    r = run("mime-parse", "--no-progress", input=mail, env={"MAGIC": str(tmp_path / "none.mgc")})
    assert r.returncode == 0
    assert [a["detected_type"] for a in records(r.stdout)[0]["attachments"]] == [None, None]
    assert r.stderr.decode().count("attachments have no detected_type: libmagic:") == 1
