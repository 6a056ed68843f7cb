"""Writes a libFuzzer seed corpus into DIR, one seed per file.
    python3 Fuzz/seeds.py DIR                 html-sanitize-fuzz: every XSS payload of
                                              ../shared/vectors/xss/ and every real HTML mail of
                                              ../shared/vectors/html2text/
    python3 Fuzz/seeds.py DIR TARGET          mailpipe-fuzz's TARGET: for mime-parse, real
                                              messages and mailboxes (../shared/corpus, the
                                              sample, Thunderbird's invitations) as files, mbox
                                              or Gmail API lines; for the filters, the records
                                              mime-parse makes of them (a few per seed), the
                                              calendars and schema.org mail among them.
The record seeds need the release mime-parse (make build)."""
import base64
import hashlib
import json
import pathlib
import subprocess
import sys

root = pathlib.Path(__file__).resolve().parents[1]
shared = root.parent / "shared"
out = pathlib.Path(sys.argv[1])
target = sys.argv[2] if len(sys.argv) > 2 else "html-sanitize"
out.mkdir(parents=True, exist_ok=True)


def message_files():
    files = [p for p in sorted((shared / "corpus").rglob("*")) if p.is_file()
             and p.suffix not in (".json", ".tsv", ".md", ".txt") and "LICENSE" not in p.name]
    files += sorted((shared / "vectors" / "ical" / "thunderbird-invitations").rglob("*.eml"))
    return [p for p in files if p.stat().st_size <= 65536] + [root / "samples" / "sample.mbox"]


if target == "html-sanitize":
    seeds = [p.read_bytes() for p in sorted((shared / "vectors" / "html2text").glob("*.html"))]
    for name, key in [("dompurify_expect.json", "payload"), ("html5sec_h5sc.json", "payload"),
                      ("owasp_xss_filter_evasion.json", "payload"), ("roundcube_washtml.json", "input")]:
        seeds += [item[key].encode() for item in json.loads((shared / "vectors" / "xss" / name).read_text())]
elif target.startswith("mime-parse"):
    messages = [p.read_bytes() for p in message_files()]
    if target == "mime-parse-gmail-api":
        seeds = [json.dumps({"id": f"m{i}", "threadId": "t", "labelIds": ["INBOX"],
                             "raw": base64.urlsafe_b64encode(m).decode()}).encode() + b"\n" for i, m in enumerate(messages)]
    elif target == "mime-parse-mbox":
        seeds = [m if m.startswith(b"From ") else b"From someone@example.org Mon Mar  2 09:00:00 2026\n" + m for m in messages]
    else:
        seeds = messages
else:
    parsed = subprocess.run([str(root / ".build" / "release" / "mime-parse"), "--no-progress", *map(str, message_files())],
                            capture_output=True, check=False).stdout.splitlines(keepends=True)
    if target == "parcel-group":  # records with shipments, as carrier-detect writes them
        parsed = subprocess.run([str(root / ".build" / "release" / "carrier-detect"), "--no-progress"], input=b"".join(parsed),
                                capture_output=True, check=False).stdout.splitlines(keepends=True)
    parsed = [line for line in parsed if len(line) <= 65536]
    seeds = [b"".join(parsed[i:i + 3]) for i in range(0, len(parsed), 3)]
for seed in seeds:
    (out / hashlib.sha1(seed).hexdigest()).write_bytes(seed)
print(f"{len(seeds)} seeds for {target} in {out}")
