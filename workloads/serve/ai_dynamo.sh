#!/bin/sh
# ai_dynamo.sh: kunai's wrapper for AIDynamo, run once per node of the job
# (srun --ntasks-per-node=1) inside the Dynamo container. It takes the
# settings CloudAI's AIDynamo passes ("--SECTION-name value" pairs) and:
# on the frontend node (the first decode node) starts etcd, NATS and the
# LMCache controller; on every decode and prefill node starts its workers
# (one, or one per tp*pp GPUs with multiple-workers-per-node); on the
# frontend node starts the ingress, waits for every worker's "initialized"
# line and for the frontend, runs the benchmarks (genai-perf, the aiperf
# script, aiperf accuracy) and writes the success or the failure marker.
# Every node waits for one of the markers, stops what it started and exits
# 0 on success, 1 on failure. POSIX sh; logs go to the results dir.
set -u

log() { printf '[%s %s]: %s\n' "$(date '+%F %T')" "$(hostname)" "$*"; }
# q WORD: WORD quoted for eval
q() { printf "'%s'" "$(printf '%s' "$1" | sed "s/'/'\\\\''/g")"; }
# name KEY: KEY as a shell name part ('-' as '_'), or nothing when it cannot be one
name() { case $1 in *[!A-Za-z0-9_-]* | '') ;; *) printf '%s' "$1" | tr - _ ;; esac; }

RESULTS_DIR=/cloudai_run_results INSTALL_DIR=/cloudai_install
FAILURE_MARKER=$RESULTS_DIR/failure-marker.txt SUCCESS_MARKER=$RESULTS_DIR/success-marker.txt
WORKLOADS=genai_perf.sh LMCACHE_CONTROLLER_CMD= STORAGE_CACHE_DIR=
dyn_model=Qwen/Qwen3-0.6B dyn_backend=vllm dyn_endpoint=v1/chat/completions dyn_port=8000
dyn_ingress_cmd='python -m dynamo.frontend --router-mode kv' dyn_node_setup_cmd=
dyn_etcd_cmd='etcd --log-level info --data-dir /tmp/etcd' dyn_etcd_port=2379
dyn_nats_cmd='nats-server -js' dyn_nats_port=4222 dyn_workspace_path=
for r in prefill decode; do
	for k in cmd worker_initialized_regex multiple_workers_per_node num_nodes extra_args node_list args; do
		eval "${r}_$k="
	done
done
prefill_num_nodes=0 decode_num_nodes=1
genai_perf_cfg= genai_perf_args= aiperf_cfg= aiperf_args= aiperf_accuracy_cfg=

# The settings: each --SECTION-name VALUE pair.
while [ $# -ge 2 ]; do
	k=$1 v=$2
	shift 2
	case $k in
	--user | --hf-home | --dynamo-repo) ;;
	--install-dir) INSTALL_DIR=$v ;;
	--results-dir) RESULTS_DIR=$v ;;
	--workloads) WORKLOADS=$v ;;
	--failure-marker) FAILURE_MARKER=$v ;;
	--success-marker) SUCCESS_MARKER=$v ;;
	--storage-cache-dir) STORAGE_CACHE_DIR=$v ;;
	--lmcache-controller-cmd) LMCACHE_CONTROLLER_CMD=$v ;;
	--prefill-args-* | --decode-args-*)
		r=${k#--}; r=${r%%-*}; a=${k#--"$r"-args-}
		eval "${r}_args=\"\$${r}_args --$a \$(q \"\$v\")\"" ;;
	--prefill-* | --decode-* | --dynamo-*)
		r=${k#--}; r=${r%%-*}; n=$(name "${k#--"$r"-}")
		[ "$r" = dynamo ] && r=dyn
		[ -n "$n" ] && eval "${r}_$n=\$v" ;;
	--genai_perf-args-* | --aiperf-args-*)
		r=${k#--}; r=${r%%-*}; a=${k#--"$r"-args-}
		eval "${r}_args=\"\$${r}_args --$a \$(q \"\$v\")\"" ;;
	--genai_perf-* | --aiperf_accuracy-* | --aiperf-*)
		r=${k#--}; r=${r%%-*}; a=${k#--"$r"-}
		eval "${r}_cfg=\"\$${r}_cfg --$a \$(q \"\$v\")\"" ;;
	*) log "ignoring unknown setting $k" ;;
	esac
