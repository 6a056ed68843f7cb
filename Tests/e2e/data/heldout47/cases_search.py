"""Class 9: newsletters whose plain part says little and whose HTML alternative holds the words."""

NOW_ME = "kit.morrow@example.net"


def newsletter(frm, subject, date, mid, plain, html, boundary, extra=()):
    head = [*extra, f"From: {frm}", f"To: {NOW_ME}", f"Subject: {subject}", f"Date: {date}",
            f"Message-ID: <{mid}>", "MIME-Version: 1.0",
            f"List-Unsubscribe: <https://{mid.split('@')[1]}/unsubscribe?m={mid.split('@')[0]}>",
            "Precedence: bulk",
            f'Content-Type: multipart/alternative; boundary="{boundary}"']
    return "\n".join(head) + f"""

--{boundary}
Content-Type: text/plain; charset="utf-8"
Content-Transfer-Encoding: 8bit

{plain}

--{boundary}
Content-Type: text/html; charset="utf-8"
Content-Transfer-Encoding: 8bit

{html}

--{boundary}--
"""


def add_search(ctx):
    write, case = ctx["write"], ctx["case"]
    files = []

    # Mailchimp's plain part when the campaign's plain text was left to the default.
    files.append(write("search/n1-bakery-mailchimp.eml", newsletter(
        "Lighthouse Bakery <hello@lighthouse-bakery.example>", "This week at the bakery",
        "Mon, 23 Nov 2026 07:00:00 +0000", "hx47-n1@mail.lighthouse-bakery.example",
        "View this email in your browser (https://us21.campaign-archive.example/?u=8a1f&id=n1)\n\n"
        "** This week at the bakery\n\n"
        "============================================================\n"
        "Copyright (C) 2026 Lighthouse Bakery, All rights reserved.\n"
        "Want to change how you receive these emails?\n"
        "You can update your preferences or unsubscribe from this list.",
        """<!doctype html><html><head><meta charset="utf-8"><style>
.mcnTextContent{font-family:Georgia,serif;color:#333}
</style></head><body>
<!-- campaign wavecrestcode n1 -->
<table class="mcnTextContent" width="600"><tr><td>
<h1>This week at the bakery</h1>
<p>Our cardamom buns are back on Saturdays from 8am, freshly baked in the wood oven.</p>
<p>The rye sourdough now comes in a half loaf, and the harbour café serves our almond croissants.</p>
</td></tr></table></body></html>""", "_----------=_MCPart_1839201"),
        ))

    files.append(write("search/n2-cinema.eml", newsletter(
        "Riverside Picturehouse <programme@riverside-cinema.example>", "December programme",
        "Tue, 24 Nov 2026 12:00:00 +0000", "hx47-n2@news.riverside-cinema.example",
        "Your email program cannot display this message. Open it online:\n"
        "https://riverside-cinema.example/newsletter/december",
        """<html><body><div style="max-width:640px">
<h2>December programme</h2>
<p>A Kurosawa retrospective opens on 4 December with Ikiru and Red Beard, in new 4K restorations.</p>
<p>Members' night: a silent film with live piano accompaniment on the 18th.</p>
</div></body></html>""", "b1_7f3a9c0e2d4b6a8c1e3f5a7b9d0c2e4f"),
        ))

    files.append(write("search/n3-outdoor-shop.eml", newsletter(
        "Ridgeline Outdoor <news@ridgeline-outdoor.example>", "Winter is coming to the hills",
        "Wed, 25 Nov 2026 16:00:00 +0000", "hx47-n3@em.ridgeline-outdoor.example",
        "Having trouble viewing this email? View it in your browser:\n"
        "https://ridgeline-outdoor.example/email/winter",
        """<html><head><style type="text/css">
.zephyrblock { padding: 12px; background: #eef; }
</style></head><body>
<div class="zephyrblock">
<p>Winter skills weekend in the Cairngorms: ice axe arrest, crampons technique and avalanche awareness.</p>
<p>20% off gaiters and insulated flasks until Sunday.</p>
</div></body></html>""", "==ridgeline_7731_alt",
        extra=["X-Campaign-ID: winter-2026"])))

    files.append(write("search/n4-council.eml", newsletter(
        "Eastbrook Council <updates@eastbrook-council.example>", "Eastbrook residents' update",
        "Thu, 26 Nov 2026 09:30:00 +0000", "hx47-n4@updates.eastbrook-council.example",
        "Eastbrook residents' update - November.\nRead this update online at https://eastbrook-council.example/update",
        """<html><body>
<h1>Eastbrook residents' update</h1>
<p>The allotment waiting list reopens on 1 December. Bin collections move by one day over Christmas.</p>
<p>The library's repair café meets on the first Saturday of the month.</p>
</body></html>""", "----=_NextPart_000_0031_01DB3F2A.5C7E8A90"),
        ))

    files.append(write("search/n5-museum-fr.eml", newsletter(
        "Musée des Tisserands <lettre@musee-tisserands.example>", "La lettre de décembre",
        "Fri, 27 Nov 2026 10:00:00 +0100", "hx47-n5@lettre.musee-tisserands.example",
        "Lisez ce message dans votre navigateur : https://musee-tisserands.example/lettre/decembre",
        """<html lang="fr"><body>
<h1>La lettre de décembre</h1>
<p>Nouvelle exposition : la tapisserie de la licorne restaurée, visible à partir du 5 décembre.</p>
<p>Atelier de teinture végétale pour les enfants le mercredi après-midi.</p>
</body></html>""", "=_musee_5521"),
        ))

    files.append(write("search/n6-travel-ja.eml", newsletter(
        "=?UTF-8?B?5peF44Gu44GK55+l44KJ44Gb?= <info@tabi-news.example>", "=?UTF-8?B?5LuK6YCx44Gu5peF5oOF5aCx?=",
        "Sat, 28 Nov 2026 08:00:00 +0900", "hx47-n6@mail.tabi-news.example",
        "ブラウザで表示する: https://tabi-news.example/mail/n6",
        """<html lang="ja"><body>
<p>京都の紅葉は今週末が見頃です。嵐山の竹林は早朝がおすすめ。</p>
<p>冬の温泉宿の特集も掲載しています。</p>
</body></html>""", "----alt_tabi_0006"),
        ))

    # Distractors: a person's plain mail and a newsletter whose words are in its plain part too.
    files.append(write("search/p1-personal-weekend.eml", """From: Nadia Kowal <nadia.kowal@example.org>
To: Kit Morrow <kit.morrow@example.net>
Subject: This weekend
Date: Sat, 28 Nov 2026 12:00:00 +0000
Message-ID: <hx47-p1@example.org>
MIME-Version: 1.0
Content-Type: text/plain; charset=UTF-8

Are you free this weekend? I want to try the new climbing wall.

Nadia
"""))
    files.append(write("search/n7-full-plain.eml", newsletter(
        "Hillside Choir <news@hillside-choir.example>", "Concert tickets",
        "Sat, 28 Nov 2026 13:00:00 +0000", "hx47-n7@news.hillside-choir.example",
        "Tickets for the winter concert are on sale now: 12 pounds, children free.",
        """<html><body><p>Tickets for the winter concert are on sale now: 12 pounds, children free.</p></body></html>""",
        "hillside_alt_77"),
        ))

    queries = [
        {"query": "cardamom", "found": ["hx47-n1@mail.lighthouse-bakery.example"], "why": "HTML-only word"},
        {"query": "\"cardamom buns\"", "found": ["hx47-n1@mail.lighthouse-bakery.example"], "why": "HTML-only phrase"},
        {"query": "baking", "found": ["hx47-n1@mail.lighthouse-bakery.example"], "why": "stemmed: the HTML says 'baked'"},
        {"query": "from:lighthouse croissants", "found": ["hx47-n1@mail.lighthouse-bakery.example"], "why": "sender plus an HTML-only word"},
        {"query": "Kurosawa", "found": ["hx47-n2@news.riverside-cinema.example"], "why": "HTML-only word"},
        {"query": "retrospective piano", "found": ["hx47-n2@news.riverside-cinema.example"], "why": "two HTML-only words"},
        {"query": "crampons", "found": ["hx47-n3@em.ridgeline-outdoor.example"], "why": "HTML-only word"},
        {"query": "weekend", "found": ["hx47-n3@em.ridgeline-outdoor.example", "hx47-p1@example.org"],
         "why": "one HTML-only hit and one plain hit"},
        {"query": "allotment", "found": ["hx47-n4@updates.eastbrook-council.example"], "why": "HTML-only word"},
        {"query": "tapisserie", "found": ["hx47-n5@lettre.musee-tisserands.example"], "why": "HTML-only French word"},
        {"query": "紅葉", "found": ["hx47-n6@mail.tabi-news.example"], "why": "HTML-only Japanese word inside a sentence"},
        {"query": "tickets", "found": ["hx47-n7@news.hillside-choir.example"], "why": "in the plain part too (found today)"},
        {"query": "browser", "found": ["hx47-n1@mail.lighthouse-bakery.example", "hx47-n3@em.ridgeline-outdoor.example"],
         "why": "plain-part words stay found"},
        {"query": "zephyrblock", "found": [], "not_found": ["hx47-n3@em.ridgeline-outdoor.example"],
         "why": "a CSS class name only (style and class attribute): not what the reader sees"},
        {"query": "wavecrestcode", "found": [], "not_found": ["hx47-n1@mail.lighthouse-bakery.example"],
         "why": "an HTML comment only: not what the reader sees"},
        {"query": "cardamom -from:lighthouse", "found": [], "not_found": ["hx47-n1@mail.lighthouse-bakery.example"],
         "why": "NOT still applies to HTML-found messages"},
    ]
    me_args = f"--me {NOW_ME}"
    case("search", "newsletters-html-words", files, {"queries": queries},
         "Newsletters (Mailchimp-style, cinema, outdoor shop, council, museum, Japanese travel) whose plain part only says"
         " 'view in your browser'; each query's expected ids among this mailbox's messages",
         mode="search", me_args=me_args,
         commands=[f"mime-parse --no-progress {' '.join(files)} | $(mailstore stages | paste -sd'|') | mailstore add -q {me_args} DB",
                   "mailstore search --output ids DB QUERY"])
