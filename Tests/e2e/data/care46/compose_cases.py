"""Writes the held-out mails of issue 46 (*.eml) and their truth (truth.json) beside this file.

The mails are composed with Python's email package so that each carries the charset and transfer
encoding its kind of sender uses (Big5, GB2312, ISO-2022-JP, quoted-printable, base64). Tracking
numbers of carriers that publish a check digit (UPU S10, DHL Express, FedEx Express, UPS, USPS
IMpb) carry a valid one, as real mail does; the others (DPD, Evri, InPost, Cainiao, Taiwan's
carriers) have the shape such mail shows. Run it
again only to fix a mistake in a case, never to make a case pass.

    python3 Tests/e2e/data/care46/compose_cases.py
"""
import json
import pathlib
from email import charset as email_charset
from email.header import Header
from email.mime.multipart import MIMEMultipart
from email.mime.text import MIMEText
from email.mime.message import MIMEMessage
from email.utils import formataddr
from email import message_from_string

HERE = pathlib.Path(__file__).parent
FILES = {}    # name → truth entry
STORIES = []  # event stories: class, files, calendar
OUT = {}      # name → bytes

QP = {"utf-8": email_charset.Charset("utf-8")}
QP["utf-8"].body_encoding = email_charset.QP


def part(text, subtype="plain", charset="utf-8", cte="qp"):
    if charset == "utf-8" and cte == "qp":
        p = MIMEText(text, subtype, QP["utf-8"])
    elif charset == "utf-8" and cte == "8bit":
        p = MIMEText(text, subtype, "utf-8")
        del p["Content-Transfer-Encoding"]
        p.set_payload(text.encode("utf-8"), None)
        p["Content-Transfer-Encoding"] = "8bit"
        p.set_param("charset", "utf-8")
    else:
        p = MIMEText(text, subtype, charset)
    return p


def header(value, charset):
    try:
        value.encode("ascii")
        return value
    except UnicodeEncodeError:
        return Header(value, charset).encode()


def addr(name, address, charset="utf-8"):
    if name is None:
        return address
    try:
        name.encode("ascii")
        return formataddr((name, address))
    except UnicodeEncodeError:
        return f"{Header(name, charset).encode()} <{address}>"


def mail(name, cls, sender, to, date, subject, text, html=None, charset="utf-8", cte="qp",
         extra=(), expect=None, body=None):
    """One message; `sender` is (name, address); `expect` its truth facts."""
    s_name, s_addr = sender
    msgid = f"<{name.removesuffix('.eml')}@{s_addr.split('@')[1]}>"
    if body is not None:
        m = body
    elif html is None:
        m = part(text, "plain", charset, cte)
    else:
        m = MIMEMultipart("alternative")
        m.attach(part(text, "plain", charset, cte))
        m.attach(part(html, "html", charset, cte))
    if m.is_multipart():
        m.set_boundary("----=_Part_" + name.removesuffix(".eml").replace("-", "_"))
    hdr_charset = "utf-8" if charset in ("utf-8",) else charset
    m["From"] = addr(s_name, s_addr, hdr_charset)
    m["To"] = to
    m["Date"] = date
    m["Subject"] = header(subject, hdr_charset)
    m["Message-ID"] = msgid
    for k, v in extra:
        m[k] = v
    # the MIME headers after the envelope's, once, as mailers write them
    mime = [(k, m[k]) for k in ("Content-Type", "Content-Transfer-Encoding") if m[k] is not None]
    for k in ("MIME-Version", "Content-Type", "Content-Transfer-Encoding"):
        del m[k]
    m["MIME-Version"] = "1.0"
    for k, v in mime:
        m[k] = v
    raw = m.as_bytes().replace(b"=?big5_tw?", b"=?big5?").replace(b"=?eucgb2312_cn?", b"=?gb2312?")
    OUT[name] = raw
    FILES[name] = {"class": cls, "message_id": msgid.strip("<>"), **(expect or {})}
    return msgid


def story(cls, files, calendar, note):
    STORIES.append({"class": cls, "files": files, "calendar": calendar, "note": note})


def bulk(esp_id, unsub):
    """The headers a booking or mailing system adds."""
    return [("List-Unsubscribe", f"<{unsub}>, <mailto:unsubscribe@{unsub.split('/')[2]}>"),
            ("List-Unsubscribe-Post", "List-Unsubscribe=One-Click"),
            ("Precedence", "bulk"), ("Feedback-ID", esp_id)]


SENDGRID = [("X-SG-EID", "u3Jd0Qx9n2f8tZpLr7y1wQ=="), ("X-SG-ID", "N2Y4ZjYxYmMtNDI3Yy00")]


def ev(start_local, **more):
    return {"start_local": start_local, **more}


# ---------------------------------------------------------------- 1. moved
FAM = "Helen Whitfield <helen.whitfield@btinternet.com>"
mail("moved-uk-gp-1.eml", "moved", ("Elmbridge Road Surgery", "noreply@elmbridgeroadsurgery.nhs.uk"),
     "helen.whitfield@btinternet.com", "Mon, 9 Mar 2026 11:02:44 +0000",
     "Appointment confirmed: Tuesday 17 March 2026",
     """Dear Mrs Whitfield,

Your appointment has been booked.

Patient: Arthur Whitfield
With: Dr Nadia Qureshi (GP)
When: Tuesday 17 March 2026 at 10:40
Where: Elmbridge Road Surgery, 22 Elmbridge Road, Guildford GU1 4RS

If you cannot attend, please let us know at least 24 hours before so we can offer the
appointment to someone else.

Elmbridge Road Surgery
This is an automated message, please do not reply.
""", expect={"events": [ev("2026-03-17T10:40:00")]})
mail("moved-uk-gp-2.eml", "moved", ("Elmbridge Road Surgery", "noreply@elmbridgeroadsurgery.nhs.uk"),
     "helen.whitfield@btinternet.com", "Fri, 13 Mar 2026 16:25:10 +0000",
     "Your appointment has been rearranged",
     """Dear Mrs Whitfield,

Unfortunately Dr Qureshi is no longer available on the day of Arthur Whitfield's appointment, so
we have rearranged it.

Was:  Tuesday 17 March 2026 at 10:40 (no longer booked)
Now:  Thursday 19 March 2026 at 15:20 with Dr Nadia Qureshi

Place: Elmbridge Road Surgery, 22 Elmbridge Road, Guildford GU1 4RS

We are sorry for any inconvenience. If the new time does not suit, please call reception on
01483 555 210.

Elmbridge Road Surgery
""", expect={"events": [ev("2026-03-19T15:20:00", replaces={"start_local": "2026-03-17T10:40:00"})]})
story("moved", ["moved-uk-gp-1.eml", "moved-uk-gp-2.eml"],
      {"count": 1, "start_local": "2026-03-19T15:20:00", "not_status": "cancelled", "gone": ["2026-03-17T10:40:00"]},
      "UK GP rearranges Arthur's appointment")

mail("moved-us-dentist-1.eml", "moved", ("Cedar Hollow Family Dentistry", "appointments@cedarhollowdental.com"),
     "mbrooks1978@gmail.com", "Tue, 17 Mar 2026 14:11:09 -0500",
     "Appointment Confirmation - Cedar Hollow Family Dentistry",
     """Hi Megan,

This confirms the following appointment:

Patient: Ethan Brooks
Date: Monday, April 6, 2026
Time: 9:00 AM
Provider: Dr. Lauren Okafor, DDS
Location: 4410 Cedar Hollow Rd, Suite 120, Columbus, OH 43228

Please arrive 10 minutes early to update your paperwork.
Reply C to confirm or call (614) 555-0142 to reschedule.

Cedar Hollow Family Dentistry
""", html="""<html><body><p>Hi Megan,</p><p>This confirms the following appointment:</p>
<table><tr><td>Patient</td><td>Ethan Brooks</td></tr><tr><td>Date</td><td>Monday, April 6, 2026</td></tr>
<tr><td>Time</td><td>9:00 AM</td></tr><tr><td>Provider</td><td>Dr. Lauren Okafor, DDS</td></tr>
<tr><td>Location</td><td>4410 Cedar Hollow Rd, Suite 120, Columbus, OH 43228</td></tr></table>
<p>Please arrive 10 minutes early to update your paperwork.</p></body></html>""",
     extra=SENDGRID, expect={"events": [ev("2026-04-06T09:00:00")]})
mail("moved-us-dentist-2.eml", "moved", ("Cedar Hollow Family Dentistry", "appointments@cedarhollowdental.com"),
     "mbrooks1978@gmail.com", "Thu, 26 Mar 2026 10:03:51 -0500",
     "Your appointment has been rescheduled",
     """Hi Megan,

Ethan Brooks's appointment has been rescheduled.

New date and time: Wednesday, April 8, 2026 at 2:30 PM
Previously: Monday, April 6, 2026 at 9:00 AM

Provider: Dr. Lauren Okafor, DDS
Location: 4410 Cedar Hollow Rd, Suite 120, Columbus, OH 43228

Questions? Call us at (614) 555-0142.

Cedar Hollow Family Dentistry
""", extra=SENDGRID, expect={"events": [ev("2026-04-08T14:30:00", replaces={"start_local": "2026-04-06T09:00:00"})]})
story("moved", ["moved-us-dentist-1.eml", "moved-us-dentist-2.eml"],
      {"count": 1, "start_local": "2026-04-08T14:30:00", "not_status": "cancelled", "gone": ["2026-04-06T09:00:00"]},
      "US dentist reschedules Ethan")

