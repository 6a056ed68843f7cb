"""Classes 7 (who "me" is, learned late) and 8 (Gmail address folding): small mailboxes, each
with the conversations it must make and the exact commands the scorer runs on it."""

NOW = "2026-12-01T00:00:00Z"
STAGES = "$(mailstore stages | paste -sd'|')"  # the per-message stages, in the store's order


def msg(frm, to, subject, date, mid, body, cc=None, extra=()):
    lines = list(extra) + [f"From: {frm}", f"To: {to}"]
    if cc:
        lines.append(f"Cc: {cc}")
    lines += [f"Subject: {subject}", f"Date: {date}", f"Message-ID: <{mid}>", "MIME-Version: 1.0",
              "Content-Type: text/plain; charset=UTF-8", "Content-Transfer-Encoding: 7bit", "", body, ""]
    return "\n".join(lines)


def commands(mode, files, me_args):
    fs = " ".join(files)
    if mode == "deliver":
        return [f"for f in {fs}; do mailstore deliver -q {me_args} DB < $f; done",
                f"mailstore conversations --all --now {NOW} DB"]
    if mode == "add_each":
        return [f"for f in {fs}; do mime-parse --no-progress $f | {STAGES} | mailstore add -q {me_args} DB; done",
                f"mailstore conversations --all --now {NOW} DB"]
    if mode == "store":
        return [f"mime-parse --no-progress {fs} | {STAGES} | mailstore add -q {me_args} DB",
                f"mailstore conversations --all --now {NOW} DB"]
    if mode == "store_plain":
        return [f"mime-parse --no-progress {fs} | {STAGES} | mailstore add -q {me_args} DB",
                "mailstore config --plain-addresses DB",
                f"mailstore conversations --all --now {NOW} DB"]
    assert mode == "batch"
    return [f"mime-parse --no-progress {fs} | {STAGES} | participant-hash {me_args} | conversation-group --now {NOW}"]


