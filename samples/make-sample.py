#!/usr/bin/env python3
"""Writes sample.mbox: a small Gmail-Takeout-style mailbox for `make pipeline` and the tests.

The mailbox of Mei-Ling Chen <mei@example.tw>: a 1:1 conversation, a group thread with an
attachment and an inline image, a newsletter with tracking, shipping notices (Taiwan and UPS),
a discussion list post, a Japanese message, an auto-reply and calendar mail (invitations,
an update, a cancelled occurrence, a flight booking, a dentist's confirmation, a birthday); charsets utf-8, big5,
iso-2022-jp and windows-1252; 7bit, 8bit, quoted-printable and base64. Run it again to
regenerate the same bytes.
"""
import base64, quopri, re

def ew(s, cs="utf-8"):
    return "=?%s?B?%s?=" % (cs, base64.b64encode(s.encode(cs)).decode())

def b64(data):
    return base64.encodebytes(data).decode()

def qp(text, cs="utf-8"):
    return quopri.encodestring(text.encode(cs)).decode()

messages = []

def add(gmid, envelope_date, thrid, labels, headers, body):
    if isinstance(body, str):
        body = body.encode("utf-8")
    # mboxrd: a body line matching ^>*From  gets one more '>'
    body = re.sub(rb"(?m)^(>*From )", rb">\1", body)
    head = "From %s@xxx %s\nX-GM-THRID: %s\nX-Gmail-Labels: %s\n%s\n\n" % (gmid, envelope_date, thrid, labels, headers.strip("\n"))
    messages.append(head.encode("utf-8") + body + (b"" if body.endswith(b"\n") else b"\n"))

add("1780000000000000001", "Mon Mar 02 01:15:00 +0000 2026", "1780000000000000001", "Inbox,Important,Opened", f"""
Delivered-To: mei@example.tw
Received: from mail.example.com by mx.example.tw; Mon, 2 Mar 2026 01:15:00 +0000
From: Alex Rivera <alex.rivera@example.com>
To: {ew("陳美玲")} <mei@example.tw>
Subject: Dinner on Friday?
Date: Mon, 2 Mar 2026 09:14:58 +0800
Message-ID: <CAF1-alex-0001@mail.example.com>
MIME-Version: 1.0
Content-Type: text/plain; charset=utf-8
Content-Transfer-Encoding: 7bit""", """Hi Mei,

Are you free for dinner on Friday? The new ramen place near Zhongshan station
opens this week.

From what I heard, they take no reservations, so 6:30 would be safest.

Alex
""")

add("1780000000000000002", "Mon Mar 02 02:03:10 +0000 2026", "1780000000000000001", "Sent,Opened", f"""
From: {ew("陳美玲")} (Mei-Ling Chen) <mei@example.tw>
To: Alex Rivera <alex.rivera@example.com>
Subject: Re: Dinner on Friday?
Date: Mon, 2 Mar 2026 10:03:08 +0800
Message-ID: <mei-0002@example.tw>
In-Reply-To: <CAF1-alex-0001@mail.example.com>
References: <CAF1-alex-0001@mail.example.com>
MIME-Version: 1.0
Content-Type: text/plain; charset=utf-8; format=flowed
Content-Transfer-Encoding: quoted-printable""", qp("""Sounds great, 6:30 works for me. I'll meet you at exit 2 of the 
station.

Sent from my iPhone

> On Mar 2, 2026, at 09:14, Alex Rivera <alex.rivera@example.com> wrote:
>
> Hi Mei,
>
> Are you free for dinner on Friday?
"""))