mail("moved-de-hausarzt-1.eml", "moved", ("Hausarztpraxis Dr. med. Brigitte Vogt", "termine@praxis-vogt-hannover.de"),
     "k.lehmann@web.de", "Mon, 16 Mar 2026 08:47:12 +0100",
     "Terminbestätigung Hausarztpraxis Dr. Vogt",
     """Sehr geehrte Frau Lehmann,

hiermit bestätigen wir Ihren Termin:

Patient:  Gerhard Lehmann
Datum:    Dienstag, 24. März 2026
Uhrzeit:  08:30 Uhr
Grund:    Blutabnahme / Kontrolle

Bitte bringen Sie die Versichertenkarte mit und kommen Sie nüchtern.

Mit freundlichen Grüßen
Ihr Praxisteam Dr. med. Brigitte Vogt
Lister Meile 41, 30161 Hannover
""", extra=[("Content-Language", "de")], expect={"events": [ev("2026-03-24T08:30:00")]})
mail("moved-de-hausarzt-2.eml", "moved", ("Hausarztpraxis Dr. med. Brigitte Vogt", "termine@praxis-vogt-hannover.de"),
     "k.lehmann@web.de", "Thu, 19 Mar 2026 13:20:05 +0100",
     "Terminverschiebung: Ihr Termin am 24.03.2026",
     """Sehr geehrte Frau Lehmann,

leider müssen wir den Termin von Gerhard Lehmann verschieben.

Bisheriger Termin: Dienstag, 24. März 2026, 08:30 Uhr
Neuer Termin:      Freitag, 27. März 2026, 11:15 Uhr

Sollte Ihnen der neue Termin nicht passen, rufen Sie uns bitte unter 0511 3482 1170 an.

Mit freundlichen Grüßen
Ihr Praxisteam Dr. med. Brigitte Vogt
""", extra=[("Content-Language", "de")],
     expect={"events": [ev("2026-03-27T11:15:00", replaces={"start_local": "2026-03-24T08:30:00"})]})
story("moved", ["moved-de-hausarzt-1.eml", "moved-de-hausarzt-2.eml"],
      {"count": 1, "start_local": "2026-03-27T11:15:00", "not_status": "cancelled", "gone": ["2026-03-24T08:30:00"]},
      "German GP moves Gerhard's blood test")

mail("moved-tw-dental-1.eml", "moved", ("安和牙醫診所", "service@anhe-dental.com.tw"),
     "chen.meiling@gmail.com", "Wed, 18 Mar 2026 09:15:33 +0800",
     "【安和牙醫診所】預約成功通知",
     """陳美玲 您好：

您已為 陳志明 完成門診預約，資訊如下：

預約日期：2026年3月26日（四）
預約時間：下午3:00
看診醫師：林怡君 醫師
診所地址：台北市大安區安和路二段63號2樓

如需更改或取消，請於看診前一日來電 (02)2701-5566。

安和牙醫診所 敬上
""", charset="big5", expect={"events": [ev("2026-03-26T15:00:00")]})
mail("moved-tw-dental-2.eml", "moved", ("安和牙醫診所", "service@anhe-dental.com.tw"),
     "chen.meiling@gmail.com", "Mon, 23 Mar 2026 17:42:00 +0800",
     "【安和牙醫診所】預約時間變更通知",
     """陳美玲 您好：

因林怡君醫師當日臨時請假，陳志明 的預約時間已為您更改：

原預約時間：3月26日（四）下午3:00（已取消）
新預約時間：2026年3月31日（二）上午10:30

看診醫師：林怡君 醫師
診所地址：台北市大安區安和路二段63號2樓

造成不便，敬請見諒。

安和牙醫診所 敬上
""", charset="big5", expect={"events": [ev("2026-03-31T10:30:00", replaces={"start_local": "2026-03-26T15:00:00"})]})
story("moved", ["moved-tw-dental-1.eml", "moved-tw-dental-2.eml"],
      {"count": 1, "start_local": "2026-03-31T10:30:00", "not_status": "cancelled", "gone": ["2026-03-26T15:00:00"]},
      "Taipei dentist (Big5) moves the appointment")

mail("moved-cn-hospital-1.eml", "moved", ("华山社区卫生服务中心", "yuyue@hs-chc.org.cn"),
     "zhao.lei.sh@163.com", "Thu, 19 Mar 2026 10:05:18 +0800",
     "预约成功：赵建国 2026年4月2日 14:30",
     """赵磊 您好：

您已成功为 赵建国 预约门诊：

就诊科室：全科门诊
就诊医生：孙丽华 主治医师
就诊时间：2026年4月2日（星期四）14:30
就诊地点：上海市静安区华山路128号 门诊楼二楼

请携带医保卡，提前15分钟到达。

华山社区卫生服务中心
""", charset="gb2312", expect={"events": [ev("2026-04-02T14:30:00")]})
mail("moved-cn-hospital-2.eml", "moved", ("华山社区卫生服务中心", "yuyue@hs-chc.org.cn"),
     "zhao.lei.sh@163.com", "Tue, 31 Mar 2026 15:40:27 +0800",
     "改约通知：赵建国的门诊预约已改期",
     """赵磊 您好：

因孙丽华医师外出培训，您为 赵建国 预约的门诊已改期：

原就诊时间：2026年4月2日 14:30（已取消）
改约后时间：2026年4月9日（星期四）09:00

就诊科室：全科门诊
就诊地点：上海市静安区华山路128号 门诊楼二楼

华山社区卫生服务中心
""", charset="gb2312", expect={"events": [ev("2026-04-09T09:00:00", replaces={"start_local": "2026-04-02T14:30:00"})]})
story("moved", ["moved-cn-hospital-1.eml", "moved-cn-hospital-2.eml"],
      {"count": 1, "start_local": "2026-04-09T09:00:00", "not_status": "cancelled", "gone": ["2026-04-02T14:30:00"]},
      "Shanghai community clinic (GB2312) reschedules")

mail("moved-jp-dental-1.eml", "moved", ("さくら通り歯科クリニック", "info@sakuradori-dental.jp"),
     "yuki.tanaka@docomo.ne.jp", "Fri, 13 Mar 2026 19:02:41 +0900",
     "【さくら通り歯科】ご予約を承りました",
     """田中 由紀 様

このたびはご予約いただきありがとうございます。
以下の内容でご予約を承りました。

患者様：田中 和子 様
日時：2026年3月25日（水）16:00
内容：定期検診・クリーニング
場所：さくら通り歯科クリニック（東京都世田谷区桜丘2-14-7）

ご都合が悪くなった場合はお早めにご連絡ください。
TEL 03-5426-8810
""", charset="iso-2022-jp", expect={"events": [ev("2026-03-25T16:00:00")]})
mail("moved-jp-dental-2.eml", "moved", ("さくら通り歯科クリニック", "info@sakuradori-dental.jp"),
     "yuki.tanaka@docomo.ne.jp", "Mon, 23 Mar 2026 12:30:00 +0900",
     "【さくら通り歯科】ご予約日時変更のお知らせ",
     """田中 由紀 様

田中 和子 様のご予約日時を、以下のとおり変更いたしました。

変更前：3月25日（水）16:00
変更後：2026年3月30日（月）10:30

内容：定期検診・クリーニング
場所：さくら通り歯科クリニック（東京都世田谷区桜丘2-14-7）

ご不明な点がございましたらお電話ください。
TEL 03-5426-8810
""", charset="iso-2022-jp", expect={"events": [ev("2026-03-30T10:30:00", replaces={"start_local": "2026-03-25T16:00:00"})]})
story("moved", ["moved-jp-dental-1.eml", "moved-jp-dental-2.eml"],
      {"count": 1, "start_local": "2026-03-30T10:30:00", "not_status": "cancelled", "gone": ["2026-03-25T16:00:00"]},
      "Tokyo dentist (ISO-2022-JP) changes the date")

# ---------------------------------------------------------------- 2. cancelled
mail("cancel-uk-physio-1.eml", "cancelled", ("Northgate Physiotherapy", "bookings@northgatephysio.co.uk"),
     "sam.okonjo@outlook.com", "Thu, 12 Mar 2026 18:20:00 +0000",
     "Booking confirmed - Northgate Physiotherapy",
     """Hi Sam,

Thanks for booking with Northgate Physiotherapy.

Client: Grace Okonjo
Appointment: Follow-up physiotherapy (30 min)
Date: Wednesday 25 March 2026
Time: 14:20
Therapist: Owen Pritchard
Clinic: Unit 4, Northgate Business Park, Chester CH2 2LQ

Need to change it? Reply to this email or ring 01244 555 731.

Northgate Physiotherapy
""", expect={"events": [ev("2026-03-25T14:20:00")]})
mail("cancel-uk-physio-2.eml", "cancelled", ("Northgate Physiotherapy", "bookings@northgatephysio.co.uk"),
     "sam.okonjo@outlook.com", "Mon, 23 Mar 2026 09:12:45 +0000",
     "Appointment cancelled - Northgate Physiotherapy",
     """Hi Sam,

Grace Okonjo's appointment on Wednesday 25 March 2026 at 14:20 with Owen Pritchard has been
cancelled, as Owen is off sick this week.

There is no charge for this cancellation. To book a new time, reply to this email or ring
01244 555 731.

Northgate Physiotherapy
""", expect={"events": [ev("2026-03-25T14:20:00", status="cancelled", method="CANCEL")]})
story("cancelled", ["cancel-uk-physio-1.eml", "cancel-uk-physio-2.eml"],
      {"count": 1, "start_local": "2026-03-25T14:20:00", "status": "cancelled"},
      "UK physio cancels, therapist off sick")

