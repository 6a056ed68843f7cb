"""mime-parse's report, is_draft and date_source (issue 32) on mail written for the purpose in
the forms real systems send (Tests/e2e/data/reports/): bounces of Postfix, Exim, qmail,
sendmail, Exchange and Gmail, read receipts of Thunderbird, Outlook and Apple Mail, drafts of
Takeout, Thunderbird and maildir, and dates that are missing, unreadable or impossible.
tuned/ is what the reader was written against; heldout/ was written after it and is measured:
its misses, with their reasons, are in heldout/MISSES.md and must stay exactly those."""
import base64
import json
import pathlib
import subprocess

import pytest

from conftest import need_shared, records, run
from reports_truth import compare

DATA = pathlib.Path(__file__).parent / "data" / "reports"


def parse(*args, input=None):
    r = run("mime-parse", "--no-progress", *args, input=input)
    assert r.returncode == 0, r.stderr
    return records(r.stdout)


def brief(report):
    """A report as (type, original_message_id, [(address, action, status)])."""
    if report is None:
        return None
    return (report["type"], report["original_message_id"],
            [(x["address"], x["action"], x["status"]) for x in report["recipients"]])


# file: (type, original_message_id, [(address, action, status)], guessed)
TUNED_REPORTS = {
    "postfix-failed.eml": ("failed", "c2f1e0a4-77aa-4b1e-9b0e-2d6f1a9e0c11@example.net",
                           [("kim.nguyen@example.org", "failed", "5.1.1")], False),
    "postfix-delayed.eml": ("delayed", "plans-0305@example.net", [("sam@slow.example.com", "delayed", "4.4.1")], False),
    "exim-failed.eml": ("failed", "5b1c7e2a-aa01-4c33-9f7e-6b0d1d3e4f21@example.net",
                        [("alex.b@example.org", "failed", "5.7.1")], True),
    "exim-delayed.eml": ("delayed", None, [("lee@far.example.com", "delayed", "4.4.2")], True),
    "exchange-undeliverable.eml": ("failed", "DM6PR11MB0001@EX01.contoso-example.com",
                                   [("pat@fabrikam-example.com", "failed", "5.1.10")], False),
    "exchange2003-plain.eml": ("failed", None, [("dana.k@corp.example.com", "failed", "5.1.1")], True),
    "exchange-delivered.eml": ("delivered", "offer-letter-0320@contoso-example.com",
                               [("casey@contoso-example.com", "delivered", "2.0.0")], False),
    "gmail-dsn-failure.eml": ("failed", "CAF9xQ1+abc123=ZZ@mail.gmail.com",
                              [("no.such.person@example.org", "failed", "5.1.1")], False),
    "gmail-old-plain.eml": ("failed", "BANLkTi=qwe123@mail.gmail.com", [("chris.old@example.com", "failed", "5.2.1")], True),
    "qmail-failure.eml": ("failed", "qq-773@example.net", [("jo@example.com", "failed", "5.1.1")], True),
    "headers-only-quote.eml": ("failed", "old-friends-0321@example.net",
                               [("morgan@legacy.example.com", "failed", "5.1.1")], True),
    "thunderbird-mdn.eml": ("read", "c2f1e0a4-77aa-4b1e-9b0e-2d6f1a9e0c12@example.net",
                            [("alex@example.org", "displayed", None)], False),
    "outlook-mdn-read.eml": ("read", "contract-0316-a1@example.net", [("jordan@fabrikam-example.com", "displayed", None)], False),
    "outlook-mdn-deleted.eml": ("not_read", "sync-0317@example.net", [("jordan@fabrikam-example.com", "deleted", None)], False),
    "apple-mdn.eml": ("read", "photos-trip-0319@example.net", [("sam@icloud-example.com", "displayed", None)], False),
    "outlook-plain-read.eml": ("read", "minutes-2010-05@example.net", [("taylor@oldcorp.example.com", "displayed", None)], True),
}

