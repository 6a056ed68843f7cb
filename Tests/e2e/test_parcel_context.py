"""carrier-detect on the issue-46 development cases (data/parcel-context): status words read in
context (a return warning in a pickup reminder, a redelivery booked, an out-for-delivery notice
that says what happens if nobody is home, an address problem, a shop's "shipped", a same-day
delivery on its way, a parcel delivered to a store or locker), customs and duty notices
(customs_hold), and the cross-border carriers (cainiao, yanwen, taiwan_express) with look-alikes.
Every case must be right except those listed in data/parcel-context/MISSES.md.

    python3 Tests/e2e/test_parcel_context.py [BIN_DIR]
prints each case's verdict."""
import json
import pathlib
import subprocess
import sys

HERE = pathlib.Path(__file__).resolve().parent
DATA = HERE / "data" / "parcel-context"


def verdicts(bin_dir):
    """{case: (right, what came out, what was wanted)}."""
    cases = json.loads((DATA / "truth.json").read_text())["cases"]
    parsed = subprocess.run([str(bin_dir / "mime-parse"), "--no-progress", *(str(DATA / c["file"]) for c in cases)],
                            capture_output=True, check=True).stdout
    out = subprocess.run([str(bin_dir / "carrier-detect"), "--no-progress"], input=parsed, capture_output=True, check=True).stdout
    records = [json.loads(line) for line in out.decode().splitlines() if line.strip()]
    assert len(records) == len(cases)
    result = {}
    for c, r in zip(cases, records):
        ships = r.get("shipments") or []
        want = (c["carrier"], c["tracking_number"], c["status"])
        if c["tracking_number"] is None:
            got = [(s["carrier"], s["tracking_number"], s["status"]) for s in ships]
            result[c["file"].removesuffix(".eml")] = (not ships, got, None)
            continue
        same = [s for s in ships if (s.get("tracking_number") or "").replace("-", "") == c["tracking_number"]]
        got = (same[0]["carrier"], same[0]["tracking_number"], same[0]["status"]) if same else \
            [(s["carrier"], s["tracking_number"], s["status"]) for s in ships]
        result[c["file"].removesuffix(".eml")] = (got == want, got, want)
    return result


def listed_misses():
    """The cases MISSES.md lists (lines of its Misses section that start with '- `case`')."""
    path = DATA / "MISSES.md"
    if not path.exists():
        return set()
    section = path.read_text().split("\n## Misses\n")[1].split("\n## ")[0]
    return {line.split("`")[1] for line in section.splitlines() if line.startswith("- `")}


def test_development_cases():
    sys.path.insert(0, str(HERE))
    from conftest import BIN
    result = verdicts(BIN)
    misses = {case for case, (ok, _, _) in result.items() if not ok}
    assert misses == listed_misses(), {c: result.get(c) for c in misses ^ listed_misses()}


def test_every_class_has_five_cases_and_look_alikes():
    cases = json.loads((DATA / "truth.json").read_text())["cases"]
    classes = {}
    for c in cases:
        classes.setdefault(c["class"], []).append(c)
    assert {k: len(v) >= 5 for k, v in classes.items()} == {"status_in_context": True, "customs": True, "cross_border": True}
    assert sum(c["carrier"] is None for c in classes["cross_border"]) >= 3
    assert {c["status"] for c in classes["customs"]} >= {"customs_hold", "in_transit", "delivered"}


if __name__ == "__main__":
    bin_dir = pathlib.Path(sys.argv[1]) if len(sys.argv) > 1 else HERE.parents[1] / ".build" / "release"
    result = verdicts(bin_dir)
    for case, (ok, got, want) in result.items():
        print("ok  " if ok else "MISS", case, got if not ok else "", "wanted" if not ok else "", want if not ok else "")
    by_class = {}
    for c in json.loads((DATA / "truth.json").read_text())["cases"]:
        ok = result[c["file"].removesuffix(".eml")][0]
        r, n = by_class.get(c["class"], (0, 0))
        by_class[c["class"]] = (r + ok, n + 1)
    print(", ".join(f"{k}: {r} of {n}" for k, (r, n) in by_class.items()),
          f"; all: {sum(ok for ok, _, _ in result.values())} of {len(result)}")