add("1780000000000000003", "Tue Mar 03 08:30:00 +0000 2026", "1780000000000000003", "Inbox,Unread", f"""
From: Jordan Lee <jordan@example.org>
To: Alex Rivera <alex.rivera@example.com>, mei@example.tw
Cc: "Sato, Hana" <hana.sato@example.jp>, {ew("ليلى حداد")} <layla.haddad@example.ae>
Subject: =?utf-8?Q?Trip_photos_=F0=9F=93=B7?=
Date: Tue, 3 Mar 2026 16:29:41 +0800
Message-ID: <jordan-0003@example.org>
MIME-Version: 1.0
Content-Type: multipart/mixed; boundary="mixed-0003\"""", """--mixed-0003
Content-Type: multipart/alternative; boundary="alt-0003"

--alt-0003
Content-Type: text/plain; charset=utf-8

Hi all, the photos from Taroko are attached, with the map of the trail.

Jordan

--alt-0003
Content-Type: text/html; charset=utf-8

<div dir="ltr">Hi all, the photos from Taroko are attached, with the map of the trail.<br><br>Jordan</div>

--alt-0003--

--mixed-0003
Content-Type: application/pdf; name="taroko-trail.pdf"
Content-Disposition: attachment; filename*=utf-8''%E5%A4%AA%E9%AD%AF%E9%96%A3-trail.pdf
Content-Transfer-Encoding: base64

""" + b64(b"%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n") + """
--mixed-0003--
""")

add("1780000000000000004", "Wed Mar 04 00:00:05 +0000 2026", "1780000000000000004", "Inbox,Category Promotions", f"""
From: Bookshelf Weekly <news@mail.bookshelf.example>
To: mei@example.tw
Subject: {ew("📚 Spring reading list: 10 novels")}
Date: Wed, 4 Mar 2026 00:00:02 +0000
Message-ID: <20260304000002.12345@mail.bookshelf.example>
List-Unsubscribe: <https://bookshelf.example/unsub?u=8f3a>, <mailto:unsub-8f3a@mail.bookshelf.example>
List-Unsubscribe-Post: List-Unsubscribe=One-Click
List-Id: Bookshelf Weekly <weekly.bookshelf.example>
Precedence: bulk
Feedback-ID: 42:weekly:bookshelf:esp
Return-Path: <bounce-8f3a-mei=example.tw@mail.bookshelf.example>
MIME-Version: 1.0
Content-Type: text/html; charset=windows-1252
Content-Transfer-Encoding: quoted-printable""", qp("""<html><body><div style="display:none">Ten novels for the first warm evenings</div>
<table width="600" align="center"><tr><td style="font-family:Georgia">
<h1>Spring reading list</h1>
<p>Our editors\u2019 picks: \u201cThe Glass Orchard\u201d and nine more.</p>
<p><a href="https://bookshelf.example/list?utm_source=newsletter&utm_medium=email&mc_eid=8f3a">Read the list</a></p>
<img src="https://track.bookshelf.example/open.gif?u=8f3a" width="1" height="1">
<p style="font-size:11px">You receive this because you subscribed. <a href="https://bookshelf.example/unsub?u=8f3a">Unsubscribe</a></p>
</td></tr></table></body></html>
""", "windows-1252"))

add("1780000000000000005", "Thu Mar 05 03:12:00 +0000 2026", "1780000000000000005", "Inbox,Category Updates", f"""
From: {ew("黑貓商店", "big5")} <service@shop.example.tw>
To: mei@example.tw
Subject: {ew("您的訂單已出貨", "big5")}
Date: Thu, 5 Mar 2026 11:11:58 +0800
Message-ID: <ship-0005@shop.example.tw>
MIME-Version: 1.0
Content-Type: text/plain; charset=big5
Content-Transfer-Encoding: 8bit""", """陳美玲 您好：

您的訂單 #A20260305-7788 已出貨，由黑貓宅急便配送。
託運單號：9040 1234 5678
貨態查詢：https://www.t-cat.com.tw/Inquire/Trace.aspx?no=904012345678

訂單金額 NT$1,280，預計 3 月 7 日送達。
""".encode("big5"))

add("1780000000000000006", "Thu Mar 05 15:40:00 +0000 2026", "1780000000000000006", "Inbox,Category Updates", """
From: UPS <pkginfo@ups.example.com>
To: mei@example.tw
Subject: UPS Update: Package Scheduled for Delivery Tomorrow
Date: Thu, 5 Mar 2026 10:39:57 -0500
Message-ID: <ups-0006@ups.example.com>
Auto-Submitted: auto-generated
MIME-Version: 1.0
Content-Type: text/plain; charset=us-ascii""", """Your package is scheduled for delivery tomorrow.

Tracking Number: 1Z 999 AA1 01 2345 6784
Track: https://www.ups.com/track?tracknum=1Z999AA10123456784
""")

