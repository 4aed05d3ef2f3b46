#!/usr/bin/env bats
# The fleet verdict (DESIGN 15): an 8-node campaign (one single-node
# all_reduce per node and one 8-node run, nccl-tests output; GEMM per GPU)
# whose run dirs are fabricated as the runner writes them, the nodes named
# by job.json. Peers find the slow node without references; the verdict
# reaches the HTML (headless chromium), summary.json, JUnit and the
# terminal; nodes within 3% drain nothing.
bats_require_minimum_version 1.5.0

setup() {
	W=$BATS_TEST_TMPDIR
	Q="$BATS_TEST_DIRNAME/jsonquery"
	mkdir -p "$W/c/tests"
	cat >"$W/c/system.toml" <<'T'
name = "lab"
scheduler = "standalone"
install_path = "./install"
output_path = "./results"
T
	cat >"$W/c/tests/nccl.toml" <<'T'
name = "nccl"
description = "all-reduce"
test_template_name = "NcclTest"
[cmd_args]
subtest_name = "all_reduce_perf"
T
	cat >"$W/c/tests/gemm.toml" <<'T'
name = "gemm"
description = "gemm"
test_template_name = "KunaiGemm"
T
	B=$W/out
	N="01 02 03 04 05 06 07 08"
}

q() { "$Q" "$@"; }

# scenario [TEST]: one single-node run of TEST (nccl) per node, and one
# 8-node run
scenario() {
	local t=${1:-nccl} i
	{
		echo 'name = "fleet"'
		for i in $N; do
			printf '[[Tests]]\nid = "%s-%s"\ntest_name = "%s"\nnodes = ["gpu-node-%s"]\n' "$t" "$i" "$t" "$i"
		done
		[ "$t" = nccl ] && printf '[[Tests]]\nid = "nccl-x8"\ntest_name = "nccl"\nnum_nodes = 8\n'
		true
	} >"$W/c/scenario.toml"
}

gen() {
	(cd "$W/c" && "$KUNAI" gen --system-config system.toml --tests-dir tests --test-scenario scenario.toml \
		-o "$B" "$@") >/dev/null
}

# job DIR NODES: a passed run's job.json (NODES comma-separated)
job() {
	mkdir -p "$B/$1"
	cat >"$B/$1/job.json" <<J
{"dir": "$1", "scheduler": "standalone", "job_id": "42", "state": "EXITED", "exit_code": 0,
 "outcome": "passed", "reason": null, "start_time": "2024-05-01T12:00:01Z",
 "end_time": "2024-05-01T12:00:03Z", "nodes": "$2"}
J
	touch "$B/$1/kunai.stamp"
}

# nccl BUSBW HOST...: nccl-tests output peaking at BUSBW GB/s
nccl() {
	local bw=$1 r=0 h
	shift
	for h in "$@"; do
		printf '#  Rank %2d Group  0 Pid  12345 on %10s device  0 [0000:18:00] NVIDIA H100 80GB HBM3\n' $r "$h"
		r=$((r + 1))
	done
	echo '#       size         count      type   redop    root     time   algbw   busbw  #wrong     time   algbw   busbw  #wrong'
	awk -v bw="$bw" 'BEGIN { for (s = 1048576; s <= 8589934592; s *= 8) { b = bw * (s >= 1073741824 ? 1 : 0.5)
		printf "%12d  %12d     float     sum      -1  %7.2f  %6.2f  %6.2f       0  %7.2f  %6.2f  %6.2f       0\n",
			s, s / 4, s / b / 1e3, b / 1.75, b, s / b / 1e3, b / 1.75, b } }'
	echo '# Out of bounds values : 0 OK'
	echo "# Avg bus bandwidth    : $bw"
}

