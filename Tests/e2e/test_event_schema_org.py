"""event-extract's second source: schema.org markup (JSON-LD and microdata) in the sender's HTML,
read as KDE Itinerary reads it, turned into events; carrier-detect's shipments from
ParcelDelivery markup; event-group's rule for bookings."""
import json

import pytest

from conftest import ROOT, SHARED, records, run, shared_params

ICAL = SHARED / "vectors" / "ical"
STRUCTURED = ICAL / "kitinerary-structureddata" / "structureddata"
JSONLD = ICAL / "kitinerary-jsonlddata" / "jsonlddata"
EMAIL = ICAL / "schema-org-email" / "email"


def through(tool_args, recs):
    stream = "".join(json.dumps(r) + "\n" for r in recs).encode()
    r = run(*tool_args, "--no-progress", input=stream)
    assert r.returncode == 0, r.stderr
    out = records(r.stdout)
    assert len(out) == len(recs)
    return out


def extracted(recs, *args):
    return through(("event-extract", *args), recs)


def html_mail(html, **fields):
    return dict(subject=fields.pop("subject", "Your booking"), html=html, **fields)


def script(json_text):
    return f'<html><head><script type="application/ld+json">{json_text}</script></head><body><p>Thanks</p></body></html>'


def without_context(v):
    if isinstance(v, dict):
        return {k: without_context(x) for k, x in v.items() if k != "@context"}
    if isinstance(v, list):
        return [without_context(x) for x in v]
    return v


# -- KDE Itinerary's structured-data cases: the items it extracts, ours the same

def structured_cases():
    return sorted(p.stem for p in STRUCTURED.glob("*.html"))


@pytest.mark.shared("vectors/ical/kitinerary-structureddata")
def test_structured_data_cases_are_all_there():
    assert len(structured_cases()) == 18


@pytest.mark.parametrize("case", shared_params("vectors/ical/kitinerary-structureddata", structured_cases))
def test_markup_read_as_kitinerary_reads_it(case):
    html = (STRUCTURED / f"{case}.html").read_text(encoding="utf-8", errors="replace")
    expected = json.loads((STRUCTURED / f"{case}.json").read_text(encoding="utf-8"))
    [r] = extracted([html_mail(html)])
    # @context is the one member KDE Itinerary writes or leaves out by its own rules
    assert without_context(r["schema_org"]) == without_context(expected)


def events_of(case):
    html = (STRUCTURED / f"{case}.html").read_text(encoding="utf-8", errors="replace")
    [r] = extracted([html_mail(html)])
    return r["events"]


@pytest.mark.shared("vectors/ical/kitinerary-structureddata")
def test_microdata_split_by_the_html_parser_is_one_reservation():
    # Google's own example opens <p itemscope> and puts a <div itemprop> in it: a parser
    # closes the <p> there; the reservation still holds its event
    [e] = events_of("google-microdata-inline")
    assert (e["kind"], e["summary"], e["reservation_number"]) == ("event", "Google I/O 2013", "IO12345")
    assert (e["start"], e["start_local"], e["time_zone"]) == ("2013-05-15T16:30:00Z", "2013-05-15T08:30:00", None)
    assert e["location"].startswith("Moscone Center, 800 Howard St.")
    assert (e["source"], e["confidence"], e["evidence"]) == ("schema.org", 1, ["schema.org"])


@pytest.mark.shared("vectors/ical/kitinerary-structureddata")
def test_each_leg_of_a_booking_is_an_event():
    legs = events_of("lh-invalid-microdata")
    assert [e["summary"] for e in legs] == ["Flight LH 2029: TXL → MUC", "Flight LH 2218: MUC → TLS",
                                             "Flight LH 2221: TLS → MUC", "Flight LH 2054: MUC → TXL"]
    assert {e["reservation_number"] for e in legs} == {"KDEKDE"}
    assert legs[0]["start"] == "2017-04-07T06:30:00Z" and legs[0]["end"] == "2017-04-07T07:35:00Z"


