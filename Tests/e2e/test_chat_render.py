"""chat-render: the pipeline's conversations as a static site. What the pages hold, that
nothing in them can run or load, that the same input gives the same bytes and a re-run
rewrites only what changed, and bad records reported, not fatal."""
import base64
import json
import os
import pathlib
import re
import subprocess

import pytest

from conftest import BIN, ENV, ROOT, SAMPLE, run

NOW = "2026-03-11T00:00:00Z"


def render(conversations, messages, out, *args):
    return run("chat-render", "--conversations", conversations, "--out", out, "--zone", "Asia/Taipei", "--now", NOW,
               *args, messages)


@pytest.fixture(scope="module")
def sample(tmp_path_factory):
    """The sample mailbox through the pipeline: (directory with messages.jsonl and
    conversations.jsonl, the site)."""
    d = tmp_path_factory.mktemp("chat")
    r = subprocess.run([str(ROOT / "pipelines" / "mbox-to-conversations"), "--me", "mei@example.tw", "--zone", "Asia/Taipei",
                        "--out", str(d), str(SAMPLE)], capture_output=True, env=ENV)
    assert r.returncode == 0, r.stderr
    site = d / "site"
    r = render(d / "conversations.jsonl", d / "messages.jsonl", site)
    assert r.returncode == 0 and r.stderr == b"", r.stderr
    return d, site


def lines(path):
    return [json.loads(l) for l in pathlib.Path(path).read_text().splitlines() if l.strip()]


def message_ids_on(page):
    return re.findall(r'<li class="message (mine|theirs|automated)" id="[^"]+" data-message-id="([^"]+)"', page.read_text())


def html_unescape(s):
    import html
    return html.unescape(s)


def test_each_conversation_page_lists_exactly_its_messages_in_date_order_mine_marked(sample):
    d, site = sample
    messages = {m["id"]: m for m in lines(d / "messages.jsonl")}
    conversations = lines(d / "conversations.jsonl")
    for c in conversations:
        page = site / "c" / (c["conversation_id"] + ".html")
        shown = [(side, html_unescape(i)) for side, i in message_ids_on(page)]
        expected = sorted(c["message_ids"], key=lambda i: messages[i]["date"])
        assert [i for _, i in shown] == expected
        for side, i in shown:  # an auto-reply is a note, neither side's
            m = messages[i]
            assert side == ("automated" if m.get("mail_kind") == "automated" else "mine" if m["from_me"] else "theirs"), i
    assert any(m["from_me"] for m in messages.values())
    assert any(m.get("mail_kind") == "automated" for m in messages.values())


def test_the_lists_sort_conversations_into_their_pages_newest_first(sample):
    d, site = sample
    conversations = lines(d / "conversations.jsonl")
    index = (site / "index.html").read_text()
    linked = re.findall(r'href="c/([0-9a-f]+)\.html"', index)
    chats = [c for c in conversations if not c["is_newsletter"] and not c["archived"]]
    listed = {c["conversation_id"] for c in chats}
    assert listed >= set(linked) and len(linked) >= 8
    dates = [next(c["last_date"] for c in conversations if c["conversation_id"] == i) for i in linked]
    assert dates == sorted(dates, reverse=True)
    newsletters = (site / "newsletters.html").read_text()
    assert "Bookshelf Weekly" in newsletters and "Bookshelf" not in index
    assert "swift-dev" in (site / "lists.html").read_text()
    assert all(f'c/{c["conversation_id"]}.html' not in index for c in conversations if c["is_newsletter"])


def test_a_group_is_named_by_first_names_and_names_read_the_right_way_round(sample):
    d, site = sample
    group = next(c for c in lines(d / "conversations.jsonl") if c["is_group"])
    page = html_unescape((site / "c" / (group["conversation_id"] + ".html")).read_text())
    # "Sato, Hana" is Hana; the Arabic name is isolated so the list of names keeps its order
    title = "Alex, Hana, Jordan, \u2068ليلى\u2069"
    assert f"<h1 dir=\"auto\">{title}</h1>" in page and f"<title>{title}" in page
    assert '<p class="sender" dir="auto">Hana Sato</p>' in page
    assert "Sato, Hana" not in page
    index = html_unescape((site / "index.html").read_text())
    assert title in index and "You" in index


