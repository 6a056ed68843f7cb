"""parcel-group: one record per parcel from the shipments of its mails, its status the latest
told (by when it happened, not by mailbox order), a finished parcel never reopened, a pickup
reminder that gives only its code joined to its parcel; --open and --agenda."""
import json

from conftest import SAMPLE, records, run


def shipment(carrier, number, status=None, status_time=None, pickup=None, expected=None):
    return {"carrier": carrier, "tracking_number": number, "check_digit": None, "confidence": 0.9, "evidence": [],
            "tracking_url": None, "format": None, "status": status, "status_time": status_time,
            "expected_delivery": expected, **({"pickup": pickup} if pickup else {})}


def mail(id, date, *shipments, conversation=None):
    return {"id": id, "date": date, "shipments": list(shipments),
            **({"participant_hash": conversation} if conversation else {})}


def group(*mails, args=()):
    r = run("parcel-group", *args, input="".join(json.dumps(m) + "\n" for m in mails))
    assert r.returncode == 0, r.stderr
    return records(r.stdout)


STORE = {"store": "7-ELEVEN 中山門市", "store_id": "123456", "code": "8842", "deadline": "2026-03-12"}


def story():
    """A store pickup told in four mails, the last one delivered late: its Date is when it
    happened, before the pickup."""
    return [
        mail("m1", "2026-03-01T02:00:00Z", shipment("seven_eleven", "F1234-5678 90", "in_transit"), conversation="c1"),
        mail("m2", "2026-03-05T02:00:00Z", shipment("seven_eleven", "f1234567890", "available_for_pickup", pickup=STORE), conversation="c1"),
        mail("m4", "2026-03-07T09:00:00Z", shipment("seven_eleven", "F1234567890", "picked_up", "2026-03-07T08:55:00Z"), conversation="c1"),
        mail("m3", "2026-03-06T02:00:00Z", shipment("seven_eleven", None, "available_for_pickup",
                                                    pickup={"store": None, "store_id": None, "code": "8842", "deadline": None}), conversation="c1"),
    ]


def test_a_store_pickup_told_in_four_mails_is_one_parcel_picked_up():
    [p] = group(*story())
    assert p["parcel_id"] == "seven_eleven:F1234567890" and p["tracking_number"] == "F1234567890"
    assert (p["status"], p["status_time"]) == ("picked_up", "2026-03-07T08:55:00Z")
    assert [(s["status"], s["message_id"], s["time_stated"]) for s in p["statuses"]] == [
        ("in_transit", "m1", False), ("available_for_pickup", "m2", False), ("available_for_pickup", "m3", False),
        ("picked_up", "m4", True)]
    assert p["message_ids"] == ["m1", "m2", "m3", "m4"]
    assert p["pickup"] == {"address": None} | STORE  # no mail gave the store's address
    assert p["conversation_id"] == "c1"
    assert (p["first_date"], p["last_date"]) == ("2026-03-01T02:00:00Z", "2026-03-07T08:55:00Z")


def test_the_input_order_does_not_matter():
    mails = story()
    assert group(*mails) == group(*reversed(mails)) == group(*mails[2:], *mails[:2])


def test_a_finished_parcel_is_not_reopened_by_mail_that_comes_late():
    late = mail("m5", "2026-03-09T00:00:00Z", shipment("seven_eleven", "F1234567890", "in_transit"))
    [p] = group(*story(), late)
    assert p["status"] == "picked_up" and p["statuses"][-1]["status"] == "in_transit"
    # a finished one may still become another finished one: not collected, sent back
    returned = mail("m6", "2026-03-10T00:00:00Z", shipment("seven_eleven", "F1234567890", "returned"))
    assert group(*story(), returned)[0]["status"] == "returned"


