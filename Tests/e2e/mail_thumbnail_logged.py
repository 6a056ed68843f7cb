#!/usr/bin/env python3
"""mail-thumbnail as chat-render runs it, each run's files written to $STANDIN_LOG first (the
tests count the runs), then the real program ($MAILPIPE_THUMBNAIL_REAL) in its place."""
import argparse
import json
import os
import sys

p = argparse.ArgumentParser()
for option in ("--size", "--display", "--max-pixels", "--max-memory", "--timeout", "--out"):
    p.add_argument(option)
p.add_argument("files", nargs="+")
a = p.parse_args()
with open(os.environ["STANDIN_LOG"], "a") as log:
    log.write(json.dumps(a.files) + "\n")
real = os.environ["MAILPIPE_THUMBNAIL_REAL"]
os.execv(real, [real, *sys.argv[1:]])
