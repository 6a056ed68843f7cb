"""DOMPurify's and Roundcube's expected outputs (../shared/vectors/xss/): ours is at least as
strict. Every element or attribute they keep and we drop is explained by a category in
sanitize-stricter.json; every one we keep and they drop is explained case by case there."""
import json
import pathlib

import pytest

from conftest import SHARED
from sanitize_expected import difference
from test_html_sanitize_browser import sanitize_all

pytestmark = pytest.mark.shared("vectors/xss")
XSS = SHARED / "vectors" / "xss"
EXPLAINED = json.loads((pathlib.Path(__file__).parent / "sanitize-stricter.json").read_text())


def expected_cases():
    cases = []
    for i, item in enumerate(json.loads((XSS / "dompurify_expect.json").read_text())):
        expected = item["expected"]
        cases.append((f"dompurify_expect.json:{i}", item["payload"], expected if isinstance(expected, list) else [expected]))
    for i, item in enumerate(json.loads((XSS / "roundcube_washtml.json").read_text())):
        # default options only; test_lists is Roundcube's list repair, not its washer
        if item["expected"] is not None and not item["options"] and item["test"] != "test_lists":
            cases.append((f"roundcube_washtml.json:{i}", item["input"], [item["expected"]]))
    return cases


def category(name):
    for c in EXPLAINED["categories"]:
        tag, _, attribute = name.strip("<>").partition("@")
        if tag in c.get("elements", []) or (attribute and (attribute in c.get("attributes", []) or name in c.get("attributes", []))):
            return c["why"]
    return None


def test_at_least_as_strict_as_dompurify_and_roundcube():
    cases = expected_cases()
    assert len(cases) > 250
    ours = sanitize_all([(key, payload) for key, payload, _ in cases])
    unexplained, used = [], set()
    for key, _, expected in cases:
        more, less = difference(ours[key][0], expected)
        case = EXPLAINED["cases"].get(key)
        if more:
            used.add(key)
            if not case:
                unexplained.append((key, "keeps more", sorted(more), ours[key][0][:200], expected[0][:200]))
        lost = [n for n in less if not category(n)]
        if lost:
            used.add(key)
            if not case:
                unexplained.append((key, "keeps less", sorted(lost), ours[key][0][:200], expected[0][:200]))
    assert not unexplained, "\n".join(map(str, unexplained))
    stale = set(EXPLAINED["cases"]) - used
    assert not stale, f"explanations for cases that no longer differ: {sorted(stale)}"
