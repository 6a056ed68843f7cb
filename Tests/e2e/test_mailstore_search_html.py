"""mailstore search finds the words a message's HTML alternative adds to its plain text (issue 47):
a newsletter whose text/plain part says little ("View this email in your browser") is found by the
words its HTML shows, as notmuch and Gmail find it.

What counts is the text a reader sees of the HTML, as text-extract renders an HTML-only message
(the same renderer): text outside <style>, <script> and <head>, not hidden (display:none, the
hidden attribute: a preheader hidden that way is not seen in the message), and the alt text of
an image that is not a 1x1 tracking pixel (shown when images are off, read aloud by a screen
reader). A link's URL is not seen (only its text is), so a word only in an href is not found.

The development cases below are written from mail programs named or invented here, before the
change (none of the issue's held-out cases were read)."""
import json
import sqlite3

import pytest

from conftest import records, run

ME = "dana@example.org"
STAGES = run("mailstore", "stages").stdout.decode().split()


def message(n, sender, subject, plain, html, mailer):
    """A multipart/alternative message (plain, then HTML), as a newsletter program sends it."""
    return f"""From: {sender}
To: {ME}
Subject: {subject}
Date: Sat, 14 Mar 2026 09:{n:02d}:00 +0000
Message-ID: <html-words-{n}@{sender.split('@')[1].rstrip('>')}>
MIME-Version: 1.0
X-Mailer: {mailer}
Content-Type: multipart/alternative; boundary="b{n}"

--b{n}
Content-Type: text/plain; charset=utf-8

{plain}

--b{n}
Content-Type: text/html; charset=utf-8

<!DOCTYPE html><html><head><meta charset="utf-8"></head><body>{html}</body></html>

--b{n}--
""".replace("\n", "\r\n").encode()


# (mail program, plain part, HTML part, the words and phrases that must find it)
FOUND = [
    ("Mailchimp",
     "View this email in your browser (https://us1.campaign-archive.com/?u=5f2&id=9c1)",
     "<h1>Weekend farmers market</h1><p>The orchard stall returns with quince jam and cider.</p>"
     '<p><a href="https://us1.campaign-archive.com/?u=5f2&amp;id=9c1">View this email in your browser</a></p>',
     ["quince", '"farmers market"', "body:quince", "orchard cider"]),
    ("Substack",
     "Read it on the web: https://tidewatch.substack.com/p/keepers",
     "<p>The lighthouse keeper's logbook from 1893 records a gale every Tuesday.</p>",
     ["logbook", '"lighthouse keeper"', "gale"]),
    ("Klaviyo",
     "Your email program cannot show this message. Open it in a browser.",
     "<table><tr><td>Espadrilles</td><td>40% off</td></tr><tr><td>Panama hats</td><td>25% off</td></tr></table>",
     ["espadrilles", "panama", "espadrilles AND panama"]),
    ("HubSpot",
     "Harvest newsletter. Images are off? Open the web version.",
     '<p>Join us this weekend.</p><img src="https://cdn.example.net/poster.png" width="600" height="300" alt="Pumpkin regatta poster">',
     ["regatta", "weekend"]),
    ("Constant Contact",
     "Choir practice moves to the parish hall on Thursday.",
     "<p>Choir practice moves to the parish hall on Thursday.</p><p>P.S. bring a thermos, the heating is broken.</p>",
     ["thermos", '"choir practice"', "thermos AND choir"]),
    ("Brevo",
     "Votre lettre d'information est disponible en ligne.",
     "<p>Le marché de Noël ouvre samedi: vin chaud et châtaignes grillées.</p>",
     ["chataignes", "châtaignes", '"vin chaud"']),
]

