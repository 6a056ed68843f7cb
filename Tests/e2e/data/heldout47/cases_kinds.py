"""Classes 3 (bounces), 4 (TLS and DMARC reports), 5 (read receipts), 6 (a service acting for a person)."""
import json


def auto(kind):
    return {"mail_kind": "automated", "automated_kind": kind, "acted_by": None, "service_action": None}


NOT_AUTOMATED = {"mail_kind": {"not": "automated"}, "automated_kind": None}


def add_kinds(ctx):
    add_bounces(ctx)
    add_reports(ctx)
    add_receipts(ctx)
    add_services(ctx)


ORIGINAL = """Return-Path: <kit.morrow@example.net>
Received: from [192.168.1.20] (dsl-203-0-113-7.example.net [203.0.113.7])
	by smtp.example.net (Postfix) with ESMTPSA id 4Zk9Q21s7Vz9sWb
	for <{rcpt}>; {date}
From: Kit Morrow <kit.morrow@example.net>
To: {rcpt}
Subject: {subject}
Date: {date}
Message-ID: <{orig_id}>
MIME-Version: 1.0
Content-Type: text/plain; charset=UTF-8; format=flowed
Content-Transfer-Encoding: 7bit
"""


def add_bounces(ctx):
    write, case = ctx["write"], ctx["case"]

    # Postfix bounce(8): From MAILER-DAEMON (Mail Delivery System), "Undelivered Mail Returned to
    # Sender", multipart/report; report-type=delivery-status [text/plain notification,
    # message/delivery-status, message/rfc822 (or text/rfc822-headers)].
    orig = ORIGINAL.format(rcpt="t.brandt@example.org", date="Mon, 23 Nov 2026 10:02:11 +0100",
                           subject="Rehearsal room keys", orig_id="hx47-orig1@example.net")
    f = write("bounce/postfix-dsn.eml", f"""
Return-Path: <>
Delivered-To: kit.morrow@example.net
Received: by smtp.example.net (Postfix)
	id 4Zk9Q3B2r1z9sWd; Mon, 23 Nov 2026 10:02:14 +0100 (CET)
Date: Mon, 23 Nov 2026 10:02:14 +0100 (CET)
From: MAILER-DAEMON@smtp.example.net (Mail Delivery System)
Subject: Undelivered Mail Returned to Sender
To: kit.morrow@example.net
Auto-Submitted: auto-replied
MIME-Version: 1.0
Content-Type: multipart/report; report-type=delivery-status;
	boundary="4Zk9Q3B2r1z9sWd.1764838934/smtp.example.net"
Content-Transfer-Encoding: 8bit
Message-Id: <hx47-b1-20261123090214.4Zk9Q3B2r1z9sWd@smtp.example.net>

This is a MIME-encapsulated message.

--4Zk9Q3B2r1z9sWd.1764838934/smtp.example.net
Content-Description: Notification
Content-Type: text/plain; charset=utf-8
Content-Transfer-Encoding: 8bit

This is the mail system at host smtp.example.net.

I'm sorry to have to inform you that your message could not
be delivered to one or more recipients. It's attached below.

For further assistance, please send mail to postmaster.

If you do so, please include this problem report. You can
delete your own text from the attached returned message.

                   The mail system

<t.brandt@example.org>: host mx1.example.org[198.51.100.25] said: 550 5.1.1
    <t.brandt@example.org>: Recipient address rejected: User unknown in virtual
    mailbox table (in reply to RCPT TO command)

--4Zk9Q3B2r1z9sWd.1764838934/smtp.example.net
Content-Description: Delivery report
Content-Type: message/delivery-status

Reporting-MTA: dns; smtp.example.net
X-Postfix-Queue-ID: 4Zk9Q21s7Vz9sWb
X-Postfix-Sender: rfc822; kit.morrow@example.net
Arrival-Date: Mon, 23 Nov 2026 10:02:11 +0100 (CET)

Final-Recipient: rfc822; t.brandt@example.org
Original-Recipient: rfc822;t.brandt@example.org
Action: failed
Status: 5.1.1
Remote-MTA: dns; mx1.example.org
Diagnostic-Code: smtp; 550 5.1.1 <t.brandt@example.org>: Recipient address
    rejected: User unknown in virtual mailbox table

--4Zk9Q3B2r1z9sWd.1764838934/smtp.example.net
Content-Description: Undelivered Message
Content-Type: message/rfc822
Content-Transfer-Encoding: 8bit

{orig}
Hi Tobias, the keys are with the caretaker from Thursday.

Kit

--4Zk9Q3B2r1z9sWd.1764838934/smtp.example.net--
""")
    case("bounce", "postfix-dsn", f, auto("bounce"), "Postfix bounce(8): multipart/report; report-type=delivery-status")

    # Exim without a DSN: plain text, "Mail delivery failed: returning message to sender",
    # "This message was created automatically by mail delivery software." and the copy below
    # "------ This is a copy of the message, including all the headers. ------".
    orig = ORIGINAL.format(rcpt="m.osei@example.co.uk", date="Mon, 23 Nov 2026 11:40:00 +0000",
                           subject="Invoice 2026-117", orig_id="hx47-orig2@example.net")
    f = write("bounce/exim-plain.eml", f"""
Return-path: <>
Envelope-to: kit.morrow@example.net
Delivery-date: Mon, 23 Nov 2026 11:40:06 +0000
Received: from mailnull by relay.example.co.uk with local (Exim 4.97)
	id 1tEsYb-0003Kq-2T
	for kit.morrow@example.net; Mon, 23 Nov 2026 11:40:05 +0000
X-Failed-Recipients: m.osei@example.co.uk
Auto-Submitted: auto-replied
From: Mail Delivery System <Mailer-Daemon@relay.example.co.uk>
To: kit.morrow@example.net
Content-Type: text/plain; charset=us-ascii
Subject: Mail delivery failed: returning message to sender
Message-Id: <hx47-b2-E1tEsYb-0003Kq-2T@relay.example.co.uk>
Date: Mon, 23 Nov 2026 11:40:05 +0000

This message was created automatically by mail delivery software.

A message that you sent could not be delivered to one or more of its
recipients. This is a permanent error. The following address(es) failed:

  m.osei@example.co.uk
    host mx.example.co.uk [192.0.2.44]
    SMTP error from remote mail server after RCPT TO:<m.osei@example.co.uk>:
    550 5.2.1 The email account that you tried to reach is disabled.

------ This is a copy of the message, including all the headers. ------

{orig}
Dear Mr Osei, please find the invoice for November attached.

Kit Morrow
""")
    case("bounce", "exim-plain", f, auto("bounce"), "Exim 4: plain-text bounce, no multipart/report")

    # qmail-send: From MAILER-DAEMON, "failure notice", "Hi. This is the qmail-send program at".
    orig = ORIGINAL.format(rcpt="holger@example.de", date="Tue, 24 Nov 2026 08:15:30 +0100",
                           subject="Choir scores", orig_id="hx47-orig3@example.net")
    f = write("bounce/qmail-failure-notice.eml", f"""
Return-Path: <>
Delivered-To: kit.morrow@example.net
Date: 24 Nov 2026 07:15:33 -0000
From: MAILER-DAEMON@mail.example.de
To: kit.morrow@example.net
Subject: failure notice
Message-ID: <hx47-b3-1764054933.81723.qmail@mail.example.de>

Hi. This is the qmail-send program at mail.example.de.
I'm afraid I wasn't able to deliver your message to the following addresses.
This is a permanent error; I've given up. Sorry it didn't work out.

<holger@example.de>:
Sorry, no mailbox here by that name. (#5.1.1)

--- Below this line is a copy of the message.

{orig}
Holger, the scores for Sunday are on the shelf by the piano.
""")
    case("bounce", "qmail-failure-notice", f, auto("bounce"), "qmail-send: 'failure notice' text with the copy below a marker line")

    # Yahoo: MAILER-DAEMON@yahoo.com, "Failure Notice", qmail-like wording with Yahoo's
    # "Sorry, we were unable to deliver your message to the following address."
    orig = ORIGINAL.format(rcpt="ritaparedes77@yahoo.com", date="Tue, 24 Nov 2026 12:01:00 +0000",
                           subject="Book club in December", orig_id="hx47-orig4@example.net")
    f = write("bounce/yahoo-failure-notice.eml", f"""
Return-Path: <>
Delivered-To: kit.morrow@example.net
Received: from sonic301-21.consmr.mail.bf2.yahoo.com (sonic301-21.consmr.mail.bf2.yahoo.com [203.0.113.81])
	by mx.example.net (Postfix) with ESMTPS id 4ZkB2m0qXPz1xyZ
	for <kit.morrow@example.net>; Tue, 24 Nov 2026 12:01:09 +0000 (UTC)
From: MAILER-DAEMON@yahoo.com
To: kit.morrow@example.net
Subject: Failure Notice
Date: Tue, 24 Nov 2026 12:01:08 +0000
Message-ID: <hx47-b4-1764.1185.yahoo@sonic301-21.consmr.mail.bf2.yahoo.com>
MIME-Version: 1.0
Content-Type: text/plain; charset=us-ascii
Content-Transfer-Encoding: 7bit

Sorry, we were unable to deliver your message to the following address.

<ritaparedes77@yahoo.com>:
554: delivery error: dd Not a valid recipient - atlas114.free.mail.ne1.yahoo.com

--- Below this line is a copy of the message.

{orig}
Rita, we meet on the 9th at the library cafe.
""")
    case("bounce", "yahoo-failure-notice", f, auto("bounce"), "Yahoo: 'Failure Notice' from MAILER-DAEMON@yahoo.com, plain text, no report-type")

    # Gmail: Mail Delivery Subsystem <mailer-daemon@googlemail.com>, "Delivery Status
    # Notification (Failure)", multipart/report with a multipart/related human part,
    # message/delivery-status and message/rfc822.
    orig = ORIGINAL.format(rcpt="jun.watanabe@example.jp", date="Wed, 25 Nov 2026 03:10:44 +0000",
                           subject="Photos from Kyoto", orig_id="hx47-orig5@example.net")
    f = write("bounce/gmail-dsn.eml", f"""
Delivered-To: kit.morrow.home@gmail.com
Return-Path: <>
Received: by mail-sor-f69.google.com (Google Transport Security)
	for <kit.morrow.home@gmail.com>; Wed, 25 Nov 2026 03:10:49 -0800 (PST)
From: Mail Delivery Subsystem <mailer-daemon@googlemail.com>
To: kit.morrow.home@gmail.com
Auto-Submitted: auto-replied
Subject: Delivery Status Notification (Failure)
References: <hx47-orig5@example.net>
In-Reply-To: <hx47-orig5@example.net>
X-Failed-Recipients: jun.watanabe@example.jp
Message-ID: <hx47-b5-67455c39.050a0220.2f0e1.73a1.GMR@mx.google.com>
Date: Wed, 25 Nov 2026 03:10:49 -0800 (PST)
MIME-Version: 1.0
Content-Type: multipart/report; boundary="000000000000f1e2d305f2a9b8c7"; report-type=delivery-status

--000000000000f1e2d305f2a9b8c7
Content-Type: multipart/related; boundary="000000000000f1f0e005f2a9b8c8"

--000000000000f1f0e005f2a9b8c8
Content-Type: multipart/alternative; boundary="000000000000f1f0e105f2a9b8c9"

--000000000000f1f0e105f2a9b8c9
Content-Type: text/plain; charset="UTF-8"


** Address not found **

Your message wasn't delivered to jun.watanabe@example.jp because the address couldn't be found, or is unable to receive mail.

Learn more here: https://support.google.com/mail/?p=NoSuchUser

The response from the remote server was:
550 5.1.1 <jun.watanabe@example.jp>: Recipient address rejected: User unknown

--000000000000f1f0e105f2a9b8c9
Content-Type: text/html; charset="UTF-8"

<html><body><h1>Address not found</h1><p>Your message wasn't delivered to <a style='color:#212121;text-decoration:none'><b>jun.watanabe@example.jp</b></a> because the address couldn't be found, or is unable to receive mail.</p><p>The response from the remote server was:</p><p>550 5.1.1 &lt;jun.watanabe@example.jp&gt;: Recipient address rejected: User unknown</p></body></html>

--000000000000f1f0e105f2a9b8c9--
--000000000000f1f0e005f2a9b8c8--

--000000000000f1e2d305f2a9b8c7
Content-Type: message/delivery-status

Reporting-MTA: dns; googlemail.com
Received-From-MTA: dns; kit.morrow.home@gmail.com
Arrival-Date: Wed, 25 Nov 2026 03:10:44 -0800 (PST)
X-Original-Message-ID: <hx47-orig5@example.net>

Final-Recipient: rfc822; jun.watanabe@example.jp
Action: failed
Status: 5.1.1
Remote-MTA: dns; mx.example.jp. (192.0.2.91, the server for the domain example.jp.)
Diagnostic-Code: smtp; 550 5.1.1 <jun.watanabe@example.jp>: Recipient address rejected: User unknown
Last-Attempt-Date: Wed, 25 Nov 2026 03:10:49 -0800 (PST)

--000000000000f1e2d305f2a9b8c7
Content-Type: message/rfc822

{orig}
Jun, the photos are in the album I sent last week.

--000000000000f1e2d305f2a9b8c7--
""")
    case("bounce", "gmail-dsn", f, auto("bounce"), "Gmail: Delivery Status Notification (Failure), multipart/report with multipart/related human part")

    # Exchange Online NDR: postmaster@<tenant>.onmicrosoft.com as "Microsoft Outlook",
    # "Undeliverable: <subject>", multipart/report; report-type=delivery-status with an HTML/plain
    # human part, message/delivery-status and text/rfc822-headers.
    f = write("bounce/exchange-online-ndr.eml", """
Received: from AM0PR01MB6402.eurprd01.prod.exchangelabs.com (2603:10a6:208:11c::15)
 by AM0PR01MB6402.eurprd01.prod.exchangelabs.com with mapi id 15.20.8182.019;
 Thu, 26 Nov 2026 09:30:02 +0000
MIME-Version: 1.0
From: Microsoft Outlook <postmaster@fabrikamexample.onmicrosoft.com>
To: Ravi Menon <ravi.menon@example.com>
Date: Thu, 26 Nov 2026 09:30:02 +0000
Content-Type: multipart/report; report-type=delivery-status;
	boundary="4d1f7e8a-2b3c-4d5e-9f60-718293a4b5c6"
X-MS-Exchange-Message-Is-Ndr:
Content-Language: en-US
Message-ID: <hx47-b6-4d1f7e8a2b3c@AM0PR01MB6402.eurprd01.prod.exchangelabs.com>
In-Reply-To: <hx47-orig6@AM9PR01MB7711.eurprd01.prod.exchangelabs.com>
References: <hx47-orig6@AM9PR01MB7711.eurprd01.prod.exchangelabs.com>
Thread-Topic: Q4 supplier list
Thread-Index: AQHbP0c1xK2pL7t0V0e3w9nQm4b7Xg==
Subject: Undeliverable: Q4 supplier list
Auto-Submitted: auto-replied
X-MS-Exchange-Organization-SCL: -1

--4d1f7e8a-2b3c-4d5e-9f60-718293a4b5c6
Content-Type: multipart/alternative;
	boundary="9e8d7c6b-5a49-3827-1605-f4e3d2c1b0a9"

--9e8d7c6b-5a49-3827-1605-f4e3d2c1b0a9
Content-Type: text/plain; charset="us-ascii"
Content-Transfer-Encoding: quoted-printable

Your message to procurement@example-supplier.net couldn't be delivered.

procurement wasn't found at example-supplier.net.

Ravi.Menon          Office 365       procurement
Action Required                      Recipient

Unknown To address

How to Fix It
The address may be misspelled or may not exist. Try one or more of the foll=
owing:

Diagnostic information for administrators:

Generating server: AM0PR01MB6402.eurprd01.prod.exchangelabs.com

procurement@example-supplier.net
Remote server returned '550 5.1.10 RESOLVER.ADR.RecipientNotFound; Recipien=
t not found by SMTP address lookup'

--9e8d7c6b-5a49-3827-1605-f4e3d2c1b0a9
Content-Type: text/html; charset="us-ascii"
Content-Transfer-Encoding: quoted-printable

<html><head></head><body><p>Your message to procurement@example-supplier.ne=
t couldn't be delivered.</p><p>procurement wasn't found at example-supplier=
.net.</p></body></html>

--9e8d7c6b-5a49-3827-1605-f4e3d2c1b0a9--

--4d1f7e8a-2b3c-4d5e-9f60-718293a4b5c6
Content-Type: message/delivery-status

Reporting-MTA: dns;AM0PR01MB6402.eurprd01.prod.exchangelabs.com
Received-From-MTA: dns;AM9PR01MB7711.eurprd01.prod.exchangelabs.com
Arrival-Date: Thu, 26 Nov 2026 09:29:58 +0000

Final-Recipient: rfc822;procurement@example-supplier.net
Action: failed
Status: 5.1.10
Diagnostic-Code: smtp;550 5.1.10 RESOLVER.ADR.RecipientNotFound; Recipient not found by SMTP address lookup

--4d1f7e8a-2b3c-4d5e-9f60-718293a4b5c6
Content-Type: text/rfc822-headers

From: Ravi Menon <ravi.menon@example.com>
To: "procurement@example-supplier.net" <procurement@example-supplier.net>
Subject: Q4 supplier list
Date: Thu, 26 Nov 2026 09:29:55 +0000
Message-ID: <hx47-orig6@AM9PR01MB7711.eurprd01.prod.exchangelabs.com>

--4d1f7e8a-2b3c-4d5e-9f60-718293a4b5c6--
""", crlf=True)
    case("bounce", "exchange-online-ndr", f, auto("bounce"), "Exchange Online NDR: 'Undeliverable:' from postmaster@…onmicrosoft.com (Microsoft Outlook), DSN")

    # Posteo runs Postfix: a delay warning (Action: delayed) is a bounce kind too.
    orig = ORIGINAL.format(rcpt="anke.weiss@example.de", date="Thu, 26 Nov 2026 14:00:00 +0100",
                           subject="Nebenkostenabrechnung", orig_id="hx47-orig7@posteo.de")
    f = write("bounce/posteo-delayed.eml", f"""
Return-Path: <>
Delivered-To: kit.morrow@posteo.de
Date: Thu, 26 Nov 2026 18:00:21 +0100 (CET)
From: MAILER-DAEMON@mout02.posteo.de (Mail Delivery System)
Subject: Delayed Mail (still being retried)
To: kit.morrow@posteo.de
Auto-Submitted: auto-replied
MIME-Version: 1.0
Content-Type: multipart/report; report-type=delivery-status;
	boundary="4ZkQ7h0N1Jz9rxP.1764176421/mout02.posteo.de"
Content-Transfer-Encoding: 8bit
Message-Id: <hx47-b7-4ZkQ7h0N1Jz9rxP@mout02.posteo.de>

This is a MIME-encapsulated message.

--4ZkQ7h0N1Jz9rxP.1764176421/mout02.posteo.de
Content-Description: Notification
Content-Type: text/plain; charset=utf-8
Content-Transfer-Encoding: 8bit

This is the mail system at host mout02.posteo.de.

####################################################################
# THIS IS A WARNING ONLY.  YOU DO NOT NEED TO RESEND YOUR MESSAGE. #
####################################################################

Your message could not be delivered for more than 4 hour(s).
It will be retried until it is 5 day(s) old.

For further assistance, please send mail to postmaster.

                   The mail system

<anke.weiss@example.de>: connect to mx.example.de[192.0.2.120]:25: Connection
    timed out

--4ZkQ7h0N1Jz9rxP.1764176421/mout02.posteo.de
Content-Description: Delivery report
Content-Type: message/delivery-status

Reporting-MTA: dns; mout02.posteo.de
X-Postfix-Queue-ID: 4ZkQ7h0N1Jz9rxP
X-Postfix-Sender: rfc822; kit.morrow@posteo.de
Arrival-Date: Thu, 26 Nov 2026 14:00:02 +0100 (CET)

Final-Recipient: rfc822; anke.weiss@example.de
Original-Recipient: rfc822;anke.weiss@example.de
Action: delayed
Status: 4.4.1
Diagnostic-Code: X-Postfix; connect to mx.example.de[192.0.2.120]:25: Connection
    timed out
Will-Retry-Until: Tue, 1 Dec 2026 14:00:02 +0100 (CET)

--4ZkQ7h0N1Jz9rxP.1764176421/mout02.posteo.de
Content-Description: Undelivered Message Headers
Content-Type: text/rfc822-headers
Content-Transfer-Encoding: 8bit

{orig}
--4ZkQ7h0N1Jz9rxP.1764176421/mout02.posteo.de--
""")
    case("bounce", "posteo-delayed", f, auto("bounce"), "Posteo (Postfix): 'Delayed Mail (still being retried)', Action: delayed")

    # Tiscali's mail-daemon: a multipart/report without report-type, the status in a
    # message/delivery-status part, the human part in Italian and English.
    f = write("bounce/tiscali-mail-daemon.eml", """
Return-Path: <>
Delivered-To: kit.morrow@example.net
Received: from smtp203.tiscali.it (smtp203.tiscali.it [192.0.2.203])
	by mx.example.net (Postfix) with ESMTPS id 4ZkR1c2DkTz1yAb
	for <kit.morrow@example.net>; Fri, 27 Nov 2026 10:12:40 +0100 (CET)
From: mail-daemon@smtp203.tiscali.it
To: kit.morrow@example.net
Subject: Messaggio non recapitato / Undelivered message
Date: Fri, 27 Nov 2026 10:12:39 +0100
Message-ID: <hx47-b8-20261127101239.7F2A1C0041@smtp203.tiscali.it>
MIME-Version: 1.0
Content-Type: multipart/report; boundary="=_mdsn_7F2A1C0041"

--=_mdsn_7F2A1C0041
Content-Type: text/plain; charset=iso-8859-1
Content-Transfer-Encoding: quoted-printable

Il messaggio non =E8 stato recapitato ai seguenti destinatari.
Your message could not be delivered to the following recipients.

  giulia.ferri@tiscali.it
    550 5.2.2 casella piena / mailbox full

--=_mdsn_7F2A1C0041
Content-Type: message/delivery-status

Reporting-MTA: dns; smtp203.tiscali.it

Final-Recipient: rfc822; giulia.ferri@tiscali.it
Action: failed
Status: 5.2.2
Diagnostic-Code: smtp; 550 5.2.2 mailbox full

--=_mdsn_7F2A1C0041
Content-Type: text/rfc822-headers

From: Kit Morrow <kit.morrow@example.net>
To: giulia.ferri@tiscali.it
Subject: Recipe for the panettone
Date: Fri, 27 Nov 2026 10:12:30 +0100
Message-ID: <hx47-orig8@example.net>

--=_mdsn_7F2A1C0041--
""")
    case("bounce", "tiscali-mail-daemon", f, auto("bounce"), "mail-daemon@ bounce: multipart/report WITHOUT report-type, a delivery-status part (the issue's case)")

    # Look-alikes: a person forwarding a bounce; a help-desk newsletter about bounces.
    f = write("bounce/lookalike-forwarded-bounce.eml", """
Return-Path: <t.brandt@example.org>
Delivered-To: kit.morrow@example.net
From: Tobias Brandt <t.brandt@example.org>
To: Kit Morrow <kit.morrow@example.net>
Subject: Fwd: Undelivered Mail Returned to Sender
Date: Mon, 23 Nov 2026 12:44:09 +0100
Message-ID: <hx47-look5-c91e@example.org>
MIME-Version: 1.0
Content-Type: text/plain; charset=UTF-8; format=flowed
Content-Transfer-Encoding: 8bit
User-Agent: Mozilla Thunderbird

Kit, my reply to you bounced this morning, see below. Did you change
your address? I'll try your old one too.

Tobias

-------- Forwarded Message --------
Subject: 	Undelivered Mail Returned to Sender
Date: 	Mon, 23 Nov 2026 12:30:02 +0100 (CET)
From: 	Mail Delivery System <MAILER-DAEMON@mx1.example.org>
To: 	t.brandt@example.org

This is the mail system at host mx1.example.org.

I'm sorry to have to inform you that your message could not
be delivered to one or more recipients.

<kit.morrow@example.net>: host mx.example.net[192.0.2.5] said: 552 5.2.2
    Mailbox full (in reply to RCPT TO command)
""")
    case("bounce", "lookalike-forwarded-bounce", f, NOT_AUTOMATED,
         "A person forwarding a Postfix bounce inline (Thunderbird) with their own question", lookalike=True)

    f = write("bounce/lookalike-newsletter-bounces.eml", """
Return-Path: <bounce-mc.us21_8812.4471-kit.morrow=example.net@mail201.example-esp.net>
Delivered-To: kit.morrow@example.net
From: Deliverability Weekly <news@deliverability-weekly.example>
Reply-To: Deliverability Weekly <news@deliverability-weekly.example>
To: kit.morrow@example.net
Subject: Undeliverable? Why "mail delivery failed" messages happen
Date: Wed, 25 Nov 2026 15:00:00 +0000
Message-ID: <hx47-look6.8812.4471@mail201.example-esp.net>
List-Unsubscribe: <https://deliverability-weekly.example/unsubscribe?u=8812&id=4471>, <mailto:unsubscribe-8812@deliverability-weekly.example>
List-Unsubscribe-Post: List-Unsubscribe=One-Click
Precedence: bulk
MIME-Version: 1.0
Content-Type: text/plain; charset=utf-8

This week: bounces explained.

When a message cannot be delivered, the receiving server sends back a
"Mail delivery failed" or "Undelivered Mail Returned to Sender" notice,
usually from MAILER-DAEMON. A 5.1.1 status means the user is unknown;
4.x.x codes are temporary and the sender keeps retrying.

Read the full issue: https://deliverability-weekly.example/issues/112

You receive this because you subscribed at deliverability-weekly.example.
Unsubscribe: https://deliverability-weekly.example/unsubscribe?u=8812&id=4471
""")
    case("bounce", "lookalike-newsletter-bounces", f, {"mail_kind": "newsletter", "automated_kind": None},
         "A newsletter whose subject and text talk about bounces", lookalike=True)


