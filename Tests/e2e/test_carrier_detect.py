"""carrier-detect as users run it: tracking_number_data's test numbers, the generated
mailbox's parcels, real corpora without false parcels, users' carriers, and bad input."""
import json
import subprocess

import pytest

import carrier_notices
from conftest import BIN, ENV, SAMPLE, SHARED, check_bad_lines, records, run

VECTORS = SHARED / "vectors" / "tracking" / "tracking_numbers_flat.json"

# Numbers the vectors call invalid that carrier-detect still finds, and why.
INVALID_BUT_FOUND = {
    # Invalid as Purolator's *alpha* format, but these 12 digits are a valid Purolator numeric
    # number (Luhn check digit right): the same carrier, another of its formats.
    "331426749957": "purolator",
}

# How the generator names carriers, and the codes that are right for each.
GENERATED_CARRIERS = {"UPS": {"ups"}, "USPS": {"usps"}, "FedEx": {"fedex"}, "DHL": {"dhl"},
                      # An S10 item shipped by Chunghwa Post but issued abroad is an s10 item.
                      "Chunghwa Post": {"chunghwa_post", "s10"}, "7-ELEVEN": {"seven_eleven"},
                      "FamilyMart": {"family_mart"}, "T-Cat": {"tcat"}}


def message(text, subject="Shipment update", sender="orders@shop.example"):
    return json.dumps({"subject": subject, "text": text, "html": None,
                       "from": {"name": "Shop", "address": sender}, "headers": {}})


@pytest.mark.shared("vectors/tracking/tracking_numbers_flat.json")
def test_tracking_number_data_vectors():
    rows = json.loads(VECTORS.read_text())
    # The way a shop writes it: the carrier's name and a label before the number.
    stream = "\n".join(message(f"Hello,\n\nYour {r['courier_name']} tracking number: {r['number']}\n") for r in rows)
    r = run("carrier-detect", input=stream + "\n")
    assert r.returncode == 0, r.stderr
    out = records(r.stdout)
    assert len(out) == len(rows)
    valid_found = invalid_rejected = 0
    misses = []
    for row, o in zip(rows, out):
        number = "".join(row["number"].split()).upper()
        found = {(s["carrier"], s["tracking_number"]) for s in o["shipments"]}
        if row["valid"]:
            if (row["carrier"], number) in found:
                valid_found += 1
            else:
                misses.append(("valid missed", row, found))
        elif not found:
            invalid_rejected += 1
        elif INVALID_BUT_FOUND.get(number) in {c for c, _ in found}:
            pass
        else:
            misses.append(("invalid found", row, found))
    valid = sum(r["valid"] for r in rows)
    invalid = len(rows) - valid
    assert valid_found / valid >= 0.99, misses
    assert invalid_rejected / invalid >= 0.95, misses
    assert all(kind != "invalid found" for kind, _, _ in misses), misses  # every exception is listed above


def notice(sender, subject, text):
    return carrier_notices.record(sender, subject, text)


@pytest.mark.parametrize("positives, negatives", [
    (carrier_notices.POSITIVES, carrier_notices.NEGATIVES),
    (carrier_notices.HELD_OUT_POSITIVES, carrier_notices.HELD_OUT_NEGATIVES),
], ids=["written-with-the-fixes", "held-out"])
def test_real_looking_notices_and_their_look_alikes(positives, negatives):
    # Carriers' and shops' own wording: every parcel found with the right carrier (and its
    # pickup store, code and deadline when the mail states them), nothing in the look-alikes.
    found, reported, wrong = carrier_notices.score(BIN / "carrier-detect", positives, negatives)
    assert wrong == []
    assert found == len(positives) and reported == 0