add("1780000000000000007", "Fri Mar 06 09:00:00 +0000 2026", "1780000000000000007", "Inbox,Category Forums", """
From: Priya Natarajan <priya@example.net>
To: swift-dev@lists.example.org
Subject: [swift-dev] Streaming JSON Lines in Swift
Date: Fri, 6 Mar 2026 09:59:59 +0100
Message-ID: <priya-0007@example.net>
List-Id: Swift development <swift-dev.lists.example.org>
List-Post: <mailto:swift-dev@lists.example.org>
List-Unsubscribe: <mailto:swift-dev-leave@lists.example.org>
Precedence: list
MIME-Version: 1.0
Content-Type: text/plain; charset=utf-8""", """From my measurements, a byte-level scanner is much faster than Codable here.
Has anyone compared the two on large inputs?

Priya

_______________________________________________
swift-dev mailing list
https://lists.example.org/mailman/listinfo/swift-dev
""")

add("1780000000000000008", "Sat Mar 07 01:00:00 +0000 2026", "1780000000000000008", "Inbox,Opened", f"""
From: {ew("佐藤大輔", "iso-2022-jp")} <daisuke@example.jp>
To: mei@example.tw
Subject: {ew("来週の会議資料", "iso-2022-jp")}
Date: Sat, 7 Mar 2026 10:00:00 +0900
Message-ID: <daisuke-0008@example.jp>
MIME-Version: 1.0
Content-Type: text/plain; charset=ISO-2022-JP
Content-Transfer-Encoding: 7bit""", """メイさん、こんにちは。

来週の会議の資料を送ります。よろしくお願いします。

佐藤
""".encode("iso-2022-jp"))

add("1780000000000000009", "Sat Mar 07 06:00:00 +0000 2026", "1780000000000000003", "Inbox", f"""
From: "Sato, Hana" <hana.sato@example.jp>
To: Jordan Lee <jordan@example.org>, Alex Rivera <alex.rivera@example.com>, mei@example.tw,
 {ew("ليلى حداد")} <layla.haddad@example.ae>
Subject: Re: =?utf-8?Q?Trip_photos_=F0=9F=93=B7?=
Date: Sat, 7 Mar 2026 15:00:00 +0900
Message-ID: <hana-0009@example.jp>
In-Reply-To: <jordan-0003@example.org>
References: <jordan-0003@example.org>
MIME-Version: 1.0
Content-Type: multipart/related; boundary="rel-0009"; type="text/html\"""", """--rel-0009
Content-Type: text/html; charset=utf-8

<p>Beautiful! Here is mine from the gorge:</p><p><img src="cid:gorge@example.jp" alt="gorge"></p>
<div class="gmail_quote">On Tue, Mar 3, 2026 at 5:29 PM Jordan Lee wrote:<blockquote>Hi all, the photos from Taroko are attached.</blockquote></div>

--rel-0009
Content-Type: image/png
Content-ID: <gorge@example.jp>
Content-Disposition: inline; filename="gorge.png"
Content-Transfer-Encoding: base64

""" + b64(bytes.fromhex("89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d4944415478da63f8cfc0f01f0005000201a1e0c2920000000049454e44ae426082")) + """
--rel-0009--
""")

# Layla writes to the group in Arabic (right to left), Mei answers in Chinese quoting her.
add("1780000000000000018", "Sat Mar 07 18:20:00 +0000 2026", "1780000000000000003", "Inbox", f"""
From: {ew("ليلى حداد")} <layla.haddad@example.ae>
To: Jordan Lee <jordan@example.org>, Alex Rivera <alex.rivera@example.com>, mei@example.tw,
 "Sato, Hana" <hana.sato@example.jp>
Subject: Re: =?utf-8?Q?Trip_photos_=F0=9F=93=B7?=
Date: Sat, 7 Mar 2026 22:20:00 +0400
Message-ID: <layla-0018@example.ae>
In-Reply-To: <hana-0009@example.jp>
References: <jordan-0003@example.org> <hana-0009@example.jp>
MIME-Version: 1.0
Content-Type: text/plain; charset=utf-8
Content-Transfer-Encoding: base64""", b64("""صور رائعة! شكراً يا جوردن على خريطة المسار.
هل نعود إلى تاروكو في الخريف؟ أقترح نهاية أكتوبر.

ليلى
""".encode()))

