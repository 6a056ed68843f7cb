"""gmail-sync against a stand-in for Gmail's API on 127.0.0.1 (gmail_standin.py): a first full
sync, then a script of changes (messages added, archived, read, deleted, moved back to the
inbox) synced from the history, an expired historyId, 429 and 5xx answers, pagination, and a
message that cannot be fetched. After each script the store equals a full sync of the final
state into a new database. Then what a hostile or broken server, or another local user, must not
get from gmail-sync: the token, a wait of hours, escapes on the terminal, requests for other
resources than the ones named. Then what Gmail does that the stand-in once did not (issue 44):
pages that shift under a full sync, history ids that go back, empty history pages, 403s with
each documented reason; a refresh token exchanged at a token endpoint and never shown; and
polling with --every, a pass with nothing to do costing one history.list."""
import fcntl
import json
import os
import pathlib
import re
import secrets
import signal
import sqlite3
import subprocess
import time
import urllib.parse
import urllib.request
import unicodedata

import pytest

from conftest import BIN, ROOT, SAMPLE, generate_mailbox, records, run
from gmail_standin import GmailStandIn

SYNC = BIN / "gmail-sync"
NOW = "2026-03-09T00:00:00Z"


def message(n, subject="Hello", reply_to=None, sender="alex@example.org"):
    headers = [f"From: Alex <{sender}>", "To: me@example.com", f"Subject: {subject}",
               f"Date: Mon, 2 Mar 2026 10:{n:02d}:00 +0000", f"Message-ID: <sync-{n}@example.org>"]
    if reply_to:
        headers += [f"In-Reply-To: <{reply_to}>", f"References: <{reply_to}>"]
    return ("\r\n".join(headers) + f"\r\n\r\nMessage number {n}.\r\n").encode()


@pytest.fixture
def gmail():
    with GmailStandIn.from_mbox(SAMPLE, page_size=7) as server:
        yield server


def start_sync(server, tmp_path, db, *args, token="test-token", api=None, **env):
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    environment = dict(os.environ, PATH=f"{BIN}:{os.environ['PATH']}", HOME=str(home), GMAIL_API=api or server.url,
                       GMAIL_TOKEN=token or "", GMAIL_SYNC_BACKOFF="0.01", **env)
    if token is None:
        del environment["GMAIL_TOKEN"]
    # a session of its own, so that a pass that overstays is killed with its sleep, curl or flock
    return subprocess.Popen([str(SYNC), "--store", str(db), *map(str, args), str(tmp_path / f"{db.stem}.jsonl")],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=environment, start_new_session=True)


def finish(process, timeout=300):
    try:
        stdout, stderr = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.communicate()
        pytest.fail(f"gmail-sync still ran after {timeout} s")
    return subprocess.CompletedProcess(process.args, process.returncode, stdout, stderr)


def sync(server, tmp_path, db, *args, timeout=300, **kw):
    return finish(start_sync(server, tmp_path, db, *args, **kw), timeout)


def synced(server, tmp_path, db, *args, **env):
    r = sync(server, tmp_path, db, *args, **env)
    assert r.returncode == 0, r.stderr.decode()
    return r


def state(db):
    """What a user sees of the store: the conversations, and each message's Gmail id and labels."""
    conversations = run("mailstore", "conversations", "--all", "--now", NOW, db)
    assert conversations.returncode == 0, conversations.stderr
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as con:
        messages = {gmail_id: sorted(json.loads(labels))
                    for gmail_id, labels in con.execute("SELECT gmail_id, labels FROM messages")}
    return conversations.stdout.decode(), messages


def history_id(db):
    return int(json.loads(run("mailstore", "config", db).stdout)["history_id"])


def assert_equals_full_sync(server, tmp_path, db):
    fresh = tmp_path / "fresh.db"
    synced(server, tmp_path, fresh)
    assert state(db) == state(fresh)
    assert set(state(db)[1]) == set(server.ids())
    for gmail_id, labels in state(db)[1].items():
        assert labels == sorted(server.labels(gmail_id)), gmail_id


