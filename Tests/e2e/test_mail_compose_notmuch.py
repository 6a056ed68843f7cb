"""mail-compose's replies against `notmuch reply` (issue 43): for every message of the sample, of
../shared/corpus (the single messages differential.py reads) and of a generated 2,000-message
mailbox (gen_mbox.py, seed 3, with its calendar mail, receipts, bounces and drafts), the reply and
the reply to all that mail-compose writes are compared with `notmuch reply --format=json`
(--reply-to=sender and all) on the same messages as a maildir: From, To, Cc, Subject,
In-Reply-To and References, both read with Python's email (policy default). The agreement (every
field the same) is printed per source and mode, with the count of each class of difference
(pytest -s shows them).

A difference is the same or explained: by a rule below, which names a whole class of
difference and why it is one (mail-compose(1) gives the rules mail-compose follows), or case by
case in compose-known.tsv. A difference neither explains fails, and so does a line of
compose-known.tsv that no longer differs.

mail-compose runs once over the requests of a source (once per layer of the corpus: messages that
share an id, which a store or a records file keeps once, go to separate maildirs and runs),
notmuch once per message and mode, as an application runs it."""
import collections
import concurrent.futures
import email
import email.header
import email.policy
import email.utils
import json
import os
import pathlib
import re
import shutil
import subprocess

import pytest

import differential
from conftest import SAMPLE, need_shared, run

KNOWN = pathlib.Path(__file__).with_name("compose-known.tsv")
FIELDS = ("from", "to", "cc", "subject", "in-reply-to", "references")
MODES = ("reply", "reply-all")
NOW = "2026-06-01T00:00:00Z"
POLICY = email.policy.default
GENERATED_MESSAGES = 2000


# ---------------------------------------------------------------------------------------------- the messages

class Message:
    """A message of a source: its label (in compose-known.tsv), mime-parse's record, its bytes."""

    def __init__(self, label, record, raw):
        self.label, self.record, self.raw = label, record, raw
        self.headers = record.get("headers") or {}

    def header(self, name):
        return self.headers.get(name) or []


def raw_of(record):
    """The bytes mime-parse read for a record: an mbox's message without its From_ line, its
    mboxrd quoting and the blank line that ends it."""
    s = record["source"]
    with open(s["path"], "rb") as f:
        f.seek(s["offset"])
        raw = f.read(s["length"])
    if s["format"] != "mbox":
        return raw
    lines = raw.split(b"\n")[1:]
    raw = b"\n".join(l[1:] if l.startswith(b">") and l.lstrip(b">").startswith(b"From ") else l for l in lines)
    return raw[:-1] if raw.endswith(b"\n\n") else raw


def parsed(*paths):
    r = run("mime-parse", "--no-progress", *paths, timeout=600)
    assert r.returncode in (0, 1), r.stderr
    return [json.loads(line) for line in r.stdout.splitlines()]


def sample_messages(tmp_path):
    return [Message(f"sample.mbox:{k}", rec, raw_of(rec)) for k, rec in enumerate(parsed(SAMPLE), 1)], ["mei@example.tw"]


def corpus_messages(tmp_path):
    paths = list(differential.single_messages())
    recs = parsed(*paths)
    assert len(recs) == len(paths)
    messages = [Message(str(p.relative_to(differential.CORPUS)), rec, p.read_bytes()) for p, rec in zip(paths, recs)]
    # The corpus is many people's mail: "me" is each address that at least 1% of its messages
    # were sent to (To or Cc), most frequent first, so that the rules about my addresses are tried
    counts = collections.Counter(a["address"].lower() for m in messages for a in m.record["to"] + m.record["cc"] if a["address"])
    me = [a for a, n in counts.most_common() if n >= len(messages) / 100]
    assert me
    return messages, me


def generated_messages(tmp_path):
    mbox = tmp_path / "g.mbox"
    subprocess.run(["python3", str(need_shared("gen/gen_mbox.py")), "--messages", str(GENERATED_MESSAGES), "--seed", "3",
                    "--reports-rate", "0.05", "--events-rate", "0.02", "--out", str(mbox)], check=True, capture_output=True)
    recs = parsed(mbox)
    assert len(recs) == GENERATED_MESSAGES
    return [Message(f"gen:{k}", rec, raw_of(rec)) for k, rec in enumerate(recs, 1)], ["meiling.chen@gmail.com"]


