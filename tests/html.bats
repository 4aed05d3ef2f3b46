#!/usr/bin/env bats
# Graded reports an admin can act on: metrics with unit and location,
# references from the test TOML (re-graded without re-running), plots as
# ninja edges, the HTML report (checked in headless chromium where there is
# one), CSV, and bad input. Run dirs are fabricated as the runner writes them.
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
	cat >"$W/c/tests/gemm.toml" <<'T'
name = "gemm"
description = "gemm"
test_template_name = "KunaiGemm"
[references.H100]
bf16_tflops = [625, -0.10, inf, "TFLOP/s"]
[references.B200]
bf16_tflops = [1800, -0.10, inf, "TFLOP/s"]
T
	cat >"$W/c/tests/nccl.toml" <<'T'
name = "nccl"
description = "all-reduce"
test_template_name = "NcclTest"
[cmd_args]
subtest_name = "all_reduce_perf"
[references]
max_busbw = [300, -0.05, 0.5, "GB/s"]
T
	cat >"$W/c/tests/train.toml" <<'T'
name = "train"
description = "train"
test_template_name = "KunaiTrainSmoke"
T
	cat >"$W/c/scenario.toml" <<'T'
name = "acc <&\"x\""
[[Tests]]
id = "gemm <&\"q\""
test_name = "gemm"
[[Tests]]
id = "nccl"
test_name = "nccl"
[[Tests]]
id = "train"
test_name = "train"
T
	B=$W/out
	G='gemm <&"q"'
}

gen() {
	(cd "$W/c" && "$KUNAI" gen --system-config system.toml --tests-dir tests --test-scenario scenario.toml \
		-o "$B" "$@") >/dev/null
}

q() { "$Q" "$@"; }

