"""Shipping notices as carriers and shops write them, and mail that looks like them but tracks
nothing: the cases carrier-detect is measured on (issue 19). Written for the purpose, in the
senders' own wording, none taken from the generator, whose notices have the shapes the
detector was built for.

A case: (name, sender address, subject, text, expected [(carrier, number)], pickup or None).
An HTML notice gives its links in the text as a mail client shows them ("<https://…>").

    python3 Tests/e2e/carrier_notices.py [CARRIER-DETECT]
prints how a carrier-detect binary (by default the release build) does on each set, to compare
builds; test_carrier_detect.py asserts every case.
"""
import json
import pathlib
import subprocess
import sys

from carrier_numbers import canada_post, dhl10, fedex12, s10, ups, usps

USPS_1 = usps("940011189922385726483")
USPS_2 = usps("920559016491731275108")
USPS_S10 = s10("LZ", "40921736", "US")
UPS_1 = ups("A1B2C3012345678")
UPS_2 = ups("9W4E31038812345")
UPS_3 = ups("V49812037700412")
FEDEX_1 = fedex12("79462345123")
FEDEX_2 = fedex12("77190481035")
DHL_1 = dhl10("431278905")
DHL_2 = dhl10("1785034216")
DE_1 = s10("RR", "52741098", "DE")
GB_1 = s10("LX", "61234507", "GB")
FR_1 = s10("LA", "08712345", "FR")
CN_1 = s10("LP", "00345612", "CN")
JP_1 = s10("EJ", "71234560", "JP")
TW_1 = s10("RR", "31578024", "TW")
NL_1 = s10("CD", "20498761", "NL")
CA_1 = canada_post("701234508193265")

