"""fetchmail (Debian's) pulling mail from a real Dovecot IMAP and POP3 server started on
127.0.0.1, with the example rc file of pipelines/fetchmailrc and mailpipe-log as its mda: every
message fetched becomes one JSON line in the log, none is lost, a second run adds none, new mail
adds only itself, and a hook that fails (exit 75) leaves the mail to be fetched again."""
import grp
import json
import os
import pwd
import re
import shutil
import socket
import stat
import subprocess
import tempfile
import time

import pytest

from conftest import BIN, ENV, ROOT, SAMPLE, records, run

DOVECOT = shutil.which("dovecot") or shutil.which("dovecot", path="/usr/sbin")
FETCHMAIL = shutil.which("fetchmail")
pytestmark = pytest.mark.skipif((DOVECOT is None or FETCHMAIL is None) and not os.environ.get("CI"),
                                reason="fetchmail and dovecot are not installed (scripts/install-deps --test)")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def sample_messages():
    """The sample mailbox's messages, without their From_ lines, and their Message-IDs."""
    raw = re.split(rb"\n(?=From \S+ )", SAMPLE.read_bytes())
    messages = [m.split(b"\n", 1)[1] for m in raw]
    ids = [r["message_id"] for r in records(run("mime-parse", SAMPLE).stdout)]
    assert len(messages) == len(ids) == 19 and len(set(ids)) == 19
    return messages, ids


