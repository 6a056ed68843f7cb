"""text-extract on text made to trip it: reply-vector lines spliced with the pieces the splitter
looks for (quote marks, attribution words, header fields, rules, sign-offs, banners) and the
characters that change lengths or widths (combining marks, ß, İ, emoji, NBSP, CR, NUL), as
plain text and as HTML. Every record comes back, and what reply_text, quoted_text and
signature hold is taken from the body, line for line."""
import json
import random

import pytest

from conftest import SHARED, records, run

PIECES = [">", "> ", ">>", "On ", "Am ", "wrote:", "schrieb:", "a écrit :", " <a@b.c>", "2024-01-02", "10:00",
          "From: ", "Sent: ", "To: ", "Subject: ", "-----Original Message-----", "---------- Forwarded message ---------",
          "-- ", "--", "____", "Regards,", "Sent from my iPhone", "從我的 iPhone 傳送", "CAUTION: This email originated from outside",
          "\u0301", "ß", "İ", "ﬁ", "😀", "👩‍👩‍👧", "\u00a0", "\u3000", "\r", "\t", "\x00", "\u200b", "道", "：", "@", " ", "\n", "\n\n"]
TAGS = ["<p>", "</p>", "<div>", "</div>", "<br>", "<blockquote>", "</blockquote>", "<blockquote type=\"cite\">",
        "<div class=\"gmail_quote\">", "<div id=\"divRplyFwdMsg\">", "<ul><li>", "</li></ul>", "<pre>", "</pre>",
        "<a href=\"https://example.com/x\">", "</a>", "<span style=\"display:none\">", "</span>", "<table><tr><td>",
        "</td></tr></table>", "<img alt=\"pic\">", "&amp;", "&nbsp;", "<!-- c -->", "<hr>"]


def vector_lines():
    lines = []
    for name in ("github_email_reply_parser.json", "mail_parser_reply.json", "talon_quotations.json"):
        for case in json.loads((SHARED / "vectors" / "reply" / name).read_text()):
            lines += case["input"].splitlines()
    return lines


def make_text(rng, lines):
    parts = []
    for _ in range(rng.randint(0, 30)):
        parts.append(rng.choice(lines) if rng.random() < 0.5 else "")
        for _ in range(rng.randint(0, 3)):
            parts[-1] = parts[-1][:rng.randint(0, len(parts[-1]))] + rng.choice(PIECES) + parts[-1][rng.randint(0, len(parts[-1])):]
    return "\n".join(parts)


def make_html(rng, lines):
    out = []
    for _ in range(rng.randint(0, 30)):
        out.append(rng.choice(TAGS) if rng.random() < 0.4 else rng.choice(lines + PIECES))
    return "".join(out)


@pytest.mark.shared("vectors/reply")
def test_random_texts_and_html():
    rng = random.Random(20261121)
    lines = vector_lines()
    recs = []
    for i in range(3000):
        if i % 3 == 2:
            recs.append({"id": str(i), "text": None, "html": make_html(rng, lines)})
        else:
            recs.append({"id": str(i), "text": make_text(rng, lines)})
    r = run("text-extract", input="".join(json.dumps(x) + "\n" for x in recs), timeout=300)
    assert r.returncode == 0, r.stderr.decode()[-2000:]
    out = records(r.stdout)
    assert [x["id"] for x in out] == [x["id"] for x in recs]
    for x in out:
        body = x["body_text"] or ""
        body_lines = set(line.rstrip(" \t\r") for line in body.split("\n"))
        for field in ("reply_text", "quoted_text", "signature"):
            for line in (x[field] or "").split("\n"):
                # reply text before an attribution on the same line is a piece of a body line
                assert line in body_lines or line.strip() == "" or line in body, (x["id"], field, line)
        # 140 user-perceived characters; a family emoji is 5 code points
        assert len(x["snippet"] or "") <= 140 * 5, x["id"]
    # the splitting was exercised, not only the pass-through
    assert sum(1 for x in out if x["quoted_text"]) > 300
    assert sum(1 for x in out if x["signature"]) > 100
    assert sum(1 for x in out if x["reply_text"]) > 1000