add("1780000000000000019", "Sun Mar 08 01:05:00 +0000 2026", "1780000000000000003", "Sent,Opened", f"""
From: {ew("陳美玲")} (Mei-Ling Chen) <mei@example.tw>
To: {ew("ليلى حداد")} <layla.haddad@example.ae>, Jordan Lee <jordan@example.org>,
 Alex Rivera <alex.rivera@example.com>, "Sato, Hana" <hana.sato@example.jp>
Subject: Re: =?utf-8?Q?Trip_photos_=F0=9F=93=B7?=
Date: Sun, 8 Mar 2026 09:05:00 +0800
Message-ID: <mei-0019@example.tw>
In-Reply-To: <layla-0018@example.ae>
References: <jordan-0003@example.org> <hana-0009@example.jp> <layla-0018@example.ae>
MIME-Version: 1.0
Content-Type: text/plain; charset=utf-8
Content-Transfer-Encoding: 8bit""", """好啊！十月底我可以，我來訂花蓮的民宿。

美玲

ليلى حداد <layla.haddad@example.ae> 於 2026年3月8日 週日 上午2:20 寫道：
> صور رائعة! شكراً يا جوردن على خريطة المسار.
> هل نعود إلى تاروكو في الخريف؟ أقترح نهاية أكتوبر.
""")

add("1780000000000000010", "Sun Mar 08 12:00:00 +0000 2026", "1780000000000000010", "Inbox,Unread", """
From: Alex Rivera <alex.rivera@example.com>
To: mei@example.tw
Subject: Out of office: Re: project notes
Date: Sun, 8 Mar 2026 20:00:00 +0800
Message-ID: <auto-0010@mail.example.com>
Auto-Submitted: auto-replied
MIME-Version: 1.0
Content-Type: text/plain; charset=utf-8""", """I am travelling until March 16 with limited access to email.
""")


# Calendar mail: a Google invitation and its update, an Outlook series in a Windows zone name and
# one occurrence cancelled, a flight booked with schema.org markup, a dentist's confirmation in
# plain Chinese text, and a yearly birthday shared from iCloud.
def ics(*lines):
    return "\r\n".join(lines) + "\r\n"

def invitation(boundary, text, method, calendar, html=None):
    alt = f"""--{boundary}-alt
Content-Type: text/plain; charset=utf-8
Content-Transfer-Encoding: quoted-printable

{qp(text)}
"""
    if html:
        alt += f"""--{boundary}-alt
Content-Type: text/html; charset=utf-8

{html}
"""
    return f"""--{boundary}
Content-Type: multipart/alternative; boundary="{boundary}-alt"

{alt}--{boundary}-alt
Content-Type: text/calendar; charset=utf-8; method={method}
Content-Transfer-Encoding: base64

{b64(calendar.encode())}--{boundary}-alt--

--{boundary}
Content-Type: application/ics; name="invite.ics"
Content-Disposition: attachment; filename="invite.ics"
Content-Transfer-Encoding: base64

{b64(calendar.encode())}--{boundary}--
"""

