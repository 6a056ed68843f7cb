"""mailstore deliver: one delivery in one process (the message parsed once, the declared stages
run in it, the journal and the database written), as mailpipe-log runs it (issue 42's first step)."""
import fcntl
import json
import os
import re
import sqlite3
import subprocess
import time

from conftest import BIN, ROOT, SAMPLE, need_shared, run
from test_procmail import hook_env, mailpipe_log


def stages():
    r = run("mailstore", "stages")
    assert r.returncode == 0
    return r.stdout.decode().split()


def pipeline(mail):
    """The records the stage programs make of `mail`, one after the other as `mailstore stages` lists them."""
    data = run("mime-parse", "--no-progress", input=mail).stdout
    for stage in stages():
        r = run(stage, "--no-progress", input=data)
        assert r.returncode == 0, r.stderr
        data = r.stdout
    return data


def without_saved_as(journal):
    """A delivery's journal as the stage programs write it: the same bytes but for each
    attachment's saved_as, the file the store keeps it in (issue 45), which they leave out."""
    return re.sub(rb',"saved_as":(null|"[^"\\]*")', b"", journal)


def deliver(tmp_path, mail, *args):
    log, db = tmp_path / "m.jsonl", tmp_path / "mail.db"
    r = run("mailstore", "deliver", "-q", "--me-auto", "--journal", log, *args, db, input=mail)
    return r, log, db


def test_the_stages_are_those_make_pipeline_runs_in_its_order():
    assert stages() == ["event-extract", "html-sanitize", "text-extract", "carrier-detect", "newsletter-detect"]
    script = (SAMPLE.parents[1] / "pipelines" / "mbox-to-conversations").read_text()
    assert "mailstore stages" in script


def test_a_delivery_writes_what_the_stage_programs_write_byte_for_byte(tmp_path):
    mail = SAMPLE.read_bytes()
    r, log, db = deliver(tmp_path, mail)
    assert r.returncode == 0, r.stderr
    assert without_saved_as(log.read_bytes()) == pipeline(mail)
    kept = [a["saved_as"] for line in log.read_bytes().splitlines() for a in json.loads(line)["attachments"]]
    assert kept and all(path.startswith(f"{db}.attachments/") and os.path.exists(path) for path in kept)
    with sqlite3.connect(db) as c:
        stored = {i: rec for i, rec in c.execute("SELECT id, record FROM messages")}
    assert {json.loads(line)["id"] for line in log.read_bytes().splitlines()} == set(stored)


def test_the_generated_mailbox_delivered_whole_equals_the_programs(tmp_path):
    mbox = tmp_path / "g.mbox"
    subprocess.run(["python3", str(need_shared("gen/gen_mbox.py")), "--messages", "600", "--seed", "42", "--events-rate", "0.2",
                    "--parcel-stories-rate", "0.2", "--reports-rate", "0.1", "--out", str(mbox), "--truth", str(tmp_path / "t.jsonl")],
                   check=True, capture_output=True)
    r, log, _ = deliver(tmp_path, mbox.read_bytes())
    assert r.returncode == 0, r.stderr
    assert without_saved_as(log.read_bytes()) == pipeline(mbox.read_bytes())


HOSTILE = b"""From: Shop <news@shop.example>
To: mei@example.tw
Subject: Sale
Date: Mon, 2 Mar 2026 09:14:58 +0800
Message-ID: <hostile@shop.example>
MIME-Version: 1.0
Content-Type: text/html; charset=utf-8

<html><body><script>steal()</script><p onclick="steal()">Hello</p>
<a href="javascript:steal()">click</a><img src="https://track.example/open.gif?u=1" width="1" height="1"></body></html>
"""


def test_an_html_message_is_sanitized_in_the_journal_the_store_and_the_pages(tmp_path):
    log, db, site = tmp_path / "m.jsonl", tmp_path / "mail.db", tmp_path / "site"
    r = mailpipe_log(log, input=HOSTILE, env=hook_env(tmp_path, MAILPIPE_STORE=str(db)))
    assert r.returncode == 0, r.stderr
    with sqlite3.connect(db) as c:
        (stored,) = [rec for (rec,) in c.execute("SELECT record FROM messages")]
    assert run("chat-render", "--no-progress", "--store", db, "--out", site).returncode == 0
    pages = b"".join(p.read_bytes() for p in site.rglob("*.html")).decode()
    journal_html, stored_html = json.loads(log.read_text())["html"], json.loads(stored)["html"]
    assert "Hello" in journal_html and "Hello" in stored_html and "Hello" in pages
    for hostile in ("<script", "steal()", "onclick", "javascript:", "track.example/open.gif"):
        assert hostile not in journal_html and hostile not in stored_html and hostile not in pages, hostile


