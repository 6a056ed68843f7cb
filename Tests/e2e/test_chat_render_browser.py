"""chat-render's site in Debian's Chromium through Playwright: it opens from file://, each
conversation shows its messages in date order with mine on the right, nothing logs an error,
asks for anything outside the site's folder or opens a dialog; axe-core finds no serious or
critical violation in light and dark mode; and the XSS vectors of ../shared delivered as mail
(with and without html-sanitize in the pipeline) run nothing and fetch nothing."""
import json
import pathlib
import shutil
import struct
import subprocess
import threading
from email.message import EmailMessage
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from conftest import ENV, ROOT, SAMPLE, SHARED, run
from test_chat_render import NOW, render

playwright = pytest.importorskip("playwright.sync_api")


class Proxy(BaseHTTPRequestHandler):
    """Every request that leaves the browser comes here (Playwright does not report those of
    sandboxed frames): it is recorded and refused."""
    seen = []

    def answer(self):
        Proxy.seen.append(self.path)
        self.send_response(404)
        self.send_header("Content-Length", "0")
        self.end_headers()

    do_GET = do_POST = do_HEAD = do_CONNECT = do_PUT = do_OPTIONS = answer

    def log_message(self, *args):
        pass


@pytest.fixture(scope="module")
def chromium():
    path = shutil.which("chromium") or shutil.which("chromium-browser")
    assert path, "Debian's chromium is not installed (scripts/install-deps --test)"
    proxy = ThreadingHTTPServer(("127.0.0.1", 0), Proxy)
    threading.Thread(target=proxy.serve_forever, daemon=True).start()
    with playwright.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=path, args=[
            "--no-sandbox", f"--proxy-server=http://127.0.0.1:{proxy.server_port}", "--proxy-bypass-list=<-loopback>",
            # the browser's own traffic, which is not the pages'
            "--disable-background-networking", "--disable-component-update", "--disable-sync", "--disable-default-apps",
            "--disable-domain-reliability", "--no-pings", "--no-first-run",
            "--disable-features=NetworkTimeServiceQuerying,OptimizationHints,Translate,MediaRouter"])
        yield browser
        browser.close()
    proxy.shutdown()


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    d = tmp_path_factory.mktemp("site")
    r = subprocess.run([str(ROOT / "pipelines" / "mbox-to-conversations"), "--me", "mei@example.tw", "--zone", "Asia/Taipei",
                        "--out", str(d), "--html", str(d / "site"), str(SAMPLE)], capture_output=True, env=ENV)
    assert r.returncode == 0, r.stderr
    return d / "site"


# Chromium's own services (sign-in, updates), which its switches do not all silence; no page
# and no vector asks for these hosts
def browsers_own(target):
    host = target.split("//")[-1].split("/")[0].rsplit(":", 1)[0]
    return any(host == d or host.endswith("." + d) for d in ("google.com", "googleapis.com", "gvt1.com", "gstatic.com"))


class Watch:
    """What a page did that it must not: console errors, requests outside the site (as the
    page reports them, and as the proxy sees them), dialogs."""

    @property
    def all(self):
        return self.problems + [("request", url) for url in Proxy.seen if not browsers_own(url)]

    def __init__(self, page, root):
        self.problems = []
        Proxy.seen.clear()
        prefix = "file://" + str(root) + "/"
        page.on("console", lambda m: m.type in ("error", "warning") and self.problems.append(("console", m.text)))
        page.on("pageerror", lambda e: self.problems.append(("pageerror", str(e))))
        page.on("dialog", lambda d: (self.problems.append(("dialog", d.message)), d.dismiss()))
        page.on("request", lambda r: r.url.startswith(prefix) or r.url in ("about:srcdoc", "about:blank")
                or self.problems.append(("request", r.url)))


def open_page(browser, root, name, scheme="light", width=1100):
    context = browser.new_context(viewport={"width": width, "height": 900}, color_scheme=scheme, java_script_enabled=True)
    page = context.new_page()
    watch = Watch(page, root)
    page.goto("file://" + str(root / name))
    page.wait_for_load_state("load")
    return context, page, watch


