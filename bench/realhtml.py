"""What bench/html-sanitize.py and bench/text-extract.py share: the real HTML mail we have,
and timing a run."""
import json
import pathlib
import subprocess
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"
BIN = ROOT / ".build" / "release"
NOT_MAIL = {".json", ".xml", ".html", ".pdf", ".jpg", ".tnef", ".list", ".dat"}


def newsletters():
    """The paths of the real newsletters of ../shared/vectors/html2text/, in name order."""
    return sorted((SHARED / "vectors" / "html2text").glob("*.html"))


def newsletter_count():
    return len(newsletters())


def html_documents():
    """The newsletters of ../shared/vectors/html2text/, then every HTML body of ../shared/corpus/."""
    docs = [p.read_text(errors="replace") for p in newsletters()]
    files = sorted(str(p) for p in (SHARED / "corpus").rglob("*") if p.is_file() and p.suffix not in NOT_MAIL)
    parsed = subprocess.run([str(BIN / "mime-parse"), "--no-progress", *files], capture_output=True)
    docs += [r["html"] for r in map(json.loads, parsed.stdout.splitlines()) if r.get("html")]
    return docs


def best_of(runs, fn):
    """The shortest of `runs` timings of fn(), in seconds."""
    best = None
    for _ in range(runs):
        t0 = time.perf_counter()
        fn()
        t = time.perf_counter() - t0
        best = t if best is None else min(best, t)
    return best