SOURCES = {"sample": sample_messages, "corpus": corpus_messages, "generated": generated_messages}


def layers(messages):
    """The messages in layers where no id is twice: the first of each id, then the second..."""
    seen = collections.Counter()
    out = collections.defaultdict(list)
    for m in messages:
        out[seen[m.record["id"]]].append(m)
        seen[m.record["id"]] += 1
    return [out[k] for k in sorted(out)]


# ---------------------------------------------------------------------------------------------- notmuch

def notmuch_database(folder, messages, me):
    """The messages as a maildir with its notmuch database; the environment that names it, and
    notmuch's id of each message (by its place in `messages`)."""
    maildir = folder / "mail"
    for d in ("cur", "new", "tmp"):
        (maildir / d).mkdir(parents=True)
    for k, m in enumerate(messages):
        (maildir / "cur" / f"{k:06d}.compose:2,S").write_bytes(m.raw)
    (folder / "db").mkdir()
    config = folder / "notmuch-config"
    config.write_text(f"[database]\npath={folder / 'db'}\nmail_root={maildir}\nhook_dir={folder / 'no-hooks'}\n"
                      f"[new]\ntags=inbox\nignore=\n[user]\nname=\nprimary_email={me[0]}\nother_email={';'.join(me[1:])}\n"
                      "[maildir]\nsynchronize_flags=false\n")
    env = dict(os.environ, NOTMUCH_CONFIG=str(config))
    subprocess.run(["notmuch", "new", "--quiet", "--no-hooks"], env=env, check=True, capture_output=True, timeout=600)
    shown = subprocess.run(["notmuch", "show", "--format=json", "--body=false", "--entire-thread=false", "*"], env=env,
                           check=True, capture_output=True, timeout=600).stdout
    by_file = {}

    def walk(node):
        if isinstance(node, dict):
            files = node["filename"] if isinstance(node["filename"], list) else [node["filename"]]
            for f in files:
                by_file[pathlib.Path(f).name] = node["id"]
        elif isinstance(node, list):
            for n in node:
                walk(n)
    walk(json.loads(shown))
    ids = [by_file.get(f"{k:06d}.compose:2,S") for k in range(len(messages))]
    return env, ids


def notmuch_reply(env, nid, mode):
    query = 'id:"' + nid.replace('"', '""') + '"'
    r = subprocess.run(["notmuch", "reply", "--format=json", f"--reply-to={'all' if mode == 'reply-all' else 'sender'}", query],
                       env=env, capture_output=True, timeout=120)
    if r.returncode != 0:
        return None, f"exit status {r.returncode}: {r.stderr.decode(errors='replace').strip()}"
    # notmuch passes bytes that are not UTF-8 through into its JSON (in the original's text)
    return json.loads(r.stdout.decode(errors="replace"))["reply-headers"], None


# ---------------------------------------------------------------------------------------------- the comparison

def ids(value):
    return re.findall(r"<([^<>]*)>", value or "")


def view(get):
    """The fields compared, from a function giving a header's parsed value (or None)."""
    def boxes(name):
        h = get(name)
        return [(a.display_name, a.addr_spec) for a in h.addresses] if h is not None else []
    frm = boxes("from")
    subject = get("subject")
    return {
        "from": [a for _, a in frm],
        "to": boxes("to"),
        "cc": boxes("cc"),
        "subject": re.sub(r"\s+", " ", str(subject)).strip() if subject is not None else None,
        "in-reply-to": ids(str(get("in-reply-to") or "")),
        "references": ids(str(get("references") or "")),
    }


def ours_view(raw):
    """mail-compose's message, its UTF-8 read as UTF-8 (Python's email turns 8-bit header bytes
    into surrogates when it reads bytes)."""
    msg = email.message_from_string(raw.decode("utf-8", "replace"), policy=POLICY)
    return view(lambda name: msg[name])


def notmuch_view(headers):
    """notmuch's reply-headers, decoded, as header lines read by Python's email (folded lines
    unfolded, RFC 5322 section 2.2.3)."""
    def unfolded(value):
        return re.sub(r"\r?\n", " ", re.sub(r"\r?\n(?=[ \t])", "", value))
    lines = "".join(f"{k}: {unfolded(v)}\n" for k, v in headers.items() if v)
    msg = email.message_from_string(lines + "\n", policy=POLICY)
    return view(lambda name: msg[name])