mail("cancel-us-peds-1.eml", "cancelled", ("Lakeview Pediatrics", "no-reply@lakeviewpeds.com"),
     "dana.kowalski@yahoo.com", "Fri, 13 Mar 2026 12:45:00 -0600",
     "Appointment Reminder for Noah",
     """Hello Dana,

Noah Kowalski has an appointment scheduled:

Thursday, March 26, 2026 at 10:15 AM
Dr. Maria Alvarez - Well Child Visit
Lakeview Pediatrics, 2200 N Lakeview Ave, Chicago, IL 60614

To confirm, reply YES. To cancel, reply NO or call 773-555-0186.
""", extra=bulk("lakeview:appt:athena", "https://lakeviewpeds.com/unsubscribe?u=88214"),
     expect={"events": [ev("2026-03-26T10:15:00")]})
mail("cancel-us-peds-2.eml", "cancelled", ("Lakeview Pediatrics", "no-reply@lakeviewpeds.com"),
     "dana.kowalski@yahoo.com", "Tue, 24 Mar 2026 08:02:10 -0500",
     "Appointment Canceled",
     """Hello Dana,

Your appointment for Noah Kowalski on Thursday, March 26, 2026 at 10:15 AM with Dr. Maria
Alvarez has been canceled.

If you did not request this change or would like to reschedule, please call 773-555-0186.

Lakeview Pediatrics
""", extra=bulk("lakeview:appt:athena", "https://lakeviewpeds.com/unsubscribe?u=88214"),
     expect={"events": [ev("2026-03-26T10:15:00", status="cancelled", method="CANCEL")]})
story("cancelled", ["cancel-us-peds-1.eml", "cancel-us-peds-2.eml"],
      {"count": 1, "start_local": "2026-03-26T10:15:00", "status": "cancelled"},
      "US paediatrician, US spelling 'canceled', bulk headers")

mail("cancel-de-ortho-1.eml", "cancelled", ("Orthopädie am Stadtpark", "noreply@ortho-stadtpark.de"),
     "manfred.kuehn@gmx.de", "Wed, 11 Mar 2026 10:30:00 +0100",
     "Ihre Terminbuchung bei Orthopädie am Stadtpark",
     """Guten Tag Herr Kühn,

vielen Dank für Ihre Terminbuchung.

Termin:   Montag, 30.03.2026 um 09:45 Uhr
Patientin: Ingrid Kühn
Behandler: Dr. Tobias Renner
Adresse:  Stadtparkstraße 7, 90409 Nürnberg

Bitte sagen Sie den Termin spätestens 24 Stunden vorher ab, falls Sie ihn nicht wahrnehmen können.

Ihr Team der Orthopädie am Stadtpark
""", extra=[("Content-Language", "de-DE")], expect={"events": [ev("2026-03-30T09:45:00")]})
mail("cancel-de-ortho-2.eml", "cancelled", ("Orthopädie am Stadtpark", "noreply@ortho-stadtpark.de"),
     "manfred.kuehn@gmx.de", "Wed, 25 Mar 2026 16:05:00 +0100",
     "Absage Ihres Termins am 30.03.2026",
     """Guten Tag Herr Kühn,

leider müssen wir den Termin von Ingrid Kühn am Montag, 30.03.2026 um 09:45 Uhr bei
Dr. Tobias Renner absagen. Der Termin entfällt ersatzlos.

Für einen neuen Termin erreichen Sie uns unter 0911 5560 230.

Wir bitten um Ihr Verständnis.
Ihr Team der Orthopädie am Stadtpark
""", extra=[("Content-Language", "de-DE")],
     expect={"events": [ev("2026-03-30T09:45:00", status="cancelled", method="CANCEL")]})
story("cancelled", ["cancel-de-ortho-1.eml", "cancel-de-ortho-2.eml"],
      {"count": 1, "start_local": "2026-03-30T09:45:00", "status": "cancelled"},
      "German orthopaedist cancels (Absage, entfällt)")

mail("cancel-tw-clinic-1.eml", "cancelled", ("仁愛家庭醫學科診所", "clinic@renai-fm.com.tw"),
     "huang.shufen@yahoo.com.tw", "Fri, 20 Mar 2026 11:20:00 +0800",
     "網路掛號成功通知",
     """黃淑芬 您好：

您已完成網路掛號：

就診人：黃國雄
看診日期：2026年3月27日（五）
時段：上午診 10:00
看診號：12 號
醫師：吳建宏 醫師
地址：新北市板橋區文化路一段188號

請攜帶健保卡準時報到。

仁愛家庭醫學科診所
""", expect={"events": [ev("2026-03-27T10:00:00")]})
mail("cancel-tw-clinic-2.eml", "cancelled", ("仁愛家庭醫學科診所", "clinic@renai-fm.com.tw"),
     "huang.shufen@yahoo.com.tw", "Wed, 25 Mar 2026 20:10:00 +0800",
     "【停診通知】3月27日（五）上午診休診",
     """黃淑芬 您好：

本診所吳建宏醫師因出國參加研討會，3月27日（五）上午診休診一次。
您為 黃國雄 掛號之 2026年3月27日 上午10:00 門診（12 號）已取消，敬請改掛其他時段。

造成不便，敬請見諒。
洽詢電話：(02)2968-3321

仁愛家庭醫學科診所
""", charset="big5", expect={"events": [ev("2026-03-27T10:00:00", status="cancelled", method="CANCEL")]})
story("cancelled", ["cancel-tw-clinic-1.eml", "cancel-tw-clinic-2.eml"],
      {"count": 1, "start_local": "2026-03-27T10:00:00", "status": "cancelled"},
      "Taiwan clinic closure (停診, Big5)")

mail("cancel-cn-dental-1.eml", "cancelled", ("齿康口腔", "notice@chikang-dental.cn"),
     "liu.yang88@qq.com", "Sat, 21 Mar 2026 14:00:00 +0800",
     "预约确认：2026年4月3日 10:00 口腔检查",
     """刘洋 您好：

您的预约已确认：

就诊人：刘秀英
项目：口腔检查及洁牙
时间：2026年4月3日（周五）10:00
医生：陈浩 医生
门店：齿康口腔（朝阳门店）北京市朝阳区朝阳门外大街19号

如需取消或改约，请提前一天致电 010-6588-2210。
""", expect={"events": [ev("2026-04-03T10:00:00")]})
mail("cancel-cn-dental-2.eml", "cancelled", ("齿康口腔", "notice@chikang-dental.cn"),
     "liu.yang88@qq.com", "Wed, 1 Apr 2026 09:30:00 +0800",
     "预约取消通知",
     """刘洋 您好：

您为 刘秀英 预约的 2026年4月3日（周五）10:00 口腔检查及洁牙 已取消。

取消原因：陈浩医生临时停诊。
如需重新预约，请致电 010-6588-2210 或在小程序中选择新的时间。

齿康口腔
""", charset="gb2312", expect={"events": [ev("2026-04-03T10:00:00", status="cancelled", method="CANCEL")]})
story("cancelled", ["cancel-cn-dental-1.eml", "cancel-cn-dental-2.eml"],
      {"count": 1, "start_local": "2026-04-03T10:00:00", "status": "cancelled"},
      "Beijing dental chain cancels (Simplified Chinese)")

mail("cancel-jp-clinic-1.eml", "cancelled", ("みどり内科クリニック", "yoyaku@midori-naika.jp"),
     "k.sato@ezweb.ne.jp", "Tue, 24 Mar 2026 09:00:00 +0900",
     "【みどり内科クリニック】ご予約完了のお知らせ",
     """佐藤 健一 様

ご予約が完了しました。

受診者：佐藤 トミ 様
日時：2026年4月1日（水）11:00
診療科：内科（定期受診）
場所：みどり内科クリニック 大阪府吹田市江坂町1-13-40

保険証・お薬手帳をお持ちください。
""", charset="iso-2022-jp", expect={"events": [ev("2026-04-01T11:00:00")]})
mail("cancel-jp-clinic-2.eml", "cancelled", ("みどり内科クリニック", "yoyaku@midori-naika.jp"),
     "k.sato@ezweb.ne.jp", "Mon, 30 Mar 2026 15:30:00 +0900",
     "【みどり内科クリニック】ご予約キャンセルのお知らせ",
     """佐藤 健一 様

以下のご予約をキャンセルいたしました。

受診者：佐藤 トミ 様
日時：2026年4月1日（水）11:00
診療科：内科（定期受診）

またのご予約をお待ちしております。
みどり内科クリニック
""", charset="iso-2022-jp", expect={"events": [ev("2026-04-01T11:00:00", status="cancelled", method="CANCEL")]})
story("cancelled", ["cancel-jp-clinic-1.eml", "cancel-jp-clinic-2.eml"],
      {"count": 1, "start_local": "2026-04-01T11:00:00", "status": "cancelled"},
      "Osaka clinic cancels (ISO-2022-JP)")