def test_every_page_opens_from_disk_quietly_with_its_messages_in_order_mine_on_the_right(chromium, site):
    messages = {json.loads(l)["id"]: json.loads(l) for l in (site.parent / "messages.jsonl").read_text().splitlines()}
    pages = ["index.html", "today.html", "newsletters.html", "lists.html", "parcels.html", "events.html", "archived.html"]
    pages += ["c/" + p.name for p in sorted((site / "c").glob("*.html"))] + ["m/" + p.name for p in sorted((site / "m").glob("*.html"))]
    mine_seen = 0
    for name in pages:
        context, page, watch = open_page(chromium, site, name)
        assert page.title()
        if name.startswith("c/"):
            shown = page.eval_on_selector_all("li.message", "els => els.map(e => [e.dataset.messageId, e.classList.contains('mine') ? 'mine'"
                                              " : e.classList.contains('automated') ? 'automated' : 'theirs',"
                                              " e.querySelector('.bubble').getBoundingClientRect().left,"
                                              " e.querySelector('.bubble').getBoundingClientRect().right, e.getBoundingClientRect().right,"
                                              " e.getBoundingClientRect().left])")
            ids = [s[0] for s in shown]
            assert ids == sorted(ids, key=lambda i: messages[i]["date"])
            for message_id, side, left, right, row_right, row_left in shown:
                if messages[message_id].get("mail_kind") == "automated":  # an auto-reply: a note in the middle
                    assert side == "automated" and abs((left + right) - (row_left + row_right)) < 4
                elif messages[message_id]["from_me"]:
                    assert side == "mine"
                    mine_seen += 1
                    assert abs(right - row_right) < 2 and left > row_left + 50
                else:
                    assert side == "theirs" and abs(left - row_left) < 2
        assert watch.all == [], name
        context.close()
    assert mine_seen >= 1


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_axe_finds_no_serious_or_critical_violation(chromium, site, scheme):
    from axe_playwright_python.sync_playwright import Axe
    group = next(p for p in (site / "c").glob("*.html") if "Trip photos" in p.read_text())
    newsletter = next(p for p in (site / "c").glob("*.html") if "Spring reading list" in p.read_text())
    for name in ["index.html", "c/" + group.name, "c/" + newsletter.name, "events.html", "parcels.html", "today.html"]:
        for width in (320, 1100):
            context, page, _ = open_page(chromium, site, name, scheme, width)
            results = Axe().run(page)
            bad = [(v["id"], v["impact"], [n["target"] for n in v["nodes"]][:3])
                   for v in results.response["violations"] if v["impact"] in ("serious", "critical")]
            assert bad == [], (name, width)
            context.close()


def xss_mailbox(path):
    """Every vector of ../shared/vectors/xss as the HTML body of a message from one sender."""
    fields = {"dompurify_expect.json": "payload", "html5sec_h5sc.json": "payload",
              "owasp_xss_filter_evasion.json": "payload", "roundcube_washtml.json": "input"}
    n = 0
    with open(path, "w", encoding="utf-8") as out:
        for name, field in fields.items():
            for item in json.loads((SHARED / "vectors" / "xss" / name).read_text()):
                m = EmailMessage()
                m["From"] = "Mallory <mallory@evil.example>"
                m["To"] = "me@example.com"
                m["Subject"] = f"vector {n}"
                m["Date"] = f"Mon, 2 Mar 2026 {n // 3600 % 24:02d}:{n // 60 % 60:02d}:{n % 60:02d} +0000"
                m["Message-ID"] = f"<v{n}@evil.example>"
                m.set_content(item[field], subtype="html")
                text = m.as_string().replace("\nFrom ", "\n>From ")
                out.write(f"From mallory@evil.example Mon Mar  2 00:00:00 2026\n{text}\n")
                n += 1
    return n


