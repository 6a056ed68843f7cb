"""Differential test against Python's email package (policy=default) over ../shared/corpus:
from, to, cc, subject, date, message-id and decoded text. Every disagreement must be listed in
differential-known.tsv with its reason, and every listed one must still disagree."""
import pathlib

import pytest

import differential

pytestmark = pytest.mark.shared("corpus")
KNOWN = pathlib.Path(__file__).with_name("differential-known.tsv")


def known():
    entries = {}
    for line in KNOWN.read_text().splitlines():
        if line.startswith("#") or not line.strip():
            continue
        path, field, reason = line.split("\t")
        assert reason.startswith(("ours right", "both", "bug")), line
        entries[(path, field)] = reason
    return entries


def test_every_disagreement_is_explained():
    total, diffs = differential.compare()
    found = {(path, field) for path, field, _, _ in diffs}
    listed = known()
    unexplained = sorted(found - set(listed))
    assert not unexplained, "new disagreements with Python's email, explain or fix:\n" + "\n".join(
        f"{p}\t{f}\tours={o!r:.120} python={t!r:.120}" for p, f, o, t in diffs if (p, f) in unexplained)
    stale = sorted(set(listed) - found)
    assert not stale, f"listed but no longer disagreeing, remove from {KNOWN.name}: {stale}"


def test_agreement_rate():
    total, diffs = differential.compare()
    disagreeing = {path for path, *_ in diffs}
    agreement = (total - len(disagreeing)) / total
    print(f"agreement with Python's email on {total} messages: {agreement:.1%}")
    assert total > 550
    assert agreement >= 0.93  # a regression floor: every disagreement is explained above