# ---------------------------------------------------------------- 3. dates as written
mail("dates-uk-dentist-2pm.eml", "dates", ("Harbourside Dental Care", "reception@harboursidedental.co.uk"),
     "pete.lawson@sky.com", "Wed, 11 Mar 2026 15:40:00 +0000",
     "Your dental appointment",
     """Dear Peter,

We look forward to seeing you at Harbourside Dental Care.

Your appointment: Tuesday 24/03/2026 at 2.20pm with Mr James Fairley (check-up)
Address: 3 Quay Street, Bristol BS1 4DB

Please let us know 48 hours in advance if you need to change it.

Harbourside Dental Care
""", expect={"events": [ev("2026-03-24T14:20:00")]})
mail("dates-de-labor.eml", "dates", ("MVZ Labor Rhein-Main", "terminservice@labor-rheinmain.de"),
     "s.bauer@t-online.de", "Tue, 17 Mar 2026 07:55:00 +0100",
     "Ihr Termin zur Blutentnahme",
     """Sehr geehrte Frau Bauer,

Ihr Termin zur Blutentnahme ist gebucht:

Termin: 08/04/2026, 10:00 Uhr
Ort: MVZ Labor Rhein-Main, Zeil 81, 60313 Frankfurt am Main

Bitte nüchtern erscheinen.

Mit freundlichen Grüßen
MVZ Labor Rhein-Main
""", expect={"events": [ev("2026-04-08T10:00:00")]})
mail("dates-uk-optician.eml", "dates", ("Clearview Opticians", "appointments@clearviewopticians.co.uk"),
     "janet.moss@hotmail.co.uk", "Thu, 26 Mar 2026 12:01:00 +0000",
     "Eye test booked for 08/04/2026",
     """Hello Janet,

Your eye test is booked for 08/04/2026 at 9.15am at Clearview Opticians, 57 High Street,
Harrogate HG1 1QF.

Please bring your current glasses and a list of any medication.

Clearview Opticians
""", expect={"events": [ev("2026-04-08T09:15:00")]})
mail("dates-tw-roc-hospital.eml", "dates", ("仁光綜合醫院", "reg@cgh-reg.org.tw"),
     "wang.yating@gmail.com", "Mon, 16 Mar 2026 21:03:00 +0800",
     "網路掛號完成通知",
     """王雅婷 您好：

您已完成網路掛號。

病患姓名：王德福
就診日期：115年3月24日 上午9:30
科別：心臟內科　診間：2診
醫師：許文彬

請於看診前30分鐘至一樓報到。
""", charset="big5", expect={"events": [ev("2026-03-24T09:30:00")]})
mail("dates-tw-roc-slash.eml", "dates", ("康寧復健科診所", "booking@kangning-rehab.com.tw"),
     "lin.peiwen@hotmail.com", "Thu, 2 Apr 2026 10:10:00 +0800",
     "復健預約確認",
     """林珮雯 您好：

已為 林秀蘭 預約復健治療：

日期：115/4/7
時間：下午2:30
地點：台中市北區三民路三段200號

如需取消請提前來電 (04)2225-7788。
""", expect={"events": [ev("2026-04-07T14:30:00")]})
mail("dates-tw-weekday-bracket.eml", "dates", ("好好動物醫院", "notice@haohao-vet.tw"),
     "tsai.jiahui@gmail.com", "Fri, 20 Mar 2026 18:30:00 +0800",
     "預約提醒：小黑 疫苗施打",
     """蔡佳慧 您好：

提醒您，小黑 的疫苗施打預約時間為 3/24（二）14:00，
地點：高雄市苓雅區四維三路66號。

請準時到院，謝謝！
好好動物醫院
""", expect={"events": [ev("2026-03-24T14:00:00")]})
mail("dates-us-monthfirst.eml", "dates", ("Brightpath Physical Therapy", "frontdesk@brightpathpt.com"),
     "carlos.mendez@gmail.com", "Mon, 13 Apr 2026 09:00:00 -0700",
     "Appointment scheduled",
     """Hi Carlos,

You're scheduled for physical therapy on 04/21/2026 at 3:45 PM.
Brightpath Physical Therapy, 901 Alder St, Eugene, OR 97401

See you then!
""", expect={"events": [ev("2026-04-21T15:45:00")]})
mail("dates-ambiguous-wellness.eml", "dates", ("Vita Wellness Booking", "bookings@vitawellnessbooking.com"),
     "a.rivera@protonmail.com", "Sat, 14 Mar 2026 10:00:00 +0000",
     "Booking confirmed",
     """Hi,

Your massage booking is confirmed for 03/04/2026 at 11:00.

Vita Wellness
""", expect={"events": [], "unread_dates": [{"text": "03/04/2026", "reason": "ambiguous_day_month"}]})
mail("dates-ambiguous-lab.eml", "dates", ("QuickDraw Labs", "noreply@quickdrawlabs.com"),
     "jordan.lee@fastmail.com", "Tue, 17 Mar 2026 13:00:00 +0000",
     "Your lab appointment",
     """Hello Jordan,

Your blood draw appointment: 05/06/2026 10:30.
Location: QuickDraw Labs, Unit 2.

Reply STOP to opt out of reminders.
""", expect={"events": [], "unread_dates": [{"text": "05/06/2026", "reason": "ambiguous_day_month"}]})

# ---------------------------------------------------------------- 4. forwarded
def fwd_gmail(intro, f_name, f_addr, f_date, f_subject, f_to, body, zh=False):
    if zh:
        head = f"---------- 轉寄的郵件 ---------\n寄件者：{f_name} <{f_addr}>\nDate: {f_date}\n主旨：{f_subject}\nTo: <{f_to}>\n"
    else:
        head = f"---------- Forwarded message ---------\nFrom: {f_name} <{f_addr}>\nDate: {f_date}\nSubject: {f_subject}\nTo: <{f_to}>\n"
    return f"{intro}\n\n{head}\n\n{body}"


mail("fwd-uk-hospital.eml", "forwarded", ("Claire Dempsey", "claire.dempsey@gmail.com"),
     "tom.dempsey@gmail.com", "Sun, 15 Mar 2026 20:14:00 +0000",
     "Fwd: Outpatient appointment letter",
     fwd_gmail("Tom - Mum's hospital appointment, can you take her? I'm at work that day. C x",
               "St Aldhelm's Hospital Outpatients", "outpatients@staldhelms.nhs.uk",
               "Fri, 13 Mar 2026 at 10:05", "Outpatient appointment letter", "claire.dempsey@gmail.com",
               """Dear Mrs Dempsey,

An appointment has been made for you in the Cardiology Clinic.

Date: Thursday 2 April 2026
Time: 13:50
Clinic: Cardiology Outpatients, Level 2, St Aldhelm's Hospital, Wells Road, Bath BA2 3XY

Please bring a list of your current medicines.

Outpatient Booking Office
"""), expect={"events": [ev("2026-04-02T13:50:00", forwarded_from={"address": "outpatients@staldhelms.nhs.uk"})]})
mail("fwd-de-kardiologie.eml", "forwarded", ("Julia Hartmann", "julia.hartmann@posteo.de"),
     "martin.hartmann@gmx.net", "Fri, 20 Mar 2026 19:30:00 +0100",
     "WG: Terminbestätigung Kardiologie",
     """Hallo Martin,
kannst du Papa am Donnerstag fahren? Termin unten.
Julia

-----Ursprüngliche Nachricht-----
Von: Kardiologische Gemeinschaftspraxis Köln-Süd <termine@kardio-koeln-sued.de>
Gesendet: Freitag, 20. März 2026 11:02
An: julia.hartmann@posteo.de
Betreff: Terminbestätigung Kardiologie

Sehr geehrte Frau Hartmann,

wir bestätigen den Termin für Herrn Klaus Hartmann:

Donnerstag, 26. März 2026, 14:40 Uhr
Langzeit-EKG Anlage
Bonner Straße 172, 50968 Köln

Mit freundlichen Grüßen
Kardiologische Gemeinschaftspraxis Köln-Süd
""", extra=[("Content-Language", "de")],
     expect={"events": [ev("2026-03-26T14:40:00", forwarded_from={"address": "termine@kardio-koeln-sued.de"})]})
mail("fwd-tw-eye-clinic.eml", "forwarded", ("張家豪", "chang.jiahao@gmail.com"),
     "chang.yiting@gmail.com", "Sat, 21 Mar 2026 22:00:00 +0800",
     "Fwd: 預約成功通知",
     fwd_gmail("妹，媽的眼科門診，那天你可以陪她去嗎？",
               "明視眼科診所", "service@mingshi-eye.com.tw", "2026年3月21日 週六 下午3:12",
               "預約成功通知", "chang.jiahao@gmail.com",
               """張家豪 您好：

已為 張林美惠 完成預約：
日期：2026年3月30日（一）
時間：上午11:00
醫師：鄭宇翔 醫師
地址：台北市中山區南京東路二段88號3樓

明視眼科診所
""", zh=True), expect={"events": [ev("2026-03-30T11:00:00", forwarded_from={"address": "service@mingshi-eye.com.tw"})]})
mail("fwd-us-dhl.eml", "forwarded", ("Rob Nguyen", "rob.nguyen@icloud.com"),
     "linh.nguyen@gmail.com", "Wed, 25 Mar 2026 18:45:00 -0700",
     "Fwd: DHL On Demand Delivery: your shipment is on its way",
     """Mom's new blood pressure monitor - should be there Friday.

Begin forwarded message:

From: DHL On Demand Delivery <noreply.odd@dhl.com>
Subject: Your shipment 4817263953 is on its way
Date: March 25, 2026 at 4:10:22 PM PDT
To: rob.nguyen@icloud.com

Hello,

Your DHL Express shipment 4817263953 from OMRON Healthcare is on its way.
Expected delivery: Friday, March 27, 2026, by end of day.

Track your shipment: https://www.dhl.com/us-en/home/tracking.html?tracking-id=4817263953
""", expect={"shipments": [{"tracking_number": "4817263953", "carrier": "dhl", "status": "in_transit",
                             "forwarded_from": {"address": "noreply.odd@dhl.com"}}]})
