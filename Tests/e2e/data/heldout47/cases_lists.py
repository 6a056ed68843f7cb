"""Classes 1 (a list's header block in a part of its own) and 2 (a list footer in a part of its own)."""


def add_lists(ctx):
    write, case = ctx["write"], ctx["case"]

    # ---- class 1: header blocks -------------------------------------------------------------
    # Schleuder 3/4 (lib/schleuder/mail/message.rb, clean_copy): the list sends a new mail From the
    # list address; its first part is the pseudo-header block (list.headers_to_meta, default
    # from, to, cc, date, sig, enc, camelized "Key: value" lines), then the original post in a
    # wrapper part that keeps the post's own Content-Type. Ruby's mail gem writes CRLF and
    # boundaries "--==_mimepart_<hex>_<hex>". Delivered unencrypted to a subscriber without a key.
    f = write("list_header/schleuder-unsigned.eml", """
Return-Path: <orchard-collective-bounce@lists.example.org>
Delivered-To: kit.morrow@example.net
Date: Tue, 24 Nov 2026 18:02:11 +0100
From: orchard-collective@lists.example.org
To: kit.morrow@example.net
Message-ID: <hx47-sch1@mail.example.com>
Subject: [orchard] Pruning day moves to Saturday
Mime-Version: 1.0
Content-Type: multipart/mixed;
 boundary="--==_mimepart_6743a1f3b2c1e_3f1a2b9c4d5e6";
 charset=UTF-8
Content-Transfer-Encoding: 7bit
List-Id: <orchard-collective.lists.example.org>
List-Owner: <mailto:orchard-collective-owner@lists.example.org> (Use list's public key)
List-Help: <https://schleuder.org/>
List-Post: <mailto:orchard-collective@lists.example.org>
OpenPGP: id=0x5C1A7E3390D2B41F6A88C0E7D1F2A3B4C5D6E7F8 (Send an email to orchard-collective-sendkey@lists.example.org to receive the public-key); preference=signencrypt (Only encrypted and signed emails by subscribers are accepted)


----==_mimepart_6743a1f3b2c1e_3f1a2b9c4d5e6
Content-Type: text/plain;
 charset=UTF-8
Content-Transfer-Encoding: 7bit

From: Wren Achterberg <wren@example.com>
To: orchard-collective@lists.example.org
Cc: 
Date: Tue, 24 Nov 2026 18:01:40 +0100
Sig: Unsigned
Enc: Unencrypted

----==_mimepart_6743a1f3b2c1e_3f1a2b9c4d5e6
Content-Type: text/plain;
 charset=UTF-8;
 format=flowed
Content-Transfer-Encoding: 7bit

Hi all,

the pruning day at the east orchard moves from Sunday to Saturday,
28 November, because of the storm warning. Bring loppers and gloves;
we start at the shed at ten.

Wren

----==_mimepart_6743a1f3b2c1e_3f1a2b9c4d5e6--
""", crlf=True)
    case("list_header", "schleuder-unsigned", f, {
        "reply_text": {"not_null": True, "contains": ["Hi all,", "pruning day at the east orchard moves"],
                       "not_contains": ["Sig: Unsigned", "Enc: Unencrypted", "wren@example.com>"]},
        "snippet": {"not_starts_with": ["From:", "From: Wren"]},
        "body_text": {"contains_exact": ["Enc: Unencrypted\n\nHi all,"]},
    }, "Schleuder clean_copy: pseudo-header part (From/To/Cc/Date/Sig/Enc) then the plain post; unencrypted delivery")

    # Schleuder in German (list.language de): the states come from locales/de.yml; the sig line
    # is GPGME's own English text. The post was multipart/signed: after verifying, the wrapper
    # part holds the signed content (a multipart/mixed with a PDF), no signature.
    f = write("list_header/schleuder-de-signed-attachment.eml", """
Return-Path: <stadtteilrat-bounce@schleuder.example.de>
Delivered-To: jo.berghaus@example.de
Date: Wed, 25 Nov 2026 09:14:52 +0100
From: stadtteilrat@schleuder.example.de
To: jo.berghaus@example.de
Message-ID: <hx47-sch2-b3c9f1@schleuder.example.de>
Subject: Protokoll der Sitzung vom 23.11.
Mime-Version: 1.0
Content-Type: multipart/mixed;
 boundary="--==_mimepart_674430bc8d2f4_51a2e7f03c81d";
 charset=UTF-8
Content-Transfer-Encoding: 7bit
List-Id: <stadtteilrat.schleuder.example.de>
List-Owner: <mailto:stadtteilrat-owner@schleuder.example.de> (Use list's public key)
List-Help: <https://schleuder.org/>
List-Post: <mailto:stadtteilrat@schleuder.example.de> (Subscribers only)


----==_mimepart_674430bc8d2f4_51a2e7f03c81d
Content-Type: text/plain;
 charset=UTF-8
Content-Transfer-Encoding: quoted-printable

From: Malte Gr=C3=BCnewald <malte.gruenewald@example.de>
To: stadtteilrat@schleuder.example.de
Cc: Beate Lindqvist <beate@example.de>
Date: Wed, 25 Nov 2026 09:14:20 +0100
Sig: Good signature from 7E2C91B0A4D83F65 Malte Gr=C3=BCnewald <malte.gruenewal=
d@example.de>
Enc: Unverschl=C3=BCsselt

----==_mimepart_674430bc8d2f4_51a2e7f03c81d
Content-Type: multipart/mixed;
 boundary="------------k0W2p9ZrT4sYqE1aVb7uXc3N"
Content-Transfer-Encoding: 7bit

This is a multi-part message in MIME format.
--------------k0W2p9ZrT4sYqE1aVb7uXc3N
Content-Type: text/plain; charset=UTF-8; format=flowed
Content-Transfer-Encoding: 8bit

Liebe alle,

anbei das Protokoll der Sitzung vom Montag. Bitte bis Freitag
Korrekturen an mich schicken, danach geht es an das Bezirksamt.

Viele Grüße
Malte

--------------k0W2p9ZrT4sYqE1aVb7uXc3N
Content-Type: application/pdf; name="Protokoll-2026-11-23.pdf"
Content-Disposition: attachment; filename="Protokoll-2026-11-23.pdf"
Content-Transfer-Encoding: base64

JVBERi0xLjQKJcOkw7zDtsOfCjEgMCBvYmoKPDwvVHlwZS9DYXRhbG9nPj4KZW5kb2JqCnRyYWls
ZXIKPDwvUm9vdCAxIDAgUj4+CiUlRU9GCg==

--------------k0W2p9ZrT4sYqE1aVb7uXc3N--

----==_mimepart_674430bc8d2f4_51a2e7f03c81d--
""", crlf=True)
    case("list_header", "schleuder-de-signed-attachment", f, {
        "reply_text": {"not_null": True, "contains": ["Liebe alle,", "anbei das Protokoll der Sitzung vom Montag"],
                       "not_contains": ["Good signature from", "Unverschlüsselt"]},
        "snippet": {"not_starts_with": ["From:"]},
    }, "Schleuder (de locale): pseudo-headers in quoted-printable, Cc filled, post verified into a multipart/mixed wrapper with a PDF")

    # Schleuder with a subject it protected: after the pseudo-header part comes a
    # "text/rfc822-headers; protected-headers=v1" part, then the post; a dynamic pseudo-header
    # (pseudoheaders.scrubbed_message) is added under the standard ones; From munged with
    # header_munging "%{from} via %{list} <%{list_address}>".
    f = write("list_header/schleuder-protected-subject.eml", """
Return-Path: <hackspace-orga-bounce@lists.example.net>
Delivered-To: ilse.varga@example.net
Date: Thu, 26 Nov 2026 21:40:03 +0000
From: "Tobi Renner via hackspace-orga" <hackspace-orga@lists.example.net>
Reply-To: hackspace-orga@lists.example.net
To: ilse.varga@example.net
Message-ID: <hx47-sch3.7d1e@tobi-laptop.example.net>
Subject: ...
Mime-Version: 1.0
Content-Type: multipart/mixed;
 boundary="--==_mimepart_67464113a0b5c_2b7f1c9e88a04";
 charset=UTF-8
Content-Transfer-Encoding: 7bit
List-Id: <hackspace-orga.lists.example.net>
List-Help: <https://schleuder.org/>
List-Post: <mailto:hackspace-orga@lists.example.net> (Subscribers only)


----==_mimepart_67464113a0b5c_2b7f1c9e88a04
Content-Type: text/plain;
 charset=UTF-8
Content-Transfer-Encoding: 7bit

From: Tobi Renner <tobi@example.net>
To: hackspace-orga@lists.example.net
Cc: 
Date: Thu, 26 Nov 2026 21:39:47 +0000
Sig: Good signature from 0F3A9C2D11B84E70 Tobi Renner <tobi@example.net>
Enc: Encrypted
Note: This message included invalid characters, which might have been removed to be able to process the message properly.

----==_mimepart_67464113a0b5c_2b7f1c9e88a04
Content-Type: text/rfc822-headers;
 charset=UTF-8;
 protected-headers=v1
Content-Transfer-Encoding: 7bit

Subject: Key handover for the laser cutter room

----==_mimepart_67464113a0b5c_2b7f1c9e88a04
Content-Type: text/plain;
 charset=UTF-8
Content-Transfer-Encoding: 7bit

Moin,

I will be away from 3 to 14 December. The spare key for the laser
cutter room is in the blue lockbox, code as before. Ping me on the
pad if the extractor fan acts up again.

Tobi

----==_mimepart_67464113a0b5c_2b7f1c9e88a04--
""", crlf=True)
    case("list_header", "schleuder-protected-subject", f, {
        "reply_text": {"not_null": True, "contains": ["Moin,", "spare key for the laser cutter room"],
                       "not_contains": ["Sig: Good signature", "Note: This message included invalid characters"]},
        "snippet": {"not_starts_with": ["From:"]},
    }, "Schleuder: pseudo-headers with a dynamic Note:, a protected-headers part, then the post; From munged 'X via list'")

    # Schleuder relaying an HTML mail: the wrapper part keeps multipart/alternative.
    f = write("list_header/schleuder-alternative.eml", """
Return-Path: <foodcoop-bounce@lists.example.org>
Delivered-To: ana.quiroga@example.org
Date: Fri, 27 Nov 2026 07:55:30 -0300
From: foodcoop@lists.example.org
To: ana.quiroga@example.org
Message-ID: <hx47-sch4-CAF9x2@mail.example.com>
Subject: [foodcoop] Turnos de reparto de diciembre
Mime-Version: 1.0
Content-Type: multipart/mixed;
 boundary="--==_mimepart_6747ba628f1d0_19c4a5e2b7f33";
 charset=UTF-8
Content-Transfer-Encoding: 7bit
List-Id: <foodcoop.lists.example.org>
List-Help: <https://schleuder.org/>
List-Post: <mailto:foodcoop@lists.example.org>


----==_mimepart_6747ba628f1d0_19c4a5e2b7f33
Content-Type: text/plain;
 charset=UTF-8
Content-Transfer-Encoding: 7bit

From: Lucía Ferreyra <lucia.ferreyra@example.com>
To: foodcoop@lists.example.org
Cc: 
Date: Fri, 27 Nov 2026 07:55:02 -0300
Sig: Unsigned
Enc: Unencrypted

----==_mimepart_6747ba628f1d0_19c4a5e2b7f33
Content-Type: multipart/alternative;
 boundary="000000000000c3a1f205f2b7a9e1"
Content-Transfer-Encoding: 7bit

--000000000000c3a1f205f2b7a9e1
Content-Type: text/plain; charset="UTF-8"
Content-Transfer-Encoding: quoted-printable

Hola a todos,

ya est=C3=A1 la planilla de turnos de reparto para diciembre. Faltan
voluntarios para el s=C3=A1bado 12 y el mi=C3=A9rcoles 23.

Gracias,
Luc=C3=ADa

--000000000000c3a1f205f2b7a9e1
Content-Type: text/html; charset="UTF-8"
Content-Transfer-Encoding: quoted-printable

<div dir=3D"ltr"><div>Hola a todos,</div><div><br></div><div>ya est=C3=A1 =
la planilla de turnos de reparto para diciembre. Faltan voluntarios para =
el s=C3=A1bado 12 y el mi=C3=A9rcoles 23.</div><div><br></div><div>Gracias,=
</div><div>Luc=C3=ADa</div></div>

--000000000000c3a1f205f2b7a9e1--

----==_mimepart_6747ba628f1d0_19c4a5e2b7f33--
""", crlf=True)
    case("list_header", "schleuder-alternative", f, {
        "reply_text": {"not_null": True, "contains": ["Hola a todos,", "la planilla de turnos de reparto para diciembre"],
                       "not_contains": ["Sig: Unsigned", "lucia.ferreyra@example.com"]},
        "snippet": {"not_starts_with": ["From:"]},
    }, "Schleuder: pseudo-header part, then the post kept as multipart/alternative (Gmail-written post)")

    # Schleuder with a customised headers_to_meta (from, date, sig, enc only) and base64 parts, LF
    # line ends (as a maildir copy written by a local delivery agent that strips CR).
    f = write("list_header/schleuder-short-block.eml", """
Return-Path: <tenants-bounce@lists.example.com>
Delivered-To: omar.sidiqi@example.com
Date: Sat, 28 Nov 2026 11:20:00 +0000
From: tenants@lists.example.com
To: omar.sidiqi@example.com
Message-ID: <hx47-sch5-0a2f@lists.example.com>
Subject: Heating repair visit
Mime-Version: 1.0
Content-Type: multipart/mixed;
 boundary="--==_mimepart_6748534093a1c_7e2d9a0c11f48";
 charset=UTF-8
Content-Transfer-Encoding: 7bit
List-Id: <tenants.lists.example.com>
List-Help: <https://schleuder.org/>
List-Post: <mailto:tenants@lists.example.com>


----==_mimepart_6748534093a1c_7e2d9a0c11f48
Content-Type: text/plain;
 charset=UTF-8
Content-Transfer-Encoding: base64

RnJvbTogUGV0cmEgSG9sbWJlcmcgPHBldHJhQGV4YW1wbGUuY29tPgpEYXRlOiBTYXQsIDI4IE5v
diAyMDI2IDExOjE5OjMxICswMDAwClNpZzogVW5zaWduZWQKRW5jOiBVbmVuY3J5cHRlZAo=

----==_mimepart_6748534093a1c_7e2d9a0c11f48
Content-Type: text/plain;
 charset=UTF-8
Content-Transfer-Encoding: base64

VGhlIGhlYXRpbmcgZW5naW5lZXIgY29tZXMgb24gVHVlc2RheSBiZXR3ZWVuIDggYW5kIDEyLiBJ
ZiB5b3VyIGZsYXQgaXMgb24gdGhlIGxpc3QgYW5kIHlvdSBjYW5ub3QgYmUgaW4sCmxlYXZlIGEg
a2V5IHdpdGggZmxhdCAzIGJ5IE1vbmRheSBldmVuaW5nLgoKUGV0cmEK

----==_mimepart_6748534093a1c_7e2d9a0c11f48--
""")
    case("list_header", "schleuder-short-block", f, {
        "reply_text": {"not_null": True, "contains": ["heating engineer comes on Tuesday"],
                       "not_contains": ["Sig: Unsigned", "petra@example.com"]},
        "snippet": {"not_starts_with": ["From:"]},
    }, "Schleuder with headers_to_meta from/date/sig/enc, both parts base64, LF line ends")

    # Look-alikes: a person's own From:/To:/Date: lines inside a normal mail.
    f = write("list_header/lookalike-itinerary.eml", """
Return-Path: <nadia.kowal@example.org>
Delivered-To: kit.morrow@example.net
From: Nadia Kowal <nadia.kowal@example.org>
To: Kit Morrow <kit.morrow@example.net>
Subject: Train for the workshop
Date: Mon, 23 Nov 2026 20:11:09 +0100
Message-ID: <hx47-look1-4b2a@example.org>
MIME-Version: 1.0
Content-Type: text/plain; charset=utf-8; format=flowed
Content-Transfer-Encoding: 8bit
User-Agent: Mozilla Thunderbird

Hi Kit,

I booked us on the same train, here is what the ticket says:

From: Leipzig Hbf
To: Nürnberg Hbf
Date: Thu, 3 Dec 2026, 07:38
Coach 9, seats 61 and 63

Shall we meet at the bakery on the platform at 7:20?

Nadia
""")
    case("list_header", "lookalike-itinerary", f, {
        "reply_text": {"not_null": True, "contains": ["From: Leipzig Hbf", "meet at the bakery on the platform"]},
        "snippet": {"starts_with": ["Hi Kit"]},
    }, "A person's own From:/To:/Date: lines in a one-part Thunderbird mail: all of it is their text", lookalike=True)

    f = write("list_header/lookalike-suspicious-headers.eml", """
Return-Path: <ravi.menon@example.com>
Delivered-To: helpdesk@example.com
From: Ravi Menon <ravi.menon@example.com>
To: IT Helpdesk <helpdesk@example.com>
Subject: Is this invoice mail real?
Date: Tue, 24 Nov 2026 08:47:15 +0000
Message-ID: <hx47-look2-AM9PR01@example.com>
MIME-Version: 1.0
Content-Type: multipart/mixed; boundary="===============4211938473619281762=="

--===============4211938473619281762==
Content-Type: text/plain; charset="us-ascii"
Content-Transfer-Encoding: 7bit

Hello helpdesk,

I got a mail this morning that I do not trust. These are the lines my
mail program shows at the top:

From: Accounts Payable <billing@invoices-example.net>
To: ravi.menon@example.com
Date: Tue, 24 Nov 2026 06:02:44 +0000

It asks me to open an attached invoice from a supplier we never used.
Is this legitimate, or should I delete it?

Thanks,
Ravi

--===============4211938473619281762==--
""")
    case("list_header", "lookalike-suspicious-headers", f, {
        "reply_text": {"not_null": True, "contains": ["I got a mail this morning that I do not trust",
                                                      "Is this legitimate, or should I delete it"]},
    }, "A person quoting a suspicious mail's From/To/Date lines in the middle of their own text part", lookalike=True)

    add_footers(ctx)