POSITIVES = [
    # --- United States ---
    ("usps expected delivery", "auto-reply@usps.com", f"USPS® Expected Delivery on Thursday, March 5, 2026 arriving by 9:00pm {USPS_1}",
     f"""Your item is expected to be delivered on Thursday, March 5, 2026 by 9:00pm.

Tracking Number: {USPS_1}

Expected Delivery Day: Thursday, March 5, 2026
Expected Delivery by: 9:00pm

Track & Manage Package <https://tools.usps.com/go/TrackConfirmAction?tLabels={USPS_1}>

This is an automated email; please do not reply.""", [("usps", USPS_1)], None),
    ("usps delivered, number only in the link", "auto-reply@usps.com", "USPS® Item Delivered, In/At Mailbox",
     f"""Your item was delivered in or at the mailbox at 2:14 pm on March 3, 2026 in SPRINGFIELD, IL 62704.

View tracking details <https://tools.usps.com/go/TrackConfirmAction?tRef=fullpage&tLc=2&text28777=&tLabels={USPS_2}%2C>

Download USPS Mobile®""", [("usps", USPS_2)], None),
    ("shop ships by usps, a postal item number in the usps link", "orders@etsy-seller.example", "Your order has shipped!",
     f"""Good news! Jane from Maple & Thread has shipped your order.

Ship to: Alex Chen, 14 Elm St, Portland OR 97205
Shipping method: USPS First-Class Package International

Track your package: https://tools.usps.com/go/TrackConfirmAction?tLabels={USPS_S10}

Thanks for shopping small!""", [("usps", USPS_S10)], None),
    ("ups shipped", "mcinfo@ups.com", f"UPS Update: Package Scheduled for Delivery Tomorrow",
     f"""Hello, your package will arrive tomorrow.

Scheduled Delivery: Wednesday, 03/11/2026
Estimated Time: Between 10:30 AM - 2:30 PM
Tracking Number: {UPS_1}
Ship To: PORTLAND, OR, US
Number of Packages: 1
Weight: 3.2 LBS

<https://www.ups.com/track?loc=en_US&tracknum={UPS_1}&requester=ST/trackdetails>""", [("ups", UPS_1)], None),
    ("shop ships by ups, number in running text", "no-reply@outdoorgear.example", "Your Outdoor Gear order #58213 is on its way",
     f"""Hi Alex,

Your order #58213 left our warehouse today with UPS Ground, reference {UPS_2}.
Expected in 3-5 business days.

Questions? Call us at 1-800-555-0142.""", [("ups", UPS_2)], None),
    ("ups mail innovations number in the ups link", "shipping@vitamins.example", "We shipped your order",
     """Your order 1189-2231 is on the way.

Carrier: UPS Mail Innovations
Track it: https://www.ups.com/track?loc=en_US&tracknum=MI1234567890123456ABCD

Thank you!""", [("ups", "MI1234567890123456ABCD")], None),
    ("ups waybill in the subject", "pkginfo@ups.com", f"UPS Delivery Notification, Tracking Number {UPS_3}",
     """Your package has been delivered.

Delivery Date: Tuesday, 03/10/2026
Delivery Time: 11:42 AM
Left At: Front Door
Signed By: DRIVER RELEASE""", [("ups", UPS_3)], None),
    ("fedex tracking id", "TrackingUpdates@fedex.com", f"Your package is scheduled for delivery Friday",
     f"""Hi. Your package is scheduled for delivery Friday, 3/13/2026.

TRACKING ID
{FEDEX_1}

FROM
B&H Photo
New York, NY US

SHIP DATE
Tue 3/10/2026 06:21 PM""", [("fedex", FEDEX_1)], None),
    ("fedex link with tracknumbers", "orders@camera.example", "Shipment confirmation",
     f"""Your order has shipped via FedEx 2Day.

Track your shipment: https://www.fedex.com/apps/fedextrack/?action=track&tracknumbers={FEDEX_2}&locale=en_US&cntry_code=us""",
     [("fedex", FEDEX_2)], None),
    ("fedex door tag in the fedex link", "TrackingUpdates@fedex.com", "We missed you",
     """We attempted to deliver your package today but no one was available to sign.

Reschedule or sign online: https://www.fedex.com/fedextrack/?trknbr=DT771613423732&trkqual=DT

FedEx Door Tag""", [("fedex", "DT771613423732")], None),
    ("amazon logistics link", "shipment-tracking@amazon.com", "Shipped: \"Anker USB-C Charger...\"",
     """Your package was shipped!

Arriving Thursday
Ship to: Alex Chen

Track package <https://track.amazon.com/tracking/TBA312345678000>

Order # 112-3321876-4422519""", [("amazon", "TBA312345678000")], None),
    ("canada post", "donotreply@canadapost-postescanada.ca", "Your Canada Post delivery is on its way",
     f"""Your item is on its way.

Tracking number: {CA_1}
Expected delivery: March 12

Track your item at canadapost.ca""", [("canada_post", CA_1)], None),

    # --- Postal operators, UPU S10 items without a tracking label ---
    ("deutsche post, no label", "noreply@deutschepost.de", "Ihre Sendung ist unterwegs",
     f"""Guten Tag,

Ihre Sendung {DE_1} hat das Briefzentrum Frankfurt verlassen und wird in den nächsten Tagen zugestellt.

Mit freundlichen Grüßen
Ihre Deutsche Post""", [("s10", DE_1)], None),
    ("royal mail, number in the subject", "no-reply@royalmail.com", f"Your item {GB_1} is out for delivery",
     """Your item is with your delivery postman or woman and is due to be delivered today.

Royal Mail""", [("s10", GB_1)], None),
    ("la poste colissimo", "noreply@notif-colissimo-laposte.info", "Votre colis arrive",
     f"""Bonjour,

Votre colis {FR_1} est arrivé dans votre bureau de poste. Il vous attend jusqu'au 24/03/2026.

La Poste""", [("s10", FR_1)], None),
    ("aliexpress, china post item in running text", "transaction@notice.aliexpress.com", "Your order has been shipped",
     f"""Your order 8174029918374552 has been shipped.
Logistics: China Post Registered Air Mail, {CN_1}
It may take 15-45 days to arrive.""", [("s10", CN_1)], None),
    ("japan post お問い合わせ番号", "info@shop.example.jp", "【発送完了】ご注文の商品を発送いたしました",
     f"""この度はご注文いただきありがとうございます。
本日、日本郵便（EMS）にて発送いたしました。

お問い合わせ番号：{JP_1}

到着まで今しばらくお待ちください。""", [("s10", JP_1)], None),
    ("postnl international", "noreply@postnl.nl", "Je pakket is onderweg",
     f"""Je pakket met barcode {NL_1} is onderweg naar het buitenland.""", [("s10", NL_1)], None),
    ("chunghwa post international", "service@mail.post.gov.tw", "國際包裹寄送通知",
     f"""您好：
您交寄的國際包裹（郵件號碼 {TW_1}）已於 3 月 10 日由台北郵件處理中心發出。
中華郵政""", [("chunghwa_post", TW_1)], None),

    # --- DHL ---
    ("dhl express waybill", "noreply@dhl.com", "DHL On Demand Delivery: your shipment is on its way",
     f"""Your shipment from Apple Distribution is on its way.

Waybill: {DHL_1}
Estimated delivery: Friday, March 13, 2026 by end of day.""", [("dhl", DHL_1)], None),
    ("dhl paket piececode link", "noreply@dhl.de", "Ihr Paket kommt heute",
     """Hallo,

Ihr DHL Paket kommt heute zwischen 10:45 und 12:45 Uhr.

Sendung verfolgen: https://www.dhl.de/de/privatkunden/pakete-empfangen/verfolgen.html?piececode=00340434292135100186&lang=de

Ihr DHL Team""", [("dhl", "00340434292135100186")], None),
    ("dhl express in a shop mail", "store@audio.example", "Your order is on the way",
     f"""Shipped with DHL Express, air waybill {DHL_2}.""", [("dhl", DHL_2)], None),

    # --- Taiwan: T-Cat ---
    ("t-cat dashed", "service@t-cat.com.tw", "黑貓宅急便 配達預定通知",
     """親愛的顧客您好：
您的包裹（託運單號：9051-2345-6780）預定於 3/12（四）配達，
配達時段：14:00-18:00。
統一速達股份有限公司""", [("tcat", "905123456780")], None),
    ("t-cat dashed in a shop mail", "service@teashop.example.tw", "您的訂單已出貨",
     """您的訂單 #TS20260310 已交由黑貓宅急便配送。
託運單號 6204-1187-3305
預計 1-2 個工作天送達。""", [("tcat", "620411873305")], None),
    ("t-cat trace link", "service@bookstore.example.tw", "出貨通知",
     """您訂購的商品已出貨，可至以下網址查詢配送進度：
https://www.t-cat.com.tw/Inquire/TraceDetail.aspx?BillID=620411879921&ReturnUrl=Trace.aspx
感謝您的訂購！""", [("tcat", "620411879921")], None),
    ("t-cat 12 digits with t-cat named", "noreply@pxmart.example.tw", "商品出貨通知",
     """您好，您的商品已於今日以黑貓宅急便寄出。
貨運單號：905188120437
如有疑問請洽客服 02-2345-6789。""", [("tcat", "905188120437")], None),

    # --- Taiwan: 7-ELEVEN ---
    ("myship 寄件代碼 with pickup", "service@myship.7-11.com.tw", "賣貨便：您的商品已寄出",
     """親愛的買家您好：
賣家已將您的商品寄出。
寄件代碼：836712345678
取件門市：中山門市（店號 123456）
取件驗證碼：5271
請於 7 日內至門市取件，逾期將退回賣家。
7-ELEVEN 賣貨便""", [("seven_eleven", "836712345678")],
     {"store": "中山門市", "store_id": "123456", "code": "5271", "deadline": "2026-03-17"}),
    ("shop ships by 7-11 交貨便", "service@handmade.example.tw", "出貨通知",
     """您好，您訂購的手作皮件已寄出，本店使用 7-11 交貨便寄送。
交貨便代碼：258931045227
到店後我們會再通知您取件。""", [("seven_eleven", "258931045227")], None),
    ("shop ships by 7-11, 12-digit 寄件代碼", "shop@vintage.example.tw", "商品已寄出",
     """Hi，商品已經寄出囉！
寄送方式：7-11 交貨便（店到店）
寄件代碼 713526048817
取件門市：永和門市
取件期限：2026/03/20""", [("seven_eleven", "713526048817")],
     {"store": "永和門市", "store_id": None, "code": None, "deadline": "2026-03-20"}),
    ("7-11 arrival, 8-4 code", "service@myship.7-11.com.tw", "商品已送達門市",
     """您的包裹已送達門市，請攜帶證件前往取件。
取貨代碼：60528173-4419
取件門市：信義門市（店號 201873）
取件期限：2026/03/18""", [("seven_eleven", "60528173-4419")],
     {"store": "信義門市", "store_id": "201873", "code": "60528173-4419", "deadline": "2026-03-18"}),
    ("7-11 e-tracking link", "orders@gadget.example.tw", "Your order has shipped",
     """Your order ships by 7-ELEVEN store pickup.
Track: https://eservice.7-11.com.tw/e-tracking/search.aspx?shipno=C41286601754
We will email you when it reaches the store.""", [("seven_eleven", "C41286601754")], None),

    # --- Taiwan: FamilyMart, Hi-Life, OK, Shopee ---
    ("familymart arrival", "service@famiport.com.tw", "全家取貨通知：您的商品已到店",
     """您的包裹已到店，請於期限內取件。
配送編號：15093382716
取件門市：全家台北松江店
取件期限：2026/03/19""", [("family_mart", "15093382716")],
     {"store": "全家台北松江店", "store_id": None, "code": None, "deadline": "2026-03-19"}),
    ("shop ships by 全家店到店", "service@cosme.example.tw", "出貨通知",
     """您好，您的訂單已使用全家店到店寄出。
全家寄件代碼：208815736942
預計 2-3 天到店，到店時會再簡訊通知。""", [("family_mart", "208815736942")], None),
    ("hi-life", "service@shop.example.tw", "商品已寄出（萊爾富取貨）",
     """您的商品已寄出，配送方式：萊爾富超商取貨。
萊爾富配送編號：3301728495102
取件時請出示身分證件。""", [("hilife", "3301728495102")], None),
    ("shopee spx", "info@mail.shopee.tw", "您的訂單已出貨",
     """您的訂單 260310ABCD1234 已出貨。
物流商：蝦皮店到店
物流追蹤編號：TW2609481736252
可至蝦皮購物 App 查詢配送進度。""", [("shopee_spx", "TW2609481736252")], None),

    # --- Taiwan: home delivery ---
    ("hct", "service@hct.com.tw", "新竹物流 配送通知",
     """您好，您的貨件已由新竹物流承運。
貨件單號：6912834570
預計明日送達，如需改約請洽各區營業所。""", [("hct", "6912834570")], None),
    ("kerry tj", "noreply@kerrytj.com", "嘉里大榮物流 到貨通知",
     """您的貨件（託運單號 2045118736）今日由嘉里大榮配送。""", [("kerry_tj", "2045118736")], None),
    ("e-can 宅配通", "service@e-can.com.tw", "宅配通 配送通知",
     """您的包裹已由宅配通收件，查貨號碼：812245307716，預計 3/12 送達。""", [("ecan", "812245307716")], None),
    ("chunghwa post domestic 掛號", "service@mail.post.gov.tw", "郵件投遞通知",
     """您的掛號郵件（郵件號碼：62183540018273）已投遞，
請至中華郵政全球資訊網查詢。""", [("chunghwa_post", "62183540018273")], None),
    ("sf express", "noreply@sf-express.com", "順豐速運 寄件通知",
     """您的快件已寄出，順豐運單號 SF1428830176452，可於順豐官網查詢。""", [("sf_express", "SF1428830176452")], None),
    ("pchome 24h", "service@pchome.com.tw", "PChome 24h購物 出貨通知",
     """您的訂單已出貨，由網家速配配送。
配送單號：201603285514
預計明日送達。""", [("pchome", "201603285514")], None),
    ("momo", "service@momoshop.com.tw", "momo購物網 商品出貨通知",
     """您訂購的商品已於 3/10 出貨，配送單號：5601927384015，由富昇物流配送。""", [("momo", "5601927384015")], None),
]

