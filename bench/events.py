"""event-extract and event-group, against their peers in one run, with ratios:
1. the generated mailbox (../shared/gen, SIZE 50m or 1g, with --events-rate 0.01): mime-parse on
   the mbox, then event-extract and event-group on mime-parse's records. Target: event-extract
   under a third of mime-parse's time (few messages carry a calendar; the rest must cost little).
2. big real calendars (libical's large.ics, Python icalendar's and recurring-ical-events' biggest
   files, and bench/big-calendar.py's 50,000 events), each as a record: event-extract against
   Python's icalendar parsing the same text and reading each VEVENT's uid, start, end, summary
   and attendees. Target: 10x.
3. real calendars: every .ics of ../shared/vectors/ical/ and the calendars of its Thunderbird
   invitation mails, each as a record, repeated to about 20 MB: event-extract against Python's
   icalendar parsing the same calendars and reading every VEVENT's start, end, summary and uid.
   Calendars icalendar cannot read are left out on both sides. Target: 10x.
    .venv/bin/python bench/events.py [SIZE] [--real-only]   (default 50m)"""
import json
import os
import subprocess
import sys
import tempfile
import time
import warnings

import icalendar

from realhtml import BIN, ROOT, SHARED, best_of

sys.path.insert(0, str(ROOT / "bench"))
import importlib.util

spec = importlib.util.spec_from_file_location("big_calendar", ROOT / "bench" / "big-calendar.py")
big_calendar = importlib.util.module_from_spec(spec)
spec.loader.exec_module(big_calendar)

COUNT = {"50m": 2465, "1g": 48000}
DATA = ROOT / ".bench-data"


def timed(cmd, stdin=None, stdout=subprocess.DEVNULL):
    t0 = time.perf_counter()
    subprocess.run(cmd, stdin=stdin, stdout=stdout, check=True)
    return time.perf_counter() - t0


def mailbox(size):
    DATA.mkdir(exist_ok=True)
    mbox = DATA / f"{size}.events.mbox"
    if not mbox.exists():
        subprocess.run(["python3", str(SHARED / "gen" / "gen_mbox.py"), "--messages", str(COUNT[size]), "--seed", "1",
                        "--events-rate", "0.01", "--out", str(mbox)], check=True, stderr=subprocess.DEVNULL)
    return mbox


def on_mailbox(size):
    mbox = mailbox(size)
    records = DATA / f"{size}.events.records.jsonl"
    extracted = DATA / f"{size}.events.extracted.jsonl"
    with open(records, "wb") as out:
        subprocess.run([BIN / "mime-parse", "--no-progress", mbox], stdout=out, check=True)
    runs = 3  # best of three: one run of the 1 GB mailbox varies by a tenth here
    parse = best_of(runs, lambda: timed([BIN / "mime-parse", "--no-progress", mbox]))
    extract = best_of(runs, lambda: timed([BIN / "event-extract", "--no-progress", records]))
    with open(extracted, "wb") as out:
        subprocess.run([BIN / "event-extract", "--no-progress", records], stdout=out, check=True)
    group = best_of(runs, lambda: timed([BIN / "event-group", "--no-progress", extracted]))
    # the floor of any filter: read each record and write it again with a field added
    floor = best_of(runs, lambda: timed([BIN / "participant-hash", "--no-progress", "--me", "me@example.com", records]))
    mb = mbox.stat().st_size / 1e6
    print(f"== generated mailbox {size}: {COUNT[size]} messages, {mb:.0f} MB ==")
    print(f"mime-parse     {parse:7.2f} s")
    print(f"event-extract  {extract:7.2f} s   {extract / parse:.3f} of mime-parse's time (target < 0.33)")
    print(f"event-group    {group:7.2f} s   {group / parse:.2f} of mime-parse's time")
    print(f"participant-hash {floor:5.2f} s   {floor / parse:.2f} of mime-parse's time (the cheapest stage: reads and rewrites each record)")
    records.unlink()
    extracted.unlink()


