#!/usr/bin/env bats
# kunai job on a kubernetes system, end to end with the real ninja, against
# the STAND-IN kubectl of tests/k8s/kubectl (no cluster is reachable here):
# outcomes from pod and job conditions, per-pod logs, the shared poll,
# cleanup, faults at submission and while waiting, Ctrl-C and reattaching.
bats_require_minimum_version 1.5.0
load podman

setup() {
	W=$BATS_TEST_TMPDIR
	C=$W/c
	B=$W/out
	mkdir -p "$C/tests" "$W/k8s/namespaces"
	: >"$W/k8s/namespaces/kunai-test"
	system ""
	# sleep $LONG: a number no other process here sleeps, to find leftovers
	# (this bats process's own: suites side by side never see each other's)
	LONG=$((4000000 + $$ % 1000000))
	tst ok 'echo hello from pod; sleep 1'
	tst fail 'echo bad; exit 3'
	tst long "sleep $LONG"
	export PATH="$BATS_TEST_DIRNAME/k8s:$PATH" KUBECTL_FAKE_DIR=$W/k8s
	export KUNAI_MAX_RETRIES=0 KUNAI_K8S_TRIES=2
}

teardown() {
	local p
	podman_cleanup "k8s-$$"
	for p in $(pgrep -f "sleep $LONG\$"); do
		kill -9 "$p" 2>/dev/null
	done
}

# system KUBE-CONFIG-PATH [MORE-TOML]
system() {
	cat >"$C/system.toml" <<-T
	name = "k8s"
	scheduler = "kubernetes"
	kube_config_path = "$1"
	install_path = "./install"
	output_path = "./results"
	default_namespace = "kunai-test"
	gpus_per_node = 8
	${2:-}
	T
}

# tst NAME COMMAND
tst() {
	printf 'name = "%s"\ndescription = "d"\ntest_template_name = "BashCmd"\n[cmd_args]\ncmd = "%s"\n' "$1" "$2" \
		>"$C/tests/$1.toml"
}

# gen SCENARIO-TEXT: the campaign with this scenario, into $B
gen() {
	printf 'name = "o"\n%s\n' "$1" >"$C/scenario.toml"
	(cd "$C" && "$KUNAI" gen --system-config system.toml --tests-dir tests --test-scenario scenario.toml -o "$B") >/dev/null
}

# one ID TEST [MORE-TOML]: a scenario of one test
one() {
	gen "$(printf '[[Tests]]\nid = "%s"\ntest_name = "%s"\n%s' "$1" "$2" "${3:-}")"
}

jf() {
	sed -n -e "s/^	\"$2\":	\"\(.*\)\",\{0,1\}\$/\1/p" \
		-e "s/^	\"$2\":	\([^\",]*\),\{0,1\}\$/\1/p" "$1"
}

# the objects the stand-in still holds
objects() {
	find "$W/k8s/obj" -mindepth 3 -maxdepth 3 -type d 2>/dev/null | wc -l
}

wait_for() {
	local i=0
	while ! compgen -G "$1" >/dev/null; do
		i=$((i + 1))
		[ $i -le $((${2:-10} * 20)) ] || { echo "no $1"; return 1; }
		sleep 0.05
	done
}

ninja_bg() {
	"$NINJA" -C "$B" -k 0 run >"$W/ninja.log" 2>&1 3>&- &
	NPID=$!
}

