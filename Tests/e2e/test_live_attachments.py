"""The corpus's mail with pictures, files and forwarded messages through the live path (mailpipe-log
with a site, as procmail runs it) into the pages, without a failure (issue 45)."""
import json
import re
import sqlite3

from conftest import CORPUS, need_shared
from pictures import wait_for_turn
from test_procmail import hook_env, mailpipe_log

CUES = [re.compile(rb"(?im)^content-type:\s*image/"), re.compile(rb"(?im)^content-type:\s*message/rfc822"),
        re.compile(rb"(?im)^content-type:\s*application/(pdf|octet-stream)"),
        re.compile(rb"(?i)forwarded message|begin forwarded message|^-+ ?original message")]

def corpus_mail_with_attachments():
    root = need_shared(CORPUS)
    found = []
    for path in sorted(p for p in root.rglob("*") if p.is_file() and p.suffix not in (".txt", ".md", ".py", ".json")):
        data = path.read_bytes()
        if len(data) < 4_000_000 and any(c.search(data) for c in CUES):
            found.append(path)
    return found

def test_the_corpus_mail_with_pictures_files_and_forwards_reaches_the_pages(tmp_path):
    mails = corpus_mail_with_attachments()
    assert len(mails) > 150
    log, db, site = tmp_path / "m.jsonl", tmp_path / "mail.db", tmp_path / "site"
    env = hook_env(tmp_path, MAILPIPE_STORE=str(db), MAILPIPE_SITE=str(site))
    failed, refused = [], []
    for path in mails:
        r = mailpipe_log("--me", "me@example.org", log, input=path.read_bytes(), env=env)
        if r.returncode == 65:  # nothing in it could be a message: the mail system would not retry either
            refused.append(path)
        elif r.returncode != 0 or r.stderr.strip():
            failed.append((path, r.returncode, r.stderr.decode(errors="replace")[-300:]))
    assert not failed, failed[:5]
    assert len(refused) < 5, refused
    wait_for_turn(site)  # the last pictures are made after the last pages, in the background

    lines = [json.loads(line) for line in log.read_bytes().splitlines()]
    with sqlite3.connect(db) as c:
        kept = [json.loads(record) for (record,) in c.execute("SELECT record FROM messages")]
    assert len(kept) == len({r["id"] for r in lines})
    pages = list((site / "c").glob("*.html"))
    assert pages and (site / "index.html").exists()

    # every attachment of the stored messages reached the pages: as a picture or a card, by its
    # name (an image the message's HTML shows inline is in its preview, not named again)
    html = "\n".join(p.read_text() for p in pages)

    def inline(r, a):
        return a.get("content_id") and f"cid:{a['content_id']}" in (r.get("html") or "")
    named = [a["filename"] for r in kept for a in r["attachments"]
             if a.get("filename") and a["filename"].isprintable() and not inline(r, a)]
    assert named
    missing = [n for n in named if n.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;") not in html]
    assert len(missing) <= len(named) // 50, missing[:10]

    # the corpus's photos are pictures on the pages, made from the kept files; none of its images is fetched
    made = list((site / "a").glob("*.t.*"))
    shown = re.findall(r'<img src="\.\./a/([0-9a-f]{64})\.t\.(?:jpg|png)"', html)
    assert len(made) >= 10 and set(shown) <= {p.name.split(".")[0] for p in made}
    assert not re.search(r'<img[^>]+src="(https?:)?//', html)