def add_reports(ctx):
    write, case, b64, gzip, zipfile, io = (ctx[k] for k in ("write", "case", "b64", "gzip", "zipfile", "io"))

    def gz(text):
        return gzip.compress(text.encode(), mtime=0)

    def zipped(name, text):
        buf = io.BytesIO()
        with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
            info = zipfile.ZipInfo(name, date_time=(2026, 11, 26, 0, 0, 0))
            z.writestr(info, text)
        return buf.getvalue()

    def tlsrpt_json(org, domain, mx, fails=0):
        return json.dumps({
            "organization-name": org, "date-range": {"start-datetime": "2026-11-26T00:00:00Z",
                                                     "end-datetime": "2026-11-26T23:59:59Z"},
            "contact-info": f"smtp-tls-reporting@{org.lower().replace(' ', '')}", "report-id": f"2026-11-26T00:00:00Z_{domain}",
            "policies": [{"policy": {"policy-type": "sts", "policy-string": ["version: STSv1", "mode: enforce",
                                                                               f"mx: {mx}", "max_age: 86400"],
                                     "policy-domain": domain, "mx-host": [mx]},
                          "summary": {"total-successful-session-count": 214, "total-failure-session-count": fails}}]})

    def dmarc_xml(org, email, domain, ip):
        return f"""<?xml version="1.0" encoding="UTF-8" ?>
<feedback>
  <report_metadata>
    <org_name>{org}</org_name>
    <email>{email}</email>
    <report_id>1764115200{len(org)}</report_id>
    <date_range><begin>1764115200</begin><end>1764201599</end></date_range>
  </report_metadata>
  <policy_published><domain>{domain}</domain><adkim>r</adkim><aspf>r</aspf><p>quarantine</p><sp>quarantine</sp><pct>100</pct></policy_published>
  <record>
    <row><source_ip>{ip}</source_ip><count>12</count><policy_evaluated><disposition>none</disposition><dkim>pass</dkim><spf>pass</spf></policy_evaluated></row>
    <identifiers><header_from>{domain}</header_from></identifiers>
    <auth_results><dkim><domain>{domain}</domain><result>pass</result><selector>s1</selector></dkim><spf><domain>{domain}</domain><result>pass</result></spf></auth_results>
  </record>
</feedback>
"""

    # RFC 8460 §5.3: TLS-Report-Domain and TLS-Report-Submitter headers, multipart/report;
    # report-type="tlsrpt", a human text/plain part and application/tlsrpt+gzip named
    # sender!policy-domain!begin!end!id.json.gz; subject "Report Domain: … Submitter: … Report-ID: <…>".
    data = gz(tlsrpt_json("Google Inc.", "example.net", "mx.example.net"))
    f = write("report/tlsrpt-google.eml", f"""
Delivered-To: tlsrpt@example.net
Return-Path: <noreply-smtp-tls-reporting@google.com>
Received: by mail-sor-f73.google.com with SMTP id 6a1803df08f44-6d8e1f2a3b4so1234567a12.2
        for <tlsrpt@example.net>; Fri, 27 Nov 2026 02:31:12 -0800 (PST)
MIME-Version: 1.0
From: noreply-smtp-tls-reporting@google.com
To: tlsrpt@example.net
Subject: Report Domain: example.net Submitter: google.com Report-ID: <2026.11.26T00.00.00Z+example.net@google.com>
Date: Fri, 27 Nov 2026 02:31:12 -0800
Message-ID: <hx47-r1-000000000000a9c3e205f2c0d1e2@google.com>
TLS-Report-Domain: example.net
TLS-Report-Submitter: google.com
Content-Type: multipart/report; boundary="000000000000b0d4f305f2c0d1e3"; report-type="tlsrpt"

--000000000000b0d4f305f2c0d1e3
Content-Type: text/plain; charset="UTF-8"; format=flowed; delsp=yes

This is an aggregate TLS report from google.com

--000000000000b0d4f305f2c0d1e3
Content-Type: application/tlsrpt+gzip; 
	name="google.com!example.net!1764115200!1764201599!001.json.gz"
Content-Disposition: attachment; 
	filename="google.com!example.net!1764115200!1764201599!001.json.gz"
Content-Transfer-Encoding: base64

{b64(data)}
--000000000000b0d4f305f2c0d1e3--
""")
    case("tls_dmarc_report", "tlsrpt-google", f, auto("tls_report"), "RFC 8460 report from Google (noreply-smtp-tls-reporting@google.com), application/tlsrpt+gzip")

    data = gz(tlsrpt_json("Microsoft Corporation", "example.com", "mx1.example.com", fails=3))
    f = write("report/tlsrpt-microsoft.eml", f"""
Return-Path: <tlsrpt-noreply@microsoft.com>
Delivered-To: postmaster+tls@example.com
Received: from NAM10-DM6-obe.outbound.protection.outlook.com (mail-dm6nam10on2090.outbound.protection.outlook.com [203.0.113.90])
	by mx1.example.com (Postfix) with ESMTPS id 4ZkS0m1Xk2z3wQq
	for <postmaster+tls@example.com>; Fri, 27 Nov 2026 11:05:33 +0000 (UTC)
From: "Microsoft TLS Report" <tlsrpt-noreply@microsoft.com>
To: postmaster+tls@example.com
Subject: Report Domain: example.com Submitter: microsoft.com Report-ID: <133774848000000000+example.com@microsoft.com>
Date: Fri, 27 Nov 2026 11:05:30 +0000
Message-ID: <hx47-r2-b1c2d3e4f5a6@DM6PR10MB1234.namprd10.prod.outlook.com>
TLS-Report-Domain: example.com
TLS-Report-Submitter: microsoft.com
MIME-Version: 1.0
Content-Type: multipart/report; report-type=tlsrpt;
	boundary="_003_TLSRPT_b1c2d3e4f5a6_"

--_003_TLSRPT_b1c2d3e4f5a6_
Content-Type: text/plain; charset="us-ascii"
Content-Transfer-Encoding: 7bit

This is an aggregate TLS report from Microsoft Corporation.

Submitter: microsoft.com
Report Domain: example.com
Report-ID: <133774848000000000+example.com@microsoft.com>

--_003_TLSRPT_b1c2d3e4f5a6_
Content-Type: application/tlsrpt+gzip;
	name="microsoft.com!example.com!1764115200!1764201599!133774848000000000.json.gz"
Content-Disposition: attachment;
	filename="microsoft.com!example.com!1764115200!1764201599!133774848000000000.json.gz"
Content-Transfer-Encoding: base64

{b64(data)}

--_003_TLSRPT_b1c2d3e4f5a6_--
""", crlf=True)
    case("tls_dmarc_report", "tlsrpt-microsoft", f, auto("tls_report"), "RFC 8460 report from Microsoft (tlsrpt-noreply@microsoft.com)")

    # Stalwart's default TLS aggregate report: From noreply-tls@<domain>, subject "TLS Aggregate
    # Report" (stalw.art docs: TlsReportSettings), the JSON uncompressed (application/tlsrpt+json).
    f = write("report/tlsrpt-stalwart-json.eml", f"""
Return-Path: <noreply-tls@mail.example.org>
Delivered-To: tls-reports@example.net
From: "Report Subsystem" <noreply-tls@mail.example.org>
To: tls-reports@example.net
Subject: TLS Aggregate Report
Date: Fri, 27 Nov 2026 00:10:00 +0000
Message-ID: <hx47-r3-18a2f0c41b7d2e93@mail.example.org>
TLS-Report-Domain: example.net
TLS-Report-Submitter: mail.example.org
Auto-Submitted: auto-generated
MIME-Version: 1.0
Content-Type: multipart/report; report-type="tlsrpt"; boundary="18a2f0c41b7d2e93_5f"

--18a2f0c41b7d2e93_5f
Content-Type: text/plain; charset="utf-8"
Content-Transfer-Encoding: 7bit

TLS report for example.net from mail.example.org.

--18a2f0c41b7d2e93_5f
Content-Type: application/tlsrpt+json
Content-Disposition: attachment; filename="mail.example.org!example.net!1764115200!1764201599.json"
Content-Transfer-Encoding: 7bit

{tlsrpt_json("mail.example.org", "example.net", "mx.example.net")}
--18a2f0c41b7d2e93_5f--
""")
    case("tls_dmarc_report", "tlsrpt-stalwart-json", f, auto("tls_report"),
         "A TLS report with Stalwart's default subject 'TLS Aggregate Report' (not the RFC subject) and application/tlsrpt+json")

    # DMARC aggregate (RFC 7489 §7.2.1.1 subject "Report Domain: … Submitter: … Report-ID: …").
    # Google sends the zip as the whole body, from noreply-dmarc-support@google.com.
    data = zipped("google.com!example.org!1764115200!1764201599.xml",
                  dmarc_xml("google.com", "noreply-dmarc-support@google.com", "example.org", "198.51.100.14"))
    f = write("report/dmarc-google.eml", f"""
Delivered-To: dmarc@example.org
Return-Path: <noreply-dmarc-support@google.com>
Received: by mail-yb1-f200.google.com with SMTP id 3f1490d57ef6-e38fc62b9e1so1234567276.1
        for <dmarc@example.org>; Fri, 27 Nov 2026 15:59:59 -0800 (PST)
MIME-Version: 1.0
Date: Fri, 27 Nov 2026 15:59:59 -0800
Message-ID: <hx47-r4-1286647925402318843@google.com>
Subject: Report domain: example.org Submitter: google.com Report-ID: 1286647925402318843
From: noreply-dmarc-support@google.com
To: dmarc@example.org
Content-Type: application/zip; 
	name="google.com!example.org!1764115200!1764201599.zip"
Content-Disposition: attachment; 
	filename="google.com!example.org!1764115200!1764201599.zip"
Content-Transfer-Encoding: base64

{b64(data)}
""")
    case("tls_dmarc_report", "dmarc-google", f, auto("dmarc_report"), "DMARC aggregate from Google: a single application/zip body")

    data = gz(dmarc_xml("Enterprise Outlook", "dmarcreport@microsoft.com", "example.org", "203.0.113.40"))
    f = write("report/dmarc-microsoft.eml", f"""
Return-Path: <dmarcreport@microsoft.com>
Delivered-To: dmarc@example.org
From: DMARC Aggregate Report <dmarcreport@microsoft.com>
To: <dmarc@example.org>
Subject: Report Domain: example.org Submitter: enterprise.protection.outlook.com Report-ID: <9f3c2a71e5b84d60a1c7e2f0b3d49a85@enterprise.protection.outlook.com>
Date: Sat, 28 Nov 2026 04:12:19 +0000
Message-ID: <hx47-r5-9f3c2a71e5b84d60@SN7PR11MB1234.namprd11.prod.outlook.com>
MIME-Version: 1.0
Content-Type: multipart/mixed;
	boundary="_004_9f3c2a71e5b84d60_"

--_004_9f3c2a71e5b84d60_
Content-Type: text/plain; charset="us-ascii"
Content-Transfer-Encoding: quoted-printable

This is a DMARC aggregate report from Microsoft Corporation. For Emails rece=
ived between 2026-11-26 00:00:00 UTC to 2026-11-27 00:00:00 UTC.

--_004_9f3c2a71e5b84d60_
Content-Type: application/gzip;
	name="enterprise.protection.outlook.com!example.org!1764115200!1764201600.xml.gz"
Content-Description: enterprise.protection.outlook.com!example.org!1764115200!1764201600.xml.gz
Content-Disposition: attachment;
	filename="enterprise.protection.outlook.com!example.org!1764115200!1764201600.xml.gz"
Content-Transfer-Encoding: base64

{b64(data)}

--_004_9f3c2a71e5b84d60_--
""", crlf=True)
    case("tls_dmarc_report", "dmarc-microsoft", f, auto("dmarc_report"), "DMARC aggregate from Microsoft (dmarcreport@microsoft.com), text part + xml.gz")

    data = gz(dmarc_xml("Yahoo", "dmarchelp@yahooinc.com", "example.net", "192.0.2.77"))
    f = write("report/dmarc-yahoo.eml", f"""
Return-Path: <noreply@dmarc.yahoo.com>
Delivered-To: dmarc-rua@example.net
From: noreply@dmarc.yahoo.com
To: dmarc-rua@example.net
Subject: Report Domain: example.net Submitter: Yahoo Report-ID: <1764201812.471893>
Date: Sat, 28 Nov 2026 00:03:32 +0000
Message-ID: <hx47-r6-1764201812.471893@dmarc.yahoo.com>
MIME-Version: 1.0
Content-Type: multipart/mixed; boundary="----=_Part_471893_1876543210.1764201812"

------=_Part_471893_1876543210.1764201812
Content-Type: text/plain; charset=UTF-8
Content-Transfer-Encoding: 7bit

This is an aggregate report from Yahoo.

------=_Part_471893_1876543210.1764201812
Content-Type: application/gzip
Content-Transfer-Encoding: base64
Content-Disposition: attachment; filename="yahoo.com!example.net!1764115200!1764201599.xml.gz"

{b64(data)}
------=_Part_471893_1876543210.1764201812--
""")
    case("tls_dmarc_report", "dmarc-yahoo", f, auto("dmarc_report"), "DMARC aggregate from Yahoo (noreply@dmarc.yahoo.com)")

    # Look-alikes: a newsletter about DMARC; a colleague forwarding a DMARC report with a question.
    f = write("report/lookalike-dmarc-newsletter.eml", """
Return-Path: <bounces+2231-kit.morrow=example.net@em.mailsec-digest.example>
Delivered-To: kit.morrow@example.net
From: Mail Security Digest <digest@mailsec-digest.example>
To: kit.morrow@example.net
Subject: DMARC aggregate reports, explained: what the Report domain and Submitter tell you
Date: Thu, 26 Nov 2026 14:30:00 +0000
Message-ID: <hx47-look7-2231.99@em.mailsec-digest.example>
List-Unsubscribe: <https://mailsec-digest.example/u/2231>
List-Unsubscribe-Post: List-Unsubscribe=One-Click
X-Campaign-ID: digest-2026-48
MIME-Version: 1.0
Content-Type: text/plain; charset=utf-8

This issue: reading DMARC aggregate reports and SMTP TLS reports.

Every day, Google, Microsoft and Yahoo mail you zip or gzip XML files
with subjects like "Report Domain: example.com Submitter: google.com".
We walk through the fields and what a failing SPF row means.

Read online: https://mailsec-digest.example/issues/48
Unsubscribe: https://mailsec-digest.example/u/2231
""")
    case("tls_dmarc_report", "lookalike-dmarc-newsletter", f, {"mail_kind": "newsletter", "automated_kind": None},
         "A newsletter about DMARC and TLS reports", lookalike=True)

    data = zipped("google.com!example.org!1764115200!1764201599.xml",
                  dmarc_xml("google.com", "noreply-dmarc-support@google.com", "example.org", "198.51.100.14"))
    f = write("report/lookalike-forwarded-dmarc.eml", f"""
Return-Path: <sofia.lind@example.org>
Delivered-To: kit.morrow@example.net
From: Sofia Lind <sofia.lind@example.org>
To: Kit Morrow <kit.morrow@example.net>
Subject: Fwd: Report domain: example.org Submitter: google.com Report-ID: 1286647925402318843
Date: Sat, 28 Nov 2026 09:02:40 +0100
Message-ID: <hx47-look8-CAKx9fV2p@mail.example.org>
MIME-Version: 1.0
Content-Type: multipart/mixed; boundary="000000000000d4c3b205f2d7e6f5"

--000000000000d4c3b205f2d7e6f5
Content-Type: text/plain; charset="UTF-8"

Hi Kit, can you look at the attached report? Our newsletter server seems
to fail SPF at Google since Tuesday. I don't know how to read these.

Sofia

---------- Forwarded message ---------
From: <noreply-dmarc-support@google.com>
Date: Fri, 27 Nov 2026 at 15:59
Subject: Report domain: example.org Submitter: google.com Report-ID: 1286647925402318843
To: <dmarc@example.org>

--000000000000d4c3b205f2d7e6f5
Content-Type: application/zip; name="google.com!example.org!1764115200!1764201599.zip"
Content-Disposition: attachment; filename="google.com!example.org!1764115200!1764201599.zip"
Content-Transfer-Encoding: base64

{b64(data)}
--000000000000d4c3b205f2d7e6f5--
""")
    case("tls_dmarc_report", "lookalike-forwarded-dmarc", f, NOT_AUTOMATED,
         "A colleague forwarding Google's DMARC report (Gmail forward) with her own question", lookalike=True)