def test_parcels_and_events_have_their_pages_and_cards(sample):
    d, site = sample
    parcels = (site / "parcels.html").read_text()
    for number, link in [("904012345678", "https://www.t-cat.com.tw/Inquire/Trace.aspx?no=904012345678"),
                         ("1Z999AA10123456784", "https://wwwapps.ups.com/WebTracking/track?track=yes&amp;trackNums=1Z999AA10123456784")]:
        assert number in parcels and f'href="{link}"' in parcels
    assert "T-Cat (黑貓宅急便)" in parcels
    events = (site / "events.html").read_text()
    upcoming, past = events.split("<h2>Past</h2>") if "<h2>Past</h2>" in events else (events, "")
    assert "爸爸生日" in upcoming and "Taroko trip: where next?" in upcoming
    assert "Fri 13 Mar 2026, 20:30 – 21:30" in upcoming  # the update applied, in the page's zone
    assert "Weekly design review" in upcoming and "Event · Weekly" in upcoming
    # the cancellation of one week's meeting, as its message's card says
    cancel = next(p for p in (site / "c").glob("*.html") if "Canceled: Weekly design review" in p.read_text())
    assert 'class="card event cancelled"' in cancel.read_text() and "<strong>Cancelled</strong>" in cancel.read_text()
    # each message's own cards, under its bubble
    ups = next(p for p in (site / "c").glob("*.html") if "1Z999AA10123456784" in p.read_text())
    assert 'class="card parcel"' in ups.read_text()


def test_nothing_on_any_page_can_run_or_load_from_elsewhere(sample):
    _, site = sample
    pages = list(site.rglob("*.html"))
    assert len(pages) > 15
    for page in pages:
        text = page.read_text()
        assert "<script" not in text.lower()
        csp = re.search(r'<meta http-equiv="Content-Security-Policy" content="([^"]+)"', text)
        assert csp and html_unescape(csp.group(1)).startswith("default-src 'none'; style-src 'self' 'unsafe-inline'; img-src 'self' data:;")
        for a in re.findall(r"<a [^>]*href=\"https?:[^>]*>", text):
            assert 'rel="noopener noreferrer"' in a
        for frame in re.findall(r"<iframe [^>]*>", text):
            assert 'sandbox="allow-popups allow-popups-to-escape-sandbox"' in frame
            assert "allow-scripts" not in frame and "allow-same-origin" not in frame
        assert re.search(r'(src|href)="(https?:)?//', text.replace('href="https://', "")) is None


def test_the_same_input_gives_the_same_bytes_and_a_rerun_writes_nothing(sample, tmp_path):
    d, site = sample
    again = tmp_path / "again"
    assert render(d / "conversations.jsonl", d / "messages.jsonl", again).returncode == 0
    files = sorted(p.relative_to(site) for p in site.rglob("*") if p.is_file())
    assert files == sorted(p.relative_to(again) for p in again.rglob("*") if p.is_file())
    assert all((site / f).read_bytes() == (again / f).read_bytes() for f in files)
    before = {f: os.stat(again / f).st_mtime_ns for f in files}
    os.utime(again / "index.html", ns=(1, 1))
    assert render(d / "conversations.jsonl", d / "messages.jsonl", again).returncode == 0
    assert os.stat(again / "index.html").st_mtime_ns == 1  # same bytes: not written
    assert all(os.stat(again / f).st_mtime_ns == before[f] for f in files if f != pathlib.Path("index.html"))


def test_a_new_message_rewrites_only_its_conversation_and_the_lists_it_is_on(sample, tmp_path):
    d, _ = sample
    messages = (d / "messages.jsonl").read_text().splitlines(keepends=True)
    late = next(i for i, l in enumerate(messages) if json.loads(l)["id"] == "auto-0010@mail.example.com")
    fewer = tmp_path / "fewer.jsonl"
    fewer.write_text("".join(messages[:late] + messages[late + 1:]))
    site = tmp_path / "site"

    def render_all(source):
        grouped = run("conversation-group", "--now", NOW, source)
        (tmp_path / "c.jsonl").write_bytes(grouped.stdout)
        assert render(tmp_path / "c.jsonl", source, site).returncode == 0

    render_all(fewer)
    for p in site.rglob("*"):
        if p.is_file():
            os.utime(p, ns=(1, 1))
    render_all(d / "messages.jsonl")
    changed = {str(p.relative_to(site)) for p in site.rglob("*") if p.is_file() and p.stat().st_mtime_ns != 1}
    alex = json.loads(messages[late])["participant_hash"]
    assert changed == {f"c/{alex}.html", "index.html"}


def records_for(conversations, messages, tmp_path):
    c, m = tmp_path / "c.jsonl", tmp_path / "m.jsonl"
    c.write_text("".join((x if isinstance(x, str) else json.dumps(x)) + "\n" for x in conversations))
    m.write_text("".join((x if isinstance(x, str) else json.dumps(x)) + "\n" for x in messages))
    return c, m


def message(i, **fields):
    return {"id": f"m{i}@x.example", "date": f"2026-03-0{1 + i % 9}T0{i % 10}:00:00Z", "from": {"name": "Ana", "address": "ana@x.example"},
            "from_me": False, "subject": "Hello", "reply_text": f"text {i}", "participant_hash": "p1", **fields}