NEGATIVES = [
    ("shop order confirmation, t-cat named", "service@teashop.example.tw", "訂單成立通知",
     """感謝您的訂購！
訂單編號：202603100012
付款方式：信用卡
配送方式：黑貓宅急便（出貨後會另行通知託運單號）"""),
    ("ibon payment code", "service@ticket.example.tw", "請於期限內完成繳費",
     """您的訂單已成立，請至 7-11 ibon 列印繳費單。
繳費代碼：LJ26031012345678
繳費期限：2026/03/12 23:59"""),
    ("famiport payment code, 12 digits", "service@game.example.tw", "FamiPort 繳費通知",
     """請於全家 FamiPort 輸入繳費代碼完成付款。
繳費代碼：518027364915
金額：NT$ 1,280"""),
    ("atm virtual account", "service@shop.example.tw", "ATM 轉帳資訊",
     """請於 3/12 前轉帳至以下虛擬帳號，完成後將以 7-11 交貨便寄出。
銀行代碼：822
虛擬帳號：9876 5432 1098 7654
金額：NT$ 560"""),
    ("phone numbers beside t-cat", "service@t-cat.com.tw", "黑貓宅急便 服務公告",
     """春節期間配送調整，詳情請洽客服專線 0800-123-456 或 (02) 2345-6789。
統一速達股份有限公司"""),
    ("invoice and tax id", "einvoice@shop.example.tw", "電子發票開立通知",
     """您的電子發票已開立。
發票號碼：AB-12345678
賣方統一編號：24536806
隨機碼：7391
出貨後會以新竹物流寄送。"""),
    ("amazon order number", "auto-confirm@amazon.com", "Your Amazon.com order #112-3321876-4422519",
     """Thanks for your order. We'll let you know once your item ships.
Order #112-3321876-4422519
Arriving: Thursday"""),
    ("zoom meeting id", "no-reply@zoom.us", "Meeting invitation",
     """Join Zoom Meeting https://us02web.zoom.us/j/81234567890
Meeting ID: 812 3456 7890
Passcode: 443311
Dial by your location +1 646 558 8656 US (New York)"""),
    ("ups marketing with phone", "mychoice@ups.com", "Get more from UPS My Choice",
     """Sign up for UPS My Choice and never miss a delivery. Questions? Call 1-800-742-5877."""),
    ("flight ticket number", "noreply@evaair.example", "E-ticket receipt",
     """Ticket number: 695-2412345678
Booking reference: QX7P2L
BR 0871 TPE-HKG 20MAR26"""),
    ("iban and bank reference", "noreply@bank.example.de", "Überweisung ausgeführt",
     """Ihre Überweisung über 49,90 EUR wurde ausgeführt.
Empfänger: Versandhaus GmbH
IBAN: DE89 3704 0044 0532 0130 00
Verwendungszweck: Bestellung 4711-0815, DHL Versand"""),
    ("s10 with a wrong check digit", "noreply@deutschepost.de", "Ihre Sendung",
     f"""Ihre Sendung {DE_1[:10]}{(int(DE_1[10]) + 1) % 10}DE hat das Briefzentrum verlassen."""),
    ("order number labelled in japanese", "order@shop.example.jp", "ご注文ありがとうございます",
     """ご注文番号：250-1234567-1234567
発送後、追跡番号をお知らせします。"""),
    ("newsletter with dates and codes", "news@fashion.example", "Spring sale: 48 hours only",
     """Use code SPRING2026 at checkout. Sale ends 2026-03-12 23:59.
Free shipping with FedEx on orders over $75.
Member ID 0042 1187 5533"""),
    ("7-11 member card and store number", "member@7-11.com.tw", "OPENPOINT 點數通知",
     """您的 OPENPOINT 會員卡號 8810 2233 4455 66 本月獲得 120 點。
常用門市：中山門市（店號 123456）"""),
    ("credit card statement", "statement@bank.example.tw", "信用卡電子帳單",
     """卡號末四碼 4321，本期應繳金額 NT$ 12,345，繳款截止日 2026/03/25。
客服專線 (02) 2745-8080"""),
    ("tracking promised later", "orders@outdoorgear.example", "Order received",
     """We received your order 58213 and will send your UPS tracking number when it ships.
Order total: $128.40"""),
]

