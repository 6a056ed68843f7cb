#!/bin/bash
# Every stage of the pipeline that is built, each on its own input (the previous stages'
# output, made first), on the same generated mailbox: seconds, MB/s, messages/s, peak RSS,
# and which stage is the slowest. No stage but mime-parse may be the bottleneck; the per-message
# classifiers (newsletter-detect, carrier-detect) least of all.
#   bench/stages.sh [SIZES]      SIZES: any of 50m 1g (default: both)
set -euo pipefail
cd "$(dirname "$0")/.."
export SWIFT_BACKTRACE=enable=no
. bench/lib.sh
bin=${MAILPIPE_BIN:-.build/release}
me=meiling.chen@gmail.com

for size in ${*:-50m 1g}; do
    mbox=$(generated_mbox "$size")
    runs=$([ "$size" = 50m ] && echo 3 || echo 1)
    n=${count[$size]}
    results=$(
        measure mime-parse "$runs" "$mbox" $bin/mime-parse --no-progress "$mbox"
        input=$data/$size.stage0.jsonl
        $bin/mime-parse --no-progress "$mbox" > "$input"
        k=0
        for stage in html-sanitize text-extract newsletter-detect carrier-detect "participant-hash --me $me" conversation-group; do
            tool=${stage%% *}
            [ -x "$bin/$tool" ] || continue
            # shellcheck disable=SC2086
            measure "$tool" "$runs" "$input" $bin/$stage "$input"
            if [ "$tool" != conversation-group ]; then
                k=$((k + 1))
                # shellcheck disable=SC2086
                $bin/$stage "$input" > "$data/$size.stage$k.jsonl"
                [ "$k" -gt 1 ] && rm -f "$input"
                input=$data/$size.stage$k.jsonl
            fi
        done
        rm -f "$input" "$data/$size.stage0.jsonl"
    )
    echo "== $size: $n messages =="
    echo "$results" | awk -v n="$n" '
        { t[NR] = $3 - $2; if (t[NR] <= 0) t[NR] = 0.001; name[NR] = $1; rss[NR] = $4
          if (NR > 1 && (slow == "" || t[NR] > t[slow])) slow = NR }
        END {
            printf "%-20s %9s %11s %10s\n", "stage", "seconds", "messages/s", "peak RSS"
            for (i = 1; i <= NR; i++)
                printf "%-20s %9.2f %11.0f %8.1f MB%s\n", name[i], t[i], n / t[i], rss[i] / 1024, (i == slow ? "   <- slowest after mime-parse" : "")
            printf "slowest stage: %s\n", (t[1] >= t[slow] ? "mime-parse" : name[slow])
        }'
done
