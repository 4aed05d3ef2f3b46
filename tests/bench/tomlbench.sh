#!/bin/sh
# tomlbench: `kunai toml2json` of a TOML document shaped like a large
# campaign (10 MB by default), against tests/bench/tomlbench parsing it
# alone: goal <= 5x the parse's time, peak RSS <= 10x the document's size.
# usage: tomlbench.sh [BYTES]   (KUNAI, MEASURE, RUNS, BENCH_SMOKE: see lib.sh)
. "$(dirname "$0")/lib.sh"
tomlbench=$(cd "$(dirname "$0")" && pwd)/tomlbench
size=${1:-10485760}
[ -z "$BENCH_SMOKE" ] || size=100000
doc=$bench_tmp/doc.toml
mb=$(awk -v s="$size" 'BEGIN { printf "%.1f", s / 1048576 }')
"$tomlbench" write "$size" "$doc" || bench_fail "tomlbench write failed"
header
pair : "$KUNAI toml2json $doc >/dev/null" : "$tomlbench parse $doc"
row_pair "toml2json $mb MB" time "the parse alone" 5

rss=$(stats 2 "$bench_tmp/a")
row_value "toml2json $mb MB, peak RSS/document" \
	"$(awk -v r="${rss%% *}" -v s="$size" 'BEGIN { printf "%.1f", r * 1024 / s }')" x 10 \
	"the parse alone $(awk -v r="$(stats 2 "$bench_tmp/b" | cut -d' ' -f1)" -v s="$size" 'BEGIN { printf "%.1fx", r * 1024 / s }') ($mb MB)"