@pytest.mark.shared("vectors/xss")
@pytest.mark.parametrize("sanitized", [True, False], ids=["with-html-sanitize", "without-html-sanitize"])
def test_xss_vectors_delivered_as_mail_run_nothing_and_fetch_nothing(chromium, tmp_path, sanitized):
    mbox = tmp_path / "xss.mbox"
    count = xss_mailbox(mbox)
    stages = ["html-sanitize", "text-extract"] if sanitized else ["text-extract"]
    records = run("mime-parse", "--no-progress", mbox).stdout
    for stage in stages + ["newsletter-detect"]:
        records = run(stage, "--no-progress", input=records).stdout
    records = run("participant-hash", "--me", "me@example.com", input=records).stdout
    (tmp_path / "m.jsonl").write_bytes(records)
    (tmp_path / "c.jsonl").write_bytes(run("conversation-group", "--now", NOW, tmp_path / "m.jsonl").stdout)
    site = tmp_path / "site"
    r = render(tmp_path / "c.jsonl", tmp_path / "m.jsonl", site)
    assert r.returncode == 0, r.stderr
    pages = ["c/" + p.name for p in sorted((site / "c").glob("*.html"))] + ["m/" + p.name for p in sorted((site / "m").glob("*.html"))]
    assert len(pages) > count // 2
    # one tab goes through every page (a context each would take minutes)
    context, page, watch = open_page(chromium, site, pages[0])
    shown = 0
    for name in pages:
        page.goto("file://" + str(site / name))
        page.wait_for_load_state("load")
        shown += page.eval_on_selector_all("li.message", "els => els.length")
        # the frames show the site's own documents of the messages (or are not yet committed): none went anywhere
        own = "file://" + str(site / "m") + "/"
        assert [f.url for f in page.frames if f != page.main_frame and f.url not in ("", "about:blank")
                and not (f.url.startswith(own) and f.url.endswith(".frame.html"))] == [], name
        assert [p for p in watch.all if p[0] in ("dialog", "request", "pageerror")] == [], name
    context.close()
    assert shown == count


def test_make_screenshots_shows_the_index_and_four_conversations_at_two_widths(site, tmp_path):
    r = subprocess.run([str(ROOT / ".venv" / "bin" / "python"), str(ROOT / "scripts" / "screenshots"),
                        str(site.parent / "conversations.jsonl"), str(site), str(tmp_path)], capture_output=True, env=ENV)
    assert r.returncode == 0, r.stderr
    shots = {}
    for line in r.stdout.decode().splitlines():
        png, page = line.split("\t")
        shots[pathlib.Path(png).name] = site / page
    names = ["index", "chat", "newsletter", "parcel", "group"]
    assert sorted(shots) == sorted([f"{n}-{w}.png" for n in names for w in ("phone", "desktop")] + ["index-phone-dark.png", "group-phone-dark.png"])
    for name, page in shots.items():
        data = (tmp_path / name).read_bytes()
        width, height = struct.unpack(">II", data[16:24])
        assert data[:8] == b"\x89PNG\r\n\x1a\n" and width == (360 if "phone" in name else 1280) and 300 < height <= 1400, name
    assert "layla.haddad@example.ae" in shots["group-phone.png"].read_text() and "好啊" in shots["group-phone.png"].read_text()
    assert "Spring reading list" in shots["newsletter-phone.png"].read_text()
    assert "1Z999AA10123456784" in shots["parcel-phone.png"].read_text()


def test_the_watch_sees_a_request_outside_the_site(chromium, tmp_path):
    """The control: with --remote-images a sanitized message's remote image is fetched, and
    the watch above sees it (so its silence elsewhere means something)."""
    from test_chat_render import conversation, message, records_for
    html = '<div class="mailpipe-body"><img src="https://images.example/pic.png" width="600"></div>'
    c, m = records_for([conversation(["m1@x.example"])], [message(1, reply_text="", html=html, sanitize={})], tmp_path)
    assert render(c, m, tmp_path / "site", "--remote-images").returncode == 0
    context, page, watch = open_page(chromium, tmp_path / "site", "c/p1.html")
    page.wait_for_timeout(500)
    assert any(kind == "request" and "images.example" in url for kind, url in watch.all)
    context.close()


