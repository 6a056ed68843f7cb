"""mime-parse's report, is_draft, date and date_source against the truth of a mailbox made by
../shared/gen/gen_mbox.py --reports-rate: how many of each it gets right, and the misses.

    python3 Tests/e2e/reports_truth.py RECORDS.jsonl TRUTH.jsonl

(RECORDS.jsonl is mime-parse's output for the generated mbox, in its order.)"""
import collections
import json
import sys


def compare(records, truth):
    """(counts, misses): counts[kind] = [right, total] for reports, not-reports, drafts,
    not-drafts, replaced dates and kept dates; misses as (n, kind, what was written)."""
    assert len(records) == len(truth), (len(records), len(truth))
    counts = collections.defaultdict(lambda: [0, 0])
    misses = []

    def count(kind, right, n, got):
        counts[kind][0] += right
        counts[kind][1] += 1
        if not right:
            misses.append((n, kind, got))

    for rec, t in zip(records, truth):
        want, got = t["report"], rec["report"]
        if want is None:
            count("not a report", got is None, t["n"], got)
        else:
            right = got is not None and got["type"] == want["type"] \
                and got["original_message_id"] == want["original_message_id"] \
                and sorted(r["address"].lower() for r in got["recipients"]) == sorted(a.lower() for a in want["recipients"])
            count(f"report {t.get('report_kind')}/{t.get('report_style')}", right, t["n"], got)
        count("draft" if t["is_draft"] else "not a draft", rec["is_draft"] == t["is_draft"], t["n"], rec["is_draft"])
        kind = "date replaced" if t["date_source"] != "date" else "date kept"
        count(kind, (rec["date"], rec["date_source"]) == (t["date_truth"], t["date_source"]), t["n"],
              (rec["date"], rec["date_source"]))
    return counts, misses


def main(records_path, truth_path):
    with open(records_path) as f:
        records = [json.loads(line) for line in f]
    with open(truth_path) as f:
        truth = [json.loads(line) for line in f]
    counts, misses = compare(records, truth)
    for kind in sorted(counts):
        right, total = counts[kind]
        print(f"{kind:28} {right:5} of {total:5} right")
    for n, kind, got in misses[:20]:
        print(f"miss: message {n} ({kind}): {json.dumps(got)[:200]}")
    return 1 if misses else 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:3]))