def conversation(ids, cid="p1", **fields):
    return {"conversation_id": cid, "participants": [{"name": "Ana", "address": "ana@x.example"}], "is_group": False,
            "is_newsletter": False, "message_count": len(ids), "unread_count": 0, "last_date": "2026-03-09T00:00:00Z",
            "snippet": "", "archived": False, "shipments": [], "message_ids": ids, **fields}


def test_text_is_escaped_and_its_links_made_links(tmp_path):
    text = "<script>alert(1)</script> & see https://x.example/a?b=1&c=2. (or mailto:ana@x.example)\nline two"
    c, m = records_for([conversation(["m1@x.example"])], [message(1, reply_text=text, quoted_text="> <b>old</b>")], tmp_path)
    r = render(c, m, tmp_path / "site")
    assert r.returncode == 0, r.stderr
    page = (tmp_path / "site" / "c" / "p1.html").read_text()
    assert "&lt;script&gt;alert(1)&lt;/script&gt; &amp; see " in page
    assert '<a href="https://x.example/a?b=1&amp;c=2" rel="noopener noreferrer" target="_blank">https://x.example/a?b=1&amp;c=2</a>. (or ' in page
    assert '<a href="mailto:ana@x.example"' in page and "mailto:ana@x.example</a>)\nline two" in page
    assert "<details><summary>Show quoted text</summary>" in page and "&gt; &lt;b&gt;old&lt;/b&gt;" in page


def test_html_that_was_not_sanitized_is_sanitized_before_it_reaches_a_frame(tmp_path):
    html = '<p onclick="alert(1)">Hi</p><script>alert(2)</script><img src="https://t.example/p.png" width="600"><img src="cid:a1">'
    c, m = records_for([conversation(["m1@x.example"])],
                       [message(1, reply_text="", html=html, attachments=[{"filename": "a.png", "content_type": "image/png", "size": 70,
                                                                           "content_id": "a1"}])], tmp_path)
    assert render(c, m, tmp_path / "site").returncode == 0
    page = (tmp_path / "site" / "c" / "p1.html").read_text()
    frame = framed(tmp_path / "site", page)
    assert "<script" not in frame and "onclick" not in frame and "alert" not in frame
    assert 'data-remote-src="https://t.example/p.png"' in frame and ' src="https:' not in frame
    assert 'data-cid="a1"' in frame and "cid:" not in frame.replace('data-cid="a1"', "")
    full = [p for p in (tmp_path / "site" / "m").glob("*.html") if not p.name.endswith(".frame.html")]
    assert len(full) == 1 and "Back to the conversation" in full[0].read_text()


def framed(site, page):
    """The document a page's one frame shows (m/ANCHOR.frame.html), checked to be sandboxed,
    to carry the pages' policy and to be the same file on the conversation and full pages."""
    frames = re.findall(r'<iframe class="preview-frame" [^>]*sandbox="allow-popups allow-popups-to-escape-sandbox" '
                        r'tabindex="-1" loading="lazy" src="../m/([^"]+\.frame\.html)"></iframe>', page)
    assert len(frames) == 1, page
    full = (site / "m" / frames[0].replace(".frame.html", ".html")).read_text()
    assert f'sandbox="allow-popups allow-popups-to-escape-sandbox" src="{frames[0]}"></iframe>' in full
    document = (site / "m" / frames[0]).read_text()
    head = re.match(r'<!DOCTYPE html><html><head><meta charset="utf-8"><meta http-equiv="Content-Security-Policy" '
                    r'content="([^"]+)"><meta name="referrer" content="no-referrer"><title>', document)
    # the page's policy, frames of the site's own documents left out
    assert head and html_unescape(head.group(1)) == ("default-src 'none'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; "
                                                     "base-uri 'none'; form-action 'none'")
    assert "<body>" in document and "srcdoc" not in page + full
    return document


def test_an_html_message_is_written_once_for_its_preview_and_its_full_page(tmp_path):
    body = "<p>" + "A long newsletter paragraph. " * 2000 + "</p>"
    c, m = records_for([conversation(["m1@x.example"])], [message(1, reply_text="", html=body, sanitize={})], tmp_path)
    assert render(c, m, tmp_path / "site").returncode == 0
    site = tmp_path / "site"
    document = framed(site, (site / "c" / "p1.html").read_text())
    assert document.count("A long newsletter paragraph.") == 2000
    everywhere = sum(p.read_text().count("A long newsletter paragraph.") for p in site.rglob("*.html"))
    assert everywhere == 2000