@pytest.mark.shared("vectors/ical/kitinerary-structureddata")
def test_objects_without_commas_between_them_and_unreadable_dates():
    legs = events_of("ew-invalid-json-array")
    assert [e["summary"] for e in legs] == ["Flight 4U 8102: TXL → BRU", "Flight 4U 8103: BRU → TXL"]
    # "02-02-2018 18:35" could be either day first or month first: named, not guessed
    assert all(e["start"] is None and e["defects"] == ["unreadable_start"] for e in legs)


@pytest.mark.shared("vectors/ical/kitinerary-structureddata")
def test_bare_ampersand_and_short_offset():
    [e] = events_of("hotel-json-ld-fallback")
    assert (e["kind"], e["summary"], e["status"]) == ("lodging", "Parser & Breaking Hotels", "confirmed")
    assert (e["start"], e["end"]) == ("2017-06-15T14:00:00Z", "2017-06-18T11:00:00Z")  # "+0:00"


@pytest.mark.shared("vectors/ical/kitinerary-structureddata")
def test_markup_of_things_that_are_not_events_makes_none():
    for case in ["multi-property", "nested-objects-microdata", "non-text-content-attributes", "empty-jsonld"]:
        assert events_of(case) == [], case


# -- real senders' markup (audriga's schema.org examples) and KDE Itinerary's JSON-LD cases

def email_json_ld(name):
    return script((EMAIL / "json-ld" / name).read_text(encoding="utf-8"))


@pytest.mark.shared("vectors/ical/schema-org-email")
def test_real_senders_reservations():
    names = ["eventReservation_2018_ticketmaster.ch.json", "eventReservation_2019_eventbrite.com.json",
             "lodgingReservation_2015_accor.com.json", "lodgingReservation_2018_hilton.com.json",
             "trainReservation_2022_eastmidlands.co.uk.json", "order_2018_tictail.com.json"]
    out = extracted([html_mail(email_json_ld(n), id=n) for n in names])
    got = {r["id"]: r["events"] for r in out}
    [ticket] = got[names[0]]
    assert (ticket["kind"], ticket["summary"], ticket["reservation_number"]) == ("event", "The Chainsmokers", "17993")
    assert ticket["end"] == ticket["start"]  # no end: an instant, as RFC 5545 has it
    [eventbrite] = got[names[1]]
    assert (eventbrite["start"], eventbrite["end"], eventbrite["status"]) == ("2019-02-04T08:00:00Z", "2019-02-04T16:30:00Z", "confirmed")
    [accor] = got[names[2]]
    assert (accor["kind"], accor["status"], accor["reservation_number"]) == ("lodging", "cancelled", "CRXABCDE")
    [hilton] = got[names[3]]
    assert hilton["location"].startswith("Hilton Garden Inn Blacksburg, 900 Plantation Rd")
    [train] = got[names[4]]
    assert (train["kind"], train["summary"]) == ("train", "Train: Nottingham → London St Pancras International")
    assert got[names[5]] == []  # an order is no event


@pytest.mark.shared("vectors/ical/schema-org-email")
def test_real_senders_microdata():
    out = extracted([html_mail((EMAIL / "microdata" / n).read_text(encoding="utf-8", errors="replace"), id=n)
                     for n in ["flightReservation_2015_easyjet.com.html", "flighReservation_2015_ryanair.com.html"]])
    [easyjet], [ryanair] = out[0]["events"], out[1]["events"]
    assert (easyjet["summary"], easyjet["start"], easyjet["start_local"]) == ("Flight EZY 7582: STR → OPO", "2015-07-24T10:10:00Z", "2015-07-24T11:10:00")
    # Ryanair writes the airport's wall clock with no offset: floating, unless told the zone
    assert (ryanair["start"], ryanair["start_local"]) == (None, "2015-07-27T19:20:00")
    [zoned] = extracted([html_mail((EMAIL / "microdata" / "flighReservation_2015_ryanair.com.html").read_text(encoding="utf-8", errors="replace"))],
                        "--floating-zone", "Europe/Lisbon")[0]["events"]
    assert (zoned["start"], zoned["time_zone"]) == ("2015-07-27T18:20:00Z", "Europe/Lisbon")


