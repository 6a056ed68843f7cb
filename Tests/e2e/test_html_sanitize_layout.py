"""Layout survives html-sanitize: real newsletters (../shared/vectors/html2text/) and every HTML
body of ../shared/corpus show the same visible text in Chromium before and after, and each
newsletter is screenshotted before and after (in .build/screenshots/) for a look."""

import pytest

from browser import case_page, originals_page, texts
from conftest import ROOT, SHARED, records, run, shared_params
from test_corpus import message_files
from test_html_sanitize_browser import sanitize_all

HTML2TEXT = SHARED / "vectors" / "html2text"
SCREENSHOTS = ROOT / ".build" / "screenshots"


def mails():
    cases = [(p.stem, p.read_text(errors="replace")) for p in sorted(HTML2TEXT.glob("*.html"))]
    parsed = records(run("mime-parse", "--no-progress", *message_files()).stdout)
    cases += [(f"corpus-{i}", r["html"]) for i, r in enumerate(parsed) if r.get("html")]
    return cases


def words(text):
    return " ".join(text.split())


@pytest.mark.shared("vectors/html2text")
@pytest.mark.shared("corpus")
def test_visible_text_is_the_same_before_and_after(browser):
    cases = mails()
    assert len(cases) > 100
    before = texts(browser.load("originals", originals_page(cases))[0])
    safe = sanitize_all(cases)
    after = texts(browser.load("sanitized", case_page([(k, safe[k][0]) for k, _ in cases], text=True, events=False))[0])
    assert len(before) == len(after) == len(cases)
    differ = [(k, words(before[k])[:200], words(after[k])[:200]) for k, _ in cases if words(before[k]) != words(after[k])]
    assert not differ, "\n".join(map(str, differ[:10]))


@pytest.mark.parametrize("path", shared_params("vectors/html2text", lambda: sorted(HTML2TEXT.glob("*.html"))), ids=lambda p: p.stem)
def test_screenshots_before_and_after(browser, path):
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    original = path.read_text(errors="replace")
    safe = sanitize_all([(path.stem, original)])[path.stem][0]
    for name, page in (("before", original), ("after", f'<!DOCTYPE html><meta charset="utf-8">{safe}')):
        shot = SCREENSHOTS / f"{path.stem}.{name}.png"
        shot.unlink(missing_ok=True)
        browser.load(f"{path.stem}-{name}", page, screenshot=shot)
        assert shot.stat().st_size > 1000