def requests_to(server, path_part):
    return [r for r in server.requests if path_part in r["path"]]


def test_first_sync_lists_every_page_and_fetches_every_message(gmail, tmp_path):
    db = tmp_path / "mail.db"
    synced(gmail, tmp_path, db)
    assert set(state(db)[1]) == set(gmail.ids()) and len(gmail.ids()) == 19
    lists = requests_to(gmail, "/messages")
    assert sum(1 for r in lists if r["path"].endswith("/messages")) == 3  # 19 messages, pages of 7
    assert history_id(db) == gmail.history_id
    # the profile's address is the user's, remembered in the store
    assert json.loads(run("mailstore", "config", db).stdout)["me"] == ["me@example.com"]
    assert oct(db.stat().st_mode & 0o777) == "0o600"
    # nothing new: one history request, nothing fetched
    before = len(gmail.requests)
    synced(gmail, tmp_path, db)
    assert [r["path"].rsplit("/", 1)[1] for r in gmail.requests[before:]] == ["history"]


def test_a_script_of_changes_synced_from_the_history_equals_a_full_sync(gmail, tmp_path):
    db = tmp_path / "mail.db"
    synced(gmail, tmp_path, db)
    ids = gmail.ids()
    first = gmail.add_message(message(1, "Lunch?"))
    reply = gmail.add_message(message(2, "Re: Lunch?", reply_to="sync-1@example.org"))
    gmail.archive(ids[0])
    gmail.mark_read(ids[1])
    gmail.mark_unread(ids[2])
    gmail.delete(ids[3])
    gmail.archive(ids[4])
    gmail.move_to_inbox(ids[4])
    gmail.add_labels(first, "STARRED")
    gmail.mark_read(reply)
    gmail.delete(gmail.add_message(message(3, "gone before the sync")))
    synced(gmail, tmp_path, db)
    history = [r for r in requests_to(gmail, "/history") if r["status"] == 200]
    assert any("pageToken" in r["query"] for r in history)  # more changes than a page holds
    assert history_id(db) == gmail.history_id
    assert ids[3] not in state(db)[1]
    assert_equals_full_sync(gmail, tmp_path, db)
    # what reading writes and what search finds are the labels as they are now
    read = records(run("mailstore", "search", "--output", "messages", db, "*").stdout)
    assert {m["gmail_id"]: sorted(m["labels"]) for m in read} == {g: sorted(gmail.labels(g)) for g in gmail.ids()}
    for label in ("UNREAD", "INBOX", "STARRED"):
        found = records(run("mailstore", "search", "--output", "messages", db, f"label:{label}").stdout)
        assert {m["gmail_id"] for m in found} == {g for g in gmail.ids() if label in gmail.labels(g)}, label


def test_429_and_5xx_are_retried_with_backoff(gmail, tmp_path):
    db = tmp_path / "mail.db"
    gmail.fail_next(429, count=2, path_contains="/messages", retry_after=1)
    gmail.fail_next(503, count=1, path_contains="/profile")
    synced(gmail, tmp_path, db)
    statuses = [r["status"] for r in gmail.requests]
    assert statuses.count(429) == 2 and statuses.count(503) == 1
    gmail.add_message(message(4))
    gmail.fail_next(500, count=2, path_contains="/history")
    synced(gmail, tmp_path, db)
    assert_equals_full_sync(gmail, tmp_path, db)


def test_an_expired_history_makes_a_full_sync(gmail, tmp_path):
    db = tmp_path / "mail.db"
    synced(gmail, tmp_path, db)
    ids = gmail.ids()
    gmail.delete(ids[0])
    gmail.archive(ids[1])
    gmail.mark_read(ids[2])
    gmail.remove_labels(ids[3], *gmail.labels(ids[3]))  # Gmail then sends no labelIds at all
    gmail.add_message(message(5))
    gmail.expire_history()
    r = synced(gmail, tmp_path, db)
    assert b"a full sync" in r.stderr
    assert ids[0] not in state(db)[1] and state(db)[1][ids[3]] == []
    assert_equals_full_sync(gmail, tmp_path, db)