NOT_REPORTS = ["forwarded-bounce.eml", "out-of-office.eml", "postmaster-notice.eml", "read-the-book.eml",
               "thunderbird-draft.eml"]


@pytest.mark.parametrize("name", sorted(TUNED_REPORTS))
def test_reports(name):
    [rec] = parse(DATA / "tuned" / name)
    *expected, guessed = TUNED_REPORTS[name]
    assert brief(rec["report"]) == tuple(expected)
    assert ("guessed_report" in rec["defects"]) == guessed
    assert rec["is_draft"] is False and rec["date_source"] == "date"


def test_diagnostics_are_the_servers_words_on_one_line():
    [postfix] = parse(DATA / "tuned" / "postfix-failed.eml")
    assert postfix["report"]["recipients"][0]["diagnostic"] == (
        "550 5.1.1 <kim.nguyen@example.org>: Recipient address rejected: User unknown in virtual mailbox table")
    [exim] = parse(DATA / "tuned" / "exim-failed.eml")
    assert exim["report"]["recipients"][0]["diagnostic"] == "550 5.7.1 Mailbox disabled for this recipient"
    [exchange] = parse(DATA / "tuned" / "exchange2003-plain.eml")
    assert exchange["report"]["recipients"][0]["diagnostic"].startswith("The e-mail account does not exist")


@pytest.mark.parametrize("name", NOT_REPORTS)
def test_mail_that_only_looks_like_a_report(name):
    [rec] = parse(DATA / "tuned" / name)
    assert rec["report"] is None
    assert "guessed_report" not in rec["defects"]


def test_drafts():
    takeout = parse(DATA / "tuned" / "takeout-drafts.mbox")
    assert [r["is_draft"] for r in takeout] == [True, True, False]
    [thunderbird] = parse(DATA / "tuned" / "thunderbird-draft.eml")
    assert thunderbird["is_draft"] is True


def write_maildir(path, files):
    for sub in ("cur", "new", "tmp"):
        (path / sub).mkdir(parents=True)
    for name, text in files.items():
        (path / name).write_bytes(text)


def test_maildir_drafts(tmp_path):
    message = b"From: Robin <robin@example.net>\nSubject: unfinished\nDate: Sun, 22 Mar 2026 18:00:00 +0100\n\nHi\n"
    write_maildir(tmp_path / "Maildir" / ".Drafts", {"cur/1774198800.M1P2.host:2,S": message})
    write_maildir(tmp_path / "Maildir" / ".Sent", {"cur/1774198801.M1P3.host:2,S": message})
    write_maildir(tmp_path / "Maildir" / "Archive", {"cur/1774198802.M1P4.host:2,DS": message, "cur/1774198803.M1P5.host:2,S": message})
    assert [r["is_draft"] for r in parse(tmp_path / "Maildir" / ".Drafts")] == [True]
    assert [r["is_draft"] for r in parse(tmp_path / "Maildir" / ".Sent")] == [False]
    # maildir's D flag, in any folder
    assert [r["is_draft"] for r in parse(tmp_path / "Maildir" / "Archive")] == [True, False]


def test_gmail_api_draft_and_internal_date():
    def line(id, labels, raw):
        data = base64.urlsafe_b64encode(raw).decode().rstrip("=")
        return json.dumps({"id": id, "threadId": id, "labelIds": labels, "internalDate": "1774198800000", "raw": data})
    api = "\n".join([
        line("a1", ["DRAFT"], b"From: me@example.net\nDate: Sun, 22 Mar 2026 17:00:00 +0000\nSubject: d\n\nx\n"),
        line("a2", ["INBOX"], b"From: x@example.org\nDate: Sun, 22 Mar 3609 17:00:00 +0000\nSubject: d\n\nx\n"),
    ]) + "\n"
    draft, future = parse(input=api)
    assert draft["is_draft"] is True and draft["date_source"] == "date"
    assert (future["date"], future["date_source"]) == ("2026-03-22T17:00:00Z", "internal_date")
    assert "impossible_date" in future["defects"]