def mail_compose(folder, messages, me):
    """mail-compose once over a reply and a reply to all of every message: {(k, mode): bytes},
    and {(k, mode): its error} for those it did not write."""
    recs = folder / "records.jsonl"
    recs.write_text("".join(json.dumps(m.record, ensure_ascii=False) + "\n" for m in messages))
    requests = []
    for k, m in enumerate(messages):
        for mode in MODES:
            request = {"reply": m.record["id"], "text": f"request {len(requests)}"}
            if mode == "reply-all":
                request["all"] = True
            requests.append((k, mode, request))
    r = run("mail-compose", "--records", recs, "--mbox", "--zone", "UTC", "--now", NOW, *[a for m in me for a in ("--me", m)],
            input="".join(json.dumps(q, ensure_ascii=False) + "\n" for *_, q in requests), timeout=600)
    assert r.returncode in (0, 65), r.stderr
    written = {}
    for raw in split_mbox(r.stdout):
        body = email.message_from_bytes(raw, policy=POLICY).get_body(("plain",)).get_content()
        n = int(re.match(r"request (\d+)", body).group(1))
        written[requests[n][:2]] = raw
    errors = {}
    for line in r.stderr.decode().splitlines():
        m = re.match(r"mail-compose: -:(\d+): (.*)", line)
        if m:
            errors[requests[int(m.group(1)) - 1][:2]] = m.group(2)
    assert len(written) + len(errors) == len(requests), r.stderr
    return written, errors


def split_mbox(data):
    """The messages of mail-compose's mbox (mboxrd)."""
    for chunk in re.split(rb"(?m)^From [^\n]*\n", data)[1:]:
        lines = chunk.split(b"\n")
        raw = b"\n".join(l[1:] if l.startswith(b">") and l.lstrip(b">").startswith(b"From ") else l for l in lines)
        yield raw[:-1] if raw.endswith(b"\n\n") else raw


# ---------------------------------------------------------------------------------------------- the rules

RULES = []


def rule(fields, reason):
    """A class of difference, with its reason: the function says whether a difference in one of
    `fields` is of it (it is given the case, the field, mail-compose's value and notmuch's)."""
    def add(f):
        RULES.append((fields, f.__name__.replace("_", "-"), reason, f))
        return f
    return add


def python_reading(message, name):
    """Python's email (policy default) reading of a header of the original, or None."""
    try:
        return email.message_from_bytes(message.raw, policy=POLICY)[name]
    except Exception:  # noqa: BLE001 - Python raises on some broken headers
        return None


def without_repeats(case):
    """notmuch's To and Cc with each address once, the first kept (compared as mail-compose
    compares them: without case)."""
    seen, out = set(), {}
    for field in ("to", "cc"):
        out[field] = [(n, a) for n, a in case.theirs[field] if not (a.lower() in seen or seen.add(a.lower()))]
    return out


@rule(("written",), "the file is not mail to notmuch (`notmuch new` ignores a file whose first line is not a header field): "
                    "it has nothing to answer")
def not_mail_to_notmuch(case, field, ours, theirs):
    return case.their_error == "not indexed" and case.ours is not None


@rule(("written",), "notmuch crashes (SIGSEGV) answering this message")
def notmuch_crashes(case, field, ours, theirs):
    return (case.their_error or "").startswith("exit status -11") and case.ours is not None


@rule(("written",), "the original names no one with an address as mime-parse reads it (no From, Reply-To, To or Cc, "
                    "or a name without an address; or a byte-order mark or a line that is not a header field ends the "
                    "header first, as Python's email reads it too, where GMime reads on): notmuch writes a reply to no "
                    "one or to whom GMime read, mail-compose refuses to (a clear error, exit 65)")
def no_one_to_answer(case, field, ours, theirs):
    r = case.message.record
    named = [m for m in [r["from"]] + r["to"] + r["cc"] + r["reply_to"] if m and m["address"]]
    python = [a for name in ("from", "reply-to", "to", "cc") for a in getattr(python_reading(case.message, name), "addresses", ())]
    return (case.our_error == "the message names no one to answer" and not named
            and (not python or case.theirs is not None and not case.theirs["to"] + case.theirs["cc"]))