def test_an_empty_message_is_65_and_a_journal_is_untouched(tmp_path):
    r, log, db = deliver(tmp_path, b"")
    assert r.returncode == 65 and b"empty" in r.stderr
    assert not log.exists() or log.read_bytes() == b""


def test_stamp_writes_the_message_back_with_its_kind_from_the_record(tmp_path):
    forged = (b"From alex@example.com Mon Mar  2 01:14:58 2026\nFrom: Alex <alex@example.com>\nTo: mei@example.tw\n"
              b"X-Newsletter: yes\nSubject: Dinner?\nDate: Mon, 2 Mar 2026 09:14:58 +0800\nMessage-ID: <d1@example.com>\n\nFree on Friday?\n")
    r, log, _ = deliver(tmp_path, forged, "--stamp")
    assert r.returncode == 0, r.stderr
    (record,) = [json.loads(line) for line in log.read_bytes().splitlines()]
    assert r.stdout == forged.replace(b"X-Newsletter: yes\n", b"").replace(
        b"Message-ID: <d1@example.com>\n", b"Message-ID: <d1@example.com>\nX-Mail-Kind: %s\nX-Newsletter: no\n" % record["mail_kind"].encode())
    r, _, _ = deliver(tmp_path, SAMPLE.read_bytes(), "--stamp")
    assert r.returncode == 64 and b"--stamp: standard input holds more than one message (the first was delivered)" in r.stderr


# The pages in the delivering process (mailstore deliver --site, mailpipe-log --site)

def personal(k):
    return (f"From: Alex Rivera <alex@example.com>\nTo: mei@example.tw\nSubject: Dinner {k}\n"
            f"Date: Mon, 2 Mar 2026 09:{k:02d}:00 +0800\nMessage-ID: <p{k}@example.com>\n\nAre you free on Friday?\n").encode()


def shown_on_pages(site):
    return sorted(i for page in (site / "c").glob("*.html") for i in re.findall(r'data-message-id="([^"]*)"', page.read_text()))


def test_a_burst_of_deliveries_with_a_site_has_every_message_on_the_pages_once_they_return(tmp_path):
    """20 deliveries at once, each rendering in its own process: those that find another
    rendering leave it to that one, which renders again before it returns, so the pages hold
    every message as soon as the last delivery is done, with no render left running."""
    log, db, site = tmp_path / "m.jsonl", tmp_path / "mail.db", tmp_path / "site"
    env = hook_env(tmp_path)
    command = [str(ROOT / "pipelines" / "mailpipe-log"), "--me", "mei@example.tw", "--store", str(db),
               "--site", str(site), "--zone", "Asia/Taipei", str(log)]
    deliveries = [subprocess.Popen(command, stdin=subprocess.PIPE, stderr=subprocess.PIPE, env=env) for _ in range(20)]
    for k, d in enumerate(deliveries):
        d.stdin.write(personal(k))
        d.stdin.close()
    for d in deliveries:
        assert d.wait() == 0, d.stderr.read()
        assert d.stderr.read() == b""
    assert shown_on_pages(site) == sorted(f"p{k}@example.com" for k in range(20))
    assert not (site / ".mailpipe-site.due").exists()


def test_the_site_from_a_delivery_is_the_one_chat_render_makes_of_the_store(tmp_path):
    r, _, db = deliver(tmp_path, SAMPLE.read_bytes(), "--site", tmp_path / "site", "--zone", "Asia/Taipei")
    assert r.returncode == 0, r.stderr
    again = run("chat-render", "--no-progress", "--zone", "Asia/Taipei", "--store", db, "--out", tmp_path / "again")
    assert again.returncode == 0, again.stderr
    pages = lambda root: {str(p.relative_to(root)): p.read_bytes() for p in root.rglob("*.html")}
    assert pages(tmp_path / "site") == pages(tmp_path / "again") and len(pages(tmp_path / "site")) > 5


