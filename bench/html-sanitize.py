"""html-sanitize against nh3 (ammonia, Rust, through Python) and bleach on the same HTML, in
one run: MB/s of HTML and the ratio, per source and per document, so that no mix hides a kind
of mail. The sources: the 18 real newsletters of ../shared/vectors/html2text, the HTML bodies
of ../shared/corpus (mostly replies), and the two together (the mix), each repeated to about
SIZE MB; then each newsletter alone, repeated to about DOC_MB MB (`--all-documents`: each
corpus body too). html-sanitize runs as in the pipeline (JSON Lines in and out, so its time
includes starting and reading and writing the records); nh3 and bleach are called in-process
on the strings, which spares them any I/O. nh3 runs twice: with its defaults (which drop every
style attribute, so it parses no CSS at all), and with a mail policy like ours (tables, font,
style attributes filtered by property). Each figure is the best of RUNS, in CPU seconds (user and
system: html-sanitize's from its process, nh3's and bleach's from this one's), which a busy
machine disturbs far less than wall time (`--wall`: wall time instead); with `--also DIR`
(another build's .build/release) that build's html-sanitize is timed in turns with this one's,
for a comparison in one run on a busy machine. Target: html-sanitize 1.5x nh3 per MB.
    .venv/bin/python bench/html-sanitize.py [SIZE_MB] [--doc-mb MB] [--runs N] [--also DIR]
                                            [--all-documents] [--no-bleach] [--no-documents] [--wall]
    (defaults: SIZE_MB 50, --doc-mb 2, --runs 5)"""
import argparse
import json
import pathlib
import resource
import subprocess
import time

import bleach
import nh3

from realhtml import BIN, ROOT, html_documents, newsletter_count
from realhtml import newsletters as realhtml_newsletters


# nh3 told to keep what mail needs, as html-sanitize does (its CSS property list abridged)
MAIL_ATTRIBUTES = {"*": {"align", "valign", "bgcolor", "border", "cellpadding", "cellspacing", "class", "color",
                         "dir", "face", "height", "id", "lang", "size", "style", "title", "width", "colspan",
                         "rowspan", "nowrap", "alt"},
                   "a": {"href", "name"}, "img": {"src"}}
MAIL_STYLE = {"background", "background-color", "border", "border-bottom", "border-collapse", "border-left",
              "border-radius", "border-right", "border-top", "color", "display", "font", "font-family",
              "font-size", "font-style", "font-weight", "height", "letter-spacing", "line-height", "margin",
              "margin-bottom", "margin-left", "margin-right", "margin-top", "max-width", "min-width", "padding",
              "padding-bottom", "padding-left", "padding-right", "padding-top", "text-align", "text-decoration",
              "text-transform", "vertical-align", "width", "word-break", "mso-line-height-rule", "mso-hide"}


def nh3_mail(html):
    return nh3.clean(html, tags=nh3.ALLOWED_TAGS | {"font"}, attributes=MAIL_ATTRIBUTES,
                     clean_content_tags={"script", "style", "title"},
                     url_schemes={"http", "https", "mailto", "tel", "cid"}, filter_style_properties=MAIL_STYLE)


WALL = False  # --wall


def cpu_seconds():
    """User and system CPU seconds of this process and of its children that have ended (not
    os.times(), which counts in clock ticks: 10 ms, a third of a 2 MB document's run)."""
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + children.ru_utime + children.ru_stime


def timings(runs, named):
    """The shortest of `runs` timings of each (name, fn), taken in turns: CPU seconds, or
    wall seconds with --wall."""
    clock = time.perf_counter if WALL else cpu_seconds
    best = {}
    for _ in range(runs):
        for name, fn in named:
            t0 = clock()
            fn()
            t = clock() - t0
            best[name] = min(best.get(name, t), t)
    return best


