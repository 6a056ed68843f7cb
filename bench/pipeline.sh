#!/bin/bash
# The whole pipeline against mime-parse alone, in one run: mbox-to-conversations as `make
# pipeline` runs it without the pages (every filter, then conversation-group, event-group and
# parcel-group) on the generated mailbox; wall and CPU seconds (user + system, the pipeline's
# processes together) and their ratios to mime-parse's. Target (issue 33): the wall ratio at
# most 2.0x on 2 cores. Each figure is the best of RUNS runs (default 3; 1 for 1g).
# Between them, the plumbing alone: mime-parse and as many filters in the same places (six in
# the pipe, three reading its output at once) that each read and parse every record as a filter
# does and write it back unchanged (bench/plumbing's null-filter, built here): what the
# pipeline costs before any filter does its work.
#   bench/pipeline.sh [SIZES]      SIZES: any of 50m 200m 1g (default: 200m 1g)
set -euo pipefail
cd "$(dirname "$0")/.."
export SWIFT_BACKTRACE=enable=no
. bench/lib.sh
bin=${MAILPIPE_BIN:-.build/release}
case $bin in /*) ;; *) bin=$PWD/$bin ;; esac
export PATH="$bin:$PATH"
me=meiling.chen@gmail.com
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
# a copy of the script, which otherwise prefers the binaries of its own checkout to PATH's
mkdir "$out/pipelines" && cp pipelines/mbox-to-conversations "$out/pipelines/"

best_of() {  # runs, command...: "wall cpu" of the run with the least wall time
    local runs=$1
    shift
    local best="" t0 t1 cpu
    for _ in $(seq "$runs"); do
        t0=$(date +%s.%N)
        /usr/bin/time -o "$out/time" -f "%U %S" "$@" > /dev/null 2> /dev/null
        cpu=$(awk '{print $1 + $2}' "$out/time")
        t1=$(date +%s.%N)
        local wall
        wall=$(echo "$t1 - $t0" | bc)
        if [ -z "$best" ] || [ "$(echo "$wall < ${best% *}" | bc)" = 1 ]; then best="$wall $cpu"; fi
    done
    echo "$best"
}

# null-filter, built against this checkout (its manifest names the package "main")
ln -s "$PWD" "$out/main"
cp -R bench/plumbing "$out/plumbing"
swift build --package-path "$out/plumbing" --scratch-path .build/plumbing -c release --static-swift-stdlib --product null-filter \
    > "$out/build.log" 2>&1 || { cat "$out/build.log" >&2; exit 1; }
null=$PWD/.build/plumbing/release/null-filter
cat > "$out/plumbing.sh" <<SCRIPT
set -e
n="$null --no-progress"
mime-parse --no-progress "\$1" | \$n | \$n | \$n | \$n | \$n | \$n > "$out/plumbed.jsonl"
\$n < "$out/plumbed.jsonl" > /dev/null & a=\$!
\$n < "$out/plumbed.jsonl" > /dev/null & b=\$!
\$n < "$out/plumbed.jsonl" > /dev/null
wait \$a \$b
SCRIPT

echo "binaries: $(command -v mime-parse | xargs dirname) ($(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg))"
for size in ${*:-200m 1g}; do
    mbox=$(generated_mbox "$size")
    runs=${RUNS:-$([ "$size" = 1g ] && echo 1 || echo 3)}
    warm "$mbox"
    read -r pw pc <<< "$(best_of "$runs" mime-parse --no-progress "$mbox")"
    read -r nw nc <<< "$(best_of "$runs" bash "$out/plumbing.sh" "$mbox")"
    read -r aw ac <<< "$(best_of "$runs" "$out/pipelines/mbox-to-conversations" --me "$me" --zone Asia/Taipei --out "$out/site" "$mbox")"
    echo "== $size: ${count[$size]} messages, best of $runs =="
    printf "%-24s %8s %8s %8s %8s\n" "" "wall s" "ratio" "CPU s" "ratio"
    printf "%-24s %8.2f %8s %8.2f %8s\n" mime-parse "$pw" "" "$pc" ""
    printf "%-24s %8.2f %7.2fx %8.2f %7.2fx\n" "the plumbing alone" "$nw" "$(echo "$nw / $pw" | bc -l)" "$nc" "$(echo "$nc / $pc" | bc -l)"
    printf "%-24s %8.2f %7.2fx %8.2f %7.2fx   (target: wall <= 2.0x)\n" mbox-to-conversations "$aw" "$(echo "$aw / $pw" | bc -l)" "$ac" "$(echo "$ac / $pc" | bc -l)"
done