# Written after the fixes above, and not tuned on: how the detector does on notices it has not
# seen. Kept apart so the figure stays honest; a miss here is fixed as a class (with new cases)
# or listed in HELD_OUT_MISSES with its reason.
CH_1 = s10("RB", "18345260", "CH")
KR_1 = s10("EE", "90817263", "KR")
SG_1 = s10("RS", "55120934", "SG")
UPS_4 = ups("0X7Y2E036615842")
FEDEX_3 = fedex12("39928154062")
CA_2 = canada_post("401234509183746")

HELD_OUT_POSITIVES = [
    ("swiss post, no label", "noreply@post.ch", "Ihre Sendung ist unterwegs",
     f"""Ihr Paket {CH_1} wurde heute im Paketzentrum Härkingen verarbeitet und ist auf dem Weg zu Ihnen.""",
     [("s10", CH_1)], None),
    ("korea post ems, subject only", "ems@epost.go.kr", f"[EMS] {KR_1} 발송 안내", "고객님의 우편물이 발송되었습니다.",
     [("s10", KR_1)], None),
    ("singpost registered", "noreply@singpost.com", "Your item has been posted",
     f"""Thank you for using SingPost. Registered article {SG_1} was accepted at Tanglin Post Office.""",
     [("s10", SG_1)], None),
    ("seller ships by ups, tracking id", "sellernotifications@marketplace.example", "Your item has shipped",
     f"""Carrier: UPS
Tracking ID: {UPS_4}
Delivery estimate: Mon, Mar 16""", [("ups", UPS_4)], None),
    ("fedex trknbr link only", "orders@furniture.example", "Your delivery is on its way",
     f"""Your sofa is on its way. Follow it here: https://www.fedex.com/fedextrack/?trknbr={FEDEX_3}""",
     [("fedex", FEDEX_3)], None),
    ("canada post link in a fragment", "orders@maple.example.ca", "Order shipped",
     f"""Your order shipped with Canada Post.
Track: https://www.canadapost-postescanada.ca/track-reperage/en#/search?searchFor={CA_2}""",
     [("canada_post", CA_2)], None),
    ("t-cat spaced", "service@fruit.example.tw", "水果禮盒出貨通知",
     """您的水果禮盒已由黑貓宅急便低溫配送。
託運單號：9051 2345 6781
請留意收件。""", [("tcat", "905123456781")], None),
    ("myship 交貨便代碼 with familymart in the footer", "service@myship.7-11.com.tw", "交貨便寄件成功",
     """您的寄件已完成。
交貨便代碼：418203975516
請於 3 日內至門市取件。
（本服務亦支援全家、萊爾富取貨）""", [("seven_eleven", "418203975516")],
     {"store": None, "store_id": None, "code": None, "deadline": "2026-03-13"}),
    ("familymart sender, 12 digits", "noreply@family.com.tw", "全家店到店 寄件通知",
     """您寄出的包裹已交寄完成。
寄件代碼：710365528419
收件門市：全家新莊中正店""", [("family_mart", "710365528419")], None),
    ("shopee order shipped by 7-eleven", "info@mail.shopee.tw", "您的訂單已出貨",
     """您的訂單 260311EFGH5678 已出貨。
物流方式：7-ELEVEN
寄件編號：583201746395""", [("seven_eleven", "583201746395")], None),
    ("hct 查貨號碼", "noreply@shop.example.tw", "出貨通知",
     """商品已由新竹物流寄出，查貨號碼：6912834571。""", [("hct", "6912834571")], None),
    ("sf express in english", "orders@tea.example.hk", "Your parcel has shipped",
     """Shipped via SF Express, waybill SF1305518827460. Delivery in 2-3 days.""", [("sf_express", "SF1305518827460")], None),
    ("chunghwa post i郵箱", "service@mail.post.gov.tw", "i郵箱 取件通知",
     """您的包裹已送達 i郵箱（台北車站站），郵件號碼 71928304056617，
取件驗證碼：884213，請於 3 日內取件。""", [("chunghwa_post", "71928304056617")],
     {"store": None, "store_id": None, "code": "884213", "deadline": "2026-03-13"}),
]