class Bench:
    def __init__(self, args):
        self.args = args
        self.builds = [("html-sanitize", BIN / "html-sanitize")]
        if args.also:
            self.builds.append(("  --also build", pathlib.Path(args.also) / "html-sanitize"))
        (ROOT / ".bench-data").mkdir(exist_ok=True)
        self.path = ROOT / ".bench-data" / "html-sanitize.jsonl"

    def measure(self, base, size_mb, with_bleach=False):
        """(MB, documents, {tool: seconds}) for `base` repeated to about size_mb."""
        base_bytes = sum(len(d.encode()) for d in base)
        copies = max(1, int(size_mb * 1e6 / base_bytes))
        docs = base * copies
        # as mime-parse writes them: UTF-8, not \u escapes
        self.path.write_bytes("".join(json.dumps({"id": str(i), "html": d}, ensure_ascii=False) + "\n"
                                      for i, d in enumerate(docs)).encode())

        def ours(binary):
            return lambda: subprocess.run([str(binary), "--no-progress", str(self.path)], stdout=subprocess.DEVNULL, check=True)

        named = [(name, ours(binary)) for name, binary in self.builds]
        named += [("nh3 mail policy", lambda: [nh3_mail(d) for d in docs]), ("nh3 defaults", lambda: [nh3.clean(d) for d in docs])]
        t = timings(self.args.runs, named)
        mb = base_bytes * copies / 1e6
        if with_bleach:
            few = docs[: max(1, len(docs) // 10)]  # bleach is slow: a tenth, scaled
            few_mb = sum(len(d.encode()) for d in few) / 1e6
            t["bleach"] = timings(1, [("bleach", lambda: [bleach.clean(d) for d in few])])["bleach"] * mb / few_mb
        return mb, len(docs), t

    def ratios(self, t):
        return [(name, t["nh3 mail policy"] / t[name], t["nh3 defaults"] / t[name]) for name, _ in self.builds]


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("size_mb", nargs="?", type=float, default=50)
    parser.add_argument("--doc-mb", type=float, default=2)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--also", metavar="DIR")
    parser.add_argument("--all-documents", action="store_true")
    parser.add_argument("--no-bleach", action="store_true")
    parser.add_argument("--no-documents", action="store_true")
    parser.add_argument("--wall", action="store_true", help="time in wall seconds, not CPU seconds")
    args = parser.parse_args()
    global WALL
    WALL = args.wall
    bench = Bench(args)
    base = html_documents()
    newsletters, bodies = base[:newsletter_count()], base[newsletter_count():]

    clock = "wall seconds" if args.wall else "CPU seconds (user + system)"
    print(f"html-sanitize benchmark: per source, about {args.size_mb:g} MB each, best of {args.runs}, in {clock}")
    print(f"{'source':<13}{'docs':>7}{'MB':>6}  {'tool':<16}{'seconds':>9}{'MB/s':>8}{'docs/s':>9}")
    summary = []
    for source, docs in [("newsletters", newsletters), ("corpus bodies", bodies), ("mix", base)]:
        with_bleach = source == "mix" and not args.no_bleach
        mb, n, t = bench.measure(docs, args.size_mb, with_bleach)
        for i, (name, seconds) in enumerate(t.items()):
            label = f"{source:<13}{n:>7}{mb:>6.1f}" if i == 0 else " " * 26
            print(f"{label}  {name:<16}{seconds:>9.3f}{mb / seconds:>8.1f}{n / seconds:>9.0f}")
        summary.append((source, bench.ratios(t), t))
    print()
    print("html-sanitize / nh3, per MB (target 1.5x)")
    print(f"{'source':<15}{'build':<16}{'mail policy':>12}{'defaults':>10}")
    for source, ratios, t in summary:
        for name, mail, defaults in ratios:
            print(f"{source:<15}{name.strip():<16}{mail:>11.2f}x{defaults:>9.2f}x")
    mix_t = summary[-1][2]
    if "bleach" in mix_t:
        print(f"html-sanitize / bleach (mix): {mix_t['bleach'] / mix_t['html-sanitize']:.1f}x")
    if args.no_documents:
        return

    names = [p.name for p in realhtml_newsletters()]
    per_document = list(zip(names, newsletters))
    if args.all_documents:
        per_document += [(f"corpus body {i}", d) for i, d in enumerate(bodies)]
    print()
    print(f"per document, each repeated to about {args.doc_mb:g} MB: html-sanitize / nh3 (mail policy, defaults)")
    for name, doc in per_document:
        _, _, t = bench.measure([doc], args.doc_mb)
        cells = "   ".join(f"{build.strip()} {mail:.2f}x {defaults:.2f}x" for build, mail, defaults in bench.ratios(t))
        print(f"{name:<40}{len(doc.encode()):>8} B   {cells}")


if __name__ == "__main__":
    main()