@test "a Job, a failing Job, a JobSet of two pods: outcomes, logs per pod, nodes, nothing left behind" {
	gen '[[Tests]]
id = "a"
test_name = "ok"
[[Tests]]
id = "f"
test_name = "fail"
[[Tests]]
id = "s"
test_name = "ok"
num_nodes = 2'
	run "$NINJA" -C "$B" -k 0 run
	[ "$status" -ne 0 ]
	[[ $output == *"kunai: f/0: failed (FAILED: exit code 3)"* ]]
	[ "$(jf "$B/a/0/job.json" outcome)" = passed ]
	[ "$(jf "$B/a/0/job.json" state)" = COMPLETED ]
	[[ "$(jf "$B/a/0/job.json" job_id)" == job:kunai-a-0-* ]]
	[ "$(cat "$B/a/0/stdout.txt")" = "hello from pod" ]
	[ "$(jf "$B/f/0/job.json" outcome)" = failed ]
	[ "$(jf "$B/f/0/job.json" exit_code)" = 3 ]
	[ ! -e "$B/f/0/kunai.stamp" ]
	# the JobSet: two pods, two logs, two nodes
	[[ "$(jf "$B/s/0/job.json" job_id)" == jobset:kunai-s-0-* ]]
	[ "$(jf "$B/s/0/job.json" outcome)" = passed ]
	[ "$(jf "$B/s/0/job.json" nodes)" = "fake-node-0,fake-node-1" ]
	[ "$(ls "$B/s/0/pods" | wc -l)" -eq 2 ]
	[ "$(wc -l <"$B/s/0/stdout.txt")" -eq 2 ]
	grep -q ' fake-node-1 Succeeded$' "$B/s/0/pods.txt"
	# labelled with the build dir and the attempt, applied under its own name
	grep -q '"kunai.dev/build":' "$B/s/0/k8s.applied.json"
	grep -q '"kunai.dev/attempt":	"1"' "$B/s/0/k8s.applied.json"
	[ "$(objects)" -eq 0 ]
	[ "$(wc -l <"$W/k8s/deleted.log")" -eq 3 ]
	# the failed run again: a second attempt, the first one's files kept
	run "$NINJA" -C "$B" run
	[ "$(jf "$B/f/0/job.json" attempt)" = 2 ]
	[ -f "$B/f/0/attempt-1/pods.txt" ]
}

@test "one kubectl get per poll serves every job of the build dir, no more often than monitor_interval" {
	local i s=""
	system "" "monitor_interval = 3"
	tst mid 'sleep 4'
	for i in 1 2 3 4 5 6 7 8; do
		s="$s$(printf '[[Tests]]\nid = "t%s"\ntest_name = "mid"\n' "$i")"$'\n'
	done
	gen "$s"
	local gets creates t0=$SECONDS
	run "$NINJA" -C "$B" run
	[ "$status" -eq 0 ]
	gets=$(grep -c ' get pods,jobs.batch -l kunai.dev/build=' "$W/k8s/calls.log")
	creates=$(grep -c ' create -f ' "$W/k8s/calls.log")
	echo "8 jobs of 4 s in $((SECONDS - t0)) s: $gets polls"
	[ "$creates" -eq 8 ]
	# at most a poll each 3 s (the system's monitor_interval) for all eight
	# (and the first), not one per job; the poller's interval is 3 s or more
	[ "$gets" -ge 1 ]
	[ "$gets" -le $(((SECONDS - t0) / 3 + 2)) ]
	[ "$(awk 'NR == 1 { print ($3 >= 3000) }' "$B/.kunai/poll.state")" = 1 ]
}

@test "OOMKilled is infra, a lost node is node-fail, the deadline is timeout; no process left" {
	one m ok
	KUBECTL_FAKE_OOM=1 run "$NINJA" -C "$B" run
	[ "$(jf "$B/m/0/job.json" outcome)" = infra ]
	[ "$(jf "$B/m/0/job.json" state)" = OUT_OF_MEMORY ]
	[[ "$(jf "$B/m/0/job.json" reason)" == "OOMKilled: pod kunai-m-0-"*" on fake-node-0" ]]
	rm -rf "$B"
	one n ok
	KUBECTL_FAKE_LOSE_NODE=1 run "$NINJA" -C "$B" run
	[ "$(jf "$B/n/0/job.json" outcome)" = node-fail ]
	[[ "$(jf "$B/n/0/job.json" reason)" == "node lost: pod kunai-n-0-"*"on fake-node-0 (NodeLost)" ]]
	rm -rf "$B"
	one t long 'time_limit = "00:00:02"'
	run "$NINJA" -C "$B" run
	[ "$(jf "$B/t/0/job.json" outcome)" = timeout ]
	[ "$(jf "$B/t/0/job.json" state)" = TIMEOUT ]
	! pgrep -f "sleep $LONG\$"
	[ "$(objects)" -eq 0 ]
}