def picture_records(tmp_path, photo=None):
    """A conversation with a photo alone, a message with three photos and files, an HTML
    message with an inline image, and a message whose attachment was not kept."""
    from pictures import kept_files
    k = kept_files(tmp_path / "kept", photo)
    unkept = {"filename": "big.zip", "content_type": "application/zip", "size": 30_000_000, "saved_as": None}
    html = '<div class="mailpipe-body"><p>The gorge:</p><img src="cid:in1@x" alt="gorge"></div>'
    messages = [message(1, reply_text="", attachments=[k["photo"]]),
                message(2, reply_text="The rest of the trip", attachments=[k["gorge"], k["river"], k["ridge"], k["map"],
                                                                          k["page"], k["svg"], k["fake"]]),
                message(3, reply_text="", html=html, sanitize={"elements_removed": 0}, attachments=[k["inline"]]),
                message(4, reply_text="Too big to keep", attachments=[unkept])]
    return k, records_for([conversation([m["id"] for m in messages])], messages, tmp_path)


def bubble_of(page, i):
    """The bubble of message i on a page."""
    start = page.index(f'data-message-id="m{i}@x.example"')
    return page[start:page.index("</li>\n", page.index("</article>", start))]


def test_kept_images_are_pictures_several_a_grid_and_files_cards_all_from_the_sites_copies(tmp_path):
    from pictures import environment
    k, (c, m) = picture_records(tmp_path)
    log = tmp_path / "runs.log"
    site = tmp_path / "site"
    r = run("chat-render", "--conversations", c, "--out", site, "--zone", "Asia/Taipei", "--now", NOW, m, env=environment(log))
    assert r.returncode == 0 and r.stderr == b"", r.stderr
    assert len(log.read_text().splitlines()) == 1  # one mail-thumbnail for every picture of the render
    page = (site / "c" / "p1.html").read_text()

    # a photo alone: the picture is the bubble, its thumbnail sized, its name its text, a link to its display copy
    one = bubble_of(page, 1)
    assert '<article class="bubble photo">' in one
    pictures = re.findall(r'<a class="picture" href="../(a/[0-9a-f]{64}\.jpg)"><img src="../(a/[0-9a-f]{64}\.t\.jpg)" '
                          r'width="(\d+)" height="(\d+)" alt="([^"]*)" loading="lazy"></a>', one)
    assert [(w, h, alt) for _, _, w, h, alt in pictures] == [("320", "240", "IMG_2041.jpg")]
    display, thumbnail = site / pictures[0][0], site / pictures[0][1]
    assert display.read_bytes()[:3] == b"\xff\xd8\xff" and thumbnail.read_bytes()[:3] == b"\xff\xd8\xff"
    assert display.stat().st_ino != pathlib.Path(k["photo"]["saved_as"]).stat().st_ino  # a copy made, never the kept file

    # three: a grid; the PDF a card with its first page; types that run only as downloads, as text
    two = bubble_of(page, 2)
    assert '<ul class="pictures grid" aria-label="Pictures">' in two and two.count('class="picture"') == 3
    assert 'class="bubble photo"' not in two
    cards = re.findall(r'<li class="file"><a href="../(f/[0-9a-f]{64}\.[a-z]+)"( download="[^"]*")?>(<img [^>]*>)?'
                       r'<span class="file-name" dir="auto">([^<]*)</span> <span class="file-meta">([^<]*)</span></a></li>', two)
    by_name = {name: (href, download, img, meta) for href, download, img, name, meta in cards}
    assert sorted(by_name) == ["fake.jpg", "logo.svg", "page.html", "太魯閣-trail.pdf"]
    pdf_href, download, img, meta = by_name["太魯閣-trail.pdf"]
    assert pdf_href.endswith(".pdf") and download == "" and meta.startswith("PDF · ")
    assert re.fullmatch(r'<img class="file-thumbnail" src="../a/[0-9a-f]{64}\.t\.jpg" width="\d+" height="\d+" alt="" loading="lazy">', img)
    assert by_name["page.html"][0].endswith(".txt") and by_name["page.html"][1] == ' download="page.html.txt"'
    assert by_name["logo.svg"][0].endswith(".txt") and by_name["logo.svg"][1] == ' download="logo.svg.txt"'
    assert by_name["fake.jpg"][1] == ' download="fake.jpg"'  # mail-thumbnail refused it: a file, not an image
    kept = {a["filename"]: pathlib.Path(a["saved_as"]) for a in k.values()}
    for href, _, _, name, _ in cards:  # the file itself, by a name the program chose (a hard link here)
        assert (site / href).stat().st_ino == kept[name].stat().st_ino

    # an inline image shows in the HTML's frame from its display copy, not again in the bubble
    three = bubble_of(page, 3)
    assert 'class="picture"' not in three and "inline.png" not in three
    document = framed(site, page)
    inline = re.search(r'<img src="data:image/jpeg;base64,([^"]+)" alt="gorge">', document)  # a frame may load no file
    display = next(p for p in (site / "a").glob("*.jpg") if not p.name.endswith(".t.jpg") and p.read_bytes() == base64.b64decode(inline[1]))
    assert display.stat().st_ino != pathlib.Path(k["inline"]["saved_as"]).stat().st_ino

    # not kept: a card without a link
    assert '<li class="file"><span class="file-name" dir="auto">big.zip</span> <span class="file-meta">ZIP · 30.0 MB</span></li>' in page

    # nothing links outside the site
    for name in ["c/p1.html", "m/" + re.search(r'src="../m/([^"]+)"', page).group(1)]:
        text = (site / name).read_text()
        assert "file:" not in text and str(tmp_path / "kept") not in text

    # a render again reads no picture again and writes the same bytes
    before = {p: p.read_bytes() for p in site.rglob("*") if p.is_file()}
    r = run("chat-render", "--conversations", c, "--out", site, "--zone", "Asia/Taipei", "--now", NOW, m, env=environment(log))
    assert r.returncode == 0, r.stderr
    assert len(log.read_text().splitlines()) == 1
    assert {p: p.read_bytes() for p in site.rglob("*") if p.is_file()} == before


