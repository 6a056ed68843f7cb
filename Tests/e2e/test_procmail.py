"""The procmail recipes (pipelines/procmailrc) with Debian's real procmail, delivering into a
temporary HOME: newsletters filed apart, every message logged as a record, and a failing
stage leaving the message queued (exit 75) instead of losing it; with MAILPIPE_SITE, the
conversations kept as pages by mailpipe-site after each delivery."""
import fcntl
import json
import os
import pathlib
import re
import shutil
import stat
import subprocess

import pytest

from conftest import BIN, ROOT, records

PROCMAIL = shutil.which("procmail")

MESSAGES = {
    "personal": b"""From alex@example.com Mon Mar  2 01:14:58 2026
From: Alex Rivera <alex@example.com>
To: mei@example.tw
Subject: Dinner on Friday?
Date: Mon, 2 Mar 2026 09:14:58 +0800
Message-ID: <p1@example.com>

Are you free on Friday?
""",
    "newsletter": b"""From news@mail.acme-shop.example Mon Mar  2 02:00:00 2026
From: Acme Weekly <news@mail.acme-shop.example>
To: mei@example.tw
Subject: This week's picks
Date: Mon, 2 Mar 2026 10:00:00 +0800
Message-ID: <n1@acme-shop.example>
X-Newsletter: no
List-Unsubscribe: <https://acme-shop.example/unsubscribe/one-click?u=abc>
List-Unsubscribe-Post: List-Unsubscribe=One-Click
Precedence: bulk

New arrivals you'll love.
""",
    "parcel": b"""From mcinfo@ups.com Mon Mar  2 03:00:00 2026
From: UPS <mcinfo@ups.com>
To: mei@example.tw
Subject: UPS Update: Package Scheduled for Delivery Today
Date: Mon, 2 Mar 2026 11:00:00 +0800
Message-ID: <u1@ups.com>
Auto-Submitted: auto-generated

Tracking number: 1Z999AA10123456784
""",
}

pytestmark = pytest.mark.skipif(PROCMAIL is None and not os.environ.get("CI"), reason="procmail is not installed (scripts/install-deps --test)")


def home_with_procmailrc(tmp_path, extra=""):
    home = tmp_path / "home"
    (home / "Mail").mkdir(parents=True)
    rc = home / ".procmailrc"
    # procmail takes HOME from the password file, not the environment: the rcfile sets it.
    rc.write_text(f"""HOME={home}
PATH={BIN}:{ROOT / 'pipelines'}:/usr/bin:/bin
SHELL=/bin/sh
SWIFT_BACKTRACE=enable=no
MAILDIR=$HOME/Mail/
DEFAULT=$HOME/Mail/inbox/
LOGFILE=$HOME/procmail.log
{extra}
INCLUDERC={ROOT / 'pipelines' / 'procmailrc'}
""")
    rc.chmod(0o644)
    return home


def deliver(home, message):
    env = {"HOME": str(home), "PATH": "/usr/bin:/bin"}
    return subprocess.run([PROCMAIL, str(home / ".procmailrc")], input=message, capture_output=True, env=env, timeout=60)


def maildir(path):
    return sorted((path / "new").glob("*")) if (path / "new").is_dir() else []


def test_newsletters_are_filed_apart_and_every_message_is_logged(tmp_path):
    home = home_with_procmailrc(tmp_path)
    for m in MESSAGES.values():
        r = deliver(home, m)
        assert r.returncode == 0, (r.stderr, (home / "procmail.log").read_text())
    inbox, newsletters = maildir(home / "Mail" / "inbox"), maildir(home / "Mail" / "Newsletters")
    assert len(inbox) == 2 and len(newsletters) == 1
    filed = newsletters[0].read_bytes()
    assert b"Subject: This week's picks" in filed
    assert b"X-Mail-Kind: newsletter\nX-Newsletter: yes\n" in filed and b"X-Newsletter: no" not in filed
    kinds = sorted(p.read_bytes().split(b"X-Mail-Kind: ")[1].split(b"\n")[0] for p in inbox)
    assert kinds == [b"notification", b"personal"]
    log = records((home / ".mailpipe" / "messages.jsonl").read_bytes())
    assert [o["subject"] for o in log] == [m.split(b"Subject: ")[1].split(b"\n")[0].decode() for m in MESSAGES.values()]
    assert [o["mail_kind"] for o in log] == ["personal", "newsletter", "notification"]
    assert [s["tracking_number"] for s in log[2]["shipments"]] == ["1Z999AA10123456784"]
    store = home / ".mailpipe" / "mail.db"
    chats = records(subprocess.run([BIN / "mailstore", "conversations", store], capture_output=True, check=True).stdout)
    assert sorted(c["message_ids"][0] for c in chats) == ["n1@acme-shop.example", "p1@example.com", "u1@ups.com"]