def add_people(ctx):
    write, case = ctx["write"], ctx["case"]

    # ---- class 7: me learned late ------------------------------------------------------------
    # Mailbox A: the first mail (fetched by a tool that writes no Delivered-To) is from Ines;
    # the next ones carry Delivered-To: robin.ashby@example.net.
    me = "robin.ashby@example.net"
    a = [
        write("me_late/a/1-ines-no-delivered-to.eml", msg(
            "Ines Carvalho <ines.carvalho@example.org>", f"Robin Ashby <{me}>", "Lunch on Wednesday?",
            "Mon, 23 Nov 2026 09:00:00 +0000", "hx47-me-a1@example.org",
            "Hi Robin, lunch on Wednesday at the Portuguese place? Ines",
            extra=["Return-Path: <ines.carvalho@example.org>"])),
        write("me_late/a/2-ines-delivered.eml", msg(
            "Ines Carvalho <ines.carvalho@example.org>", f"Robin Ashby <{me}>", "Re: Lunch on Wednesday?",
            "Tue, 24 Nov 2026 10:00:00 +0000", "hx47-me-a2@example.org",
            "Let's say 12:30 then. Ines",
            extra=["Return-Path: <ines.carvalho@example.org>", f"Delivered-To: {me}",
                   "In-Reply-To: <hx47-me-a1@example.org>"])),
        write("me_late/a/3-marc-delivered.eml", msg(
            "Marc Duval <marc.duval@example.fr>", me, "Slides for Friday",
            "Wed, 25 Nov 2026 11:00:00 +0000", "hx47-me-a3@example.fr",
            "Robin, the slides are in the team folder. Marc",
            extra=["Return-Path: <marc.duval@example.fr>", f"Delivered-To: {me}"])),
    ]
    want_a = {"conversations": [
        {"messages": ["hx47-me-a1@example.org", "hx47-me-a2@example.org"], "participants": ["ines.carvalho@example.org"]},
        {"messages": ["hx47-me-a3@example.fr"], "participants": ["marc.duval@example.fr"]}],
        "me_in_no_conversation": [me]}
    for mode, form in (("deliver", "mailstore deliver --me-auto, one message at a time (the live path)"),
                       ("add_each", "mailstore add --me-auto, one message per load"),
                       ("batch", "participant-hash --me-auto on the whole mailbox")):
        case("me_late", f"a-{mode}", a, want_a, f"Mailbox A (first mail has no Delivered-To): {form}",
             mode=mode, me_args="--me-auto", commands=commands(mode, a, "--me-auto"))

    # Mailbox B: a group mail first (no Delivered-To), then X-Original-To reveals me.
    me = "lou.ferrand@example.org"
    b = [
        write("me_late/b/1-group-no-delivered-to.eml", msg(
            "Ana Lima <ana.lima@example.com>", f"Lou Ferrand <{me}>, Ben Okafor <ben.okafor@example.net>",
            "Sharing the van to the climbing gym", "Tue, 24 Nov 2026 18:00:00 +0000", "hx47-me-b1@example.com",
            "Shall we share the van on Saturday? I can drive. Ana")),
        write("me_late/b/2-group-x-original-to.eml", msg(
            "Ben Okafor <ben.okafor@example.net>", f"Ana Lima <ana.lima@example.com>, {me}",
            "Re: Sharing the van to the climbing gym", "Tue, 24 Nov 2026 19:30:00 +0000", "hx47-me-b2@example.net",
            "Count me in, I'll bring the ropes. Ben",
            extra=[f"X-Original-To: {me}", f"Delivered-To: lou@mailhost.example.org",
                   "In-Reply-To: <hx47-me-b1@example.com>"])),
        write("me_late/b/3-ana-alone.eml", msg(
            "Ana Lima <ana.lima@example.com>", me, "Your chalk bag",
            "Wed, 25 Nov 2026 08:00:00 +0000", "hx47-me-b3@example.com",
            "You left your chalk bag in my car. Ana",
            extra=[f"X-Original-To: {me}", "Delivered-To: lou@mailhost.example.org"])),
    ]
    want_b = {"conversations": [
        {"messages": ["hx47-me-b1@example.com", "hx47-me-b2@example.net"],
         "participants": ["ana.lima@example.com", "ben.okafor@example.net"]},
        {"messages": ["hx47-me-b3@example.com"], "participants": ["ana.lima@example.com"]}],
        "me_in_no_conversation": [me]}
    for mode in ("deliver", "add_each"):
        case("me_late", f"b-{mode}", b, want_b,
             f"Mailbox B (a group mail first, then X-Original-To names me): {mode}",
             mode=mode, me_args="--me-auto", commands=commands(mode, b, "--me-auto"))

    # Mailbox C: the first mail has no Delivered-To; my own sent reply (Takeout-style
    # X-Gmail-Labels: Sent) reveals me by its From.
    me = "noor.haddad@example.com"
    c = [
        write("me_late/c/1-yusuf-no-delivered-to.eml", msg(
            "Yusuf Demir <yusuf.demir@example.net>", f"Noor Haddad <{me}>", "Bike repair",
            "Thu, 26 Nov 2026 17:00:00 +0000", "hx47-me-c1@example.net",
            "Your bike is ready, the new chain is on. Yusuf",
            extra=["X-Gmail-Labels: Inbox,Unread"])),
        write("me_late/c/2-my-sent-reply.eml", msg(
            f"Noor Haddad <{me}>", "Yusuf Demir <yusuf.demir@example.net>", "Re: Bike repair",
            "Thu, 26 Nov 2026 17:20:00 +0000", "hx47-me-c2@example.com",
            "Thanks! I'll pick it up tomorrow after work. Noor",
            extra=["X-Gmail-Labels: Sent", "In-Reply-To: <hx47-me-c1@example.net>"])),
    ]
    want_c = {"conversations": [
        {"messages": ["hx47-me-c1@example.net", "hx47-me-c2@example.com"], "participants": ["yusuf.demir@example.net"]}],
        "me_in_no_conversation": [me]}
    case("me_late", "c-deliver", c, want_c, "Mailbox C (my sent reply, labelled Sent, comes second): mailstore deliver --me-auto",
         mode="deliver", me_args="--me-auto", commands=commands("deliver", c, "--me-auto"))

    # ---- class 8: Gmail address folding ------------------------------------------------------
    me = "kit.morrow@example.net"
    g = [
        write("gmail/g/1-alex-gmail-dots.eml", msg(
            "Alex Rivera <alex.rivera@gmail.com>", me, "Climbing wall on Sunday",
            "Mon, 23 Nov 2026 08:00:00 +0000", "hx47-gm-g1@mail.gmail.com", "Wall on Sunday at 10? Alex")),
        write("gmail/g/2-alex-googlemail-tag.eml", msg(
            "Alex Rivera <AlexRivera+news@googlemail.com>", me, "Re: Climbing wall on Sunday",
            "Mon, 23 Nov 2026 09:00:00 +0000", "hx47-gm-g2@mail.gmail.com", "Writing from my other alias. Alex")),
        write("gmail/g/3-alex-googlemail-plain.eml", msg(
            "Alex <alexrivera@googlemail.com>", me, "Shoes",
            "Tue, 24 Nov 2026 09:00:00 +0000", "hx47-gm-g3@mail.gmail.com", "Can I borrow your spare shoes? Alex")),
        write("gmail/g/4-other-domain-dotted.eml", msg(
            "Alex Rivera <alex.rivera@example.com>", me, "Invoice question",
            "Tue, 24 Nov 2026 10:00:00 +0000", "hx47-gm-g4@example.com", "A question about invoice 2026-117.")),
        write("gmail/g/5-other-domain-undotted.eml", msg(
            "A. Rivera <alexrivera@example.com>", me, "Parcel for you",
            "Tue, 24 Nov 2026 11:00:00 +0000", "hx47-gm-g5@example.com", "I have a parcel for you at reception.")),
        write("gmail/g/6-other-domain-plus.eml", msg(
            "Sam Ortiz <sam+shop@example.org>", me, "Order 5531",
            "Wed, 25 Nov 2026 09:00:00 +0000", "hx47-gm-g6@example.org", "Your order 5531 is packed.")),
        write("gmail/g/7-other-domain-plain.eml", msg(
            "Sam Ortiz <sam@example.org>", me, "Dinner",
            "Wed, 25 Nov 2026 19:00:00 +0000", "hx47-gm-g7@example.org", "Dinner at ours on Friday?")),
    ]
    folded = {"conversations": [
        {"messages": ["hx47-gm-g1@mail.gmail.com", "hx47-gm-g2@mail.gmail.com", "hx47-gm-g3@mail.gmail.com"]},
        {"messages": ["hx47-gm-g4@example.com"], "participants": ["alex.rivera@example.com"]},
        {"messages": ["hx47-gm-g5@example.com"], "participants": ["alexrivera@example.com"]},
        {"messages": ["hx47-gm-g6@example.org"], "participants": ["sam+shop@example.org"]},
        {"messages": ["hx47-gm-g7@example.org"], "participants": ["sam@example.org"]}]}
    plain = {"conversations": [
        {"messages": ["hx47-gm-g1@mail.gmail.com"], "participants": ["alex.rivera@gmail.com"]},
        {"messages": ["hx47-gm-g2@mail.gmail.com"]},
        {"messages": ["hx47-gm-g3@mail.gmail.com"], "participants": ["alexrivera@googlemail.com"]},
        {"messages": ["hx47-gm-g4@example.com"], "participants": ["alex.rivera@example.com"]}]}
    me_args = f"--me {me}"
    case("gmail_folding", "g-batch-default", g, folded,
         "gmail.com dots, googlemail.com and +tags fold by default (participant-hash); other domains' dots and +tags do not",
         mode="batch", me_args=me_args, commands=commands("batch", g, me_args))
    case("gmail_folding", "g-store-default", g, folded, "The same mailbox in the store (mailstore add, default address rules)",
         mode="store", me_args=me_args, commands=commands("store", g, me_args))
    case("gmail_folding", "g-batch-way-out", g, plain, "The way out: participant-hash --no-gmail-canonical keeps every spelling apart",
         mode="batch", me_args=f"--no-gmail-canonical {me_args}",
         commands=commands("batch", g, f"--no-gmail-canonical {me_args}"))
    case("gmail_folding", "g-store-way-out", g, plain, "The way out in the store: mailstore config --plain-addresses",
         mode="store_plain", me_args=me_args, commands=commands("store_plain", g, me_args))

    # Mailbox H: I am a Gmail user; mail to my dotted, +tagged and googlemail spellings is mine.
    me = "jordan.lee@gmail.com"
    h = [
        write("gmail/h/1-to-plus-tag.eml", msg(
            "Bob Achebe <bob.achebe@example.org>", "jordanlee+bills@gmail.com", "Your share of the electricity",
            "Mon, 23 Nov 2026 08:30:00 +0000", "hx47-gm-h1@example.org", "Your share this quarter is 61.20.")),
        write("gmail/h/2-to-googlemail.eml", msg(
            "Bob Achebe <bob.achebe@example.org>", "Jordan Lee <Jordan.Lee@googlemail.com>", "Keys",
            "Tue, 24 Nov 2026 08:30:00 +0000", "hx47-gm-h2@example.org", "I left the keys under the mat.")),
        write("gmail/h/3-group-with-carla.eml", msg(
            "Bob Achebe <bob.achebe@example.org>", f"Jordan Lee <{me}>", "House meeting",
            "Wed, 25 Nov 2026 08:30:00 +0000", "hx47-gm-h3@example.org", "House meeting on Sunday at 6.",
            cc="Carla Rossi <carla.rossi@example.org>")),
        write("gmail/h/4-my-sent-undotted.eml", msg(
            "Jordan Lee <jordanlee@gmail.com>", "Bob Achebe <bob.achebe@example.org>", "Re: Your share of the electricity",
            "Wed, 25 Nov 2026 12:00:00 +0000", "hx47-gm-h4@mail.gmail.com", "Paid, thanks Bob.",
            extra=["X-Gmail-Labels: Sent"])),
    ]
    want_h = {"conversations": [
        {"messages": ["hx47-gm-h1@example.org", "hx47-gm-h2@example.org", "hx47-gm-h4@mail.gmail.com"],
         "participants": ["bob.achebe@example.org"]},
        {"messages": ["hx47-gm-h3@example.org"], "participants": ["bob.achebe@example.org", "carla.rossi@example.org"]}]}
    me_args = f"--me {me}"
    case("gmail_folding", "h-batch-me-is-gmail", h, want_h,
         "My own Gmail spellings (+tag, googlemail.com, no dots) are me by default (participant-hash)",
         mode="batch", me_args=me_args, commands=commands("batch", h, me_args))
    case("gmail_folding", "h-store-me-is-gmail", h, want_h, "The same in the store (mailstore add --me)",
         mode="store", me_args=me_args, commands=commands("store", h, me_args))
