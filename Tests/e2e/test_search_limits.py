"""mailstore search and count past the query language's limits (256 terms, 32 parentheses and NOTs
nested in one another): a query error that says where, exit 64, at once, never SQLite's "parser
stack overflow" (exit 74) nor a crash of the parser; and -word after the database is the query's
NOT word, as in notmuch, not an unknown option."""
import re
import time

import pytest

from conftest import SAMPLE, records, run

TERMS, DEPTH = 256, 32
WORDS = ["alex", "dinner", "photos", "黑貓"]
COMMANDS = ["search", "count"]


@pytest.fixture(scope="module")
def db(tmp_path_factory):
    db = tmp_path_factory.mktemp("limits") / "mail.db"
    parsed = run("mime-parse", SAMPLE)
    assert parsed.returncode == 0, parsed.stderr
    r = run("mailstore", "add", "--me", "mei@example.tw", db, input=parsed.stdout)
    assert r.returncode == 0, r.stderr
    return db


def ask(command, db, *args):
    """mailstore COMMAND (search writes ids) with these arguments after the database."""
    options = ["--output", "ids"] if command == "search" else []
    return run("mailstore", command, *options, db, *args, timeout=10)


def answer(command, db, *args):
    r = ask(command, db, *args)
    assert r.returncode == 0, r.stderr
    return records(r.stdout) if command == "search" else int(r.stdout)


def chunks(query, size=100_000):
    """The query as arguments of at most `size` characters (Linux takes 128 KiB at most in one)."""
    return [query[i:i + size] for i in range(0, len(query), size)]


def query_error(command, r):
    """The position and message of a query error, after checking it is one."""
    assert r.returncode == 64, (r.returncode, r.stderr[:300])
    assert r.stdout == b""
    m = re.fullmatch(r"mailstore: search: at (\d+): (.*)\n", r.stderr.decode())
    assert m, r.stderr[:300]
    return int(m.group(1)), m.group(2)


@pytest.mark.parametrize("command", COMMANDS)
@pytest.mark.parametrize("n", [90, TERMS])
def test_many_terms_are_answered(db, command, n):
    words = [WORDS[i % len(WORDS)] for i in range(n)]
    few = answer(command, db, " OR ".join(WORDS))
    assert few
    assert answer(command, db, " OR ".join(words)) == few
    assert answer(command, db, *" OR ".join(words).split()) == few, "the query as many arguments"
    assert answer(command, db, "(" + " ".join(words) + ")") == answer(command, db, " ".join(WORDS))
    assert answer(command, db, " ".join("-" + w for w in words)) == answer(command, db, *("-" + w for w in WORDS))


@pytest.mark.parametrize("command", COMMANDS)
@pytest.mark.parametrize("n", [TERMS + 1, 300, 100_000])
def test_more_terms_are_an_error_at_the_first_too_many(db, command, n):
    words = [WORDS[i % len(WORDS)] for i in range(n)]
    position, message = query_error(command, ask(command, db, *chunks(" OR ".join(words))))
    assert message == f"more than {TERMS} terms"
    assert position == len(" OR ".join(words[:TERMS]) + " OR ") + 1


@pytest.mark.parametrize("command", COMMANDS)
@pytest.mark.parametrize("query, position", [
    ("(" * 40_000, DEPTH + 1),
    ("(" * 1_000_000, DEPTH + 1),
    ("(" * 40_000 + "alex" + ")" * 40_000, DEPTH + 1),
    ("not " * 300_000 + "alex", 4 * DEPTH + 1),
    ("(alex OR " * 100_000, len("(alex OR ") * DEPTH + 1),
], ids=["40000(", "1000000(", "40000()", "300000not", "100000(or"])
def test_deep_nesting_is_an_error_at_once(db, command, query, position):
    start = time.monotonic()
    r = ask(command, db, *chunks(query))
    assert r.returncode >= 0, "killed by a signal: the parser recursed too deep"
    assert query_error(command, r) == (position, f"more than {DEPTH} nested parentheses and NOTs")
    assert time.monotonic() - start < 10


@pytest.mark.parametrize("command", COMMANDS)
def test_nesting_up_to_the_limit_is_answered(db, command):
    assert answer(command, db, "(" * DEPTH + "alex" + ")" * DEPTH) == answer(command, db, "alex")
    assert answer(command, db, "not " * DEPTH + "alex") == answer(command, db, "alex")
    nested = "not (dinner OR " * (DEPTH // 2) + "alex" + ")" * (DEPTH // 2)
    assert ask(command, db, nested).returncode == 0
    position, _ = query_error(command, ask(command, db, "(" * (DEPTH + 1) + "alex" + ")" * (DEPTH + 1)))
    assert position == DEPTH + 1


@pytest.mark.parametrize("command", COMMANDS)
def test_a_dash_word_after_the_database_is_not_the_word(db, command):
    negated = answer(command, db, "not alex")
    assert answer(command, db, "-alex") == answer(command, db, "--", "-alex") == negated
    assert answer(command, db, "-alex", "-dinner") == answer(command, db, "not alex not dinner")
    assert answer(command, db, "photos", "-alex") == answer(command, db, "photos not alex")
    assert answer(command, db, "-from:alex") == answer(command, db, "--", "-from:alex") == answer(command, db, "not from:alex")
    if command == "count":
        assert negated + answer(command, db, "alex") == answer(command, db, "*")
    else:
        assert negated and set(negated).isdisjoint(answer(command, db, "alex"))
        # options still work on either side of the query
        assert records(run("mailstore", "search", db, "-alex", "--output", "ids", "--limit", "2").stdout) == negated[:2]
        assert records(run("mailstore", "search", db, "--output=ids", "-alex").stdout) == negated
    # an unknown long option is still one, and a dash word before the database too
    assert ask(command, db, "alex", "--no-such-option").returncode == 64
    assert run("mailstore", command, "-alex", db, "dinner").returncode == 64


def test_label_reads_its_query_with_the_same_limits(db):
    r = run("mailstore", "label", db, "+X", "--", " OR ".join(["alex"] * (TERMS + 1)))
    assert query_error("label", r) == (len(" OR ".join(["alex"] * TERMS) + " OR ") + 1, f"more than {TERMS} terms")
    r = run("mailstore", "label", db, "+X", "--", *chunks("(" * 1_000_000), timeout=10)
    assert query_error("label", r)[1] == f"more than {DEPTH} nested parentheses and NOTs"
