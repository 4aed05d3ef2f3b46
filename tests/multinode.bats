#!/usr/bin/env bats
# kunai on a real 4-node Slurm cluster (tests/slurm/cluster: one slurmctld here,
# n1..n4 each a slurmd in its own network, UTS and mount namespace), end to end
# through `kunai run` and the real ninja: a GEMM per node and a 2-node all-reduce
# with srun --mpi=pmix, the fleet verdict when healthy and with n4 capped at 5% of
# a CPU, nodes/exclude_nodes/node groups, --single-sbatch across nodes, Ctrl-C
# cancelling multi-node jobs, a node failing under a 2-node job. Campaigns live
# under the cluster's work/ folder: each node has its own /tmp.
bats_require_minimum_version 1.5.0

setup_file() {
	local why out
	why=$("$BATS_TEST_DIRNAME/slurm/cluster" probe 2>&1) || skip "no multi-node cluster here: $why"
	# ports of our own (KUNAI_TEST_SLURM_PORT: the suites' first; run_slurm.bats's
	# plain cluster leaves +2 and +3 unused)
	export CLUSTER_PORT=$((${KUNAI_TEST_SLURM_PORT:-$((20000 + ($$ % 1000) * 8))} + 2))
	export CL=/tmp/kunai-cluster-$$
	out=$(SLURM_LOCAL_PORT=$CLUSTER_PORT SLURM_CLUSTER_CPUS=2 "$BATS_TEST_DIRNAME/slurm/cluster" start "$CL" 4 2>&1) ||
		{ echo "slurm/cluster start: $out" >&3; return 1; }
	export SLURM_CONF=${out##*SLURM_CONF=}
}

teardown_file() {
	[ -n "${CL:-}" ] && [ -d "$CL" ] || return 0
	"$BATS_TEST_DIRNAME/slurm/cluster" stop "$CL" >&3 2>&1 || true
	rm -rf "$CL"
}

setup() {
	[ -n "${SLURM_CONF:-}" ] || skip "no cluster"
	Q="$BATS_TEST_DIRNAME/jsonquery"
	C=$CL/work/$BATS_TEST_NUMBER/c
	B=$CL/work/$BATS_TEST_NUMBER/out
	mkdir -p "$C/tests"
	cat >"$C/system.toml" <<-'T'
	name = "multi"
	scheduler = "slurm"
	install_path = "./install"
	output_path = "./results"
	default_partition = "debug"
	mpi = "pmix"
	[[partitions]]
	name = "debug"
	  [[partitions.groups]]
	  name = "back"
	  nodes = ["n[3-4]"]
	T
	cp "$BATS_TEST_DIRNAME/../conf/test/kunai_gemm.toml" "$C/tests/"
	printf 'name = "kunai_allreduce"\ndescription = "d"\ntest_template_name = "KunaiAllReduce"\n[cmd_args]\nminbytes = "1K"\nmaxbytes = "64K"\nstepfactor = 4\niters = 5\nwarmup = 1\n' \
		>"$C/tests/kunai_allreduce.toml"
	# where each task ran: srun on every node of the job
	printf 'name = "where"\ndescription = "d"\ntest_template_name = "BashCmd"\n[cmd_args]\ncmd = "srun hostname | sort >where.txt"\n' \
		>"$C/tests/where.toml"
	printf 'name = "long"\ndescription = "d"\ntest_template_name = "BashCmd"\n[cmd_args]\ncmd = "srun sleep 300"\n' \
		>"$C/tests/long.toml"
	# the first attempt hangs on every node (until a node fails under it), the next passes
	printf 'name = "once"\ndescription = "d"\ntest_template_name = "BashCmd"\n[cmd_args]\ncmd = "if [ -e ../../once ]; then srun hostname; else touch ../../once; srun sleep 300; fi"\n' \
		>"$C/tests/once.toml"
}

teardown() {
	[ -n "${CL:-}" ] || return 0
	# a kunai run a failed test left in the background: stopped as Ctrl-C would
	local f=$CL/work/$BATS_TEST_NUMBER/bg.pid p i
	if [ -f "$f" ] && p=$(cat "$f") && kill -INT "$p" 2>/dev/null; then
		for i in $(seq 40); do kill -0 "$p" 2>/dev/null || break; sleep 0.25; done
		kill -9 "$p" 2>/dev/null || true
	fi
	"$BATS_TEST_DIRNAME/slurm/cluster" slow "$CL" n4 off 2>/dev/null || true
	"$BATS_TEST_DIRNAME/slurm/cluster" resume "$CL" n2 >/dev/null 2>&1 || true
}

q() { "$Q" "$@"; }

# the job steps still running on the nodes: "PID ARGS" of every `sleep` there
steps() {
	local n p
	for n in n1 n2 n3 n4; do
		for p in $(ip netns pids "kunai-$((CLUSTER_PORT % 100000))-$n" 2>/dev/null); do
			tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null | grep '^sleep ' | sed "s/^/$p /"
		done
	done
}

scenario() { printf '%s\n' "$1" >"$C/scenario.toml"; }

# (a guard against a hang, not a bound on the campaign: n4 at 5% of a CPU, measured twice,
# takes minutes in the sanitizer build on a loaded machine)
kunai_run() {
	(cd "$C" && timeout 420 "$KUNAI" run --system-config system.toml --tests-dir tests --test-scenario scenario.toml \
		-o "$B" "$@")
}

jf() {
	sed -n -e "s/^	\"$2\":	\"\(.*\)\",\{0,1\}\$/\1/p" -e "s/^	\"$2\":	\([^\",]*\),\{0,1\}\$/\1/p" "$1"
}

# show: the output, then what each run that did not pass left (its record,
# the ends of its stdout and stderr), for a failure to be read from the log
show() {
	local d
	echo "$output"
	for d in "$B"/*/0; do
		[ "$(jf "$d/job.json" outcome)" != passed ] || continue
		echo "== $d"
		cat "$d/job.json"
		tail -n 20 "$d/stdout.txt" "$d/stderr.txt"
	done 2>&1
}

wait_for() {
	local i=0
	while [ ! -e "$1" ]; do
		i=$((i + 1))
		[ $i -le $((${2:-30} * 20)) ] || { echo "no $1"; return 1; }
		sleep 0.05
	done
}

# the fleet campaign: a GEMM pinned to each node, then a 2-node all-reduce
# (with $1 as one more line of its entry)
fleet_scenario() {
	local s='name = "fleet"' i
	for i in 1 2 3 4; do
		s+=$'\n[[Tests]]\n'"id = \"gemm-n$i\""$'\ntest_name = "kunai_gemm"\n'"nodes = [\"n$i\"]"$'\ntime_limit = "00:05:00"'
	done
	s+=$'\n[[Tests]]\nid = "allreduce"\ntest_name = "kunai_allreduce"\nnum_nodes = 2\ntime_limit = "00:05:00"'
	[ -z "${1:-}" ] || s+=$'\n'"$1"
	scenario "$s"
}

@test "healthy: a GEMM per node and a 2-node all-reduce (srun --mpi=pmix) pass; Drain: none; healthy: 4 nodes; every node named" {
	fleet_scenario
	run kunai_run
	[ "$status" -eq 0 ] || { show; false; }
	# the verdict, then the one campaign status last
	[ "${lines[-2]}" = "kunai: Drain: none; healthy: 4 nodes" ] || { show; false; }
	[[ "${lines[-1]}" == "kunai: passed: 5 runs: 5 passed"* ]] || { show; false; }
	local i
	for i in 1 2 3 4; do
		[ "$(jf "$B/gemm-n$i/0/job.json" nodes)" = "n$i" ]
		grep -q "\"host\":\"n$i\"" "$B/gemm-n$i/0/stdout.txt"
	done
	# the all-reduce spanned two nodes, one rank on each, through PMIx
	grep -q 'srun .*--mpi=pmix' "$B/allreduce/0/cloudai_sbatch_script.sh"
	[[ "$(jf "$B/allreduce/0/job.json" nodes)" =~ ^n[1-4],n[1-4]$ ]]
	[ "$(grep -o 'on  *n[1-4] ' "$B/allreduce/0/stdout.txt" | sort -u | wc -l)" -eq 2 ]
	S=$B/report/summary.json
	[ "$(q "$S" healthy.#)" = 4 ]
	[ "$(q "$S" drain)" = '[]' ]
	[ "$(q "$S" inconclusive)" = '[]' ]
	[ "$(q "$S" runs.4.nodes)" = "$(jf "$B/allreduce/0/job.json" nodes)" ]
	for i in 1 2 3 4; do
		grep -q "<tr><td>n$i</td><td class=\"healthy\">" "$B/report/index.html"
	done
}

@test "n4 capped at 5% of a CPU: Drain: n4 and only n4; healthy: 3 nodes" {
	# the all-reduce kept off n4, where a rank at 5% of a CPU is 10 times slower
	# (23 s beside the capped GEMM against 2 s): this test is about the GEMMs'
	# verdict. (A clean-clone run saw the all-reduce time out at 5 minutes here;
	# where it ran is not known, and pinned to n3,n4 it passed: show() keeps
	# what the next one leaves)
	fleet_scenario 'exclude_nodes = ["n4"]'
	"$BATS_TEST_DIRNAME/slurm/cluster" slow "$CL" n4 5
	run kunai_run
	"$BATS_TEST_DIRNAME/slurm/cluster" slow "$CL" n4 off
	[ "$status" -eq 1 ] || { echo "$output"; grep -h '"fp64_gflops"' "$B"/gemm-n*/0/stdout.txt; false; }
	[[ "${lines[-2]}" =~ ^"kunai: Drain: n4 (kunai_gemm fp"(32|64)"_gflops "[0-9]+"% below peers"[^\;]*"); healthy: 3 nodes"$ ]] ||
		{ show; false; }
	[[ "${lines[-1]}" == "kunai: failed: 5 runs: 4 passed, 1 suspect"* ]] || { show; false; }
	[[ "$(jf "$B/allreduce/0/job.json" nodes)" =~ ^n[1-3],n[1-3]$ ]]
	S=$B/report/summary.json
	[ "$(q "$S" drain)" = '["n4"]' ]
	[ "$(q "$S" healthy.#)" = 3 ]
	grep -q '<testcase name="n4" classname="fleet verdict"' "$B/report/junit.xml"
}

