#!/bin/sh
# tests/bench/runbench.sh: what `kunai job` costs.
# usage: runbench.sh KUNAI [N]   (N runs, default 200; NINJA=ninja; Slurm from tests/slurm/start;
#        RUNBENCH_SLURM=no skips part 2)
#
# 1. Overhead on standalone: N runs of Sleep 0 (N test ids) through `ninja run`
#    with -j 1 and -j 2, against the plain command (`sleep 0`, what the run
#    does) N times in a shell loop, through xargs -P 2, and through ninja
#    with a run rule that runs the plain command (ninja's own share); not
#    against kunai's run.sh, which carries kunai's own wrapper. Each figure
#    is the median of RUNS (default 3). Per run = wall difference * j / N;
#    target <= 2 ms (the runner writes the records itself; run.sh starts no process of its own).
# 2. Scheduler load (root and Slurm tools needed, else skipped): N short
#    jobs (BashCmd true) on a local Slurm cluster without accounting, so
#    every question goes to slurmctld. sdiag's RPC counts before and after,
#    split into the submissions, the waiters' queries (job/partition/node/fed
#    info, cancel) and what the job scripts do themselves (their srun
#    steps); compared with a naive waiter that runs `squeue -j ID` once a
#    second per job. Target: <= 2 queries per job in all.
set -eu
kunai=${1:?usage: runbench.sh KUNAI [N]}
n=${2:-200}
case $kunai in /*) ;; *) kunai=$PWD/$kunai ;; esac
SLURM_START=$(cd "$(dirname "$0")/.." && pwd)/slurm/start
SLURM_STOP=$(cd "$(dirname "$0")/.." && pwd)/slurm/stop
NINJA=${NINJA:-ninja}
PATH=$PATH:/usr/sbin:/sbin
w=$(mktemp -d /tmp/kunai-runbench.XXXXXX)
chmod 755 "$w"
slurm=
cleanup() {
	if [ -n "$slurm" ]; then
		"$SLURM_STOP" "$slurm" >/dev/null 2>&1
		rm -rf "$slurm"
	fi
	rm -rf "$w"
}
trap cleanup EXIT INT TERM

now() { date +%s.%N; }

# campaign DIR TEST-TOML: a Slurm system for N jobs and one test definition
campaign() {
	mkdir -p "$1/tests"
	printf 'name = "b"\nscheduler = "slurm"\ninstall_path = "./install"\noutput_path = "./r"\ndefault_partition = "debug"\nmax_jobs = %d\n[[partitions]]\nname = "debug"\n' \
		"$n" >"$1/system.toml"
	printf '%s\n' "$2" >"$1/tests/t.toml"
}

gen() { # gen CAMPAIGN OUT [--rules-dir DIR]
	c=$1 o=$2
	shift 2
	(cd "$c" && "$kunai" gen --system-config system.toml --tests-dir tests --test-scenario scenario.toml -o "$o" "$@") >/dev/null
}

# ---- 1. overhead on standalone -------------------------------------------------------
# N independent tests of Sleep 0 (a scenario of N test ids), max_jobs 2
mkdir -p "$w/sa/tests" "$w/bare-rules"
printf 'name = "b"\nscheduler = "standalone"\ninstall_path = "./install"\noutput_path = "./r"\nmax_jobs = 2\n' \
	>"$w/sa/system.toml"
printf 'name = "t"\ndescription = "sleep 0"\ntest_template_name = "Sleep"\n[cmd_args]\nseconds = 0\n' \
	>"$w/sa/tests/t.toml"
{
	echo 'name = "sa"'
	i=0
	while [ $i -lt "$n" ]; do
		printf '[[Tests]]\nid = "t%d"\ntest_name = "t"\n' $i
		i=$((i + 1))
	done
} >"$w/sa/scenario.toml"
# the same graph with a run rule that only runs the script: ninja's own share
printf 'rule grade\n  command = true\nrule report\n  command = true\nrule plot\n  command = true\nrule html\n  command = true\nrule phase\n  command = touch $out\n' >"$w/bare-rules/common.ninja"
printf 'rule run\n  command = sleep 0 && touch $out\n  pool = jobs\nrule start\n  command = touch $out\n' \
	>"$w/bare-rules/standalone.ninja"

# timed NAME COMMAND...: runs it, prints "NAME SECONDS"
timed() {
	name=$1
	shift
	t0=$(now)
	"$@" >/dev/null 2>&1 || { echo "runbench: $name failed" >&2; exit 1; }
	t1=$(now)
	echo "$name $t0 $t1" | awk '{ printf "%s %.3f\n", $1, $3 - $2 }'
}

runs=${RUNS:-3}
r=0
while [ $r -lt "$runs" ]; do
	for j in 1 2; do
		rm -rf "$w/sa/k$j" "$w/sa/b$j"
		gen "$w/sa" "$w/sa/k$j"
		gen "$w/sa" "$w/sa/b$j" --rules-dir "$w/bare-rules"
		timed "kunai-j$j" "$NINJA" -C "$w/sa/k$j" -j $j run
		timed "bare-ninja-j$j" "$NINJA" -C "$w/sa/b$j" -j $j run
	done
	timed loop sh -c 'i=0; while [ $i -lt "$1" ]; do sleep 0; i=$((i + 1)); done' _ "$n"
	timed xargs-P2 sh -c 'seq 1 "$1" | xargs -P 2 -n 1 sh -c "sleep 0" _' _ "$n"
	r=$((r + 1))
done >"$w/times.all"
# the median of each figure
sort -k1,1 -k2,2n "$w/times.all" | awk '{ v[$1, ++c[$1]] = $2 } END {
	for (k in c) { m = c[k]; print k, m % 2 ? v[k, (m + 1) / 2] : (v[k, m / 2] + v[k, m / 2 + 1]) / 2 } }' >"$w/times"
awk -v n="$n" '{ t[$1] = $2 } END {
	printf "standalone: %d runs of Sleep 0 (median wall s): sleep 0 in a shell loop %.2f, xargs -P 2 %.2f; ", n, t["loop"], t["xargs-P2"];
	printf "ninja+plain rule -j1 %.2f, -j2 %.2f; ninja+kunai -j1 %.2f (%.1fx the loop), -j2 %.2f (%.1fx xargs)\n", t["bare-ninja-j1"],
		t["bare-ninja-j2"], t["kunai-j1"], t["kunai-j1"] / t["loop"], t["kunai-j2"], t["kunai-j2"] / t["xargs-P2"];
	printf "standalone: kunai per run (ms): -j1 %.2f over the plain loop, %.2f over ninja with the plain rule\n",
		(t["kunai-j1"] - t["loop"]) * 1000 / n, (t["kunai-j1"] - t["bare-ninja-j1"]) * 1000 / n;
	printf "standalone: kunai per run (ms): -j2 %.2f over xargs -P 2, %.2f over ninja with the plain rule (target <= 2)\n",
		(t["kunai-j2"] - t["xargs-P2"]) * 2000 / n, (t["kunai-j2"] - t["bare-ninja-j2"]) * 2000 / n }' "$w/times"

# ---- 2. scheduler load --------------------------------------------------------------------
if [ "${RUNBENCH_SLURM:-yes}" = no ]; then
	exit 0
fi
if [ "$(id -u)" -ne 0 ] || ! command -v sbatch >/dev/null || ! command -v sdiag >/dev/null; then
	echo "slurm: skipped (needs root, sbatch and sdiag)"
	exit 0
fi
slurm=/tmp/kunai-runbench-slurm-$$
out=$(SLURM_LOCAL_CPUS=16 SLURM_LOCAL_PORT=${SLURM_LOCAL_PORT:-$((24000 + $$ % 1000 * 4))} \
	"$SLURM_START" "$slurm" 2>&1) || { echo "slurm: start failed: $out"; exit 1; }
export SLURM_CONF=${out##*SLURM_CONF=}

# rpcs FILE: "TYPE COUNT" per message type from sdiag
rpcs() {
	sdiag | awk '/statistics by message type/ { f = 1; next } /statistics by user/ { f = 0 }
		f && /count:/ { for (i = 1; i <= NF; i++) if ($i ~ /^count:/) { sub("count:", "", $i); print $1, $i } }' |
		sort >"$1"
}

# report NAME BEFORE AFTER SECONDS
report() {
	join -a 2 -e 0 -o 0,1.2,2.2 "$2" "$3" | awk -v n="$n" -v name="$1" -v secs="$4" '
	{ d = $3 - $2 }
	$1 == "REQUEST_STATS_INFO" { next }  # sdiag itself
	$1 == "REQUEST_SUBMIT_BATCH_JOB" { submit += d; next }
	$1 ~ /^REQUEST_(JOB_INFO|JOB_INFO_SINGLE|FED_INFO|JOB_USER_INFO|PARTITION_INFO|NODE_INFO|NODE_INFO_SINGLE|KILL_JOB|CANCEL_JOB|CANCEL_JOB_STEP|JOB_STEP_INFO)$/ {
		q += d; detail = detail sprintf(" %s=%d", $1, d); next }
	{ other += d }
	END {
		printf "slurm %s: %d jobs in %.1f s: %d submits, %d waiter queries (%.2f per job;%s), %d RPCs of the job scripts (srun steps)\n",
			name, n, secs, submit, q, q / n, detail, other }'
}

campaign "$w/sl" 'name = "t"
description = "true"
test_template_name = "BashCmd"
[cmd_args]
cmd = "true"'
# N independent tests, so that all N jobs wait at once (as in a real campaign)
{
	echo 'name = "bench"'
	i=0
	while [ $i -lt "$n" ]; do
		printf '[[Tests]]\nid = "t%d"\ntest_name = "t"\n' $i
		i=$((i + 1))
	done
} >"$w/sl/scenario.toml"
gen "$w/sl" "$w/sl/kunai"

# the naive waiter: the same build graph, a run rule that polls squeue per job
mkdir -p "$w/naive-rules"
cp "$(dirname "$kunai")/rules/common.ninja" "$w/naive-rules/" 2>/dev/null ||
	printf 'rule grade\n  command = true\nrule report\n  command = true\nrule plot\n  command = true\nrule html\n  command = true\nrule phase\n  command = touch $out\n' >"$w/naive-rules/common.ninja"
cat >"$w/naive-rules/slurm.ninja" <<'EOF'
rule run
  command = cd $$(dirname $out) && id=$$(sbatch --parsable cloudai_sbatch_script.sh) && while [ -n "$$(squeue -h -j $$id 2>/dev/null)" ]; do sleep 1; done && touch kunai.stamp
  description = NAIVE $out
  pool = jobs
rule start
  command = cd $$(dirname $out) && sbatch --parsable cloudai_sbatch_script.sh >kunai.started
  pool = jobs
EOF
gen "$w/sl" "$w/sl/naive" --rules-dir "$w/naive-rules"

# shims that log each call of the waiters' query commands (to count sacct,
# which asks slurmdbd and so is not in sdiag), then run the real one
mkdir -p "$w/shim"
for c in sacct scontrol squeue; do
	real=$(command -v $c)
	printf '#!/bin/sh
echo "%s $*" >>"%s/calls"
exec %s "$@"
' "$c" "$w" "$real" >"$w/shim/$c"
	chmod +x "$w/shim/$c"
done

# measure NAME BUILD_DIR: one `ninja run` of all N jobs, with sdiag before and after
measure() {
	rpcs "$w/before"
	: >"$w/calls"
	t0=$(now)
	PATH="$w/shim:$PATH" "$NINJA" -C "$2" -j "$n" run >"$w/$1.log" 2>&1 || { tail "$w/$1.log"; exit 1; }
	t1=$(now)
	# let the last jobs' epilogs finish before counting
	sleep 2
	rpcs "$w/after"
	report "$1" "$w/before" "$w/after" "$(echo "$t1 $t0" | awk '{ print $1 - $2 }')"
	printf 'slurm %s: commands run: %d sacct, %d scontrol -o show job, %d squeue\n' "$1" \
		"$(grep -c '^sacct' "$w/calls")" "$(grep -c '^scontrol -o show job' "$w/calls")" \
		"$(grep -c '^squeue' "$w/calls")"
}

measure kunai "$w/sl/kunai"
measure naive "$w/sl/naive"

# with accounting, the waiters ask slurmdbd (sacct), not slurmctld
if command -v slurmdbd >/dev/null && command -v mariadbd >/dev/null; then
	"$SLURM_STOP" "$slurm" >/dev/null 2>&1
	rm -rf "$slurm"
	out=$(SLURM_LOCAL_CPUS=16 SLURM_LOCAL_PORT=${SLURM_LOCAL_PORT:-$((24000 + $$ % 1000 * 4))} \
		"$SLURM_START" --accounting "$slurm" 2>&1) || { echo "slurm: start --accounting failed: $out"; exit 1; }
	export SLURM_CONF=${out##*SLURM_CONF=}
	gen "$w/sl" "$w/sl/kunai-acct"
	measure kunai-with-accounting "$w/sl/kunai-acct"
fi