# (mail program, HTML part, a word in the HTML that a reader does not see, a word they see)
NOT_SEEN = [
    ("a <style> block", "<style>.zanzibar-header { color: #336699 }</style><p class='zanzibar-header'>Spring schedule</p>",
     "zanzibar", "schedule"),
    ("a <script>", "<script>var walrus = 1;</script><p>Ferry timetable for April</p>", "walrus", "ferry"),
    ("a link's URL", '<p><a href="https://shop.example.com/marzipan-sale?utm_campaign=spring">Shop the sale now</a></p>',
     "marzipan", "sale"),
    ("a hidden preheader",
     '<div style="display:none;max-height:0;overflow:hidden">kumquat preview text</div><p>Our April picks are in.</p>',
     "kumquat", "picks"),
    ("the <title>", "<p>Monthly digest of the allotment society</p>", "tamarind", "allotment"),
    ("a tracking pixel's alt text",
     '<p>Your parcel locker code is ready.</p><img src="https://t.example.com/o.gif" width="1" height="1" alt="pixelwatch">',
     "pixelwatch", "locker"),
]


def mailbox(messages):
    return b"".join(b"From sender@example.com Sat Mar 14 09:00:00 2026\r\n" + m + b"\r\n" for m in messages)


def build_messages():
    found = [message(k, f"news@{p.lower().replace(' ', '')}.example", f"{p} news", plain, html, p)
             for k, (p, plain, html, _) in enumerate(FOUND)]
    hidden = []
    for k, (what, html, _, _) in enumerate(NOT_SEEN, start=len(FOUND)):
        m = message(k, "news@lookalike.example", f"Look-alike {k}", "View this email in your browser.", html, "Sendy")
        if what == "the <title>":
            m = m.replace(b"<head><meta charset=\"utf-8\"></head>", b"<head><meta charset=\"utf-8\"><title>Tamarind digest</title></head>")
        hidden.append(m)
    return found, hidden


def pipeline(data):
    """mime-parse and the stages `mailstore stages` lists, as make pipeline runs them."""
    r = run("mime-parse", "--no-progress", input=data)
    assert r.returncode == 0, r.stderr
    data = r.stdout
    for stage in STAGES:
        r = run(stage, "--no-progress", input=data)
        assert r.returncode == 0, r.stderr
        data = r.stdout
    return data


def ids(db, *query):
    r = run("mailstore", "search", "--output", "ids", db, *query)
    assert r.returncode == 0, r.stderr
    return set(records(r.stdout))


def message_id(n, program):
    return f"html-words-{n}@{program}"


@pytest.fixture(scope="module")
def lines():
    found, hidden = build_messages()
    return pipeline(mailbox(found + hidden))


@pytest.fixture(scope="module")
def store(lines, tmp_path_factory):
    db = tmp_path_factory.mktemp("html-words") / "mail.db"
    r = run("mailstore", "add", "-q", "--me", ME, db, input=lines)
    assert r.returncode == 0, r.stderr
    return db


def test_the_cases_are_what_they_claim(lines):
    """Each case's words are in its HTML and not in the text text-extract read: without the HTML
    they could not be found (the case tests the HTML, not the plain part)."""
    got = {r["id"]: r for r in records(lines)}
    assert len(got) == len(FOUND) + len(NOT_SEEN)
    parsed = {r["id"]: r for r in records(run("mime-parse", "--no-progress", input=mailbox(sum(build_messages(), []))).stdout)}
    for k, (program, plain, _, _) in enumerate(FOUND):
        r = got[message_id(k, f"{program.lower().replace(' ', '')}.example")]
        assert r["html"] and r["text"] and r["body_text"].split()[:3] == plain.split()[:3]
        for word in ["quince", "logbook", "espadrilles", "regatta", "thermos", "châtaignes"]:
            assert word not in r["body_text"].lower()
    for k, (what, _, unseen, seen) in enumerate(NOT_SEEN, start=len(FOUND)):
        r = got[message_id(k, "lookalike.example")]
        assert unseen in parsed[r["id"]]["html"].lower(), what  # html-sanitize takes out scripts and styles
        assert unseen not in r["body_text"].lower() and seen not in r["body_text"].lower()


@pytest.mark.parametrize("k", range(len(FOUND)), ids=[c[0] for c in FOUND])
def test_a_newsletter_is_found_by_the_words_of_its_html(store, k):
    program, _, _, queries = FOUND[k]
    expected = message_id(k, f"{program.lower().replace(' ', '')}.example")
    for q in queries:
        assert expected in ids(store, q), q


def test_the_html_words_are_body_words_not_subject_or_people(store):
    assert ids(store, "body:quince") == ids(store, "quince") == {message_id(0, "mailchimp.example")}
    assert ids(store, "subject:quince") == set()
    assert ids(store, "from:quince") == ids(store, "to:quince") == set()


