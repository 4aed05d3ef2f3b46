#!/bin/sh
# dynamo_mocker.sh: kunai's wrapper for DynamoMocker, on one machine without
# GPU: NATS, then dynamo.mocker (one process of --num-workers, or prefill
# and decode mockers), dynamo.frontend (file discovery, TCP request plane),
# the wait for the model, then genai-perf or aiperf with the configured
# load (offline: --concurrency, online: --request-rate). The benchmark's
# CSV becomes benchmark_report.csv; the success marker follows, or the
# failure marker with the reason. Takes the flags of CloudAI's
# DynamoMocker command (--section-key value). POSIX sh.
set -u
log() { printf '[%s %s]: %s\n' "$(date '+%F %T')" "$(hostname)" "$*"; }
q() { printf "'%s'" "$(printf '%s' "$1" | sed "s/'/'\\\\''/g")"; }

py=python3 dir=. model=Qwen/Qwen3-0.6B nats='nats-server -js' speedup=1.0 block=64 blocks=16384
caching=true port=8000 router=round_robin mode=none tool=genai_perf in_tok=5000 out_tok=500 count=1000
conc=100 replay=offline workers=1 pf_n=1 dc_n=1 bw=200.0 pf_re='created and running' dc_re='created and running'
pf_cmd='' dc_cmd='' pf_extra='' dc_extra='' pf_args='' dc_args='' engine='' mocker='' frontend='' bench_cmd='' bench_extra='' bench=''
# --KEY VALUE as a flag: "true" alone, "false" left out
flag() { case $2 in true) printf ' %s' "$1" ;; false) ;; *) printf ' %s %s' "$1" "$(q "$2")" ;; esac; }
while [ $# -ge 2 ]; do
	k=$1 v=$2
	shift 2
	case $k in
	--venv-python) py=$v ;;
	--result-dir) dir=$v ;;
	--model-path) model=$v ;;
	--nats-cmd) nats=$v ;;
	--speedup-ratio) speedup=$v ;;
	--block-size) block=$v ;;
	--num-gpu-blocks-override) blocks=$v ;;
	--enable-prefix-caching) caching=$v ;;
	--http-port) port=$v ;;
	--router-mode) router=$v ;;
	--disaggregation-mode) mode=$v ;;
	--benchmark-tool) tool=$v ;;
	--input-tokens) in_tok=$v ;;
	--output-tokens) out_tok=$v ;;
	--request-count) count=$v ;;
	--replay-concurrency) conc=$v ;;
	--replay-mode) replay=$v ;;
	--num-workers) workers=$v ;;
	--prefill-num-nodes) pf_n=$v ;;
	--decode-num-nodes) dc_n=$v ;;
	--kv-transfer-bandwidth) bw=$v ;;
	--prefill-initialized-regex) pf_re=$v ;;
	--decode-initialized-regex) dc_re=$v ;;
	--prefill-cmd) pf_cmd=$v ;;
	--decode-cmd) dc_cmd=$v ;;
	--prefill-extra-args) pf_extra=$v ;;
	--decode-extra-args) dc_extra=$v ;;
	--prefill-args-*) pf_args="$pf_args$(flag "--${k#--prefill-args-}" "$v")" ;;
	--decode-args-*) dc_args="$dc_args$(flag "--${k#--decode-args-}" "$v")" ;;
	--engine-*) engine="$engine$(flag "--${k#--engine-}" "$v")" ;;
	--mocker-*) mocker="$mocker$(flag "--${k#--mocker-}" "$v")" ;;
	--frontend-*) frontend="$frontend$(flag "--${k#--frontend-}" "$v")" ;;
	--genai-perf-cmd | --aiperf-cmd) bench_cmd=$v ;;
	--genai-perf-extra-args | --aiperf-extra-args) bench_extra=$v ;;
	--genai-perf-*) bench="$bench$(flag "--${k#--genai-perf-}" "$v")" ;;
	--aiperf-*) bench="$bench$(flag "--${k#--aiperf-}" "$v")" ;;
	*) log "ignoring unknown flag $k" ;;
	esac