@rule(("in-reply-to", "references"), "the original has no Message-ID: notmuch answers the id it made up for it "
                                     "(notmuch-sha1-...), which no one else knows; mail-compose writes neither header")
def no_message_id(case, field, ours, theirs):
    return case.message.record["message_id"] is None and ours == [] and len(theirs) >= 1 and theirs[-1].startswith("notmuch-sha1-")


@rule(("references",), "the original has no References but one In-Reply-To: mail-compose starts from it (RFC 5322 "
                       "section 3.6.4), notmuch from References alone")
def references_from_in_reply_to(case, field, ours, theirs):
    r = case.message.record
    return not r["references"] and len(r["in_reply_to"]) == 1 and ours == r["in_reply_to"] + theirs and theirs == [r["message_id"]]


@rule(("references",), "the original has References twice: notmuch reads the first, mime-parse all")
def references_twice(case, field, ours, theirs):
    return len(case.message.header("references")) > 1 and set(theirs) < set(ours)


@rule(("subject",), "the original has no subject: notmuch writes no Subject, mail-compose 'Re:'")
def no_subject(case, field, ours, theirs):
    return not (case.message.record["subject"] or "").strip() and theirs is None and ours == "Re:"


PREFIXES = re.compile(r"(\s*[^\s:：]{1,12}\s*(\[\d+\]|\(\d+\))?\s*[:：]\s*)+")


@rule(("subject",), "notmuch adds 'Re: ' unless the subject starts with 'Re:' (any case) and keeps every prefix the "
                    "original has ('RE:', 'Re: AW:', 'Re: 回覆：'); mail-compose writes 'Re: ' once, the reply prefixes "
                    "of every language removed (issue 43: no stacking; mail-compose(1))")
def reply_prefixes(case, field, ours, theirs):
    if not ours or not theirs or not ours.startswith("Re: ") or not theirs.lower().startswith("re:"):
        return False
    rest = ours[len("Re: "):]
    return theirs.endswith(rest) and PREFIXES.fullmatch(theirs[:len(theirs) - len(rest)]) is not None


@rule(("to", "cc"), "notmuch writes an address twice (the author's in From and To, or in To and Cc); mail-compose "
                    "writes each once, where it first comes (mail-compose(1))")
def address_twice(case, field, ours, theirs):
    return without_repeats(case)[field] == ours and len(theirs) > len(ours)


@rule(("to",), "a reply to a note to self (mine, to me alone) goes to me: notmuch writes my bare address, mail-compose "
               "the original's From, its display name kept")
def note_to_self(case, field, ours, theirs):
    author = case.message.record["from"] or {}
    return (len(ours) == len(theirs) == 1 and theirs[0][0] == "" and ours[0][1] == theirs[0][1] == author.get("address")
            and ours[0][0] == (author.get("name") or ""))


def idna_decoded(address):
    local, _, domain = address.rpartition("@")
    try:
        return f"{local}@{domain.encode().decode('idna')}" if "xn--" in domain else address
    except UnicodeError:
        return address


@rule(("to", "cc"), "notmuch (GMime) writes an internationalized domain in its ASCII form (IDNA, xn--); mail-compose "
                    "as the original wrote it, in UTF-8 (RFC 6532)")
def idna_domain(case, field, ours, theirs):
    return theirs != ours and [(n, idna_decoded(a)) for n, a in theirs] == ours


PRIVATE_USE = re.compile("[\ue000-\uf8ff]")


@rule(("to", "cc"), "a display name in Shift_JIS or ISO-2022-JP with characters of CP932's NEC and IBM rows (①, ⅴ): "
                    "mime-parse reads them as Windows writes them, GMime (iconv) as private-use characters")
def cp932_rows(case, field, ours, theirs):
    if len(ours) != len(theirs):
        return False
    changed = False
    for (on, oa), (tn, ta) in zip(ours, theirs):
        if oa != ta or len(on) != len(tn):
            return False
        for o, t in zip(on, tn):
            if o != t and not (PRIVATE_USE.fullmatch(t) and not PRIVATE_USE.fullmatch(o)):
                return False
            changed |= o != t
    return changed