@test "an Evicted pod is infra (PREEMPTED); InvalidImageName and CreateContainerConfigError are infra at once" {
	one e ok
	KUBECTL_FAKE_EVICT=1 run "$NINJA" -C "$B" run
	[ "$(jf "$B/e/0/job.json" outcome)" = infra ]
	[ "$(jf "$B/e/0/job.json" state)" = PREEMPTED ]
	[[ "$(jf "$B/e/0/job.json" reason)" == "Evicted: pod kunai-e-0-"*": The node was low on resource: memory." ]]
	local w t0
	for w in InvalidImageName CreateContainerConfigError; do
		t0=$SECONDS
		KUBECTL_FAKE_WAITING=$w run "$NINJA" -C "$B" run
		[ "$(jf "$B/e/0/job.json" outcome)" = infra ]
		[ "$(jf "$B/e/0/job.json" state)" = LAUNCH_FAILED ]
		[[ "$(jf "$B/e/0/job.json" reason)" == "$w: "* ]]
		[ $((SECONDS - t0)) -lt 10 ]
	done
	[[ "$(jf "$B/e/0/job.json" reason)" == *'secret \"hf-token\" not found (pod kunai-e-0-'* ]]
	[ "$(objects)" -eq 0 ]
}

@test "an image that never pulls and pods that never schedule: infra after a bounded wait, deleted" {
	one p ok
	KUBECTL_FAKE_PULL_HANG=1 KUNAI_K8S_PULL_WAIT=2 run "$NINJA" -C "$B" run
	[ "$status" -ne 0 ]
	[ "$(jf "$B/p/0/job.json" outcome)" = infra ]
	[[ "$(jf "$B/p/0/job.json" reason)" == 'ImagePullBackOff: Back-off pulling image \"nvcr.io/nope:1\" (pod '*'); given up after 2 s' ]]
	[ "$(objects)" -eq 0 ]
	KUBECTL_FAKE_UNSCHEDULABLE=1 KUNAI_K8S_PENDING_WAIT=2 run "$NINJA" -C "$B" run
	[ "$(jf "$B/p/0/job.json" outcome)" = infra ]
	[ "$(jf "$B/p/0/job.json" state)" = UNSCHEDULABLE ]
	[[ "$(jf "$B/p/0/job.json" reason)" == "Unschedulable: 0/4 nodes are available: 4 Insufficient nvidia.com/gpu."* ]]
	[ "$(objects)" -eq 0 ]
}

@test "submission faults: no kubectl, bad kubeconfig, missing namespace, admission refusal, refused connection" {
	one a ok
	mkdir -p "$W/nobin"
	PATH=$W/nobin run "$NINJA" -C "$B" run
	[ "$(jf "$B/a/0/job.json" outcome)" = infra ]
	[[ "$(jf "$B/a/0/job.json" reason)" == "kubectl is not on PATH"* ]]
	system "$W/nope.kubeconfig"
	one a ok
	run "$NINJA" -C "$B" run
	# the configuration's fault: failed, naming the field, not retried
	[ "$(jf "$B/a/0/job.json" reason)" = "configuration error: kube_config_path $W/nope.kubeconfig: No such file or directory: set the system TOML's kube_config_path to a kubeconfig kubectl can read" ]
	[ "$(jf "$B/a/0/job.json" state)" = CONFIG_ERROR ]
	[ "$(jf "$B/a/0/job.json" outcome)" = failed ]
	echo 'not: a kubeconfig' >"$W/nope.kubeconfig"
	run "$NINJA" -C "$B" run
	[[ "$(jf "$B/a/0/job.json" reason)" == "configuration error: kubectl cannot load the kubeconfig '$W/nope.kubeconfig': fix it, or set the system TOML's kube_config_path to one that kubectl reads [error: error loading config file \\\"$W/nope.kubeconfig\\\""* ]]
	[ "$(jf "$B/a/0/job.json" outcome)" = failed ]
	system ""
	one a ok
	rm "$W/k8s/namespaces/kunai-test"
	run "$NINJA" -C "$B" run
	[[ "$(jf "$B/a/0/job.json" reason)" == "configuration error: namespace 'kunai-test' does not exist: set the system TOML's default_namespace to one that kubectl get namespaces lists ["*'namespaces \"kunai-test\" not found]' ]]
	[ "$(jf "$B/a/0/job.json" state)" = CONFIG_ERROR ]
	: >"$W/k8s/namespaces/kunai-test"
	KUBECTL_FAKE_REJECT="pods must not use hostNetwork" run "$NINJA" -C "$B" run
	[[ "$(jf "$B/a/0/job.json" reason)" == *'denied the request: pods must not use hostNetwork' ]]
	# kubectl's whole answer beside the record: its command line, status and stderr
	head -1 "$B/a/0/kubectl.txt" | grep -Eqx '# kubectl .*--request-timeout=30s create -f a/0/k8s\.applied\.json -o name \(in the build dir\): exit status [1-9][0-9]*'
	grep -q 'denied the request: pods must not use hostNetwork' "$B/a/0/kubectl.txt"
	KUBECTL_FAKE_REFUSE=1 run "$NINJA" -C "$B" run
	[[ $output == *"kubectl: The connection to the server 127.0.0.1:6443 was refused"*"; again in 1 s"* ]]
	[[ "$(jf "$B/a/0/job.json" reason)" == "kubectl create: The connection to the server 127.0.0.1:6443 was refused"* ]]
	[ "$(jf "$B/a/0/job.json" outcome)" = infra ]
	[ "$(objects)" -eq 0 ]
	run "$NINJA" -C "$B" run
	[ "$status" -eq 0 ]
	[ "$(jf "$B/a/0/job.json" attempt)" = 7 ]
	# the refusals moved with their records: none beside this attempt's
	[ ! -e "$B/a/0/kubectl.txt" ]
	grep -l 'hostNetwork' "$B"/a/0/attempt-*/kubectl.txt
	grep -l 'connection to the server 127.0.0.1:6443 was refused' "$B"/a/0/attempt-*/kubectl.txt
}

