#!/usr/bin/env bats
# make bench-smoke: every bench script of `make bench` at its smallest size,
# so that a change that breaks the benchmark fails the suite (make bench
# itself takes many minutes and is not part of make check).
bats_require_minimum_version 1.5.0

@test "make bench-smoke: every bench script runs and prints each figure beside its goal and peer" {
	top=$BATS_TEST_DIRNAME/..
	[ -f "$top/Makefile" ] || skip "no Makefile: run ./configure"
	command -v make >/dev/null || skip "no make"
	run make -s --no-print-directory -C "$top" bench-smoke
	[ "$status" -eq 0 ] || { printf '%s\n' "$output"; false; }
	# one table per script that make bench runs
	scripts=$(grep -c '^	$(BENCH) sh tests/bench/' "$top/Makefile.in")
	[ "$scripts" -ge 4 ]
	[ "$(grep -c '^figure  *kunai  *peer  *ratio  *goal$' <<<"$output")" -eq "$scripts" ]
	for s in iterations sweep tests tests-x100 chain star; do
		[[ "$output" == *"$s 100: first gen "*"tar -x"* ]]
		[[ "$output" == *"$s 100: no-op ninja run "*"bare graph"* ]]
	done
	# at the bound (KUNAI_MAX_RUNS, 1200 in the smoke run: past the 1,000
	# iterations that chain, so the sequencing pool's rules are walked)
	[[ "$output" == *"iterations 1200 (the bound): ninja -n run "*"8 MiB stack"* ]]
	[[ "$output" == *"chain 1200 (the bound): ninja -n run "*"8 MiB stack"* ]]
	[[ "$output" == *"toml2json 0.1 MB "*"the parse alone"* ]]
	[[ "$output" == *"standalone: kunai per run"* ]]
	[[ "$output" == *"kunai report 100, nothing changed"* ]]
	[[ "$output" == *"kunai report 200, first, peak RSS"*"< 100 MB"* ]]
	[[ "$output" == *"ninja report 20, from nothing"* ]]
	[[ "$output" == *"kunai report 100, a grader changed"* ]]
	# kunai beside CloudAI's dry-run, or why not
	[[ "$output" == *"tests 100: dry run "*"CloudAI dry-run"* ||
		"$output" == *"tests 100: dry run vs CloudAI"*"skipped: CloudAI is not installed"* ]]
	# every row names its goal (a smoke run gives no verdict) or why it was skipped
	! grep -v -e '^figure ' -e '^(no gnuplot' <<<"$output" |
		grep -v -e ' <= .*: -$' -e ' < .*: -$' -e '(no goal)$' -e ' skipped: '
}
