"""text-extract against email_reply_parser (plain-text replies) and inscriptis (HTML to text),
each on its own kind of input, in one run: messages/s, MB/s and the ratio.
- replies: every plain-text case of ../shared/vectors/reply/ (github email_reply_parser,
  mail-parser-reply, talon), repeated to about SIZE MB; email_reply_parser's
  EmailReplyParser.parse_reply against text-extract's reply_text. Target: 10x.
- HTML: the newsletters of ../shared/vectors/html2text/ and the HTML bodies of ../shared/corpus/,
  repeated to about SIZE MB; inscriptis.get_text against text-extract's body_text. Target: 4x.
text-extract runs as in the pipeline (JSON Lines in and out, all its fields: body_text,
reply_text, quoted_text, signature, snippet). Each peer is timed twice, in-process: on the
strings alone (what the targets are stated against), and as a JSON Lines filter doing one
field's worth of text-extract's job (json.loads each line, the peer on its text, json.dumps the
record with the result added) -- the same reading and writing text-extract pays for.
    .venv/bin/python bench/text-extract.py [SIZE_MB]   (default 20)"""
import json
import subprocess
import sys

import inscriptis
from email_reply_parser import EmailReplyParser

from realhtml import BIN, ROOT, SHARED, best_of, html_documents


def replies():
    vectors = SHARED / "vectors" / "reply"
    texts = [x["input"] for x in json.loads((vectors / "github_email_reply_parser.json").read_text())]
    texts += [x["input"] for x in json.loads((vectors / "mail_parser_reply.json").read_text())]
    texts += [x["input"] for x in json.loads((vectors / "talon_quotations.json").read_text()) if x["kind"] == "plain"]
    return texts


def compare(title, base, field, peer_name, peer, size_mb, target):
    copies = max(1, int(size_mb * 1e6 / sum(len(d.encode()) for d in base)))
    docs = base * copies
    mb = sum(len(d.encode()) for d in docs) / 1e6
    path = ROOT / ".bench-data" / f"text-extract-{field}.jsonl"
    path.parent.mkdir(exist_ok=True)
    path.write_text("".join(json.dumps({"id": str(i), field: d}, ensure_ascii=False) + "\n" for i, d in enumerate(docs)))
    ours = best_of(5, lambda: subprocess.run([str(BIN / "text-extract"), "--no-progress", str(path)],
                                              stdout=subprocess.DEVNULL, check=True))
    theirs = best_of(3, lambda: [peer(d) for d in docs])
    lines = path.read_text().splitlines()

    def as_filter():
        out = []
        for line in lines:
            record = json.loads(line)
            record["peer_" + field] = peer(record[field])
            out.append(json.dumps(record, ensure_ascii=False))
        return out
    theirs_as_filter = best_of(3, as_filter)
    print(f"{title}: {len(docs)} messages ({len(base)} distinct), {mb:.1f} MB")
    print(f"  {'tool':<34}{'seconds':>9}{'MB/s':>9}{'msgs/s':>10}")
    rows = [("text-extract", ours), (peer_name, theirs), (peer_name + " as a filter", theirs_as_filter)]
    for name, t in rows:
        print(f"  {name:<34}{t:>9.2f}{mb / t:>9.1f}{len(docs) / t:>10.0f}")
    print(f"  text-extract / {peer_name}: {theirs / ours:.1f}x faster (target {target}x); "
          f"as a filter: {theirs_as_filter / ours:.1f}x")


def main():
    size_mb = float(sys.argv[1]) if len(sys.argv) > 1 else 20
    compare("plain-text replies", replies(), "text", "email_reply_parser", EmailReplyParser.parse_reply, size_mb, 10)
    compare("HTML mail", html_documents(), "html", "inscriptis", inscriptis.get_text, size_mb, 4)


if __name__ == "__main__":
    main()
