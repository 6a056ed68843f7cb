"""Auto-replies (out of office, vacation) that newsletter-detect must call `automated`, and mail
that only looks like one, measured on cases written apart from the rules
(data/autoreplies/heldout, README.md there). A file named `lookalike-*` must not be automated;
every other file must be, with the reason named. The misses, with their reasons, are listed in
heldout/MISSES.md and must stay exactly those."""
import json
import pathlib
import subprocess

from conftest import need_shared, records, run

HELDOUT = pathlib.Path(__file__).parent / "data" / "autoreplies" / "heldout"
CASES = sorted(p.name for p in HELDOUT.glob("*.eml"))


def detect(*args, input=None):
    parsed = run("mime-parse", "--no-progress", *args, input=input)
    assert parsed.returncode == 0, parsed.stderr
    r = run("newsletter-detect", "--no-progress", input=parsed.stdout)
    assert r.returncode == 0, r.stderr
    return records(r.stdout)


def wrong(name, record):
    """Why a case's verdict is wrong, or None when it is right."""
    automated = record["mail_kind"] == "automated"
    if name.startswith("lookalike-"):
        return f"{name}: {record['mail_kind']} {record['newsletter_reasons']}" if automated else None
    if not automated:
        return f"{name}: {record['mail_kind']} {record['newsletter_reasons']}, not automated"
    if not record["newsletter_reasons"]:
        return f"{name}: automated without a reason"
    return None


def known_misses():
    """The lines of MISSES.md's Misses section that start with '- `case`'."""
    section = (HELDOUT / "MISSES.md").read_text().split("\n## Misses\n")[1].split("\n## ")[0]
    return sorted(line.split("`")[1] for line in section.splitlines() if line.startswith("- `"))


def test_heldout_autoreplies():
    out = detect(*(HELDOUT / name for name in CASES))
    assert [pathlib.Path(o["source"]["path"]).name for o in out] == CASES
    misses = [m for m in (wrong(name, o) for name, o in zip(CASES, out)) if m]
    lookalikes = sum(name.startswith("lookalike-") for name in CASES)
    assert len(CASES) - lookalikes >= 20 and lookalikes >= 8
    print(f"held-out auto-replies: {len(CASES) - len(misses)} of {len(CASES)} right "
          f"({len(CASES) - lookalikes} auto-replies, {lookalikes} look-alikes)")
    assert sorted(m.split(":")[0] for m in misses) == known_misses(), "\n".join(misses)


def test_misses_name_real_cases():
    assert set(known_misses()) <= set(CASES)


def test_generated_truth(tmp_path):
    """A generated mailbox (../shared/gen, 2,000 messages, a fifth of them receipts, bounces,
    auto-replies, drafts and bad dates): every auto-reply is automated, and no ordinary personal
    message (one to one, group, chat) is. Bounces and read receipts may be automated too."""
    mbox, truth = tmp_path / "r.mbox", tmp_path / "r.truth.jsonl"
    subprocess.run(["python3", str(need_shared("gen/gen_mbox.py")), "--messages", "2000", "--seed", "32",
                    "--reports-rate", "0.2", "--out", str(mbox), "--truth", str(truth)], check=True, capture_output=True)
    out = detect(mbox)
    truth = [json.loads(line) for line in truth.read_text().splitlines()]
    assert len(out) == len(truth)
    replies = [(t["subject"], o["mail_kind"], o["newsletter_reasons"]) for o, t in zip(out, truth) if t["auto_reply"]]
    assert len(replies) > 50
    assert [r for r in replies if r[1] != "automated" or not r[2]] == []
    personal = [(t["kind"], t["subject"], o["newsletter_reasons"]) for o, t in zip(out, truth)
                if t["kind"] in ("personal", "group", "chat") and not t["auto_reply"] and o["mail_kind"] == "automated"]
    assert personal == []
