"""html-sanitize as a filter: the fields it writes, its options, the shared bad-line convention,
and properties that hold on every input we have (idempotence, nothing executable left)."""
import json
import re
from html.parser import HTMLParser

import pytest

from conftest import CORPUS, SAMPLE, SHARED, check_bad_lines, records, run
from test_corpus import message_files
from test_html_sanitize_browser import VECTOR_FILES, sanitize_all, vectors

NEWSLETTER = """<html><head><title>Deals</title><style>body{margin:0} .x{color:red;background:url(https://cdn.example/bg.png)}</style></head>
<body bgcolor="#eeeeee"><div id="top" onclick="steal()">Hello <a href="https://shop.example/p?id=7&utm_source=mail&utm_medium=email&fbclid=abc#buy">buy</a>
<img src="https://cdn.example/hero.png" alt="Hero" width="600">
<img src="https://t.mailtrack.io/open?u=1" width="600">
<img src="https://news.example/o.gif?id=9" width="1" height="1">
<script>alert(1)</script></div></body></html>"""


def sanitize(html, *args):
    r = run("html-sanitize", *args, input=json.dumps({"id": "m1", "keep": {"a": [1, 2.50]}, "html": html}) + "\n")
    assert r.returncode == 0, r.stderr
    [out] = records(r.stdout)
    return out


def test_html_replaced_and_the_report_says_what_went():
    out = sanitize(NEWSLETTER)
    html, report = out["html"], out["sanitize"]
    assert out["keep"] == {"a": [1, 2.50]} and out["id"] == "m1"
    assert html.startswith('<div class="mailpipe-body" style="background-color:#eeeeee">')
    assert '<style>.mailpipe-body{margin:0}.mailpipe-body .x{color:red}</style>' in html
    assert '<div id="mp-top">' in html and "onclick" not in html and "script" not in html and "Deals" not in html
    assert '<a href="https://shop.example/p?id=7#buy" target="_blank" rel="noopener noreferrer">buy</a>' in html
    assert '<img data-remote-src="https://cdn.example/hero.png" alt="Hero" width="600">' in html
    assert "mailtrack" not in html and "o.gif" not in html
    assert report == {"elements_removed": 2, "attributes_removed": 1, "styles_removed": 1, "trackers_removed": 2,
                      "tracker_hosts": ["mailtrack.io", "news.example"], "remote_images": 2, "link_parameters_removed": 3}


def test_a_message_without_html_gets_a_null_report():
    r = run("html-sanitize", input=b'{"id":"a","html":null,"text":"hi"}\n')
    assert r.stdout == b'{"id":"a","html":null,"text":"hi","sanitize":null}\n'


def test_remote_images_keep_block_proxy():
    kept = sanitize(NEWSLETTER, "--remote-images=keep")["html"]
    assert '<img src="https://cdn.example/hero.png" alt="Hero" width="600">' in kept
    assert "background:url(\"https://cdn.example/bg.png\")" in kept
    assert "mailtrack" not in kept  # trackers go whatever the policy
    proxied = sanitize(NEWSLETTER, "--remote-images=proxy:https://img.example/p?u={url}&s=1")["html"]
    assert '<img src="https://img.example/p?u=https%3A%2F%2Fcdn.example%2Fhero.png&amp;s=1"' in proxied
    bad = run("html-sanitize", "--remote-images=proxy:https://img.example/")
    assert bad.returncode == 64 and b"remote-images" in bad.stderr


def test_trackers_extend_from_files(tmp_path):
    extra = tmp_path / "mine.json"
    extra.write_text('{"hosts": ["cdn.example"], "link_parameters": ["id"]}')
    out = sanitize(NEWSLETTER, "--trackers", extra)
    assert "hero.png" not in out["html"] and "cdn.example" in out["sanitize"]["tracker_hosts"]
    assert 'href="https://shop.example/p#buy"' in out["html"]
    wrong = tmp_path / "wrong.json"
    wrong.write_text('{"hostz": ["x"]}')
    r = run("html-sanitize", "--trackers", wrong, input=b"")
    assert r.returncode == 65 and f"html-sanitize: {wrong}: unknown key 'hostz'".encode() in r.stderr


def test_html_mode_reads_pages_and_repairs_bad_utf8(tmp_path):
    page = tmp_path / "p.html"
    page.write_bytes(b'<meta charset="iso-8859-1"><p onclick=x>caf\xc3\xa9 \xff</p>')
    r = run("html-sanitize", "--html", page)
    assert r.returncode == 0
    assert r.stdout.decode() == '<div class="mailpipe-body"><p>caf\u00e9 \ufffd</p></div>\n'


def test_bad_lines_follow_the_shared_convention():
    check_bad_lines("html-sanitize", bad_record=b'{"id":"x","text":"no html here"}',
                    bad_record_error="no 'html' field (is this mime-parse output?)")


class Markup(HTMLParser):
    def __init__(self):
        super().__init__()
        self.found = []

    def handle_starttag(self, tag, attrs):
        if tag in {"script", "iframe", "object", "embed", "base", "meta", "link", "form", "input", "button", "svg",
                   "math", "template", "noscript", "frame", "frameset", "applet", "textarea", "select"}:
            self.found.append(tag)
        for name, value in attrs:
            if name.startswith("on") or name in {"srcdoc", "formaction", "action", "ping", "xlink:href"}:
                self.found.append(f"{tag}@{name}")
            if name in {"href", "src", "background", "data-remote-src", "cite"} and value and \
                    not re.match(r"(https?:|mailto:|tel:|cid:|#|data:image/(png|gif|jpe?g|webp|bmp)[;,])", value, re.I):
                self.found.append(f"{tag}@{name}={value[:60]}")
        if tag == "style" or any(n == "style" for n, _ in attrs):
            pass

    def handle_data(self, data):
        if self.lasttag == "style" and re.search(r"expression|javascript:|behavior|binding|@import|url\((?!\"(cid:|data:image))", data, re.I):
            self.found.append("css:" + data[:60])


def all_inputs():
    cases = [(f"{name}:{i}", payload) for name in VECTOR_FILES for i, payload in vectors(name)]
    cases += [(p.name, p.read_text(errors="replace")) for p in sorted((SHARED / "vectors" / "html2text").glob("*.html"))]
    return cases


@pytest.mark.shared("vectors/xss")
@pytest.mark.shared("vectors/html2text")
def test_nothing_executable_survives_and_sanitizing_twice_changes_nothing(corpus):
    cases = all_inputs()
    parsed = run("mime-parse", "--no-progress", *message_files())
    cases += [(f"corpus:{i}", r["html"]) for i, r in enumerate(records(parsed.stdout)) if r.get("html")]
    assert len(cases) > 700
    once = sanitize_all(cases)
    twice = sanitize_all([(key, html) for key, (html, _) in once.items()])
    changed = [key for key in once if once[key][0] != twice[key][0]]
    assert not changed, changed[:10]
    unsafe = []
    for key, (html, _) in once.items():
        m = Markup()
        m.feed(html)
        m.close()
        if m.found:
            unsafe.append((key, m.found))
    assert not unsafe, unsafe[:10]