class Dovecot:
    """A throwaway Dovecot serving one maildir over IMAP and POP3, any user, password "secret".
    As root, Dovecot will not run its login and mail processes as root: they run as the
    package's dovenull and dovecot users, which then own the maildir. As anyone else, every
    process runs as that user, without chroot."""

    def __init__(self):
        self.dir = tempfile.mkdtemp(prefix="mailpipe-dovecot-", dir="/tmp")
        os.chmod(self.dir, 0o755)
        self.maildir = os.path.join(self.dir, "Maildir")
        for sub in ("cur", "new", "tmp"):
            os.makedirs(os.path.join(self.maildir, sub))
        os.makedirs(os.path.join(self.dir, "home"))
        if os.getuid() == 0:
            mail = pwd.getpwnam("dovecot")
            internal, login = "dovecot", "dovenull"
        else:
            mail = pwd.getpwuid(os.getuid())
            internal = login = mail.pw_name
        self.uid, self.gid = mail.pw_uid, mail.pw_gid
        self.chown(self.maildir)
        self.chown(os.path.join(self.dir, "home"))
        self.ports = {"IMAP": free_port(), "POP3": free_port()}
        conf = os.path.join(self.dir, "dovecot.conf")
        with open(conf, "w") as f:
            f.write(f"""protocols = imap pop3
listen = 127.0.0.1
base_dir = {self.dir}/run
state_dir = {self.dir}/state
log_path = {self.dir}/dovecot.log
ssl = no
disable_plaintext_auth = no
default_internal_user = {internal}
default_internal_group = {grp.getgrgid(pwd.getpwnam(internal).pw_gid).gr_name}
default_login_user = {login}
first_valid_uid = {self.uid}
mail_location = maildir:{self.maildir}
passdb {{
  driver = static
  args = password=secret
}}
userdb {{
  driver = static
  args = uid={self.uid} gid={self.gid} home={self.dir}/home
}}
service anvil {{
  chroot =
}}
service imap-login {{
  chroot =
  inet_listener imap {{
    port = {self.ports['IMAP']}
  }}
  inet_listener imaps {{
    port = 0
  }}
}}
service pop3-login {{
  chroot =
  inet_listener pop3 {{
    port = {self.ports['POP3']}
  }}
  inet_listener pop3s {{
    port = 0
  }}
}}
""")
        self.process = subprocess.Popen([DOVECOT, "-F", "-c", conf], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        deadline = time.monotonic() + 15
        for port in self.ports.values():
            while True:
                try:
                    socket.create_connection(("127.0.0.1", port), timeout=1).close()
                    break
                except OSError:
                    if self.process.poll() is not None or time.monotonic() > deadline:
                        self.stop()
                        pytest.fail(f"dovecot did not start: {self.log()}")
                    time.sleep(0.1)

    def chown(self, path):
        if os.getuid() == 0:
            os.chown(path, self.uid, self.gid)

    def deliver(self, messages, first=0):
        for i, m in enumerate(messages, first):
            path = os.path.join(self.maildir, "new", f"{1700000000 + i}.M{i}P1.mailpipe-test")
            with open(path, "wb") as f:
                f.write(m)
            self.chown(path)

    def log(self):
        try:
            with open(os.path.join(self.dir, "dovecot.log")) as f:
                return f.read()
        except OSError:
            return ""

    def stop(self):
        self.process.terminate()
        self.process.wait(timeout=10)
        shutil.rmtree(self.dir, ignore_errors=True)


@pytest.fixture
def dovecot():
    server = Dovecot()
    yield server
    server.stop()


def fetch(server, protocol, home, log):
    """Runs fetchmail once with the example rc, pointed at the test server; returns its run."""
    rc = (ROOT / "pipelines" / "fetchmailrc").read_text()
    rc = rc.replace("poll imap.example.com protocol IMAP",
                    f"poll 127.0.0.1 service {server.ports[protocol]} protocol {protocol}"
                    + (" uidl" if protocol == "POP3" else ""))
    rc = rc.replace("ssl keep", 'sslproto "" keep')  # the test server speaks plain text
    assert 'mda "mailpipe-log"' in rc and "sslproto" in rc
    home.mkdir(exist_ok=True)
    path = home / "fetchmailrc"
    path.write_text(rc)
    path.chmod(0o600)
    env = dict(ENV, HOME=str(home), FETCHMAILHOME=str(home), MAILPIPE_LOG=str(log),
               PATH=f"{BIN}:{ROOT / 'pipelines'}:{ENV['PATH']}")
    # as root fetchmail locks /var/run/fetchmail.pid, shared by the tests running in parallel
    return subprocess.run([FETCHMAIL, "-f", str(path), "--nodetach", "--pidfile", str(home / "fetchmail.pid")],
                          env=env, capture_output=True, timeout=120)


def stored_ids(home):
    """The ids of the messages in the mailstore database mailpipe-log keeps beside the log."""
    db = home / ".mailpipe" / "mail.db"
    if not db.exists():
        return set()
    r = subprocess.run([BIN / "mailstore", "search", "--output", "ids", db, "*"], capture_output=True, env=ENV)
    assert r.returncode == 0, r.stderr
    return {json.loads(line) for line in r.stdout.splitlines()}


def logged_ids(log):
    if not log.exists():
        return []
    return [json.loads(line)["message_id"] for line in log.read_text().splitlines()]


@pytest.mark.parametrize("protocol", ["IMAP", "POP3"])
def test_every_message_once(dovecot, protocol, tmp_path):
    messages, ids = sample_messages()
    dovecot.deliver(messages[:8])
    log = tmp_path / "messages.jsonl"
    first = fetch(dovecot, protocol, tmp_path / "home", log)
    assert first.returncode == 0, first.stderr.decode() + dovecot.log()
    assert logged_ids(log) == ids[:8]
    assert stored_ids(tmp_path / "home") == set(ids[:8])
    record = json.loads(log.read_text().splitlines()[0])
    assert "mail_kind" in record and "shipments" in record and "events" in record  # the hook's whole pipeline ran
    # fetchmail's mda inherits its umask (022 here): what the hook makes is the user's alone
    assert stat.S_IMODE((tmp_path / "home" / ".mailpipe").stat().st_mode) == 0o700
    for made in (tmp_path / "home" / ".mailpipe").iterdir():
        assert stat.S_IMODE(made.stat().st_mode) == (0o700 if made.is_dir() else 0o600), made  # the attachments folder
        for kept in (made.iterdir() if made.is_dir() else []):
            assert stat.S_IMODE(kept.stat().st_mode) == 0o600, kept

    again = fetch(dovecot, protocol, tmp_path / "home", log)
    assert again.returncode == 1, again.stderr.decode()  # fetchmail's "no new mail"
    assert logged_ids(log) == ids[:8]

    dovecot.deliver(messages[8:], first=8)
    third = fetch(dovecot, protocol, tmp_path / "home", log)
    assert third.returncode == 0, third.stderr.decode()
    assert logged_ids(log) == ids
    assert stored_ids(tmp_path / "home") == set(ids)


@pytest.mark.parametrize("protocol", ["IMAP", "POP3"])
def test_failing_hook_loses_nothing(dovecot, protocol, tmp_path):
    messages, ids = sample_messages()
    dovecot.deliver(messages)
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a file where the log's folder should be\n")
    failed = fetch(dovecot, protocol, tmp_path / "home", blocker / "messages.jsonl")
    # fetchmail itself ends with 0: the failure shows in what it left on the server
    assert b"mailpipe-log: cannot make the folder" in failed.stderr
    assert b"MDA returned nonzero status 75" in failed.stderr

    log = tmp_path / "messages.jsonl"
    retry = fetch(dovecot, protocol, tmp_path / "home", log)
    assert retry.returncode == 0, retry.stderr.decode()
    assert logged_ids(log) == ids
    assert stored_ids(tmp_path / "home") == set(ids)
