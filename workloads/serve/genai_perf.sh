#!/bin/sh
# genai_perf.sh: kunai's genai-perf run for AIDynamo (ai_dynamo.sh calls it
# on the frontend node): `CMD --model M --url HOST:PORT --endpoint E
# --artifact-dir DIR ARGS EXTRA`, then the report CloudAI's parser reads:
# genai-perf's CSV (its rows of four or more cells) with the output tokens
# per second per GPU, the request rate and count appended. POSIX sh.
set -u
log() { printf '[%s %s]: %s\n' "$(date '+%F %T')" "$(hostname)" "$*"; }
q() { printf "'%s'" "$(printf '%s' "$1" | sed "s/'/'\\\\''/g")"; }

result_dir=. model= url=http://localhost port=8000 endpoint= gpus=1
cmd='genai-perf profile' report=genai_perf_report.csv extra= args=
while [ $# -gt 0 ]; do
	case $1 in
	--) shift; break ;;
	--result-dir) result_dir=$2 ;;
	--model) model=$2 ;;
	--url) url=$2 ;;
	--port) port=$2 ;;
	--endpoint) endpoint=$2 ;;
	--gpus-per-node) gpus=$2 ;;
	--cmd) cmd=$2 ;;
	--report-name) report=$2 ;;
	--extra-args) extra=$2 ;;
	esac
	[ $# -ge 2 ] && shift 2 || shift
done
# the rest: --key value pairs of cmd_args.genai_perf.args (booleans as a bare flag)
while [ $# -ge 2 ]; do
	case $2 in
	True | true) args="$args $1" ;;
	False | false) ;;
	*) args="$args $1 $(q "$2")" ;;
	esac
	shift 2
done
art=$result_dir/genai_perf_artifacts
full="$cmd --model $(q "$model") --url $(q "$url:$port") --endpoint $(q "$endpoint") --artifact-dir $(q "$art") --profile-export-file profile.json$args $extra"
log "running: $full"
eval "$full" || exit $?

csv=$(find "$art" -type f -name profile_genai_perf.csv 2>/dev/null | head -n 1)
[ -n "$csv" ] || { log "no profile_genai_perf.csv under $art"; exit 1; }
tr -d '\r' <"$csv" | grep '.*,.*,.*,.*' >"$result_dir/$report.tmp" || true
value() { tr -d '\r' <"$csv" | grep -F "$1" | head -n 1 | cut -d, -f2; }
tps=$(value 'Output Token Throughput (tokens/sec)')
total=$((gpus * ${SLURM_JOB_NUM_NODES:-1}))
awk -v t="${tps:-0}" -v g="$total" 'BEGIN { printf "Output tokens per second per gpu,%.2f,0,0,0,0,0,0,0,0,0,0,0\n", t / (g > 0 ? g : 1) }' >>"$result_dir/$report.tmp"
printf 'Request throughput per second,%s,0,0,0,0,0,0,0,0,0,0,0\n' "$(value 'Request Throughput (per sec)')" >>"$result_dir/$report.tmp"
printf 'Request count,%s,0,0,0,0,0,0,0,0,0,0,0\n' "$(value 'Request Count (count)')" >>"$result_dir/$report.tmp"
mv -f "$result_dir/$report.tmp" "$result_dir/$report"
log "report: $result_dir/$report"