@pytest.mark.shared("vectors/ical/kitinerary-jsonlddata")
def test_kitinerary_json_ld_cases():
    def of(name):
        [r] = extracted([html_mail(script((JSONLD / f"{name}.in.json").read_text(encoding="utf-8")))])
        return r
    [cancelled] = of("flight-cancellation")["events"]
    assert (cancelled["status"], cancelled["summary"], cancelled["reservation_number"]) == ("cancelled", "Flight UA 110: SFO → JFK", "RXJ34P")
    assert [e["summary"] for e in of("reservationFor-array2")["events"]] == ["Flight AB 1234: SXF → TXL", "Flight AB 4321: TXL → SXF"]
    graph = of("graph")
    assert [i["@type"] for i in graph["schema_org"]] == ["Organization", "WebSite", "ImageObject", "WebPage"]
    assert graph["events"] == []
    [demo] = of("event-string-address")["events"]
    # a date is all day, and schema.org's end date is the last day: iCalendar's end is the next
    assert (demo["all_day"], demo["start"], demo["end"]) == (True, "2024-01-21", "2024-01-22")
    assert demo["location"] == "Berlin, Bundestag, Platz d. Republik 1, 10557 Berlin"


# -- broken markup written for these tests

BROKEN = {
    "entities": ('{&quot;@type&quot;: &quot;FoodEstablishmentReservation&quot;, &quot;reservationNumber&quot;: &quot;T-17&quot;, '
                 '&quot;startTime&quot;: &quot;2026-12-03T19:30:00+01:00&quot;, &quot;reservationFor&quot;: '
                 '{&quot;@type&quot;: &quot;FoodEstablishment&quot;, &quot;name&quot;: &quot;Chez Marie&quot;}}'),
    "trailing_commas_and_line_breaks": ('{"@type": "EventReservation", "reservationNumber": "A1",\n "reservationFor": '
                                        '{"@type": "Event", "name": "Quartet\nin the park", "startDate": "2026-12-04T20:00:00Z",},}'),
    "list_then_garbage": '[{"@type": "Event", "name": "Open day", "startDate": "2026-12-05"}',
    "not_json": "var x = {@type: Event};",
}


def test_broken_json_ld_is_read_where_it_can_be_and_named_where_not():
    out = {r["id"]: r for r in extracted([html_mail(script(t), id=k) for k, t in BROKEN.items()])}
    [dinner] = out["entities"]["events"]
    assert (dinner["kind"], dinner["summary"], dinner["start"], dinner["reservation_number"]) == ("restaurant", "Chez Marie", "2026-12-03T18:30:00Z", "T-17")
    [concert] = out["trailing_commas_and_line_breaks"]["events"]
    assert concert["summary"] == "Quartet\nin the park"
    for k in ["list_then_garbage", "not_json"]:
        assert out[k]["events"] == [] and out[k]["schema_org"] == [], k
        assert "unreadable_json_ld" in out[k]["defects"], k
    assert "defects" not in out["entities"] or "unreadable_json_ld" not in out["entities"]["defects"]


def test_mail_without_markup_costs_nothing_and_says_so():
    [r] = extracted([dict(subject="hello", text="see you", html="<p>see you at 10:00 on 2026-12-03</p>")])
    assert (r["events"], r["schema_org"]) == ([], [])


def test_a_virtual_event_has_its_link():
    markup = json.dumps({"@type": "Event", "name": "Webinar", "startDate": "2026-12-10T16:00:00Z",
                         "location": {"@type": "VirtualLocation", "url": "https://example.zoom.us/j/123"}})
    [r] = extracted([html_mail(script(markup))])
    [e] = r["events"]
    assert (e["url"], e["location"]) == ("https://example.zoom.us/j/123", None)


# -- event-group: a booking's later mail is its latest word