def test_a_message_that_cannot_be_fetched_is_fetched_by_the_next_pass(gmail, tmp_path):
    db = tmp_path / "mail.db"
    synced(gmail, tmp_path, db)
    stuck = gmail.add_message(message(6, "stuck"))
    after = gmail.add_message(message(7, "fine"))
    gmail.fail_next(500, count=2, path_contains=f"/messages/{stuck}")
    r = sync(gmail, tmp_path, db, GMAIL_SYNC_TRIES="2")
    assert r.returncode == 75, r.stderr.decode()
    assert b"1 messages could not be fetched" in r.stderr
    assert after in state(db)[1] and stuck not in state(db)[1]
    assert history_id(db) == gmail.history_id  # the history went on; the message waits in the store
    gmail.archive(stuck)  # changed before it was ever fetched
    synced(gmail, tmp_path, db)
    assert stuck in state(db)[1]
    log = (tmp_path / "mail.jsonl").read_text().splitlines()
    assert sum(1 for line in log if json.loads(line).get("gmail_id") == stuck) == 1
    assert_equals_full_sync(gmail, tmp_path, db)


def test_a_message_deleted_before_it_is_fetched_is_removed(gmail, tmp_path):
    db = tmp_path / "mail.db"
    synced(gmail, tmp_path, db)
    gone, kept = gmail.add_message(message(60)), gmail.add_message(message(61))
    gmail.fail_next(404, path_contains=f"/messages/{gone}")  # deleted between the history and messages.get
    synced(gmail, tmp_path, db)
    assert kept in state(db)[1] and gone not in state(db)[1]
    assert history_id(db) == gmail.history_id
    before = len(gmail.requests)
    synced(gmail, tmp_path, db)
    assert [r["path"].rsplit("/", 1)[1] for r in gmail.requests[before:]] == ["history"]  # nothing left pending


def test_a_refused_token_exits_77_and_a_token_command_is_asked_again(gmail, tmp_path):
    db = tmp_path / "mail.db"
    r = sync(gmail, tmp_path, db, token="wrong")
    assert r.returncode == 77 and b"gmail-sync: Gmail refused the token (401)" in r.stderr
    assert not db.exists() or not state(db)[1]
    r = sync(gmail, tmp_path, db, token="expired", GMAIL_TOKEN_COMMAND="echo test-token")
    assert r.returncode == 0, r.stderr.decode()
    assert set(state(db)[1]) == set(gmail.ids())


def test_an_unreachable_api_exits_75_and_keeps_the_store(gmail, tmp_path):
    db = tmp_path / "mail.db"
    synced(gmail, tmp_path, db)
    before = state(db)
    url = gmail.url
    gmail.stop()
    r = sync(gmail, tmp_path, db, api=url, GMAIL_SYNC_TRIES="2")
    assert r.returncode == 75, r.stderr.decode()
    assert state(db) == before


def test_the_pages_are_rendered_again_where_they_changed(gmail, tmp_path):
    db, site = tmp_path / "mail.db", tmp_path / "site"
    synced(gmail, tmp_path, db, "--site", site, "--zone", "UTC")
    assert (site / "index.html").exists()
    gmail.add_message(message(8, "A new chat from Robin", sender="robin@example.org"))
    synced(gmail, tmp_path, db, "--site", site, "--zone", "UTC")
    assert "Message number 8." in (site / "index.html").read_text()


def test_usage_and_a_missing_token(tmp_path):
    env = dict(os.environ, PATH=f"{BIN}:{os.environ['PATH']}", HOME=str(tmp_path))
    env.pop("GMAIL_TOKEN", None)
    env.pop("GMAIL_TOKEN_COMMAND", None)
    r = subprocess.run([str(SYNC), "--bogus"], capture_output=True, env=env)
    assert r.returncode == 64 and b"usage: gmail-sync" in r.stderr
    r = subprocess.run([str(SYNC)], capture_output=True, env=env)
    assert r.returncode == 64 and b"no token" in r.stderr


