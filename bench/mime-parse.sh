#!/bin/bash
# Speed of mime-parse beside other mail parsers, on the same generated mailboxes, in one run.
#   bench/mime-parse.sh [SIZES]      SIZES: any of 50m 1g (default: both)
# Prints, per tool: seconds, MB/s, messages/s, peak RSS, and how many times slower than
# mime-parse it is (best of three runs for the fast tools; each input is read once before
# each run, as the page cache on these machines holds little more than one of the files). The mailboxes come from ../shared/gen/gen_mbox.py (kept in .bench-data/).
set -euo pipefail
cd "$(dirname "$0")/.."
export SWIFT_BACKTRACE=enable=no
sizes=${*:-50m 1g}
data=.bench-data
mkdir -p "$data"
py=.venv/bin/python

declare -A count=([50m]=2465 [1g]=48000)

warm() {  # reads a file or folder so that its pages are cached (the cache here is small)
    if [ -d "$1" ]; then find "$1" -type f -exec cat {} + > /dev/null; else cat "$1" > /dev/null; fi
}

measure() {  # name, runs, input, command...: best of `runs` runs with the input warmed, one row
    local name=$1 runs=$2 input=$3
    shift 3
    local best="" t0 t1 rss best_rss
    for _ in $(seq "$runs"); do
        warm "$input"
        t0=$(date +%s.%N)
        rss=$( { /usr/bin/time -f "%M" "$@" > /dev/null; } 2>&1 | tail -1 )
        t1=$(date +%s.%N)
        if [ -z "$best" ] || [ "$(echo "$t1 - $t0 < $best" | bc)" = 1 ]; then
            best=$(echo "$t1 - $t0" | bc)
            best_rss=$rss
        fi
    done
    echo "$name 0 $best $best_rss"
}

for size in $sizes; do
    mbox=$data/$size.mbox
    [ -s "$mbox" ] || python3 ../shared/gen/gen_mbox.py --messages "${count[$size]}" --seed 1 --out "$mbox" --truth "$data/$size.truth.jsonl" >&2
    maildir=$data/$size.maildir
    if [ ! -d "$maildir/cur" ]; then
        mkdir -p "$maildir"/{cur,new,tmp}
        mdeliver -M "$maildir" < "$mbox"
    fi
    bytes=$(stat -c %s "$mbox")
    messages=${count[$size]}
    echo "== $size: $bytes bytes, $messages messages =="
    results=$(
        measure mime-parse 3 "$mbox" .build/release/mime-parse --no-progress "$mbox"
        measure mblaze-mshow-N 3 "$maildir" sh -c "mlist '$maildir' | mshow -N"
        measure fast-mail-parser 1 "$mbox" "$py" bench/parsers.py fast-mail-parser "$mbox"
        measure python-email-compat32 1 "$mbox" "$py" bench/parsers.py compat32 "$mbox"
        measure python-email-default 1 "$mbox" "$py" bench/parsers.py default "$mbox"
        measure cat 3 "$mbox" cat "$mbox"
    )
    echo "$results" | awk -v bytes="$bytes" -v n="$messages" '
        { secs = $3 - $2; if (secs <= 0) secs = 0.001; t[NR] = secs; name[NR] = $1; rss[NR] = $4; if ($1 == "mime-parse") base = secs }
        END {
            printf "%-24s %9s %9s %11s %10s %8s\n", "tool", "seconds", "MB/s", "messages/s", "peak RSS", "vs us"
            for (i = 1; i <= NR; i++) if (i in t)
                printf "%-24s %9.2f %9.1f %11.0f %8.1f MB %7.1fx\n", name[i], t[i], bytes / 1e6 / t[i], n / t[i], rss[i] / 1024, t[i] / base
        }'
done