def test_the_carriers_link_names_the_carrier_whatever_the_numbers_shape():
    # A USPS page with several numbers, comma-separated, as USPS's own links carry them.
    mail = notice("orders@shop.example", "Shipped",
                  "Track: https://tools.usps.com/go/TrackConfirmAction?tLabels=EZ123456785US%2CLZ409217368US\n")
    got = records(run("carrier-detect", input=mail + "\n").stdout)[0]["shipments"]
    assert [(s["carrier"], s["tracking_number"], s["confidence"]) for s in got] == \
        [("usps", "EZ123456785US", 1.0), ("usps", "LZ409217368US", 1.0)]
    # A shape none of the carrier's formats has: its format says so, its page is the link.
    link = "https://www.ups.com/track?loc=en_US&tracknum=MI1234567890123456ABCD"
    got = records(run("carrier-detect", input=notice("a@b.example", "x", f"see {link}") + "\n").stdout)[0]["shipments"]
    assert [(s["carrier"], s["format"], s["tracking_url"]) for s in got] == [("ups", "tracking_link", link)]
    # A postal operator's page with another post's item (UPU S10): that operator's parcel, whose
    # format and check digit are still S10's, with the label before it as evidence too.
    link = "https://postserv.post.gov.tw/pstmail/main_mail.html?targetTxn=EB500100&MAILNO=RB123456785CN"
    got = records(run("carrier-detect", input=notice("a@b.example", "x", f"Tracking number: RB123456785CN\n{link}") + "\n").stdout)
    assert [(s["carrier"], s["format"], s["check_digit"], s["tracking_url"], s["evidence"]) for s in got[0]["shipments"]] == \
        [("chunghwa_post", "s10", "5", link, ["tracking_url", "check_digit", "label"])]
    # Not the page a template names (another path): only a number a format reads counts.
    other = notice("a@b.example", "x", "see https://www.ups.com/careers?tracknum=MI1234567890123456ABCD")
    assert records(run("carrier-detect", input=other + "\n").stdout)[0]["shipments"] == []


def test_precision_and_recall_on_the_generated_mailbox(generated):
    parsed, truth = generated
    r = run("carrier-detect", input=parsed)
    assert r.returncode == 0, r.stderr
    out = records(r.stdout)
    assert len(out) == len(truth)
    true_pos = false_pos = false_neg = 0
    wrong = []
    for o, t in zip(out, truth):
        expected = {c["tracking"]: GENERATED_CARRIERS[c["carrier"]] for c in t["carriers"]}
        for s in o["shipments"]:
            if s["carrier"] in expected.get(s["tracking_number"], set()):
                true_pos += 1
            else:
                false_pos += 1
                wrong.append(("found", t["kind"], t["subject"], s))
        for number, carriers in expected.items():
            if not any(s["tracking_number"] == number and s["carrier"] in carriers for s in o["shipments"]):
                false_neg += 1
                wrong.append(("missed", t["subject"], number, o["shipments"]))
    assert true_pos > 200
    assert true_pos / (true_pos + false_pos) >= 0.99, wrong[:10]
    assert true_pos / (true_pos + false_neg) >= 0.99, wrong[:10]
    for o in out:
        for s in o["shipments"]:
            assert set(s) >= {"carrier", "tracking_number", "check_digit", "confidence", "evidence", "tracking_url"}
            assert 0.5 <= s["confidence"] <= 1 and s["evidence"]


def test_no_parcels_in_the_real_corpora(corpus):
    files = [p for p in corpus.rglob("*") if p.is_file() and p.suffix not in (".json", ".tsv", ".md")
             and "LICENSE" not in p.name and p.name != "SOURCES.txt"]
    parsed = run("mime-parse", "--no-progress", *files, timeout=300).stdout
    r = run("carrier-detect", input=parsed)
    out = records(r.stdout)
    assert r.returncode == 0 and len(out) == len(records(parsed))
    # None of these ~1,000 messages is a shipping notice: order numbers, phone numbers, bug and
    # ticket ids, dates and amounts abound, and none may come out as a parcel.
    found = [(o["source"]["path"], o["shipments"]) for o in out if o["shipments"]]
    assert found == []
    # Lowering the bar shows they were weighed, not missed: short check-digit numbers without
    # a label or a carrier stay below 0.5.
    low = records(run("carrier-detect", "--min-confidence", "0.3", input=parsed).stdout)
    assert any(o["shipments"] for o in low)


