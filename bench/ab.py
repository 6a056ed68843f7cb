"""Two builds of one program on the same input, in turns: the CPU (user and system) of each run,
and the median of each build's. For a change whose cost is a few percent, where timing the two
one after the other would measure the machine's mood.
    .venv/bin/python bench/ab.py [--runs N] [--stdin FILE] OLD_PROGRAM NEW_PROGRAM [ARGUMENT...]
e.g. bench/ab.py /tmp/old/.build/release/mime-parse .build/release/mime-parse --no-progress big.mbox"""
import argparse
import resource
import statistics
import subprocess


def cpu(command, stdin):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    with open(stdin or "/dev/null", "rb") as source:
        subprocess.run(command, stdin=source, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--stdin", help="a file each run reads on its standard input")
    parser.add_argument("old")
    parser.add_argument("new")
    parser.add_argument("arguments", nargs=argparse.REMAINDER)
    options = parser.parse_args()
    times = {"old": [], "new": []}
    for _ in range(options.runs):
        for build in times:
            times[build].append(cpu([getattr(options, build), *options.arguments], options.stdin))
    old, new = (statistics.median(times[b]) for b in times)
    print(f"old {old:.3f} s, new {new:.3f} s CPU (medians of {options.runs} runs in turns): {new / old:.3f}x")


if __name__ == "__main__":
    main()
