"""A delivery's pictures are made after its pages (issue 42's p99 against issue 45's pictures):
`mailstore deliver --site` writes the pages with a photo not made yet shown as a card without a
link, returns, and the same turn of the site goes on in a process of its own, which makes the
picture and renders those pages again. A background killed before it is done leaves the pages
waiting in the site's state, and the next render makes them."""
import email.message
import os
import re
import signal
import sqlite3
import time

from conftest import run
from pictures import environment, jpeg, thumbnailer, turn_held, wait_for_turn

ME = "mei@example.tw"
GATE = """#!/bin/sh
# mail-thumbnail behind a gate: says its process's parent (the render), then waits for the gate
echo $PPID > "$GATE_DIR/render.pid"
while [ ! -e "$GATE_DIR/open" ]; do sleep 0.05; done
exec "$GATE_REAL" "$@"
"""


def mail(n, photo=None):
    m = email.message.EmailMessage()
    m["From"], m["To"], m["Subject"] = "Ana <ana@x.example>", ME, "Taroko"
    m["Date"], m["Message-ID"] = f"Tue, 10 Mar 2026 1{n}:00:00 +0800", f"<p{n}@x.example>"
    m.set_content(f"message number {n}")
    if photo:
        m.add_attachment(photo.read_bytes(), maintype="image", subtype="jpeg", filename="IMG_2041.jpg")
    return bytes(m)


def deliver(db, site, raw, env):
    r = run("mailstore", "deliver", "-q", "--me", ME, "--site", site, "--zone", "Asia/Taipei", "--journal", db.parent / "log.jsonl",
            db, input=raw, env=env)
    assert r.returncode == 0 and r.stderr == b"", r.stderr
    return r


def page_with(site, text):
    return next(p.read_text() for p in (site / "c").glob("*.html") if text in p.read_text())


def waiting(site):
    with sqlite3.connect(site / ".mailstore-site.db") as c:
        return c.execute("SELECT conversation FROM pictures_waiting").fetchall()


def gated(tmp_path):
    gate = tmp_path / "gate"
    gate.mkdir()
    script = tmp_path / "mail-thumbnail-gated"
    script.write_text(GATE)
    script.chmod(0o755)
    env = environment(program=script)
    env.update(GATE_DIR=str(gate), GATE_REAL=str(thumbnailer()))
    return gate, env


def test_the_pages_are_written_before_the_picture_which_follows_from_the_same_turn(tmp_path):
    db, site = tmp_path / "mail.db", tmp_path / "site"
    photo = jpeg(tmp_path / "photo.jpg", 1200, 900)
    gate, env = gated(tmp_path)
    deliver(db, site, mail(1), env)  # the site made
    wait_for_turn(site)

    deliver(db, site, mail(2, photo), env)
    page = page_with(site, "message number 2")  # the pages are written when the delivery returns
    card = re.search(r'<li class="file">.*?</li>', page, re.S)
    assert card and "IMG_2041.jpg" in card.group(0) and "<a " not in card.group(0)  # waiting: no link yet
    assert 'class="picture"' not in page
    assert turn_held(site) and len(waiting(site)) == 1  # the turn goes on, in a process of its own
    # the next delivery neither waits for it (the journal's lock is not held) nor renders: its page is
    # left to the turn
    started = time.time()
    deliver(db, site, mail(3), env)
    assert time.time() - started < 5 and len((tmp_path / "log.jsonl").read_text().splitlines()) == 3
    assert turn_held(site)

    (gate / "open").touch()
    wait_for_turn(site)
    page = page_with(site, "message number 2")
    assert "message number 3" in page
    (shown,) = re.findall(r'<a class="picture" href="\.\./a/[0-9a-f]{64}\.[a-z]+"><img src="\.\./(a/[0-9a-f]{64}\.t\.jpg)"', page)
    assert (site / shown).exists() and '<li class="file">' not in page
    assert waiting(site) == []
    assert not (site / ".mailpipe-site.log").exists() or (site / ".mailpipe-site.log").read_bytes() == b""


def test_pictures_a_killed_background_left_waiting_are_made_by_the_next_render(tmp_path):
    db, site = tmp_path / "mail.db", tmp_path / "site"
    photo = jpeg(tmp_path / "photo.jpg", 800, 600)
    gate, env = gated(tmp_path)
    deliver(db, site, mail(1), env)
    wait_for_turn(site)
    deliver(db, site, mail(2, photo), env)
    deadline = time.time() + 30
    while not (gate / "render.pid").exists():
        assert time.time() < deadline
        time.sleep(0.05)
    render = int((gate / "render.pid").read_text())
    os.killpg(os.getpgid(render), signal.SIGKILL)  # the background's session: it and its mail-thumbnail
    wait_for_turn(site)
    assert len(waiting(site)) == 1 and 'class="picture"' not in page_with(site, "message number 2")

    (gate / "open").touch()
    deliver(db, site, mail(3), env)  # no picture of its own: the turn it takes makes the waiting one
    wait_for_turn(site)
    page = page_with(site, "message number 2")
    assert page.count('class="picture"') == 1 and waiting(site) == []
    assert "message number 3" in page


def test_the_counts_a_delivery_keeps_for_the_lists_are_the_lists(tmp_path):
    """A delivery's render counts each list from the counts the last one kept (not a count of
    every conversation): after new conversations, a newsletter and a message into an old one,
    each kept count is the number the list holds, and the list page says so."""
    import sqlite3
    db, site = tmp_path / "mail.db", tmp_path / "site"
    env = environment(program="")
    deliver(db, site, mail(1), env)
    news = email.message.EmailMessage()
    news["From"], news["To"], news["Subject"], news["Date"] = "Shop <news@shop.example>", ME, "Offers", "Wed, 11 Mar 2026 10:00:00 +0800"
    news["Message-ID"], news["List-Unsubscribe"], news["Precedence"] = "<n1@shop.example>", "<https://shop.example/u>", "bulk"
    news.set_content("This week's offers")
    for raw in [mail(2), bytes(news), mail(3).replace(b"ana@x.example", b"bo@y.example").replace(b"p3@", b"q3@")]:
        deliver(db, site, raw, env)
    wait_for_turn(site)
    with sqlite3.connect(site / ".mailstore-site.db") as c:
        kept = dict(c.execute("SELECT substr(key, 7), CAST(value AS INTEGER) FROM state WHERE key LIKE 'count %'"))
        listed = dict(c.execute("SELECT section, count(*) FROM listed GROUP BY section"))
    assert kept and all(kept[s] == listed.get(s, 0) for s in kept), (kept, listed)
    assert sum(listed.values()) == 3
