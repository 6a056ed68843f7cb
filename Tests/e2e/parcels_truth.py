"""parcel-group's parcels against the truth of a mailbox made by ../shared/gen/gen_mbox.py
--parcel-stories-rate: how many parcels end in the right state, how many story mails are in no
parcel, how many parcels are split, and the misses.

    python3 Tests/e2e/parcels_truth.py TRUTH.parcels.json PARCELS.jsonl

(PARCELS.jsonl is parcel-group's output on the mailbox through mime-parse | text-extract |
carrier-detect.)"""
import collections
import json
import sys


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
        if best["status"] == t["status"]:
            counts["right"] += 1
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
    for m in misses[:20]:
        print("miss:", *m)
    return 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:3]))