def google_event(sequence, start, end, dtstamp, created):
    return ics(
        "BEGIN:VCALENDAR", "PRODID:-//Google Inc//Google Calendar 70.9054//EN", "VERSION:2.0",
        "CALSCALE:GREGORIAN", "METHOD:REQUEST",
        "BEGIN:VEVENT",
        f"DTSTART;TZID=Asia/Taipei:{start}", f"DTEND;TZID=Asia/Taipei:{end}", f"DTSTAMP:{dtstamp}",
        "ORGANIZER;CN=Jordan Lee:mailto:jordan@example.org",
        "UID:3k9v2trip0planning7q@google.com",
        "ATTENDEE;CUTYPE=INDIVIDUAL;ROLE=REQ-PARTICIPANT;PARTSTAT=ACCEPTED;CN=Jordan Lee;X-NUM-GUESTS=0:mailto:jordan@example.org",
        "ATTENDEE;CUTYPE=INDIVIDUAL;ROLE=REQ-PARTICIPANT;PARTSTAT=NEEDS-ACTION;RSVP=TRUE;CN=mei@example.tw;X-NUM-GUESTS=0:mailto:mei@example.tw",
        "ATTENDEE;CUTYPE=INDIVIDUAL;ROLE=REQ-PARTICIPANT;PARTSTAT=NEEDS-ACTION;RSVP=TRUE;CN=Alex Rivera;X-NUM-GUESTS=0:mailto:alex.rivera@example.com",
        "ATTENDEE;CUTYPE=INDIVIDUAL;ROLE=OPT-PARTICIPANT;PARTSTAT=NEEDS-ACTION;RSVP=TRUE;CN=Sato\\, Hana;X-NUM-GUESTS=0:mailto:hana.sato@example.jp",
        "X-GOOGLE-CONFERENCE:https://meet.google.com/tkq-rvmz-hdw",
        f"CREATED:{created}",
        "DESCRIPTION:Where next? Bring ideas (and the photos).\\n\\nJoin with Google Meet: https://meet.google.com/tkq-rvmz-hdw",
        f"LAST-MODIFIED:{dtstamp}", "LOCATION:", f"SEQUENCE:{sequence}", "STATUS:CONFIRMED",
        "SUMMARY:Taroko trip: where next?", "TRANSP:OPAQUE",
        "END:VEVENT", "END:VCALENDAR")

add("1780000000000000011", "Mon Mar 09 02:00:03 +0000 2026", "1780000000000000011", "Inbox", """
From: Jordan Lee <jordan@example.org>
Sender: Google Calendar <calendar-notification@google.com>
Reply-To: jordan@example.org
To: mei@example.tw
Subject: Invitation: Taroko trip: where next? @ Thu Mar 12, 2026 8pm - 9pm (GMT+8) (mei@example.tw)
Date: Mon, 09 Mar 2026 02:00:02 +0000
Message-ID: <000000000000a1b2c3trip0011@google.com>
MIME-Version: 1.0
Content-Type: multipart/mixed; boundary="gcal-0011\"""", invitation("gcal-0011", """You have been invited to the following event.

Taroko trip: where next?
Thursday Mar 12, 2026 8pm - 9pm (Taipei Standard Time)
Join with Google Meet: https://meet.google.com/tkq-rvmz-hdw
""", "REQUEST", google_event(0, "20260312T200000", "20260312T210000", "20260309T020002Z", "20260309T015911Z")))

add("1780000000000000012", "Tue Mar 10 09:41:20 +0000 2026", "1780000000000000012", "Inbox", """
From: Jordan Lee <jordan@example.org>
Sender: Google Calendar <calendar-notification@google.com>
Reply-To: jordan@example.org
To: mei@example.tw
Subject: Updated invitation: Taroko trip: where next? @ Fri Mar 13, 2026 8:30pm - 9:30pm (GMT+8) (mei@example.tw)
Date: Tue, 10 Mar 2026 09:41:19 +0000
Message-ID: <000000000000d4e5f6trip0012@google.com>
MIME-Version: 1.0
Content-Type: multipart/mixed; boundary="gcal-0012\"""", invitation("gcal-0012", """This event has been changed.

Taroko trip: where next?
Changed: Friday Mar 13, 2026 8:30pm - 9:30pm (Taipei Standard Time)
Join with Google Meet: https://meet.google.com/tkq-rvmz-hdw
""", "REQUEST", google_event(1, "20260313T203000", "20260313T213000", "20260310T094119Z", "20260309T015911Z")))

taipei_vtimezone = ("BEGIN:VTIMEZONE", "TZID:Taipei Standard Time", "BEGIN:STANDARD",
                    "DTSTART:16010101T000000", "TZOFFSETFROM:+0800", "TZOFFSETTO:+0800", "END:STANDARD",
                    "BEGIN:DAYLIGHT", "DTSTART:16010101T000000", "TZOFFSETFROM:+0800", "TZOFFSETTO:+0800",
                    "END:DAYLIGHT", "END:VTIMEZONE")

