"""newsletter-detect as users run it: in a pipeline, as a procmail filter (--mail) and
condition (-q), with their own rules, and on bad input."""
import json
import os

from conftest import ENV, SAMPLE, check_bad_lines, records, run

# How the generator's kinds map to what newsletter-detect should say (shared/gen/README.md).
EXPECTED = {"personal": {"personal"}, "group": {"personal"}, "chat": {"personal"},
            "newsletter": {"newsletter"}, "social": {"newsletter", "notification"},
            "shipping": {"notification"}, "receipt": {"notification"}, "forum": {"list"}}

NEWSLETTER = b"""From: Acme Weekly <news@mail.acme-shop.example>
To: mei@example.tw
Subject: This week's picks
X-Newsletter: no
List-Unsubscribe: <https://acme-shop.example/unsubscribe/one-click?u=abc>
List-Unsubscribe-Post: List-Unsubscribe=One-Click
Precedence: bulk

New arrivals you'll love.
"""

PERSONAL = b"""From: Alex Rivera <alex.rivera@example.com>
To: mei@example.tw
Subject: Dinner on Friday?

Are you free?
"""


def test_agrees_with_the_generated_mailboxs_truth(generated):
    parsed, truth = generated
    r = run("newsletter-detect", input=parsed)
    assert r.returncode == 0, r.stderr
    out = records(r.stdout)
    assert len(out) == len(truth)
    wrong = [(t["kind"], o["mail_kind"], t["subject"], o["newsletter_reasons"])
             for o, t in zip(out, truth) if o["mail_kind"] not in EXPECTED[t["kind"]]]
    agreement = 1 - len(wrong) / len(truth)
    assert agreement >= 0.98, wrong[:20]
    for o in out:
        assert o["is_newsletter"] == (o["mail_kind"] == "newsletter")
        assert isinstance(o["newsletter_reasons"], list)
    # Every newsletter that announced one-click unsubscribe gets it offered.
    for o, t in zip(out, truth):
        if t["kind"] == "newsletter" and t.get("has_list_unsubscribe"):
            assert o["unsubscribe"]["url"].startswith("https://"), o["unsubscribe"]


def test_fields_on_the_sample_and_other_fields_untouched():
    parsed = run("mime-parse", SAMPLE).stdout
    out = records(run("newsletter-detect", input=parsed).stdout)
    before = records(parsed)
    assert len(out) == len(before)
    for o, b in zip(out, before):
        assert list(o)[:len(b)] == list(b)  # key order kept, new fields appended
        assert {k: o[k] for k in b} == b
        # automated_kind, acted_by and service_action (issue 47) only on the mail they describe
        assert set(o) - set(b) - {"automated_kind", "acted_by", "service_action"} == {
            "mail_kind", "is_newsletter", "newsletter_reasons", "unsubscribe", "care"}
        assert ("automated_kind" in o) == (o["mail_kind"] == "automated")
    assert {o["mail_kind"] for o in out} >= {"personal", "newsletter"}


def test_running_twice_replaces_its_fields():
    once = run("newsletter-detect", input=run("mime-parse", SAMPLE).stdout).stdout
    twice = run("newsletter-detect", input=once).stdout
    assert once == twice


def test_mail_mode_stamps_headers_and_keeps_every_other_byte():
    r = run("newsletter-detect", "--mail", input=NEWSLETTER)
    assert r.returncode == 0, r.stderr
    head, body = r.stdout.split(b"\n\n", 1)
    assert head.endswith(b"\nX-Mail-Kind: newsletter\nX-Newsletter: yes")
    assert b"X-Newsletter: no" not in head  # a forged verdict is replaced
    assert r.stdout.replace(b"X-Mail-Kind: newsletter\nX-Newsletter: yes\n", b"") == NEWSLETTER.replace(b"X-Newsletter: no\n", b"")
    personal = run("newsletter-detect", "--mail", input=PERSONAL)
    assert b"X-Mail-Kind: personal\nX-Newsletter: no\n\nAre you free?" in personal.stdout


def test_quiet_mode_answers_with_the_exit_status(tmp_path):
    assert run("newsletter-detect", "-q", input=NEWSLETTER).returncode == 0
    assert run("newsletter-detect", "-q", input=PERSONAL).returncode == 1
    assert run("newsletter-detect", "-q", input=NEWSLETTER).stdout == b""
    empty = run("newsletter-detect", "-q", input=b"")
    assert empty.returncode == 65 and b"empty message" in empty.stderr
    missing = run("newsletter-detect", "-q", tmp_path / "nope.eml")
    assert missing.returncode == 66
    f = tmp_path / "m.eml"
    f.write_bytes(NEWSLETTER)
    assert run("newsletter-detect", "-q", f).returncode == 0
    assert run("newsletter-detect", "--mail", f, f).returncode == 64