BAD_DATES = [  # subject: (date, date_source, defect)
    ("from the future", "2026-03-23T08:00:00Z", "mbox", "impossible_date"),
    ("clock at zero", "2026-03-23T09:00:00Z", "mbox", "impossible_date"),
    ("words for a date", "2026-03-23T10:00:00Z", "mbox", "invalid_date"),
    ("no date at all", "2026-03-23T11:00:00Z", "mbox", "missing_date"),
    ("an ordinary date, a minute before delivery", "2026-03-23T12:29:00Z", "date", None),
    ("two days ahead of delivery", "2026-03-23T13:00:00Z", "mbox", "impossible_date"),
]


def test_dates_that_cannot_be_right():
    got = [(r["subject"], r["date"], r["date_source"],
            next((d for d in r["defects"] if d.endswith("_date")), None)) for r in parse(DATA / "tuned" / "bad-dates.mbox")]
    assert got == BAD_DATES


def test_received_dates():
    [only] = parse(DATA / "tuned" / "received-only.eml")
    assert (only["date"], only["date_source"]) == ("2026-03-24T07:45:10Z", "received")
    [future] = parse(DATA / "tuned" / "received-future.eml")
    assert (future["date"], future["date_source"]) == ("2026-03-24T07:45:10Z", "received")
    assert "impossible_date" in future["defects"]
    [none] = parse(input=b"From: a@example.org\nSubject: no date anywhere\n\nx\n")
    assert (none["date"], none["date_source"]) == (None, None)


# Written after the reader, and not tuned on: file: (type, original_message_id, [(address, action, status)], guessed)
HELDOUT_REPORTS = {
    "sendmail-dsn-two.eml": ("failed", "4410.noor.launch@example.com",
                             [("ines@partner.example.org", "failed", "5.1.1"), ("omar@partner.example.org", "failed", "5.2.2")], False),
    "exim-two-failed.eml": ("failed", "ab12cd34-ef56-7890-ab12-cd34ef567890@example.com",
                            [("bea@old-isp.example.net", "failed", None), ("carl@old-isp.example.net", "failed", "5.7.1")], True),
    "exchange2010-plain.eml": ("failed", "quote-req-0325@example.com", [("lena.vogt@fabrikam-example.com", "failed", "5.1.1")], True),
    "o365-delayed.eml": ("delayed", "AM0PR01MB0003-invoice-march@eurprd01.prod.outlook-example.com",
                         [("accounts@slowcorp.example.com", "delayed", "4.4.7")], False),
    "gmail-delay.eml": ("delayed", "CAGx7Y-delay-1@mail.gmail.com", [("ravi@tiny.example.in", "delayed", "4.4.1")], False),
    "yahoo-failure.eml": ("failed", "mia-party@example.com", [("mia_k@yahoo-example.com", "failed", None)], True),
    "domino-failure.eml": ("failed", "order-7731@example.com", [("kurt.m@acme-example.com", "failed", None)], True),
    "postfix-success.eml": ("delivered", "contract-signed-0330@example.com",
                            [("legal@partner.example.org", "relayed", "2.0.0")], False),
    "thunderbird-mdn-deleted.eml": ("not_read", "minutes-0330@example.com", [("ines@partner.example.org", "deleted", None)], False),
    "k9-mdn-headers.eml": ("read", "budget-q2@example.com", [("omar@partner.example.org", "displayed", None)], False),
    "outlook-mdn-zh.eml": ("read", "minutes-zh-0401@example.com", [("ming@example.tw", "displayed", None)], False),
    "outlook-plain-read-de.eml": ("read", "offer-0402@example.com", [("kurt.m@acme-example.com", "displayed", None)], True),
    "html-only-ndr.eml": ("failed", "photos-0403@example.com", [("lisa@gone.example.org", "failed", "5.4.1")], True),
    "parcel-failed.eml": None,
    "re-undeliverable.eml": None,
    "thunderbird-template.eml": None,
}

