"""body_text of real HTML mail (../shared/vectors/html2text/) against what Chromium shows: every
sentence of the visible text is in body_text, in order, and nothing that is only in hidden
elements (preheaders, display:none blocks) is. Chromium's innerText is the oracle; the
references of inscriptis, html2text, w3m and lynx beside each file are for reading."""
import json
import re

import pytest

from browser import originals_page, texts
from conftest import SHARED, records, run

HTML2TEXT = SHARED / "vectors" / "html2text"


def normalized(text):
    return " ".join(text.split())


def readable(body_text):
    """body_text without what text-extract adds for a reader: link targets (` <url>`), list
    markers and quote marks at line starts."""
    text = re.sub(r" ?<(?:https?|mailto|tel|ftp):[^>\s]*>", "", body_text)
    text = re.sub(r"(?m)^(?:> ?)+", "", text)
    text = re.sub(r"(?m)^\s*(?:•|\d+\.) ", "", text)
    return without_addresses(normalized(text))


def without_addresses(text):
    """Text without ` <someone@example.com>`: a mail link's address, which body_text adds when
    it differs from the link's text; taken out of both sides, as the page may show one too."""
    while True:  # innermost first: "<a@x <b@x>>"
        text, n = re.subn(r" <[^<>\s]+@[^<>\s]+>", "", text)
        if not n:
            return text


def sentences(text):
    """Lines and sentences of at least three words, whitespace normalized."""
    out = []
    for line in text.splitlines():
        for piece in re.split(r"(?<=[.!?])\s+", line):
            piece = without_addresses(normalized(piece))
            if len(piece.split()) >= 3:
                out.append(piece)
    return out


@pytest.mark.shared("vectors/html2text")
def test_every_visible_sentence_in_order_and_nothing_hidden(browser):
    cases = [(p.stem, p.read_text(errors="replace")) for p in sorted(HTML2TEXT.glob("*.html"))]
    assert len(cases) == 18
    events, _ = browser.load("html2text", originals_page(cases))
    visible, hidden = texts(events), texts(events, "hidden")
    lines = "".join(json.dumps({"id": k, "html": h}) + "\n" for k, h in cases)
    r = run("text-extract", input=lines)
    assert r.returncode == 0, r.stderr
    ours = {o["id"]: readable(o["body_text"] or "") for o in records(r.stdout)}
    missing, leaked = [], []
    for key, _ in cases:
        position = 0
        for sentence in sentences(visible[key]):
            found = ours[key].find(sentence, position)
            if found < 0:
                missing.append((key, sentence, "out of order" if sentence in ours[key] else "missing"))
            else:
                position = found + len(sentence)
        shown = normalized(visible[key])
        for sentence in sentences(hidden[key]):
            if sentence not in shown and sentence in ours[key]:
                leaked.append((key, sentence))
    assert not missing, "\n".join(map(str, missing[:20])) + f"\n({len(missing)} in all)"
    assert not leaked, "\n".join(map(str, leaked[:20]))