@test "the API server unreachable while waiting: infra after a bounded wait; the next attempt replaces the object" {
	one l long
	KUNAI_K8S_UNREACHABLE=3 ninja_bg
	wait_for "$W/k8s/pods/*/start"
	: >"$W/k8s/KUBECTL_FAKE_REFUSE"
	wait "$NPID" || true
	[ "$(jf "$B/l/0/job.json" outcome)" = infra ]
	[[ "$(jf "$B/l/0/job.json" reason)" == "no answer from the API server for "*"(kubectl get: The connection to the server"*"; not deleted: "* ]]
	rm "$W/k8s/KUBECTL_FAKE_REFUSE"
	[ "$(objects)" -eq 1 ]
	tst long 'exit 0'
	one l long
	run "$NINJA" -C "$B" run
	[ "$status" -eq 0 ]
	[[ $output == *"exists from an earlier attempt; deleting it"* ]]
	[ "$(jf "$B/l/0/job.json" attempt)" = 2 ]
	[ "$(objects)" -eq 0 ]
}

@test "SIGINT to ninja deletes every object: no pod process left, outcome cancelled" {
	gen '[[Tests]]
id = "x"
test_name = "long"
[[Tests]]
id = "y"
test_name = "long"
num_nodes = 2'
	ninja_bg
	wait_for "$B/x/0/job.json"
	wait_for "$B/y/0/job.json"
	wait_for "$W/k8s/pods/kunai-y-0-*-node-0-1-fake/start"
	wait_for "$W/k8s/pods/kunai-x-0-*/start"
	# job.json says running once the pods do (kunai run's progress line reads it)
	for i in $(seq 100); do [ "$(jf "$B/x/0/job.json" state)" = RUNNING ] && break; sleep 0.05; done
	[ "$(jf "$B/x/0/job.json" state)" = RUNNING ]
	[ "$(jf "$B/x/0/job.json" outcome)" = null ]
	sleep 0.3
	kill -INT "$NPID"
	status=0; wait "$NPID" || status=$?
	[ "$status" -ne 0 ]
	! pgrep -f "sleep $LONG\$"
	for d in x/0 y/0; do
		[ "$(jf "$B/$d/job.json" outcome)" = cancelled ]
		[ ! -e "$B/$d/kunai.stamp" ]
	done
	[ "$(objects)" -eq 0 ]
}

# the ninja of NPID and its kunai job processes
drivers() {
	local p
	echo "$NPID"
	for p in $(pgrep -P "$NPID"); do
		echo "$p"
		pgrep -P "$p" -x kunai
	done
}