def test_without_mail_thumbnail_every_kept_attachment_is_a_file_and_a_refusal_is_remembered(tmp_path):
    from pictures import environment
    k, (c, m) = picture_records(tmp_path)
    site = tmp_path / "site"
    r = run("chat-render", "--conversations", c, "--out", site, "--zone", "Asia/Taipei", "--now", NOW, m,
            env=environment(program=""))
    assert r.returncode == 0 and r.stderr == b"", r.stderr
    page = (site / "c" / "p1.html").read_text()
    assert 'class="picture"' not in page and not (site / "a").exists()
    assert re.search(r'<a href="../f/[0-9a-f]{64}\.jpg" download="IMG_2041.jpg"><span class="file-name" dir="auto">IMG_2041.jpg</span>', page)

    # a mail-thumbnail that dies on every file: the render goes on, each file is a file, and is not tried again
    dying = tmp_path / "dying"
    dying.write_text(f"#!/bin/sh\necho run >> {tmp_path}/dying.log\nkill -9 $$\n")
    dying.chmod(0o755)
    r = run("chat-render", "--conversations", c, "--out", site, "--zone", "Asia/Taipei", "--now", NOW, m,
            env=environment(program=dying))
    assert r.returncode == 0, r.stderr
    runs = len((tmp_path / "dying.log").read_text().splitlines())
    assert runs == 7 and r.stderr.decode().count("mail-thumbnail ended on it (signal 9)") == 7  # the seven maybe-pictures
    r = run("chat-render", "--conversations", c, "--out", site, "--zone", "Asia/Taipei", "--now", NOW, m,
            env=environment(program=dying))
    assert r.returncode == 0 and len((tmp_path / "dying.log").read_text().splitlines()) == runs


def test_bad_records_are_reported_with_their_line_and_left_out(tmp_path):
    c, m = records_for([conversation(["m1@x.example", "m2@x.example"]), {"conversation_id": "p2"}, "{nope"],
                       [message(1), "not json", {"date": "2026-03-01T00:00:00Z"}, message(2), message(7, id="stray@x.example")],
                       tmp_path)
    r = render(c, m, tmp_path / "site")
    assert r.returncode == 1
    err = r.stderr.decode().splitlines()
    assert err[0].startswith(f"chat-render: {c}:2: the record has no message_ids")
    assert err[1].startswith(f"chat-render: {c}:3: invalid JSON")
    assert err[2].startswith(f"chat-render: {m}:2: invalid JSON")
    assert err[3] == f"chat-render: {m}:3: the record has no id"
    assert err[4] == f"chat-render: {m}:5: message stray@x.example is in no conversation of {c}"
    assert [i for _, i in message_ids_on(tmp_path / "site" / "c" / "p1.html")] == ["m1@x.example", "m2@x.example"]
    strict = render(c, m, tmp_path / "strict", "--strict")
    assert strict.returncode == 65


def test_a_page_that_cannot_be_written_is_an_io_error_named_with_its_path(tmp_path):
    c, m = records_for([conversation(["m1@x.example"])], [message(1)], tmp_path)
    (tmp_path / "site" / "c" / "p1.html").mkdir(parents=True)
    r = render(c, m, tmp_path / "site")
    assert r.returncode == 74
    assert r.stderr.decode() == f"chat-render: {tmp_path}/site/c/p1.html: Is a directory\n"
    assert not (tmp_path / "site" / ".chat-render-files").exists()


def test_a_file_where_a_folder_of_the_site_goes_is_refused(tmp_path):
    c, m = records_for([conversation(["m1@x.example"])], [message(1)], tmp_path)
    (tmp_path / "site").mkdir()
    (tmp_path / "site" / "c").write_text("a file where the folder of conversations goes")
    r = render(c, m, tmp_path / "site")
    assert r.returncode == 73
    assert r.stderr.decode() == f"chat-render: {tmp_path}/site/c: not a folder\n"