done
mkdir -p "$dir" || exit 1
fail() {
	log "FATAL: $*"
	[ -f "$dir/failure-marker.txt" ] || printf '%s\n' "$*" >"$dir/failure-marker.txt"
	exit 1
}
pids=
trap '[ -z "$pids" ] || kill $pids 2>/dev/null' EXIT
bg() { sh -c "exec $1 >$(q "$2") 2>&1" & pids="$pids $!"; }
[ -x "$py" ] || command -v "$py" >/dev/null 2>&1 || fail "python not found: $py"
cache=--enable-prefix-caching
[ "$caching" = false ] && cache=--no-enable-prefix-caching
common="--model-path $(q "$model") --speedup-ratio $(q "$speedup") --block-size $(q "$block") --num-gpu-blocks-override $(q "$blocks") $cache"
plane="--discovery-backend file --request-plane tcp"

bg "$nats -p 4222 -m 8222" "$dir/nats.log"
# ready PREFIX N REGEX: N logs PREFIX_i.log each with a line matching REGEX
ready() {
	i=0
	while [ "$i" -lt "$2" ]; do
		grep -Eq -- "$3" "$dir/$1_$i.log" 2>/dev/null || return 1
		i=$((i + 1))
	done
}
if [ "$mode" = none ]; then
	bg "$(q "$py") -m dynamo.mocker $common --num-workers $(q "$workers") $plane$engine$mocker" "$dir/dynamo_mocker_combined.log"
elif [ "$mode" = prefill_decode ]; then
	[ -n "$pf_cmd" ] || pf_cmd="$(q "$py") -m dynamo.mocker --disaggregation-mode prefill"
	[ -n "$dc_cmd" ] || dc_cmd="$(q "$py") -m dynamo.mocker --disaggregation-mode decode"
	for role in prefill decode; do
		if [ $role = prefill ]; then c=$pf_cmd n=$pf_n a="$engine$mocker$pf_args $pf_extra"; else c=$dc_cmd n=$dc_n a="$engine$mocker$dc_args $dc_extra"; fi
		i=0
		while [ "$i" -lt "$n" ]; do
			bg "$c $common --num-workers 1 --kv-transfer-bandwidth $(q "$bw") $plane$a" "$dir/dynamo_${role}_$i.log"
			i=$((i + 1))
		done
	done
	i=0
	until ready dynamo_prefill "$pf_n" "$pf_re" && ready dynamo_decode "$dc_n" "$dc_re"; do
		i=$((i + 1))
		[ "$i" -lt "${WORKER_START_TIMEOUT:-300}" ] || fail "the mockers did not initialize, see $dir/dynamo_*.log"
		sleep 1
	done
else
	fail "unknown disaggregation mode '$mode'"
fi
rm_flag=
[ "$router" = kv_router ] && rm_flag=--no-router-kv-events
r=$router
[ "$router" = kv_router ] && r=kv
bg "$(q "$py") -m dynamo.frontend --http-port $(q "$port") --router-mode $(q "$r") $plane $rm_flag$frontend" "$dir/dynamo_frontend.log"
i=0
until curl -fsS --max-time 5 "http://localhost:$port/v1/models" 2>/dev/null | grep -q '"id"'; do
	i=$((i + 1))
	[ "$i" -lt 150 ] || fail "no model registered with the frontend on port $port"
	sleep 2
done

load="--concurrency $(q "$conc")"
[ "$replay" = online ] && load="--request-rate $(q "$conc")"
art=$dir/${tool}_artifacts
if [ "$tool" = aiperf ]; then
	[ -n "$bench_cmd" ] || bench_cmd="aiperf profile"
	full="$bench_cmd --model $(q "$model") --url $(q "http://localhost:$port") --endpoint-type chat --streaming --synthetic-input-tokens-mean $(q "$in_tok") --output-tokens-mean $(q "$out_tok") --request-count $(q "$count") $load$bench --artifact-dir $(q "$art") $bench_extra"
else
	[ -n "$bench_cmd" ] || bench_cmd="genai-perf profile"
	full="$bench_cmd --model $(q "$model") --url $(q "localhost:$port") --endpoint-type chat --streaming $load --request-count $(q "$count") --synthetic-input-tokens-mean $(q "$in_tok") --output-tokens-mean $(q "$out_tok")$bench --artifact-dir $(q "$art") $bench_extra"
fi
log "running: $full"
(eval "$full") >"$dir/$tool.log" 2>&1 || fail "$tool failed with status $?, see $dir/$tool.log"
csv=$(find "$art" -type f \( -name profile_export_aiperf.csv -o -name profile_genai_perf.csv \) 2>/dev/null | head -n 1)
[ -n "$csv" ] || fail "no benchmark CSV under $art"
tr -d '\r' <"$csv" >"$dir/benchmark_report.csv"
echo SUCCESS >"$dir/success-marker.txt"
log "done"