def outlook_review(method, sequence, dtstamp, *occurrence):
    return ics(
        "BEGIN:VCALENDAR", f"METHOD:{method}", "PRODID:Microsoft Exchange Server 2010", "VERSION:2.0",
        *taipei_vtimezone,
        "BEGIN:VEVENT",
        "ORGANIZER;CN=Lin Wei:mailto:wei.lin@contoso.example",
        "ATTENDEE;ROLE=REQ-PARTICIPANT;PARTSTAT=NEEDS-ACTION;RSVP=TRUE;CN=Mei-Ling Chen:mailto:mei@example.tw",
        "DESCRIPTION;LANGUAGE=en-US:Fifteen minutes of designs\\, fifteen of questions.\\n",
        "UID:040000008200E00074C5B7101A82E00800000000B0C7D6F1A2ACDC01000000000000000010000000",
        *occurrence,
        "SUMMARY;LANGUAGE=en-US:" + ("Canceled: " if method == "CANCEL" else "") + "Weekly design review",
        "DTSTART;TZID=Taipei Standard Time:" + ("20260317T100000" if occurrence else "20260310T100000"),
        "DTEND;TZID=Taipei Standard Time:" + ("20260317T103000" if occurrence else "20260310T103000"),
        "CLASS:PUBLIC", "PRIORITY:5", f"DTSTAMP:{dtstamp}", "TRANSP:OPAQUE",
        "STATUS:" + ("CANCELLED" if method == "CANCEL" else "CONFIRMED"), f"SEQUENCE:{sequence}",
        "LOCATION;LANGUAGE=en-US:Microsoft Teams Meeting",
        "X-MICROSOFT-CDO-APPT-SEQUENCE:" + str(sequence),
        "X-MICROSOFT-SKYPETEAMSMEETINGURL:https://teams.microsoft.com/l/meetup-join/19%3ameeting_design0review%40thread.v2/0",
        "END:VEVENT", "END:VCALENDAR")

outlook_series = outlook_review("REQUEST", 0, "20260306T013000Z").replace(
    "SUMMARY;", "RRULE:FREQ=WEEKLY;COUNT=8;BYDAY=TU\r\nSUMMARY;")

add("1780000000000000013", "Fri Mar 06 01:30:07 +0000 2026", "1780000000000000013", "Inbox", """
From: Lin Wei <wei.lin@contoso.example>
To: Mei-Ling Chen <mei@example.tw>
Subject: Weekly design review
Date: Fri, 6 Mar 2026 01:30:00 +0000
Message-ID: <TY2PR01MB0013DESIGN@TY2PR01MB0013.apcprd01.prod.exchangelabs.com>
Thread-Topic: Weekly design review
MIME-Version: 1.0
Content-Type: multipart/mixed; boundary="ol-0013\"""", invitation("ol-0013", """Every Tuesday, 10:00 to 10:30 (Taipei), eight weeks from March 10.

Microsoft Teams meeting
Join: https://teams.microsoft.com/l/meetup-join/19%3ameeting_design0review%40thread.v2/0
""", "REQUEST", outlook_series))

add("1780000000000000014", "Mon Mar 09 06:12:40 +0000 2026", "1780000000000000013", "Inbox", """
From: Lin Wei <wei.lin@contoso.example>
To: Mei-Ling Chen <mei@example.tw>
Subject: Canceled: Weekly design review
Date: Mon, 9 Mar 2026 06:12:38 +0000
Message-ID: <TY2PR01MB0014CANCEL@TY2PR01MB0013.apcprd01.prod.exchangelabs.com>
Thread-Topic: Weekly design review
MIME-Version: 1.0
Content-Type: multipart/mixed; boundary="ol-0014\"""", invitation("ol-0014", """No review on March 17: most of us are at the trade fair.
""", "CANCEL", outlook_review("CANCEL", 1, "20260309T061238Z",
                              "RECURRENCE-ID;TZID=Taipei Standard Time:20260317T100000")))

flight = """{
  "@context": "http://schema.org",
  "@type": "FlightReservation",
  "reservationNumber": "7XKQ2M",
  "reservationStatus": "http://schema.org/ReservationConfirmed",
  "underName": {"@type": "Person", "name": "CHEN/MEILING MS"},
  "reservationFor": {
    "@type": "Flight",
    "flightNumber": "198",
    "airline": {"@type": "Airline", "name": "EVA Air", "iataCode": "BR"},
    "departureAirport": {"@type": "Airport", "name": "Taiwan Taoyuan International Airport", "iataCode": "TPE"},
    "departureTime": "2026-03-24T08:50:00+08:00",
    "arrivalAirport": {"@type": "Airport", "name": "Narita International Airport", "iataCode": "NRT"},
    "arrivalTime": "2026-03-24T13:05:00+09:00"
  }
}"""