mail("fwd-tw-tcat.eml", "forwarded", ("許文琪", "hsu.wenchi@gmail.com"),
     "hsu.family.2020@gmail.com", "Thu, 26 Mar 2026 08:20:00 +0800",
     "Fwd: 黑貓宅急便 配達預定通知",
     fwd_gmail("阿嬤的輪椅坐墊今天會到，家裡要有人在喔。",
               "黑貓宅急便", "service@t-cat.com.tw", "2026年3月26日 週四 上午7:58",
               "配達預定通知", "hsu.wenchi@gmail.com",
               """許文琪 您好：

您的包裹（託運單號 9054-1283-6670）今日配送中，預計於 14:00-18:00 送達。
寄件人：舒適家醫療器材

統一速達 黑貓宅急便
""", zh=True), expect={"shipments": [{"tracking_number": "905412836670", "status": "out_for_delivery",
                                    "forwarded_from": {"address": "service@t-cat.com.tw"}}]})
inner = MIMEText("""Hello Priya,

Your Royal Mail parcel from Boots is waiting for you at the Post Office.

Tracking number: QF482910372GB
Collect from: Kingsway Post Office, 118 Kingsway, Manchester M19 2LL
Please collect it by 4 April 2026, or it will be returned to the sender.

Royal Mail
""", "plain", "utf-8")
inner["From"] = "Royal Mail <no-reply@royalmail.com>"
inner["To"] = "priya.shah@outlook.com"
inner["Date"] = "Mon, 23 Mar 2026 10:30:00 +0000"
inner["Subject"] = "Your item is ready to collect"
inner["Message-ID"] = "<rm-ready-QF482910372GB@royalmail.com>"
outer = MIMEMultipart("mixed", boundary="----=_NextPart_fwd_rm")
outer.attach(MIMEText("Dad's tablets from Boots are at the post office, can you grab them on your way? P\n", "plain", "utf-8"))
outer.attach(MIMEMessage(inner))
mail("fwd-uk-royalmail-attached.eml", "forwarded", ("Priya Shah", "priya.shah@outlook.com"),
     "anil.shah@outlook.com", "Mon, 23 Mar 2026 12:05:00 +0000",
     "FW: Your item is ready to collect", None, body=outer,
     expect={"shipments": [{"tracking_number": "QF482910372GB", "status": "available_for_pickup",
                             "forwarded_from": {"address": "no-reply@royalmail.com"}}]})

# ---------------------------------------------------------------- 5. care mail with bulk headers
mail("care-uk-reminder-sendgrid.eml", "care_bulk", ("Ashcombe Medical Centre", "no-reply@ashcombemedical.co.uk"),
     "d.hughes@btinternet.com", "Fri, 27 Mar 2026 07:00:00 +0000",
     "Reminder: appointment on Monday 30 March",
     """Dear David Hughes,

This is a reminder of your appointment:

Monday 30 March 2026 at 09:10
Practice Nurse - annual asthma review
Ashcombe Medical Centre, 9 Market Place, Frome BA11 1AN

If you no longer need this appointment, please cancel it so it can be given to another patient.

You are receiving this because you are registered at Ashcombe Medical Centre.
""", html="""<html><body><p>Dear David Hughes,</p><p>This is a reminder of your appointment:</p>
<p><b>Monday 30 March 2026 at 09:10</b><br>Practice Nurse - annual asthma review<br>
Ashcombe Medical Centre, 9 Market Place, Frome BA11 1AN</p>
<p style="font-size:11px">You are receiving this because you are registered at Ashcombe Medical Centre.
<a href="https://u1234.ct.sendgrid.net/asm/unsubscribe?u=ash">Unsubscribe</a></p></body></html>""",
     extra=SENDGRID + bulk("appt-reminder:ashcombe:sendgrid", "https://u1234.ct.sendgrid.net/asm/unsubscribe?u=ash"),
     expect={"mail_kind": "notification", "newsletter_reasons": {"includes": "care_mail"}, "care": "appointment", "events": [ev("2026-03-30T09:10:00")]})
mail("care-uk-rx-collect.eml", "care_bulk", ("Hillcrest Pharmacy", "noreply@hillcrestpharmacy.co.uk"),
     "margaret.ellis@aol.co.uk", "Tue, 24 Mar 2026 15:22:00 +0000",
     "Your prescription is ready to collect",
     """Hello Margaret,

Good news - your prescription is ready to collect from Hillcrest Pharmacy,
14 Station Road, Headingley, Leeds LS6 2AB.

Please collect it by 3 April 2026. After that date it will be returned to stock.

Opening hours: Mon-Fri 9am-6pm, Sat 9am-1pm.

Hillcrest Pharmacy
To stop these messages, visit https://hillcrestpharmacy.co.uk/preferences
""", extra=bulk("rx-ready:hillcrest:mailgun", "https://hillcrestpharmacy.co.uk/preferences?u=5521"),
     expect={"mail_kind": "notification", "newsletter_reasons": {"includes": "care_mail"}, "care": "prescription",
             "events": [{"kind": "prescription", "prescription": "collect", "start": "2026-04-03", "start_local": "2026-04-03",
                         "all_day": True, "location": {"contains": "Hillcrest Pharmacy"}}]})
mail("care-us-refill-due.eml", "care_bulk", ("Walgrove Pharmacy", "rx@notify.walgrovepharmacy.com"),
     "betty.simmons@comcast.net", "Wed, 1 Apr 2026 09:15:00 -0400",
     "Your refill is due soon",
     """Hi Betty,

Your prescription refill is due. To avoid running out, please reorder by April 10, 2026.

Medication: Lisinopril 10 mg tablet (Rx #6120473)
Pharmacy: Walgrove Pharmacy #2291, 75 Center St, Manchester, CT 06040

Reorder in the app or reply REFILL.

Walgrove Pharmacy
Unsubscribe: https://notify.walgrovepharmacy.com/u/9921
""", html="""<html><body><p>Hi Betty,</p><p>Your prescription refill is due. To avoid running out,
please <b>reorder by April 10, 2026</b>.</p><p>Medication: Lisinopril 10 mg tablet (Rx #6120473)<br>
Pharmacy: Walgrove Pharmacy #2291, 75 Center St, Manchester, CT 06040</p>
<p><a href="https://notify.walgrovepharmacy.com/u/9921">Unsubscribe</a></p></body></html>""",
     extra=SENDGRID + bulk("refill:walgrove:sendgrid", "https://notify.walgrovepharmacy.com/u/9921"),
     expect={"mail_kind": "notification", "newsletter_reasons": {"includes": "care_mail"}, "care": "prescription",
             "events": [{"kind": "prescription", "prescription": "reorder", "start": "2026-04-10", "start_local": "2026-04-10",
                         "all_day": True, "location": {"contains": "Walgrove Pharmacy"}}]})
mail("care-de-apotheke.eml", "care_bulk", ("Linden-Apotheke", "service@linden-apotheke-freiburg.de"),
     "r.schaefer@web.de", "Thu, 26 Mar 2026 11:40:00 +0100",
     "Ihr Rezept liegt zur Abholung bereit",
     """Guten Tag Herr Schäfer,

Ihr E-Rezept ist eingelöst und die Arzneimittel liegen für Sie zur Abholung bereit.

Bitte holen Sie sie bis zum 02.04.2026 ab.
Linden-Apotheke, Habsburgerstraße 112, 79104 Freiburg

Mit freundlichen Grüßen
Ihre Linden-Apotheke

Newsletter abbestellen: https://linden-apotheke-freiburg.de/abmelden
""", extra=[("Content-Language", "de")] + bulk("rx:linden:cleverreach", "https://linden-apotheke-freiburg.de/abmelden"),
     expect={"mail_kind": "notification", "newsletter_reasons": {"includes": "care_mail"}, "care": "prescription",
             "events": [{"kind": "prescription", "prescription": "collect", "start": "2026-04-02", "start_local": "2026-04-02",
                         "all_day": True, "location": {"contains": "Linden-Apotheke"}}]})
mail("care-tw-pharmacy.eml", "care_bulk", ("杏安健保藥局", "noreply@xingan-pharmacy.com.tw"),
     "lee.chunhua@gmail.com", "Mon, 23 Mar 2026 16:00:00 +0800",
     "【杏安健保藥局】您的處方藥已備妥",
     """李春華 您好：

您的慢性處方箋藥品已備妥，請於 3月31日 前至 杏安健保藥局（台南市東區長榮路二段45號）領取。
逾期未領取，藥品將退回藥庫。

本信件由系統自動發送，請勿直接回覆。
取消訂閱：https://xingan-pharmacy.com.tw/unsubscribe
""", extra=bulk("rx:xingan:ses", "https://xingan-pharmacy.com.tw/unsubscribe?id=3391"),
     expect={"mail_kind": "notification", "newsletter_reasons": {"includes": "care_mail"}, "care": "prescription",
             "events": [{"kind": "prescription", "prescription": "collect", "start": "2026-03-31", "start_local": "2026-03-31",
                         "all_day": True, "location": {"contains": "杏安健保藥局"}}]})
