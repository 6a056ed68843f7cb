"""chat-render's forwarded card (issue 45): a forwarded message, attached or written inline, is
a card in its bubble with who sent it, when, its subject and text; in Chromium it is readable
at a phone's and a desktop's width, fetches nothing and axe finds nothing serious."""
import html
import re
import shutil
import struct
import subprocess

import pytest

from conftest import ENV, ROOT
from test_forwarded import DENTIST, SHIPPING


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    d = tmp_path_factory.mktemp("fwd")
    mbox = d / "fwd.mbox"
    mbox.write_text("".join(f"From x@example.com Mon Mar  9 18:00:00 2026\n{m}\n" for m in [DENTIST, SHIPPING]))
    r = subprocess.run([str(ROOT / "pipelines" / "mbox-to-conversations"), "--me", "mum@example.com", "--zone", "Europe/London",
                        "--out", str(d), "--html", str(d / "site"), str(mbox)], capture_output=True, env=ENV)
    assert r.returncode == 0, r.stderr
    return d / "site"


def cards(site):
    out = {}
    for page in (site / "c").glob("*.html"):
        for card in re.findall(r'<section class="forward".*?</section>', page.read_text(), re.S):
            out[page.name] = card
    return out


def test_each_forward_is_a_card_with_its_sender_date_subject_and_text(site):
    found = cards(site)
    assert len(found) == 2
    text = {name: html.unescape(re.sub(r"<[^>]+>", " ", c)) for name, c in found.items()}
    dentist = next(t for t in text.values() if "Riverside" in t)
    assert "appointments@riversidedental.example" in dentist and "Appointment confirmation" in dentist
    assert "confirmed for Thursday, March 12 at 10:30 AM" in dentist
    assert "Mon 9 Mar" in dentist or "9 Mar" in dentist  # 4:12 PM on the forwarder's clock, shown on the reader's
    ups = next(t for t in text.values() if "UPS" in t)
    assert "Package Scheduled for Delivery Today" in ups and "1Z999AA10123456784" in ups
    # the card's datetime is the forwarded message's own date, not the forward's
    assert 'datetime="2026-03-09T16:12:00Z"' in next(c for c in found.values() if "Riverside" in c)


playwright = pytest.importorskip("playwright.sync_api")


@pytest.fixture(scope="module")
def chromium():
    path = shutil.which("chromium") or shutil.which("chromium-browser")
    if not path:
        pytest.skip("Debian's chromium is not installed (scripts/install-deps --test)")
    with playwright.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=path, args=["--no-sandbox", "--proxy-server=http://127.0.0.1:9",
                                                                 "--proxy-bypass-list=<-loopback>", "--no-first-run"])
        yield browser
        browser.close()


@pytest.mark.parametrize("width", [320, 1100])
def test_the_card_is_readable_in_chromium(chromium, site, width):
    from axe_playwright_python.sync_playwright import Axe
    for name in cards(site):
        context = chromium.new_context(viewport={"width": width, "height": 900})
        page = context.new_page()
        outside = []
        prefix = "file://" + str(site) + "/"
        page.on("request", lambda r: r.url.startswith(prefix) or r.url in ("about:srcdoc", "about:blank") or outside.append(r.url))
        page.goto("file://" + str(site / "c" / name))
        page.wait_for_load_state("load")
        card = page.locator("section.forward").first
        card.scroll_into_view_if_needed()
        assert card.is_visible()
        box = card.bounding_box()
        assert box["x"] >= 0 and box["x"] + box["width"] <= width + 1  # inside the screen, no sideways scroll
        shown = card.inner_text()
        assert "Forwarded message" in shown and "From" in shown and "Subject" in shown
        font = card.locator(".forward-text").evaluate("e => parseFloat(getComputedStyle(e).fontSize)")
        assert font >= 12
        results = Axe().run(page)
        bad = [(v["id"], v["impact"]) for v in results.response["violations"] if v["impact"] in ("serious", "critical")]
        assert bad == [] and outside == [], (name, width, bad, outside)
        context.close()


def test_a_forwarded_card_screenshot_for_the_readme(chromium, site):
    """Into .build/screenshots/forward-phone.png (docs/screenshots/ holds a copy for the README):
    the dentist's confirmation a family member forwarded, its card in the bubble."""
    out = ROOT / ".build" / "screenshots"
    out.mkdir(parents=True, exist_ok=True)
    name = next(n for n, card in cards(site).items() if "dentist" in card.lower() or "appointment" in card.lower())
    context = chromium.new_context(viewport={"width": 360, "height": 800}, color_scheme="light")
    page = context.new_page()
    page.goto("file://" + str(site / "c" / name))
    page.wait_for_load_state("load")
    bubble = page.locator("li.message", has=page.locator("section.forward")).first
    bubble.scroll_into_view_if_needed()
    box = bubble.bounding_box()
    page.screenshot(path=str(out / "forward-phone.png"), full_page=True,
                    clip={"x": 0, "y": max(0, box["y"] - 8), "width": 360, "height": box["height"] + 16})
    data = (out / "forward-phone.png").read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and struct.unpack(">II", data[16:24])[0] == 360
    context.close()