# job DIR OUTCOME EXIT [NODES]
job() {
	mkdir -p "$B/$1"
	cat >"$B/$1/job.json" <<J
{"dir": "${1//\"/\\\"}", "scheduler": "standalone", "job_id": "42", "state": "EXITED", "exit_code": $3,
 "outcome": "$2", "reason": $([ "$2" = passed ] && echo null || echo '"EXITED: exit code 1"'),
 "start_time": "2024-05-01T12:00:01Z", "end_time": "2024-05-01T12:00:03Z", "nodes": ${4:-\"node-001\"}}
J
	if [ "$2" = passed ]; then touch "$B/$1/kunai.stamp"; else rm -f "$B/$1/kunai.stamp"; fi
}

gemm_line() { # HOST TFLOPS_GPU0 TFLOPS_GPU1
	printf '{"workload":"gemm","path":"gpu","gpu_models":["NVIDIA H100 80GB HBM3","NVIDIA H100 80GB HBM3"],'
	printf '"results":{"bf16":{"tflops_per_gpu":[%s,%s]}},"metrics":{"bf16_tflops_min":%s},' "$2" "$3" "$3"
	printf '"result":"SUCCESS","failures":[],"host":"%s"}\n' "$1"
}

fabricate() {
	job "$G/0" passed 0 '["node-002", "node-003"]'
	{
		printf '0: [GEMM] GPU path\n0: '
		gemm_line node-002 640.5 630.1
		printf '1: '
		gemm_line node-003 633.0 512.0
		printf '0: [RESULT] SUCCESS\n1: [RESULT] SUCCESS\n'
	} >"$B/$G/0/stdout.txt"
	job nccl/0 passed 0
	cat >"$B/nccl/0/stdout.txt" <<'N'
#  Rank  0 Group  0 Pid  12345 on   node-001 device  0 [0000:18:00] NVIDIA H100 80GB HBM3
#       size         count      type   redop    root     time   algbw   busbw  #wrong     time   algbw   busbw  #wrong
    67108864      16777216     float     sum      -1   352.10  190.60  333.55       0   350.33  191.56  335.23       0
   134217728      33554432     float     sum      -1   652.10  205.83  360.20       0   650.33  206.38  361.17       0
# Out of bounds values : 0 OK
# Avg bus bandwidth    : 347.5375
N
	job train/0 failed 1
	printf '[TRAIN] epoch 1: mean loss 1.2\n{"workload":"train_smoke","path":"cpu","epoch_loss":[1.2,0.9],"loss_start":1.4,"loss_end":1.1,"accuracy":0.5,"result":"FAILURE","failures":["loss 1.1 is not below 0.7 x its start"],"host":"node-001"}\n[RESULT] FAILURE: loss 1.1 is not below 0.7 x its start\n' >"$B/train/0/stdout.txt"
	printf 'caf\303\251 bad\377byte <script>alert(1)</script> & done\n' >"$B/train/0/stderr.txt"
}

@test "every value has a unit and a place; a slow GPU is perf-failed by name and number; no reference is said" {
	gen
	fabricate
	run -0 "$KUNAI" report "$B"
	[[ "${lines[0]}" == "kunai: mixed: 2 runs on GPUs, 1 on the CPU path (no GPU)" ]]
	R="$B/$G/0/report.json"
	[ "$(q "$R" outcome)" = perf-failed ]
	[ "$(q "$R" reason)" = "bf16_tflops on node-003 GPU 1 (NVIDIA H100 80GB HBM3): 512 TFLOP/s is 18% below the reference 625 TFLOP/s (tolerance 10%)" ]
	[ "$(q "$R" path)" = gpu ]
	[ "$(q "$R" values.4.node)" = node-003 ]
	[ "$(q "$R" values.4.gpu)" = 1 ]
	[ "$(q "$R" values.4.unit)" = TFLOP/s ]
	[ "$(q "$R" values.4.check)" = "below reference" ]
	[ "$(q "$R" values.4.reference.scope)" = H100 ]
	[ "$(q "$R" values.1.check)" = ok ]
	# bf16_tflops_min has no reference: said so, not graded
	[ "$(q "$R" values.2.name)" = bf16_tflops_min ]
	[ "$(q "$R" values.2.check)" = "no reference" ]
	N="$B/nccl/0/report.json"
	[ "$(q "$N" outcome)" = passed ]
	[ "$(q "$N" values.0.name)" = max_busbw ]
	[ "$(q "$N" values.0.gpu_model)" = "NVIDIA H100 80GB HBM3" ]
	[ "$(q "$N" values.0.check)" = ok ]
	# per size: busbw, algbw, time of both halves
	[ "$(q "$N" series.0.name)" = time ]
	[ "$(q "$N" series.0.x_name)" = bytes ]
	[ "$(q "$N" series.0.x)" = "[67108864,134217728]" ]
	[ "$(q "$N" series.0.values)" = "[352.1,652.1]" ]
	[ "$(q "$N" series.0.unit)" = us ]
	[ "$(q "$N" series.2.name)" = busbw ]
	T="$B/train/0/report.json"
	[ "$(q "$T" outcome)" = failed ]
	[ "$(q "$T" reason)" = "node-001: loss 1.1 is not below 0.7 x its start (EXITED: exit code 1)" ]
	[ "$(q "$T" values.0.gpu_model)" = cpu ]
	grep -q 'perf-failed.*512 TFLOP/s is 18% below' "$B/report/summary.md"
	grep -q '<failure type="perf-failed" message="bf16_tflops on node-003 GPU 1' "$B/report/junit.xml"
}

@test "a changed reference re-grades without re-running: ninja report, not ninja run" {
	gen
	fabricate
	ninja -C "$B" report >/dev/null
	[ "$(q "$B/$G/0/report.json" outcome)" = perf-failed ]
	stamp=$(stat -c %Y.%y "$B/nccl/0/kunai.stamp")
	script=$(stat -c %Y.%y "$B/$G/0/run.sh")
	sleep 1
	sed -i 's/-0.10, inf/-0.20, inf/' "$W/c/tests/gemm.toml"
	run -0 ninja -C "$B" report
	[ "$(q "$B/$G/0/report.json" outcome)" = passed ]
	[ "$(stat -c %Y.%y "$B/nccl/0/kunai.stamp")" = "$stamp" ]
	# the script, which is what makes ninja run a run again, is as it was
	[ "$(stat -c %Y.%y "$B/$G/0/run.sh")" = "$script" ]
}

@test "plots: one SVG per run as an edge on its report.json; a no-op ninja report touches nothing" {
	command -v gnuplot >/dev/null || skip "gnuplot is not installed"
	gen
	fabricate
	ninja -C "$B" report >/dev/null
	for f in "$B"/report/plots/*.svg; do grep -q '<svg' "$f"; done
	# a plot per run, and an overlay per test
	[ "$(ls "$B"/report/plots | grep -vc '^test-')" = 3 ]
	[ "$(ls "$B"/report/plots | grep -c '^test-')" = 3 ]
	grep -q 'node-003 GPU 1' "$B"/report/plots/1-*.svg
	touch -d '2000-01-01' "$W/mark"
	find "$B" -newer "$W/mark" -type f | sort >"$W/before"
	sleep 1
	touch "$W/mark"
	run -0 ninja -C "$B" report
	[ -z "$(find "$B" -newer "$W/mark" -type f ! -name .ninja_log ! -name .ninja_deps)" ]
	# a changed result redraws that run's plot and its test's overlay only
	sleep 1
	touch "$W/mark"
	sed -i 's/360.20/370.20/' "$B/nccl/0/stdout.txt"
	ninja -C "$B" report >/dev/null
	changed=$(find "$B/report/plots" -newer "$W/mark" -type f | sort | tr '\n' ' ')
	[[ "$changed" == "$B/report/plots/2-nccl-0.svg $B/report/plots/test-nccl-"*".svg " ]]
}

@test "plots: a one-point series is a point that says its value, epochs are whole ticks, no gnuplot warning" {
	command -v gnuplot >/dev/null || skip "gnuplot is not installed"
	gen
	fabricate
	# one GPU of one node: one value
	job "$G/0" passed 0 '["node-002"]'
	printf '{"workload":"gemm","path":"gpu","gpu_models":["NVIDIA H100 80GB HBM3"],"results":{"bf16":{"tflops_per_gpu":[640.5]}},"metrics":{"bf16_tflops_min":640.5},"result":"SUCCESS","failures":[],"host":"node-002"}\n[RESULT] SUCCESS\n' \
		>"$B/$G/0/stdout.txt"
	run -0 ninja -C "$B" report
	[[ "$output" != *"Warning"* ]] || { echo "$output"; false; }
	# the run's plot and the test's overlay: a point with its value, no bar
	grep -q '>640.5</text>' "$B"/report/plots/1-*.svg
	grep -q '>640.5</text>' "$B"/report/plots/test-gemm*.svg
	# two epochs: ticks 1 and 2, not 1.2 ... 1.8 (the loss axis stops at 1.2)
	grep -q '> *2</text>' "$B"/report/plots/3-train-0.svg
	! grep -Eq '> *1\.[4-8]</text>' "$B"/report/plots/3-train-0.svg
}

@test "without gnuplot the plot says so and the build goes on" {
	gen
	fabricate
	mkdir -p "$W/bin"
	for t in ninja sh dirname; do ln -sf "$(command -v $t)" "$W/bin/$t"; done
	PATH="$W/bin" run -0 "$KUNAI" plot busbw "$B/nccl/0/report.json" "$W/p.svg" 2>&1 || true
	"$KUNAI" report --no-html "$B" >/dev/null
	PATH="$W/bin" run -0 "$KUNAI" plot busbw "$B/nccl/0/report.json" "$W/p.svg"
	[[ "$output" == *"gnuplot is not installed"* ]]
	grep -q 'no plot: gnuplot is not installed' "$W/p.svg"
	xmllint --noout "$W/p.svg"
}

@test "HTML: index and run pages are well-formed, escaped, and every link and image resolves" {
	gen
	fabricate
	ninja -C "$B" report >/dev/null
	I="$B/report/index.html"
	for f in "$I" "$B"/report/runs/*.html "$B/report/csv/index.html"; do xmllint --noout "$f"; done
	! grep -q '<script' "$B"/report/runs/*.html "$I"
	grep -q 'gemm &lt;&amp;"q" iteration 0' "$I"
	grep -q '&lt;script&gt;alert(1)&lt;/script&gt; &amp; done' "$B"/report/runs/3-train-0.html
	grep -q "$(printf 'bad\357\277\275byte')" "$B"/report/runs/3-train-0.html
	grep -q 'results from</th><td>2024-05-01T12:00:03Z' "$I"
	# every href and src, relative to its page, names a file
	for page in "$I" "$B"/report/runs/*.html "$B/report/csv/index.html"; do
		for l in $(grep -o '\(href\|src\)="[^"]*"' "$page" | sed 's/^[a-z]*="//; s/"$//'); do
			[ -f "$(dirname "$page")/$l" ] || { echo "$page: $l is missing"; false; }
		done
	done
}

@test "HTML renders in headless chromium (screenshot)" {
	command -v chromium >/dev/null || skip "chromium is not installed (apt-get install chromium)"
	command -v gnuplot >/dev/null || skip "gnuplot is not installed"
	gen
	fabricate
	ninja -C "$B" report >/dev/null
	run -0 timeout 120 chromium --headless --no-sandbox --disable-gpu --user-data-dir="$W/chr" \
		--screenshot="$W/index.png" --window-size=1200,900 "file://$B/report/index.html"
	[ -s "$W/index.png" ]
	run -0 timeout 120 chromium --headless --no-sandbox --disable-gpu --user-data-dir="$W/chr" \
		--dump-dom "file://$B/report/runs/1-gemm____q_-0.html"
	[[ "$output" == *"512 TFLOP/s"* ]]
	[[ "$output" == *'<img src="../plots/1-gemm____q_-0.svg"'* ]]
	mkdir -p "$BATS_RUN_TMPDIR/../screenshots" 2>/dev/null && cp "$W/index.png" "$BATS_RUN_TMPDIR/../screenshots/" || true
}

@test "CSV: one file per workload and shape, a row per run and node/GPU/size, a column per metric" {
	gen
	fabricate
	"$KUNAI" report "$B" >/dev/null
	C="$B/report/csv/KunaiGemm_per_gpu.csv"
	[ "$(head -n 1 "$C")" = "run,id,iteration,step,outcome,node,gpu,gpu_model,bf16_tflops (TFLOP/s)$(printf '\r')" ]
	[ "$(grep -c ',node-00[23],[01],NVIDIA H100 80GB HBM3,' "$C")" = 4 ]
	grep -q '^"gemm <&""q""/0","gemm <&""q""",0,,perf-failed,node-003,1,NVIDIA H100 80GB HBM3,512' "$C"
	S="$B/report/csv/NcclTest_per_size.csv"
	[ "$(head -n 1 "$S")" = "run,id,iteration,step,outcome,node,gpu,gpu_model,bytes,time (us),algbw (GB/s),busbw (GB/s),time_inplace (us),algbw_inplace (GB/s),busbw_inplace (GB/s)$(printf '\r')" ]
	grep -q '^nccl/0,nccl,0,,passed,node-001,,NVIDIA H100 80GB HBM3,134217728,652.1,205.83,360.2,650.33,206.38,361.17' "$S"
	grep -q 'href="KunaiTrainSmoke_epoch.csv"' "$B/report/csv/index.html"
}

@test "bad input: truncated, empty, NaN, garbage output give a reason, never a crash" {
	gen
	job "$G/0" passed 0
	printf '{"workload":"gemm","path":"gpu","resu' >"$B/$G/0/stdout.txt"
	job nccl/0 passed 0
	: >"$B/nccl/0/stdout.txt"
	job train/0 passed 0
	printf '{"workload":"train_smoke","loss_end":NaN}\n\377\376garbage\n[RESULT] SUCCESS\n' >"$B/train/0/stdout.txt"
	run -0 "$KUNAI" report "$B"
	[ "$(q "$B/$G/0/report.json" reason)" = "success check: stdout.txt lacks '[RESULT] SUCCESS'" ]
	[[ "$(q "$B/nccl/0/report.json" reason)" == "success check: stdout.txt lacks"*"(it is empty)" ]]
	[ "$(q "$B/train/0/report.json" reason)" = "the JSON result line in stdout.txt is cut short or not JSON" ]
	for f in "$B"/report/index.html "$B"/report/runs/*.html; do xmllint --noout "$f"; done
}

@test "compare OLD NEW: a table of deltas, exit 1 on a regression beyond tolerance; history flags it" {
	gen
	fabricate
	"$KUNAI" report "$B" >/dev/null
	cp -r "$B" "$W/old"
	run -0 "$KUNAI" compare "$W/old" "$B/report/summary.json"
	# nothing regressed: only the count (the table is behind --all)
	[ "${#lines[@]}" -eq 1 ]
	[[ "${lines[-1]}" == "kunai: 14 values in both, 0 only in NEW, 0 only in OLD; 0 regressed beyond their tolerance (--all shows every value)" ]]
	run -0 "$KUNAI" compare --all "$W/old" "$B"
	[ "${#lines[@]}" -eq 16 ]
	sed -i 's/360.20/300.20/; s/361.17/301.17/; s/347.5375/340.0/' "$B/nccl/0/stdout.txt"
	"$KUNAI" report "$B" >/dev/null
	run -1 "$KUNAI" compare "$W/old" "$B"
	[ "${#lines[@]}" -eq 3 ]
	[[ "${lines[1]}" == "nccl max_busbw on node-001"*"361.2"*"335.2"*"-7.2%  REGRESSED" ]]
	[[ "${lines[2]}" == "kunai: 14 values in both, 0 only in NEW, 0 only in OLD; 1 regressed beyond their tolerance (--all shows every value)" ]]
	# the regressions first, worst first: max_busbw 2.2 points past its 5%, avg_busbw 1.2 past 1%
	run -1 "$KUNAI" compare --tolerance 1 "$W/old" "$B"
	[ "${#lines[@]}" -eq 4 ]
	[[ "${lines[1]}" == "nccl max_busbw on node-001"*"-7.2%  REGRESSED" ]]
	[[ "${lines[2]}" == "nccl avg_busbw on node-001"*"347.5"*"340"*"-2.2%  REGRESSED" ]]
	run -1 "$KUNAI" compare --all "$W/old" "$B"
	[ "${#lines[@]}" -eq 16 ]
	[[ "${lines[1]}" == *"REGRESSED" && "${lines[2]}" != *"REGRESSED" ]]
	# max_busbw's reference allows 5% down; 10% by hand lets it pass
	sed -i 's/-0.05, 0.5/-0.10, 0.5/' "$W/c/tests/nccl.toml"
	ninja -C "$B" report >/dev/null
	run -0 "$KUNAI" compare "$W/old" "$B"
	run -2 "$KUNAI" compare "$W/old"
	run -1 "$KUNAI" compare "$W/old" "$W/nowhere"
	[[ "$output" == *"no report/summary.json"* ]]
	# history: three earlier campaigns; the drop is outside their spread
	for i in 1 2 3; do cp -r "$W/old" "$W/h$i"; done
	sed -i 's/-0.10, 0.5/-0.05, 0.5/' "$W/c/tests/nccl.toml"
	ninja -C "$B" report >/dev/null
	run -0 "$KUNAI" report "$B" --history "$W/h1" "$W/h2" "$W/h3/report/summary.json"
	[[ "$output" == *"kunai: 1 value outside its history"* ]]
	grep -q '| nccl max_busbw on node-001 | 335.2 GB/s | 361.2 .. 361.2, 3 | OUTSIDE its history |' "$B/report/history.md"
	run -1 "$KUNAI" report "$B" --check --history "$W/h1" "$W/h2" "$W/h3"
	grep -q 'href="history.md"' "$B/report/index.html"
	# two earlier campaigns are not a spread: not checked, and --check does not pass on it
	run -0 "$KUNAI" report "$B" --history "$W/h1" "$W/h2"
	[[ "$output" == *"kunai: history: 2 of 3 campaigns needed; not checked"* ]]
	[[ "$output" != *"outside"* ]]
	grep -q 'history: 2 of 3 campaigns needed; not checked' "$B/report/history.md"
	# the values within their history pass --check; not when one source cannot be read
	sed -i 's/300.20/360.20/; s/301.17/361.17/; s/340.0$/347.5375/' "$B/nccl/0/stdout.txt"
	sed -i 's/512.0/633.0/' "$B/$G/0/stdout.txt"
	job train/0 passed 0
	printf '{"workload":"train_smoke","path":"cpu","epoch_loss":[1.2,0.9],"loss_start":1.4,"loss_end":1.1,"accuracy":0.5,"result":"SUCCESS","failures":[],"host":"node-001"}\n[RESULT] SUCCESS\n' >"$B/train/0/stdout.txt"
	run -0 "$KUNAI" report "$B" --check
	run -0 "$KUNAI" report "$B" --check --history "$W/h1" "$W/h2" "$W/h3"
	[[ "$output" == *"kunai: 0 values outside their history"* ]]
	run -1 "$KUNAI" report "$B" --check --history "$W/h1" "$W/h2"
	run -1 "$KUNAI" report "$B" --check --history "$W/h1" "$W/h2" "$W/h3" "$W/nowhere"
	[[ "$output" == *"kunai: history: 1 of 4 sources could not be read"* ]]
	grep -q 'Not read:.*nowhere' "$B/report/history.md"
}

@test "exact and safe: integers stay integers; CSV cells are no formulas; summary.md carries no HTML or link" {
	gen
	fabricate
	job nccl/0 passed 0 '["-node-1"]'
	cat >"$B/nccl/0/stdout.txt" <<'N'
#  Rank  0 Group  0 Pid  12345 on   node-001 device  0 [0000:18:00] NVIDIA H100 80GB HBM3
#       size         count      type   redop    root     time   algbw   busbw  #wrong     time   algbw   busbw  #wrong
    67108864      16777216     float     sum      -1   352.10  190.60  333.55       0   350.33  191.56  335.23       0
  4294967296    1073741824     float     sum      -1 15000.00  286.33  501.07       0 15000.00  286.33  501.07       0
# Out of bounds values : 0 OK
# Avg bus bandwidth    : 347.5375
N
	printf '{"workload":"train_smoke","path":"cpu","epoch_loss":[1.2,0.9],"loss_start":1.4,"loss_end":1.1,"result":"FAILURE","failures":["<img src=x onerror=alert(1)> [click](http://evil.example) `x` a|b"],"host":"=HYPERLINK(1)"}\n[RESULT] FAILURE\n' >"$B/train/0/stdout.txt"
	"$KUNAI" report "$B" >/dev/null
	# the size of the best row, exactly, in report.json, summary.json, the CSV and the pages
	[ "$(q "$B/nccl/0/report.json" metrics.max_busbw_size)" = 4294967296 ]
	grep -q '"max_busbw_size":[[:space:]]*4294967296' "$B/report/summary.json"
	! grep -rq 'e+09' "$B/report/csv" "$B/report/summary.json" "$B/nccl/0/report.json"
	grep -q ',4294967296,' "$B/report/csv/NcclTest_per_size.csv"
	grep -q '4 GiB' "$B/report/runs/"*nccl*.html
	! grep -q 'e+09' "$B/report/runs/"*nccl*.html
	# a leading - or = is text to a spreadsheet
	grep -q "^nccl/0,nccl,0,,[a-z-]*,\"'-node-1\"," "$B/report/csv/NcclTest_per_size.csv"
	grep -q "\"'=HYPERLINK(1)\"" "$B/report/csv/KunaiTrainSmoke.csv"
	! grep -q ',-node-1,\|,=HYPERLINK' "$B"/report/csv/*.csv
	# summary.md: the reason as text
	M=$B/report/summary.md
	grep -q '&lt;img src=x onerror=alert(1)&gt; \\\[click\\\](http://evil.example) \\`x\\` a\\|b' "$M"
	! grep -q '<img\|\[click\]' "$M"
}

@test "one truth per run: status, the run page and summary.json show the graded outcome, the job's beside it" {
	gen
	fabricate
	# before a report, status has only the runner's word
	run -0 "$KUNAI" status "$B"
	[[ "$output" == *"$G  0     passed"* ]]
	"$KUNAI" report "$B" >/dev/null
	run -0 "$KUNAI" status "$B"
	[[ "$output" == *"$G  0     perf-failed (job passed)"*"512 TFLOP/s is 18% below"* ]]
	[[ "${lines[-1]}" == *" 1 passed,"*" 1 failed,"*" 1 perf-failed,"* ]]
	[ "$(q "$B/report/summary.json" runs.0.outcome)" = perf-failed ]
	[ "$(q "$B/report/summary.json" runs.0.job_state)" = EXITED ]
	[ "$(q "$B/report/summary.json" runs.0.job_outcome)" = passed ]
	grep -q '<tr><th>scheduler</th><td>EXITED (job passed; graded as above)</td></tr>' "$B"/report/runs/*gemm*.html
	# a pass measured against a reference on GPUs needs no note; the CPU path does
	[ "$(q "$B/report/summary.json" note)" = "CPU path: 1 run measured on the CPU, no GPU" ]
	# a newer result than the report: the runner's word again, until re-graded
	sleep 0.01
	job "$G/0" failed 1 '["node-002", "node-003"]'
	run -0 "$KUNAI" status "$B"
	[[ "$output" == *"$G  0     failed "* ]]
}

@test "references by range: a reference for message sizes from 128 MiB applies there only; sizes are located errors" {
	cat >"$W/c/tests/nccl.toml" <<'T'
name = "nccl"
description = "all-reduce"
test_template_name = "NcclTest"
[cmd_args]
subtest_name = "all_reduce_perf"
[references]
busbw = { value = 350, lower = -0.05, unit = "GB/s", min_size = "128MiB" }
T
	gen
	fabricate
	"$KUNAI" report "$B" >/dev/null
	R=$B/nccl/0/report.json
	# 64 MiB (333.6 GB/s, 5% low) is outside the range: no reference; 128 MiB is within it
	[ "$(q "$R" outcome)" = passed ]
	grep -A12 '"bytes":[[:space:]]*134217728' "$R" | grep -q '"check":[[:space:]]*"ok"'
	grep -q '"min_size":[[:space:]]*134217728' "$R"
	! grep -B2 -A12 '"bytes":[[:space:]]*67108864' "$R" | grep -q '"reference"'
	grep -q 'sizes 128 MiB and up' "$B"/report/runs/*nccl*.html
	# the array form with a range: [value, lower, "unit", { min_size, max_size }]
	sed -i 's/^busbw = .*/busbw_inplace = [370, -0.01, "GB\/s", { min_size = 134217728, max_size = "1GiB" }]/' "$W/c/tests/nccl.toml"
	ninja -C "$B" report >/dev/null
	[ "$(q "$R" outcome)" = perf-failed ]
	[ "$(q "$R" reason)" = "busbw_inplace at 128 MiB on node-001 (NVIDIA H100 80GB HBM3): 361.2 GB/s is 2% below the reference 370 GB/s (tolerance 1%)" ]
	# a size that is none is a located error
	sed -i 's/max_size = "1GiB"/max_size = "1 GB"/' "$W/c/tests/nccl.toml"
	run -1 bash -c "cd '$W/c' && '$KUNAI' gen --system-config system.toml --tests-dir tests --test-scenario scenario.toml -o '$B'"
	[[ "$output" == *"tests/nccl.toml:7:"*": error: reference 'busbw_inplace': max_size '1 GB' is not a size in bytes"* ]]
}

@test "overlays: one plot per test with every run on it, the perf-failed one red and named, the reference dashed" {
	command -v gnuplot >/dev/null || skip "gnuplot is not installed"
	sed -i '/^id = "nccl"/a iterations = 4' "$W/c/scenario.toml"
	gen
	fabricate
	for i in 1 2 3; do
		job "nccl/$i" passed 0 "\"node-00$((i + 1))\""
		sed "s/node-001/node-00$((i + 1))/" "$B/nccl/0/stdout.txt" >"$B/nccl/$i/stdout.txt"
	done
	sed -i 's/360.20/200.20/; s/361.17/201.17/; s/333.55/190.55/; s/335.23/191.23/' "$B/nccl/3/stdout.txt"
	grep -q 'build report/plots/test-nccl-[0-9a-f]*\.svg: plot_test report/summary.json | nccl/0/report.json nccl/1/report.json nccl/2/report.json nccl/3/report.json' "$B/report.ninja"
	run ninja -C "$B" report
	O=$(ls "$B"/report/plots/test-nccl-*.svg)
	xmllint --noout "$O"
	# every node's curve, the slow one named with its outcome, the reference line
	for n in node-001 node-002 node-003 'node-004 (perf-failed)' 'reference max_busbw 300 GB/s -5%'; do grep -q ">$n<" "$O"; done
	grep -q "<img src=\"plots/$(basename "$O")\"" "$B/report/index.html"
	# GEMM: bars of every GPU, the one that fell short named
	G2=$(ls "$B"/report/plots/test-gemm*.svg)
	grep -q '>node-003 GPU 1 (perf-failed)<' "$G2"
	grep -q '>reference 625 TFLOP/s -10%, H100<' "$G2"
	! grep -q '>reference 1800' "$G2" # B200's: no value was measured on one
	# the highlighted runs are an input of the drawing: a no-op report leaves the plots alone
	t=$(stat -c %Y "$O")
	sleep 1
	ninja -C "$B" report >/dev/null
	[ "$(stat -c %Y "$O")" = "$t" ]
}