@test "SIGKILL of ninja and kunai job: the next ninja reattaches, never a second object" {
	tst mid 'echo run >>'"$W"'/count; sleep 3'
	one x mid
	ninja_bg
	wait_for "$W/k8s/pods/*/start"
	kill -9 $(drivers)
	run "$NINJA" -C "$B" run
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	[[ $output == *"x/0: reattaching to job job:kunai-x-0-"* ]]
	[ "$(grep -c ' create -f ' "$W/k8s/calls.log")" -eq 1 ]
	[ "$(wc -l <"$W/count")" -eq 1 ]
	[ "$(jf "$B/x/0/job.json" attempt)" = 1 ]
	[ "$(objects)" -eq 0 ]
	# killed between kubectl create and job.json: found by its labels
	rm -f "$B/x/0/kunai.stamp"
	ninja_bg
	wait_for "$W/k8s/pods/*/start"
	kill -9 $(drivers)
	sed -i -e 's/^\t"job_id":.*/\t"job_id":\tnull,/' -e 's/^\t"state":.*/\t"state":\t"SUBMITTED",/' "$B/x/0/job.json"
	run "$NINJA" -C "$B" run
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	[[ $output == *"x/0: found job job:kunai-x-0-"*", submitted before the driver died; not submitting again"* ]]
	[ "$(grep -c ' create -f ' "$W/k8s/calls.log")" -eq 2 ]
	[ "$(wc -l <"$W/count")" -eq 2 ]
}

@test "KUNAI_K8S_KEEP=failed keeps a failed run's object for debugging; the next attempt replaces it" {
	one f fail
	KUNAI_K8S_KEEP=failed run "$NINJA" -C "$B" run
	[[ $output == *"f/0: kept job:kunai-f-0-"*"(KUNAI_K8S_KEEP=failed)"* ]]
	[ "$(objects)" -eq 1 ]
	run "$NINJA" -C "$B" run
	[ "$(jf "$B/f/0/job.json" attempt)" = 2 ]
	[ "$(objects)" -eq 0 ]
}

@test "NcclTest as an MPIJob: the launcher's log is stdout.txt and passes the check, the workers are listed" {
	mkdir -p "$W/bin"
	# a fake mpirun: what nccl-tests prints when all went well (the launcher pod runs it)
	cat >"$W/bin/mpirun" <<-'EOF2'
	#!/bin/sh
	echo "mpirun $*"
	echo "# Out of bounds values : 0 OK"
	echo "# Avg bus bandwidth    : 123.4"
	EOF2
	chmod +x "$W/bin/mpirun"
	printf 'name = "nccl"\ndescription = "d"\ntest_template_name = "NcclTest"\n[cmd_args]\ndocker_image_url = "nvcr.io#nvidia/pytorch:24.02-py3"\nsubtest_name = "all_reduce_perf_mpi"\n' \
		>"$C/tests/nccl.toml"
	one n nccl 'num_nodes = 2'
	PATH=$W/bin:$PATH run "$NINJA" -C "$B" run
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	[[ "$(jf "$B/n/0/job.json" job_id)" == mpijob:kunai-n-0-* ]]
	[ "$(jf "$B/n/0/job.json" outcome)" = passed ]
	grep -q '^mpirun --allow-run-as-root -np 16 ' "$B/n/0/stdout.txt"
	[ "$(wc -l <"$B/n/0/pods.txt")" -eq 3 ]
	[[ "$(head -1 "$B/n/0/pods.txt")" == kunai-n-0-*-launcher-fake" fake-node-0 Succeeded" ]]
	[ "$(objects)" -eq 0 ]
}

@test "start_post_init waits for the object's pods to run; end_post_comp deletes the other run's object" {
	tst mid 'sleep 3'
	gen '[[Tests]]
id = "a"
test_name = "mid"
[[Tests]]
id = "i"
test_name = "ok"
  [[Tests.dependencies]]
  type = "start_post_init"
  id = "a"
[[Tests]]
id = "s"
test_name = "long"
  [[Tests.dependencies]]
  type = "end_post_comp"
  id = "a"'
	run "$NINJA" -C "$B" -j 16 -k 0 run
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	# i was created once a's pod ran, before a ended
	[ "$(grep -n ' create -f i/0/' "$W/k8s/calls.log" | cut -d: -f1)" -gt \
		"$(grep -n ' create -f a/0/' "$W/k8s/calls.log" | cut -d: -f1)" ]
	[[ "$(jf "$B/i/0/job.json" start_time)" < "$(jf "$B/a/0/job.json" end_time)" ||
		"$(jf "$B/i/0/job.json" start_time)" == "$(jf "$B/a/0/job.json" end_time)" ]]
	[ "$(jf "$B/s/0/job.json" outcome)" = passed ]
	[ "$(jf "$B/s/0/job.json" reason)" = "stopped: a completed" ]
	! pgrep -f "sleep $LONG\$"
	[ "$(objects)" -eq 0 ]
}