def test_a_full_page_that_cannot_be_written_ends_the_run_not_one_record(tmp_path):
    ids = [f"m{i}@x.example" for i in range(300)]
    html = {"reply_text": "", "html": "<p>" + "news " * 200 + "</p>", "sanitize": {}}
    c, m = records_for([conversation(ids)], [message(i, **html) for i in range(300)], tmp_path)
    assert render(c, m, tmp_path / "site").returncode == 0
    full_pages = list((tmp_path / "site" / "m").glob("*.html"))
    assert full_pages
    for page in full_pages:  # a folder where each full page goes
        page.unlink()
        page.mkdir()
    r = render(c, m, tmp_path / "site")
    err = r.stderr.decode().splitlines()
    assert r.returncode == 74 and len(err) == 1 and err[0].endswith(".html: Is a directory"), err[:3]
    assert f"{m}:" not in err[0]


def test_a_conversation_of_twenty_thousand_messages_is_split_into_pages(tmp_path):
    n = 20000
    msgs = [dict(message(i), date=f"2026-01-01T00:00:00Z".replace("00:00:00", f"{i // 3600 % 24:02d}:{i // 60 % 60:02d}:{i % 60:02d}")
                 .replace("01T", f"{1 + i // 86400:02d}T")) for i in range(n)]
    c, m = records_for([conversation([x["id"] for x in msgs])], msgs, tmp_path)
    r = render(c, m, tmp_path / "site")
    assert r.returncode == 0, r.stderr
    pages = sorted((tmp_path / "site" / "c").glob("p1*.html"))
    assert len(pages) == 40
    seen = []
    for k in range(1, 40):
        page = tmp_path / "site" / "c" / f"p1.p{k}.html"
        ids = [i for _, i in message_ids_on(page)]
        assert len(ids) == 500
        seen += ids
        assert (f'href="p1.p{k + 1}.html"' if k < 39 else 'href="p1.html"') in page.read_text()
    newest = [i for _, i in message_ids_on(tmp_path / "site" / "c" / "p1.html")]
    assert len(newest) == 500 and 'rel="prev" href="p1.p39.html"' in (tmp_path / "site" / "c" / "p1.html").read_text()
    assert seen + newest == [x["id"] for x in msgs]


def test_templates_from_a_folder_replace_the_built_in_ones(tmp_path, sample):
    d, _ = sample
    t = tmp_path / "t"
    t.mkdir()
    (t / "style.css").write_text("body { color: red }\n")
    (t / "item.html").write_text('<li class="mine-{{count}}"><a href="{{href}}">{{title}}</a></li>\n')
    r = render(d / "conversations.jsonl", d / "messages.jsonl", tmp_path / "site", "--templates", t)
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "site" / "style.css").read_text() == "body { color: red }\n"
    assert '<li class="mine-1"><a href="c/' in (tmp_path / "site" / "index.html").read_text()
    (t / "bubble.html").write_text("<li>\n{{#text}}{{{text}}}{{/text}}{{nonsense}}</li>\n")
    bad = render(d / "conversations.jsonl", d / "messages.jsonl", tmp_path / "site2", "--templates", t)
    assert bad.returncode == 64
    assert f"{t}/bubble.html:2: unknown field 'nonsense'" in bad.stderr.decode()


def test_events_are_paged_as_the_other_lists_upcoming_then_past(tmp_path):
    # NOW is 2026-03-11: four events to come and three past, one an event a message each
    def event(i, day):
        return {"uid": f"e{i}@x.example", "method": "REQUEST", "status": "confirmed", "summary": f"Event number {i}",
                "start": f"2026-03-{day:02d}T10:00:00Z", "end": f"2026-03-{day:02d}T11:00:00Z", "all_day": False}
    days = [20, 12, 3, 15, 1, 25, 7]
    msgs = [message(i, events=[event(i, day)]) for i, day in enumerate(days)]
    c, m = records_for([conversation([x["id"] for x in msgs])], msgs, tmp_path)
    assert render(c, m, tmp_path / "site", "--list-page-size", "3").returncode == 0
    files = ["events.html", "events.p2.html", "events.p3.html"]
    assert sorted(p.name for p in (tmp_path / "site").glob("events*.html")) == files
    shown = []
    for k, name in enumerate(files):
        page = (tmp_path / "site" / name).read_text()
        assert f"<title>Events ({k + 1} of 3)</title>" in page
        assert ('rel="prev"' in page) == (k > 0) and ('rel="next"' in page) == (k < 2)
        assert k == 0 or f'<a rel="prev" href="{files[k - 1]}">Previous</a>' in page
        assert k == 2 or f'<a rel="next" href="{files[k + 1]}">Next</a>' in page
        for part in re.findall(r"<h2>(Upcoming|Past)</h2><ul class=\"cards\">(.*?)</ul>", page, re.S):
            shown += [(part[0], int(n)) for n in re.findall(r"Event number (\d)", part[1])]
        assert page.count('class="card event"') == (3 if k < 2 else 1)
    # soonest first, then the past latest first; a part that goes on over two pages is headed on both
    assert shown == [("Upcoming", 1), ("Upcoming", 3), ("Upcoming", 0), ("Upcoming", 5), ("Past", 6), ("Past", 2), ("Past", 4)]
    assert render(c, m, tmp_path / "site").returncode == 0
    assert sorted(p.name for p in (tmp_path / "site").glob("events*.html")) == ["events.html"]