@pytest.fixture(scope="module")
def photo_site(tmp_path_factory):
    """A conversation of kept pictures and files (test_chat_render.picture_records), the photo
    alone a real one when Debian's libvips-doc is there."""
    from pictures import OWL, environment
    from test_chat_render import picture_records
    d = tmp_path_factory.mktemp("photos")
    _, (c, m) = picture_records(d, OWL if OWL.exists() else None)
    r = run("chat-render", "--conversations", c, "--out", d / "site", "--zone", "Asia/Taipei", "--now", NOW, m, env=environment())
    assert r.returncode == 0, r.stderr
    return d / "site"


def bubble(page, i):
    return page.locator(f'li.message[data-message-id="m{i}@x.example"] .bubble')


@pytest.mark.parametrize("width", [375, 1100])
def test_pictures_show_at_phone_and_desktop_widths_several_as_a_grid_and_a_click_opens_the_display_copy(chromium, photo_site, width):
    context, page, watch = open_page(chromium, photo_site, "c/p1.html", width=width)
    assert "<script" not in page.content()
    for img in page.locator("ul.pictures img").all():
        img.scroll_into_view_if_needed()
        page.wait_for_function("i => i.complete && i.naturalWidth > 0", arg=img.element_handle())
    # where they are on the page, all at once
    pictures = page.eval_on_selector_all("ul.pictures img", "els => els.map(e => { const r = e.getBoundingClientRect();"
                                         " return {x: r.x, y: r.y + scrollY, width: r.width, height: r.height}; })")
    assert len(pictures) == 4
    for box in pictures:  # seen whole, inside the page
        assert box["width"] >= 100 and box["height"] >= 60 and box["x"] >= 0 and box["x"] + box["width"] <= width
    alone, first, second, third = pictures
    assert abs(alone["width"] - min(320, width * 0.92 - 8)) < 40  # the photo at its thumbnail's width, or the bubble's
    assert abs(first["y"] - second["y"]) < 1 and second["x"] > first["x"] + first["width"] - 1  # two side by side
    assert abs(first["width"] - second["width"]) < 1 and abs(first["width"] - first["height"]) < 1  # squares
    assert third["y"] >= first["y"] + first["height"] and third["width"] > first["width"] * 1.8  # the odd one under them, across
    bubble_width = bubble(page, 1).evaluate("b => b.getBoundingClientRect().width")
    assert alone["width"] >= bubble_width - 12  # a photo alone is its bubble

    # files: cards; what runs only as a download, as text
    cards = bubble(page, 2).locator("li.file a")
    hrefs = {a.inner_text().split("\n")[0]: (a.get_attribute("href"), a.get_attribute("download")) for a in cards.all()}
    assert hrefs["page.html"][0].endswith(".txt") and hrefs["page.html"][1] == "page.html.txt"
    assert hrefs["logo.svg"][0].endswith(".txt") and hrefs["logo.svg"][1] == "logo.svg.txt"
    assert hrefs["太魯閣-trail.pdf"][1] is None
    assert bubble(page, 2).locator("img.file-thumbnail").evaluate("i => i.naturalWidth") > 0  # the PDF's first page

    # the inline image of the HTML message, in its frame, from the site's display copy
    bubble(page, 3).scroll_into_view_if_needed()
    frame = next(f for f in page.frames if f.url.endswith(".frame.html"))
    frame.wait_for_function("() => document.images.length == 1 && document.images[0].complete && document.images[0].naturalWidth > 0")
    assert frame.evaluate("document.images[0].src").startswith("data:image/")

    bubble(page, 1).locator("a.picture").click()
    page.wait_for_load_state("load")
    assert page.url.startswith("file://" + str(photo_site / "a") + "/") and page.url.endswith(".jpg")
    assert page.evaluate("document.images[0].naturalWidth") >= 600
    assert watch.all == []
    context.close()


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_axe_finds_no_serious_or_critical_violation_in_pictures_and_file_cards(chromium, photo_site, scheme):
    from axe_playwright_python.sync_playwright import Axe
    for width in (375, 1100):
        context, page, _ = open_page(chromium, photo_site, "c/p1.html", scheme, width)
        results = Axe().run(page)
        bad = [(v["id"], v["impact"], [n["target"] for n in v["nodes"]][:3])
               for v in results.response["violations"] if v["impact"] in ("serious", "critical")]
        assert bad == [], width
        context.close()


