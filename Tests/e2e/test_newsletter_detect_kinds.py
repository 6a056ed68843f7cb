"""The kinds of machine mail (issue 47): bounces with and without a delivery-status report, SMTP
TLS reports (RFC 8460), DMARC aggregate reports, read receipts, and a service acting for a
person (a share, a comment, a mention, an access request, a calendar answer), each with its
expected `mail_kind`, `automated_kind`, `acted_by` and `service_action`
(data/kinds47/expected.json); and look-alikes written by people or sent as newsletters, which
must be none of these. The cases were written before newsletter-detect read them (README.md
there)."""
import json
import pathlib

from conftest import records, run

CASES = pathlib.Path(__file__).parent / "data" / "kinds47"
EXPECTED = json.loads((CASES / "expected.json").read_text())
FIELDS = ["mail_kind", "automated_kind", "acted_by", "service_action"]


def detect(paths):
    parsed = run("mime-parse", "--no-progress", *paths)
    assert parsed.returncode == 0, parsed.stderr
    r = run("newsletter-detect", "--no-progress", input=parsed.stdout)
    assert r.returncode == 0, r.stderr
    return records(r.stdout)


def test_every_case_has_its_expected_kind():
    names = sorted(EXPECTED)
    assert sorted(p.name for p in CASES.glob("*.eml")) == names
    out = detect([CASES / n for n in names])
    assert [pathlib.Path(o["source"]["path"]).name for o in out] == names
    wrong = []
    for name, o in zip(names, out):
        got = {f: o.get(f) for f in FIELDS}
        if got != EXPECTED[name]:
            wrong.append(f"{name}: got {got} {o['newsletter_reasons']}, expected {EXPECTED[name]}")
    print(f"machine-mail kinds: {len(names) - len(wrong)} of {len(names)} right")
    assert wrong == [], "\n".join(wrong)


def test_each_class_has_five_cases_and_lookalikes():
    def count(prefix):
        return sum(n.startswith(prefix) for n in EXPECTED)
    for prefix in ["bounce-", "tls-", "dmarc-", "mdn-", "lookalike-"]:
        assert count(prefix) >= 5, prefix
    assert sum(e["service_action"] is not None for e in EXPECTED.values()) >= 5
    assert {e["service_action"] for e in EXPECTED.values()} >= {"share", "comment", "mention", "access_request", "calendar_reply"}


def test_fields_are_absent_from_other_mail():
    """automated_kind only on automated records; acted_by and service_action only together."""
    out = detect(sorted(CASES.glob("*.eml")))
    for o in out:
        assert ("automated_kind" in o and o["automated_kind"] is not None) == (o["mail_kind"] == "automated")
        assert ("acted_by" in o) == ("service_action" in o)
        if "acted_by" in o:
            assert o["mail_kind"] == "notification" and set(o["acted_by"]) == {"name", "address"}


def test_mail_mode_knows_the_report_kinds():
    """--mail parses the message itself: a TLS report and a read receipt are automated there too."""
    for name in ["tls-google.eml", "mdn-exchange-read-plain.eml", "dmarc-yahoo-zip.eml"]:
        r = run("newsletter-detect", "--mail", input=(CASES / name).read_bytes())
        assert r.returncode == 0, r.stderr
        assert b"X-Mail-Kind: automated\n" in r.stdout, name
        assert run("newsletter-detect", "-q", CASES / name).returncode == 1, name
