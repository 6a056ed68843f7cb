"""Writes a libFuzzer seed corpus into DIR, one seed per file.
    python3 Fuzz/seeds.py DIR                 html-sanitize-fuzz: every XSS payload of
                                              ../shared/vectors/xss/ and every real HTML mail of
                                              ../shared/vectors/html2text/
    python3 Fuzz/seeds.py DIR TARGET          mailpipe-fuzz's TARGET: for mime-parse, real
                                              messages and mailboxes (../shared/corpus, the
                                              sample, Thunderbird's invitations) as files, mbox
                                              or Gmail API lines; for the filters, the records
                                              mime-parse makes of them (a few per seed), the
                                              calendars, schema.org mail and reactions among them.
    python3 Fuzz/seeds.py DIR mail-compose-request
                                              mail-compose-fuzz's request lines: every kind of
                                              request, every field, and mistakes.
    python3 Fuzz/seeds.py DIR attachment-name attachment-name-fuzz: the Content-Disposition and
                                              Content-Type parameters of ../shared/corpus's parts
                                              (first byte 0), and the names they give (first
                                              byte 1, for the RFC 2231 round trip).
    python3 Fuzz/seeds.py DIR mail-compose    mail-compose-fuzz's writer: the sample's messages
                                              (subjects, names, addresses, texts) in its fields.
    python3 Fuzz/seeds.py DIR pictures        pictures-fuzz: small pictures of every type it
                                              reads, written here (PNG, GIF, PDF, SVG) or by
                                              vips(1) when installed (JPEG with EXIF, WebP),
                                              and a bomb's header.
The record seeds need the release mime-parse (make build)."""
import base64
import hashlib
import json
import pathlib
import shutil
import struct
import subprocess
import sys
import tempfile
import zlib

root = pathlib.Path(__file__).resolve().parents[1]
shared = root.parent / "shared"
out = pathlib.Path(sys.argv[1])
target = sys.argv[2] if len(sys.argv) > 2 else "html-sanitize"
out.mkdir(parents=True, exist_ok=True)


def message_files():
    files = [p for p in sorted((shared / "corpus").rglob("*")) if p.is_file()
             and p.suffix not in (".json", ".tsv", ".md", ".txt") and "LICENSE" not in p.name]
    files += sorted((shared / "vectors" / "ical" / "thunderbird-invitations").rglob("*.eml"))
    return [p for p in files if p.stat().st_size <= 65536] + [root / "samples" / "sample.mbox"]


def reaction_messages():
    """RFC 9078 reactions as Delta Chat (the reaction alone) and Outlook (beside a fallback)
    send them, one taken back, and one that holds no reaction, to the message of another."""
    head = b"From: Bob <bob@example.net>\nTo: me@example.com\nDate: Mon, 2 Mar 2026 10:00:00 +0000\nIn-Reply-To: <o1@example.com>\n"
    part = b"Content-Type: text/plain; charset=utf-8\nContent-Disposition: reaction\n"
    return [head + b"Message-ID: <r1@example.net>\n" + part + b"\n\xf0\x9f\x91\x8d\n",
            head + b"Message-ID: <r2@example.net>\n" + part + b"\n\n",
            head + b"Message-ID: <r3@example.net>\n" + part + b"\nThanks!\n",
            head + b"Message-ID: <r4@example.net>\nContent-Type: multipart/mixed; boundary=M\n\n--M\n"
            b"Content-Type: multipart/alternative; boundary=A\n\n--A\nContent-Type: text/plain\n\nBob reacted\n"
            b"--A\nContent-Type: text/html\n\n<p>Bob reacted</p>\n--A--\n--M\n" + part
            + b"Content-Transfer-Encoding: base64\n\n8J+RjSDwn5iC\n--M--\n",
            b"From: Me <me@example.com>\nTo: bob@example.net\nDate: Mon, 2 Mar 2026 09:00:00 +0000\n"
            b"Message-ID: <o1@example.com>\nSubject: Lunch\n\nLunch at 12?\n"]


