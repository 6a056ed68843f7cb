"""Every real message in ../shared/corpus: parsed without a crash, one line per message,
defects named where the message is broken."""
import json
import mailbox
import subprocess

import pytest

from conftest import BIN, CORPUS, ENV, shared_params

pytestmark = pytest.mark.shared("corpus")

NOT_MAIL = {".json", ".xml", ".html", ".pdf", ".jpg", ".tnef", ".list", ".dat"}


def message_files():
    return sorted(p for p in CORPUS.rglob("*") if p.is_file() and p.suffix not in NOT_MAIL)


def expected_count(path):
    """Python's mailbox.mbox splits at every 'From ' line; use it only for real mboxes."""
    data = path.read_bytes()
    if not data.lstrip(b"\xef\xbb\xbf\r\n").startswith(b"From "):
        return 1
    return None


def test_the_corpus_is_there():
    assert len(message_files()) > 550


@pytest.mark.parametrize("path", shared_params("corpus", message_files), ids=lambda p: str(p.relative_to(CORPUS)))
def test_parses_without_crash(path):
    r = subprocess.run([str(BIN / "mime-parse"), str(path)], capture_output=True, timeout=60, env=ENV)
    if not path.read_bytes().strip():  # talon's empty fixtures: no message, said so
        assert (r.returncode, r.stdout) == (65, b"") and r.stderr.endswith(b": empty input, no message\n")
        return
    assert r.returncode == 0, r.stderr.decode(errors="replace")
    lines = r.stdout.decode().splitlines()
    assert lines, "no record"
    recs = [json.loads(line) for line in lines]
    count = expected_count(path)
    if count is not None:
        assert len(recs) == count
    for rec in recs:
        assert isinstance(rec["defects"], list)
        assert rec["source"]["path"] == str(path)


MBOX_COUNTS = {  # messages per mbox, as MimeKit's own summaries list them
    "mimekit/mbox/simple.mbox.txt": 3,
    "mimekit/mbox/unmunged.mbox.txt": 2,  # "From Russia with love" is body text
    "mimekit/mbox/issue1189.mbox.txt": 4,
    "mimekit/mbox/content-length.mbox.txt": 29,
    "cpython-test_mailbox/dummy_message.mbox": 1,
}


@pytest.mark.parametrize("name,count", MBOX_COUNTS.items())
def test_mbox_message_counts(name, count):
    r = subprocess.run([str(BIN / "mime-parse"), str(CORPUS / name)], capture_output=True, timeout=60, env=ENV)
    assert len(r.stdout.decode().splitlines()) == count


def test_broken_messages_have_defects():
    broken = CORPUS / "mime4j" / "mimetools-testmsgs" / "multi-frag.msg"
    r = subprocess.run([str(BIN / "mime-parse"), str(broken)], capture_output=True, timeout=60, env=ENV)
    assert json.loads(r.stdout)["defects"]
