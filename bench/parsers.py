#!/usr/bin/env python3
"""The Python side of bench/mime-parse.sh: parse every message of an mbox with one parser and
do the work mime-parse does (addresses, subject, date, text and HTML bodies, every attachment
decoded). Prints the message count.

    parsers.py default|compat32|fast-mail-parser MBOX
"""
import email
import email.policy
import re
import sys



def messages(path):
    """Streams an mbox message by message (mboxrd quoting undone), without the mailbox
    module's extra cost, so that the parsers are what is measured and memory stays flat."""
    lines = []
    with open(path, "rb") as f:
        for line in f:
            if line.startswith(b"From ") and (not lines or lines[-1] in (b"\n", b"\r\n")):
                if lines:
                    yield unquote(b"".join(lines))
                lines = []
                continue
            lines.append(line)
    if lines:
        yield unquote(b"".join(lines))


def unquote(message):
    return re.sub(rb"(?m)^>(>*From )", rb"\1", message)


def with_default(raw):
    msg = email.message_from_bytes(raw, policy=email.policy.default)
    for name in ("from", "to", "cc", "subject", "date", "message-id"):
        str(msg.get(name, ""))
    for kind in ("plain", "html"):
        part = msg.get_body(preferencelist=(kind,))
        if part is not None:
            part.get_content()
    for att in msg.iter_attachments():
        try:
            len(att.get_content())
        except Exception:  # noqa: BLE001 - broken parts are skipped, as a reader would
            pass


def with_compat32(raw):
    msg = email.message_from_bytes(raw)
    for name in ("from", "to", "cc", "subject", "date", "message-id"):
        str(email.header.make_header(email.header.decode_header(msg.get(name, ""))))
    for part in msg.walk():
        if not part.is_multipart():
            payload = part.get_payload(decode=True) or b""
            if part.get_content_maintype() == "text":
                payload.decode(part.get_content_charset() or "ascii", "replace")


def with_fast_mail_parser(raw):
    import fast_mail_parser
    try:
        m = fast_mail_parser.parse_email(raw)
        m.subject, m.text_plain, m.text_html
        for a in m.attachments:
            len(a.content)
    except Exception:  # noqa: BLE001
        pass


if __name__ == "__main__":
    import email.header  # noqa: F401
    parse = {"default": with_default, "compat32": with_compat32, "fast-mail-parser": with_fast_mail_parser}[sys.argv[1]]
    n = 0
    for raw in messages(sys.argv[2]):
        parse(raw)
        n += 1
    print(n)
