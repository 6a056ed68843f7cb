"""What Python's icalendar reads in a calendar, in event-extract's terms: the oracle of the
differential test (tests/e2e/test_event_extract.py)."""
import datetime

import icalendar

UTC = datetime.timezone.utc


def instant(value):
    """RFC 3339 UTC for an aware datetime, YYYY-MM-DD for a date, None for a floating time."""
    if isinstance(value, datetime.datetime):
        if value.tzinfo is None or value.tzinfo.utcoffset(value) is None:
            return None
        return value.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    if isinstance(value, datetime.date):
        return value.isoformat()
    return None


def events(text):
    """[{uid, sequence, status, summary, start, end, attendees}] of every VEVENT, or None when
    icalendar cannot read the text."""
    try:
        calendars = icalendar.Calendar.from_ical(text, multiple=True)
    except Exception:
        return None
    out = []
    for cal in calendars:
        for ev in cal.walk("VEVENT"):
            try:
                out.append(event(ev))
            except Exception as e:  # a value icalendar cannot decode
                out.append({"error": f"{type(e).__name__}: {e}"})
    return out


def event(ev):
    start = ev.decoded("DTSTART") if "DTSTART" in ev else None
    end = None
    if "DTEND" in ev:
        end = ev.decoded("DTEND")
    elif "DURATION" in ev and start is not None:
        end = start + ev.decoded("DURATION")
    elif start is not None:
        end = start + datetime.timedelta(days=1) if not isinstance(start, datetime.datetime) else start
    if start is not None and end is not None and isinstance(start, datetime.datetime) != isinstance(end, datetime.datetime):
        end = start + datetime.timedelta(days=1) if not isinstance(start, datetime.datetime) else start
    status = str(ev.get("STATUS")).upper() if "STATUS" in ev else None
    status = {"CONFIRMED": "confirmed", "TENTATIVE": "tentative", "CANCELLED": "cancelled"}.get(status)
    attendees = ev.get("ATTENDEE", [])
    if not isinstance(attendees, list):
        attendees = [attendees]
    people = []
    for a in attendees:
        address = str(a)
        if address.lower().startswith("mailto:"):
            address = address[7:]
        partstat = a.params.get("PARTSTAT") if hasattr(a, "params") else None
        people.append([address, partstat.lower() if partstat else None])
    return {
        "uid": str(ev["UID"]) if "UID" in ev else None,
        "sequence": int(ev.get("SEQUENCE", ev.get("X-MICROSOFT-CDO-APPT-SEQUENCE", 0))),
        "status": status,
        "summary": str(ev["SUMMARY"]) if "SUMMARY" in ev else None,
        "start": instant(start) if start is not None else None,
        "end": instant(end) if end is not None else None,
        "attendees": people,
    }
