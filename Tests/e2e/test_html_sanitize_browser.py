"""html-sanitize against a real browser: every XSS vector in ../shared/vectors/xss/, sanitized,
loaded in headless Chromium: nothing runs, nothing navigates, nothing is fetched. Controls show
the harness does see each of those when they happen."""
import json

import pytest

from browser import case_page, finished
from conftest import SHARED, records, run

XSS = SHARED / "vectors" / "xss"
VECTOR_FILES = {
    "dompurify_expect.json": "payload",
    "html5sec_h5sc.json": "payload",
    "owasp_xss_filter_evasion.json": "payload",
    "roundcube_washtml.json": "input",
}


def vectors(name):
    return [(i, item[VECTOR_FILES[name]]) for i, item in enumerate(json.loads((XSS / name).read_text()))]


def sanitize_all(cases, *args):
    """[(id, html)] sanitized in one run of html-sanitize: {id: (html, sanitize)}."""
    lines = "".join(json.dumps({"id": str(i), "html": h}) + "\n" for i, h in cases)
    r = run("html-sanitize", *args, input=lines)
    assert r.returncode == 0, r.stderr
    out = records(r.stdout)
    assert len(out) == len(cases)
    return {o["id"]: (o["html"], o["sanitize"]) for o in out}


def problems(events):
    return [e for e in events if e[0] in ("exec", "navigate", "badurl", "remote")]


def test_the_harness_sees_scripts_and_remote_loads(browser):
    raw = [(0, '<img src="x" onerror="alert(1)">'), (1, '<img src="http://tracker.example/p.gif">'),
           (2, '<a href="javascript:alert(2)">x</a>'), (3, '<b onmouseover="alert(3)">y</b>')]
    events, dom = browser.load("control-raw", case_page(raw))
    kinds = [k for k, _ in events]
    assert finished(dom)
    assert ("exec", "alert(1)") in events and ("exec", "alert(3)") in events
    assert "badurl" in kinds
    assert any(k == "remote" and "tracker.example" in d for k, d in events)
    kept = sanitize_all([(1, '<img src="http://tracker.example/pic.png" width="600">')], "--remote-images=keep")
    events, _ = browser.load("control-keep", case_page([(1, kept["1"][0])]))
    assert any(k == "remote" and "tracker.example/pic.png" in d for k, d in events)


@pytest.mark.shared("vectors/xss")
@pytest.mark.parametrize("name", sorted(VECTOR_FILES))
def test_no_vector_runs_navigates_or_loads_anything(browser, name):
    cases = vectors(name)
    safe = sanitize_all(cases)
    page = case_page([(i, safe[str(i)][0]) for i, _ in cases])
    events, dom = browser.load(name, page)
    if problems(events) or not finished(dom):
        # name the culprits: load each case alone
        culprits = []
        for i, _ in cases:
            ev, d = browser.load(f"{name}-{i}", case_page([(i, safe[str(i)][0])]))
            if problems(ev) or not finished(d):
                culprits.append((i, problems(ev), safe[str(i)][0][:300]))
        pytest.fail(f"{len(culprits)} vectors misbehave: {culprits[:10]}")
