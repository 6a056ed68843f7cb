#!/bin/bash
# More than one core: the same generated mailbox read by one mime-parse and by N shards
# (mime-parse --shard K/N, N processes at once); one per-message filter as one process and as
# N over GNU parallel --pipe; and the whole pipeline with --jobs 1 and --jobs N
# (pipelines/mbox-to-conversations). Prints seconds and the speed-up; N is the number of cores.
# A pipeline already runs its stages at once, one process each, so on few cores --jobs gains
# less than one stage alone does.
#   bench/parallel.sh [SIZES]    SIZES: any of 50m 1g (default: 1g)
set -euo pipefail
cd "$(dirname "$0")/.."
export SWIFT_BACKTRACE=enable=no
. bench/lib.sh
bin=.build/release
jobs=$(nproc)
me=meiling.chen@gmail.com

# mime-parse, mbox, N: N shards at once, each to /dev/null
shards='for k in $(seq 1 "$2"); do "$0" --no-progress --shard "$k/$2" "$1" > /dev/null & done; wait'

for size in ${*:-1g}; do
    mbox=$(generated_mbox "$size")
    runs=$([ "$size" = 50m ] && echo 3 || echo 1)
    out=$(mktemp -d)
    results=$(
        measure "mime-parse" "$runs" "$mbox" $bin/mime-parse --no-progress "$mbox"
        measure "mime-parse --shard K/$jobs" "$runs" "$mbox" bash -c "$shards" $bin/mime-parse "$mbox" "$jobs"
        records=$out/records.jsonl
        $bin/mime-parse --no-progress "$mbox" > "$records"
        measure "carrier-detect" "$runs" "$records" $bin/carrier-detect "$records"
        # --pipe (from a pipe) is limited by parallel's own copying; --pipepart reads the file itself
        measure "parallel --pipe carrier-detect" "$runs" "$records" \
            bash -c 'parallel --will-cite --pipe -k -j "$1" --block 16M "$0" < "$2"' $bin/carrier-detect "$jobs" "$records"
        measure "parallel --pipepart carrier-detect" "$runs" "$records" \
            parallel --will-cite --pipepart -a "$records" --block -1 -k -j "$jobs" $bin/carrier-detect
        for j in 1 "$jobs"; do
            measure "pipeline --jobs $j" "$runs" "$mbox" pipelines/mbox-to-conversations --me $me --out "$out/$j" --jobs "$j" "$mbox"
        done
        cmp -s "$out/1/messages.jsonl" "$out/$jobs/messages.jsonl" || echo "parallel-output-differs 0 0 0"
    )
    rm -rf "$out"
    echo "== $size: ${count[$size]} messages, $jobs cores =="
    echo "$results" | awk '
        { name = $0; sub(/ [^ ]+ [^ ]+ [^ ]+$/, "", name); t = $(NF-1) - $(NF-2)
          if (name == "parallel-output-differs") { print "FAIL: --jobs output differs from one job"; bad = 1; next }
          if (name ~ /^parallel|--shard|--jobs [^1]/) speedup = sprintf("   speed-up %.2fx", one / t)
          else { one = t; speedup = "" }
          printf "%-36s %7.2f s%s\n", name, t, speedup }
        END { exit bad }'
done