@test "nodes = [...], exclude_nodes and a node group place the runs; srun runs on every node of the job" {
	scenario '
name = "place"
[[Tests]]
id = "pinned"
test_name = "where"
nodes = ["n[2-3]"]
[[Tests]]
id = "excl"
test_name = "where"
num_nodes = 3
exclude_nodes = ["n1"]
[[Tests]]
id = "group"
test_name = "where"
nodes = ["debug:back:2"]'
	run kunai_run
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	[ "$(jf "$B/pinned/0/job.json" nodes)" = "n2,n3" ]
	[ "$(cat "$B/pinned/0/where.txt" | tr '\n' ' ')" = "n2 n3 " ]
	[ "$(jf "$B/excl/0/job.json" nodes)" = "n2,n3,n4" ]
	[ "$(cat "$B/excl/0/where.txt" | tr '\n' ' ')" = "n2 n3 n4 " ]
	[ "$(jf "$B/group/0/job.json" nodes)" = "n3,n4" ]
	[ "$(cat "$B/group/0/where.txt" | tr '\n' ' ')" = "n3 n4 " ]
	# kunai status and the report name every node of every run
	run -0 "$KUNAI" status "$B"
	[[ "${lines[0]}" == "ID "*"ELAPSED"*"NODES"*"REASON" ]]
	printf '%s\n' "$output" | grep -Eq '^pinned +0 +passed +[0-9]+ +[0-9]+s +n\[2-3\]$' || { echo "$output"; false; }
	printf '%s\n' "$output" | grep -Eq '^excl +0 +passed +[0-9]+ +[0-9]+s +n\[2-4\]$' || { echo "$output"; false; }
	printf '%s\n' "$output" | grep -Eq '^group +0 +passed +[0-9]+ +[0-9]+s +n\[3-4\]$' || { echo "$output"; false; }
	[ "$(q "$B/report/summary.json" runs.0.nodes)" = "n2,n3" ]
	[ "$(q "$B/report/summary.json" runs.1.nodes)" = "n2,n3,n4" ]
	[ "$(q "$B/report/summary.json" runs.2.nodes)" = "n3,n4" ]
}