@pytest.mark.shared("gen/gen_mbox.py")
def test_a_generated_mailbox_synced_through_a_script_equals_a_full_sync(tmp_path):
    mbox, _ = generate_mailbox(tmp_path, 300, 11)
    with GmailStandIn.from_mbox(mbox, page_size=50) as gmail:
        db = tmp_path / "mail.db"
        synced(gmail, tmp_path, db)
        ids = gmail.ids()
        for k, gmail_id in enumerate(ids[:120]):
            [gmail.archive, gmail.mark_read, gmail.mark_unread, gmail.delete, gmail.move_to_inbox][k % 5](gmail_id)
        for n in range(20):
            gmail.add_message(message(10 + n, f"New {n}", reply_to="sync-10@example.org" if n else None))
        gmail.fail_next(429, count=1, path_contains="/history")
        synced(gmail, tmp_path, db)
        assert_equals_full_sync(gmail, tmp_path, db)


def command_lines():
    """Every process's command line now, as bytes (the processes that end meanwhile left out)."""
    lines = []
    for cmdline in pathlib.Path("/proc").glob("[0-9]*/cmdline"):
        try:
            lines.append(cmdline.read_bytes())
        except OSError:
            pass
    return lines


def test_the_token_is_on_no_command_line_and_in_no_message(tmp_path):
    token = f"ya29.secret-{secrets.token_hex(16)}"
    with GmailStandIn.from_mbox(SAMPLE, page_size=7, token=token) as gmail:
        gmail.delay = 0.1  # each curl lives long enough to be seen
        gmail.fail_next(503, count=2, path_contains="/messages/")
        db = tmp_path / "mail.db"
        process = start_sync(gmail, tmp_path, db, token=token)
        # gmail-sync sends its requests itself (libcurl, in its own process): no program it
        # starts, and not its own command line, carries the token
        leaks, seen = [], 0
        while process.poll() is None:
            for line in command_lines():
                leaks += [line] if token.encode() in line else []
                seen += line.startswith(str(SYNC).encode() + b"\0")
            time.sleep(0.01)
        r = finish(process)
        assert r.returncode == 0, r.stderr.decode()
        assert seen > 0  # the pass was seen running, and the token on no command line
        assert leaks == []
        assert token.encode() not in r.stderr + r.stdout
        refused = f"ya29.refused-{secrets.token_hex(16)}"
        r = sync(gmail, tmp_path, db, "--full", token=refused, GMAIL_TOKEN_COMMAND=f"echo {refused}")
        assert r.returncode == 77 and b"refused the token" in r.stderr
        assert refused.encode() not in r.stderr + r.stdout


@pytest.mark.parametrize("retry_after, max_wait", [(100000, None), (5, "2")])
def test_a_retry_after_beyond_the_longest_wait_gives_up_the_pass_at_once(gmail, tmp_path, retry_after, max_wait):
    db = tmp_path / "mail.db"
    env = {"GMAIL_SYNC_MAX_WAIT": max_wait} if max_wait else {}
    gmail.fail_next(429, path_contains="/profile", retry_after=retry_after)
    started = time.monotonic()
    r = sync(gmail, tmp_path, db, timeout=30, **env)
    assert r.returncode == 75, r.stderr.decode()
    assert time.monotonic() - started < 10
    assert f"Gmail asks to wait {retry_after} s, more than GMAIL_SYNC_MAX_WAIT".encode() in r.stderr
    assert len(gmail.requests) == 1
    # while messages are fetched: those fetched are stored, the rest is fetched by the next pass
    synced(gmail, tmp_path, db)
    added = [gmail.add_message(message(40 + n)) for n in range(3)]
    gmail.fail_next(429, path_contains=f"/messages/{added[1]}", retry_after=retry_after)
    started = time.monotonic()
    r = sync(gmail, tmp_path, db, timeout=30, **env)
    assert r.returncode == 75, r.stderr.decode()
    assert time.monotonic() - started < 10
    assert added[0] in state(db)[1] and added[1] not in state(db)[1]
    assert len(requests_to(gmail, f"/messages/{added[1]}")) == 1 and not requests_to(gmail, f"/messages/{added[2]}")
    synced(gmail, tmp_path, db, **env)
    assert_equals_full_sync(gmail, tmp_path, db)


