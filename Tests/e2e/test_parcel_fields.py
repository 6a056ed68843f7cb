"""The facts issue 46 asks of a parcel notice beyond its number and status (carrier-detect's
`pickup.store` and `pickup.address`, `customs`, `cash_on_delivery`, `order_number`, `shop`),
on development cases from invented senders (data/parcel-fields: truth.json says what each
should give; the look-alikes, whose fields must stay null, are the `*-not-*` cases), and their
way onto the parcel through parcel-group and the store, and into chat-render's card.

    python3 Tests/e2e/test_parcel_fields.py
prints the score and each miss.
"""
import json
import pathlib
import subprocess
import sys

HERE = pathlib.Path(__file__).resolve().parent
DATA = HERE / "data" / "parcel-fields"
BIN = HERE.parents[1] / ".build" / "release"
FIELDS = ["store", "address", "customs", "cash_on_delivery", "order_number", "shop"]


def truth():
    return json.loads((DATA / "truth.json").read_text())


def detected():
    """file name -> carrier-detect's record of it."""
    cases = truth()
    files = [str(DATA / c["file"]) for c in cases]
    parsed = subprocess.run([str(BIN / "mime-parse"), "--no-progress", *files], capture_output=True, check=True).stdout
    text = subprocess.run([str(BIN / "text-extract"), "--no-progress"], input=parsed, capture_output=True, check=True).stdout
    out = subprocess.run([str(BIN / "carrier-detect"), "--no-progress"], input=text, capture_output=True, check=True).stdout
    records = [json.loads(line) for line in out.decode().splitlines() if line.strip()]
    assert len(records) == len(cases)
    return {c["file"]: r for c, r in zip(cases, records)}


def given(shipment):
    """The fields as a shipment (or a parcel) gives them."""
    pickup = shipment.get("pickup") or {}
    return {"store": pickup.get("store"), "address": pickup.get("address"), "customs": shipment.get("customs"),
            "cash_on_delivery": shipment.get("cash_on_delivery"), "order_number": shipment.get("order_number"),
            "shop": shipment.get("shop")}


def score():
    """{file: (right, given, wanted)}: a case is right when it has a shipment and every field is."""
    got = detected()
    verdicts = {}
    for c in truth():
        ships = got[c["file"]].get("shipments") or []
        want = {f: c[f] for f in FIELDS}
        have = given(ships[0]) if ships else None
        verdicts[c["file"]] = (have == want, have, want)
    return verdicts


# Cases a change may still miss, with why (none today).
MISSES = {}


def test_development_cases():
    verdicts = score()
    misses = {f for f, (ok, _, _) in verdicts.items() if not ok}
    assert misses == set(MISSES), {f: verdicts[f] for f in misses ^ set(MISSES)}


def test_every_shipment_has_the_new_members():
    got = detected()
    ships = [s for r in got.values() for s in r["shipments"]]
    assert ships and all({"customs", "cash_on_delivery", "order_number", "shop"} <= s.keys() for s in ships)
    assert all("address" in s["pickup"] for s in ships if s.get("pickup"))
    for s in ships:
        for money in (s["customs"], s["cash_on_delivery"]):
            if money and money.get("amount") is not None:
                assert isinstance(money["amount"], (int, float)) and len(money["currency"]) == 3


def stream():
    """The cases through carrier-detect and participant-hash, as bytes."""
    files = [str(DATA / c["file"]) for c in truth()]
    data = subprocess.run([str(BIN / "mime-parse"), "--no-progress", *files], capture_output=True, check=True).stdout
    for tool in (["text-extract"], ["carrier-detect"], ["participant-hash", "--me", "jennyhughes.tw@example.net"]):
        data = subprocess.run([str(BIN / tool[0]), "--no-progress", *tool[1:]], input=data, capture_output=True, check=True).stdout
    return data


def grouped(data):
    out = subprocess.run([str(BIN / "parcel-group"), "--no-progress"], input=data, capture_output=True, check=True).stdout
    return [json.loads(line) for line in out.decode().splitlines()]


def test_parcel_group_carries_the_fields():
    got = detected()
    by_message = {p["message_ids"][-1]: p for p in grouped(stream())}
    carried = 0
    for c in truth():
        rec = got[c["file"]]
        if not rec["shipments"]:
            continue
        p = by_message[rec["id"]]
        assert {"customs", "cash_on_delivery", "order_number", "shop", "forwarded_from"} <= p.keys()
        assert given(p) == given(rec["shipments"][0]), c["file"]
        carried += any(given(p).values())
    assert carried >= 15


def stored(tmp_path):
    """The cases in a mailstore database: its path."""
    (tmp_path / "m.jsonl").write_bytes(stream())
    db = tmp_path / "mail.db"
    r = subprocess.run([str(BIN / "mailstore"), "add", "-q", "--me", "jennyhughes.tw@example.net", str(db), str(tmp_path / "m.jsonl")],
                       capture_output=True)
    assert r.returncode == 0, r.stderr
    return db


def test_the_store_gives_what_parcel_group_gives(tmp_path):
    db = stored(tmp_path)
    out = subprocess.run([str(BIN / "mailstore"), "parcels", str(db)], capture_output=True, check=True).stdout
    from_store = {p["parcel_id"]: given(p) for p in map(json.loads, out.decode().splitlines())}
    from_group = {p["parcel_id"]: given(p) for p in grouped(stream())}
    assert from_store == from_group
    assert any(p["cash_on_delivery"] for p in from_store.values()) and any(p["customs"] for p in from_store.values())


def test_chat_render_shows_them(tmp_path):
    db = stored(tmp_path)
    site = tmp_path / "site"
    r = subprocess.run([str(BIN / "chat-render"), "--store", str(db), "--out", str(site), "--zone", "Asia/Taipei"], capture_output=True)
    assert r.returncode == 0, r.stderr
    page = "".join(p.read_text() for p in site.glob("parcels*.html"))
    for text in ["7-ELEVEN 福美門市", "新北市中和區福美路88號", "綠野生活館", "GY20260315001", "1,280", "350", "30 Mar 2026"]:
        assert text in page, text


if __name__ == "__main__":
    verdicts = score()
    right = sum(ok for ok, _, _ in verdicts.values())
    print(f"{right} of {len(verdicts)} cases right")
    for f, (ok, have, want) in verdicts.items():
        if not ok:
            print(f"  {f}: gave {have}, wanted {want}", file=sys.stdout)