def test_a_number_that_is_the_pickup_code_is_the_code():
    """A reminder whose store tracking link carries the pickup code, not the parcel's number."""
    reminder = mail("m6", "2026-03-08T00:00:00Z", shipment("seven_eleven", "8842", "available_for_pickup",
                                                            pickup={"store": None, "store_id": None, "code": "8842", "deadline": None}))
    [p] = group(*story()[:2], reminder)
    assert p["parcel_id"] == "seven_eleven:F1234567890" and p["message_ids"] == ["m1", "m2", "m6"]


def test_a_code_without_its_parcel_is_a_parcel_of_its_own_and_carriers_keep_apart():
    alone = mail("r1", "2026-03-06T00:00:00Z", shipment("family_mart", None, "available_for_pickup",
                                                         pickup={"store": "全家 大安店", "store_id": None, "code": "5511", "deadline": "2026-03-13"}))
    other = mail("r2", "2026-03-06T00:00:00Z", shipment("family_mart", None, None,
                                                         pickup={"store": None, "store_id": None, "code": "8842", "deadline": None}))
    parcels = {p["parcel_id"]: p for p in group(*story(), alone, other)}
    assert set(parcels) == {"seven_eleven:F1234567890", "pickup:family_mart:5511", "pickup:family_mart:8842"}
    assert parcels["pickup:family_mart:5511"]["tracking_number"] is None
    assert parcels["pickup:family_mart:5511"]["status"] == "available_for_pickup"


def test_newest_news_first_and_mail_without_shipments_passes():
    parcel = mail("u1", "2026-03-08T00:00:00Z", shipment("ups", "1Z999AA10123456784", "out_for_delivery", expected="2026-03-08"))
    plain = mail("x", "2026-03-09T00:00:00Z")
    out = group(*story(), parcel, plain)
    assert [p["parcel_id"] for p in out] == ["ups:1Z999AA10123456784", "seven_eleven:F1234567890"]
    assert out[0]["expected_delivery"] == "2026-03-08" and out[0]["pickup"] is None


def test_open_and_agenda():
    waiting = story()[:2]
    coming = mail("u1", "2026-03-04T00:00:00Z", shipment("ups", "1Z999AA10123456784", "in_transit", expected="2026-03-12"))
    old = mail("d1", "2025-10-01T00:00:00Z", shipment("dhl", "9558000804", "in_transit"))
    done = mail("f1", "2026-03-03T00:00:00Z", shipment("fedex", "449044304137821", "delivered"))
    everything = [*waiting, coming, old, done]
    opened = group(*everything, args=("--open", "--now", "2026-03-06T00:00:00Z"))
    assert [p["parcel_id"] for p in opened] == ["seven_eleven:F1234567890", "ups:1Z999AA10123456784"]
    longer = group(*everything, args=("--open", "--within", "365", "--now", "2026-03-06T00:00:00Z"))
    assert "dhl:9558000804" in [p["parcel_id"] for p in longer]
    due = group(*everything, args=("--agenda", "2026-03-12"))
    assert [p["parcel_id"] for p in due] == ["seven_eleven:F1234567890", "ups:1Z999AA10123456784"]
    assert group(*everything, args=("--agenda", "2026-03-11")) == []


def test_bad_input_and_usage():
    r = run("parcel-group", input=b'{"id": "a", "date": "2026-03-01T00:00:00Z"}\n{broken\n')
    assert r.returncode == 1
    err = r.stderr.decode()
    assert "parcel-group: -:1: the record has no shipments (run carrier-detect first)" in err
    assert "parcel-group: -:2: " in err
    for bad in (["--within", "3"], ["--agenda", "someday"], ["--now", "2026-03-01"], ["--zone", "Mars/Base"]):
        u = run("parcel-group", *bad, input=b"")
        assert u.returncode == 64, bad