def test_a_failing_log_requeues_the_message(tmp_path):
    home = home_with_procmailrc(tmp_path, extra="MAILPIPE_LOG=/proc/mailpipe/cannot/messages.jsonl")
    r = deliver(home, MESSAGES["personal"])
    assert r.returncode == 75
    assert maildir(home / "Mail" / "inbox") == [] and maildir(home / "Mail" / "Newsletters") == []


def test_a_failing_filter_requeues_the_message(tmp_path):
    home = home_with_procmailrc(tmp_path)
    config = home / ".config" / "mailpipe"  # procmail clears the environment; HOME it sets
    config.mkdir(parents=True)
    (config / "mail-kind.json").write_text('{"not a key": []}')  # newsletter-detect refuses to run
    r = deliver(home, MESSAGES["newsletter"])
    assert r.returncode == 75
    assert maildir(home / "Mail" / "inbox") == [] and maildir(home / "Mail" / "Newsletters") == []
    assert not (home / ".mailpipe" / "messages.jsonl").exists()


def hook_env(tmp_path, **extra):
    """The hooks' environment: the programs on PATH, and a HOME of the test's own, so nothing
    reaches the real ~/.mailpipe."""
    return dict(os.environ, PATH=f"{BIN}:{os.environ['PATH']}", HOME=str(tmp_path / "home"), **extra)


def mailpipe_log(*args, input, env, umask=None):
    command = [str(ROOT / "pipelines" / "mailpipe-log"), *map(str, args)]
    if umask is not None:
        command = ["sh", "-c", f'umask {umask:03o} && exec "$@"', "sh", *command]
    return subprocess.run(command, input=input, env=env, capture_output=True)


def stored(db, *command):
    return records(subprocess.run([BIN / "mailstore", *command, db], capture_output=True, check=True).stdout)


def test_mailpipe_log_alone_appends_one_line_per_message_and_adds_it_to_the_store(tmp_path):
    log, db = tmp_path / "log" / "m.jsonl", tmp_path / "store" / "mail.db"
    env = hook_env(tmp_path, MAILPIPE_STORE=str(db))
    for m in MESSAGES.values():
        r = mailpipe_log(log, input=m.replace(b"To: mei@example.tw", b"Delivered-To: mei@example.tw\nTo: mei@example.tw"),
                         env=env, umask=0o022)
        assert r.returncode == 0, r.stderr
    assert len(log.read_text().splitlines()) == 3
    assert json.loads(subprocess.run([BIN / "mailstore", "config", db], capture_output=True).stdout)["me"] == ["mei@example.tw"]
    chats = stored(db, "conversations")
    assert len(chats) == 3 and all(c["participants"][0]["address"] != "mei@example.tw" for c in chats)
    # under a umask of 022 (fetchmail's mda, a .forward pipe), still the user's alone
    for folder in (tmp_path / "log", tmp_path / "store"):
        assert stat.S_IMODE(folder.stat().st_mode) == 0o700
        for made in folder.iterdir():
            assert stat.S_IMODE(made.stat().st_mode) == 0o600, made
    # the log is the store's journal: it makes the same database again
    again = tmp_path / "again.db"
    subprocess.run([BIN / "mailstore", "add", "-q", "--me-auto", again, log], check=True)
    assert stored(again, "conversations") == chats
    r = mailpipe_log("/proc/nope/m.jsonl", input=MESSAGES["personal"], env=env)
    assert r.returncode == 75 and b"mailpipe-log:" in r.stderr
    r = mailpipe_log("--store", "/proc/nope/mail.db", log, input=MESSAGES["personal"], env=env)
    assert r.returncode == 75 and b"mailpipe-log: cannot make the folder of /proc/nope/mail.db" in r.stderr


