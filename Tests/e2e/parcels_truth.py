"""parcel-group's parcels against the truth of a mailbox made by ../shared/gen/gen_mbox.py
--parcel-stories-rate: how many parcels end in the right state, how many story mails are in no
parcel, how many parcels are split, and the misses.

    python3 Tests/e2e/parcels_truth.py TRUTH.parcels.json PARCELS.jsonl

(PARCELS.jsonl is parcel-group's output on the mailbox through mime-parse | text-extract |
carrier-detect.)

A parcel is "right" when it ends in the truth's status; "all right" when, besides, its carrier is
the truth's and it holds exactly the story's mails. The generator's truth knows a parcel held
for customs as `exception` (it was written before issue 46's `customs_hold`, AfterShip's
exception sub-status), so customs_hold counts as exception against it."""
import collections
import json
import sys

# the generator's carrier names -> carrier-detect's ids (Japan Post's S10 items are UPU S10's)
CARRIERS = {"7-ELEVEN": {"seven_eleven"}, "Shopee": {"shopee_spx"}, "FamilyMart": {"family_mart"}, "T-Cat": {"tcat"},
            "Chunghwa Post": {"chunghwa_post"}, "HCT": {"hct"}, "Hi-Life": {"hilife"}, "UPS": {"ups"}, "USPS": {"usps"},
            "SF Express": {"sf_express"}, "Amazon": {"amazon"}, "OK Mart": {"ok_mart"}, "DHL": {"dhl"},
            "Japan Post": {"s10", "japan_post"}, "FedEx": {"fedex"}}


def same_status(ours, truth):
    return ours == truth or (ours == "customs_hold" and truth == "exception")


def compare(truth, parcels):
    """counts: parcels, final states right, story mails, mails in no parcel, parcels split; and
    the misses as (what, carrier, number, truth's status, ours)."""
    where = collections.defaultdict(list)
    for p in parcels:
        for m in p["message_ids"]:
            where[m].append(p)
    counts = collections.Counter(parcels=len(truth))
    misses = []
    for t in truth:
        counts["mails"] += len(t["message_ids"])
        counts["mails in no parcel"] += sum(1 for m in t["message_ids"] if m not in where)
        found = {p["parcel_id"]: p for m in t["message_ids"] for p in where.get(m, [])}
        if len(found) > 1:
            counts["split"] += 1
        if not found:
            misses.append(("not found", t["carrier"], t["tracking_number"], t["status"], None))
            continue
        best = max(found.values(), key=lambda p: len(set(p["message_ids"]) & set(t["message_ids"])))
        if same_status(best["status"], t["status"]):
            counts["right"] += 1
            carrier_ok = best["carrier"] in CARRIERS.get(t["carrier"], {t["carrier"]})
            mails_ok = set(best["message_ids"]) == set(t["message_ids"])
            if carrier_ok and mails_ok:
                counts["all right"] += 1
            else:
                misses.append(("carrier" if not carrier_ok else "mails", t["carrier"], t["tracking_number"], t["status"],
                               best["carrier"] if not carrier_ok else sorted(set(best["message_ids"]) ^ set(t["message_ids"]))))
        else:
            misses.append(("status", t["carrier"], t["tracking_number"], t["status"], best["status"]))
    return counts, misses


def main(truth_path, parcels_path):
    with open(truth_path) as f:
        truth = json.load(f)
    with open(parcels_path) as f:
        parcels = [json.loads(line) for line in f]
    counts, misses = compare(truth, parcels)
    print(f"final state right: {counts['right']} of {counts['parcels']} ({counts['right'] / counts['parcels']:.1%}); "
          f"story mails in no parcel: {counts['mails in no parcel']} of {counts['mails']}; parcels split: {counts['split']}")
    print(f"right carrier, final state and mails: {counts['all right']} of {counts['parcels']} "
          f"({counts['all right'] / counts['parcels']:.1%})")
    for m in misses[:40]:
        print("miss:", *m)
    return 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:3]))