def test_the_sample_mailbox():
    data = run("mime-parse", "--no-progress", SAMPLE).stdout
    for stage in ["text-extract", "carrier-detect"]:
        data = run(stage, "--no-progress", input=data).stdout
    parcels = records(run("parcel-group", input=data).stdout)
    numbers = {s["tracking_number"].replace(" ", "").replace("-", "").upper()
               for m in records(data) for s in m["shipments"] if s["tracking_number"]}
    assert {p["tracking_number"] for p in parcels if p["tracking_number"]} == numbers and numbers


# -- the store: the same parcels, kept one message at a time

import random

import pytest

from conftest import as_schema_2, parcel_stories


def store_parcels(db, *args):
    r = run("mailstore", "parcels", *args, db)
    assert r.returncode == 0, r.stderr
    return records(r.stdout)


SHOP = {"m1", "m2"}  # the shop writes the first mails, 7-ELEVEN the rest: two conversations


def keyed(mails):
    """Records the store can key: the story's mails with a sender and a recipient."""
    out = []
    for m in mails:
        sender = {"name": "山海家居", "address": "orders@shop.example.tw"} if m["id"] in SHOP else \
            {"name": "7-ELEVEN", "address": "notice@7-11.example.tw"}
        m = dict(m, **{"from": sender,
                       "to": [{"name": None, "address": "mei@example.tw"}], "cc": [], "labels": []})
        m.pop("participant_hash", None)
        out.append(m)
    return out


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_the_store_in_any_order_equals_parcel_group(tmp_path, seed):
    late = mail("m5", "2026-03-09T00:00:00Z", shipment("seven_eleven", "F1234567890", "in_transit"))
    alone = mail("r1", "2026-03-06T00:00:00Z", shipment("family_mart", None, "available_for_pickup",
                                                         pickup={"store": "全家", "store_id": None, "code": "5511", "deadline": "2026-03-13"}))
    other = mail("n2", "2026-03-02T00:00:00Z", shipment("seven_eleven", "A0000000001", "in_transit",
                                                        pickup={"store": None, "store_id": None, "code": "8842", "deadline": None}))
    mails = keyed([*story(), late, alone, other])
    random.Random(seed).shuffle(mails)
    db = tmp_path / "mail.db"
    for m in mails:
        assert run("mailstore", "add", "-q", db, "--me", "mei@example.tw", input=json.dumps(m) + "\n").returncode == 0
    hashes = {m["id"]: json.loads(run("mailstore", "search", "--output", "conversations", db, f"id:{m['id']}").stdout)["conversation_id"]
              for m in mails}
    expected = group(*[dict(m, participant_hash=hashes[m["id"]]) for m in mails])
    assert store_parcels(db) == expected
    # the code both numbers carry goes with the first number
    assert [p["message_ids"] for p in expected if p["parcel_id"] == "seven_eleven:A0000000001"] == [["n2", "m3"]]
    for args in (["--open", "--now", "2026-03-10T00:00:00Z"], ["--agenda", "2026-03-13"]):
        assert store_parcels(db, *args) == group(*[dict(m, participant_hash=hashes[m["id"]]) for m in mails], args=args)


def test_the_generated_parcel_stories_in_shuffled_batches(tmp_path):
    data = parcel_stories(tmp_path, 600, 31, 0.4, me="meiling.chen@gmail.com")
    expected = run("parcel-group", input=data).stdout
    assert len(records(expected)) > 50
    lines = data.splitlines(keepends=True)
    random.Random(4).shuffle(lines)
    db = tmp_path / "mail.db"
    for k in range(0, len(lines), 100):
        assert run("mailstore", "add", "-q", db, "--me", "meiling.chen@gmail.com", input=b"".join(lines[k:k + 100])).returncode == 0
    assert run("mailstore", "parcels", db).stdout == expected
    # a store of the landed schema 2 gets its parcels when it is first opened
    as_schema_2(db)
    assert run("mailstore", "parcels", db).stdout == expected