mail("care-us-dental-reminder.eml", "care_bulk", ("Summit Smiles Dental", "reminders@summitsmiles.com"),
     "kevin.obrien@gmail.com", "Mon, 30 Mar 2026 08:00:00 -0600",
     "Reminder: Your appointment at Summit Smiles Dental",
     """Hi Kevin,

Just a friendly reminder of your upcoming appointment:

Thursday, April 2, 2026 at 11:30 AM
Hygiene visit with Jenna, RDH
Summit Smiles Dental, 1880 Pearl St, Boulder, CO 80302

Reply C to confirm.

Summit Smiles Dental | Unsubscribe from reminders
""", extra=[("X-Mailgun-Tag", "appointment-reminder")] + bulk("summit:reminder:mailgun", "https://summitsmiles.com/reminders/off?k=77"),
     expect={"mail_kind": "notification", "newsletter_reasons": {"includes": "care_mail"}, "care": "appointment", "events": [ev("2026-04-02T11:30:00")]})
mail("care-uk-rx-nodate.eml", "care_bulk", ("Parkside Pharmacy", "no-reply@parksidepharmacy.co.uk"),
     "gwen.price@btinternet.com", "Wed, 25 Mar 2026 13:00:00 +0000",
     "Prescription ready",
     """Hi Gwen,

Your prescription is ready to collect from Parkside Pharmacy, 2 Park Parade, Cardiff CF10 3EF.

Parkside Pharmacy
Manage your notification preferences: https://parksidepharmacy.co.uk/prefs
""", extra=bulk("rx-ready:parkside:sendgrid", "https://parksidepharmacy.co.uk/prefs?u=2204") + SENDGRID,
     expect={"mail_kind": "notification", "newsletter_reasons": {"includes": "care_mail"}, "care": "prescription", "events": []})

# ---------------------------------------------------------------- 6. pickup at a store or locker
mail("pickup-tw-711.eml", "pickup", ("綠光選物", "service@greenlight-select.com.tw"),
     "chou.yuting@gmail.com", "Tue, 24 Mar 2026 14:30:00 +0800",
     "您的包裹已送達取貨門市",
     """周郁婷 您好：

您在 綠光選物 訂購的商品（訂單編號 GL260321088，交貨便代碼 836720154937）已送達 7-ELEVEN 興雅門市，
門市地址：台北市信義區松仁路58號。

請於 2026/03/31 前攜帶身分證件至門市取貨，逾期將退回。

綠光選物 敬上
""", expect={"shipments": [{"status": "available_for_pickup",
                             "pickup": {"store": {"any_of": ["7-ELEVEN 興雅門市", "興雅門市", "興雅"]},
                                        "address": {"contains": "松仁路58號"}}}]})
mail("pickup-tw-familymart.eml", "pickup", ("全家便利商店 店到店", "no-reply@famiport.com.tw"),
     "yeh.chihwei@yahoo.com.tw", "Wed, 25 Mar 2026 10:05:00 +0800",
     "【全家】商品已到店通知",
     """親愛的顧客您好：

您的商品已到店，請於 7 日內至 全家 台中文心店 取貨。
門市地址：台中市南屯區文心路一段521號
取貨人：葉志偉
寄件代碼：20384756012

全家便利商店
""", charset="big5", expect={"shipments": [{"status": "available_for_pickup",
                                           "pickup": {"store": {"any_of": ["全家 台中文心店", "台中文心店"]},
                                                      "address": {"contains": "文心路一段521號"}}}]})
mail("pickup-tw-hilife.eml", "pickup", ("萊爾富", "hilife-ec@hilife.com.tw"),
     "kuo.minghui@gmail.com", "Thu, 26 Mar 2026 19:12:00 +0800",
     "萊爾富 到店取貨通知",
     """郭明輝 先生/小姐 您好：

您的包裹已到店：萊爾富 新莊中正店（新北市新莊區中正路402號），
請於 115/04/02 前完成取貨。

包裹編號：H0382716459

萊爾富國際股份有限公司
""", expect={"shipments": [{"status": "available_for_pickup",
                             "pickup": {"store": {"any_of": ["萊爾富 新莊中正店", "新莊中正店"]},
                                        "address": {"contains": "中正路402號"}}}]})
mail("pickup-tw-okmart.eml", "pickup", ("木頭人文具", "shop@mutouren-stationery.tw"),
     "huang.tingyu@gmail.com", "Fri, 27 Mar 2026 11:00:00 +0800",
     "訂單 MTR-0327-5512 已送達 OK超商",
     """黃婷鈺 您好：

您的訂單 MTR-0327-5512 已送達 OK超商 板橋文化店，請於 4/3 前取貨。
門市地址：新北市板橋區文化路二段295號

木頭人文具
""", expect={"shipments": [{"status": "available_for_pickup",
                             "pickup": {"store": {"any_of": ["OK超商 板橋文化店", "板橋文化店"]},
                                        "address": {"contains": "文化路二段295號"}}}]})
mail("pickup-uk-locker.eml", "pickup", ("InPost", "no-reply@inpost.co.uk"),
     "liam.carter@gmail.com", "Sat, 28 Mar 2026 09:41:00 +0000",
     "Your parcel is ready to collect from the Locker",
     """Hi Liam,

Your parcel from Vitality Health Store has arrived and is ready to collect.

Locker: InPost Locker - Sainsbury's Fulham Wharf, Townmead Road, London SW6 2SB
Collection code: 482 913
Parcel number: 681234567890123456789012

Collect by 31/03/2026 at 09:41, or it will go back to the sender.

InPost UK
""", expect={"shipments": [{"status": "available_for_pickup",
                             "pickup": {"store": {"contains": "Fulham Wharf"},
                                        "address": {"contains": "Townmead Road"}}}]})
mail("pickup-us-access-point.eml", "pickup", ("UPS", "mcinfo@ups.com"),
     "hannah.price@gmail.com", "Fri, 27 Mar 2026 16:20:00 -0400",
     "UPS Update: Package Is Ready for Pickup",
     """Hello Hannah Price,

Your package is ready for pickup at a UPS Access Point location.

Tracking Number: 1Z7X29E40397164825
Location: CVS Pharmacy
          410 Elm Ave
          Burlington, VT 05401
Pick up by: 04/06/2026

Bring a government-issued photo ID.
""", expect={"shipments": [{"tracking_number": "1Z7X29E40397164825", "status": "available_for_pickup",
                             "pickup": {"store": {"contains": "CVS"}, "address": {"contains": "410 Elm Ave"}}}]})

# ---------------------------------------------------------------- 7. customs / duty
mail("customs-tw-post.eml", "customs", ("中華郵政", "ips@mail.post.gov.tw"),
     "tseng.yihan@gmail.com", "Mon, 23 Mar 2026 09:30:00 +0800",
     "國際包裹進口稅費繳納通知",
     """曾怡涵 君 您好：

您的國際包裹 RR284716393JP 經海關核定需繳納進口稅費 NT$350，
請於 2026/04/05 前完成繳納，繳費後將放行並投遞。

逾期未繳納之郵件將退回原寄件國。

中華郵政股份有限公司
""", expect={"shipments": [{"tracking_number": "RR284716393JP", "status": "customs_hold",
                             "customs": {"amount": 350, "currency": "TWD", "pay_by": "2026-04-05"}}]})
mail("customs-uk-royalmail-fee.eml", "customs", ("Royal Mail", "no-reply@royalmail.com"),
     "oliver.grant@gmail.com", "Tue, 24 Mar 2026 08:15:00 +0000",
     "You have a fee to pay",
     """Hi Oliver,

We're holding your item from Canada because there's a fee to pay.

Item: LX902341877CA
Import VAT: £6.20
Royal Mail handling fee: £8.00
Total fee to pay: £14.20

Pay by 14 April 2026. If the fee isn't paid by then, we'll return the item to the sender.

Pay now: https://www.royalmail.com/fee-to-pay

Royal Mail
""", expect={"shipments": [{"tracking_number": "LX902341877CA", "status": "customs_hold",
                             "customs": {"amount": 14.20, "currency": "GBP", "pay_by": "2026-04-14"}}]})
mail("customs-uk-dhl-duty.eml", "customs", ("DHL Express", "noreply@dhl.com"),
     "fiona.mcleod@outlook.com", "Wed, 25 Mar 2026 11:00:00 +0000",
     "DHL Express: Duties and taxes due for shipment 7365920181",
     """Dear Fiona McLeod,

Duties and taxes are due on your DHL Express shipment 7365920181 from Shenzhen.

Amount due: GBP 23.47
Please pay by 2 April 2026 so that we can deliver your shipment.

Pay online: https://mydhl.express.dhl/gb/en/duty-tax.html

DHL Express (UK) Ltd
""", expect={"shipments": [{"tracking_number": "7365920181", "status": "customs_hold",
                             "customs": {"amount": 23.47, "currency": "GBP", "pay_by": "2026-04-02"}}]})
mail("customs-us-fedex.eml", "customs", ("FedEx", "TrackingUpdates@fedex.com"),
     "grace.kim@gmail.com", "Thu, 26 Mar 2026 14:00:00 -0400",
     "FedEx: Duties and taxes owed on shipment 784512093360",
     """Hi Grace,

Import duties and taxes are owed on your FedEx International Priority shipment 784512093360.

Amount owed: $41.80 USD
Pay by: March 31, 2026

Your shipment is held in customs until payment is received.

FedEx
""", expect={"shipments": [{"tracking_number": "784512093360", "status": "customs_hold",
                             "customs": {"amount": 41.80, "currency": "USD", "pay_by": "2026-03-31"}}]})