def compose_requests():
    """Request lines naming mail-compose-fuzz's original (o1@example.org, conversation c1)."""
    text = "Yes, 6:30!\n> Are you free?\n-- \nMei"
    requests = [
        {"reply": "o1@example.org", "text": text}, {"reply": "<o1@example.org>", "all": True, "text": text, "quote": True},
        {"reply": "o1@example.org", "list_reply": "list", "text": "x"}, {"reply": "o1@example.org", "list_reply": "author"},
        {"conversation": "c1", "text": "See you", "cc": ["Sato, Hana <hana@example.jp>", "b@example.org"]},
        {"forward": "o1@example.org", "to": "陳美玲 <mei@example.tw>, x@example.org", "text": "FYI"},
        {"forward": "o1@example.org", "to": ["x@example.org"], "as_attachment": True, "subject": "Fwd: 您的訂單"},
        {"to": "=?utf-8?q?Ren=C3=A9?= <rene@example.fr>", "bcc": "a@b.example", "subject": "Café ☕ " + "long " * 30, "text": "x " * 500},
        {"rsvp": "o1@example.org", "partstat": "accepted", "comment": "See you"},
        {"to": "x@example.org", "from": "Me <me@example.com>", "text": "From here\n.dot\n"},
        {"reply": "nobody@example.org"}, {"reply": ""}, {"to": "not an address"}, {"reply": "o1@example.org", "forward": "o1@example.org"},
        {"rsvp": "o1@example.org", "partstat": "maybe"}, {"to": "x@example.org", "attachments": []}, {"frm": "x"},
    ]
    return [json.dumps(r, ensure_ascii=False).encode() + b"\n" for r in requests] + [b"[]\n", b"{\"to\": 1}\n", b"not json\n"]


def compose_writer_seeds():
    """mail-compose-fuzz's fields (0xFF between them) from the sample's records: controls (kind,
    flags, counts), the original's subject, the request's to, cc and bcc, the original's text,
    the request's text and subject, then names and address local parts."""
    parsed = subprocess.run([str(root / ".build" / "release" / "mime-parse"), "--no-progress", str(root / "samples" / "sample.mbox")],
                            capture_output=True, check=True).stdout.splitlines()
    records = [json.loads(line) for line in parsed]
    seeds = []
    for i, r in enumerate(records):
        people = [r["from"] or {"name": "", "address": "x@example.org"}] + r["to"] + r["cc"]
        fields = [bytes([i % 5, i * 37 % 256, len(r["to"]), len(r["cc"])]), (r["subject"] or "").encode(),
                  b"Alex Rivera <alex@example.com>" if i % 5 >= 3 else b"", b"", b"" if i % 3 else b"archive@example.net",
                  (r["text"] or "")[:2000].encode(), (records[(i + 1) % len(records)]["text"] or "")[:2000].encode(),
                  (records[(i + 2) % len(records)]["subject"] or "").encode(), b"", b""]
        for p in people[:8]:
            fields += [(p["name"] or "").encode(), p["address"].split("@")[0].encode()]
        seeds.append(b"\xff".join(fields))
    # what the sample lacks: a line starting as a signature's separator and longer than a line
    # (\xf8\x00: the fuzzer's token of 100 x's), quoted lines, a line that starts with From
    seeds.append(b"\xff".join([bytes([0, 1, 0, 0]), b"", b"a@example.com", b"", b"", b"",
                               b"-- \xf8\x00 y\n> quoted  \n>> deeper\nFrom me\n", b"x  y  \xc3\xa9  z"]))
    return seeds


def attachment_name_seeds():
    """attachment-name-fuzz's inputs: each part's Content-Disposition and Content-Type
    parameters in the corpus (unfolded), and names to write as RFC 2231 pieces."""
    import email
    import email.policy
    seeds = []
    names = {"Übersicht 2026.pdf", "文件.txt", "l'été \"quoted\".txt", "../../etc/passwd", "a;b=c.txt", "invoice\u202egpj.exe"}
    for path in message_files():
        try:
            msg = email.message_from_bytes(path.read_bytes(), policy=email.policy.compat32)
        except Exception:
            continue
        for part in msg.walk():
            def params(name):
                value = part.get(name)
                raw = value.encode("utf-8", "surrogateescape") if isinstance(value, str) else b""
                raw = b" ".join(raw.split())
                return raw.split(b";", 1)[1] if b";" in raw else b""
            disposition, content_type = params("Content-Disposition"), params("Content-Type")
            if disposition or content_type:
                seeds.append(b"\x00" + disposition + b"\xff" + content_type)
            try:
                filename = part.get_filename()
            except Exception:
                filename = None
            if filename:
                names.add(str(filename))
    for k, name in enumerate(sorted(names)):
        seeds.append(b"\x01" + bytes([k % 7, 3, 11]) + b"\xff" + name.encode("utf-8", "surrogatepass"))
    return list(dict.fromkeys(seeds))
