"""text-extract on mail that passed a mailing list (issue 47): a list manager's header block in a
text part of its own before the post (Schleuder), a footer in a text/plain part of its own after
the post (Sympa, Mailman 3, Google Groups, Discourse's mailing-list mode, mlmmj), the paragraph
break between joined text parts, and mail that only looks like one of these (a person's second
text part, a text file attached, a long part, text around an image). The cases are written by
hand in data/lists47 (README.md there); expected.json says what each record must hold."""
import json
import pathlib

import pytest

from conftest import records, run

DATA = pathlib.Path(__file__).parent / "data" / "lists47"
EXPECTED = json.loads((DATA / "expected.json").read_text())


@pytest.fixture(scope="module")
def extracted():
    names = sorted(EXPECTED)
    parsed = run("mime-parse", "--no-progress", *(DATA / f"{n}.eml" for n in names))
    assert parsed.returncode == 0, parsed.stderr
    r = run("text-extract", "--no-progress", input=parsed.stdout)
    assert r.returncode == 0, r.stderr
    out = records(r.stdout)
    assert [pathlib.Path(o["source"]["path"]).stem for o in out] == names
    return dict(zip(names, out))


def problems(want, rec):
    """What in the record differs from what the case expects."""
    found = []
    reply = rec["reply_text"] or ""
    if "reply_text" in want and reply != want["reply_text"]:
        found.append(f"reply_text {rec['reply_text']!r}, want {want['reply_text']!r}")
    for s in want.get("reply_has", []):
        if s not in reply:
            found.append(f"reply_text {rec['reply_text']!r} lacks {s!r}")
    for s in want.get("not_in_reply", []):
        if s in reply:
            found.append(f"reply_text {rec['reply_text']!r} holds {s!r}")
    if "snippet_starts" in want and not (rec["snippet"] or "").startswith(want["snippet_starts"]):
        found.append(f"snippet {rec['snippet']!r} does not start with {want['snippet_starts']!r}")
    if "body_has" in want and want["body_has"] not in (rec["body_text"] or ""):
        found.append(f"body_text {rec['body_text']!r} lacks {want['body_has']!r}")
    if "text_has" in want and want["text_has"] not in (rec["text"] or ""):
        found.append(f"text {rec['text']!r} lacks {want['text_has']!r}")
    if "quoted_has" in want and want["quoted_has"] not in (rec["quoted_text"] or ""):
        found.append(f"quoted_text {rec['quoted_text']!r} lacks {want['quoted_has']!r}")
    for field in ("list_header", "list_footer"):
        if field in want and rec.get(field, "absent") != want[field]:
            found.append(f"{field} {rec.get(field, 'absent')!r}, want {want[field]!r}")
        if f"{field}_has" in want and want[f"{field}_has"] not in (rec.get(field) or ""):
            found.append(f"{field} {rec.get(field, 'absent')!r} lacks {want[f'{field}_has']!r}")
    if "attachment" in want and want["attachment"] not in [a["filename"] for a in rec["attachments"]]:
        found.append(f"no attachment {want['attachment']!r}")
    return found


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_case(extracted, name):
    assert not problems(EXPECTED[name], extracted[name])


def test_classes_have_five_cases_each():
    for prefix in ("schleuder-", "footer-signed-", "footer-plain-", "break-", "lookalike-"):
        assert sum(n.startswith(prefix) for n in EXPECTED) >= 5, prefix


def test_summary(extracted):
    """Prints how many cases are right per class (the issue's before/after count)."""
    by_class = {}
    for name, want in EXPECTED.items():
        cls = name.rsplit("-", 1)[0] if name.startswith("footer-") else name.split("-")[0]
        ok = not problems(want, extracted[name])
        right, total = by_class.get(cls, (0, 0))
        by_class[cls] = (right + ok, total + 1)
    print("lists47: " + ", ".join(f"{c} {r}/{t}" for c, (r, t) in sorted(by_class.items())))