done

mark_failed() {
	log "FATAL: $*"
	[ -f "$FAILURE_MARKER" ] || printf '%s\n' "$*" >"$FAILURE_MARKER"
}

# cfg_get CFG KEY: the value of --KEY in a quoted setting list
cfg_get() {
	_k=--$2
	eval "set -- $1"
	while [ $# -ge 2 ]; do
		[ "$1" = "$_k" ] && { printf '%s' "$2"; return; }
		shift 2
	done
}

SELF=${SLURMD_NODENAME:-$(hostname)}
# CloudAI's tests set it to "$(scontrol show hostname ...)", which kunai
# exports literally: a value that is no node list is ignored
case ${DYNAMO_NODELIST:-} in *[!A-Za-z0-9_.,-]*) DYNAMO_NODELIST= ;; esac
[ -n "${DYNAMO_NODELIST:-}" ] || DYNAMO_NODELIST=$(scontrol show hostnames "${SLURM_JOB_NODELIST:-}" 2>/dev/null | paste -sd, -)
[ -n "$DYNAMO_NODELIST" ] || DYNAMO_NODELIST=$SELF
ALL=$(printf '%s' "$DYNAMO_NODELIST" | tr ',' '\n' | grep -v '^$')
# the first N nodes, leaving out those in EXCLUDE (comma-separated)
pick() { printf '%s\n' "$ALL" | awk -v n="$1" -v ex=",$2," 'index(ex, "," $0 ",") == 0 && c < n { print; c++ }' | paste -sd, -; }
[ -n "$decode_node_list" ] || decode_node_list=$(pick "${decode_num_nodes:-1}" "")
if [ -z "$prefill_node_list" ] && [ "${prefill_num_nodes:-0}" -gt 0 ]; then
	if [ "$(printf '%s\n' "$ALL" | wc -l)" -lt $((decode_num_nodes + prefill_num_nodes)) ]; then
		prefill_node_list=$(pick "$prefill_num_nodes" "")
	else
		prefill_node_list=$(pick "$prefill_num_nodes" "$decode_node_list")
	fi
fi
FRONTEND=${decode_node_list%%,*}
URL=http://$FRONTEND:$dyn_port
in_list() { case ",$2," in *",$1,"*) return 0 ;; esac; return 1; }
log "node $SELF: decode nodes $decode_node_list, prefill nodes $prefill_node_list, frontend $FRONTEND"

export ETCD_ENDPOINTS="http://$FRONTEND:$dyn_etcd_port" NATS_SERVER="nats://$FRONTEND:$dyn_nats_port"
export HF_HOME="${HF_HOME:-$INSTALL_DIR/huggingface}"
[ -n "$STORAGE_CACHE_DIR" ] && mkdir -p "$STORAGE_CACHE_DIR" 2>/dev/null
case " $decode_args $prefill_args " in *kvbm*) export ENABLE_KVBM=1 ;; esac
[ -n "${LMCACHE_CONFIG_FILE:-}" ] && export ENABLE_LMCACHE=1
if [ -n "${LMCACHE_CONFIG_FILE:-}" ] && [ -f "$LMCACHE_CONFIG_FILE" ]; then
	# the placeholders of CloudAI's LMCache config, for this job
	sed -e "s|{frontend_node}|$FRONTEND|g" -e "s|{storage_cache_dir}|${STORAGE_CACHE_DIR:-/tmp}|g" \
		"$LMCACHE_CONFIG_FILE" >"$LMCACHE_CONFIG_FILE.tmp" && mv -f "$LMCACHE_CONFIG_FILE.tmp" "$LMCACHE_CONFIG_FILE"