def test_until_my_address_is_known_every_message_is_kept(tmp_path):
    log, db = tmp_path / "m.jsonl", tmp_path / "mail.db"
    env = hook_env(tmp_path)
    r = mailpipe_log("--store", db, log, input=MESSAGES["personal"], env=env)
    assert r.returncode == 0, r.stderr
    assert b"your addresses are not known yet" in r.stderr
    assert [p["address"] for p in stored(db, "conversations")[0]["participants"]] == ["alex@example.com", "mei@example.tw"]
    subprocess.run([BIN / "mailstore", "config", "--me", "mei@example.tw", db], check=True, capture_output=True)
    assert [p["address"] for p in stored(db, "conversations")[0]["participants"]] == ["alex@example.com"]


def test_a_burst_of_deliveries_at_once(tmp_path):
    """20 deliveries at once, each logging its message and then asking for the pages as
    procmailrc does: every message once in the log, the store and the pages."""
    log, db, site = tmp_path / "m.jsonl", tmp_path / "mail.db", tmp_path / "site"
    env = hook_env(tmp_path)
    messages = [MESSAGES["personal"].replace(b"<p1@example.com>", f"<p{k}@example.com>".encode())
                .replace(b"Dinner on Friday?", f"Dinner {k}".encode()) for k in range(20)]
    pipelines = ROOT / "pipelines"
    command = ["bash", "-c", f'"{pipelines}/mailpipe-log" --me mei@example.tw --store "{db}" "{log}" && '
               f'"{pipelines}/mailpipe-site" --background --zone Asia/Taipei --store "{db}" "{log}" "{site}"']
    deliveries = [subprocess.Popen(command, stdin=subprocess.PIPE, stderr=subprocess.PIPE, env=env) for _ in messages]
    for d, m in zip(deliveries, messages):
        d.stdin.write(m)
        d.stdin.close()
    for d in deliveries:
        assert d.wait() == 0, d.stderr.read()
    assert sorted(json.loads(line)["id"] for line in log.read_text().splitlines()) == sorted(f"p{k}@example.com" for k in range(20))
    chats = stored(db, "conversations")
    assert len(chats) == 1 and sorted(chats[0]["message_ids"]) == sorted(f"p{k}@example.com" for k in range(20))
    site_settled(site)
    [page] = (site / "c").glob("*.html")
    shown = re.findall(r'data-message-id="([^"]*)"', page.read_text())
    assert sorted(shown) == sorted(f"p{k}@example.com" for k in range(20))


def site_settled(site):
    """Waits until mailpipe-site's background run is done: the mark it renders for is gone and
    no run holds its lock."""
    for _ in range(300):
        if (site / "index.html").exists() and not (site / ".mailpipe-site.due").exists():
            subprocess.run(["flock", str(site / ".mailpipe-site.lock"), "true"], check=True, timeout=60)
            if not (site / ".mailpipe-site.due").exists():
                return
        subprocess.run(["sleep", "0.1"])
    log = site / ".mailpipe-site.log"
    raise AssertionError(f"mailpipe-site did not finish: {sorted(p.name for p in site.iterdir()) if site.is_dir() else 'no site'}; "
                         f"its log: {log.read_text() if log.exists() else 'none'}")


def test_with_a_site_folder_each_delivery_updates_the_conversations_pages(tmp_path):
    site = tmp_path / "site"
    home = home_with_procmailrc(tmp_path, extra=f'MAILPIPE_SITE={site}\nMAILPIPE_SITE_OPTIONS="--me mei@example.tw --zone Asia/Taipei"')
    for m in MESSAGES.values():
        r = deliver(home, m)
        assert r.returncode == 0, (r.stderr, (home / "procmail.log").read_text())
    assert len(maildir(home / "Mail" / "inbox")) == 2 and len(maildir(home / "Mail" / "Newsletters")) == 1
    site_settled(site)
    pages = {p.name: p.read_text() for p in (site / "c").glob("*.html")}
    assert len(pages) == 3
    for needle in ["p1@example.com", "n1@acme-shop.example", "u1@ups.com"]:
        assert sum(needle in page for page in pages.values()) == 1, needle
    assert "Alex Rivera" in (site / "index.html").read_text() and "Acme Weekly" in (site / "newsletters.html").read_text()
    assert "1Z999AA10123456784" in (site / "parcels-earlier.html").read_text()  # of March: no news for 60 days
    assert not (site / ".mailpipe-site.log").exists() or (site / ".mailpipe-site.log").read_text() == ""


def test_a_site_that_cannot_be_written_holds_no_message_back(tmp_path):
    home = home_with_procmailrc(tmp_path, extra="MAILPIPE_SITE=/proc/mailpipe/site")
    r = deliver(home, MESSAGES["personal"])
    assert r.returncode == 0 and len(maildir(home / "Mail" / "inbox")) == 1