# campaign SLOW_NODE SLOW_BW [OTHER_BW...]: the 8 single-node runs (nodes
# cycling through OTHER_BW, default 483.1) and the 8-node run at 367
campaign() {
	local slow=$1 slowbw=$2 i k=0 bw
	shift 2
	local others=("${@:-483.1}")
	for i in $N; do
		bw=${others[$((k % ${#others[@]}))]}
		k=$((k + 1))
		[ "$i" = "$slow" ] && bw=$slowbw
		job "nccl-$i/0" "gpu-node-$i"
		nccl "$bw" "gpu-node-$i" >"$B/nccl-$i/0/stdout.txt"
	done
	local all=$(for i in $N; do printf 'gpu-node-%s,' "$i"; done)
	job nccl-x8/0 "${all%,}"
	nccl 367 $(echo "${all%,}" | tr , ' ') >"$B/nccl-x8/0/stdout.txt"
}

@test "one node 40% below its peers, no references: suspect, drained in the terminal, summary.json, JUnit, HTML" {
	scenario
	gen
	campaign 05 289.9 483.1 480.2 485.0
	run "$KUNAI" report "$B" --check
	[ "$status" -eq 1 ]
	[ "${lines[-1]}" = "kunai: Drain: gpu-node-05 (nccl max_busbw 40% below peers); healthy: 7 nodes" ]
	[[ "$output" == *"9 runs: 8 passed, 1 suspect"* ]]
	S=$B/report/summary.json
	[ "$(q "$S" drain)" = '["gpu-node-05"]' ]
	[ "$(q "$S" healthy.#)" = 7 ]
	[ "$(q "$S" inconclusive)" = '[]' ]
	[ "$(q "$S" runs.4.outcome)" = suspect ]
	[ "$(q "$S" runs.4.reason)" = "max_busbw on gpu-node-05: 289.9 GB/s is 40% below the median of 8 nodes (483.1 GB/s); 2 values far from their peers in all" ]
	[ "$(q "$S" counts.suspect)" = 1 ]
	# the 8-node run has no peers of its size: said so, not judged
	[ "$(q "$S" peer_notes.0)" = "nccl (8 nodes): not enough peers to compare (1 run; 4 needed)" ]
	[ "$(q "$S" runs.8.outcome)" = passed ]
	# JUnit: a failure for the drained node, counted in the totals
	J=$B/report/junit.xml
	grep -q '<testsuites name="fleet" tests="10" failures="2" errors="0" skipped="0"' "$J"
	grep -q '<testcase name="gpu-node-05" classname="fleet verdict"' "$J"
	grep -q '<failure type="drain" message="drain gpu-node-05: nccl max_busbw 40% below peers">' "$J"
	grep -q '^\*\*Drain: gpu-node-05 (nccl max\\_busbw 40% below peers); healthy: 7 nodes\*\*$' "$B/report/summary.md"
	# kunai run prints the same line last and fails
	[ "$(q "$S" verdict)" = "Drain: gpu-node-05 (nccl max_busbw 40% below peers); healthy: 7 nodes" ]
	I=$B/report/index.html
	xmllint --noout "$I" 2>/dev/null || ! command -v xmllint >/dev/null
	# the verdict opens the page; the worst node heads the matrix, linked
	[ "$(grep -n 'id="verdict"' "$I" | cut -d: -f1)" -lt "$(grep -n '<table' "$I" | head -n 1 | cut -d: -f1)" ]
	grep -q '<p class="verdict drain" id="verdict"><strong>Drain: gpu-node-05 (nccl max_busbw 40% below peers); healthy: 7 nodes</strong></p>' "$I"
	grep -A1 '<tbody>' "$I" | grep -q '<tr><td>gpu-node-05</td><td class="drain">drain</td><td class="num g3 flag" title="max_busbw: 289.9 GB/s; median of 8: 483.1"><a href="runs/5-nccl-05-0.html">60%</a></td></tr>'
	[ -f "$B/report/runs/5-nccl-05-0.html" ]
	# the run page and kunai status agree with the report: graded suspect, the job passed
	grep -q suspect "$B/report/runs/5-nccl-05-0.html"
	run -0 "$KUNAI" status "$B"
	printf '%s\n' "$output" | grep -q '^nccl-05 .*suspect (job passed)'
	[[ "${lines[-1]}" == *" 8 passed, 1 suspect, 0 live" ]]
	command -v chromium >/dev/null || skip "chromium is not installed (apt-get install chromium)"
	run -0 timeout 120 chromium --headless --no-sandbox --disable-gpu --user-data-dir="$W/chr" \
		--dump-dom "file://$I"
	[[ "$output" == *"Drain: gpu-node-05 (nccl max_busbw 40% below peers); healthy: 7 nodes"* ]]
	run -0 timeout 120 chromium --headless --no-sandbox --disable-gpu --user-data-dir="$W/chr" \
		--screenshot="$W/fleet.png" --window-size=1200,900 "file://$I"
	[ -s "$W/fleet.png" ]
	mkdir -p "$BATS_RUN_TMPDIR/../screenshots" 2>/dev/null && cp "$W/fleet.png" "$BATS_RUN_TMPDIR/../screenshots/" || true
}

@test "every node within 3%: nothing drained, --check passes" {
	scenario
	gen
	campaign 05 470.0 483.1 480.2 485.0 490.0 475.5
	run -0 "$KUNAI" report "$B" --check
	[ "${lines[-1]}" = "kunai: Drain: none; healthy: 8 nodes" ]
	[ "$(q "$B/report/summary.json" drain)" = '[]' ]
	[ "$(q "$B/report/summary.json" counts.suspect)" = 0 ]
	! grep -q 'fleet verdict' "$B/report/junit.xml"
	grep -q '<p class="verdict ok" id="verdict">' "$B/report/index.html"
}

@test "with a reference both apply; the 8-node run that fell short names the drained node" {
	scenario
	printf '[references]\nmax_busbw = [470, -0.05, inf, "GB/s"]\n' >>"$W/c/tests/nccl.toml"
	gen
	campaign 05 289.9 483.1 480.2 485.0
	run -1 "$KUNAI" report "$B" --check
	S=$B/report/summary.json
	[ "$(q "$S" runs.4.outcome)" = perf-failed ]
	[ "$(q "$S" drain)" = '["gpu-node-05"]' ]
	[ "$(q "$S" drain_reasons.gpu-node-05)" = '["nccl max_busbw 40% below peers","nccl max_busbw 38% below reference"]' ]
	# the run's own reason (refs.c's wording), then the tie
	[[ "$(q "$S" multi_node.0)" == "nccl-x8 iteration 0 (8 nodes) perf-failed: max_busbw "*"367 GB/s is 22% below the reference 470"*"; it included gpu-node-05, which is drained" ]]
	grep -q 'it included gpu-node-05, which is drained' "$B/report/index.html"
}

@test "fewer than 4 peers: not enough peers to compare, nothing drained" {
	N="01 02 03"
	scenario
	gen
	campaign 02 289.9
	run -0 "$KUNAI" report "$B" --check
	[ "$(q "$B/report/summary.json" peer_notes.0)" = "nccl: not enough peers to compare (3 nodes; 4 needed)" ]
	[ "$(q "$B/report/summary.json" drain)" = '[]' ]
	grep -q 'nccl: not enough peers to compare (3 nodes; 4 needed)' "$B/report/index.html"
}

# gemm_line HOST TFLOPS...: KunaiGemm's JSON line, one value per GPU
gemm_line() {
	local host=$1 v
	shift
	printf '{"workload":"gemm","path":"gpu","gpu_models":[%s],' "$(for v in "$@"; do printf '"NVIDIA H100 80GB HBM3",'; done | sed 's/,$//')"
	printf '"results":{"bf16":{"tflops_per_gpu":[%s]}},' "$(echo "$@" | tr ' ' ,)"
	printf '"metrics":{"bf16_tflops_min":%s},' "$(printf '%s\n' "$@" | sort -n | head -n 1)"
	printf '"result":"SUCCESS","failures":[],"host":"%s"}\n[RESULT] SUCCESS\n' "$host"
}

@test "GEMM: GPU 3 of one node 25% below the fleet's GPUs drains that node, naming GPU 3" {
	scenario gemm
	gen
	for i in $N; do
		job "gemm-$i/0" "gpu-node-$i"
		if [ "$i" = 06 ]; then
			gemm_line "gpu-node-$i" 640 642 638 480 641 639 640 643
		else
			gemm_line "gpu-node-$i" 640 642 638 641 641 639 640 643
		fi >"$B/gemm-$i/0/stdout.txt"
	done
	run -1 "$KUNAI" report "$B" --check
	[ "${lines[-1]}" = "kunai: Drain: gpu-node-06 (gemm bf16_tflops GPU 3 25% below peers); healthy: 7 nodes" ]
	S=$B/report/summary.json
	[ "$(q "$S" runs.5.reason)" = "bf16_tflops on gpu-node-06 GPU 3: 480 TFLOP/s is 25% below the median of 64 GPUs (640 TFLOP/s); 2 values far from their peers in all" ]
	[ "$(q "$S" peer_outliers.0.gpu)" = 3 ]
	I=$B/report/index.html
	grep -q '<h2>GPUs &#215; metrics</h2>' "$I"
	# the worst GPU heads the GPU view
	grep -A2 'GPUs &#215; metrics' "$I" | grep -q 'worst GPU first'
	grep -q '<tr><td>gpu-node-06</td><td class="num">3</td><td class="num g3 flag"' "$I"
}

@test "[peers] in the test TOML and --set on the campaign; a misspelt key is a located error" {
	scenario
	gen --set peers.tolerance=0.5
	campaign 05 289.9 483.1 480.2 485.0
	run -0 "$KUNAI" report "$B" --check
	[ "${lines[-1]}" = "kunai: Drain: none; healthy: 8 nodes" ]
	# the test's own key beats the campaign's
	printf '[peers]\ntolerance = 0.2\nmin_peers = 4\n' >>"$W/c/tests/nccl.toml"
	gen --set peers.tolerance=0.5
	run -1 "$KUNAI" report "$B" --check
	[ "$(q "$B/report/summary.json" drain)" = '["gpu-node-05"]' ]
	# off for the test
	sed -i 's/^\[peers\]$/[peers]\nenabled = false/; /^tolerance = 0.2$/d' "$W/c/tests/nccl.toml"
	gen
	run -0 "$KUNAI" report "$B" --check
	# a misspelt key
	printf 'name = "nccl"\ndescription = "d"\ntest_template_name = "NcclTest"\n[cmd_args]\nsubtest_name = "all_reduce_perf"\n[peers]\ntolerence = 0.2\n' \
		>"$W/c/tests/nccl.toml"
	run -1 gen
	[[ "$output" == *"tests/nccl.toml:7:1: error: unknown key 'tolerence' (did you mean 'tolerance'?)"* ]]
	sed -i 's/^tolerence = 0.2$/tolerance = 0.2/' "$W/c/tests/nccl.toml"
	run -1 gen --set peers.mad_k=-1
	[[ "$output" == *"--set peers.mad_k:1:1: error: peers.mad_k must be at least 0, not -1"* ]]
}

@test "Slurm's compressed node lists are node sets: gpu-node-[01-03,07] is 4 nodes in the terminal, summary.json, JUnit, HTML" {
	N="01 02 03 07"
	scenario
	printf '[references]\nmax_busbw = [470, -0.05, inf, "GB/s"]\n' >>"$W/c/tests/nccl.toml"
	gen
	campaign 07 289.9 483.1 480.2 485.0
	# as sacct's NodeList writes them: the single-node runs bracketed too, the 4-node run compressed
	sed -i 's/"nodes": "gpu-node-02"/"nodes": "gpu-node-[02]"/' "$B/nccl-02/0/job.json"
	sed -i 's/"nodes": "[^"]*"/"nodes": "gpu-node-[01-03,07]"/' "$B/nccl-x8/0/job.json"
	run -1 "$KUNAI" report "$B" --check
	[ "${lines[-1]}" = "kunai: Drain: gpu-node-07 (nccl max_busbw 40% below peers, nccl max_busbw 38% below reference); healthy: 3 nodes" ]
	S=$B/report/summary.json
	[ "$(q "$S" drain)" = '["gpu-node-07"]' ]
	# healthy: worst first (02 is the slowest of them)
	[ "$(q "$S" healthy)" = '["gpu-node-02","gpu-node-01","gpu-node-03"]' ]
	[ "$(q "$S" inconclusive)" = '[]' ]
	[ "$(q "$S" runs.4.nodes)" = "gpu-node-01,gpu-node-02,gpu-node-03,gpu-node-07" ]
	[[ "$(q "$S" multi_node.0)" == "nccl-x8 iteration 0 (4 nodes) perf-failed: "*"; it included gpu-node-07, which is drained" ]]
	! grep -q 'gpu-node-\[' "$S"
	J=$B/report/junit.xml
	grep -q '<testsuite name="fleet verdict" tests="1" failures="1"' "$J"
	grep -q '<testcase name="gpu-node-07" classname="fleet verdict"' "$J"
	! grep -q 'gpu-node-\[\|07\]' "$J"
	I=$B/report/index.html
	grep -q '<strong>Drain: gpu-node-07 (nccl max_busbw 40% below peers, nccl max_busbw 38% below reference); healthy: 3 nodes</strong>' "$I"
	[ "$(grep -c '^<tr><td>gpu-node-0[1237]</td><td class="\(drain\|healthy\)">' "$I")" -eq 4 ]
	! grep -q 'gpu-node-\[' "$I"
}