mail("customs-de-dhl-zoll.eml", "customs", ("DHL Paket", "noreply@dhl.de"),
     "tanja.wolff@gmx.de", "Fri, 27 Mar 2026 10:20:00 +0100",
     "Zollgebühren für Ihre Sendung",
     """Guten Tag Frau Wolff,

für Ihre Sendung LY417263982US aus den USA fallen Einfuhrabgaben an.

Zoll und Einfuhrumsatzsteuer: 19,60 EUR
Bitte bezahlen Sie den Betrag bis zum 03.04.2026, damit wir die Sendung zustellen können.

Ihre DHL
""", extra=[("Content-Language", "de")],
     expect={"shipments": [{"tracking_number": "LY417263982US", "status": "customs_hold",
                             "customs": {"amount": 19.60, "currency": "EUR", "pay_by": "2026-04-03"}}]})
mail("customs-tw-ezway.eml", "customs", ("嘉里大榮物流", "cs@kerrytj.com"),
     "lai.zhiyuan@gmail.com", "Mon, 30 Mar 2026 15:00:00 +0800",
     "【嘉里大榮】海關稅費待繳通知",
     """賴志遠 先生您好：

您的進口包裹（單號 8203946157）經海關課徵稅費 NT$1,126，
繳費期限：115/04/02。完成繳費後將安排配送。

嘉里大榮物流
""", expect={"shipments": [{"tracking_number": "8203946157", "status": "customs_hold",
                             "customs": {"amount": 1126, "currency": "TWD", "pay_by": "2026-04-02"}}]})

# ---------------------------------------------------------------- 8. cash on delivery
mail("cod-tw-tcat.eml", "cod", ("小日子選物", "order@xiaorizi-select.com.tw"),
     "wu.xinyi@gmail.com", "Mon, 23 Mar 2026 13:00:00 +0800",
     "小日子選物 出貨通知（訂單 XR20260321-0158）",
     """吳欣怡 您好：

您的訂單已出貨！

訂單編號：XR20260321-0158
配送方式：黑貓宅急便（託運單號 9052-7731-4408）
付款方式：貨到付款
應付金額：NT$1,280

請備妥現金交給司機，謝謝。
小日子選物
""", expect={"shipments": [{"cash_on_delivery": {"amount": 1280, "currency": "TWD"},
                             "order_number": "XR20260321-0158", "shop": "小日子選物"}]})
mail("cod-tw-711-pay.eml", "cod", ("好物生活館", "service@haowu-living.com.tw"),
     "pan.yaling@yahoo.com.tw", "Tue, 24 Mar 2026 18:00:00 +0800",
     "【好物生活館】訂單 HW2603240077 已出貨",
     """潘雅玲 您好：

感謝您的訂購。您的訂單 HW2603240077 已寄出，配送至 7-ELEVEN 東興門市。
取貨付款金額：$2,450
取貨時請付款。

好物生活館
""", charset="big5", expect={"shipments": [{"cash_on_delivery": {"amount": 2450, "currency": "TWD"},
                                            "order_number": "HW2603240077", "shop": "好物生活館"}]})
mail("cod-tw-hct.eml", "cod", ("山嵐茶行", "tea@shanlan-tea.tw"),
     "chiu.kunlin@gmail.com", "Wed, 25 Mar 2026 09:00:00 +0800",
     "山嵐茶行 訂單出貨通知",
     """邱坤霖 先生您好：

您訂購的 高山烏龍 2 斤 已交由新竹物流寄出。
訂單號碼：SL-115032501
貨運單號：7312845096
代收貨款：新台幣 860 元（貨到付款）

山嵐茶行
""", expect={"shipments": [{"cash_on_delivery": {"amount": 860, "currency": "TWD"},
                             "order_number": "SL-115032501", "shop": "山嵐茶行"}]})
mail("cod-tw-post.eml", "cod", ("阿里山小農市集", "farm@alishan-market.com.tw"),
     "yang.shuzhen@hotmail.com", "Thu, 26 Mar 2026 10:30:00 +0800",
     "訂單出貨通知",
     """楊淑貞 您好：

阿里山小農市集 已將您的訂單（#AS-20260326-031）以中華郵政包裹寄出，
郵件號碼：72846310293518，貨到付款 NT$640。

阿里山小農市集
""", expect={"shipments": [{"cash_on_delivery": {"amount": 640, "currency": "TWD"},
                             "order_number": {"any_of": ["AS-20260326-031", "#AS-20260326-031"]}, "shop": "阿里山小農市集"}]})
mail("cod-tw-familymart-pinkoi.eml", "cod", ("森林小舖", "hello@senlin-shop.tw"),
     "hung.peiyu@gmail.com", "Fri, 27 Mar 2026 20:00:00 +0800",
     "森林小舖：訂單 #2603270042 已出貨",
     """洪珮瑜 您好：

您的訂單 #2603270042 已寄出至 全家 高雄明誠店，到店後會另行通知。
付款方式：全家取貨付款
金額：NT$399

森林小舖
""", expect={"shipments": [{"cash_on_delivery": {"amount": 399, "currency": "TWD"},
                             "order_number": {"any_of": ["2603270042", "#2603270042"]}, "shop": "森林小舖"}]})
mail("cod-jp-daibiki.eml", "cod", ("北欧雑貨ミナ", "shop@hokuo-mina.jp"),
     "m.kobayashi@gmail.com", "Sat, 28 Mar 2026 12:00:00 +0900",
     "【北欧雑貨ミナ】商品発送のお知らせ",
     """小林 真理 様

ご注文の商品を発送いたしました。

ご注文番号：MN-260328-077
配送業者：ヤマト運輸
お問い合わせ伝票番号：4428-1937-6605
お支払い方法：代金引換
代引き金額：3,980円（税込）

北欧雑貨ミナ
""", charset="iso-2022-jp", expect={"shipments": [{"cash_on_delivery": {"amount": 3980, "currency": "JPY"},
                                                 "order_number": "MN-260328-077", "shop": "北欧雑貨ミナ"}]})

# ---------------------------------------------------------------- 9. status words in context
mail("status-tw-return-warning.eml", "status", ("全家便利商店 店到店", "no-reply@famiport.com.tw"),
     "ho.jiayi@gmail.com", "Sun, 29 Mar 2026 09:00:00 +0800",
     "【全家】取貨提醒：包裹即將退回",
     """親愛的顧客您好：

您的包裹已在 全家 永和中正店 等候 5 天，請於 3/31 前取貨，逾期未取將退回寄件人。

寄件代碼：20384750988
""", expect={"shipments": [{"status": "available_for_pickup"}]})
mail("status-uk-return-warning.eml", "status", ("Evri", "noreply@evri.com"),
     "nina.bishop@gmail.com", "Mon, 30 Mar 2026 08:30:00 +0100",
     "Reminder: your parcel is waiting at your ParcelShop",
     """Hi Nina,

Your parcel H01JKA0012345678 is still waiting for you at Evri ParcelShop - Co-op, 12 Church Lane,
Leeds LS15 8JB. It will be returned to the sender if not collected by 2 April.
""", expect={"shipments": [{"tracking_number": "H01JKA0012345678", "status": "available_for_pickup"}]})
mail("status-uk-redelivery.eml", "status", ("Royal Mail", "no-reply@royalmail.com"),
     "sean.malone@gmail.com", "Mon, 23 Mar 2026 19:00:00 +0000",
     "Your redelivery is booked",
     """Hi Sean,

Thanks - we've booked your redelivery for tomorrow, Tuesday 24 March.

Item: JF593021843GB
Your postman will deliver it between 9am and 5pm. Someone will need to sign for it.
""", expect={"shipments": [{"tracking_number": "JF593021843GB", "status": "in_transit"}]})
mail("status-uk-out-for-delivery.eml", "status", ("DPD", "noreply@dpd.co.uk"),
     "ellie.ward@hotmail.com", "Wed, 25 Mar 2026 08:05:00 +0000",
     "Your DPD parcel is out for delivery today",
     """Hi Ellie,

Your parcel 15503998271046 from Healthspan is out for delivery today.
Your driver Marek will be with you between 13:42 and 14:42.

Not going to be in? You can still change the delivery.
""", expect={"shipments": [{"tracking_number": "15503998271046", "status": "out_for_delivery"}]})
mail("status-us-address-problem.eml", "status", ("USPS", "auto-reply@usps.com"),
     "tyler.ross@gmail.com", "Thu, 26 Mar 2026 17:30:00 -0500",
     "USPS Tracking: Action needed for 9400111206218364552019",
     """Your item could not be delivered on March 26, 2026 at 2:14 pm in SPRINGFIELD, IL 62704
because of an incomplete address. Please contact the sender to correct the address.

Tracking Number: 9400111206218364552019
""", expect={"shipments": [{"tracking_number": "9400111206218364552019", "status": "exception"}]})
mail("status-shop-shipped.eml", "status", ("Oak & Thistle Home", "orders@oakandthistle.co.uk"),
     "abby.turner@gmail.com", "Tue, 24 Mar 2026 12:00:00 +0000",
     "Your order #OT48213 has shipped",
     """Hi Abby,

Great news - your order #OT48213 has shipped and is on its way to you.

Tracking number: TT302918479GB
Expected in 2-3 working days.

Oak & Thistle Home
""", expect={"shipments": [{"tracking_number": "TT302918479GB", "status": "in_transit"}]})
mail("status-tw-sameday.eml", "status", ("PChome 24h購物", "service@pchome.com.tw"),
     "fang.yuchen@gmail.com", "Wed, 25 Mar 2026 10:15:00 +0800",
     "【PChome 24h】您的商品今日配送中",
     """方宇辰 您好：

您的訂單 20260325123456 商品今日配送中，司機已出發前往您的收件地址，預計今天 18:00 前送達。
配送單號：P260325889012

PChome 24h購物
""", expect={"shipments": [{"status": "out_for_delivery"}]})