def test_mailpipe_site_rewrites_only_the_pages_a_new_message_changes(tmp_path):
    log, site = tmp_path / "m.jsonl", tmp_path / "site"
    env = hook_env(tmp_path)
    site_command = [str(ROOT / "pipelines" / "mailpipe-site"), "--me", "mei@example.tw", str(log), str(site)]
    for m in list(MESSAGES.values())[:2]:
        assert subprocess.run([str(ROOT / "pipelines" / "mailpipe-log"), str(log)], input=m, env=env).returncode == 0
    assert subprocess.run(site_command, env=env).returncode == 0
    before = {p: p.stat().st_mtime_ns for p in site.rglob("*.html")}
    subprocess.run(["sleep", "0.05"])
    assert subprocess.run([str(ROOT / "pipelines" / "mailpipe-log"), str(log)], input=MESSAGES["parcel"], env=env).returncode == 0
    assert subprocess.run(site_command, env=env).returncode == 0
    changed = sorted(str(p.relative_to(site)) for p in site.rglob("*.html") if before.get(p) != p.stat().st_mtime_ns)
    ups = next(p for p in (site / "c").glob("*.html") if "u1@ups.com" in p.read_text())
    # (its parcel, of March, is an earlier one now: it is on their newest page)
    assert changed == sorted([f"c/{ups.name}", "index.html", "parcels.html", "parcels-earlier.html"])
    # a run asked for while another holds the lock only marks the folder; the holder renders it
    with open(site / ".mailpipe-site.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        r = subprocess.run(site_command, env=env, timeout=30)
        assert r.returncode == 0 and (site / ".mailpipe-site.due").exists()
    assert subprocess.run(site_command, env=env).returncode == 0 and not (site / ".mailpipe-site.due").exists()
    bad = subprocess.run([str(ROOT / "pipelines" / "mailpipe-site"), str(log)], env=env, capture_output=True)
    assert bad.returncode == 64 and b"usage: mailpipe-site" in bad.stderr
    # the store gone: made again from the log (and compacted)
    db = tmp_path / "home" / ".mailpipe" / "mail.db"
    count = lambda: subprocess.run([BIN / "mailstore", "count", db, "*"], capture_output=True, env=env).stdout
    messages = count()
    for suffix in ("", "-wal", "-shm"):
        pathlib.Path(f"{db}{suffix}").unlink(missing_ok=True)
    assert subprocess.run(site_command, env=env).returncode == 0
    assert count() == messages == b"3\n"


def test_mailpipe_log_passes_every_option_whole_and_keeps_the_mail_when_mailstore_is_missing(tmp_path):
    """mailpipe-log is POSIX sh (it starts for every message; dash starts in half bash's time):
    its options reach mailstore as they were given, spaces and all, and a mailstore it cannot
    find exits 75, not sh's 127, so the delivery agent keeps the message."""
    db, site, log = tmp_path / "my store" / "mail.db", tmp_path / "my site", tmp_path / "my log" / "m.jsonl"
    env = hook_env(tmp_path)
    r = mailpipe_log("--store", db, "--me", "mei@example.tw", "--site", site, "--zone", "Asia/Taipei", "--lang", "de",
                     "--max-attachment", "1000", "--stamp", "--me", "mei.chen@example.tw", log, input=MESSAGES["personal"], env=env)
    assert r.returncode == 0, r.stderr
    assert b"X-Mail-Kind: personal" in r.stdout  # --stamp
    config = json.loads(subprocess.run([BIN / "mailstore", "config", db], capture_output=True, check=True).stdout)
    assert config["me"] == ["mei@example.tw", "mei.chen@example.tw"]
    assert len(log.read_text().splitlines()) == 1
    assert 'lang="de"' in (site / "index.html").read_text()
    # a copy of the hook with no build beside it, and no mailstore on PATH
    alone = tmp_path / "bin" / "mailpipe-log"
    alone.parent.mkdir()
    alone.write_bytes((ROOT / "pipelines" / "mailpipe-log").read_bytes())
    alone.chmod(0o755)
    r = subprocess.run([alone, log], input=MESSAGES["personal"], env=dict(env, PATH="/usr/bin:/bin"), capture_output=True)
    assert r.returncode == 75 and b"mailpipe-log: cannot run mailstore: is it on PATH?" in r.stderr
    assert len(log.read_text().splitlines()) == 1