def test_hard_wrapped_text_flows_and_format_flowed_text_keeps_its_breaks(tmp_path):
    wrapped = ("Thanks for sending the draft over. I read it on the train this morning\n"
               "and I think the second section works much better now that the examples\n"
               "come first.\n\nSee you Friday,\nAna")
    flowing = ("Thanks for sending the draft over. I read it on the train this morning and I think the second section works much "
               "better now that the examples come first.\n\nSee you Friday,\nAna")
    msgs = [message(1, reply_text=wrapped, text=wrapped, text_format="plain"),
            # text-extract undid format=flowed: what breaks are left are the sender's
            message(2, reply_text=wrapped, text=wrapped, text_format="flowed"),
            message(3, reply_text=None, text=wrapped)]
    c, m = records_for([conversation([x["id"] for x in msgs])], msgs, tmp_path)
    assert render(c, m, tmp_path / "site").returncode == 0
    page = (tmp_path / "site" / "c" / "p1.html").read_text()
    texts = re.findall(r'<div class="text" dir="auto">(.*?)</div>', page, re.S)
    assert texts == [flowing, wrapped, flowing]


def test_every_card_of_the_calendar_parcels_and_today_names_its_own_conversation_from_files_and_from_the_store(tmp_path):
    # three conversations, each with an event and a parcel in its mail; the draft's event is in its participants'
    # conversation, as the store keeps it. Every card links to the page of the conversation its mail is in.
    def event(summary, day):
        return {"uid": f"{day}@x.example", "method": "REQUEST", "status": "confirmed", "summary": summary, "source": "icalendar",
                "start": f"2026-03-{day:02d}T10:00:00Z", "end": f"2026-03-{day:02d}T11:00:00Z", "all_day": False}

    def shipment(number):
        return {"carrier": "ups", "tracking_number": number, "status": "in_transit", "expected_delivery": "2026-03-12"}
    people = {"pana": {"name": "Ana Lee", "address": "ana@x.example"}, "pben": {"name": "Ben Wu", "address": "ben@x.example"},
              "pcho": {"name": "Cho Min", "address": "cho@x.example"}}
    said = [("pana", 1, "Lunch with Ana", 12, "1Z999AA10123456784"), ("pben", 4, "Dentist with Ben", 20, "1Z999AA10123456795"),
            ("pcho", 2, "Tea with Cho", 11, "1Z999AA10123456773")]
    me = {"address": "mei@example.tw"}
    msgs = [message(i, participant_hash=p, participants=[people[p]["address"]], **{"from": people[p]}, to=[me],
                    events=[event(summary, day)], shipments=[shipment(number)]) for p, i, summary, day, number in said]
    msgs.append(message(7, participant_hash="pben", participants=["ben@x.example"], **{"from": me}, to=[people["pben"]],
                        from_me=True, is_draft=True, events=[event("Draft: walk with Ben", 13)]))
    lines = "".join(json.dumps(m) + "\n" for m in msgs).encode()
    (tmp_path / "m.jsonl").write_bytes(lines)
    (tmp_path / "c.jsonl").write_bytes(run("conversation-group", "--now", NOW, input=lines).stdout)
    assert render(tmp_path / "c.jsonl", tmp_path / "m.jsonl", tmp_path / "files").returncode == 0
    assert run("mailstore", "add", "-q", "--me", "mei@example.tw", tmp_path / "mail.db", tmp_path / "m.jsonl").returncode == 0
    r = run("chat-render", "--store", tmp_path / "mail.db", "--out", tmp_path / "store", "--zone", "Asia/Taipei", "--now", NOW)
    assert r.returncode == 0, r.stderr
    expected = {summary: people[p]["name"] for p, _, summary, _, _ in said} | {"Draft: walk with Ben": "Ben Wu"}
    expected |= {number: people[p]["name"] for p, _, _, _, number in said}
    for site in (tmp_path / "files", tmp_path / "store"):
        pages = {name: (site / name).read_text() for name in ["events.html", "parcels.html", "today.html"]}
        links = {}
        for name, page in pages.items():
            for card in re.findall(r'<li class="card.*?</li>', page, re.S):
                what = next(k for k in expected if k in card)
                href, title = re.search(r'<a href="(c/[^"]+)"[^>]*>([^<]+)</a>', card).groups()
                assert f"<h1 dir=\"auto\">{title}</h1>" in (site / href).read_text(), (site.name, name, what)
                links.setdefault(what, set()).add(title)
        assert links == {k: {v} for k, v in expected.items()}, site.name
        assert "Lunch with Ana" in pages["today.html"] and "Tea with Cho" in pages["today.html"]


