"""Compares mime-parse with Python's email package (policy=default) field by field.

Used by test_differential.py; run it alone to see every disagreement:
    .venv/bin/python Tests/e2e/differential.py
"""
import email
import functools
import email.policy
import email.utils
import json
import re
import subprocess
import sys
import datetime
import pathlib

sys.path.insert(0, str(pathlib.Path(__file__).parent))
from conftest import BIN, CORPUS, ENV  # noqa: E402

NOT_MAIL = {".json", ".xml", ".html", ".pdf", ".jpg", ".tnef", ".list", ".dat"}
FIELDS = ("from", "to", "cc", "subject", "date", "message_id", "text")


def single_messages():
    """Corpus files that hold one message (mboxes are compared by their own test)."""
    for p in sorted(CORPUS.rglob("*")):
        if not p.is_file() or p.suffix in NOT_MAIL:
            continue
        head = p.read_bytes()[:100].lstrip(b"\xef\xbb\xbf\r\n")
        if head.startswith(b"From "):
            continue
        if not p.read_bytes().strip():  # no message at all: mime-parse refuses it (test_corpus)
            continue
        yield p


def ws(s):
    return re.sub(r"\s+", " ", s or "").strip()


UUENCODED = re.compile(r"(?m)^begin [0-7]{3,4} ?.*\n(?:.*\n)*?end\s*$\n?")


def is_attachment(part):
    return part.get_content_disposition() == "attachment"


def content(part):
    if part.get_content_maintype() == "multipart":
        # no boundary matched: Python keeps the body as one string, as we keep it as text
        return part.get_payload(decode=True).decode("utf-8", "replace")
    return part.get_content()


def is_inline_text(part):
    return part.get_content_type() == "text/plain" and not is_attachment(part) and part.get_filename() is None


def body_parts(part, main=True):
    ctype = part.get_content_type()
    if part.get_content_maintype() == "message":
        return []  # a forwarded message is an attachment with a summary, not the body
    if part.get_content_maintype() == "multipart" and not part.is_multipart():
        return [part] if part.get_payload().strip() else []
    if part.is_multipart():
        children = list(part.iter_parts())
        if not children:
            return []
        sub = part.get_content_subtype()
        if sub == "alternative":
            chosen = []
            for child in children:
                found = body_parts(child)
                if found:
                    chosen = found
            return chosen
        if sub in ("related", "signed"):
            return body_parts(children[0])
        found = body_parts(children[0])
        for k, child in enumerate(children[1:], start=1):
            if is_inline_text(child):
                found += [child]
            elif child.get_content_type() in ("multipart/alternative", "multipart/signed") and not is_attachment(child) \
                    and all(is_inline_text(c) for c in children[:k]):
                found += body_parts(child)  # a post after a list's header block (Schleuder)
        return found
    if ctype == "text/plain" and main and not is_attachment(part):
        return [part]
    return []


def python_view(data):
    msg = email.message_from_bytes(data, policy=email.policy.default)

    def header(name):
        try:
            v = msg[name]
            return None if v is None else str(v)
        except Exception as e:  # noqa: BLE001 - Python raises on some broken headers
            return f"<python error {type(e).__name__}>"

    def addresses(name):
        try:
            values = msg.get_all(name) or []
            out = []
            for v in values:
                groups = getattr(v, "addresses", None)
                if groups is None:
                    out += [a for _, a in email.utils.getaddresses([str(v)])]
                else:
                    out += [a.addr_spec for a in groups]
            return [a for a in out if a and a != "<>"]
        except Exception as e:  # noqa: BLE001
            return [f"<python error {type(e).__name__}>"]

    def date():
        try:
            d = msg["date"]
            if d is None:
                return None
            dt = d.datetime
            if dt is None:
                return None
            if dt.tzinfo is None:
                dt = dt.replace(tzinfo=datetime.timezone.utc)
            return dt.astimezone(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
        except Exception:  # noqa: BLE001
            return None

    def text():
        """Python's decoding, our documented choice of parts (mailpipe(5)): the text/plain of
        the main alternative (the last one, as RFC 2046 prefers), then the inline text/plain
        parts that follow it in a multipart/mixed."""
        try:
            parts = body_parts(msg)
            if not parts:
                return None
            return UUENCODED.sub("", "\n".join(content(p) for p in parts))
        except Exception as e:  # noqa: BLE001
            return f"<python error {type(e).__name__}>"

    mid = header("message-id")
    return {
        "from": addresses("from")[:1],
        "to": addresses("to"),
        "cc": addresses("cc"),
        "subject": ws(header("subject")) or None,
        "date": date(),
        "message_id": (mid.strip().strip("<>").strip() or None) if mid else None,
        "text": ws(text()) or None,
    }


def our_view(rec):
    return {
        "from": [rec["from"]["address"]] if rec["from"] and rec["from"]["address"] else [],
        "to": [a["address"] for a in rec["to"] if a["address"]],
        "cc": [a["address"] for a in rec["cc"] if a["address"]],
        "subject": ws(rec["subject"]) or None,
        "date": rec["date"] if rec["defects"].count("missing_date") == 0 and "invalid_date" not in rec["defects"] else None,
        "message_id": rec["message_id"],
        "text": ws(rec["text"]) or None,
    }


LOST = re.compile("[\ufffd\udc80-\udcff]+")


def lossy_match(ours, theirs):
    """Python leaves bytes it cannot decode as U+FFFD or surrogate escapes; we decode them
    (raw 8-bit headers, undeclared 8-bit bodies, charsets it does not know). Agreement then
    means: the same text wherever Python could read it."""
    if not isinstance(ours, str) or not isinstance(theirs, str) or not LOST.search(theirs):
        return False
    # Python's \\s (which ws() collapses) includes some non-ASCII characters, such as U+00A0
    pattern = "(?:[^\\x00-\\x7f]| )+".join(re.escape(piece) for piece in LOST.split(theirs))
    return re.fullmatch(pattern, ours, re.S) is not None


def same(field, ours, theirs):
    if field in ("from", "to", "cc"):
        if len(ours) != len(theirs):
            return False
        return all(a.lower() == b.lower() or lossy_match(a, b) for a, b in zip(ours, theirs))
    return ours == theirs or lossy_match(ours, theirs)


@functools.cache
def compare():
    """Yields (relative path, field, ours, python's) for each disagreement, and the count."""
    paths = list(single_messages())
    r = subprocess.run([str(BIN / "mime-parse"), *map(str, paths)], capture_output=True, env=ENV, timeout=300)
    recs = [json.loads(line) for line in r.stdout.decode().splitlines()]
    assert len(recs) == len(paths), (len(recs), len(paths))
    diffs = []
    for path, rec in zip(paths, recs):
        theirs = python_view(path.read_bytes())
        ours = our_view(rec)
        for field in FIELDS:
            if not same(field, ours[field], theirs[field]):
                diffs.append((str(path.relative_to(CORPUS)), field, ours[field], theirs[field]))
    return len(paths), diffs


if __name__ == "__main__":
    total, diffs = compare()
    bad = {d[0] for d in diffs}
    print(f"{total} messages, {total - len(bad)} agree on every field ({100 * (total - len(bad)) / total:.1f}%)")
    for path, field, ours, theirs in diffs:
        print(f"{path}\t{field}\n   ours:   {str(ours)[:150]!r}\n   python: {str(theirs)[:150]!r}")
