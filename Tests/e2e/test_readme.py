"""The README's listings of the sample are what the commands print. Every indented block of
README.md and docs/architecture.md that begins with `$ ` is a session: each `$ command` line is
run in turn, in a folder that holds the checkout's Makefile, pipelines/, samples/ and .build/,
and what it prints (standard output and error together) must be the lines that follow it in
the block.

`make pipeline` is run as the Makefile's pipeline target with `-o build`: `make test` has
built, and a build here would make .build/release anew while other tests run its binaries
(see test_install.py). The programs are on PATH, as the README asks. Two things differ from
the text, and only these: the folder the site's address names, which the README shows as
/home/you/mailpipe, and blanks at the ends of lines, which Markdown does not show and editors
strip (jq's @tsv ends a row with a tab when its last field is empty)."""
import re
import subprocess

from conftest import BIN, ENV, ROOT

README = ROOT / "README.md"
SHOWN = [README, ROOT / "docs" / "architecture.md"]  # the pages whose listings are checked
CHECKOUT = "/home/you/mailpipe"  # where the README's listing says the checkout is


def sessions(text):
    """A page's indented blocks that begin with `$ `: each a list of (command, lines)."""
    blocks, block = [], None
    for line in text.splitlines():
        if block is None:
            if line.startswith("    $ "):
                block = [line[4:]]
        elif line.startswith("    "):
            block.append(line[4:])
        else:
            blocks.append(block)
            block = None
    if block is not None:
        blocks.append(block)
    result = []
    for block in blocks:
        steps = []
        for line in block:
            if line.startswith("$ "):
                steps.append((line[2:], []))
            else:
                steps[-1][1].append(line)
        result.append(steps)
    return result


def environment():
    """The tests' environment without what would change what make prints: a make above this one
    (a sub-make says which folder it enters) and the Makefile's variables (MBOX, OUT, ME, ZONE
    from the environment would replace the sample's defaults)."""
    env = {k: v for k, v in ENV.items()
           if k not in {"MAKEFLAGS", "MFLAGS", "MAKELEVEL", "MAKEOVERRIDES", "MBOX", "OUT", "ME", "ZONE"}}
    env["PATH"] = f"{BIN}:{env.get('PATH', '/usr/bin:/bin')}"
    return env


def test_readme_shows_sessions():
    found = sessions(README.read_text())
    assert found, "README.md shows no `$ make pipeline` listing"
    assert found[0][0][0] == "make pipeline", "the README's first listing is not `make pipeline`'s"


def test_readme_listings_are_what_the_commands_print(tmp_path):
    for name in ["Makefile", "pipelines", "samples"]:
        (tmp_path / name).symlink_to(ROOT / name)
    (tmp_path / ".build").symlink_to(BIN.parent)
    env = environment()
    for page, steps in [(page, steps) for page in SHOWN for steps in sessions(page.read_text())]:
        for command, expected in steps:
            run = re.sub(r"^make pipeline\b", "make --no-print-directory -o build pipeline", command)
            r = subprocess.run(["bash", "-o", "pipefail", "-c", run + " 2>&1"], cwd=tmp_path, env=env,
                               capture_output=True, timeout=300)
            printed = r.stdout.decode().replace(f"file://{tmp_path}/", f"file://{CHECKOUT}/")
            where = f"{page.relative_to(ROOT)}: $ {command}"
            assert r.returncode == 0, f"{where}\n{printed}{r.stderr.decode()}"
            assert [l.rstrip() for l in printed.splitlines()] == [l.rstrip() for l in expected], where