fi

pids=
bg() { "$@" & pids="$pids $!"; }
stop_all() { [ -z "$pids" ] || kill $pids 2>/dev/null; }
trap stop_all EXIT

[ -z "$dyn_node_setup_cmd" ] || sh -c "$dyn_node_setup_cmd" || log "node setup command failed"
[ -z "$dyn_workspace_path" ] || [ ! -d "$dyn_workspace_path" ] || cd "$dyn_workspace_path" || exit 1

if [ "$SELF" = "$FRONTEND" ]; then
	bg sh -c "exec $dyn_etcd_cmd --listen-client-urls http://0.0.0.0:$dyn_etcd_port --advertise-client-urls http://0.0.0.0:$dyn_etcd_port >'$RESULTS_DIR/etcd.log' 2>&1"
	bg sh -c "exec $dyn_nats_cmd -p $dyn_nats_port >'$RESULTS_DIR/nats.log' 2>&1"
	[ -z "$LMCACHE_CONTROLLER_CMD" ] || bg sh -c "exec $LMCACHE_CONTROLLER_CMD >'$RESULTS_DIR/lmcache_controller.log' 2>&1"
fi
i=0
until curl -fsS --max-time 2 "http://$FRONTEND:$dyn_etcd_port/health" >/dev/null 2>&1; do
	i=$((i + 1))
	[ "$i" -lt 150 ] || { mark_failed "etcd on $FRONTEND did not come up"; break; }
	sleep 2
done

GPUS=$(printf '%s' "${CUDA_VISIBLE_DEVICES:-}" | tr ',' '\n' | grep -c . || true)
[ "${GPUS:-0}" -gt 0 ] || GPUS=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU' || true)
[ "${GPUS:-0}" -gt 0 ] || GPUS=1
# launch ROLE: the role's workers on this node, each on its GPUs
launch() {
	r=$1
	eval "cmd=\$${r}_cmd multi=\$${r}_multiple_workers_per_node extra=\$${r}_extra_args args=\$${r}_args"
	tp=$(cfg_get "$args" tensor-parallel-size) pp=$(cfg_get "$args" pipeline-parallel-size)
	per=$((${tp:-1} * ${pp:-1}))
	n=1
	case $multi in True | true) [ "$per" -gt 0 ] && n=$((GPUS / per)) && [ "$n" -ge 1 ] || n=1 ;; esac
	w=0
	while [ "$w" -lt "$n" ]; do
		gpus=$(seq $((w * per)) $((w * per + per - 1)) | paste -sd, -)
		[ "$n" -gt 1 ] || gpus=${CUDA_VISIBLE_DEVICES:-$(seq 0 $((GPUS - 1)) | paste -sd, -)}
		log "$r worker $w on GPUs $gpus: $cmd $args $extra"
		bg env CUDA_VISIBLE_DEVICES="$gpus" DYN_SYSTEM_PORT=$((${DYN_SYSTEM_PORT:-9090} + w)) \
			VLLM_NIXL_SIDE_CHANNEL_PORT=$((${VLLM_NIXL_SIDE_CHANNEL_PORT:-5557} + w * per)) \
			sh -c "exec $cmd $args $extra >'$RESULTS_DIR/$r-$SELF-$w.log' 2>&1"
		w=$((w + 1))
	done
	echo "$n" >"$RESULTS_DIR/$r-$SELF.workers"
}
in_list "$SELF" "$decode_node_list" && launch decode
in_list "$SELF" "$prefill_node_list" && launch prefill

# ready ROLE: whether every worker of the role logged its initialized line
ready() {
	r=$1
	eval "list=\$${r}_node_list re=\$${r}_worker_initialized_regex"
	[ -n "$list" ] || return 0
	for node in $(printf '%s' "$list" | tr ',' ' '); do
		[ -f "$RESULTS_DIR/$r-$node.workers" ] || return 1
		n=$(cat "$RESULTS_DIR/$r-$node.workers")
		w=0
		while [ "$w" -lt "$n" ]; do
			grep -Eq -- "$re" "$RESULTS_DIR/$r-$node-$w.log" 2>/dev/null || return 1
			w=$((w + 1))
		done
	done
}

