#!/bin/bash
# Speed of participant-hash and conversation-group on the records of a generated mailbox,
# with `jq -c .` over the same records for scale, and conversation-group's peak RSS.
#   bench/conversations.sh [50m|1g]     (default: both)
set -euo pipefail
cd "$(dirname "$0")/.."
export SWIFT_BACKTRACE=enable=no
data=.bench-data
declare -A count=([50m]=2465 [1g]=48000)
mkdir -p "$data"

row() {  # name, messages, bytes, command...
    local name=$1 n=$2 bytes=$3
    shift 3
    local t0 t1 rss
    t0=$(date +%s.%N)
    rss=$( { /usr/bin/time -f "%M" "$@" > /dev/null; } 2>&1 | tail -1 )
    t1=$(date +%s.%N)
    awk -v name="$name" -v t="$(echo "$t1 - $t0" | bc)" -v b="$bytes" -v n="$n" -v rss="$rss" \
        'BEGIN { printf "%-26s %9.2f %9.1f %11.0f %8.1f MB\n", name, t, b / 1e6 / t, n / t, rss / 1024 }'
}

for size in ${*:-50m 1g}; do
    [ -s "$data/$size.mbox" ] || python3 ../shared/gen/gen_mbox.py --messages "${count[$size]}" --seed 1 --out "$data/$size.mbox" --truth "$data/$size.truth.jsonl" >&2
    records=$data/$size.records.jsonl keyed=$data/$size.keyed.jsonl
    [ -s "$records" ] || .build/release/mime-parse --no-progress "$data/$size.mbox" > "$records"
    .build/release/participant-hash --me meiling.chen@gmail.com "$records" > "$keyed"
    n=${count[$size]}
    echo "== $size: $n messages, $(stat -c %s "$records") bytes of records =="
    printf "%-26s %9s %9s %11s %10s\n" tool seconds MB/s messages/s "peak RSS"
    cat "$records" > /dev/null
    row participant-hash "$n" "$(stat -c %s "$records")" .build/release/participant-hash --me meiling.chen@gmail.com "$records"
    cat "$keyed" > /dev/null
    row conversation-group "$n" "$(stat -c %s "$keyed")" .build/release/conversation-group "$keyed"
    cat "$keyed" > /dev/null
    row "conversation-group thread" "$n" "$(stat -c %s "$keyed")" .build/release/conversation-group --by thread "$keyed"
    cat "$records" > /dev/null
    row "jq -c ." "$n" "$(stat -c %s "$records")" jq -c . "$records"
done