def test_the_generated_stories_end_in_their_state(tmp_path):
    """../shared/gen's parcel stories (3,000 messages, seed 4601: not tuned on): each parcel's
    final state by when its statuses happened, and each with its carrier and exactly its story's
    mails. On seed 77 (tuned on since): 251 of 300 (83.7%) on 2026-11-25, 282 (94.0%) once plain
    nouns label a number and a carrier's "your item" does (2026-11-27). Seed 4601, issue 46
    (2026-11-28): main 266 of 287 (92.7%) final states, 251 (87.5%) with carrier and mails too;
    then 286 (99.7%) and 282 (98.3%), once words are read in their clause and a shop's later
    notice that names no carrier is known by its number (Tests/e2e/parcels_truth.py lists the
    misses)."""
    from parcels_truth import compare
    data = parcel_stories(tmp_path, 3000, 4601, 0.3)
    parcels = records(run("parcel-group", input=data).stdout)
    counts, misses = compare(json.loads((tmp_path / "p.truth.parcels.json").read_text()), parcels)
    assert counts["right"] >= 0.987 * counts["parcels"], (counts, misses[:10])
    assert counts["all right"] >= 0.973 * counts["parcels"], (counts, misses[:10])
    assert counts["split"] <= 0.02 * counts["parcels"], counts


# -- chat-render: the parcels page by status, cards with the parcel's latest status, Today

import re
import shutil


def site_text(site, name):
    return (site / name).read_text()


def render_files(tmp_path, mails, out, *args, with_parcels=True, now="2026-03-10T00:00:00Z"):
    lines = "".join(json.dumps(m) + "\n" for m in keyed(mails))
    keyed_lines = run("participant-hash", "--me", "mei@example.tw", input=lines).stdout
    (tmp_path / "m.jsonl").write_bytes(keyed_lines)
    (tmp_path / "c.jsonl").write_bytes(run("conversation-group", "--now", now, input=keyed_lines).stdout)
    (tmp_path / "p.jsonl").write_bytes(run("parcel-group", input=keyed_lines).stdout)
    extra = ["--parcels", tmp_path / "p.jsonl"] if with_parcels else []
    r = run("chat-render", "--conversations", tmp_path / "c.jsonl", *extra, "--out", out, "--zone", "Asia/Taipei",
            "--now", now, *args, tmp_path / "m.jsonl")
    assert r.returncode == 0, r.stderr
    return keyed_lines


def others():
    return [mail("u1", "2026-03-08T00:00:00Z", shipment("ups", "1Z999AA10123456784", "out_for_delivery", expected="2026-03-10")),
            mail("d1", "2025-10-01T00:00:00Z", shipment("dhl", "9558000804", "in_transit")),
            mail("f1", "2026-03-03T00:00:00Z", shipment("fedex", "449044304137821", "exception"))]


def test_the_parcels_page_groups_parcels_by_where_they_are(tmp_path):
    render_files(tmp_path, story()[:2] + others(), tmp_path / "site")
    page = site_text(tmp_path / "site", "parcels.html")
    headings = re.findall(r"<h2>([^<]+)</h2>", page)
    assert headings == ["Waiting for pickup", "On the way", "Returned or in trouble", "Earlier"]
    waiting = page.split("<h2>Waiting for pickup</h2>")[1].split("<h2>")[0]
    assert "F1234567890" in waiting and '<span class="code">8842</span>' in waiting and "Thu 12 Mar 2026" in waiting
    # the parcels without news for 60 days are on pages of their own, linked under "Earlier"
    assert 'href="parcels-earlier.html">1 parcel with no news for 60 days<' in page.split("<h2>Earlier</h2>")[1]
    assert "9558000804" not in page and "9558000804" in site_text(tmp_path / "site", "parcels-earlier.html")