HELD_OUT_NEGATIVES = [
    ("myship order number", "service@myship.7-11.com.tw", "訂單成立",
     """賣貨便訂單成立。訂單號碼：202603110087
賣家出貨後將通知您寄件代碼。"""),
    ("id number and mobile in a t-cat mail", "service@t-cat.com.tw", "會員資料變更",
     """您的會員資料已更新：身分證字號 A123456789，手機 0912-345-678。"""),
    ("refund account in a t-cat mail", "service@shop.example.tw", "退款通知",
     """黑貓宅急便退貨已收到，退款帳號：0123-4567-8901，金額 NT$ 890。"""),
    ("ok mart payment code", "service@game.example.tw", "OK超商繳費",
     """請至 OK超商 輸入繳費代碼 5583 2201 9944 完成付款。"""),
    ("empty usps link", "news@usps.com", "Track your packages with Informed Delivery",
     """Sign up today: https://tools.usps.com/go/TrackConfirmAction_input"""),
    ("conference call with dhl named", "events@logistics.example", "Webinar: DHL and the last mile",
     """Dial-in: +49 69 2222 3333 99, access code 8812 4455 66#"""),
]


def record(sender, subject, text):
    """A mime-parse record of a notice, dated in Taiwan's morning of 2026-03-10."""
    return json.dumps({"subject": subject, "text": text, "html": None, "date": "2026-03-10T02:00:00Z",
                       "from": {"name": None, "address": sender}, "headers": {}})