@pytest.mark.parametrize("k", range(len(NOT_SEEN)), ids=[c[0] for c in NOT_SEEN])
def test_what_a_reader_does_not_see_is_not_found(store, k):
    what, _, unseen, seen = NOT_SEEN[k]
    expected = message_id(k + len(FOUND), "lookalike.example")
    assert ids(store, seen) == {expected}, f"{seen}: the HTML's visible words are indexed"
    assert ids(store, unseen) == set(), f"{unseen}: only in {what}"


def test_a_delivery_indexes_the_html_words_too(tmp_path):
    found, _ = build_messages()
    db = tmp_path / "mail.db"
    r = run("mailstore", "deliver", "-q", "--me", ME, db, input=found[0])
    assert r.returncode == 0, r.stderr
    assert ids(db, "quince") == {message_id(0, "mailchimp.example")}
    assert ids(db, "marzipan OR kumquat") == set()


def test_a_record_of_mime_parse_alone_is_found_by_its_html(tmp_path):
    """A store fed mime-parse's records (no text-extract: no body_text) reads the HTML itself."""
    found, hidden = build_messages()
    parsed = run("mime-parse", "--no-progress", input=mailbox(found + hidden))
    assert parsed.returncode == 0
    db = tmp_path / "mail.db"
    r = run("mailstore", "add", "-q", "--me", ME, db, input=parsed.stdout)
    assert r.returncode == 0, r.stderr
    assert ids(db, "quince") == {message_id(0, "mailchimp.example")}
    assert ids(db, "pumpkin regatta") == {message_id(3, "hubspot.example")}
    assert ids(db, "zanzibar OR walrus OR marzipan OR kumquat OR tamarind OR pixelwatch") == set()


def test_a_replaced_record_leaves_none_of_its_old_html_words(lines, tmp_path):
    """A record replaced by a later stage's (the same message, its HTML changed) keeps no word of
    the old HTML in the index, and one deleted keeps none at all (the index has no content of its
    own: what is taken out must be what was put in)."""
    first = json.loads(lines.splitlines()[0])
    db = tmp_path / "mail.db"
    r = run("mailstore", "add", "-q", "--me", ME, db, input=json.dumps(first).encode() + b"\n")
    assert r.returncode == 0, r.stderr
    assert ids(db, "quince") == {first["id"]}
    later = dict(first, html=first["html"].replace("quince jam", "damson jam"), later_stage=True)
    r = run("mailstore", "add", "-q", "--me", ME, db, input=json.dumps(later).encode() + b"\n")
    assert r.returncode == 0, r.stderr
    assert ids(db, "quince") == set()
    assert ids(db, "damson") == {first["id"]}
    with sqlite3.connect(db) as c:
        c.execute("INSERT INTO search(search) VALUES('integrity-check')")


def test_a_store_of_schema_9_is_indexed_again(lines, store, tmp_path):
    """A store made before the HTML's words were indexed (schema 9) finds them once opened: its
    search index is made again from the stored records, and answers as a new store's does."""
    import shutil
    old = tmp_path / "old.db"
    shutil.copy(store, old)
    with sqlite3.connect(old) as c:
        c.executescript("""
            DROP TABLE search;
            CREATE VIRTUAL TABLE search USING fts5(subject, sender, recipients, body, content='',
              tokenize='porter unicode61 remove_diacritics 2');
            INSERT INTO search(rowid, subject, sender, recipients, body) SELECT rowid, subject, '', '', 'stale words' FROM messages;
            PRAGMA user_version = 9;
            """)
    assert ids(old, "quince OR thermos OR regatta") == ids(store, "quince OR thermos OR regatta") != set()
    assert ids(old, "stale") == set()
    for q in ["timetable", "from:news@lookalike.example", "subject:look-alike", "to:dana", "zanzibar OR kumquat"]:
        assert ids(old, q) == ids(store, q), q
    config = json.loads(run("mailstore", "config", old).stdout)
    assert config["schema_version"] == json.loads(run("mailstore", "config", store).stdout)["schema_version"] >= 10
