"""More than one core, with GNU parallel: the recipes of mailpipe(7) and
mbox-to-conversations --jobs give the same records, in the same order, as one process."""
import subprocess

import pytest

from conftest import BIN, ENV, ROOT, SAMPLE, records, run

SCRIPT = ROOT / "pipelines" / "mbox-to-conversations"
STAGES = "newsletter-detect,carrier-detect,participant-hash"


def sh(command, cwd):
    r = subprocess.run(["bash", "-o", "pipefail", "-c", command], cwd=cwd, capture_output=True, timeout=300,
                       env=dict(ENV, PATH=f"{BIN}:{ENV['PATH']}"))
    assert r.returncode == 0, r.stderr.decode()
    return r


@pytest.fixture(scope="module")
def parsed(generated_mbox, tmp_path_factory):
    d = tmp_path_factory.mktemp("parallel")
    f = d / "records.jsonl"
    f.write_bytes(run("mime-parse", "--no-progress", generated_mbox[0]).stdout)
    return f


def test_pipe_keeps_records_whole_and_in_order(parsed):
    """Small blocks, so that many copies run and most cuts fall inside a record's bytes."""
    one = sh(f"newsletter-detect < {parsed}", parsed.parent).stdout
    many = sh(f"parallel --will-cite --pipe -k -j 2 --block 300k newsletter-detect < {parsed}", parsed.parent).stdout
    assert len(records(many)) == 2465
    assert many == one


def test_pipepart_on_a_file(parsed):
    one = sh(f"carrier-detect {parsed}", parsed.parent).stdout
    many = sh(f"parallel --will-cite --pipepart -a {parsed} --block 500k -k -j 2 carrier-detect", parsed.parent).stdout
    assert many == one


def test_shards_with_parallel(generated_mbox, parsed):
    mbox = generated_mbox[0]
    out = sh(f"parallel --will-cite -k mime-parse --no-progress --shard {{}}/4 {mbox} ::: 1 2 3 4", parsed.parent).stdout
    assert out == parsed.read_bytes()


def pipeline(tmp_path, name, *args, input=None):
    out = tmp_path / name
    r = subprocess.run([str(SCRIPT), "--me", "meiling.chen@gmail.com", "--stages", STAGES, "--out", str(out), *map(str, args)],
                       input=input, capture_output=True, timeout=300, env=ENV)
    assert r.returncode == 0, r.stderr.decode()
    return (out / "messages.jsonl").read_bytes(), (out / "conversations.jsonl").read_bytes()


def test_jobs_on_files_is_one_job(generated_mbox, tmp_path):
    mbox = generated_mbox[0]
    one = pipeline(tmp_path, "one", mbox, SAMPLE)
    two = pipeline(tmp_path, "two", "--jobs", "2", mbox, SAMPLE)
    assert len(records(one[0])) == 2465 + 19
    assert two == one
    assert len(records(one[1])) > 1


def test_jobs_on_stdin_is_one_job(tmp_path):
    data = SAMPLE.read_bytes()
    one = pipeline(tmp_path, "one", "-", input=data)
    three = pipeline(tmp_path, "three", "--jobs", "3", "-", input=data)
    assert three == one
    assert len(records(one[0])) == 19


def test_jobs_needs_a_number(tmp_path):
    r = subprocess.run([str(SCRIPT), "--jobs", "many", SAMPLE], capture_output=True, env=ENV)
    assert r.returncode == 64