def test_users_carriers_from_the_config_folder_and_the_command_line(tmp_path):
    acme = {"name": "Acme Post", "courier_code": "acme", "words": ["acme post"],
            "tracking_numbers": [{"name": "Acme", "regex": "\\s*A\\s*C\\s*(?<SerialNumber>([0-9]\\s*){10})",
                                  "validation": {}, "tracking_url": "https://acmepost.example/t/%s"}]}
    mail = message("Your Acme Post tracking number: AC0123456789") + "\n"
    assert records(run("carrier-detect", input=mail).stdout)[0]["shipments"] == []
    f = tmp_path / "acme.json"
    f.write_text(json.dumps(acme))
    got = records(run("carrier-detect", "--carriers", f, input=mail).stdout)[0]["shipments"]
    assert [(s["carrier"], s["tracking_number"], s["tracking_url"]) for s in got] == \
        [("acme", "AC0123456789", "https://acmepost.example/t/AC0123456789")]
    (tmp_path / "cfg" / "mailpipe" / "carriers").mkdir(parents=True)
    (tmp_path / "cfg" / "mailpipe" / "carriers" / "acme.json").write_text(json.dumps(acme))
    env = dict(ENV, XDG_CONFIG_HOME=str(tmp_path / "cfg"))
    r = subprocess.run([str(BIN / "carrier-detect")], input=mail.encode(), capture_output=True, env=env)
    assert records(r.stdout)[0]["shipments"][0]["carrier"] == "acme"
    # Its tracking page, as a template: the number in it is Acme's whatever its shape.
    acme["tracking_links"] = ["track.acmepost.example/parcel?id=%s"]
    f.write_text(json.dumps(acme))
    linked = message("Follow it: https://TRACK.acmepost.example/Parcel?id=zz-778812") + "\n"
    got = records(run("carrier-detect", "--carriers", f, input=linked).stdout)[0]["shipments"]
    assert [(s["carrier"], s["tracking_number"], s["format"]) for s in got] == [("acme", "ZZ-778812", "tracking_link")]
    acme["tracking_links"] = ["track.acmepost.example/parcel"]
    f.write_text(json.dumps(acme))
    r = run("carrier-detect", "--carriers", f, input=b"")
    assert r.returncode == 65 and b"needs a host and one %s" in r.stderr
    bad = tmp_path / "bad.json"
    bad.write_text('{"courier_code": "x", "tracking_numbers": [{"name": "x", "regex": "(["}]}')
    r = run("carrier-detect", "--carriers", bad, input=b"")
    assert r.returncode == 65 and str(bad).encode() in r.stderr and b"bad regular expression" in r.stderr


def test_bad_lines_keep_their_place_and_are_counted():
    check_bad_lines("carrier-detect", bad_record=b'{"id":"no text"}', bad_json=b"[1, 2]",
                    bad_record_error="no subject, text or html: not a mime-parse record")


def test_the_sample_mailbox_in_a_pipeline():
    parsed = run("mime-parse", SAMPLE).stdout
    kinds = run("newsletter-detect", input=parsed).stdout
    out = records(run("carrier-detect", input=kinds).stdout)
    parcels = [(o["subject"], s["carrier"], s["tracking_number"]) for o in out for s in o["shipments"]]
    assert len(parcels) == 2, parcels
    assert {c for _, c, _ in parcels} == {"ups", "tcat"}
    assert all(o["mail_kind"] for o in out)  # earlier fields pass through
    assert run("carrier-detect", "--min-confidence", "2", input=b"").returncode == 64
