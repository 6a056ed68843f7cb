#!/bin/bash
# Speed of participant-hash on the records of a generated mailbox.
#   bench/participant-hash.sh [50m|1g]     (default 50m)
# Prints messages/s, MB/s of JSON Lines and peak RSS; `jq -c .` over the same records, for scale.
set -euo pipefail
cd "$(dirname "$0")/.."
export SWIFT_BACKTRACE=enable=no
size=${1:-50m}
data=.bench-data
declare -A count=([50m]=2465 [1g]=48000)
mkdir -p "$data"
[ -s "$data/$size.mbox" ] || python3 ../shared/gen/gen_mbox.py --messages "${count[$size]}" --seed 1 --out "$data/$size.mbox" --truth "$data/$size.truth.jsonl" >&2
records=$data/$size.records.jsonl
[ -s "$records" ] || .build/release/mime-parse --no-progress "$data/$size.mbox" > "$records"
bytes=$(stat -c %s "$records")
echo "== participant-hash on $size: $bytes bytes of records, ${count[$size]} messages =="
printf "%-22s %9s %9s %11s %10s\n" tool seconds MB/s messages/s "peak RSS"
for tool in participant-hash jq; do
    cat "$records" > /dev/null
    case $tool in
        participant-hash) cmd=(.build/release/participant-hash --me meiling.chen@gmail.com "$records") ;;
        jq) cmd=(jq -c . "$records") ;;
    esac
    t0=$(date +%s.%N)
    rss=$( { /usr/bin/time -f "%M" "${cmd[@]}" > /dev/null; } 2>&1 | tail -1 )
    t1=$(date +%s.%N)
    awk -v name="$tool" -v t="$(echo "$t1 - $t0" | bc)" -v b="$bytes" -v n="${count[$size]}" -v rss="$rss" \
        'BEGIN { printf "%-22s %9.2f %9.1f %11.0f %8.1f MB\n", name, t, b / 1e6 / t, n / t, rss / 1024 }'
done
