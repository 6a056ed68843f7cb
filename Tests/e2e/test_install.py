"""make install into a fresh prefix: every program with its man page, pages that man(1) shows
and mandoc finds clean, and shell completions that bash, zsh and fish load and use."""
import os
import shutil
import subprocess

import pytest

from conftest import ENV, ROOT

SHELLS_AND_MAN = all(shutil.which(p) for p in ("man", "zsh", "fish", "mandoc"))
pytestmark = pytest.mark.skipif(not SHELLS_AND_MAN and not os.environ.get("CI"),
                                reason="man, zsh, fish or mandoc is not installed (scripts/install-deps --test)")


@pytest.fixture(scope="module")
def prefix(tmp_path_factory):
    p = tmp_path_factory.mktemp("prefix")
    # -o build: `make test` has built; a build here, even one with nothing to do, makes
    # .build/release (a symlink) anew, and a test running a binary through it at that moment
    # gets "cannot execute: required file not found"
    r = subprocess.run(["make", "--no-print-directory", "-o", "build", "install", f"PREFIX={p}"], cwd=ROOT,
                       capture_output=True, timeout=900, env=ENV)
    assert r.returncode == 0, r.stderr.decode()[-3000:]
    return p


def tools():
    makefile = (ROOT / "Makefile").read_text()
    line = next(l for l in makefile.splitlines() if l.startswith("TOOLS :="))
    return line.split(":=")[1].split()


def test_every_program_has_its_page(prefix):
    programs = sorted(os.listdir(prefix / "bin"))
    assert set(tools()) <= set(programs)
    assert {"mbox-to-conversations", "mailpipe-log", "mailpipe-site", "gmail-sync"} <= set(programs)
    for program in programs:
        assert (prefix / "share/man/man1" / f"{program}.1").is_file(), program
    assert (prefix / "share/man/man5/mailpipe.5").is_file() and (prefix / "share/man/man7/mailpipe.7").is_file()
    assert (prefix / "share/mailpipe/procmailrc").is_file() and (prefix / "share/mailpipe/fetchmailrc").is_file()


def test_man_shows_every_page(prefix):
    pages = sorted((prefix / "share/man").glob("man*/*.*"))
    assert len(pages) >= len(tools()) + 4
    for page in pages:
        r = subprocess.run(["man", "-l", str(page)], capture_output=True, timeout=60,
                           env=dict(ENV, MANPAGER="cat", PAGER="cat", MANWIDTH="80"))
        assert r.returncode == 0, (page, r.stderr)
        name = page.name.rsplit(".", 1)[0]
        assert name.upper().encode() in r.stdout and b"NAME" in r.stdout, page
        lint = subprocess.run(["mandoc", "-Tlint", "-W", "warning", str(page)], capture_output=True)
        assert lint.returncode == 0, lint.stdout + lint.stderr


@pytest.mark.parametrize("tool", tools())
def test_completions_load(prefix, tool):
    bash = prefix / "share/bash-completion/completions" / tool
    r = subprocess.run(["bash", "-c", f'source "{bash}" && complete -p {tool}'], capture_output=True)
    assert r.returncode == 0 and tool.encode() in r.stdout, r.stderr

    zsh = prefix / "share/zsh/site-functions" / f"_{tool}"
    r = subprocess.run(["zsh", "-f", "-c", f'fpath=("{zsh.parent}" $fpath); autoload -Uz compinit && compinit -u -D'
                                          f' && (( $+_comps[{tool}] )) && autoload -Uz _{tool} && whence -w _{tool}'],
                       capture_output=True, timeout=60)
    assert r.returncode == 0, r.stdout + r.stderr

    fish = prefix / "share/fish/vendor_completions.d" / f"{tool}.fish"
    r = subprocess.run(["fish", "--no-config", "-c", f'source "{fish}"; complete -C "{tool} --"'],
                       capture_output=True, timeout=60)
    assert r.returncode == 0 and b"--help" in r.stdout and b"--version" in r.stdout, r.stdout + r.stderr


def test_pages_are_found_at_the_top_of_man_too():
    """man/<tool>.1 links to man/man1/<tool>.1 (the flat layout tools like mblaze use), so both
    ways of looking a page up in the checkout find it, and neither can go stale."""
    for tool in tools():
        link = ROOT / "man" / f"{tool}.1"
        assert link.is_symlink() and link.resolve() == (ROOT / "man" / "man1" / f"{tool}.1").resolve(), tool


def test_gmail_sync_s_timer_service_and_cron_line_are_installed_for_the_prefix(prefix, tmp_path):
    share = prefix / "share/mailpipe"
    service, timer, cron = (share / f"gmail-sync.{kind}" for kind in ("service", "timer", "cron"))
    assert f"ExecStart={prefix}/bin/gmail-sync " in service.read_text()
    assert f" {prefix}/bin/gmail-sync --site" in cron.read_text().splitlines()[-1]
    assert "OnUnitInactiveSec=" in timer.read_text()
    if shutil.which("systemd-analyze"):
        runtime = tmp_path / "runtime"
        runtime.mkdir(mode=0o700)
        r = subprocess.run(["systemd-analyze", "verify", "--user", str(service), str(timer)], capture_output=True, timeout=60,
                           env=dict(ENV, XDG_RUNTIME_DIR=str(runtime), MANPATH=str(prefix / "share/man")))
        assert r.returncode == 0, r.stdout + r.stderr