# ---------------------------------------------------------------- 10. cross-border numbers
mail("xb-aliexpress-standard.eml", "crossborder", ("AliExpress", "transaction@notice.aliexpress.com"),
     "mark.evans@gmail.com", "Mon, 16 Mar 2026 03:12:00 +0000",
     "Your order 8198237461052876 has been shipped",
     """Hi Mark,

Your order 8198237461052876 has been shipped.

Shipping method: AliExpress Standard Shipping
Tracking number: LP00712384956102

Track your package in the AliExpress app.
""", expect={"shipments": [{"carrier": "cainiao", "tracking_number": "LP00712384956102"}]})
mail("xb-cainiao-lpcn.eml", "crossborder", ("菜鸟国际", "noreply@cainiao.com"),
     "zhou.wen@126.com", "Tue, 17 Mar 2026 10:00:00 +0800",
     "您的国际包裹已发出",
     """您好：

您的国际包裹已从义乌分拨中心发出。
物流单号：LP00536218947033CN
承运商：菜鸟国际物流

菜鸟
""", charset="gb2312", expect={"shipments": [{"carrier": "cainiao", "tracking_number": "LP00536218947033CN"}]})
mail("xb-yanwen-shopify.eml", "crossborder", ("Pawsome Pet Gear", "support@pawsomepetgear.com"),
     "laura.jenkins@yahoo.com", "Wed, 18 Mar 2026 09:20:00 -0400",
     "A shipment from order #PPG10492 is on the way",
     """Hi Laura,

Your order #PPG10492 is on the way. Track your shipment to see the delivery status.

Carrier: Yanwen
Tracking number: UG947261388YP

Pawsome Pet Gear
""", expect={"shipments": [{"carrier": "yanwen", "tracking_number": "UG947261388YP"}]})
mail("xb-yanwen-cn.eml", "crossborder", ("深圳优品跨境", "shipping@youpin-kj.com"),
     "eva.fischer@gmx.de", "Thu, 19 Mar 2026 11:00:00 +0800",
     "Versandbestätigung / 发货通知",
     """Sehr geehrte Kundin,

Ihre Bestellung wurde mit Yanwen (燕文物流) versendet.
Sendungsnummer: VR318840278YP

您的订单已通过燕文物流发货，运单号：VR318840278YP
""", expect={"shipments": [{"carrier": "yanwen", "tracking_number": "VR318840278YP"}]})
mail("xb-taiwan-express.eml", "crossborder", ("韓國直送小舖", "cs@kr-direct.com.tw"),
     "lu.xiaowen@gmail.com", "Fri, 20 Mar 2026 15:00:00 +0800",
     "韓國直送小舖 出貨通知",
     """呂曉雯 您好：

您的韓國直送商品已抵台並完成通關，交由台灣快遞配送。
台灣快遞單號：620315847291
預計 1-2 個工作天內送達。

韓國直送小舖
""", expect={"shipments": [{"carrier": "taiwan_express", "tracking_number": "620315847291"}]})
mail("xb-aliexpress-tw.eml", "crossborder", ("AliExpress", "transaction@notice.aliexpress.com"),
     "tang.yiru@gmail.com", "Sat, 21 Mar 2026 02:00:00 +0000",
     "您的訂單 3051876290417734 已發貨",
     """唐怡如 您好：

您的訂單 3051876290417734 已發貨。
物流方式：AliExpress 無憂物流-標準（AliExpress Standard Shipping）
追蹤號碼：LP00648213579046

AliExpress
""", expect={"shipments": [{"carrier": "cainiao", "tracking_number": "LP00648213579046"}]})

# ---------------------------------------------------------------- look-alikes
NONE = {"events": [], "shipments": [], "care": {"none_of": ["appointment", "prescription"]}}
mail("lookalike-clinic-easter-hours.eml", "lookalike", ("Riverbank Health Centre", "news@riverbankhealth.co.uk"),
     "patients@list.riverbankhealth.co.uk", "Fri, 20 Mar 2026 12:00:00 +0000",
     "Riverbank News: Easter opening hours",
     """Riverbank Health Centre - March newsletter

EASTER OPENING HOURS
Good Friday 3 April 2026: closed
Easter Monday 6 April 2026: closed
Tuesday 7 April 2026: open as usual from 08:00

Spring boosters: clinics are running on Saturdays in April; book online.

You receive this newsletter because you signed up at reception. Unsubscribe any time.
""", extra=bulk("newsletter:riverbank:mailchimp", "https://riverbankhealth.us12.list-manage.com/unsubscribe?u=a1"),
     expect=dict(NONE))
mail("lookalike-pharmacy-promo.eml", "lookalike", ("Wellcare Chemists", "offers@wellcarechemists.co.uk"),
     "list@wellcarechemists.co.uk", "Mon, 16 Mar 2026 10:00:00 +0000",
     "20% off travel health - book your jabs by 31 March",
     """Going abroad this Easter?

Save 20% on travel vaccinations when you book before 31 March 2026.
Appointments available Monday to Saturday, 9am to 5pm, at all 14 Wellcare branches.

Plus: repeat prescription service - never run out again. Sign up in store.

Unsubscribe: https://wellcarechemists.co.uk/unsubscribe
""", extra=bulk("promo:wellcare:sendgrid", "https://wellcarechemists.co.uk/unsubscribe?u=88") + SENDGRID,
     expect=dict(NONE))
mail("lookalike-shop-sale-cod.eml", "lookalike", ("花漾生活選物", "edm@huayang-life.com.tw"),
     "vip@huayang-life.com.tw", "Wed, 18 Mar 2026 12:00:00 +0800",
     "春季限時特賣 全館 8 折！",
     """花漾生活選物 春季特賣開跑！

3/20（五）～3/29（日）全館 8 折，滿 NT$1,500 免運。
付款方式：信用卡、ATM 轉帳、貨到付款、7-ELEVEN 取貨付款皆可。
超商取貨：7-ELEVEN、全家、萊爾富、OK超商 全台門市皆可取貨。

取消訂閱電子報：https://huayang-life.com.tw/unsubscribe
""", extra=bulk("edm:huayang", "https://huayang-life.com.tw/unsubscribe?e=771"), expect=dict(NONE))
mail("lookalike-711-member.eml", "lookalike", ("7-ELEVEN", "news@7-11.com.tw"),
     "member@7-11.com.tw", "Thu, 19 Mar 2026 11:00:00 +0800",
     "OPEN POINT 會員獨享：店到店寄件 9 折",
     """OPEN POINT 會員您好：

3月份店到店寄件享 9 折！包裹送達門市後，手機即收到取貨通知，最快隔日到店。

活動期間：2026/3/1～2026/3/31
詳情請見 https://www.7-11.com.tw/event

若不想再收到此類訊息，請至會員中心取消訂閱。
""", extra=bulk("edm:711:openpoint", "https://www.7-11.com.tw/member/unsubscribe"), expect=dict(NONE))
mail("lookalike-how-to-reschedule.eml", "lookalike", ("CareBook Tips", "hello@carebook-app.com"),
     "subscribers@carebook-app.com", "Tue, 24 Mar 2026 15:00:00 +0000",
     "3 tips: how to reschedule a GP appointment without the phone queue",
     """Hi there,

Missed the 8am phone rush again? Here's how to move or cancel a GP appointment online:

1. Open your practice's booking page and choose "Change appointment".
2. Pick a new time - for example Thursday at 15:20 instead of Tuesday at 10:40.
3. You'll get a confirmation email from your practice.

Happy booking,
The CareBook team

Unsubscribe: https://carebook-app.com/u
""", extra=bulk("tips:carebook", "https://carebook-app.com/u"), expect=dict(NONE))
mail("lookalike-de-praxis-urlaub.eml", "lookalike", ("Zahnarztpraxis Dr. Lorenz", "info@zahnarzt-lorenz.de"),
     "patienten@zahnarzt-lorenz.de", "Mon, 23 Mar 2026 09:00:00 +0100",
     "Praxisurlaub über Ostern",
     """Liebe Patientinnen und Patienten,

unsere Praxis bleibt vom 30.03.2026 bis 03.04.2026 wegen Urlaub geschlossen.
Vertretung: Zahnarztpraxis Dr. Meyer, Lindenstraße 5, Tel. 0341 225 7710.

Ab Montag, 06.04.2026 sind wir wieder für Sie da.

Ihr Praxisteam Dr. Lorenz
""", extra=[("Content-Language", "de")] + bulk("praxis-news:lorenz", "https://zahnarzt-lorenz.de/newsletter/abmelden"),
     expect=dict(NONE))


def main():
    for old in HERE.glob("*.eml"):
        old.unlink()
    for name, raw in OUT.items():
        (HERE / name).write_bytes(raw)
    truth = {"files": FILES, "stories": STORIES}
    (HERE / "truth.json").write_text(json.dumps(truth, ensure_ascii=False, indent=1) + "\n")
    print(f"{len(OUT)} mails, {len(STORIES)} stories")


if __name__ == "__main__":
    main()