# bench NAME SCRIPT CFG ARGS: one benchmark against the frontend
bench() {
	log "running $1"
	FRONTEND_URL=$URL AIPERF_MODEL=$dyn_model AIPERF_ENDPOINT=$dyn_endpoint AIPERF_FAILURE_MARKER=$FAILURE_MARKER \
		AIPERF_SERVER_METRICS_URLS="${AIPERF_SERVER_METRICS_URLS:-$URL/metrics}" \
		sh -c "exec sh $(q "$2") --result-dir $(q "$RESULTS_DIR") --install-dir $(q "$INSTALL_DIR") \
			--model $(q "$dyn_model") --url $(q "http://$FRONTEND") --port $dyn_port --endpoint $(q "$dyn_endpoint") \
			--gpus-per-node $GPUS $3 -- $4" >"$RESULTS_DIR/$1.log" 2>&1 ||
		{ mark_failed "$1 failed with exit status $?, see $RESULTS_DIR/$1.log"; return 1; }
}

if [ "$SELF" = "$FRONTEND" ] && [ ! -f "$FAILURE_MARKER" ]; then
	bg sh -c "exec $dyn_ingress_cmd --http-port $dyn_port >'$RESULTS_DIR/frontend.log' 2>&1"
	i=0
	until ready decode && ready prefill; do
		i=$((i + 1))
		[ ! -f "$FAILURE_MARKER" ] || break
		[ "$i" -lt "${WORKER_START_TIMEOUT:-1800}" ] || { mark_failed "workers did not log their initialized line"; break; }
		sleep 1
	done
	i=0
	until [ -f "$FAILURE_MARKER" ] || curl -fsS --max-time 5 "$URL/v1/models" | grep -q .; do
		i=$((i + 1))
		[ "$i" -lt 300 ] || { mark_failed "the frontend at $URL did not answer"; break; }
		sleep 2
	done
	if [ ! -f "$FAILURE_MARKER" ]; then
		ok=1
		case ",$WORKLOADS," in *,genai_perf.sh,*)
			bench genai_perf "$INSTALL_DIR/genai_perf.sh" "$genai_perf_cfg" "$genai_perf_args" || ok=0 ;;
		esac
		case ",$WORKLOADS," in *,aiperf.sh,*)
			s=$(cfg_get "$aiperf_cfg" script)
			if [ "$ok" = 1 ] && [ "$s" = "$RESULTS_DIR/aiperf.sh" ]; then
				FRONTEND_URL=$URL AIPERF_MODEL=$dyn_model AIPERF_ENDPOINT=$dyn_endpoint AIPERF_FAILURE_MARKER=$FAILURE_MARKER \
					AIPERF_SERVER_METRICS_URLS="${AIPERF_SERVER_METRICS_URLS:-$URL/metrics}" \
					bash "$s" >"$RESULTS_DIR/aiperf.log" 2>&1 || { mark_failed "aiperf failed, see $RESULTS_DIR/aiperf.log"; ok=0; }
			elif [ "$ok" = 1 ]; then
				bench aiperf "$INSTALL_DIR/aiperf.sh" "$aiperf_cfg" "$aiperf_args" || ok=0
			fi ;;
		esac
		[ "$ok" = 0 ] || [ -z "$aiperf_accuracy_cfg" ] ||
			bench aiperf_accuracy "$INSTALL_DIR/accuracy.sh" "$aiperf_accuracy_cfg" "" || ok=0
		[ "$ok" = 0 ] || { log "done"; : >"$SUCCESS_MARKER"; }
	fi
fi

until [ -f "$SUCCESS_MARKER" ] || [ -f "$FAILURE_MARKER" ]; do sleep 5; done
[ -f "$FAILURE_MARKER" ] && exit 1
exit 0