def test_pictures_from_the_store_equal_those_from_files_and_a_delivery_without_attachments_starts_no_process(tmp_path):
    from pictures import environment
    k, (c, m) = picture_records(tmp_path)
    log = tmp_path / "runs.log"
    db = tmp_path / "mail.db"
    assert run("mailstore", "add", "-q", "--me", "mei@example.tw", db, m).returncode == 0
    r = run("chat-render", "--store", db, "--out", tmp_path / "store", "--zone", "Asia/Taipei", "--now", NOW, env=environment(log))
    assert r.returncode == 0 and r.stderr == b"", r.stderr
    assert len(log.read_text().splitlines()) == 1
    r = run("chat-render", "--conversations", c, "--out", tmp_path / "files", "--zone", "Asia/Taipei", "--now", NOW, m,
            env=environment(log))
    assert r.returncode == 0, r.stderr

    def page_with(site, text):
        return next(p.read_text() for p in (site / "c").glob("*.html") if text in p.read_text())

    def shown(site):
        page = page_with(site, "m2@x.example")
        return (re.findall(r'<ul class="pictures[^"]*".*?</ul>', page, re.S), re.findall(r'<ul class="files".*?</ul>', page, re.S))
    assert shown(tmp_path / "store") == shown(tmp_path / "files") and len(shown(tmp_path / "store")[0]) == 2

    # the live path: a message without attachments starts no mail-thumbnail; the one with a photo does, once
    runs = len(log.read_text().splitlines())
    mail = (b"From: Ana <ana@x.example>\nTo: mei@example.tw\nSubject: Hello\nDate: Tue, 10 Mar 2026 10:00:00 +0800\n"
            b"Message-ID: <live1@x.example>\n\nno picture in this one\n")
    r = run("mailstore", "deliver", "-q", "--me", "mei@example.tw", "--site", tmp_path / "store", db, input=mail, env=environment(log))
    assert r.returncode == 0, r.stderr
    assert page_with(tmp_path / "store", "no picture in this one")
    assert len(log.read_text().splitlines()) == runs
    new = message(8, reply_text="", attachments=[k["inline"] | {"content_id": None, "disposition": "attachment"}])
    (tmp_path / "new.jsonl").write_text(json.dumps(new) + "\n")
    assert run("mailstore", "add", "-q", "--me", "mei@example.tw", db, tmp_path / "new.jsonl").returncode == 0
    r = run("chat-render", "--store", db, "--out", tmp_path / "store", "--zone", "Asia/Taipei", "--now", NOW, env=environment(log))
    assert r.returncode == 0, r.stderr
    assert len(log.read_text().splitlines()) == runs  # the same picture as the inline one: made already
    page = page_with(tmp_path / "store", "m8@x.example")
    assert bubble_of(page, 8).count('class="picture"') == 1


def test_a_picture_that_would_decompress_past_the_pixel_limit_is_a_file_and_the_render_goes_on(tmp_path):
    """A PNG of 12,000 × 10,000 pixels in a few hundred kB (over mail-thumbnail's default limit of
    100 million): offered as the file it is, as a download, beside a photo shown as a picture."""
    import struct
    import zlib
    from pictures import attachment, environment, png
    kept = tmp_path / "kept"
    kept.mkdir()
    width, height = 12_000, 10_000
    packer = zlib.compressobj(9)
    row = b"\0" * (1 + 3 * width)
    data = b"".join(packer.compress(row) for _ in range(height)) + packer.flush()

    def chunk(kind, body):
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF)
    (kept / "bomb.png").write_bytes(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
                                    + chunk(b"IDAT", data) + chunk(b"IEND", b""))
    assert (kept / "bomb.png").stat().st_size < 1_000_000
    attachments = [attachment(kept / "bomb.png", "image/png"), attachment(png(kept / "ok.png", 64, 48), "image/png")]
    c, m = records_for([conversation(["m1@x.example"])], [message(1, reply_text="", attachments=attachments)], tmp_path)
    r = run("chat-render", "--conversations", c, "--out", tmp_path / "site", "--zone", "Asia/Taipei", "--now", NOW, m, env=environment())
    assert r.returncode == 0, r.stderr
    page = (tmp_path / "site" / "c" / "p1.html").read_text()
    assert page.count('class="picture"') == 1 and 'alt="ok.png"' in page
    assert re.search(r'<li class="file"><a href="../f/[0-9a-f]{64}\.png" download="bomb.png"><span class="file-name" dir="auto">bomb.png</span>', page)
    index = [json.loads(l) for l in (tmp_path / "site" / ".chat-render-pictures").read_text().splitlines()]
    assert [e["kind"] for e in index if "kind" in e and e["kind"] == "file"] == ["file"]
