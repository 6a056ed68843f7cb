#!/usr/bin/env python3
"""compare-builds: every filter of two builds on the same records, and what differs.

    bench/compare-builds.py OLD_BIN NEW_BIN MAILBOX [--me ADDR] [--samples N]

OLD_BIN and NEW_BIN are folders of built tools (a worktree's .build/release). Each stage of the
default pipeline is run by both builds on the same input, the new build's output of the stage
before, so a difference is that stage's own. For every stage it prints the records in and out,
how many output lines differ, and which fields differ in how many records, with sample ids and
values. A tool the old build lacks is skipped. Exit status 0; the report is for a person to
explain, not a test (the fixes it is run to check change output on purpose).
"""
import argparse
import itertools
import json
import os
import subprocess
import sys
import tempfile
from collections import Counter, defaultdict

NOW = "2026-06-01T00:00:00Z"


def stages(new_bin, me):
    """(tool, arguments, whether its output feeds the next stage): the per-message stages in the
    order the new build declares them (`mailstore stages`), then the grouping."""
    declared = subprocess.run([os.path.join(new_bin, "mailstore"), "stages"], check=True, capture_output=True, text=True).stdout.split()
    return [(tool, [], True) for tool in declared] + [
        ("participant-hash", ["--me", me], True),
        ("conversation-group", ["--now", NOW], False),
        ("event-group", [], False),
    ]


def run(binary, args, stdin_path, out_path):
    with open(stdin_path, "rb") as stdin, open(out_path, "wb") as out:
        proc = subprocess.run([binary, *args], stdin=stdin, stdout=out, stderr=subprocess.PIPE,
                              env={**os.environ, "SWIFT_BACKTRACE": "enable=no"})
    return proc.returncode, proc.stderr.decode("utf-8", "replace")


def record_id(record):
    for key in ("id", "conversation_id", "uid"):
        if isinstance(record, dict) and record.get(key):
            return str(record[key])
    return "?"


def first_difference(old, new, path=""):
    """The path of the first place two JSON values differ, and both values there."""
    if isinstance(old, dict) and isinstance(new, dict):
        for key in list(old) + [k for k in new if k not in old]:
            if old.get(key, KeyError) != new.get(key, KeyError):
                return first_difference(old.get(key, "(absent)"), new.get(key, "(absent)"), f"{path}.{key}")
    if isinstance(old, list) and isinstance(new, list) and len(old) == len(new):
        for i, (a, b) in enumerate(zip(old, new)):
            if a != b:
                return first_difference(a, b, f"{path}[{i}]")
    return path, old, new


def short(value, limit=160):
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= limit else text[:limit] + "…"


def compare(old_path, new_path, samples):
    differing = 0
    bytes_only = 0
    counts = {"old": 0, "new": 0}
    by_field = Counter()
    examples = defaultdict(list)
    with open(old_path, "rb") as old_file, open(new_path, "rb") as new_file:
        for old_line, new_line in itertools.zip_longest(old_file, new_file):  # streamed: 1 GB of records
            counts["old"] += old_line is not None
            counts["new"] += new_line is not None
            if old_line == new_line or old_line is None or new_line is None:
                continue
            differing += 1
            old, new = json.loads(old_line), json.loads(new_line)
            if old == new:
                bytes_only += 1
                continue
            for key in sorted(set(old) | set(new)):
                if old.get(key, KeyError) != new.get(key, KeyError):
                    by_field[key] += 1
                    if len(examples[key]) < samples:
                        path, a, b = first_difference(old.get(key, "(absent)"), new.get(key, "(absent)"), key)
                        examples[key].append(f"{record_id(new)}: {path}: {short(a)} -> {short(b)}")
    report = [f"  lines: old {counts['old']}, new {counts['new']}"]
    report.append(f"  records differing: {differing}" + (f" ({bytes_only} in bytes only)" if bytes_only else ""))
    for key, count in by_field.most_common():
        report.append(f"    {key}: {count}")
        report.extend(f"      {line}" for line in examples[key])
    return report


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("old_bin")
    parser.add_argument("new_bin")
    parser.add_argument("mailbox")
    parser.add_argument("--me", default="meiling.chen@gmail.com")
    parser.add_argument("--samples", type=int, default=3)
    options = parser.parse_args()
    with tempfile.TemporaryDirectory(dir="/dev/shm" if os.path.isdir("/dev/shm") else None) as scratch:
        records = os.path.join(scratch, "input.jsonl")
        outputs = {}
        for build in ("old", "new"):
            path = os.path.join(scratch, f"mime-parse.{build}.jsonl")
            binary = os.path.join(getattr(options, f"{build}_bin"), "mime-parse")
            with open(path, "wb") as out:
                subprocess.run([binary, "--no-progress", options.mailbox], stdout=out, check=True)
            outputs[build] = path
        print("mime-parse")
        print("\n".join(compare(outputs["old"], outputs["new"], options.samples)))
        os.replace(outputs["new"], records)
        for tool, args, feeds in stages(options.new_bin, options.me):
            old_binary = os.path.join(options.old_bin, tool)
            if not os.access(old_binary, os.X_OK):
                print(f"{tool}: not in the old build; skipped")
                continue
            print(f"{tool} {' '.join(args)}".rstrip())
            paths = {}
            for build, folder in (("old", options.old_bin), ("new", options.new_bin)):
                paths[build] = os.path.join(scratch, f"{tool}.{build}.jsonl")
                status, errors = run(os.path.join(folder, tool), args, records, paths[build])
                if status != 0 or errors:
                    print(f"  {build}: exit {status}; {errors.strip()[:400]}")
            print("\n".join(compare(paths["old"], paths["new"], options.samples)))
            if feeds:
                os.replace(paths["new"], records)
    return 0


if __name__ == "__main__":
    sys.exit(main())