def add_footers(ctx):
    write, case = ctx["write"], ctx["case"]
    sig = """-----BEGIN PGP SIGNATURE-----

iHUEARYKAB0WIQRz3mU0VbQhX1c9sKkZ0b2m5yN8kQUCZ0Sx4AAKCRAZ0b2m5yN8
kVdlAQDbq7c5xR1uYw2eT9tK0aHcM3pL8vJ6nQ2sF4gD1hX7ZgD/W3kE9rT0yU6i
O8pA5sD2fG7hJ1kL4zX9cV3bN6mQ0wE=
=Xq7a
-----END PGP SIGNATURE-----"""

    # Mailman 3 (handlers/decorate.py, docs/decorate.rst): a post that is not a single text part
    # is wrapped in multipart/mixed with the footer as a separate text/plain part, charset
    # us-ascii, MIME-Version and Content-Disposition inline in the part. The default
    # list:member:regular:footer is "_____\n$display_name mailing list -- $listname\nTo
    # unsubscribe send an email to ${short_listname}-leave@${domain}".
    f = write("list_footer/mailman3-signed-default.eml", f"""
Return-Path: <birders-bounces@lists.example.org>
Delivered-To: kit.morrow@example.net
From: Greta Holm <greta.holm@example.se>
To: birders@lists.example.org
Subject: [Birders] Waxwings at the station car park
Date: Sun, 22 Nov 2026 14:03:27 +0100
Message-ID: <hx47-ftr1.f2c8@example.se>
Message-ID-Hash: 4XQ7M3KJ2RZPWJ6VUTB5D2Y3HLC6ANE7
X-Message-ID-Hash: 4XQ7M3KJ2RZPWJ6VUTB5D2Y3HLC6ANE7
X-Mailman-Version: 3.3.9
Precedence: list
List-Id: Birders <birders.lists.example.org>
Archived-At: <https://lists.example.org/archives/list/birders@lists.example.org/message/4XQ7M3KJ2RZPWJ6VUTB5D2Y3HLC6ANE7/>
List-Archive: <https://lists.example.org/archives/list/birders@lists.example.org/>
List-Help: <mailto:birders-request@lists.example.org?subject=help>
List-Owner: <mailto:birders-owner@lists.example.org>
List-Post: <mailto:birders@lists.example.org>
List-Subscribe: <mailto:birders-join@lists.example.org>
List-Unsubscribe: <mailto:birders-leave@lists.example.org>
MIME-Version: 1.0
Content-Type: multipart/mixed; boundary="===============2283913468431092861=="

--===============2283913468431092861==
Content-Type: multipart/signed; micalg=pgp-sha256;
 protocol="application/pgp-signature";
 boundary="------------5rQ0kT3yV8wBn2Lc4ZgH1PxD"

This is an OpenPGP/MIME signed message (RFC 4880 and 3156)
--------------5rQ0kT3yV8wBn2Lc4ZgH1PxD
Content-Type: text/plain; charset=UTF-8; format=flowed
Content-Transfer-Encoding: 7bit

Hello birders,

a flock of about forty waxwings is feeding on the rowans at the
station car park this afternoon. Best light is before three.

Greta

--------------5rQ0kT3yV8wBn2Lc4ZgH1PxD
Content-Type: application/pgp-signature; name="OpenPGP_signature.asc"
Content-Description: OpenPGP digital signature
Content-Disposition: attachment; filename="OpenPGP_signature.asc"

{sig}

--------------5rQ0kT3yV8wBn2Lc4ZgH1PxD--

--===============2283913468431092861==
Content-Type: text/plain; charset="us-ascii"
MIME-Version: 1.0
Content-Transfer-Encoding: 7bit
Content-Disposition: inline

_______________________________________________
Birders mailing list -- birders@lists.example.org
To unsubscribe send an email to birders-leave@lists.example.org

--===============2283913468431092861==--
""")
    case("list_footer", "mailman3-signed-default", f, {
        "reply_text": {"not_null": True, "contains": ["flock of about forty waxwings"],
                       "not_contains": ["Birders mailing list --", "birders-leave@lists.example.org"]},
        "body_text": {"contains_exact": ["forty waxwings"]},
    }, "Mailman 3: multipart/mixed [multipart/signed post, text/plain default footer]")

    f = write("list_footer/mailman3-signed-custom.eml", f"""
Return-Path: <rail-users-bounces@lists.example.net>
Delivered-To: ilse.varga@example.net
From: Dmitri Sokolov <dmitri@example.net>
To: rail-users@lists.example.net
Subject: [rail-users] Timetable change on the coastal line
Date: Mon, 23 Nov 2026 07:12:44 +0000
Message-ID: <hx47-ftr2-5f1a@example.net>
X-Mailman-Version: 3.3.8
Precedence: list
List-Id: "Rail users' forum" <rail-users.lists.example.net>
List-Post: <mailto:rail-users@lists.example.net>
List-Unsubscribe: <mailto:rail-users-leave@lists.example.net>
MIME-Version: 1.0
Content-Type: multipart/mixed; boundary="===============8419275306012284937=="

--===============8419275306012284937==
Content-Type: multipart/signed; micalg=pgp-sha512;
 protocol="application/pgp-signature";
 boundary="=-LxV2kq9Rf1sTz0Pm8YbN"

--=-LxV2kq9Rf1sTz0Pm8YbN
Content-Type: text/plain; charset="UTF-8"
Content-Transfer-Encoding: quoted-printable

From 14 December the 7:05 from the harbour runs ten minutes later, and
the Sunday service gets an extra evening train at 21:40. The new PDF
timetable is not online yet; I will post the link when it is.

Dmitri

--=-LxV2kq9Rf1sTz0Pm8YbN
Content-Type: application/pgp-signature; name="signature.asc"
Content-Description: This is a digitally signed message part

{sig}

--=-LxV2kq9Rf1sTz0Pm8YbN--

--===============8419275306012284937==
Content-Type: text/plain; charset="us-ascii"
MIME-Version: 1.0
Content-Transfer-Encoding: 7bit
Content-Disposition: inline

Rail users' forum - independent of the operator.
Posts are archived publicly at https://lists.example.net/archives/list/rail-users@lists.example.net/
Moderators: Aino and Kwame

--===============8419275306012284937==--
""")
    case("list_footer", "mailman3-signed-custom", f, {
        "reply_text": {"not_null": True, "contains": ["the 7:05 from the harbour runs ten minutes later"],
                       "not_contains": ["independent of the operator", "Moderators: Aino and Kwame"]},
    }, "Mailman 3: signed post (Evolution) wrapped with a customised footer that names no unsubscribing")

    f = write("list_footer/mailman3-alternative-custom.eml", """
Return-Path: <quilters-bounces@lists.example.com>
Delivered-To: omar.sidiqi@example.com
From: Bea Okonjo <bea.okonjo@example.com>
To: quilters@lists.example.com
Subject: [Quilters] Batting offcuts free to a good home
Date: Tue, 24 Nov 2026 16:30:09 +0000
Message-ID: <hx47-ftr3-0c7d@mail.example.com>
X-Mailman-Version: 3.3.9
Precedence: list
List-Id: Quilters <quilters.lists.example.com>
List-Post: <mailto:quilters@lists.example.com>
List-Unsubscribe: <mailto:quilters-leave@lists.example.com>
MIME-Version: 1.0
Content-Type: multipart/mixed; boundary="===============6120995231734458420=="

--===============6120995231734458420==
Content-Type: multipart/alternative; boundary="000000000000a1b2c305f2c4d6e7"

--000000000000a1b2c305f2c4d6e7
Content-Type: text/plain; charset="UTF-8"

I have two bin bags of cotton batting offcuts from the charity quilt.
Anyone who wants them can collect from my porch this week.

Bea

--000000000000a1b2c305f2c4d6e7
Content-Type: text/html; charset="UTF-8"

<div dir="ltr">I have two bin bags of cotton batting offcuts from the charity quilt.<br>Anyone who wants them can collect from my porch this week.<br><br>Bea</div>

--000000000000a1b2c305f2c4d6e7--

--===============6120995231734458420==
Content-Type: text/plain; charset="us-ascii"
MIME-Version: 1.0
Content-Transfer-Encoding: 7bit
Content-Disposition: inline

Quilters of the Vale - meetings first Thursday, church hall, 7pm.

--===============6120995231734458420==--
""")
    case("list_footer", "mailman3-alternative-custom", f, {
        "reply_text": {"not_null": True, "contains": ["two bin bags of cotton batting offcuts"],
                       "not_contains": ["meetings first Thursday, church hall"]},
    }, "Mailman 3: an HTML post (multipart/alternative) wrapped in multipart/mixed with a short custom footer part"
       " (the first child is multipart/alternative: beyond the contract's literal 'multipart/signed or a text part')")

    # Sympa (footer_type mime; the list's message_footer is "added as a MIME attachment at the
    # end"); Sympa leaves multipart/signed untouched, so its footers come after plain posts.
    f = write("list_footer/sympa-plain-fr.eml", """
Return-Path: <jardins-partages-owner@listes.example.fr>
Delivered-To: ana.quiroga@example.org
From: =?UTF-8?Q?Aur=C3=A9lie_Marchand?= <aurelie.marchand@example.fr>
To: jardins-partages@listes.example.fr
Subject: [jardins-partages] Commande de compost groupée
Date: Wed, 25 Nov 2026 19:22:51 +0100
Message-ID: <hx47-ftr4-8e21c7@example.fr>
X-Loop: jardins-partages@listes.example.fr
X-Sequence: 1412
Errors-To: jardins-partages-owner@listes.example.fr
Precedence: list
Precedence: bulk
Sender: jardins-partages-request@listes.example.fr
X-no-archive: yes
List-Id: <jardins-partages.listes.example.fr>
List-Help: <mailto:sympa@listes.example.fr?subject=help>
List-Subscribe: <mailto:sympa@listes.example.fr?subject=subscribe%20jardins-partages>
List-Unsubscribe: <mailto:sympa@listes.example.fr?subject=unsubscribe%20jardins-partages>
List-Post: <mailto:jardins-partages@listes.example.fr>
List-Owner: <mailto:jardins-partages-request@listes.example.fr>
MIME-Version: 1.0
Content-Type: multipart/mixed; boundary="----------=_1764094971-28716-1"

This is a multi-part message in MIME format...

------------=_1764094971-28716-1
Content-Type: text/plain; charset=UTF-8; format=flowed
Content-Transfer-Encoding: quoted-printable

Bonjour =C3=A0 toutes et tous,

je passe une commande group=C3=A9e de compost chez la ferme des Ormes.
R=C3=A9ponse avant dimanche si vous voulez des sacs, 6 euros le sac de
40 litres.

Aur=C3=A9lie

------------=_1764094971-28716-1
Content-Type: text/plain; charset=UTF-8
Content-Disposition: inline
Content-Transfer-Encoding: 8bit

Cette liste est modérée. Archives : https://listes.example.fr/sympa/arc/jardins-partages

------------=_1764094971-28716-1--
""")
    case("list_footer", "sympa-plain-fr", f, {
        "reply_text": {"not_null": True, "contains": ["commande groupée de compost"],
                       "not_contains": ["Cette liste est modérée", "sympa/arc/jardins-partages"]},
        "body_text": {"contains_exact": ["Aurélie\n\nCette liste est modérée"]},
    }, "Sympa footer_type mime: multipart/mixed [text/plain post, text/plain footer part] (French, no unsubscribe words)")

    # Google Groups: for a multipart/signed post the footer goes in a text/plain part of its own
    # after the post (it does not touch the signed part).
    f = write("list_footer/googlegroups-signed.eml", f"""
Return-Path: <hill-walkers+bncBDY3VFRRYQCBBK6Q7WTAMGQE4ZG7L2Y@googlegroups.com>
Delivered-To: kit.morrow@example.net
From: Ewan MacLeod <ewan.macleod@example.co.uk>
To: hill-walkers@googlegroups.com
Subject: [hill-walkers] Ben Ledi on Saturday - lifts
Date: Thu, 26 Nov 2026 22:48:10 +0000
Message-ID: <hx47-ftr5-20261126224810.GA7710@ewan-desk>
Mailing-list: list hill-walkers@googlegroups.com; contact hill-walkers+owners@googlegroups.com
Precedence: list
List-ID: <hill-walkers.googlegroups.com>
X-Spam-Checked-In-Group: ewan.macleod@example.co.uk
X-Google-Group-Id: 118274409321
List-Post: <https://groups.google.com/group/hill-walkers/post>, <mailto:hill-walkers@googlegroups.com>
List-Help: <https://groups.google.com/support/>, <mailto:hill-walkers+help@googlegroups.com>
List-Archive: <https://groups.google.com/group/hill-walkers
List-Unsubscribe: <mailto:googlegroups-manage+118274409321+unsubscribe@googlegroups.com>,
 <https://groups.google.com/group/hill-walkers/subscribe>
MIME-Version: 1.0
Content-Type: multipart/mixed; boundary="000000000000e5f0a205f2d1c3b9"

--000000000000e5f0a205f2d1c3b9
Content-Type: multipart/signed; micalg=pgp-sha256;
 protocol="application/pgp-signature"; boundary="UwX2f8s0mQk3Lp7R"
Content-Disposition: inline

--UwX2f8s0mQk3Lp7R
Content-Type: text/plain; charset=us-ascii
Content-Disposition: inline

I can take three people from the Stirling park and ride at 8:15.
Reply off-list if you want a seat; boots off in the car please.

Ewan

--UwX2f8s0mQk3Lp7R
Content-Type: application/pgp-signature; name="signature.asc"

{sig}

--UwX2f8s0mQk3Lp7R--

--000000000000e5f0a205f2d1c3b9
Content-Type: text/plain; charset="UTF-8"

-- 
You received this message because you are subscribed to the Google Groups "Hill Walkers" group.
To unsubscribe from this group and stop receiving emails from it, send an email to hill-walkers+unsubscribe@googlegroups.com.
To view this discussion visit https://groups.google.com/d/msgid/hill-walkers/hx47-ftr5-20261126224810.GA7710%40ewan-desk.

--000000000000e5f0a205f2d1c3b9--
""")
    case("list_footer", "googlegroups-signed", f, {
        "reply_text": {"not_null": True, "contains": ["three people from the Stirling park and ride"],
                       "not_contains": ["subscribed to the Google Groups", "To view this discussion"]},
    }, "Google Groups: multipart/mixed [multipart/signed (Mutt) post, text/plain footer part]")

    # Schleuder's public_footer (add_footer!: a text/plain part added after the post).
    f = write("list_footer/schleuder-public-footer.eml", """
Return-Path: <orchard-collective-bounce@lists.example.org>
Delivered-To: kit.morrow@example.net
Date: Fri, 27 Nov 2026 12:00:41 +0100
From: orchard-collective@lists.example.org
To: kit.morrow@example.net
Message-ID: <hx47-ftr6@mail.example.com>
Subject: [orchard] Cider pressing photos
Mime-Version: 1.0
Content-Type: multipart/mixed;
 boundary="--==_mimepart_6746fc79b0e21_3f1a2b9c4d60f";
 charset=UTF-8
Content-Transfer-Encoding: 7bit
List-Id: <orchard-collective.lists.example.org>
List-Help: <https://schleuder.org/>
List-Post: <mailto:orchard-collective@lists.example.org>


----==_mimepart_6746fc79b0e21_3f1a2b9c4d60f
Content-Type: text/plain;
 charset=UTF-8
Content-Transfer-Encoding: 7bit

From: Hamid Rezaei <hamid@example.com>
To: orchard-collective@lists.example.org
Cc: 
Date: Fri, 27 Nov 2026 12:00:12 +0100
Sig: Unsigned
Enc: Unencrypted

----==_mimepart_6746fc79b0e21_3f1a2b9c4d60f
Content-Type: text/plain;
 charset=UTF-8
Content-Transfer-Encoding: 7bit

The photos from the cider pressing are in the shared album now. We got
ninety litres out of the russets, a record.

Hamid

----==_mimepart_6746fc79b0e21_3f1a2b9c4d60f
Content-Type: text/plain;
 charset=UTF-8
Content-Transfer-Encoding: 7bit

--
Orchard Collective - the east and west orchards, since 2011.

----==_mimepart_6746fc79b0e21_3f1a2b9c4d60f--
""", crlf=True)
    case("list_footer", "schleuder-public-footer", f, {
        "reply_text": {"not_null": True, "contains": ["ninety litres out of the russets"],
                       "not_contains": ["the east and west orchards, since 2011", "Sig: Unsigned"]},
        "snippet": {"not_starts_with": ["From:"]},
    }, "Schleuder with public_footer: [pseudo-header part, post, footer part]")

    # Discourse in mailing-list mode: its own mail, multipart/alternative, the footer inline at
    # the end of the same text part ("---", Visit Topic, mailing list mode, unsubscribe).
    f = write("list_footer/discourse-mailing-list-mode.eml", """
Return-Path: <forum+verp-3a9f0c21b7e4d5a6@forum.example.org>
Delivered-To: ilse.varga@example.net
Date: Sat, 28 Nov 2026 09:31:05 +0000
From: Femi Adeyemi via Makers Forum <forum@forum.example.org>
Reply-To: Makers Forum <forum+c8e1b2a47f90d3e5@forum.example.org>
To: ilse.varga@example.net
Message-ID: <hx47-ftr7-topic/412/2871@forum.example.org>
In-Reply-To: <topic/412@forum.example.org>
References: <topic/412@forum.example.org>
Subject: [Makers Forum] [Electronics] Cheap bench power supply recommendations
Mime-Version: 1.0
Content-Type: multipart/alternative;
 boundary="--==_mimepart_674839e9b1f2a_6b2c41e0d9314";
 charset=UTF-8
Content-Transfer-Encoding: 7bit
List-Unsubscribe: <https://forum.example.org/email/unsubscribe/4e8c2b1d7f09a3c6e5d4>
X-Discourse-Post-Id: 2871
X-Discourse-Topic-Id: 412
X-Auto-Response-Suppress: All
Auto-Submitted: auto-generated
List-ID: Makers Forum | Electronics <electronics.makers-forum.forum.example.org>
List-Archive: https://forum.example.org/t/cheap-bench-power-supply-recommendations/412
Precedence: list


----==_mimepart_674839e9b1f2a_6b2c41e0d9314
Content-Type: text/plain;
 charset=UTF-8
Content-Transfer-Encoding: 7bit

I have had a Korad KA3005D for four years and it has been fine for
hobby work. The fan is loud though, so I swapped it for a quieter one.

---
[Visit Topic](https://forum.example.org/t/cheap-bench-power-supply-recommendations/412/4) or reply to this email to respond.

You are receiving this because you enabled mailing list mode.

To unsubscribe from these emails, [click here](https://forum.example.org/email/unsubscribe/4e8c2b1d7f09a3c6e5d4).


----==_mimepart_674839e9b1f2a_6b2c41e0d9314
Content-Type: text/html;
 charset=UTF-8
Content-Transfer-Encoding: 7bit

<div><p>I have had a Korad KA3005D for four years and it has been fine for hobby work. The fan is loud though, so I swapped it for a quieter one.</p>
<hr><p><a href="https://forum.example.org/t/cheap-bench-power-supply-recommendations/412/4">Visit Topic</a> or reply to this email to respond.</p>
<p>You are receiving this because you enabled mailing list mode.</p>
<p>To unsubscribe from these emails, <a href="https://forum.example.org/email/unsubscribe/4e8c2b1d7f09a3c6e5d4">click here</a>.</p></div>

----==_mimepart_674839e9b1f2a_6b2c41e0d9314--
""", crlf=True)
    case("list_footer", "discourse-mailing-list-mode", f, {
        "reply_text": {"not_null": True, "contains": ["Korad KA3005D for four years"],
                       "not_contains": ["Visit Topic", "enabled mailing list mode"]},
    }, "Discourse mailing-list mode: the footer inline at the end of the same part (the existing footer rules' case)")

    # Look-alike: Apple Mail (plain text with an inline picture) writes
    # multipart/mixed [text/plain, image/jpeg inline, text/plain]: the last short text part is the
    # person's own words.
    f = write("list_footer/lookalike-applemail-inline-image.eml", """
Return-Path: <greta.holm@example.se>
Delivered-To: kit.morrow@example.net
From: Greta Holm <greta.holm@example.se>
Content-Type: multipart/mixed;
	boundary="Apple-Mail=_5B1C7E2A-93F4-4D8B-A0E6-1F2C3D4E5F60"
Mime-Version: 1.0 (Mac OS X Mail 16.0 \\(3826.200.121\\))
Subject: The fence
Date: Sun, 22 Nov 2026 16:41:02 +0100
Message-Id: <hx47-look3-7A1E4F0B-22C9-4E1A-9B3D-6C5E8F7A0B1C@example.se>
To: Kit Morrow <kit.morrow@example.net>
X-Mailer: Apple Mail (2.3826.200.121)


--Apple-Mail=_5B1C7E2A-93F4-4D8B-A0E6-1F2C3D4E5F60
Content-Transfer-Encoding: 7bit
Content-Type: text/plain;
	charset=us-ascii

Here is the fence after the storm, the two middle panels are gone:

--Apple-Mail=_5B1C7E2A-93F4-4D8B-A0E6-1F2C3D4E5F60
Content-Disposition: inline;
	filename=IMG_4021.jpeg
Content-Type: image/jpeg;
	x-unix-mode=0644;
	name="IMG_4021.jpeg"
Content-Transfer-Encoding: base64

/9j/4AAQSkZJRgABAQAAAQABAAD/2wBDAAgGBgcGBQgHBwcJCQgKDBQNDAsLDBkSEw8UHRofHh0a
HBwgJC4nICIsIxwcKDcpLDAxNDQ0Hyc5PTgyPC4zNDL/wAALCAABAAEBAREA/8QAFAABAAAAAAAA
AAAAAAAAAAAACf/EABQQAQAAAAAAAAAAAAAAAAAAAAD/2gAIAQEAAD8AKp//2Q==
--Apple-Mail=_5B1C7E2A-93F4-4D8B-A0E6-1F2C3D4E5F60
Content-Transfer-Encoding: 7bit
Content-Type: text/plain;
	charset=us-ascii


Can you ask your brother whether he still has the post driver?

Greta
--Apple-Mail=_5B1C7E2A-93F4-4D8B-A0E6-1F2C3D4E5F60--
""")
    case("list_footer", "lookalike-applemail-inline-image", f, {
        "reply_text": {"not_null": True, "contains": ["the two middle panels are gone",
                                                      "still has the post driver"]},
    }, "Apple Mail plain text with an inline image: [text, image, text]; the last short text part is the sender's", lookalike=True)

    f = write("list_footer/lookalike-two-part-note.eml", """
Return-Path: <dmitri@example.net>
Delivered-To: ilse.varga@example.net
From: Dmitri Sokolov <dmitri@example.net>
To: Ilse Varga <ilse.varga@example.net>
Subject: Keys and the meter reading
Date: Mon, 23 Nov 2026 18:20:31 +0000
Message-ID: <hx47-look4-87a1@example.net>
MIME-Version: 1.0
Content-Type: multipart/mixed; boundary="=-Qp4Rz8KfV1cLm2NwT7xH"
X-Mailer: Evolution 3.50.3-1

--=-Qp4Rz8KfV1cLm2NwT7xH
Content-Type: text/plain; charset="UTF-8"
Content-Transfer-Encoding: 7bit

I left the keys with the neighbour at number 12 as agreed.

--=-Qp4Rz8KfV1cLm2NwT7xH
Content-Type: text/plain; charset="UTF-8"
Content-Disposition: inline
Content-Transfer-Encoding: 7bit

Meter reading this morning: 48213.

--=-Qp4Rz8KfV1cLm2NwT7xH--
""")
    case("list_footer", "lookalike-two-part-note", f, {
        "reply_text": {"not_null": True, "contains": ["left the keys with the neighbour",
                                                      "Meter reading this morning: 48213"]},
    }, "A personal two-part mail (Evolution, no list headers): the short last text part is the sender's own", lookalike=True)
