#!/bin/sh
# runbench: what `kunai job` costs, on graphs that kunai gen writes with the
# source tree's rules; each peer is a bare ninja file derived from the same
# build.ninja (`build STAMP: RULE SCRIPT` per run, a log of its own).
# 1. Standalone: N runs of Sleep 0 (N test ids) through `ninja -j 1 run`,
#    against ninja running the plain command (`sleep 0 && touch $out`) for
#    the same runs: per-run overhead, goal <= 2 ms, as wall time and as CPU
#    time (every process; steadier under load). Measured where build dirs
#    live: on the file system of the tree `make bench` runs in (a dir in
#    RUNBENCH_DIR, default tests/bench), and again on tmpfs (/dev/shm) when
#    there is one.
#    Between turns what the runs wrote is moved aside (see `standalone`);
#    RUNBENCH_CLEAN=delete deletes it instead.
# 2. Slurm (root and Slurm's tools, else skipped; never in a smoke run): S
#    jobs of BashCmd true, all waiting at once, on tests/slurm/start's cluster
#    (SLURM_LOCAL_PORT, SLURM_LOCAL_CPUS=S lets them all run): scheduler
#    queries per job (slurmctld RPCs from sdiag, plus sacct calls), goal <=
#    0.05, against a waiter that asks `squeue -j ID` once a second per job
#    (of SLURM_PEER_JOBS jobs, default S: a thousand such waiters swamp a
#    small machine). A failed job is counted and shown, not fatal. Then the
#    latency of each job's result: from its exit record (kunai.exit, which
#    the job script writes) to the stamp that ends ninja's edge (kunai.stamp,
#    whose mtime kunai job sets as it concludes; job.json for a failed run),
#    median [min-max] and the max, goal < 1 s, beside the squeue waiter's;
#    how many were under 1 s, the 90th and 99th percentiles, and how many
#    came from the job's clean exit record, before any query saw the end.
# usage: runbench.sh [N] [S]   (N default 200, S default 1000; KUNAI, MEASURE,
#        RUNS, BENCH_SMOKE: see lib.sh; RUNBENCH_SLURM=no skips part 2,
#        RUNBENCH_STANDALONE=no part 1)
. "$(dirname "$0")/lib.sh"
src=$(cd "$(dirname "$0")/../.." && pwd)
n=${1:-200}
s=${2:-1000}
[ -z "$BENCH_SMOKE" ] || { n=20 RUNBENCH_SLURM=no; }
w=$bench_tmp
chmod 755 "$w"
PATH=$PATH:/usr/sbin:/sbin

# campaign DIR SCHEDULER MAX_JOBS TEST_TOML COUNT: COUNT test ids of one test
campaign() {
	mkdir -p "$1/tests"
	printf 'name = "b"\nscheduler = "%s"\ninstall_path = "./install"\noutput_path = "./r"\nmax_jobs = %d\n' \
		"$2" "$3" >"$1/system.toml"
	[ "$2" != slurm ] || printf 'default_partition = "debug"\n[[partitions]]\nname = "debug"\n' >>"$1/system.toml"
	printf '%s\n' "$4" >"$1/tests/t.toml"
	seq 0 $(($5 - 1)) | awk 'BEGIN { print "name = \"b\"" } { printf "[[Tests]]\nid = \"t%d\"\ntest_name = \"t\"\n", $1 }' \
		>"$1/scenario.toml"
}

# gen CAMPAIGN OUT
gen() {
	(cd "$1" && KUNAI_DATADIR=$src "$KUNAI" gen --system-config system.toml --tests-dir tests \
		--test-scenario scenario.toml -o "$2") >"$w/log" 2>&1 || bench_fail "gen failed"
}

# bare OUT RULE_COMMAND: OUT/bare.ninja, a run edge per run of OUT/build.ninja
bare() {
	{
		printf 'builddir = .bare\nrule plain\n  command = %s\n' "$2"
		sed -n 's/^build \(.*\/kunai.stamp\): run \([^ |]*\).*/build \1: plain \2/p' "$1/build.ninja"
	} >"$1/bare.ninja"
}