# dynamo [GENAI-PERF-BODY]: an AIDynamo test (CloudAI's Kubernetes form: a
# DynamoGraphDeployment), generated into $B with genai_perf.sh installed,
# and a stand-in genai-perf on PATH (the frontend pod runs it)
dynamo() {
	printf 'name = "dyn"\ndescription = "d"\ntest_template_name = "AIDynamo"\n[cmd_args]\ndocker_image_url = "nvcr.io/nvidia/ai-dynamo/vllm-runtime:0.6.1"\n[cmd_args.dynamo]\nmodel = "Qwen/Qwen3-0.6B"\n[cmd_args.genai_perf.args]\nconcurrency = 4\n' \
		>"$C/tests/dyn.toml"
	one d dyn
	mkdir -p "$B/install" "$W/bin"
	cp "$BATS_TEST_DIRNAME/../workloads/serve/genai_perf.sh" "$B/install/"
	cat >"$W/bin/genai-perf" <<-S
	#!/bin/sh
	${1:-}
	while [ \$# -gt 0 ]; do [ "\$1" = --artifact-dir ] && d=\$2; shift; done
	mkdir -p "\$d/p" && printf 'Metric,avg,min,p99\nOutput Token Throughput (tokens/sec),800,1,1\nRequest Count (count),10,1,1\n' >"\$d/p/profile_genai_perf.csv"
	S
	chmod +x "$W/bin/genai-perf"
	export PATH=$W/bin:$PATH
}

# the run edge's command, as ninja runs it (`ninja run` would first install
# the dynamo repository, which needs the network)
dyn_job() {
	(cd "$B" && "$KUNAI" job run --scheduler kubernetes d/0/kunai.stamp)
}

@test "AIDynamo as a DynamoGraphDeployment: pods Ready, genai-perf in the frontend pod, results copied and graded, deleted" {
	dynamo 'echo "genai-perf $*" >>'"$W"'/calls'
	run dyn_job
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	[[ "$(jf "$B/d/0/job.json" job_id)" == dgd:kunai-d-0-* ]]
	[ "$(jf "$B/d/0/job.json" outcome)" = passed ]
	[ "$(jf "$B/d/0/job.json" nodes)" = "fake-node-decode,fake-node-frontend,fake-node-prefill" ]
	# kunai's labels on the object and on every service (the operator's pods carry them)
	[ "$(grep -c '"kunai.dev/run":	"d.0"' "$B/d/0/k8s.applied.json")" -eq 4 ]
	# CloudAI's arguments, in the pod (its /tmp), from the frontend pod only
	grep -q "^genai-perf profile --model Qwen/Qwen3-0.6B --url http://localhost:8000 --endpoint v1/chat/completions --artifact-dir $W/k8s/pods/kunai-d-0-.*-frontend-fake/fs/tmp/kunai-genai-perf/genai_perf_artifacts .* --concurrency 4" "$W/calls"
	[ "$(grep -c ' exec kunai-d-0-.*-frontend-fake -- /bin/bash /tmp/kunai-genai_perf.sh ' "$W/k8s/calls.log")" -eq 1 ]
	grep -q '^Output tokens per second per gpu,100.00' "$B/d/0/genai_perf_report.csv"
	[ -f "$B/d/0/genai-perf/genai_perf_artifacts/p/profile_genai_perf.csv" ]
	grep -q 'report: ' "$B/d/0/genai_perf.log"
	[ "$(ls "$B/d/0/pods" | wc -l)" -eq 3 ]
	[ "$(objects)" -eq 0 ]
	! pgrep -f "sleep $LONG\$"
	# the AIDynamo grader reads what was copied
	"$NINJA" -C "$B" report >/dev/null
	grep -q '"output_token_throughput":	800' "$B/report/summary.json"
	# the benchmark fails: failed, its exit code
	dynamo 'echo "no server" >&2; exit 4'
	rm "$B/d/0/kunai.stamp"
	run dyn_job
	[ "$(jf "$B/d/0/job.json" outcome)" = failed ]
	[ "$(jf "$B/d/0/job.json" exit_code)" = 4 ]
	[[ $output == *"d/0: benchmark in pod kunai-d-0-"*"-frontend-fake: exit status 4 (genai_perf.log)"* ]]
	grep -q '^no server' "$B/d/0/genai_perf.log"
	[ "$(objects)" -eq 0 ]
	# a worker that never gets Ready: infra after the bounded wait, with why
	KUBECTL_FAKE_NEVER_READY=1 KUNAI_K8S_READY_WAIT=2 run dyn_job
	[ "$(jf "$B/d/0/job.json" outcome)" = infra ]
	[ "$(jf "$B/d/0/job.json" state)" = NOT_READY ]
	[[ "$(jf "$B/d/0/job.json" reason)" == "the DynamoGraphDeployment's pods are not Ready after 2 s: "?" of 3 pods ready; pod kunai-d-0-"*"-decode-fake: CrashLoopBackOff" ]]
	[ "$(objects)" -eq 0 ]
	! pgrep -f "sleep $LONG\$"
}

@test "AIDynamo: SIGKILL while the pods start reattaches (one object); SIGINT during the benchmark deletes it" {
	dynamo 'echo run >>'"$W"'/count; sleep '"$LONG"
	(cd "$B" && exec "$KUNAI" job run --scheduler kubernetes d/0/kunai.stamp) >"$W/job.log" 2>&1 3>&- &
	local pid=$!
	wait_for "$W/k8s/pods/*-frontend-fake/start"
	kill -9 "$pid"
	wait "$pid" || true
	(cd "$B" && exec "$KUNAI" job run --scheduler kubernetes d/0/kunai.stamp) >"$W/job.log" 2>&1 3>&- &
	pid=$!
	wait_for "$W/count" || { cat "$W/job.log" "$W/k8s/calls.log"; false; }
	kill -INT "$pid"
	status=0; wait "$pid" || status=$?
	[ "$status" -ne 0 ]
	grep -q 'reattaching to job dgd:kunai-d-0-' "$W/job.log"
	[ "$(grep -c ' create -f ' "$W/k8s/calls.log")" -eq 1 ]
	[ "$(jf "$B/d/0/job.json" outcome)" = cancelled ]
	[ "$(objects)" -eq 0 ]
	sleep 0.2
	! pgrep -f "sleep $LONG\$"
}

@test "KunaiAllReduce as an MPIJob in kunai-workloads: the launcher's mpirun reaches two worker containers' sshd on port 222" {
	need_image
	port_closed 127.0.0.2 222 && port_closed 127.0.0.3 222 || skip "something already listens on port 222"
	# the system's workloads_image names the image; one slot per worker
	cat >"$C/system.toml" <<-T
	name = "k8s"
	scheduler = "kubernetes"
	kube_config_path = ""
	install_path = "./install"
	output_path = "./results"
	default_namespace = "kunai-test"
	gpus_per_node = 1
	workloads_image = "$IMAGE"
	T
	printf 'name = "allreduce"\ndescription = "d"\ntest_template_name = "KunaiAllReduce"\n' >"$C/tests/ar.toml"
	printf '[cmd_args]\ncpu = true\nmaxbytes = "1M"\niters = 5\nwarmup = 1\n' >>"$C/tests/ar.toml"
	one a allreduce 'num_nodes = 2'
	grep -q "\"image\":	\"$IMAGE\"" "$B/a/0/k8s.json"
	KUBECTL_FAKE_PODMAN=1 KUBECTL_FAKE_PODMAN_LABEL=k8s-$$ run "$NINJA" -C "$B" run
	[ "$status" -eq 0 ] || { echo "$output"; cat "$B"/a/0/stdout.txt "$W"/k8s/pods/*/podman.err; false; }
	[[ "$(jf "$B/a/0/job.json" job_id)" == mpijob:kunai-a-0-* ]]
	[ "$(jf "$B/a/0/job.json" outcome)" = passed ]
	# two ranks, one per worker (a slot each), and the bandwidth
	grep -q '^\[ALLREDUCE\] 2 ranks, MPI: largest busbw .* GB/s at' "$B/a/0/stdout.txt"
	(cd "$B" && "$KUNAI" grade a/0/report.json)
	grep -q '"outcome":	"passed"' "$B/a/0/report.json"
	grep -q '"max_busbw":	[0-9]' "$B/a/0/report.json"
	[ "$(wc -l <"$B/a/0/pods.txt")" -eq 3 ]
	# nothing is left: no object, no container, no sshd
	[ "$(objects)" -eq 0 ]
	[ -z "$(podman ps -aq --filter "label=kunai.test=k8s-$$")" ]
	port_closed 127.0.0.2 222
	port_closed 127.0.0.3 222
}