def test_a_card_shows_its_parcels_latest_status(tmp_path):
    render_files(tmp_path, story(), tmp_path / "latest")
    render_files(tmp_path, story(), tmp_path / "own", with_parcels=False)
    latest = "".join(site_text(tmp_path / "latest", "c/" + p.name) for p in sorted((tmp_path / "latest" / "c").glob("*.html")))
    own = "".join(site_text(tmp_path / "own", "c/" + p.name) for p in sorted((tmp_path / "own" / "c").glob("*.html")))
    assert latest.count('<span class="parcel-status">Picked up</span>') == 4
    assert '<span class="parcel-status">On the way</span>' in own  # without --parcels, each mail's own
    # the parcels page is the same either way: gathered from the messages when not given
    assert site_text(tmp_path / "latest", "parcels.html") == site_text(tmp_path / "own", "parcels.html")


def test_a_card_is_of_the_parcel_its_shipment_is_in_from_files_and_from_the_store(tmp_path):
    # one mail tells of two parcels of one carrier: one by its number, one by the story's pickup
    # code alone (which parcel-group puts with the story's number)
    both = mail("mx", "2026-03-06T03:00:00Z", shipment("seven_eleven", "A0000000002", "in_transit"),
                shipment("seven_eleven", None, "available_for_pickup", pickup={"store": None, "store_id": None, "code": "8842",
                                                                               "deadline": None}))
    lines = render_files(tmp_path, story() + [both], tmp_path / "files")
    db = tmp_path / "mail.db"
    assert run("mailstore", "add", "-q", db, "--me", "mei@example.tw", input=lines).returncode == 0
    r = run("chat-render", "--store", db, "--out", tmp_path / "store", "--zone", "Asia/Taipei", "--now", "2026-03-10T00:00:00Z")
    assert r.returncode == 0, r.stderr
    for site in ("files", "store"):
        page = next(p.read_text() for p in (tmp_path / site / "c").glob("*.html") if 'data-message-id="mx"' in p.read_text())
        bubble = page.split('data-message-id="mx"')[1].split('<li class="message')[0]
        cards = re.findall(r'<span class="parcel-status">([^<]+)</span></p>\n<p class="card-title">([^<]+)</p>', bubble)
        assert cards == [("On the way", "A0000000002"), ("Picked up", "F1234567890")], site
    files = lambda d: {str(p.relative_to(d)): p.read_bytes() for p in sorted(d.rglob("*")) if p.is_file() and not p.name.startswith(".")}
    assert files(tmp_path / "files") == files(tmp_path / "store")


def test_today_shows_the_pickups_due_and_the_deliveries_expected(tmp_path):
    render_files(tmp_path, story()[:2] + others(), tmp_path / "site", now="2026-03-11T02:00:00Z")
    today = site_text(tmp_path / "site", "today.html")
    tomorrow = today.split("Tomorrow")[1]
    assert "F1234567890" in tomorrow and "8842" in tomorrow
    assert "1Z999AA10123456784" not in today  # expected yesterday
    assert 'aria-current="page">Today<' in today


@pytest.mark.parametrize("seed", [1, 2])
def test_the_stores_pages_follow_a_parcel_mail_by_mail(tmp_path, seed):
    """Each mail of a story delivered alone, in an order: after each, chat-render --store's pages
    are a whole render's (a card in an older mail shows the parcel's new status)."""
    mails = keyed(story() + others())
    random.Random(seed).shuffle(mails)
    db, site = tmp_path / "mail.db", tmp_path / "site"
    for k, m in enumerate(mails):
        assert run("mailstore", "add", "-q", db, "--me", "mei@example.tw", input=json.dumps(m) + "\n").returncode == 0
        for out in (site, tmp_path / "whole"):
            # a message to a page: a card on an older page shows the parcel's news too
            r = run("chat-render", "--store", db, "--out", out, "--zone", "Asia/Taipei", "--now", "2026-03-10T00:00:00Z",
                    "--messages-per-page", "1")
            assert r.returncode == 0, r.stderr
        files = lambda d: {str(p.relative_to(d)): p.read_bytes() for p in sorted(d.rglob("*")) if p.is_file() and not p.name.startswith(".")}
        assert files(site) == files(tmp_path / "whole"), k
        shutil.rmtree(tmp_path / "whole")