def test_a_site_that_cannot_be_written_leaves_the_delivery_done(tmp_path):
    r, log, db = deliver(tmp_path, personal(1), "--site", "/proc/mailpipe/site")
    assert r.returncode == 0
    assert b"/proc/mailpipe/site: the pages are not up to date; the mail is delivered" in r.stderr
    assert [json.loads(line)["id"] for line in log.read_bytes().splitlines()] == ["p1@example.com"]
    bad = run("mailstore", "deliver", "--zone", "Asia/Taipei", tmp_path / "mail.db", input=personal(2))
    assert bad.returncode == 64 and b"--zone: only with --site" in bad.stderr


def test_chat_render_taking_turns_leaves_a_busy_site_due_and_otherwise_waits_its_turn(tmp_path):
    r, _, db = deliver(tmp_path, personal(1), "--site", tmp_path / "site")
    assert r.returncode == 0, r.stderr
    site = tmp_path / "site"
    render = [BIN / "chat-render", "--no-progress", "--store", db, "--out", site]
    assert run("mailstore", "deliver", "-q", "--me-auto", db, input=personal(2)).returncode == 0
    with open(site / ".mailpipe-site.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        busy = subprocess.run(render + ["--take-turns"], capture_output=True, timeout=30)
        assert busy.returncode == 0 and (site / ".mailpipe-site.due").exists()
        assert shown_on_pages(site) == ["p1@example.com"]
        waiting = subprocess.Popen(render, stderr=subprocess.PIPE)
        time.sleep(0.3)
        assert waiting.poll() is None, "a run without --take-turns waits for the turn"
    assert waiting.wait(timeout=60) == 0, waiting.stderr.read()
    assert shown_on_pages(site) == ["p1@example.com", "p2@example.com"] and not (site / ".mailpipe-site.due").exists()


def test_chat_render_in_the_background_returns_at_once_and_renders_in_a_process_of_its_own(tmp_path):
    r, _, db = deliver(tmp_path, personal(1))
    site = tmp_path / "site"
    bg = subprocess.run([BIN / "chat-render", "--no-progress", "--background", "--take-turns", "--store", db, "--out", site],
                        capture_output=True, timeout=30)
    assert bg.returncode == 0 and bg.stderr == b""
    for _ in range(300):
        if (site / "index.html").exists() and not (site / ".mailpipe-site.due").exists():
            subprocess.run(["flock", str(site / ".mailpipe-site.lock"), "true"], check=True, timeout=60)
            break
        time.sleep(0.1)
    assert shown_on_pages(site) == ["p1@example.com"]
    assert (site / ".mailpipe-site.log").read_bytes() == b""


def test_every_failure_but_an_empty_message_is_temporary_so_no_mail_is_bounced(tmp_path):
    """A delivery agent bounces on 65 and keeps the mail on 75: a file that is not a database
    and a rules file of the user's with a mistake in it must keep the mail, not bounce it."""
    env = dict(os.environ, XDG_CONFIG_HOME=str(tmp_path / "config"))
    not_a_store = tmp_path / "not.db"
    not_a_store.write_bytes(b"this is no database" * 100)
    r = subprocess.run([BIN / "mailstore", "deliver", "-q", "--me-auto", not_a_store], input=personal(1), capture_output=True, env=env)
    assert r.returncode == 75 and b"not a mailstore database" in r.stderr
    (tmp_path / "config" / "mailpipe").mkdir(parents=True)
    (tmp_path / "config" / "mailpipe" / "reply-patterns.json").write_text('{"closing": ["(unclosed"]}')
    r = subprocess.run([BIN / "mailstore", "deliver", "-q", "--me-auto", tmp_path / "mail.db"], input=personal(1), capture_output=True, env=env)
    assert r.returncode == 75 and b"reply-patterns.json" in r.stderr
    r = subprocess.run([str(ROOT / "pipelines" / "mailpipe-log"), "--store", str(tmp_path / "mail.db"), str(tmp_path / "m.jsonl")],
                       input=personal(1), capture_output=True, env=dict(env, HOME=str(tmp_path)))
    assert r.returncode == 75
    (tmp_path / "config" / "mailpipe" / "reply-patterns.json").unlink()
    r = subprocess.run([BIN / "mailstore", "deliver", "-q", "--me-auto", tmp_path / "mail.db"], input=b"\n\n", capture_output=True, env=env)
    assert r.returncode == 65