def python_text(value):
    """Python's reading of header text, whitespace collapsed; raw 8-bit bytes (surrogates to
    Python) read as UTF-8 where they are (RFC 6532), else left as U+FFFD."""
    text = str(value).encode("utf-8", "surrogateescape").decode("utf-8", "replace")
    return re.sub(r"\s+", " ", text).strip()


def as_python_reads(ours, python):
    """mail-compose's text is Python's reading of the original's, wherever Python could read it."""
    return ours == python or differential.lossy_match(ours, python)


@rule(("subject",), "GMime decodes the original's Subject otherwise: it joins adjacent encoded words before decoding "
                    "them and stops at a base64 word's padding ('='), dropping the words after it; it reads raw 8-bit "
                    "text in another charset. Python's email reads the subject as mime-parse does, wherever it can")
def subject_as_python_reads_it(case, field, ours, theirs):
    python = python_reading(case.message, "subject")
    if not ours or python is None or not ours.startswith("Re:"):
        return False
    python, rest = python_text(python), ours[len("Re:"):].strip()
    # Python's reading with the prefixes mail-compose removed
    for k in range(len(python) + 1):
        if (k == 0 or PREFIXES.fullmatch(python[:k])) and as_python_reads(rest, python[k:].strip()):
            return True
    return False


@rule(("to", "cc"), "GMime decodes a display name of the original otherwise (raw 8-bit text, an encoded word that "
                    "holds quotes); Python's email reads it as mime-parse does, and mail-compose writes it")
def name_as_python_reads_it(case, field, ours, theirs):
    python = {}
    for name in ("from", "reply-to", "to", "cc"):
        header = python_reading(case.message, name)
        for a in getattr(header, "addresses", ()):
            python.setdefault(python_text(a.addr_spec).lower(), []).append(python_text(a.display_name))
    if len(ours) != len(theirs) or ours == theirs:
        return False
    for (on, oa), (tn, ta) in zip(ours, theirs):
        if oa.lower() != ta.lower():
            return False
        if on != tn and not any(as_python_reads(re.sub(r"\s+", " ", on).strip(), p) for p in python.get(oa.lower(), [])):
            return False
    return True


@rule(("to", "cc"), "Python's email (policy default) puts a space between two encoded words of one display name, "
                    "where mail-compose split a long name inside a word; RFC 2047 section 6.2 says the space between "
                    "encoded words is no text, and email.header.decode_header reads the name as notmuch does")
def python_splits_encoded_words(case, field, ours, theirs):
    head = case.raw.decode("utf-8", "replace").split("\n\n", 1)[0]
    line = re.search(rf"(?im)^{field}:(.*(?:\n[ \t].*)*)", head)
    unfolded = re.sub(r"\n[ \t]", " ", line.group(1)) if line else ""
    decoded = [(str(email.header.make_header(email.header.decode_header(n))), a) for n, a in email.utils.getaddresses([unfolded])]
    return decoded == theirs != ours


@rule(("from",), "notmuch guesses the address the mail came to from its Received headers (' for <address>', or a host "
                 "whose domain is in one of my addresses); mail-compose looks in To, Cc, Bcc, Envelope-To, "
                 "X-Original-To and Delivered-To, then takes my first address (mail-compose(1))")
def from_received(case, field, ours, theirs):
    received = " ".join(case.message.header("received")).lower()
    return (len(ours) == len(theirs) == 1 and ours[0] == case.me[0] and theirs[0] in case.me
            and theirs[0].rpartition("@")[2].lower() in received)


class Case:
    """One reply compared: the message, the mode, each side's fields (None: not written) and
    its error."""

    def __init__(self, message, me, mode, raw, ours, theirs, our_error, their_error):
        self.message, self.me, self.mode, self.raw = message, me, mode, raw
        self.ours, self.theirs = ours, theirs
        self.our_error, self.their_error = our_error, their_error

    def differences(self):
        if self.ours is None or self.theirs is None:
            return ["written"] if (self.ours is None) != (self.theirs is None) else []
        return [f for f in FIELDS if self.ours[f] != self.theirs[f]]


