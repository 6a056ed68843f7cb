#!/usr/bin/env python3
"""Issue 47's change of participant-hash's default (Gmail's dots, +tags and googlemail.com
folded): which conversations merge. Keys the same records with two builds' participant-hash
(--me-auto, else the --me given) and lists every conversation of the second that holds messages
of more than one conversation of the first (participants before -> after), and any conversation
of the first split across several of the second.

    bench/gmail-canonical.py --before /work/main/.build/release --after .build/release RECORDS.jsonl

RECORDS: the stages' records (`mailstore stages`), as participant-hash reads them. With
--same-build, both sides run the --after build, the first with --no-gmail-canonical."""
import argparse
import collections
import json
import pathlib
import re
import subprocess
import sys


def keyed(binary, records, who, extra=()):
    r = subprocess.run([str(binary / "participant-hash"), "--no-progress", *who, *extra, str(records)],
                       capture_output=True, check=True)
    me = re.search(rb"--me-auto: you are (.*)", r.stderr)
    keys = [(rec["participant_hash"], tuple(rec["participants"])) for rec in map(json.loads, r.stdout.splitlines())]
    return keys, (me.group(1).decode() if me else " ".join(who))


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--before", type=pathlib.Path, required=True)
    p.add_argument("--after", type=pathlib.Path, required=True)
    p.add_argument("--same-build", action="store_true")
    p.add_argument("--me", action="append", default=[])
    p.add_argument("--list-renamed", action="store_true", help="also list the conversations whose participants are only spelled anew")
    p.add_argument("records", type=pathlib.Path)
    a = p.parse_args()
    who = [x for m in a.me for x in ("--me", m)] or ["--me-auto"]
    before, me_before = keyed(a.before, a.records, who, ["--no-gmail-canonical"] if a.same_build else [])
    after, me_after = keyed(a.after, a.records, who)
    assert len(before) == len(after)
    merged = collections.defaultdict(set)   # after hash -> before (hash, participants)
    split = collections.defaultdict(set)    # before hash -> after hashes
    names = {}
    for (h_before, p_before), (h_after, p_after) in zip(before, after):
        merged[h_after].add((h_before, p_before))
        split[h_before].add(h_after)
        names[h_after] = p_after
    merges = {h: sorted(b, key=lambda x: x[1]) for h, b in merged.items() if len(b) > 1}
    splits = {h: s for h, s in split.items() if len(s) > 1}
    renamed = {h: next(iter(b))[1] for h, b in merged.items() if len(b) == 1 and next(iter(b))[1] != names[h]}
    print(f"records: {a.records}  ({len(after)})")
    print(f"me before: {me_before}")
    print(f"me after:  {me_after}")
    print(f"conversations before: {len(split)}  after: {len(merged)}  "
          f"merged: {len(merges)} (of {sum(len(b) for b in merges.values())} before)  split: {len(splits)}  "
          f"same messages, participants spelled anew: {len(renamed)}")
    for h, b in sorted(merges.items(), key=lambda x: names[x[0]]):
        print(f"  {' | '.join(','.join(p) for _, p in b)}  ->  {','.join(names[h])}")
    for h, s in splits.items():
        print(f"  split: {h} -> {sorted(s)}")
    if a.list_renamed:
        for h, b in sorted(renamed.items(), key=lambda x: names[x[0]]):
            print(f"  spelled anew: {','.join(b)}  ->  {','.join(names[h])}")


if __name__ == "__main__":
    sys.exit(main())