@test "--single-sbatch across nodes: the runs are steps of one 2-node allocation" {
	scenario '
name = "single"
[[Tests]]
id = "a"
test_name = "where"
num_nodes = 2
[[Tests]]
id = "b"
test_name = "where"
num_nodes = 2'
	(cd "$C" && "$KUNAI" gen --single-sbatch --system-config system.toml --tests-dir tests --test-scenario scenario.toml \
		-o "$B") >/dev/null
	grep -qx '#SBATCH -N 2' "$B/single_sbatch.sh"
	KUNAI_SINGLE_IDLE=1 run timeout 120 "$NINJA" -C "$B" -k 0 run
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	[ "$(jf "$B/a/0/job.json" job_id)" = "$(jf "$B/b/0/job.json" job_id)" ]
	[ "$(wc -l <"$B/a/0/where.txt")" -eq 2 ]
	[ "$(sort -u "$B/a/0/where.txt" | wc -l)" -eq 2 ]
	[ "$(cat "$B/a/0/where.txt")" = "$(cat "$B/b/0/where.txt")" ]
}

@test "Ctrl-C on kunai run cancels its multi-node jobs; nothing is left on the cluster" {
	scenario '
name = "long"
[[Tests]]
id = "x"
test_name = "long"
num_nodes = 2
[[Tests]]
id = "y"
test_name = "long"
num_nodes = 2'
	(cd "$C" && exec "$KUNAI" run --system-config system.toml --tests-dir tests --test-scenario scenario.toml \
		-o "$B" >"$CL/work/$BATS_TEST_NUMBER/run.log" 2>&1) 3>&- &
	local pid=$! ids i
	echo "$pid" >"$CL/work/$BATS_TEST_NUMBER/bg.pid"
	wait_for "$B/x/0/kunai.start"
	wait_for "$B/y/0/kunai.start"
	kill -INT "$pid"
	status=0; wait "$pid" || status=$?
	[ "$status" -ne 0 ]
	for i in x y; do
		[ "$(jf "$B/$i/0/job.json" outcome)" = cancelled ]
	done
	ids=$(jf "$B/x/0/job.json" job_id),$(jf "$B/y/0/job.json" job_id)
	for i in $(seq 40); do
		[ -z "$(squeue -h -j "$ids" 2>/dev/null)" ] && break
		sleep 0.25
	done
	[ -z "$(squeue -h -j "$ids" 2>/dev/null)" ] || { squeue -j "$ids"; false; }
	# no step left on any node (the processes in the nodes' network namespaces)
	for i in $(seq 20); do
		[ -z "$(steps)" ] && break
		sleep 0.25
	done
	[ -z "$(steps)" ] || { steps; false; }
}