add("1780000000000000015", "Mon Mar 09 11:20:00 +0000 2026", "1780000000000000015", "Inbox,Category Updates", """
From: EVA Air <no-reply@booking.evaair.example>
To: mei@example.tw
Subject: Booking confirmed: Taipei to Tokyo, 24 Mar 2026 (7XKQ2M)
Date: Mon, 9 Mar 2026 19:19:58 +0800
Message-ID: <booking-7XKQ2M-0015@booking.evaair.example>
MIME-Version: 1.0
Content-Type: text/html; charset=utf-8
Content-Transfer-Encoding: quoted-printable""", qp(f"""<html><head><script type="application/ld+json">{flight}</script></head>
<body><h1>Your booking is confirmed</h1>
<p>Booking reference <b>7XKQ2M</b></p>
<table><tr><td>BR198</td><td>Taipei (TPE) 08:50</td><td>Tokyo Narita (NRT) 13:05</td><td>Tue 24 Mar 2026</td></tr></table>
<p><a href="https://booking.evaair.example/manage?pnr=7XKQ2M">Manage booking</a></p>
</body></html>
"""))

add("1780000000000000016", "Tue Mar 10 01:05:00 +0000 2026", "1780000000000000016", "Inbox", f"""
From: {ew("仁愛牙醫診所")} <service@renai-dental.example.tw>
To: mei@example.tw
Subject: {ew("預約確認通知")}
Date: Tue, 10 Mar 2026 09:04:57 +0800
Message-ID: <appt-20260320-0016@renai-dental.example.tw>
MIME-Version: 1.0
Content-Type: text/plain; charset=utf-8
Content-Transfer-Encoding: base64""", b64("""陳美玲 您好：

您的洗牙預約已確認：
日期：3月20日（五）
時間：下午2:30
地點：台北市大安區仁愛路四段100號2樓

如需更改，請來電 (02) 2700-0000。
""".encode()))

birthday = ics(
    "BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//Apple Inc.//iPhone OS 19.3//EN", "METHOD:REQUEST",
    "BEGIN:VEVENT", "UID:8E1C2A4F-5B3D-4C8E-9F21-0A7B6C5D4E3F", "DTSTAMP:20260310T123004Z",
    "DTSTART;VALUE=DATE:20260402", "DTEND;VALUE=DATE:20260403", "RRULE:FREQ=YEARLY",
    "SUMMARY:爸爸生日 (Dad's birthday)", "SEQUENCE:0", "STATUS:CONFIRMED", "TRANSP:TRANSPARENT",
    "ORGANIZER;CN=陳偉傑:mailto:weijie@example.tw",
    "ATTENDEE;CN=陳美玲;PARTSTAT=NEEDS-ACTION;ROLE=REQ-PARTICIPANT;RSVP=TRUE:mailto:mei@example.tw",
    "BEGIN:VALARM", "ACTION:DISPLAY", "DESCRIPTION:Reminder", "TRIGGER:-P1D", "END:VALARM",
    "END:VEVENT", "END:VCALENDAR")

add("1780000000000000017", "Tue Mar 10 12:30:06 +0000 2026", "1780000000000000017", "Inbox", f"""
From: {ew("陳偉傑")} <weijie@example.tw>
To: {ew("陳美玲")} <mei@example.tw>
Subject: {ew("邀請：爸爸生日")}
Date: Tue, 10 Mar 2026 20:30:04 +0800
Message-ID: <8E1C2A4F-0017@example.tw>
MIME-Version: 1.0
Content-Type: multipart/mixed; boundary="apple-0017\"""", invitation("apple-0017", """陳偉傑 邀請你參加「爸爸生日」：每年 4 月 2 日。
""", "REQUEST", birthday))

with open(__file__.rsplit("/", 1)[0] + "/sample.mbox" if "/" in __file__ else "sample.mbox", "wb") as f:
    f.write(b"\n".join(messages))
