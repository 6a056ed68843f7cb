"""html-sanitize against nh3 (ammonia, Rust, through Python) and bleach on the same HTML, in
one run: MB/s of HTML and the ratio. The HTML is every real HTML mail we have (the newsletters
of ../shared/vectors/html2text and the HTML bodies of ../shared/corpus), repeated to about
SIZE MB. html-sanitize runs as in the pipeline (JSON Lines in and out, so its time includes
reading and writing the records); nh3 and bleach are called in-process on the strings, which
spares them any I/O. nh3 runs twice: with its defaults (which drop every style attribute, so
it parses no CSS at all), and with a mail policy like ours (tables, font, style attributes
filtered by property). Target: html-sanitize faster than nh3 per MB.
    .venv/bin/python bench/html-sanitize.py [SIZE_MB]   (default 50)"""
import json
import subprocess
import sys

import bleach
import nh3

from realhtml import BIN, ROOT, best_of, html_documents


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


def main():
    size_mb = float(sys.argv[1]) if len(sys.argv) > 1 else 50
    base = html_documents()
    base_bytes = sum(len(d.encode()) for d in base)
    copies = max(1, int(size_mb * 1e6 / base_bytes))
    docs = base * copies
    mb = base_bytes * copies / 1e6
    # as mime-parse writes them: UTF-8, not \u escapes
    lines = "".join(json.dumps({"id": str(i), "html": d}, ensure_ascii=False) + "\n" for i, d in enumerate(docs)).encode()
    (ROOT / ".bench-data").mkdir(exist_ok=True)
    path = ROOT / ".bench-data" / "html-sanitize.jsonl"
    path.write_bytes(lines)

    def ours():
        subprocess.run([str(BIN / "html-sanitize"), "--no-progress", str(path)], stdout=subprocess.DEVNULL, check=True)

    ours_t = best_of(5, ours)
    nh3_t = best_of(5, lambda: [nh3.clean(d) for d in docs])
    nh3_mail_t = best_of(5, lambda: [nh3_mail(d) for d in docs])
    few = docs[: max(1, len(docs) // 10)]  # bleach is slow: a tenth, scaled
    few_mb = sum(len(d.encode()) for d in few) / 1e6
    bleach_t = best_of(1, lambda: [bleach.clean(d) for d in few]) * mb / few_mb
    print(f"html-sanitize benchmark: {len(docs)} documents ({len(base)} distinct), {mb:.1f} MB of HTML")
    print(f"{'tool':<16}{'seconds':>9}{'MB/s':>9}{'docs/s':>10}")
    for name, t in [("html-sanitize", ours_t), ("nh3 mail policy", nh3_mail_t), ("nh3 defaults", nh3_t), ("bleach", bleach_t)]:
        print(f"{name:<16}{t:>9.2f}{mb / t:>9.1f}{len(docs) / t:>10.0f}")
    print(f"html-sanitize / nh3 (mail policy): {nh3_mail_t / ours_t:.2f}x faster per MB (target > 1)")
    print(f"html-sanitize / nh3 (defaults, no CSS): {nh3_t / ours_t:.2f}x")
    print(f"html-sanitize / bleach: {bleach_t / ours_t:.1f}x faster per MB")


if __name__ == "__main__":
    main()
