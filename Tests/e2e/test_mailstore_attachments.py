"""Attachments kept by the store (issue 45): wherever mail arrives (mailpipe-log, mailstore
deliver, gmail-sync, mailstore add of mime-parse --save-attachments records) each attachment's
bytes land once in DB.attachments/, named by their SHA-256, readable by the user alone; those
over --max-attachment are listed, not kept; `mailstore attachment` gives back the exact bytes;
a file no message names any more is removed."""
import base64
import hashlib
import json
import os
import sqlite3
import stat
import subprocess
import sys

import pytest

from conftest import BIN, records, run
from gmail_standin import GmailStandIn
from test_gmail_sync import synced
from test_procmail import hook_env, mailpipe_log

PDF = b"%PDF-1.4\n" + bytes((k * 7) % 256 for k in range(50_000)) + b"\n%%EOF\n"
PHOTO = b"\xff\xd8\xff\xe0" + os.urandom(20_000) + b"\xff\xd9"
UUFILE = b"a uuencoded note\n" * 10


def sha(data):
    return hashlib.sha256(data).hexdigest()


def uuencode(data, name):
    lines = [f"begin 644 {name}"]
    for k in range(0, len(data), 45):
        chunk = data[k:k + 45]
        line = chr(32 + len(chunk))
        padded = chunk + b"\0" * (-len(chunk) % 3)
        for i in range(0, len(padded), 3):
            n = int.from_bytes(padded[i:i + 3], "big")
            line += "".join(chr(32 + ((n >> s) & 63) or 96) for s in (18, 12, 6, 0))
        lines.append(line)
    return "\n".join(lines + ["`", "end"])


def mail(n, attachments=(), text="Here it is.", uuencoded=None):
    """A message from Alex with `attachments` [(filename, type, bytes)], base64 encoded."""
    parts = [f"--b\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n{text}\r\n"
             + (uuencode(*uuencoded).replace("\n", "\r\n") + "\r\n" if uuencoded else "")]
    for filename, content_type, data in attachments:
        body = base64.encodebytes(data).decode().replace("\n", "\r\n")
        parts.append(f"--b\r\nContent-Type: {content_type}\r\nContent-Disposition: attachment; filename=\"{filename}\"\r\n"
                     f"Content-Transfer-Encoding: base64\r\n\r\n{body}")
    return ("From: Alex <alex@example.org>\r\nTo: me@example.com\r\nDelivered-To: me@example.com\r\n"
            f"Subject: files {n}\r\nDate: Mon, 2 Mar 2026 10:{n:02d}:00 +0000\r\nMessage-ID: <files-{n}@example.org>\r\n"
            "MIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary=\"b\"\r\n\r\n"
            + "".join(parts) + "--b--\r\n").encode()


def folder_of(db):
    return db.parent / (db.name + ".attachments")


def kept_files(db):
    folder = folder_of(db)
    return sorted(name for name in os.listdir(folder) if name != ".lock") if folder.exists() else []


def rows(db):
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as c:
        return c.execute("SELECT m.id, a.part, a.position, a.filename, a.size, a.sha256, a.kept FROM attachments a "
                         "JOIN messages m ON m.rowid = a.message ORDER BY m.id, a.position").fetchall()


def stored_records(db):
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as c:
        return {i: json.loads(r) for i, r in c.execute("SELECT id, record FROM messages")}


def assert_private(db):
    folder = folder_of(db)
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    for name in kept_files(db):
        assert stat.S_IMODE((folder / name).stat().st_mode) == 0o600
        assert sha((folder / name).read_bytes()) == name


def deliver(db, message, *args):
    return run("mailstore", "deliver", "-q", "--me", "me@example.com", *args, db, input=message)


