#!/usr/bin/env python3
"""Writes sample.mbox: a small Gmail-Takeout-style mailbox for `make pipeline` and the tests.

The mailbox of Mei-Ling Chen <mei@example.tw>: a 1:1 conversation, a group thread with an
attachment and an inline image, a newsletter with tracking, shipping notices (Taiwan and UPS),
a discussion list post, a Japanese message and an auto-reply; charsets utf-8, big5,
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

add("1780000000000000003", "Tue Mar 03 08:30:00 +0000 2026", "1780000000000000003", "Inbox,Unread", """
From: Jordan Lee <jordan@example.org>
To: Alex Rivera <alex.rivera@example.com>, mei@example.tw
Cc: "Sato, Hana" <hana.sato@example.jp>
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

add("1780000000000000009", "Sat Mar 07 06:00:00 +0000 2026", "1780000000000000003", "Inbox", """
From: "Sato, Hana" <hana.sato@example.jp>
To: Jordan Lee <jordan@example.org>, Alex Rivera <alex.rivera@example.com>, mei@example.tw
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

with open(__file__.rsplit("/", 1)[0] + "/sample.mbox" if "/" in __file__ else "sample.mbox", "wb") as f:
    f.write(b"\n".join(messages))