def score(binary, positives, negatives):
    """(positives found with the right carrier and pickup, negatives reported, wrong cases)."""
    stream = [record(s, sub, t) for _, s, sub, t, _, _ in positives] + [record(s, sub, t) for _, s, sub, t in negatives]
    out = [json.loads(line) for line in subprocess.run([str(binary), "--no-progress"], input="\n".join(stream) + "\n",
                                                       capture_output=True, text=True, check=True).stdout.splitlines()]
    wrong = []
    for (name, _, _, _, expected, pickup), o in zip(positives, out):
        got = [(s["carrier"], s["tracking_number"]) for s in o["shipments"]]
        # (a pickup that states no store address has "address": null, issue 46)
        if got != expected or (pickup and o["shipments"][0].get("pickup") != {"address": None} | pickup):
            wrong.append((name, expected, o["shipments"]))
    reported = [(name, o["shipments"]) for (name, *_), o in zip(negatives, out[len(positives):]) if o["shipments"]]
    return len(positives) - len(wrong), len(reported), wrong + reported


if __name__ == "__main__":
    binary = sys.argv[1] if len(sys.argv) > 1 else pathlib.Path(__file__).parents[2] / ".build" / "release" / "carrier-detect"
    for label, p, n in [("written with the fixes", POSITIVES, NEGATIVES), ("held out", HELD_OUT_POSITIVES, HELD_OUT_NEGATIVES)]:
        found, reported, _ = score(binary, p, n)
        print(f"{label}: {found}/{len(p)} notices found, {reported}/{len(n)} look-alikes reported")