def big_calendars():
    texts = {
        "libical large.ics": (SHARED / "vectors/ical/libical/test-data/large.ics").read_text(errors="replace"),
        "big-calendar.py 50,000 events": big_calendar.calendar(),
    }
    for folder in ["python-icalendar", "recurring-ical-events"]:
        files = sorted((SHARED / "vectors/ical" / folder).rglob("*.ics"), key=lambda p: p.stat().st_size)
        texts[f"{folder} {files[-1].name}"] = files[-1].read_text(errors="replace")
    print("== big calendars: event-extract against Python icalendar ==")
    print(f"{'calendar':45} {'MB':>6} {'ours s':>8} {'icalendar s':>12} {'ratio':>7}")
    for name, text in texts.items():
        with tempfile.NamedTemporaryFile("w", suffix=".jsonl", delete=False) as f:
            f.write(json.dumps(dict(id="c", date="2026-01-01T00:00:00Z", subject="c", calendar=[text])) + "\n")
            path = f.name

        def peer():
            for e in icalendar.Calendar.from_ical(text).walk("VEVENT"):
                _ = (e.get("UID"), e.get("DTSTART") and e.decoded("DTSTART"), e.get("DTEND") and e.decoded("DTEND"),
                     e.get("SUMMARY"), [str(a) for a in (e.get("ATTENDEE") or [])] if isinstance(e.get("ATTENDEE"), list) else e.get("ATTENDEE"))

        runs = 3
        ours = best_of(runs, lambda: timed([BIN / "event-extract", "--no-progress", path]))
        os.unlink(path)
        try:
            theirs = best_of(runs, peer)
        except ValueError as e:  # large.ics holds values icalendar refuses ("19970901T1300Z")
            print(f"{name[:45]:45} {len(text.encode()) / 1e6:6.2f} {ours:8.3f} {'cannot read':>12}   ({str(e)[:40]})")
            continue
        print(f"{name[:45]:45} {len(text.encode()) / 1e6:6.2f} {ours:8.3f} {theirs:12.3f} {theirs / ours:6.1f}x")


def real_calendar_records():
    """Every calendar of ../shared/vectors/ical/ as a record: each .ics file as the one calendar
    part of a record, and each Thunderbird invitation mail's record as mime-parse writes its
    calendar parts (the same invitation often comes twice, as the body and as invite.ics)."""
    ical = SHARED / "vectors/ical"
    records = []
    for path in sorted(ical.rglob("*.ics")):
        records.append((str(path.relative_to(ical)), dict(calendar=[path.read_text(errors="replace")])))
    mails = sorted(str(p) for p in (ical / "thunderbird-invitations").glob("*.eml"))
    parsed = subprocess.run([BIN / "mime-parse", "--no-progress", *mails], capture_output=True, check=True)
    for path, line in zip(mails, parsed.stdout.splitlines()):
        r = json.loads(line)
        if r.get("calendar"):
            records.append((os.path.basename(path), dict(calendar=r["calendar"], calendar_methods=r["calendar_methods"])))
    return [(name, dict(id=name, date="2026-01-01T00:00:00Z", subject="c", **r)) for name, r in records]


def icalendar_read(text):
    """What the peer does with a calendar: parse it and read each VEVENT's start, end, summary
    and uid (start and end decoded: dates, or datetimes in their zones)."""
    for calendar in icalendar.Calendar.from_ical(text, multiple=True):
        for e in calendar.walk("VEVENT"):
            _ = (e.get("UID"), e.get("DTSTART") and e.decoded("DTSTART"), e.get("DTEND") and e.decoded("DTEND"),
                 e.get("SUMMARY"))


def real_calendars(target_mb=20):
    warnings.simplefilter("ignore")  # icalendar's warnings on vendor-prefixed TZIDs, once each
    readable, refused = [], []
    for name, record in real_calendar_records():
        try:
            for text in record["calendar"]:
                icalendar_read(text)
            readable.append(record)
        except Exception as e:  # icalendar refuses what libical reads with a defect
            refused.append(f"{name} ({type(e).__name__}: {str(e)[:60]})")
    lines = [json.dumps(r) + "\n" for r in readable]
    size = sum(len(line.encode()) for line in lines)
    repeats = max(1, round(target_mb * 1e6 / size))
    DATA.mkdir(exist_ok=True)
    path = DATA / "real-calendars.jsonl"  # kept, to profile event-extract on
    with open(path, "w") as f:
        for _ in range(repeats):
            f.writelines(lines)
    texts = [text for r in readable for text in r["calendar"]]
    events = sum(text.count("BEGIN:VEVENT") for text in texts)

    def peer():
        for _ in range(repeats):
            for text in texts:
                icalendar_read(text)

    runs = 3
    ours = best_of(runs, lambda: timed([BIN / "event-extract", "--no-progress", path]))
    theirs = best_of(runs, peer)
    mb = path.stat().st_size / 1e6
    print(f"== real calendars: event-extract against Python icalendar ==")
    print(f"{len(readable)} records ({len(texts)} calendars, {events} VEVENTs) repeated {repeats} times: "
          f"{len(readable) * repeats} records, {mb:.1f} MB")
    print(f"{len(refused)} records left out on both sides, icalendar cannot read them:")
    for r in refused:
        print(f"    {r}")
    print(f"event-extract  {ours:7.3f} s")
    print(f"icalendar      {theirs:7.3f} s")
    print(f"ratio          {theirs / ours:7.1f}x   (target 10x)")


if __name__ == "__main__":
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    if "--real-only" not in sys.argv:
        on_mailbox(args[0] if args else "50m")
        big_calendars()
    real_calendars()
