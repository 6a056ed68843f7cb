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
py=.venv/bin/python
. bench/lib.sh

for size in $sizes; do
    mbox=$(generated_mbox "$size")
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