def test_mailpipe_log_keeps_each_attachment_once_readable_by_the_user_alone(tmp_path):
    log, db = tmp_path / "m.jsonl", tmp_path / "store" / "mail.db"
    env = hook_env(tmp_path, MAILPIPE_STORE=str(db))
    for n, message in enumerate([mail(1, [("trail.pdf", "application/pdf", PDF)]),
                                 mail(2, [("again.pdf", "application/pdf", PDF), ("gorge.jpg", "image/jpeg", PHOTO)]),
                                 mail(3, uuencoded=(UUFILE, "note.txt"))]):
        # a umask that would leave files readable by others: the folder and files are private all the same
        r = mailpipe_log(log, input=message, env=env, umask=0o022)
        assert r.returncode == 0, r.stderr
    assert kept_files(db) == sorted([sha(PDF), sha(PHOTO), sha(UUFILE)])
    assert_private(db)
    folder = folder_of(db).resolve()
    assert rows(db) == [("files-1@example.org", "2", 0, "trail.pdf", len(PDF), sha(PDF), 1),
                        ("files-2@example.org", "2", 0, "again.pdf", len(PDF), sha(PDF), 1),
                        ("files-2@example.org", "3", 1, "gorge.jpg", len(PHOTO), sha(PHOTO), 1),
                        ("files-3@example.org", None, 0, "note.txt", len(UUFILE), sha(UUFILE), 1)]
    # the journal holds the record the database holds: saved_as is the kept file
    journal = {r["id"]: r for r in records(log.read_bytes())}
    for id, record in stored_records(db).items():
        assert record["attachments"] == journal[id]["attachments"]
        for a in record["attachments"]:
            assert a["saved_as"] == str(folder / a["sha256"])
    # the cap, given to mailpipe-log
    big = mail(4, [("big.bin", "application/octet-stream", PHOTO[::-1])])
    assert mailpipe_log("--max-attachment", "1000", log, input=big, env=env).returncode == 0
    assert [row[6] for row in rows(db) if row[0] == "files-4@example.org"] == [0]
    assert sha(PHOTO[::-1]) not in kept_files(db)
    # and the journal makes the same database again, files found by their SHA-256
    again = tmp_path / "again.db"
    assert run("mailstore", "add", "-q", "--me", "me@example.com", again, log).returncode == 0
    assert [row[1:] for row in rows(again)] == [row[1:] for row in rows(db)]


def test_mailstore_deliver_lists_an_attachment_over_the_cap_and_does_not_write_it(tmp_path):
    db = tmp_path / "mail.db"
    r = deliver(db, mail(1, [("trail.pdf", "application/pdf", PDF), ("small.txt", "text/plain", b"small")]),
                "--max-attachment", "1000")
    assert r.returncode == 0, r.stderr
    assert kept_files(db) == [sha(b"small")]
    assert [(row[3], row[6]) for row in rows(db)] == [("trail.pdf", 0), ("small.txt", 1)]
    record = stored_records(db)["files-1@example.org"]
    assert [a["saved_as"] is None for a in record["attachments"]] == [True, False]
    r = run("mailstore", "attachment", db, "files-1@example.org", "2", "-o", tmp_path / "out")
    assert r.returncode == 69 and b"listed but not kept" in r.stderr
    assert not (tmp_path / "out").exists()
    assert deliver(db, mail(2), "--max-attachment", "-1").returncode == 64


def test_mailstore_attachment_writes_the_exact_bytes(tmp_path):
    db = tmp_path / "mail.db"
    assert deliver(db, mail(1, [("trail.pdf", "application/pdf", PDF), ("gorge.jpg", "image/jpeg", PHOTO)],
                            uuencoded=(UUFILE, "note.txt"))).returncode == 0
    assert run("mailstore", "attachment", db, "files-1@example.org", "3").stdout == PHOTO
    out = tmp_path / "trail.pdf"
    out.write_bytes(b"an older file, replaced whole")
    r = run("mailstore", "attachment", db, "files-1@example.org", "2", "-o", out)
    assert r.returncode == 0, r.stderr
    assert out.read_bytes() == PDF and stat.S_IMODE(out.stat().st_mode) == 0o600
    # a uuencoded file has no part: its position names it
    positions = {row[3]: row[2] for row in rows(db)}
    assert run("mailstore", "attachment", db, "files-1@example.org", f"#{positions['note.txt']}").stdout == UUFILE
    for message, part in [("nobody@example.org", "2"), ("files-1@example.org", "9"), ("files-1@example.org", "#9"),
                          ("files-1@example.org", "#x")]:
        r = run("mailstore", "attachment", db, message, part)
        assert r.returncode == 66 and r.stdout == b"" and r.stderr, (message, part)
    assert run("mailstore", "attachment", tmp_path / "none.db", "files-1@example.org", "2").returncode == 66
    # a file damaged on the disk is said, and -o leaves nothing
    kept = folder_of(db) / sha(PDF)
    kept.write_bytes(PDF[:-1] + b"!")
    r = run("mailstore", "attachment", db, "files-1@example.org", "2", "-o", tmp_path / "damaged.pdf")
    assert r.returncode == 65 and b"SHA-256" in r.stderr
    assert not (tmp_path / "damaged.pdf").exists() and list(tmp_path.glob("damaged.pdf*")) == []
    kept.unlink()
    r = run("mailstore", "attachment", db, "files-1@example.org", "2")
    assert r.returncode == 69 and b"gone" in r.stderr