def booking(number, start, status="Confirmed", flight="110", date="2026-11-01T10:00:00Z", id=None):
    markup = json.dumps({"@context": "http://schema.org", "@type": "FlightReservation", "reservationNumber": number,
                         "reservationStatus": f"http://schema.org/{status}",
                         "reservationFor": {"@type": "Flight", "flightNumber": flight, "airline": {"iataCode": "UA"},
                                            "departureAirport": {"iataCode": "SFO"}, "arrivalAirport": {"iataCode": "JFK"},
                                            "departureTime": start}})
    return html_mail(script(markup), id=id or f"{number}-{date}", date=date, **{"from": {"address": "booking@united.example"}})


def test_a_changed_then_cancelled_booking_is_one_event():
    mails = [booking("RXJ34P", "2026-12-04T20:15:00-08:00", id="new", date="2026-11-01T10:00:00Z"),
             booking("RXJ34P", "2026-12-04T22:45:00-08:00", id="changed", date="2026-11-02T10:00:00Z"),
             booking("RXJ34P", "2026-12-04T22:45:00-08:00", status="Cancelled", id="cancelled", date="2026-11-03T10:00:00Z"),
             booking("RXJ34P", "2026-12-06T09:00:00-05:00", flight="111", id="return", date="2026-11-01T10:00:00Z")]
    recs = extracted(mails)
    stream = "".join(json.dumps(r) + "\n" for r in reversed(recs)).encode()  # any order: date decides
    r = run("event-group", "--no-progress", input=stream)
    assert r.returncode == 0, r.stderr
    events = {e["summary"]: e for e in records(r.stdout)}
    assert set(events) == {"Flight UA 110: SFO → JFK", "Flight UA 111: SFO → JFK"}
    out = events["Flight UA 110: SFO → JFK"]
    assert (out["status"], out["start"], out["message_ids"]) == ("cancelled", "2026-12-05T06:45:00Z", ["new", "changed", "cancelled"])
    assert events["Flight UA 111: SFO → JFK"]["message_ids"] == ["return"]


# -- carrier-detect: ParcelDelivery markup is a shipment, after html-sanitize removed the script

@pytest.mark.shared("vectors/ical/schema-org-email")
def test_parcel_delivery_markup_is_a_shipment():
    dhl = {"@context": "http://schema.org", "@type": "ParcelDelivery", "carrier": {"@type": "Organization", "name": "DHL"},
           "trackingNumber": "00340434161094042557",
           "trackingUrl": "https://www.dhl.de/de/privatkunden/pakete-empfangen/verfolgen.html?piececode=00340434161094042557"}
    other = {"@type": "ParcelDelivery", "provider": "Hermes Germany", "trackingNumber": "H 1234 5678 9012"}
    mails = [html_mail(script(json.dumps(dhl)), text="Your parcel is on its way.", id="dhl"),
             html_mail(script(json.dumps(other)), text="Your parcel is on its way.", id="hermes"),
             html_mail(email_json_ld("parcelDelivery_2017_dpd.de.json"), text="Your parcel is on its way.", id="dpd")]
    recs = through(("carrier-detect",), through(("html-sanitize",), extracted(mails)))
    got = {r["id"]: r["shipments"] for r in recs}
    assert "ld+json" not in recs[0]["html"]  # read before html-sanitize removed it
    [s] = got["dhl"]
    assert (s["carrier"], s["tracking_number"], s["evidence"], s["confidence"]) == ("dhl", "00340434161094042557", ["schema.org"], 1)
    [h] = got["hermes"]
    assert (h["carrier"], h["tracking_number"]) == ("hermes_germany", "H123456789012")
    assert got["dpd"] == []  # a tracking link to an (anonymised) host no carrier has, and no number


def test_carrier_detect_reads_markup_itself_without_event_extract():
    dhl = {"@type": "ParcelDelivery", "carrier": "DHL", "trackingNumber": "00340434161094042557"}
    [r] = through(("carrier-detect",), [html_mail(script(json.dumps(dhl)), text="On its way.")])
    assert [(s["carrier"], s["evidence"]) for s in r["shipments"]] == [("dhl", ["schema.org"])]