def test_the_stores_today_page_moves_with_the_day(tmp_path):
    db, site = tmp_path / "mail.db", tmp_path / "site"
    for m in keyed(story()[:2] + others()):
        assert run("mailstore", "add", "-q", db, "--me", "mei@example.tw", input=json.dumps(m) + "\n").returncode == 0
    for now in ["2026-03-10T02:00:00Z", "2026-03-11T02:00:00Z", "2026-03-11T09:00:00Z"]:
        for out in (site, tmp_path / "whole"):
            r = run("chat-render", "--store", db, "--out", out, "--zone", "Asia/Taipei", "--now", now)
            assert r.returncode == 0, r.stderr
        assert site_text(site, "today.html") == site_text(tmp_path / "whole", "today.html"), now
        shutil.rmtree(tmp_path / "whole")
    assert "F1234567890" in site_text(site, "today.html").split("Tomorrow")[1]


def test_the_earlier_parcels_pages_are_written_from_where_they_changed(tmp_path):
    """Nine parcels with no news for 60 days on pages of two, numbered from the oldest: news of a
    recent parcel writes none of them; news of an old one, a parcel of old news coming late and
    time passing write those from its place on, and the site is a whole render's each time."""
    def old(k, day):
        return mail(f"o{k}", f"2025-{day}T00:00:00Z", shipment("dhl", f"95580008{k:02d}", "in_transit"))
    mails = keyed([old(k, f"{k + 1:02d}-01") for k in range(9)] + story()[:2])
    db, site, whole = tmp_path / "mail.db", tmp_path / "site", tmp_path / "whole"
    files = lambda d: {str(p.relative_to(d)): p.read_bytes() for p in sorted(d.rglob("*")) if p.is_file() and not p.name.startswith(".")}

    def deliver(m, now):
        if m is not None:
            assert run("mailstore", "add", "-q", db, "--me", "mei@example.tw", input=json.dumps(m) + "\n").returncode == 0
        before = {p.name: p.stat().st_mtime_ns for p in site.glob("parcels-earlier*")}
        for out in (site, whole):
            r = run("chat-render", "--store", db, "--out", out, "--zone", "Asia/Taipei", "--now", now, "--list-page-size", "2")
            assert r.returncode == 0, r.stderr
        assert files(site) == files(whole), m
        shutil.rmtree(whole)
        return sorted(name for name, t in before.items() if (site / name).stat().st_mtime_ns != t)

    for m in mails:
        deliver(m, "2026-03-10T00:00:00Z")
    assert sorted(p.name for p in site.glob("parcels-earlier*")) == [
        "parcels-earlier.html", "parcels-earlier.p1.html", "parcels-earlier.p2.html", "parcels-earlier.p3.html"]
    assert "9558000800" in site_text(site, "parcels-earlier.p1.html")  # the oldest
    # news of the recent parcel: the recent page only
    assert deliver(keyed(story()[2:3])[0], "2026-03-10T00:00:00Z") == []
    # an old parcel's news: it leaves the earlier pages from its place, the third oldest, on
    news = keyed([mail("n2", "2026-03-09T00:00:00Z", shipment("dhl", "9558000802", "out_for_delivery"))])[0]
    assert deliver(news, "2026-03-10T00:00:00Z") == ["parcels-earlier.html", "parcels-earlier.p2.html", "parcels-earlier.p3.html"]
    # the mail of an old parcel, late: the earlier pages from its place on
    late = keyed([old(20, "04-15")])[0]
    assert deliver(late, "2026-03-10T00:00:00Z") == ["parcels-earlier.html", "parcels-earlier.p2.html", "parcels-earlier.p3.html"]
    # time passing: the recent parcels join the earlier ones at their newest end
    assert deliver(None, "2026-06-01T00:00:00Z") != []
    assert "9558000802" in site_text(site, "parcels-earlier.html")