def test_a_pass_waits_for_another_pass_s_lock_no_longer_than_the_longest_wait(gmail, tmp_path):
    db = tmp_path / "mail.db"
    with open(tmp_path / "mail.db.gmail-sync.lock", "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # as flock(1) and a pass hold it
        started = time.monotonic()
        r = sync(gmail, tmp_path, db, timeout=20, GMAIL_SYNC_MAX_WAIT="2")
        waited = time.monotonic() - started
    assert r.returncode == 75, r.stderr.decode()
    assert 2 <= waited < 10
    assert b"another pass has held" in r.stderr and b"mail.db.gmail-sync.lock" in r.stderr
    assert gmail.requests == [] and not db.exists()
    synced(gmail, tmp_path, db, GMAIL_SYNC_MAX_WAIT="2")  # the lock let go: the next pass syncs


HOSTILE = "Bad \x1b[31mred\x1b[0m \x1b]0;title\x07 \x9b2J \x7f\r\nend \x00\x85"


@pytest.mark.parametrize("status, kind, exit_status", [
    (400, None, 75), (401, None, 77), (403, ("PERMISSION_DENIED", "\x1b[2Jforbidden"), 77)])
def test_gmail_s_error_text_is_shown_without_control_characters(gmail, tmp_path, status, kind, exit_status):
    gmail.fail_next(status, path_contains="/profile", message=HOSTILE, kind=kind)
    r = sync(gmail, tmp_path, tmp_path / "mail.db")
    assert r.returncode == exit_status, r.stderr.decode()
    text = r.stderr.decode()
    assert "red" in text and "end" in text and (kind is None or "forbidden" in text)  # the message is shown
    assert b"\x1b" not in r.stderr
    assert [c for line in text.splitlines() for c in line if unicodedata.category(c) == "Cc"] == []


def test_message_ids_are_percent_encoded_into_one_path_segment(gmail, tmp_path):
    odd = ["../../profile?x=", "..", "a#b", "a/b", "a?format=minimal&b=", "a b", "%2e%2e%2fprofile", "a;b,c@d:e"]
    for n, gmail_id in enumerate(odd):
        gmail.add_message(message(50 + n), id=gmail_id)
    db = tmp_path / "mail.db"
    synced(gmail, tmp_path, db)
    resource = re.compile(r"^/gmail/v1/users/me/(profile|history|settings/sendAs|messages(/[^/]+)?)$")
    assert [r["raw_path"] for r in gmail.requests if not resource.match(r["raw_path"])] == []
    fetched = {r["path"].split("/messages/", 1)[1] for r in gmail.requests if "/messages/" in r["raw_path"]}
    assert set(odd) <= fetched
    assert all(r["status"] == 200 for r in gmail.requests)
    assert set(state(db)[1]) == set(gmail.ids())


@pytest.mark.parametrize("answer", [b"not JSON", [], "me@example.com", {"emailAddress": "me@example.com"},
                                    {"historyId": "1234"}, {"emailAddress": "me@example.com", "historyId": "soon"},
                                    {"emailAddress": ["me@example.com"], "historyId": "1234"}],
                         ids=["not-json", "array", "string", "no-history-id", "no-address", "bad-history-id", "address-list"])
def test_a_profile_that_is_not_what_the_api_documents_is_left_for_the_next_pass(gmail, tmp_path, answer):
    gmail.profile_answer = answer
    db = tmp_path / "mail.db"
    r = sync(gmail, tmp_path, db)
    assert r.returncode == 75, r.stderr.decode()
    assert b"Gmail's profile is not what its API documents" in r.stderr
    assert not requests_to(gmail, "/messages")
    assert not db.exists() or not state(db)[1]
    gmail.profile_answer = None
    synced(gmail, tmp_path, db)


# Faithful to Gmail, not to the stand-in (issue 44): what Gmail does that a client must survive

def listed_order(server):
    """The ids as messages.list gives them now, first page first."""
    ids, token = [], ""
    while True:
        request = urllib.request.Request(f"{server.url}/messages?maxResults=500&includeSpamTrash=true{token}",
                                         headers={"Authorization": f"Bearer {server.token}"})
        with urllib.request.urlopen(request) as answer:
            page = json.load(answer)
        server.requests.pop()  # not the client's
        ids += [m["id"] for m in page["messages"]]
        if "nextPageToken" not in page:
            return ids
        token = "&pageToken=" + urllib.parse.quote(page["nextPageToken"])


def test_a_full_sync_keeps_a_live_message_that_shifting_pages_left_out(gmail, tmp_path):
    db = tmp_path / "mail.db"
    synced(gmail, tmp_path, db)
    order = listed_order(gmail)
    deleted, skipped = order[0], order[7]  # pages of 7: page 2 starts one further once order[0] is gone
    gmail.after("/messages", lambda: gmail.delete(deleted))  # purged while the client reads page 1
    before = len(gmail.requests)
    r = synced(gmail, tmp_path, db, "--full")
    pages = [q["query"].get("pageToken") for q in gmail.requests[before:] if q["path"].endswith("/messages")]
    assert len(pages) == 3
    assert skipped in state(db)[1], "a live message no page listed was deleted"
    assert deleted not in state(db)[1]
    assert b"was deleted on Gmail" in r.stderr  # messages.get answered 404 for it: said
    assert_equals_full_sync(gmail, tmp_path, db)
    # and the pass after that has nothing left to do
    before = len(gmail.requests)
    synced(gmail, tmp_path, db)
    assert [q["path"].rsplit("/", 1)[1] for q in gmail.requests[before:]] == ["history"]


def test_history_ids_that_go_back_cost_one_full_sync_and_lose_nothing(gmail, tmp_path):
    db = tmp_path / "mail.db"
    synced(gmail, tmp_path, db)
    stored = history_id(db)
    gmail.rewind_history(by=500)
    added = gmail.add_message(message(70, "after the ids went back"))
    assert gmail.history_id < stored
    r = synced(gmail, tmp_path, db)
    assert b"history ids went back" in r.stderr
    assert added in state(db)[1]
    assert history_id(db) == gmail.history_id  # the profile's, lower than the one stored before
    # then history syncs again, each from where the last one stopped
    later = gmail.add_message(message(71, "later"))
    gmail.archive(added)
    before = len(gmail.requests)
    synced(gmail, tmp_path, db)
    assert [q["path"].rsplit("/", 1)[1] for q in gmail.requests[before:]] == ["history", later]
    assert_equals_full_sync(gmail, tmp_path, db)


def test_history_pages_with_a_next_page_token_and_no_history_are_followed(gmail, tmp_path):
    db = tmp_path / "mail.db"
    synced(gmail, tmp_path, db)
    gmail.empty_history_pages = True
    ids = gmail.ids()
    added = [gmail.add_message(message(72 + n)) for n in range(9)]  # 16 records: pages of 7
    for gmail_id in added[:3]:
        gmail.mark_read(gmail_id)
    gmail.delete(ids[9])
    gmail.archive(ids[10])
    gmail.add_labels(ids[11], "STARRED")
    before = len(gmail.requests)
    synced(gmail, tmp_path, db)
    history = [q for q in gmail.requests[before:] if q["path"].endswith("/history")]
    assert len(history) >= 4  # an empty page before each page with history
    assert_equals_full_sync(gmail, tmp_path, db)


@pytest.mark.parametrize("reason, exit_status", [
    ("rateLimitExceeded", 0), ("userRateLimitExceeded", 0),  # rate limits: tried again
    ("dailyLimitExceeded", 75),  # the day's quota: temporary, for a pass after it is renewed
    ("domainPolicy", 77), ("insufficientPermissions", 77),  # refusals no retry changes
])
def test_403s_with_each_documented_reason(gmail, tmp_path, reason, exit_status):
    db = tmp_path / "mail.db"
    gmail.fail_next(403, count=2, path_contains="/profile", reason=reason)
    r = sync(gmail, tmp_path, db)
    assert r.returncode == exit_status, r.stderr.decode()
    profile_requests = len(requests_to(gmail, "/profile"))
    if exit_status == 0:
        assert profile_requests == 3 and set(state(db)[1]) == set(gmail.ids())
    else:
        assert profile_requests == 1 and not requests_to(gmail, "/messages")
        assert reason.encode() in r.stderr


# OAuth: a refresh token kept in a file of the user's alone, exchanged at the token endpoint

def credentials(server, tmp_path, mode=0o600, refresh=None, secret=None):
    """A refresh token with its client, known to the stand-in's token endpoint, in a
    credentials file as Google's tools write them ("authorized_user"). The file, the secrets."""
    client_id = "1234-standin.apps.googleusercontent.com"
    refresh = refresh or f"1//refresh-{secrets.token_hex(16)}"
    secret = secret or f"GOCSPX-{secrets.token_hex(12)}"
    server.add_client(client_id, secret, refresh)
    path = tmp_path / "gmail-credentials.json"
    path.write_text(json.dumps({"type": "authorized_user", "client_id": client_id, "client_secret": secret,
                                "refresh_token": refresh}))
    path.chmod(mode)
    return path, [refresh.encode(), secret.encode()]


def oauth_env(server, path):
    return {"GMAIL_CREDENTIALS": str(path), "GMAIL_TOKEN_URI": server.token_url}


def test_a_refresh_token_is_exchanged_and_never_shown(gmail, tmp_path):
    gmail.token = f"ya29.standin-{secrets.token_hex(16)}"
    path, secret_values = credentials(gmail, tmp_path)
    db = tmp_path / "mail.db"
    gmail.delay = 0.02
    process = start_sync(gmail, tmp_path, db, token=None, **oauth_env(gmail, path))
    leaks = []
    while process.poll() is None:
        leaks += [line for line in command_lines() for s in secret_values + [gmail.token.encode()] if s in line]
        time.sleep(0.01)
    r = finish(process)
    assert r.returncode == 0, r.stderr.decode()
    assert leaks == []
    assert set(state(db)[1]) == set(gmail.ids())
    assert [t["status"] for t in gmail.token_requests] == [200]
    assert gmail.token_requests[0]["form"]["grant_type"] == ["refresh_token"]
    # the access token lasts an hour: it expires part-way through a pass, Gmail answers 401, and
    # the refresh token is exchanged again, once
    gmail.add_message(message(80))
    gmail.add_message(message(81))
    gmail.after("/history", gmail.expire_token)
    r = synced(gmail, tmp_path, db, token=None, **oauth_env(gmail, path))
    assert [t["status"] for t in gmail.token_requests] == [200, 200, 200]
    assert [q["status"] for q in gmail.requests].count(401) == 1
    assert set(state(db)[1]) == set(gmail.ids())
    # no secret in what it wrote: messages, the journal, the database
    written = r.stdout + r.stderr + (tmp_path / "mail.jsonl").read_bytes() + db.read_bytes()
    assert [s for s in secret_values if s in written] == []


def test_a_credentials_file_others_can_read_is_refused(gmail, tmp_path):
    path, secret_values = credentials(gmail, tmp_path, mode=0o644)
    db = tmp_path / "mail.db"
    r = sync(gmail, tmp_path, db, token=None, **oauth_env(gmail, path))
    assert r.returncode == 77, r.stderr.decode()
    assert b"others can read the refresh token" in r.stderr and b"chmod 600" in r.stderr
    assert gmail.requests == [] and gmail.token_requests == []
    assert [s for s in secret_values if s in r.stderr] == []


def test_a_refused_refresh_token_exits_77_without_showing_it(gmail, tmp_path):
    path, secret_values = credentials(gmail, tmp_path)
    gmail.refresh_tokens.clear()  # revoked
    db = tmp_path / "mail.db"
    r = sync(gmail, tmp_path, db, token=None, **oauth_env(gmail, path))
    assert r.returncode == 77, r.stderr.decode()
    assert b"refused the refresh token (400 invalid_grant" in r.stderr
    assert gmail.requests == []
    assert [s for s in secret_values if s in r.stderr + r.stdout] == []
    # an endpoint that echoes the token in its error: shown with the token taken out
    gmail.echo_refused_grant = True
    r = sync(gmail, tmp_path, db, token=None, **oauth_env(gmail, path))
    assert r.returncode == 77 and b"expired or revoked. ([token])" in r.stderr, r.stderr
    assert [s for s in secret_values if s in r.stderr + r.stdout] == []
    # a token endpoint that cannot be reached is temporary
    r = sync(gmail, tmp_path, db, token=None, GMAIL_SYNC_TRIES="2", GMAIL_CREDENTIALS=str(path),
             GMAIL_TOKEN_URI="http://127.0.0.1:9/token")
    assert r.returncode == 75, r.stderr.decode()


# Polling: --every, as the chat clients poll

def test_every_polls_until_sigterm_and_a_pass_with_nothing_to_do_costs_one_history_list(gmail, tmp_path):
    db = tmp_path / "mail.db"
    synced(gmail, tmp_path, db)
    before = len(gmail.requests)
    process = start_sync(gmail, tmp_path, db, "--every", "0.2")

    def wait_for(condition, what):
        deadline = time.monotonic() + 60
        while not condition():
            assert process.poll() is None, finish(process).stderr.decode()
            assert time.monotonic() < deadline, f"still waiting for {what}"
            time.sleep(0.05)

    paths = lambda: [q["path"].rsplit("/", 1)[1] for q in gmail.requests[before:]]
    wait_for(lambda: paths().count("history") >= 3, "three passes")
    added = gmail.add_message(message(90, "while polling"))
    wait_for(lambda: added in state(db)[1], "the new message in the store")
    passes = paths().count("history")
    wait_for(lambda: paths().count("history") >= passes + 2, "two more passes")
    process.send_signal(signal.SIGTERM)
    r = finish(process, timeout=30)
    assert r.returncode == 0, r.stderr.decode()
    # every pass one history.list, and the one with a new message its messages.get too
    assert set(paths()) == {"history", added} and paths().count(added) == 1
    assert_equals_full_sync(gmail, tmp_path, db)


def test_sigterm_during_a_pass_ends_the_polling_once_the_pass_is_done(gmail, tmp_path):
    db = tmp_path / "mail.db"
    gmail.delay = 0.05  # a first sync of 19 messages: over a second
    process = start_sync(gmail, tmp_path, db, "--every", "60")
    deadline = time.monotonic() + 60
    while not requests_to(gmail, "/messages/"):
        assert process.poll() is None and time.monotonic() < deadline
        time.sleep(0.01)
    process.send_signal(signal.SIGTERM)  # part-way through the fetches
    r = finish(process, timeout=60)
    assert r.returncode == 0, r.stderr.decode()
    assert set(state(db)[1]) == set(gmail.ids())  # the pass was finished, not cut
    assert len(requests_to(gmail, "/history")) == 0  # and no second pass began


def test_every_takes_a_number_of_seconds(tmp_path):
    env = dict(os.environ, HOME=str(tmp_path), GMAIL_TOKEN="x")
    for bad in ("0", "-1", "soon", "100000"):
        r = subprocess.run([str(SYNC), "--every", bad], capture_output=True, env=env)
        assert r.returncode == 64 and b"usage: gmail-sync" in r.stderr, (bad, r.stderr)