def test_hostile_names_never_become_paths(tmp_path):
    db = tmp_path / "store" / "mail.db"
    db.parent.mkdir(mode=0o700)
    names = ["../../escape.sh", "/etc/passwd", "..", ".lock", "a\x01b\x1b[31m.txt", "C:\\windows\\x.exe", sha(b"x")]
    attachments = [(name, "application/octet-stream", f"content {k}".encode()) for k, name in enumerate(names)]
    r = deliver(db, mail(1, attachments))
    assert r.returncode == 0, r.stderr
    assert kept_files(db) == sorted(sha(data) for _, _, data in attachments)
    assert sorted(os.listdir(tmp_path)) == ["store"]
    assert {name for name in os.listdir(tmp_path / "store") if not name.startswith("mail.db-")} == {"mail.db", "mail.db.lock", "mail.db.attachments"}
    assert_private(db)


def test_mailstore_add_copies_in_what_save_attachments_wrote_when_it_holds_its_bytes(tmp_path):
    saved, db = tmp_path / "saved", tmp_path / "mail.db"
    mbox = b"".join(b"From alex@example.org Mon Mar  2 10:00:00 2026\n" + m.replace(b"\r\n", b"\n") + b"\n"
                    for m in [mail(1, [("trail.pdf", "application/pdf", PDF)]), mail(2, [("gorge.jpg", "image/jpeg", PHOTO)])])
    r = run("mime-parse", "--no-progress", "--save-attachments", saved, input=mbox)
    assert r.returncode == 0, r.stderr
    parsed, parsed_bytes = records(r.stdout), r.stdout
    paths = [a["saved_as"] for rec in parsed for a in rec["attachments"]]
    assert all(paths) and all(str(saved) in p for p in paths)
    # the photo's saved file no longer holds its bytes: it is not kept
    photo_path = next(a["saved_as"] for rec in parsed for a in rec["attachments"] if a["filename"] == "gorge.jpg")
    with open(photo_path, "r+b") as f:
        f.write(b"XXXX")
    r = run("mailstore", "add", "-q", "--me", "me@example.com", db, input=r.stdout)
    assert r.returncode == 0, r.stderr
    assert kept_files(db) == [sha(PDF)]
    assert [(row[3], row[6]) for row in rows(db)] == [("trail.pdf", 1), ("gorge.jpg", 0)]
    stored = stored_records(db)
    assert stored["files-1@example.org"]["attachments"][0]["saved_as"] == str(folder_of(db).resolve() / sha(PDF))
    assert stored["files-2@example.org"]["attachments"][0]["saved_as"] is None
    assert_private(db)
    # the same records again change nothing; an orphan a killed run left is swept
    orphan = folder_of(db) / sha(b"left by a killed delivery")
    orphan.write_bytes(b"left by a killed delivery")
    (folder_of(db) / ".tmp-99999-1").write_bytes(b"half")
    r = run("mailstore", "add", "--me", "me@example.com", db, input=parsed_bytes)
    assert r.returncode == 0 and b"0 added, 0 updated, 2 unchanged" in r.stderr, r.stderr
    assert kept_files(db) == [sha(PDF)]


