# Shared by the benchmarks: warming inputs, timing a command, generating the mailboxes.
# shellcheck shell=bash

declare -A count=([50m]=2465 [200m]=9860 [1g]=48000)
data=.bench-data

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

generated_mbox() {  # size: the generated mailbox's path, made on first use
    local mbox=$data/$1.mbox
    mkdir -p "$data"
    [ -s "$mbox" ] || python3 ../shared/gen/gen_mbox.py --messages "${count[$1]}" --seed 1 --out "$mbox" --truth "$data/$1.truth.jsonl" >&2
    echo "$mbox"
}
