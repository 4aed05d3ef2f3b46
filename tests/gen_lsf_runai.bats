#!/usr/bin/env bats
# What gen writes for LSF and RunAI systems, as golden files:
# tests/cases/lsf/NAME/ and tests/cases/runai/NAME/ hold the inputs
# (system.toml, tests/, scenario.toml) and expected/, every bsub_script.sh
# or runai.json of the case's runs at its run dir's path. UPDATE=1 rewrites
# expected/ for review with git diff. Runs: tests/run_lsf.bats and
# tests/run_runai.bats.
bats_require_minimum_version 1.5.0

gen_case() {
	"$KUNAI" gen --system-config "$1/system.toml" --tests-dir "$1/tests" \
		--test-scenario "$1/scenario.toml" -o "$2" >/dev/null
}

# compare CASE-DIR FILE-NAME
compare() {
	local d=$1 name=$2 out=$BATS_TEST_TMPDIR/$(basename "$1") f rel bad=0
	gen_case "$d" "$out"
	if [ -n "${UPDATE:-}" ]; then
		rm -rf "$d/expected"
		(cd "$out" && find . -name "$name" | while read -r f; do
			mkdir -p "$d/expected/$(dirname "$f")" && cp "$f" "$d/expected/$f"
		done)
	fi
	[ -d "$d/expected" ]
	[ "$(cd "$out" && find . -name "$name" | sort)" = "$(cd "$d/expected" && find . -name "$name" | sort)" ]
	for f in $(cd "$d/expected" && find . -name "$name"); do
		diff -u "$d/expected/$f" "$out/$f" || bad=1
	done
	return $bad
}

@test "every LSF case writes its expected bsub scripts" {
	local d n=0
	for d in "$BATS_TEST_DIRNAME"/cases/lsf/*/; do
		compare "${d%/}" bsub_script.sh
		n=$((n + 1))
	done
	[ "$n" -ge 1 ]
}

@test "every RunAI case writes its expected requests" {
	local d n=0
	for d in "$BATS_TEST_DIRNAME"/cases/runai/*/; do
		compare "${d%/}" runai.json
		n=$((n + 1))
	done
	[ "$n" -ge 1 ]
}

@test "LSF and RunAI files are byte-stable across build dirs, and name no absolute path or secret" {
	local c
	for c in lsf/three runai/nccl; do
		gen_case "$BATS_TEST_DIRNAME/cases/$c" "$BATS_TEST_TMPDIR/a"
		mkdir -p "$BATS_TEST_TMPDIR/elsewhere"
		(cd "$BATS_TEST_TMPDIR/elsewhere" && gen_case "$BATS_TEST_DIRNAME/cases/$c" b)
		diff -r -x .kunai -x local.ninja "$BATS_TEST_TMPDIR/a" "$BATS_TEST_TMPDIR/elsewhere/b"
		! grep -rq --exclude local.ninja --exclude-dir .kunai "$BATS_TEST_TMPDIR" "$BATS_TEST_TMPDIR/a"
		rm -rf "$BATS_TEST_TMPDIR/a" "$BATS_TEST_TMPDIR/elsewhere"
	done
	# the secret's variable is named in kunai.json (for kunai job), never a value
	gen_case "$BATS_TEST_DIRNAME/cases/runai/nccl" "$BATS_TEST_TMPDIR/r"
	grep -q '"app_secret_env":	"RUNAI_APP_SECRET"' "$BATS_TEST_TMPDIR/r/kunai.json"
	! grep -rq 'app_secret"' "$BATS_TEST_TMPDIR/r"
}

@test "a workload LSF or RunAI cannot run is a located error" {
	local d=$BATS_TEST_TMPDIR/c
	mkdir -p "$d/tests"
	cp "$BATS_TEST_DIRNAME/cases/lsf/three/system.toml" "$d/"
	cp "$BATS_TEST_DIRNAME/cases/runai/nccl/tests/nccl.toml" "$d/tests/"
	printf 'name = "s"\n[[Tests]]\nid = "n"\ntest_name = "nccl"\n' >"$d/scenario.toml"
	run --separate-stderr "$KUNAI" gen --system-config "$d/system.toml" --tests-dir "$d/tests" \
		--test-scenario "$d/scenario.toml" -o "$d/out"
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"scenario.toml:4:13: error: workload NcclTest (test 'nccl') cannot run on a lsf system"* ]]
}