def test_users_rules_from_the_config_folder_and_the_command_line(tmp_path):
    mail = PERSONAL.replace(b"Subject:", b"X-Acme-Blast: 7\nSubject:")
    assert run("newsletter-detect", "-q", input=mail).returncode == 1
    rules = tmp_path / "acme.json"
    rules.write_text(json.dumps({"bulk_headers": ["X-Acme-Blast"]}))
    assert run("newsletter-detect", "-q", "--rules", rules, input=mail).returncode == 0
    config = tmp_path / "config" / "mailpipe"
    config.mkdir(parents=True)
    (config / "mail-kind.json").write_text(json.dumps({"bulk_headers": ["x-acme-blast"]}))
    import subprocess
    from conftest import BIN
    env = dict(ENV, XDG_CONFIG_HOME=str(tmp_path / "config"))
    r = subprocess.run([str(BIN / "newsletter-detect"), "-q"], input=mail, capture_output=True, env=env)
    assert r.returncode == 0
    bad = tmp_path / "bad.json"
    bad.write_text('{"bulk_header": []}')
    r = run("newsletter-detect", "--rules", bad, input=b"")
    assert r.returncode == 65 and f"newsletter-detect: {bad}: unknown key 'bulk_header'".encode() in r.stderr


def test_bad_lines_keep_their_place_and_are_counted():
    check_bad_lines("newsletter-detect", bad_record=b'{"subject":"no headers"}',
                    bad_record_error="no 'headers' object: not a mime-parse record")


def test_every_corpus_message_gets_a_kind(corpus):
    files = [p for p in corpus.rglob("*") if p.is_file() and p.suffix not in (".json", ".tsv", ".md")
             and "LICENSE" not in p.name and p.name != "SOURCES.txt"]
    parsed = run("mime-parse", "--no-progress", *files, timeout=300).stdout
    r = run("newsletter-detect", input=parsed)
    out = records(r.stdout)
    assert len(out) == len(records(parsed)) and r.returncode == 0, r.stderr[-2000:]
    kinds = {o["mail_kind"] for o in out}
    assert kinds <= {"personal", "newsletter", "notification", "list", "automated"}
    by_path = {}
    for o in out:
        by_path.setdefault(o["source"]["path"].split("corpus/")[1], o)
    # Spot checks against messages whose nature is plain from their headers.
    assert by_path["flanker/messages/bounce/gmail-no-dns.eml"]["mail_kind"] == "automated"
    assert by_path["stalwart-mail-parser/eml/thirdparty/014.eml"]["mail_kind"] == "list"
    assert by_path["spamscope-mail-parser/mails/mail_test_13"]["mail_kind"] == "newsletter"


CARRIER_MAIL = b"""From: UPS <mcinfo@ups.com>
To: mei@example.tw
Subject: UPS Update: Package Scheduled for Delivery Today
Date: Mon, 2 Mar 2026 11:00:00 +0800
Message-ID: <u1@ups.com>

Tracking number: 1Z999AA10123456784
"""

FRIENDS_MAIL = b"""From: Alex Rivera <alex@example.com>
To: mei@example.tw
Subject: the lamp
Date: Mon, 2 Mar 2026 09:14:58 +0800
Message-ID: <p1@example.com>

Sent it yesterday, the tracking number is 1Z999AA10123456784. Dinner Friday?
"""


def test_shipments_are_one_weak_sign_after_carrier_detect_never_alone():
    """In the chains' order (carrier-detect first) a friend's mail with a tracking number stays
    personal; a carrier's own, whose sender is a notification address, is a notification."""
    def kind(mail):
        parsed = run("mime-parse", "--no-progress", input=mail).stdout
        found = run("carrier-detect", "--no-progress", input=parsed).stdout
        [r] = records(run("newsletter-detect", "--no-progress", input=found).stdout)
        assert r["shipments"], "carrier-detect finds the number"
        return r["mail_kind"], r["newsletter_reasons"]
    assert kind(FRIENDS_MAIL) == ("personal", [])
    kind_of_carrier, reasons = kind(CARRIER_MAIL)
    assert kind_of_carrier == "notification" and "shipments" in reasons