def compared(source, tmp_path):
    """Every reply of the source's messages by both: a Case each, and my addresses."""
    messages, me = SOURCES[source](tmp_path)
    cases = []
    for n, layer in enumerate(layers(messages)):
        folder = tmp_path / f"layer{n}"
        folder.mkdir()
        env, nids = notmuch_database(folder, layer, me)
        written, errors = mail_compose(folder, layer, me)
        jobs = [(k, mode) for k in range(len(layer)) for mode in MODES]
        with concurrent.futures.ThreadPoolExecutor(os.cpu_count() or 2) as pool:
            answers = list(pool.map(lambda job: notmuch_reply(env, nids[job[0]], job[1]) if nids[job[0]] else (None, "not indexed"), jobs))
        for (k, mode), (headers, their_error) in zip(jobs, answers):
            ours = written.get((k, mode))
            cases.append(Case(layer[k], me, mode, ours, ours_view(ours) if ours else None, notmuch_view(headers) if headers else None,
                              errors.get((k, mode)), their_error))
    return cases, me


def known():
    """compose-known.tsv: {(source, label, mode, field): reason}."""
    entries = {}
    for line in KNOWN.read_text().splitlines():
        if line.startswith("#") or not line.strip():
            continue
        source, label, mode, field, reason = line.split("\t")
        assert source in SOURCES and mode in MODES and field in FIELDS + ("written",) and reason, line
        entries[(source, label, mode, field)] = reason
    return entries


def classified(source, cases):
    """Each difference with the rule that explains it, or None: [(case, field, rule name)]."""
    out = []
    for case in cases:
        for field in case.differences():
            ours = case.ours[field] if case.ours and field != "written" else None
            theirs = case.theirs[field] if case.theirs and field != "written" else None
            name = next((name for fields, name, _, f in RULES if field in fields and f(case, field, ours, theirs)), None)
            out.append((case, field, name))
    return out


def need_notmuch():
    if shutil.which("notmuch") is None:
        if os.environ.get("CI"):
            pytest.fail("notmuch is missing (scripts/install-deps --test installs it)")
        pytest.skip("notmuch is not installed (scripts/install-deps --test installs it)")


@pytest.mark.parametrize("source", [
    "sample",
    pytest.param("corpus", marks=pytest.mark.shared("corpus")),
    pytest.param("generated", marks=pytest.mark.shared("gen/gen_mbox.py")),
])
def test_replies_as_notmuch_writes_them(source, tmp_path):
    need_notmuch()
    cases, me = compared(source, tmp_path)
    listed = {k[1:]: v for k, v in known().items() if k[0] == source}
    differences = classified(source, cases)
    found = {(c.message.label, c.mode, field) for c, field, _ in differences}

    # the agreement, per mode, and the classes of difference
    for mode in MODES:
        mine = [c for c in cases if c.mode == mode]
        same = sum(not c.differences() for c in mine)
        print(f"{source} {mode}: {same} of {len(mine)} the same as notmuch's ({same / len(mine):.1%})")
    by_class = collections.Counter((field, name or ("listed" if (c.message.label, c.mode, field) in listed else "UNEXPLAINED"))
                                   for c, field, name in differences)
    reasons = {name: reason for _, name, reason, _ in RULES}
    for (field, name), n in sorted(by_class.items()):
        print(f"  {n:5}  {field:12} {name}: {reasons.get(name, 'compose-known.tsv')}")

    unexplained = [(c, field) for c, field, name in differences
                   if name is None and (c.message.label, c.mode, field) not in listed]
    assert not unexplained, "differences from notmuch reply no rule or compose-known.tsv explains:\n" + "\n".join(
        f"{source}\t{c.message.label}\t{c.mode}\t{field}\tours={c.ours and c.ours[field] if field != 'written' else c.our_error!r:.200}"
        f" notmuch={c.theirs and c.theirs[field] if field != 'written' else c.their_error!r:.200}" for c, field in unexplained)
    stale = sorted(set(listed) - found)
    assert not stale, f"listed in {KNOWN.name} but no longer different, remove: {stale}"
    ruled = sorted(set(listed) & {(c.message.label, c.mode, field) for c, field, name in differences if name})
    assert not ruled, f"listed in {KNOWN.name} but a rule explains them, remove: {ruled}"
    unused = [name for fields, name, _, _ in RULES if name not in {name for *_, name in differences}]
    print(f"  rules that explain no difference of {source}: {', '.join(unused) or 'none'}")
    messages = len({c.message.label for c in cases})
    assert messages == 19 if source == "sample" else messages == GENERATED_MESSAGES if source == "generated" else messages > 550