@test "a node failing under a 2-node job: NODE_FAIL, retried on other nodes, and the report says so" {
	scenario '
name = "nf"
[[Tests]]
id = "x"
test_name = "once"
num_nodes = 2'
	(cd "$C" && KUNAI_RETRY_DELAY=1 exec "$KUNAI" run --system-config system.toml --tests-dir tests \
		--test-scenario scenario.toml -o "$B" >"$CL/work/$BATS_TEST_NUMBER/run.log" 2>&1) 3>&- &
	local pid=$! node id
	echo "$pid" >"$CL/work/$BATS_TEST_NUMBER/bg.pid"
	wait_for "$B/x/0/kunai.start"
	wait_for "$B/once"
	sleep 1
	# the job's second node (the batch script runs on its first)
	id=$(jf "$B/x/0/job.json" job_id)
	node=$(scontrol show hostnames "$(squeue -h -j "$id" -o %N)" | tail -n 1)
	[ -n "$node" ] || { squeue -j "$id"; false; }
	"$BATS_TEST_DIRNAME/slurm/cluster" fail "$CL" "$node"
	status=0; wait "$pid" || status=$?
	"$BATS_TEST_DIRNAME/slurm/cluster" resume "$CL" "$node"
	[ "$status" -eq 0 ] || { cat "$CL/work/$BATS_TEST_NUMBER/run.log"; false; }
	[ "$(jf "$B/x/0/attempt-1/job.json" state)" = NODE_FAIL ]
	[ "$(jf "$B/x/0/attempt-1/job.json" outcome)" = node-fail ]
	[ "$(jf "$B/x/0/job.json" outcome)" = passed ]
	[ "$(jf "$B/x/0/job.json" attempt)" = 2 ]
	# the retry ran on two nodes, the failed one not among them
	[[ "$(jf "$B/x/0/job.json" nodes)" != *"$node"* ]]
	grep -q 'x/0: node-fail (NODE_FAIL); attempt 2 of 3' "$CL/work/$BATS_TEST_NUMBER/run.log"
}