def picture_seeds():
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    def png(width, height, colour_type, pixel, declared=None):
        w, h = declared or (width, height)
        rows = b"".join(b"\0" + pixel * width for _ in range(height))
        return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, colour_type, 0, 0, 0))
                + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b""))

    seeds = [png(16, 8, 2, b"\x10\x20\x30"), png(8, 8, 6, b"\xff\0\0\x80"), png(1, 1, 2, b"\0\0\0", declared=(100000, 100000)),
             b"GIF89a\x01\0\x01\0\x80\0\0\xff\xff\xff\0\0\0!\xf9\x04\x01\0\0\0\0,\0\0\0\0\x01\0\x01\0\0\x02\x02D\x01\0;",
             b'<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><script>alert(1)</script></svg>']
    pdf = b"%PDF-1.4\n"
    offsets = []
    for i, obj in enumerate([b"<</Type/Catalog/Pages 2 0 R>>", b"<</Type/Pages/Kids[3 0 R]/Count 1>>",
                             b"<</Type/Page/Parent 2 0 R/MediaBox[0 0 200 100]/Contents 4 0 R>>",
                             b"<</Length 25>>stream\n0 0 1 rg 0 0 50 50 re f\nendstream"]):
        offsets.append(len(pdf))
        pdf += b"%d 0 obj\n" % (i + 1) + obj + b"\nendobj\n"
    xref = len(pdf)
    pdf += b"xref\n0 5\n0000000000 65535 f \n" + b"".join(b"%010d 00000 n \n" % o for o in offsets)
    seeds.append(pdf + b"trailer<</Size 5/Root 1 0 R>>\nstartxref\n%d\n%%%%EOF\n" % xref)
    if shutil.which("vips"):
        with tempfile.TemporaryDirectory() as folder:
            source = pathlib.Path(folder) / "source.png"
            source.write_bytes(seeds[0])
            for name in ["a.jpg", "a.jpg[Q=50]", "a.webp", "a.gif", "a.heic"]:
                target = pathlib.Path(folder) / name.split("[")[0]
                if subprocess.run(["vips", "copy", str(source), str(pathlib.Path(folder) / name)], capture_output=True).returncode == 0:
                    seeds.append(target.read_bytes())
    seeds += [p.read_bytes() for p in sorted((root / "docs" / "screenshots").glob("*.png")) if p.stat().st_size <= 65536]
    return seeds


if target == "attachment-name":
    seeds = attachment_name_seeds()
elif target == "pictures":
    seeds = picture_seeds()
elif target == "mail-compose-request":
    seeds = compose_requests()
elif target == "mail-compose":
    seeds = compose_writer_seeds()
elif target == "html-sanitize":
    seeds = [p.read_bytes() for p in sorted((shared / "vectors" / "html2text").glob("*.html"))]
    for name, key in [("dompurify_expect.json", "payload"), ("html5sec_h5sc.json", "payload"),
                      ("owasp_xss_filter_evasion.json", "payload"), ("roundcube_washtml.json", "input")]:
        seeds += [item[key].encode() for item in json.loads((shared / "vectors" / "xss" / name).read_text())]
elif target.startswith("mime-parse"):
    messages = [p.read_bytes() for p in message_files()] + reaction_messages()
    if target == "mime-parse-gmail-api":
        seeds = [json.dumps({"id": f"m{i}", "threadId": "t", "labelIds": ["INBOX"],
                             "raw": base64.urlsafe_b64encode(m).decode()}).encode() + b"\n" for i, m in enumerate(messages)]
    elif target == "mime-parse-mbox":
        seeds = [m if m.startswith(b"From ") else b"From someone@example.org Mon Mar  2 09:00:00 2026\n" + m for m in messages]
    else:
        seeds = messages
else:
    parsed = subprocess.run([str(root / ".build" / "release" / "mime-parse"), "--no-progress", *map(str, message_files())],
                            capture_output=True, check=False).stdout.splitlines(keepends=True)
    reactions = b"".join(b"From x Mon Mar  2 00:00:00 2026\n" + m + b"\n" for m in reaction_messages())
    parsed += subprocess.run([str(root / ".build" / "release" / "mime-parse"), "--no-progress"], input=reactions,
                             capture_output=True, check=False).stdout.splitlines(keepends=True)
    if target == "parcel-group":  # records with shipments, as carrier-detect writes them
        parsed = subprocess.run([str(root / ".build" / "release" / "carrier-detect"), "--no-progress"], input=b"".join(parsed),
                                capture_output=True, check=False).stdout.splitlines(keepends=True)
    parsed = [line for line in parsed if len(line) <= 65536]
    seeds = [b"".join(parsed[i:i + 3]) for i in range(0, len(parsed), 3)]
for seed in seeds:
    (out / hashlib.sha1(seed).hexdigest()).write_bytes(seed)
print(f"{len(seeds)} seeds for {target} in {out}")