header
# ---- 1. standalone ----------------------------------------------------------------
sleep_test='name = "t"
description = "sleep 0"
test_template_name = "Sleep"
[cmd_args]
seconds = 0'
# per_run COLUMN: the median over the turns of (kunai - plain) / n, in ms
per_run() {
	paste -d' ' "$w/a" "$w/b" | awk -v n="$n" -v c="$1" '{ print ($c - $(c + 3)) * 1000 / n }' | sort -g |
		awk '{ v[NR] = $1 } END { printf "%.2f", NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
# aside: moves what the runs of $d/sa wrote to $d/old/TURN (deletes it
# with RUNBENCH_CLEAN=delete)
aside() {
	turn=$((turn + 1))
	if [ "${RUNBENCH_CLEAN:-}" = delete ]; then
		find "$d/sa/k" "$d/sa/b" -path '*/t*/0/*' \( -name job.json -o -name stdout.txt -o -name stderr.txt \
			-o -name 'kunai.*' -o -name 'attempt-*' \) -prune -exec rm -rf {} +
		return
	fi
	for r in "$d"/sa/k/t*/0 "$d"/sa/b/t*/0; do
		set --
		for f in "$r"/job.json "$r"/stdout.txt "$r"/stderr.txt "$r"/kunai.* "$r"/attempt-*; do
			[ ! -e "$f" ] || set -- "$@" "$f"
		done
		[ $# -eq 0 ] && continue
		o=$d/old/$turn/${r#"$d"/sa/}
		mkdir -p "$o" && mv "$@" "$o/" || return 1
	done
}
# standalone DIR LABEL: the pair of builds in campaigns under DIR (removed
# after), and its rows. Each turn runs every run for the first time: what
# a run wrote (its records, outputs and stamp) goes, so that kunai does not
# archive an attempt the plain rule has no counterpart for. It is moved
# aside, not deleted until the end: ext4 without a journal skips, for each
# inode it allocates, every inode freed in the last minute or more (a scan
# from the start of the block group), so the previous turn's thousand
# deleted files would make every file that either side creates cost more
# than any in a campaign that deletes nothing.
standalone() {
	d=$1
	campaign "$d/sa" standalone 2 "$sleep_test" "$n"
	gen "$d/sa" "$d/sa/k"
	gen "$d/sa" "$d/sa/b"
	bare "$d/sa/b" 'sleep 0 && touch $out'
	turn=0
	MEASURE_CPU=1
	pair aside "ninja -C $d/sa/k -j 1 run" aside "ninja -C $d/sa/b -j 1 -f bare.ninja"
	MEASURE_CPU=
	row_pair "standalone $n runs, -j 1, $2" time "ninja + plain rule" -
	row_value "standalone: kunai per run, $2" "$(per_run 1)" ms 2 "over ninja + plain rule (wall)"
	row_value "standalone: kunai CPU per run, $2" "$(per_run 3)" ms 2 "over ninja + plain rule"
	rm -rf "$d"
}
# The same holds across benches: a run of genbench or of this script just
# before deletes thousands of files in the block group of RUNBENCH_DIR, so
# each bench's dirs are made under .runbench there (spread_dir).
if [ "${RUNBENCH_STANDALONE:-yes}" != no ]; then
	disk=${RUNBENCH_DIR:-$src/tests/bench}/.runbench
	spread_dir "$disk"
	sa_disk=$(mktemp -d "$disk/XXXXXX") || bench_fail "cannot make a dir in $disk"
	trap 'rm -rf "$bench_tmp" "$sa_disk" ${sa_tmpfs:+"$sa_tmpfs"}; rmdir "$disk" 2>/dev/null' EXIT
	standalone "$sa_disk" "disk"
	if [ "$(stat -f -c %T /dev/shm 2>/dev/null)" = tmpfs ]; then
		sa_tmpfs=$(mktemp -d /dev/shm/kunai-runbench.XXXXXX) || bench_fail "cannot make a dir in /dev/shm"
		standalone "$sa_tmpfs" tmpfs
	else
		echo "standalone on tmpfs: skipped (no tmpfs at /dev/shm)"
	fi
fi

# ---- 2. Slurm ----------------------------------------------------------------------
[ "${RUNBENCH_SLURM:-yes}" != no ] || exit 0
if [ "$(id -u)" -ne 0 ] || ! command -v sbatch >/dev/null || ! command -v sdiag >/dev/null; then
	echo "slurm: skipped (needs root, sbatch and sdiag)"
	exit 0
fi
slurm=$w/slurm
trap '"$src/tests/slurm/stop" "$slurm" >/dev/null 2>&1; rm -rf "$bench_tmp"' EXIT
# MessageTimeout 60 s: at 300 jobs and more slurmd answers slower than in 10 s here
out=$(SLURM_LOCAL_MSG_TIMEOUT=${SLURM_LOCAL_MSG_TIMEOUT:-60} SLURM_LOCAL_CPUS=${SLURM_LOCAL_CPUS:-$s} SLURM_LOCAL_PORT=${SLURM_LOCAL_PORT:-$((24000 + $$ % 1000 * 4))} \
	"$src/tests/slurm/start" "$slurm" 2>&1) || bench_fail "slurm start failed: $out"
export SLURM_CONF="${out##*SLURM_CONF=}"

# shims that log each call of the query commands (sacct asks slurmdbd, so it is
# not in sdiag), then run the real one
# (squeue's also keeps what it answered, each line after the time it did, in
# $w/seen: when slurmctld first called each job ended)
mkdir -p "$w/shim"
for c in sacct scontrol; do
	printf '#!/bin/sh\necho "%s $*" >>"%s/calls"\nexec %s "$@"\n' "$c" "$w" "$(command -v $c)" >"$w/shim/$c"
	chmod +x "$w/shim/$c"
done
printf '#!/bin/sh\necho "squeue $*" >>"%s/calls"\n%s "$@" >"%s/sq.$$"\nrc=$?\nt=$(date +%%s.%%N)\nsed "s/^/$t|/" "%s/sq.$$" >>"%s/seen"\ncat "%s/sq.$$"\nrm -f "%s/sq.$$"\nexit $rc\n' \
	"$w" "$(command -v squeue)" "$w" "$w" "$w" "$w" "$w" >"$w/shim/squeue"
chmod +x "$w/shim/squeue"
# rpcs FILE: "TYPE COUNT" per message type from sdiag
rpcs() {
	sdiag | awk '/statistics by message type/ { f = 1; next } /statistics by user/ { f = 0 }
		f && /count:/ { for (i = 1; i <= NF; i++) if ($i ~ /^count:/) { sub("count:", "", $i); print $1, $i } }' |
		sort >"$1"
}
# queries NAME DIR NINJA_ARGS JOBS: one build of every job; prints the
# queries per job: slurmctld's query RPCs (sdiag: a squeue is two, the jobs
# and the partitions) plus sacct calls (slurmdbd's, not in sdiag);
# $w/NAME.calls says what asked them, and how many jobs failed
queries() {
	rpcs "$w/before"
	: >"$w/calls"
	: >"$w/seen"
	t0=$(date +%s)
	PATH="$w/shim:$PATH" ninja -C "$2" -k 0 -j "$4" $3 >"$w/$1.log" 2>&1
	t1=$(date +%s)
	! grep -q '^ninja: error' "$w/$1.log" || { tail "$w/$1.log" >&2; bench_fail "$1 failed"; }
	sleep 2 # the last epilogs
	rpcs "$w/after"
	mv "$w/seen" "$w/$1.seen"
	q=$(join -a 2 -e 0 -o 0,1.2,2.2 "$w/before" "$w/after" | awk '
		$1 ~ /^REQUEST_(JOB_INFO|JOB_INFO_SINGLE|FED_INFO|JOB_USER_INFO|PARTITION_INFO|NODE_INFO|NODE_INFO_SINGLE|JOB_STEP_INFO)$/ { q += $3 - $2 }
		END { print q + 0 }')
	# the jobs' own `scontrol show hostname` asks nobody
	awk -v q="$q" '$1 == "sacct" { a++ } $1 == "squeue" { b++ } $1 == "scontrol" && !($2 == "show" && $3 == "hostname") { c++ }
		END { printf "%d RPCs, sacct %d, squeue %d, scontrol %d", q, a, b, c }' "$w/calls" >"$w/$1.calls"
	printf ', %d failed, %d s\n' "$(grep -c '^FAILED' "$w/$1.log")" $((t1 - t0)) >>"$w/$1.calls"
	echo "$q $(grep -c '^sacct' "$w/calls")" | awk -v s="$4" '{ printf "%.3f\n", ($1 + $2) / s }'
}
# latency DIR: per run of DIR that wrote an exit record, the seconds from
# kunai.exit's mtime to its result's (kunai.stamp, else job.json), one a line
# in $w/a as lib.sh's rows read it ("SECONDS 0")
latency() {
	find "$1" -path '*/0/*' \( -name kunai.exit -o -name kunai.stamp -o -name job.json \) -printf '%h %f %T@\n' |
		awk '{ t[$1, $2] = $3; d[$1] = 1 }
		END { for (r in d) if ((r, "kunai.exit") in t) {
			e = (r, "kunai.stamp") in t ? t[r, "kunai.stamp"] : t[r, "job.json"]
			if (e) printf "%.3f 0\n", e - t[r, "kunai.exit"]
			print t[r, "kunai.exit"] >"/dev/stderr" } }' >"$w/a" 2>"$w/ends"
	[ -s "$w/a" ] || bench_fail "no run of $1 wrote an exit record"
}
# ending: how the exit records of the last latency's runs spread: over how
# many seconds, and in how many half-seconds (a poller that answers each
# within 1 s asks at least about once per such half-second)
ending() {
	sort -g "$w/ends" | awk '!NR { next } NR == 1 { a = $1 } { s = int(($1 - a) * 2); if (!(s in w)) n++; w[s] = 1; b = $1 }
		END { printf "exit records over %.1f s, in %d half-seconds", b - a, n }'
}
# parts DIR: how each run of DIR got its result: from its job's clean exit
# record, before any query saw the job end (its stamp older than the first
# answer of slurmctld, squeue in $w/kunai.seen, that called the job ended,
# or no such answer), counted in $w/clean; or after such an answer: the
# seconds from its exit record to that answer into $w/a, and from the
# answer to its result into $w/b
parts() {
	find "$1" -path '*/0/job.json' -exec awk -F'\t' '$2 == "\"job_id\":" { gsub(/[",]/, "", $3); print FILENAME, $3 }' {} + |
		sed 's|/job.json | |' >"$w/ids"
	find "$1" -path '*/0/*' \( -name kunai.exit -o -name kunai.stamp \) -printf '%h %f %T@\n' >"$w/times"
	: >"$w/a"
	: >"$w/b"
	awk -F'|' -v a="$w/a" -v b="$w/b" -v c="$w/clean" 'FILENAME ~ /seen$/ {
			if ($3 ~ /^(COMPLETED|FAILED|CANCELLED|TIMEOUT|NODE_FAIL|OUT_OF_MEMORY|BOOT_FAIL|DEADLINE|PREEMPTED)$/ &&
			    !($2 in end)) end[$2] = $1
			next }
		FILENAME ~ /ids$/ { split($0, f, " "); id[f[1]] = f[2]; next }
		{ split($0, f, " "); t[f[1], f[2]] = f[3] }
		END { for (r in id) if ((r, "kunai.exit") in t && (r, "kunai.stamp") in t) {
			if (!(id[r] in end) || t[r, "kunai.stamp"] < end[id[r]]) { n++; continue }
			printf "%.3f 0\n", end[id[r]] - t[r, "kunai.exit"] >a
			printf "%.3f 0\n", t[r, "kunai.stamp"] - end[id[r]] >b }
			print n + 0 >c }' \
		"$w/kunai.seen" "$w/ids" "$w/times"
}
# tail FILE: how many of FILE's values (first column) are under 1, of how
# many, and its 90th and 99th percentiles
tail_of() {
	sort -g "$1" | awk '{ v[NR] = $1; if ($1 < 1) u++ }
		END { printf "%d of %d under 1 s; 90th percentile %.3g s, 99th %.3g s", u, NR, v[int(NR * 0.9 + 0.5)], v[int(NR * 0.99 + 0.5)] }'
}
true_test='name = "t"
description = "true"
test_template_name = "BashCmd"
[cmd_args]
cmd = "true"'
campaign "$w/sl" slurm "$s" "$true_test" "$s"
gen "$w/sl" "$w/sl/k"
p=${SLURM_PEER_JOBS:-$s}
campaign "$w/sp" slurm "$p" "$true_test" "$p"
gen "$w/sp" "$w/sl/n"
# (the per-job waiter asks again after an squeue that failed, as one that
# stopped at the first error would call the job ended before it is; a job
# that slurmctld no longer knows is "Invalid job id")
bare "$w/sl/n" 'id=$$(cd $$(dirname $out) && sbatch --parsable cloudai_sbatch_script.sh) && while :; do s=$$(squeue -h -j $$id 2>&1) || case $$s in *"Invalid job id"*) break ;; *) sleep 1; continue ;; esac; [ -n "$$s" ] || break; sleep 1; done && touch $out'
k=$(queries kunai "$w/sl/k" run "$s")
nv=$(queries naive "$w/sl/n" "-f bare.ninja" "$p")
latency "$w/sl/n"
# shellcheck disable=SC2046
nl=$(fmt $(stats 1 "$w/a") s) nmax=$(stats 1 "$w/a" | cut -d' ' -f3)
latency "$w/sl/k"
sj=$s # row_abs sets s
row_abs "slurm $s jobs: result after exit" time 1 "squeue per job per s: $nl"
row_value "slurm $sj jobs: slowest result" "$(stats 1 "$w/a" | cut -d' ' -f3)" s 1 "squeue per job per s: $nmax s"
row_value "slurm $sj jobs: queries per job" "$k" queries 0.05 "squeue per job per s ($p jobs): $nv"
echo "  kunai $sj jobs: $(cat "$w/kunai.calls"); $(ending)"
# what made a run fail, a line each (its state and reason, job.json's)
find "$w/sl/k" -path '*/0/job.json' -exec awk -F'\t' '$2 ~ /^"(state|outcome|reason|exit_code)":$/ { v[$2] = $3 }
	END { if (v["\"outcome\":"] != "\"passed\",") printf "  failed: %s %s %s exit code %s %s\n", FILENAME,
		v["\"outcome\":"], v["\"state\":"], v["\"exit_code\":"], v["\"reason\":"] }' {} \;
# where the time goes: the results' tail, then how many came from the
# job's clean exit record with no query, and for the others slurmctld's own
# end of the job (the first query to see it, at most 0.5 s late), then
# kunai's part (the state file, the waiter's tick, job.json and the stamp)
echo "  kunai's results after their exit records: $(tail_of "$w/a")"
parts "$w/sl/k"
printf '  of which from the clean exit record, before any query saw the job end: %s' "$(cat "$w/clean")"
if [ -s "$w/a" ]; then
	# shellcheck disable=SC2046
	echo "; after a query, $(wc -l <"$w/a"): exit record to slurmctld's end (first squeue that saw it)" \
		"$(fmt $(stats 1 "$w/a") s), then to the result $(fmt $(stats 1 "$w/b") s)"
else
	echo "; after a query: none"
fi
echo "  squeue per job per s, $p jobs: $(cat "$w/naive.calls")"
