#!/usr/bin/env python3
"""A mime-parse-like record holding one big calendar: N events (default 50,000, over 10 MB),
one a day through 2026. For event-extract and event-group's bounded-memory test and timing:

    bench/big-calendar.py > /tmp/big.jsonl
    /usr/bin/time -f '%e s %M KB' .build/release/event-extract /tmp/big.jsonl > /tmp/big.events
    /usr/bin/time -f '%e s %M KB' .build/release/event-group --from 2026-03-01 --to 2026-04-01 --zone UTC /tmp/big.events | wc -l
"""
import json
import sys


def calendar(n=50000):
    events = "".join(f"BEGIN:VEVENT\nUID:e{k}@example.org\nDTSTAMP:20200101T000000Z\nDTSTART:2026{1 + k % 12:02d}{1 + k % 28:02d}T100000Z\n"
                     f"DTEND:2026{1 + k % 12:02d}{1 + k % 28:02d}T110000Z\nSUMMARY:Event number {k} {'x' * 80}\n"
                     f"DESCRIPTION:{'a long description ' * 4}\nEND:VEVENT\n" for k in range(n))
    return f"BEGIN:VCALENDAR\nVERSION:2.0\n{events}END:VCALENDAR\n"


def record(n=50000):
    return dict(id="big", date="2026-01-01T00:00:00Z", subject="big", calendar=[calendar(n)])


if __name__ == "__main__":
    print(json.dumps(record(int(sys.argv[1]) if len(sys.argv) > 1 else 50000)))