def add_receipts(ctx):
    write, case = ctx["write"], ctx["case"]

    # Outlook/Exchange plain receipt (internal, no MDN): "Read: <subject>" from the reader,
    # "Your message ... was read on ...".
    f = write("receipt/exchange-read-plain.eml", """
Received: from DB9PR02MB7001.eurprd02.prod.outlook.com ([fe80::1c2d:3e4f:5a6b:7c8d]) by
 DB9PR02MB7001.eurprd02.prod.outlook.com ([fe80::1c2d:3e4f:5a6b:7c8d%5]) with
 mapi id 15.20.8182.017; Tue, 24 Nov 2026 10:03:11 +0000
From: Henrik Dahl <henrik.dahl@example.com>
To: Ravi Menon <ravi.menon@example.com>
Subject: Read: Budget for 2027
Thread-Topic: Budget for 2027
Thread-Index: AQHbPlN0d0ZyW1p8R0y6jVq2fX9PZg==
Date: Tue, 24 Nov 2026 10:03:10 +0000
Message-ID: <hx47-rr1-DB9PR02MB7001A1B2C3D4E5F6@DB9PR02MB7001.eurprd02.prod.outlook.com>
Content-Language: en-GB
X-MS-Has-Attach:
X-MS-Exchange-Organization-SCL: -1
X-MS-TNEF-Correlator:
Content-Type: text/plain; charset="us-ascii"
Content-Transfer-Encoding: quoted-printable
MIME-Version: 1.0

Your message

  To: Henrik Dahl
  Subject: Budget for 2027
  Sent: Tuesday, November 24, 2026 9:12:33 AM (UTC+00:00) Dublin, Edinburgh,=
 Lisbon, London

was read on Tuesday, November 24, 2026 10:03:10 AM (UTC+00:00) Dublin, Edin=
burgh, Lisbon, London.
""", crlf=True)
    case("read_receipt", "exchange-read-plain", f, auto("read_receipt"), "Outlook/Exchange internal 'Read:' receipt in plain text (no MDN)")

    f = write("receipt/exchange-mdn.eml", """
Received: from AS8PR04MB8123.eurprd04.prod.outlook.com by
 AS8PR04MB8123.eurprd04.prod.outlook.com with mapi id 15.20.8182.016; Wed, 25 Nov 2026 13:20:44 +0000
From: Claire Dubois <claire.dubois@example.fr>
To: Kit Morrow <kit.morrow@example.net>
Subject: Read: Stand layout for the fair
Date: Wed, 25 Nov 2026 13:20:43 +0000
Message-ID: <hx47-rr2-AS8PR04MB8123F7E6D5C4@AS8PR04MB8123.eurprd04.prod.outlook.com>
Content-Language: fr-FR
MIME-Version: 1.0
Content-Type: multipart/report; report-type=disposition-notification;
	boundary="_001_AS8PR04MB8123F7E6D5C4_"

--_001_AS8PR04MB8123F7E6D5C4_
Content-Type: multipart/alternative;
	boundary="_000_AS8PR04MB8123F7E6D5C4_"

--_000_AS8PR04MB8123F7E6D5C4_
Content-Type: text/plain; charset="utf-8"
Content-Transfer-Encoding: base64

WW91ciBtZXNzYWdlDQoNCiAgVG86IENsYWlyZSBEdWJvaXMNCiAgU3ViamVjdDogU3RhbmQgbGF5
b3V0IGZvciB0aGUgZmFpcg0KICBTZW50OiBXZWRuZXNkYXksIE5vdmVtYmVyIDI1LCAyMDI2IDE6
MDU6MTIgUE0gKFVUQyswMDowMCkNCg0Kd2FzIHJlYWQgb24gV2VkbmVzZGF5LCBOb3ZlbWJlciAy
NSwgMjAyNiAyOjIwOjQzIFBNIChVVEMrMDE6MDApLg0K

--_000_AS8PR04MB8123F7E6D5C4_
Content-Type: text/html; charset="utf-8"
Content-Transfer-Encoding: quoted-printable

<html><body><p>Your message</p><p>&nbsp;&nbsp;To: Claire Dubois<br>&nbsp;&=
nbsp;Subject: Stand layout for the fair</p><p>was read on Wednesday, Novemb=
er 25, 2026 2:20:43 PM (UTC+01:00).</p></body></html>

--_000_AS8PR04MB8123F7E6D5C4_--

--_001_AS8PR04MB8123F7E6D5C4_
Content-Type: message/disposition-notification

Reporting-UA: AS8PR04MB8123.eurprd04.prod.outlook.com; Microsoft Exchange Server
Final-Recipient: rfc822;claire.dubois@example.fr
Original-Message-ID: <hx47-orig9@example.net>
Disposition: automatic-action/MDN-sent-automatically; displayed

--_001_AS8PR04MB8123F7E6D5C4_--
""", crlf=True)
    case("read_receipt", "exchange-mdn", f, auto("read_receipt"), "Exchange to an outside sender: multipart/report; report-type=disposition-notification")

    f = write("receipt/thunderbird-mdn.eml", """
Return-Path: <jonas.berg@example.se>
Delivered-To: kit.morrow@example.net
Content-Type: multipart/report; report-type=disposition-notification;
 boundary="------------mdn8W4kR2pZ7tQ1xV9cL0sN3"
Date: Thu, 26 Nov 2026 08:41:17 +0100
MIME-Version: 1.0
User-Agent: Mozilla Thunderbird
From: Jonas Berg <jonas.berg@example.se>
Subject: Return Receipt (displayed) - Meeting notes 24 November
To: kit.morrow@example.net
Message-ID: <hx47-rr3-7c1f0e2a-88b1-4d2e-9a3c-5e6f7a8b9c0d@example.se>

This is a multi-part message in MIME format.
--------------mdn8W4kR2pZ7tQ1xV9cL0sN3
Content-Type: text/plain; charset=UTF-8; format=flowed
Content-Transfer-Encoding: 7bit

This is a Return Receipt for the mail that you sent to 
jonas.berg@example.se.

Note: This Return Receipt only acknowledges that the message was 
displayed on the recipient's computer. There is no guarantee that the 
recipient has read or understood the message contents.

--------------mdn8W4kR2pZ7tQ1xV9cL0sN3
Content-Type: message/disposition-notification; name="MDNPart2.txt"
Content-Disposition: inline
Content-Transfer-Encoding: 7bit

Reporting-UA: example.se; Mozilla Thunderbird
Final-Recipient: rfc822;jonas.berg@example.se
Original-Message-ID: <hx47-orig10@example.net>
Disposition: manual-action/MDN-sent-manually; displayed

--------------mdn8W4kR2pZ7tQ1xV9cL0sN3
Content-Type: text/rfc822-headers; name="MDNPart3.txt"
Content-Transfer-Encoding: 7bit
Content-Disposition: inline

Return-Path: <kit.morrow@example.net>
From: Kit Morrow <kit.morrow@example.net>
To: Jonas Berg <jonas.berg@example.se>
Subject: Meeting notes 24 November
Date: Tue, 24 Nov 2026 17:30:00 +0100
Message-ID: <hx47-orig10@example.net>
Disposition-Notification-To: Kit Morrow <kit.morrow@example.net>

--------------mdn8W4kR2pZ7tQ1xV9cL0sN3--
""")
    case("read_receipt", "thunderbird-mdn", f, auto("read_receipt"), "Thunderbird MDN: 'Return Receipt (displayed) - …'")

    f = write("receipt/outlook-de-gelesen.eml", """
Received: from FR2P281MB0999.DEUP281.PROD.OUTLOOK.COM by
 FR2P281MB0999.DEUP281.PROD.OUTLOOK.COM with mapi id 15.20.8182.014; Fri, 27 Nov 2026 08:05:41 +0000
From: Frank Obermeier <f.obermeier@example.de>
To: Jo Berghaus <jo.berghaus@example.de>
Subject: Gelesen: Angebot Dachsanierung
Thread-Topic: Angebot Dachsanierung
Date: Fri, 27 Nov 2026 08:05:40 +0000
Message-ID: <hx47-rr4-FR2P281MB0999A9B8C7D6@FR2P281MB0999.DEUP281.PROD.OUTLOOK.COM>
Content-Language: de-DE
Content-Type: text/plain; charset="iso-8859-1"
Content-Transfer-Encoding: quoted-printable
MIME-Version: 1.0

Ihre Nachricht

  An: Frank Obermeier
  Betreff: Angebot Dachsanierung
  Gesendet: Donnerstag, 26. November 2026 16:44:02 (UTC+01:00) Amsterdam, Ber=
lin, Bern, Rom, Stockholm, Wien

wurde am Freitag, 27. November 2026 09:05:40 (UTC+01:00) Amsterdam, Berlin, =
Bern, Rom, Stockholm, Wien gelesen.
""", crlf=True)
    case("read_receipt", "outlook-de-gelesen", f, auto("read_receipt"), "German Outlook plain receipt: 'Gelesen: …' / 'wurde am … gelesen'")

    f = write("receipt/outlook-not-read.eml", """
Received: from DB9PR02MB7001.eurprd02.prod.outlook.com by
 DB9PR02MB7001.eurprd02.prod.outlook.com with mapi id 15.20.8182.017; Fri, 27 Nov 2026 17:45:02 +0000
From: Henrik Dahl <henrik.dahl@example.com>
To: Ravi Menon <ravi.menon@example.com>
Subject: Not read: Canteen survey reminder
Thread-Topic: Canteen survey reminder
Date: Fri, 27 Nov 2026 17:45:01 +0000
Message-ID: <hx47-rr5-DB9PR02MB70019F8E7D6C@DB9PR02MB7001.eurprd02.prod.outlook.com>
Content-Language: en-GB
Content-Type: text/plain; charset="us-ascii"
MIME-Version: 1.0

Your message

  To: Henrik Dahl
  Subject: Canteen survey reminder
  Sent: Friday, November 27, 2026 9:00:00 AM (UTC+00:00) Dublin, Edinburgh, Lisbon, London

was deleted without being read on Friday, November 27, 2026 5:45:01 PM (UTC+00:00) Dublin, Edinburgh, Lisbon, London.
""", crlf=True)
    case("read_receipt", "outlook-not-read", f, auto("read_receipt"), "Outlook 'Not read:' receipt (deleted without being read)")

    f = write("receipt/gmail-workspace-receipt.eml", """
Delivered-To: kit.morrow@example.net
Return-Path: <amara.nwosu@example-school.org>
MIME-Version: 1.0
From: Amara Nwosu <amara.nwosu@example-school.org>
Date: Sat, 28 Nov 2026 07:58:21 -0800
Message-ID: <hx47-rr6-CAJ3mF0q8xN@mail.gmail.com>
Subject: Read: Permission slip for the museum trip
To: kit.morrow@example.net
Content-Type: multipart/report; boundary="00000000000091a2b305f2e0f1a2"; report-type=disposition-notification

--00000000000091a2b305f2e0f1a2
Content-Type: text/plain; charset="UTF-8"

This is a receipt for the mail you sent to
<amara.nwosu@example-school.org> at 11/27/2026 6:10 PM

This receipt verifies that the message has been displayed on the recipient's computer at 11/28/2026 7:58 AM

--00000000000091a2b305f2e0f1a2
Content-Type: message/disposition-notification

Reporting-UA: mail.google.com; Gmail
Final-Recipient: rfc822; amara.nwosu@example-school.org
Original-Message-ID: <hx47-orig11@example.net>
Disposition: manual-action/MDN-sent-manually; displayed

--00000000000091a2b305f2e0f1a2--
""")
    case("read_receipt", "gmail-workspace-receipt", f, auto("read_receipt"), "Google Workspace (Gmail) read receipt: 'Read:' with an MDN part")

    f = write("receipt/lookalike-book-club-read.eml", """
Return-Path: <rita.paredes@example.org>
Delivered-To: kit.morrow@example.net
From: Rita Paredes <rita.paredes@example.org>
To: Book Club <kit.morrow@example.net>, Nadia Kowal <nadia.kowal@example.org>
Subject: Read: chapters 4-6 before Thursday
Date: Mon, 23 Nov 2026 19:30:00 +0000
Message-ID: <hx47-look9-3e1d@example.org>
MIME-Version: 1.0
Content-Type: text/plain; charset=UTF-8

Hi both,

for Thursday please read chapters 4 to 6. I was read the riot act by
the librarian about late returns, so bring your copies back on time!

Rita
""")
    case("read_receipt", "lookalike-book-club-read", f, NOT_AUTOMATED,
         "A person's mail whose subject starts 'Read:' (a reading assignment)", lookalike=True)


