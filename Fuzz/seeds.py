"""Writes html-sanitize's seed corpus for libFuzzer into DIR: every XSS payload of
../shared/vectors/xss/ and every real HTML mail of ../shared/vectors/html2text/, one per file.
    python3 Fuzz/seeds.py DIR"""
import hashlib
import json
import pathlib
import sys

shared = pathlib.Path(__file__).resolve().parents[2] / "shared"
out = pathlib.Path(sys.argv[1])
out.mkdir(parents=True, exist_ok=True)
seeds = [p.read_bytes() for p in sorted((shared / "vectors" / "html2text").glob("*.html"))]
for name, key in [("dompurify_expect.json", "payload"), ("html5sec_h5sc.json", "payload"),
                  ("owasp_xss_filter_evasion.json", "payload"), ("roundcube_washtml.json", "input")]:
    seeds += [item[key].encode() for item in json.loads((shared / "vectors" / "xss" / name).read_text())]
for seed in seeds:
    (out / hashlib.sha1(seed).hexdigest()).write_bytes(seed)
print(f"{len(seeds)} seeds in {out}")