def test_a_photo_bubble_screenshot_for_the_readme(chromium, photo_site):
    """Into .build/screenshots/photo-phone.png (docs/screenshots/ holds a copy for the README)."""
    out = ROOT / ".build" / "screenshots"
    out.mkdir(parents=True, exist_ok=True)
    context = chromium.new_context(viewport={"width": 360, "height": 800}, color_scheme="light")
    page = context.new_page()
    page.goto("file://" + str(photo_site / "c" / "p1.html"))
    for img in page.locator("ul.pictures img, img.file-thumbnail").all():
        img.scroll_into_view_if_needed()
        page.wait_for_function("i => i.complete && i.naturalWidth > 0", arg=img.element_handle())
    page.evaluate("window.scrollTo(0, 0)")
    top = page.locator('li.message[data-message-id="m1@x.example"]').bounding_box()["y"] - 60
    bottom = page.locator('li.message[data-message-id="m2@x.example"]').bounding_box()
    page.screenshot(path=str(out / "photo-phone.png"), full_page=True,
                    clip={"x": 0, "y": max(0, top), "width": 360, "height": bottom["y"] + bottom["height"] + 8 - max(0, top)})
    data = (out / "photo-phone.png").read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and struct.unpack(">II", data[16:24])[0] == 360
    context.close()


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_reactions_sit_under_the_bubble_they_react_to_readable_and_axe_clean(chromium, tmp_path, scheme):
    from axe_playwright_python.sync_playwright import Axe
    from test_reactions import deliver, delta_chat_reaction, original, outlook_reaction
    db, site = tmp_path / "mail.db", tmp_path / "site"
    for m in [original(1), original(2, hour=10), delta_chat_reaction("👍", "o1@example.tw", 1),
              outlook_reaction("❤️", "o1@example.tw", 2, sender="Sam <sam@example.com>"),
              delta_chat_reaction("👨‍👩‍👧", "o2@example.tw", 3, minute=5)]:
        deliver(db, m, site)
    (conversation,) = (site / "c").glob("*.html")
    for width in (320, 1100):
        context, page, watch = open_page(chromium, site, "c/" + conversation.name, scheme, width)
        rows = page.eval_on_selector_all(
            "li.message", "els => els.map(e => { const b = e.querySelector('.bubble').getBoundingClientRect();"
            " const r = e.querySelector('ul.reactions'); const rr = r && r.getBoundingClientRect();"
            " return [e.dataset.messageId, rr ? [rr.top, rr.left, rr.right, rr.height] : null, [b.bottom, b.left, b.right],"
            " r ? [...r.querySelectorAll('li.reaction')].map(li => [li.title, li.querySelector('[aria-hidden]').innerText]) : []] })")
        shown = {r[0]: r for r in rows}
        assert set(shown) == {"o1@example.tw", "o2@example.tw"}
        _, box, bubble, items = shown["o1@example.tw"]
        assert box and box[3] > 0 and box[0] >= bubble[0] - 10  # under its bubble, a little over its edge
        assert box[1] >= bubble[1] - 1 and box[2] <= width  # on the bubble's side, inside the page
        assert sorted(items) == sorted([["Alex Rivera", "👍 1"], ["Sam", "❤️ 1"]])
        assert shown["o2@example.tw"][3] == [["Alex Rivera", "👨‍👩‍👧 1"]]
        assert page.evaluate("document.documentElement.scrollWidth") <= width
        assert watch.all == []  # (before axe, whose own fetches the pages' policy refuses)
        results = Axe().run(page)
        bad = [(v["id"], v["impact"], [n["target"] for n in v["nodes"]][:3])
               for v in results.response["violations"] if v["impact"] in ("serious", "critical")]
        assert bad == [], (width, bad)
        context.close()