# subject: (is_draft, date, date_source)
HELDOUT_TAKEOUT = [
    ("not yet", True, "2026-04-05T08:00:00Z", "date"),
    ("pas encore", True, "2026-04-05T08:30:00Z", "date"),
    ("a century off", False, "2026-04-05T09:00:00Z", "mbox"),
    ("numeric date", False, "2026-04-05T09:30:00Z", "mbox"),
    ("just before 1980", False, "2026-04-05T10:00:00Z", "mbox"),
    ("ordinary, zone west of UTC", False, "2026-04-05T10:30:00Z", "date"),
    ("impossible time of day", False, "2026-04-05T11:00:00Z", "mbox"),
]

HELDOUT_FOLDERS = {".INBOX.Drafts": True, "Brouillons": True, ".Templates": False, "Sent Items": False}


def heldout_misses(tmp_path):
    """Each held-out case the reader gets wrong, as 'case: what it wrote'."""
    misses = []
    for name, expected in HELDOUT_REPORTS.items():
        [rec] = parse(DATA / "heldout" / name)
        got = brief(rec["report"])
        want = None if expected is None else tuple(expected[:3])
        if got != want or (expected is not None and ("guessed_report" in rec["defects"]) != expected[3]):
            misses.append(f"{name}: {got}")
    for want, rec in zip(HELDOUT_TAKEOUT, parse(DATA / "heldout" / "takeout-mixed.mbox")):
        got = (rec["subject"], rec["is_draft"], rec["date"], rec["date_source"])
        if got != want:
            misses.append(f"takeout-mixed.mbox {want[0]}: {got[1:]}")
    message = b"From: Noor <noor@example.com>\nSubject: s\nDate: Sun, 5 Apr 2026 12:00:00 +0200\n\nx\n"
    for folder, is_draft in HELDOUT_FOLDERS.items():
        write_maildir(tmp_path / folder, {"cur/1775383200.M1P1.host:2,S": message})
        [rec] = parse(tmp_path / folder)
        if rec["is_draft"] != is_draft:
            misses.append(f"maildir {folder}: is_draft {rec['is_draft']}")
    return misses


def known_misses():
    """The misses listed in heldout/MISSES.md: the lines of its Misses section that start with '- `case`'."""
    section = (DATA / "heldout" / "MISSES.md").read_text().split("\n## Misses\n")[1].split("\n## ")[0]
    return sorted(line.split("`")[1] for line in section.splitlines() if line.startswith("- `"))


def test_heldout(tmp_path):
    cases = len(HELDOUT_REPORTS) + len(HELDOUT_TAKEOUT) + len(HELDOUT_FOLDERS)
    misses = heldout_misses(tmp_path)
    print(f"held-out: {cases - len(misses)} of {cases} right")
    assert sorted(m.split(":")[0] for m in misses) == known_misses(), "\n".join(misses)


def test_generated_truth(tmp_path):
    """Every report, draft and wrong date of a generated mailbox (../shared/gen, 2,000 messages,
    a fifth of them receipts, bounces, auto-replies, drafts and bad dates) as its truth says."""
    mbox, truth = tmp_path / "r.mbox", tmp_path / "r.truth.jsonl"
    subprocess.run(["python3", str(need_shared("gen/gen_mbox.py")), "--messages", "2000", "--seed", "32",
                    "--reports-rate", "0.2", "--out", str(mbox), "--truth", str(truth)], check=True, capture_output=True)
    counts, misses = compare(parse(mbox), [json.loads(line) for line in truth.read_text().splitlines()])
    assert sum(total for kind, (_, total) in counts.items() if kind.startswith("report ")) > 100
    assert misses == []