def test_gmail_sync_keeps_attachments_and_a_deletion_removes_the_last_copy(tmp_path):
    db = tmp_path / "mail.db"
    with GmailStandIn([(mail(1, [("trail.pdf", "application/pdf", PDF)]), ["INBOX"]),
                       (mail(2, [("trail.pdf", "application/pdf", PDF), ("gorge.jpg", "image/jpeg", PHOTO)]), ["INBOX"])],
                      page_size=7) as gmail:
        synced(gmail, tmp_path, db)
        assert kept_files(db) == sorted([sha(PDF), sha(PHOTO)])
        assert_private(db)
        first, second = gmail.ids()
        assert run("mailstore", "attachment", db, "files-2@example.org", "3").stdout == PHOTO
        gmail.delete(second)
        synced(gmail, tmp_path, db)
        assert kept_files(db) == [sha(PDF)]  # the PDF still has a message
        gmail.delete(first)
        synced(gmail, tmp_path, db)
        assert kept_files(db) == [] and rows(db) == []
        # the cap, given to gmail-sync
        gmail.add_message(mail(3, [("trail.pdf", "application/pdf", PDF)]))
        synced(gmail, tmp_path, db, "--max-attachment", "100")
        assert kept_files(db) == [] and [row[6] for row in rows(db)] == [0]


def test_deliveries_and_removals_at_once_never_lose_a_kept_file(tmp_path):
    """Deliveries keep a file before their transaction commits; removal runs meanwhile (every
    mailstore add sweeps): it must never take a file a delivery under way is about to name."""
    db = tmp_path / "mail.db"
    assert deliver(db, mail(0)).returncode == 0
    environment = dict(os.environ, SWIFT_BACKTRACE="enable=no")
    deliveries = [subprocess.Popen([str(BIN / "mailstore"), "deliver", "-q", "--me", "me@example.com", str(db)],
                                   stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=environment)
                  for _ in range(12)]
    sweeps = []
    for n, p in enumerate(deliveries, start=1):
        p.stdin.write(mail(n, [("trail.pdf", "application/pdf", PDF), (f"own-{n}.txt", "text/plain", f"file {n}".encode())]))
        p.stdin.close()
        sweeps.append(subprocess.Popen([str(BIN / "mailstore"), "add", "-q", "--me", "me@example.com", str(db), "/dev/null"],
                                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=environment))
    for p in deliveries + sweeps:
        assert p.wait(timeout=300) == 0, p.stderr.read()
    listed = rows(db)
    assert len(listed) == 24 and all(row[6] == 1 for row in listed)
    assert kept_files(db) == sorted({row[5] for row in listed})
    assert_private(db)


def test_an_attachment_far_over_the_cap_is_read_in_pieces_not_held(tmp_path):
    """A 60 MiB attachment with --max-attachment 1000000 is listed with its SHA-256, and the
    delivery's peak memory is about the message's, not the 3.3 times it that holding the
    decoded part cost (about 260 MB here; mailstore(1), ATTACHMENTS)."""
    data = b"%PDF-1.4\n" + os.urandom(60 << 20)
    message = mail(1, [("huge.pdf", "application/pdf", data)])
    (tmp_path / "huge.eml").write_bytes(message)
    db = tmp_path / "mail.db"
    # a fresh interpreter whose only child is the delivery: its children's peak is the delivery's
    measure = ("import resource, subprocess, sys\n"
               "with open(sys.argv[1], 'rb') as f:\n"
               "    r = subprocess.run(sys.argv[2:], stdin=f, capture_output=True)\n"
               "sys.stderr.buffer.write(r.stderr)\n"
               "print(r.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n")
    r = subprocess.run([sys.executable, "-c", measure, tmp_path / "huge.eml", BIN / "mailstore", "deliver", "-q",
                        "--me", "me@example.com", "--max-attachment", "1000000", db], capture_output=True, timeout=120)
    status, peak_kib = map(int, r.stdout.split())
    assert status == 0, r.stderr
    assert rows(db)[0][3:] == ("huge.pdf", len(data), sha(data), 0)
    assert kept_files(db) == []
    a = stored_records(db)["files-1@example.org"]["attachments"][0]
    assert (a["sha256"], a["size"], a["detected_type"], a["saved_as"]) == (sha(data), len(data), "application/pdf", None)
    # the message is about 81 MiB as it arrives; the decoded part is never held
    assert peak_kib * 1024 < len(message) + (40 << 20), f"peak {peak_kib} KiB for a {len(message)}-byte message"