def service(name, action):
    return {"mail_kind": "notification", "acted_by": {"name": name}, "service_action": action, "automated_kind": None}


def add_services(ctx):
    write, case = ctx["write"], ctx["case"]

    f = write("service/gdrive-share-doc.eml", """
Delivered-To: kit.morrow.home@gmail.com
Return-Path: <3Xq9EZw0KCcUp1r-2o0y-lmnop1r.npi6t6i-8qqp-ky6x-oz6v-Ce6mutl.uto@docos.bounces.google.com>
MIME-Version: 1.0
Reply-To: Priya Raman <priya.raman@example.com>
Sender: Google Docs <drive-shares-dm-noreply@google.com>
Message-ID: <hx47-s1-0000000000008f2a1b05f2c3d4e5@google.com>
Date: Mon, 23 Nov 2026 09:14:22 +0000
Subject: Document shared with you: "Allotment rota 2027"
From: "Priya Raman (via Google Docs)" <drive-shares-dm-noreply@google.com>
To: kit.morrow.home@gmail.com
Content-Type: multipart/alternative; boundary="0000000000008f2a1c05f2c3d4e6"

--0000000000008f2a1c05f2c3d4e6
Content-Type: text/plain; charset="UTF-8"; format=flowed; delsp=yes

Priya Raman shared a document

Priya Raman (priya.raman@example.com) has invited you to edit the following  
document:

Allotment rota 2027
<https://docs.google.com/document/d/1hX7kQ2p9Zr4Tn0vB6mW3yC8sD5fJ1gL2aE7uI9oK0Pq/edit?usp=sharing_eil_m&ts=67419b0e>

Open  
<https://docs.google.com/document/d/1hX7kQ2p9Zr4Tn0vB6mW3yC8sD5fJ1gL2aE7uI9oK0Pq/edit?usp=sharing_eil_m&ts=67419b0e>

Google LLC, 1600 Amphitheatre Parkway, Mountain View, CA 94043, USA
You have received this email because priya.raman@example.com shared a  
document with you from Google Docs.
Logo for Google Docs <https://www.google.com/docs/about/>

--0000000000008f2a1c05f2c3d4e6
Content-Type: text/html; charset="UTF-8"

<html><body><table><tr><td><p>Priya Raman shared a document</p><p>Priya Raman (<a href="mailto:priya.raman@example.com">priya.raman@example.com</a>) has invited you to <b>edit</b> the following document:</p><p><a href="https://docs.google.com/document/d/1hX7kQ2p9Zr4Tn0vB6mW3yC8sD5fJ1gL2aE7uI9oK0Pq/edit?usp=sharing_eil_m&amp;ts=67419b0e">Allotment rota 2027</a></p><p><a href="https://docs.google.com/document/d/1hX7kQ2p9Zr4Tn0vB6mW3yC8sD5fJ1gL2aE7uI9oK0Pq/edit?usp=sharing_eil_m&amp;ts=67419b0e">Open</a></p><p>Google LLC, 1600 Amphitheatre Parkway, Mountain View, CA 94043, USA<br>You have received this email because priya.raman@example.com shared a document with you from Google Docs.</p></td></tr></table></body></html>

--0000000000008f2a1c05f2c3d4e6--
""")
    case("service_notification", "gdrive-share-doc", f, service("Priya Raman", "share"),
         "Google Docs share: From 'Name (via Google Docs)' <drive-shares-dm-noreply@google.com>, Reply-To the person")

    f = write("service/gdrive-access-request.eml", """
Delivered-To: kit.morrow.home@gmail.com
Return-Path: <3bB1EZw0KCdQv7x-8u64-rstuv7x.tvoczco-ewwv-q4c3-u5c1-Ik2s0zr.04u@docos.bounces.google.com>
MIME-Version: 1.0
Reply-To: Jonas Berg <jonas.berg@example.se>
Message-ID: <hx47-s2-000000000000c1d2e305f2c9a8b7@google.com>
Date: Tue, 24 Nov 2026 16:20:05 +0000
Subject: Share request for "Budget 2027"
From: "Jonas Berg (via Google Sheets)" <drive-shares-dm-noreply@google.com>
To: kit.morrow.home@gmail.com
Content-Type: text/plain; charset="UTF-8"; format=flowed; delsp=yes

Jonas Berg is requesting access to the following spreadsheet:

Budget 2027
<https://docs.google.com/spreadsheets/d/1Qm2Xy8Lk0Vb4Zr7Tn1pC9sD3fJ6gH5aE2uI8oK7Wt/edit?usp=sharing_eir_m>

Jonas Berg (jonas.berg@example.se) is requesting access:
"Could I see the budget before the meeting?"

Share with Jonas Berg  
<https://docs.google.com/spreadsheets/d/1Qm2Xy8Lk0Vb4Zr7Tn1pC9sD3fJ6gH5aE2uI8oK7Wt/sharing?usp=sharing_eir_m>

You are receiving this email because you own Budget 2027.
Google LLC, 1600 Amphitheatre Parkway, Mountain View, CA 94043, USA
""")
    case("service_notification", "gdrive-access-request", f, service("Jonas Berg", "access_request"),
         "Google Sheets access request: 'Share request for …' (via Google Sheets)")

    f = write("service/gdocs-mention.eml", """
Delivered-To: kit.morrow.home@gmail.com
Return-Path: <3dE4FZx0KCe8Qx9Z-vXm2Ac-6QZd2F-Uk@docos.bounces.google.com>
MIME-Version: 1.0
Reply-To: Tomasz Wolny <tomasz.wolny@example.pl>
Message-ID: <hx47-s3-000000000000d2e3f405f2cab9c8@google.com>
Date: Wed, 25 Nov 2026 11:47:09 +0000
Subject: Grant application draft (Tomasz Wolny mentioned you)
From: "Tomasz Wolny (Google Docs)" <comments-noreply@docs.google.com>
To: kit.morrow.home@gmail.com
Content-Type: multipart/alternative; boundary="000000000000d2e3f505f2cab9c9"

--000000000000d2e3f505f2cab9c9
Content-Type: text/plain; charset="UTF-8"; format=flowed; delsp=yes

Tomasz Wolny mentioned you in a comment in the following document
Grant application draft

Tomasz Wolny
"Budget table, section 4"
@kit.morrow.home@gmail.com can you check the match-funding figure? It
looks a thousand too high to me.

Reply  
<https://docs.google.com/document/d/1Gr4Nt7Ap2Dr0fT9bK3mV6xY1zQ8wE5uI2oP7lA4sD/edit?disco=AAABc1dEf2g&usp=comment_email_document>

Google LLC, 1600 Amphitheatre Parkway, Mountain View, CA 94043, USA
You have received this email because you are mentioned in this thread.
Change what Google Docs sends you.  
<https://docs.google.com/document/d/1Gr4Nt7Ap2Dr0fT9bK3mV6xY1zQ8wE5uI2oP7lA4sD/edit?usp=comment_email_settings>
You can reply to this email to reply to the discussion.

--000000000000d2e3f505f2cab9c9
Content-Type: text/html; charset="UTF-8"

<html><body><p>Tomasz Wolny mentioned you in a comment in the following document</p><p><b>Grant application draft</b></p><p>Tomasz Wolny</p><blockquote>Budget table, section 4</blockquote><p><a href="mailto:kit.morrow.home@gmail.com">@kit.morrow.home@gmail.com</a> can you check the match-funding figure? It looks a thousand too high to me.</p></body></html>

--000000000000d2e3f505f2cab9c9--
""")
    case("service_notification", "gdocs-mention", f, service("Tomasz Wolny", "mention"),
         "Google Docs mention: From 'Name (Google Docs)' <comments-noreply@docs.google.com>")

    f = write("service/gdocs-comment.eml", """
Delivered-To: kit.morrow.home@gmail.com
MIME-Version: 1.0
Reply-To: Priya Raman <priya.raman@example.com>
Message-ID: <hx47-s4-000000000000e3f4a505f2cbcad9@google.com>
Date: Thu, 26 Nov 2026 08:03:55 +0000
Subject: Allotment rota 2027
From: "Priya Raman (Google Docs)" <comments-noreply@docs.google.com>
To: kit.morrow.home@gmail.com
Content-Type: text/plain; charset="UTF-8"; format=flowed; delsp=yes

Priya Raman added a comment to the following document
Allotment rota 2027

Priya Raman
"Week 14: Kit and Jun"
Can we swap week 14 with week 16? I am away over Easter.

Open  
<https://docs.google.com/document/d/1hX7kQ2p9Zr4Tn0vB6mW3yC8sD5fJ1gL2aE7uI9oK0Pq/edit?disco=AAABd2eFg3h&usp=comment_email_document>

Google LLC, 1600 Amphitheatre Parkway, Mountain View, CA 94043, USA
You have received this email because you are subscribed to all discussions on Allotment rota 2027.
""")
    case("service_notification", "gdocs-comment", f, service("Priya Raman", "comment"),
         "Google Docs new comment: the subject is only the document's name")

    f = write("service/dropbox-share-folder.eml", """
Return-Path: <bounces+1182736-3f2a-kit.morrow=example.net@email.dropbox.com>
Delivered-To: kit.morrow@example.net
From: "Lena Vogt (via Dropbox)" <no-reply@dropbox.com>
Reply-To: Lena Vogt <lena.vogt@example.de>
To: kit.morrow@example.net
Subject: Lena Vogt shared "Choir scores" with you
Date: Fri, 27 Nov 2026 18:12:40 +0000
Message-ID: <hx47-s5-20261127181240.1.7e2f9a0b3c4d5e6f@mail.dropbox.com>
X-Dropbox-Email-Type: shared_folder_invite
MIME-Version: 1.0
Content-Type: multipart/alternative; boundary="===============1964031177028393465=="

--===============1964031177028393465==
Content-Type: text/plain; charset="utf-8"
MIME-Version: 1.0
Content-Transfer-Encoding: 7bit

Lena Vogt (lena.vogt@example.de) invited you to view the folder "Choir scores" on Dropbox.

Lena said: "All the parts for the Christmas concert are in here."

Go to folder: https://www.dropbox.com/scl/fo/7xq2p9zr4tn0vb6mw3yc8/AAB1c2D3e4F5?rlkey=q8w7e6r5t4y3&dl=0

Enjoy!
The Dropbox team

--===============1964031177028393465==
Content-Type: text/html; charset="utf-8"
MIME-Version: 1.0
Content-Transfer-Encoding: 7bit

<html><body><p>Lena Vogt (<a href="mailto:lena.vogt@example.de">lena.vogt@example.de</a>) invited you to view the folder "Choir scores" on Dropbox.</p><p>Lena said: "All the parts for the Christmas concert are in here."</p><p><a href="https://www.dropbox.com/scl/fo/7xq2p9zr4tn0vb6mw3yc8/AAB1c2D3e4F5?rlkey=q8w7e6r5t4y3&amp;dl=0">Go to folder</a></p></body></html>

--===============1964031177028393465==--
""")
    case("service_notification", "dropbox-share-folder", f, service("Lena Vogt", "share"),
         "Dropbox shared folder invite: 'Name (via Dropbox)' <no-reply@dropbox.com>")

    f = write("service/dropbox-comment.eml", """
Return-Path: <bounces+1182736-7a1b-kit.morrow=example.net@email.dropbox.com>
Delivered-To: kit.morrow@example.net
From: Dropbox <no-reply@dropbox.com>
To: kit.morrow@example.net
Subject: Lena Vogt commented on "poster-draft.pdf"
Date: Sat, 28 Nov 2026 10:01:12 +0000
Message-ID: <hx47-s6-20261128100112.1.1a2b3c4d5e6f7a8b@mail.dropbox.com>
MIME-Version: 1.0
Content-Type: text/plain; charset="utf-8"

Lena Vogt commented on poster-draft.pdf

"The date in the footer still says 2025."

Reply: https://www.dropbox.com/scl/fi/9ab8cd7ef6/poster-draft.pdf?dl=0&comment=41872931

You're getting this email because you're following poster-draft.pdf.
Dropbox, Inc., PO Box 77767, San Francisco, CA 94107
""")
    case("service_notification", "dropbox-comment", f, service("Lena Vogt", "comment"),
         "Dropbox comment: From 'Dropbox', the person only named in subject and text")

    f = write("service/onedrive-share.eml", """
Return-Path: <no-reply@sharepointonline.com>
Delivered-To: kit.morrow@example.net
From: Daniel Mensah <no-reply@sharepointonline.com>
To: <kit.morrow@example.net>
Subject: Daniel Mensah shared "Q3 forecast.xlsx" with you
Date: Mon, 23 Nov 2026 15:32:08 +0000
Message-ID: <hx47-s7-b8f2e1d0-4c3b-4a59-8e7f-6d5c4b3a2f10@odspnotify>
MIME-Version: 1.0
X-MS-Exchange-Organization-AuthAs: Anonymous
Content-Type: multipart/alternative;
	boundary="=_b8f2e1d0-4c3b-4a59-8e7f-6d5c4b3a2f10"

--=_b8f2e1d0-4c3b-4a59-8e7f-6d5c4b3a2f10
Content-Type: text/plain; charset="utf-8"
Content-Transfer-Encoding: quoted-printable

Daniel Mensah shared a file with you

Here's the figures for the board pack.

Q3 forecast.xlsx

Open <https://contoso-example-my.sharepoint.com/:x:/g/personal/daniel_mensah_contoso-example_com/EbX4k2Qp9ZrT?e=3=
hZ7Qp>

This link will work for anyone in Contoso Example.

Microsoft respects your privacy. To learn more, please read our Privacy Sta=
tement.
Microsoft Corporation, One Microsoft Way, Redmond, WA 98052

--=_b8f2e1d0-4c3b-4a59-8e7f-6d5c4b3a2f10
Content-Type: text/html; charset="utf-8"
Content-Transfer-Encoding: quoted-printable

<html><body><table><tr><td><h2>Daniel Mensah shared a file with you</h2><p>=
Here's the figures for the board pack.</p><p><a href=3D"https://contoso-exa=
mple-my.sharepoint.com/:x:/g/personal/daniel_mensah_contoso-example_com/EbX=
4k2Qp9ZrT?e=3D3hZ7Qp">Q3 forecast.xlsx</a></p><p>This link will work for an=
yone in Contoso Example.</p></td></tr></table></body></html>

--=_b8f2e1d0-4c3b-4a59-8e7f-6d5c4b3a2f10--
""", crlf=True)
    case("service_notification", "onedrive-share", f, service("Daniel Mensah", "share"),
         "OneDrive for Business / SharePoint share: the person's name on no-reply@sharepointonline.com")

    f = write("service/m365-word-mention.eml", """
Return-Path: <no-reply@sharepointonline.com>
Delivered-To: kit.morrow@example.net
From: "Hana Sato (via Microsoft Word)" <no-reply@sharepointonline.com>
To: Kit Morrow <kit.morrow@example.net>
Subject: Hana Sato mentioned you in "Launch plan.docx"
Date: Tue, 24 Nov 2026 13:09:51 +0000
Message-ID: <hx47-s8-5c4d3e2f-1a0b-4c9d-8e7f-6a5b4c3d2e1f@odspnotify>
MIME-Version: 1.0
Content-Type: text/plain; charset="utf-8"

Hana Sato mentioned you in a comment in Launch plan.docx

Hana Sato
@Kit Morrow could you confirm the venue deposit by Friday?

Go to comment: https://contoso-example.sharepoint.com/:w:/r/sites/Launch/Shared%20Documents/Launch%20plan.docx?web=1&nav=eyJjIjo0MTg3fQ

You're receiving this because you were @mentioned.
Microsoft Corporation, One Microsoft Way, Redmond, WA 98052
""")
    case("service_notification", "m365-word-mention", f, service("Hana Sato", "mention"),
         "Microsoft 365 Word @mention from no-reply@sharepointonline.com")

    # Google Calendar answer: From the person, Sender Google Calendar, "Accepted: … @ …", a
    # text/calendar METHOD:REPLY part and invite.ics.
    f = write("service/gcal-accepted.eml", """
Delivered-To: kit.morrow.home@gmail.com
Return-Path: <samira.haddad@example.com>
MIME-Version: 1.0
Sender: Google Calendar <calendar-notification@google.com>
Message-ID: <hx47-s9-calendar-6f1d2c3b-4a5e-4f60-9b8a-7c6d5e4f3a2b@google.com>
Date: Thu, 26 Nov 2026 20:11:45 +0000
Subject: Accepted: Choir rehearsal @ Thu 3 Dec 2026 19:00 - 21:00 (GMT) (kit.morrow.home@gmail.com)
From: Samira Haddad <samira.haddad@example.com>
To: kit.morrow.home@gmail.com
Content-Type: multipart/mixed; boundary="000000000000f6a7b805f2cd1e2f"

--000000000000f6a7b805f2cd1e2f
Content-Type: multipart/alternative; boundary="000000000000f6a7b605f2cd1e2e"

--000000000000f6a7b605f2cd1e2e
Content-Type: text/plain; charset="UTF-8"; format=flowed; delsp=yes

Samira Haddad has accepted this invitation.

Choir rehearsal
Thursday 3 Dec 2026 ⋅ 19:00 – 21:00
Greenwich Mean Time - London

Location
St Anne's church hall

Invitation from Google Calendar: https://calendar.google.com/calendar/

You are receiving this email because you are an attendee on the event.

--000000000000f6a7b605f2cd1e2e
Content-Type: text/calendar; charset="UTF-8"; method=REPLY
Content-Transfer-Encoding: 7bit

BEGIN:VCALENDAR
PRODID:-//Google Inc//Google Calendar 70.9054//EN
VERSION:2.0
CALSCALE:GREGORIAN
METHOD:REPLY
BEGIN:VEVENT
DTSTART:20261203T190000Z
DTEND:20261203T210000Z
DTSTAMP:20261126T201145Z
ORGANIZER;CN=Kit Morrow:mailto:kit.morrow.home@gmail.com
UID:1q2w3e4r5t6y7u8i9o0p@google.com
ATTENDEE;CUTYPE=INDIVIDUAL;ROLE=REQ-PARTICIPANT;PARTSTAT=ACCEPTED;CN=Samira
 Haddad;X-NUM-GUESTS=0:mailto:samira.haddad@example.com
CREATED:20261125T090000Z
LAST-MODIFIED:20261126T201144Z
LOCATION:St Anne's church hall
SEQUENCE:0
STATUS:CONFIRMED
SUMMARY:Choir rehearsal
TRANSP:OPAQUE
END:VEVENT
END:VCALENDAR

--000000000000f6a7b605f2cd1e2e--

--000000000000f6a7b805f2cd1e2f
Content-Type: application/ics; name="invite.ics"
Content-Disposition: attachment; filename="invite.ics"
Content-Transfer-Encoding: base64

QkVHSU46VkNBTEVOREFSDQpWRVJTSU9OOjIuMA0KTUVUSE9EOlJFUExZDQpFTkQ6VkNBTEVOREFS
DQo=
--000000000000f6a7b805f2cd1e2f--
""")
    case("service_notification", "gcal-accepted", f, service("Samira Haddad", "calendar_reply"),
         "Google Calendar answer: From the person, Sender calendar-notification@google.com, METHOD:REPLY")

    # Look-alikes.
    f = write("service/lookalike-human-shared.eml", """
Return-Path: <priya.raman@example.com>
Delivered-To: kit.morrow@example.net
From: Priya Raman <priya.raman@example.com>
To: Kit Morrow <kit.morrow@example.net>
Subject: I shared the rota with you
Date: Mon, 23 Nov 2026 09:20:00 +0000
Message-ID: <hx47-look10-CAF7pR2@mail.example.com>
MIME-Version: 1.0
Content-Type: text/plain; charset="UTF-8"

Hi Kit,

I shared a file with you on Google Drive, the allotment rota for next
year. Have a look and add your weeks when you can.

Priya
""")
    case("service_notification", "lookalike-human-shared", f,
         {"mail_kind": "personal", "acted_by": None, "service_action": None},
         "A person's own mail saying 'I shared a file with you on Google Drive'", lookalike=True)

    f = write("service/lookalike-google-storage.eml", """
Delivered-To: kit.morrow.home@gmail.com
MIME-Version: 1.0
From: Google <no-reply@accounts.google.com>
To: kit.morrow.home@gmail.com
Subject: Your Google storage is almost full
Date: Fri, 27 Nov 2026 06:00:00 +0000
Message-ID: <hx47-look11-storage-2026-11@accounts.google.com>
Content-Type: text/plain; charset="UTF-8"

Your storage is 92% full

You have used 13.8 GB of your 15 GB. Files shared with you in Google
Drive do not count, but your own files, photos and Gmail do.

Get more storage: https://one.google.com/storage

Google LLC, 1600 Amphitheatre Parkway, Mountain View, CA 94043, USA
""")
    case("service_notification", "lookalike-google-storage", f, {"acted_by": None, "service_action": None},
         "A Google notice with no person acting (storage almost full)", lookalike=True)

    f = write("service/lookalike-dropbox-marketing.eml", """
Return-Path: <bounces+1182736-aa01-kit.morrow=example.net@email.dropbox.com>
Delivered-To: kit.morrow@example.net
From: Dropbox <no-reply@em-s.dropbox.com>
To: kit.morrow@example.net
Subject: Share files faster with the new Dropbox transfer
Date: Wed, 25 Nov 2026 17:00:00 +0000
Message-ID: <hx47-look12-mkt-4471@em-s.dropbox.com>
List-Unsubscribe: <https://www.dropbox.com/email_unsubscribe?u=4471&c=mkt>
List-Unsubscribe-Post: List-Unsubscribe=One-Click
MIME-Version: 1.0
Content-Type: text/plain; charset="utf-8"

Sharing just got faster. Send files up to 100 GB and see when
someone downloads them. Your team shared 41 files with you this month.

Try it: https://www.dropbox.com/transfer

Dropbox, Inc., PO Box 77767, San Francisco, CA 94107
Unsubscribe: https://www.dropbox.com/email_unsubscribe?u=4471&c=mkt
""")
    case("service_notification", "lookalike-dropbox-marketing", f,
         {"mail_kind": "newsletter", "acted_by": None, "service_action": None},
         "Dropbox marketing about sharing: no person acting", lookalike=True)
