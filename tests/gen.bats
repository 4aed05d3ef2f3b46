#!/usr/bin/env bats
# kunai gen: the build dir it writes, byte stability, incrementality and
# regeneration, checked with the real ninja.
bats_require_minimum_version 1.5.0
load helpers

setup() {
	CONF="$SHARED/cloudai-compat/conf"
	W=$BATS_TEST_TMPDIR
	mkdir -p "$W/c/tests" "$W/fake/rules"
	cat >"$W/c/system.toml" <<'T'
name = "local"
scheduler = "standalone"
install_path = "./install"
output_path = "./results"
max_jobs = 2
T
	cat >"$W/c/tests/sleep.toml" <<'T'
name = "sleep"
description = "sleep"
test_template_name = "Sleep"
[cmd_args]
seconds = 0
T
	cat >"$W/c/tests/sleep2.toml" <<'T'
name = "sleep2"
description = "sleep again"
test_template_name = "Sleep"
[cmd_args]
seconds = 1
T
	cat >"$W/c/scenario.toml" <<'T'
name = "two"
[[Tests]]
id = "a"
test_name = "sleep"
iterations = 2
[[Tests]]
id = "b"
test_name = "sleep2"
  [[Tests.dependencies]]
  type = "start_post_comp"
  id = "a"
T
	# rules whose run edge only writes the stamp: the graph is what is tested here
	printf 'rule report\n  command = true\nrule plot\n  command = true\nrule html\n  command = true\n' >"$W/fake/rules/common.ninja"
	printf 'run_command = touch\nrule run\n  command = $run_command $out\n  description = RUN $out\n  pool = jobs\n' \
		>"$W/fake/rules/standalone.ninja"
}

gen() { # gen OUT [extra args]: gen the small campaign from $W/c
	out=$1
	shift
	(cd "$W/c" && "$KUNAI" gen --system-config system.toml --tests-dir tests --test-scenario scenario.toml -o "$out" "$@")
}


@test "gen writes build.ninja, local.ninja, kunai.json and a script + env per run" {
	run gen "$W/out"
	[ "$status" -eq 0 ]
	[ "$output" = "kunai: 3 runs of scenario 'two' in $W/out" ]
	for f in build.ninja local.ninja kunai.json a/0/run.sh a/0/env_vars.sh a/1/run.sh b/0/run.sh; do
		[ -f "$W/out/$f" ]
	done
	grep -q '^default run$' "$W/out/build.ninja"
	grep -q '^  depth = 2$' "$W/out/build.ninja"
	grep -q 'generator = 1' "$W/out/local.ninja"
	# the regenerate edge lists every input TOML
	for f in system.toml tests/sleep.toml tests/sleep2.toml scenario.toml; do
		grep -q "regenerate.* $W/c/$f" "$W/out/local.ninja"
	done
}

@test "iterations run in order and start_post_comp waits for every run of its target" {
	gen "$W/out" >/dev/null
	grep -q '^build a/1/kunai.stamp: run || a/0/kunai.stamp$' "$W/out/build.ninja"
	# b names a once, by a's alias (the phony of its last iteration): the
	# graph stays linear in runs + dependencies
	grep -q '^build b/0/kunai.stamp: run || a$' "$W/out/build.ninja"
	grep -q '^build a: phony a/1/kunai.stamp$' "$W/out/build.ninja"
	run ninja -C "$W/out" -t graph run
	[[ "$output" == *'"a/0/kunai.stamp"'* ]]
	# building b/0 runs every run of a first, in order
	run ninja -C "$W/out" -n b/0/kunai.stamp
	[[ "$output" == *"RUN a/0/kunai.stamp"*"RUN a/1/kunai.stamp"*"RUN b/0/kunai.stamp"* ]]
}

@test "byte-stable: two working dirs, two build dirs, same scripts and build.ninja" {
	gen "$W/one" >/dev/null
	mkdir -p "$W/elsewhere/deeper"
	cp -R "$W/c" "$W/elsewhere/deeper/c"
	(cd "$W/elsewhere" && "$KUNAI" gen --system-config deeper/c/system.toml --tests-dir deeper/c/tests \
		--test-scenario deeper/c/scenario.toml -o "$W/two/nested") >/dev/null
	for f in build.ninja a/0/run.sh a/0/env_vars.sh a/1/run.sh b/0/run.sh b/0/env_vars.sh; do
		cmp "$W/one/$f" "$W/two/nested/$f"
	done
	# and none of them names a path of this machine
	! grep -rq "$W" "$W/one/build.ninja" "$W/one/a" "$W/one/b"
}

@test "byte-stable for CloudAI's nccl scenario with hooks, across build dirs" {
	need_cloudai
	for o in x y; do
		"$KUNAI" gen --system-config "$CONF/system/example_slurm_cluster.toml" --tests-dir "$CONF/test" \
			--test-scenario "$CONF/test_scenario/nccl_test.toml" --hook-dir "$CONF/hook" -o "$W/$o" >/dev/null
	done
	diff -r -x local.ninja -x kunai.json -x .kunai "$W/x" "$W/y"
}

@test "rendering in threads writes the same bytes as one thread, hooks and manifest included" {
	need_cloudai
	for n in 1 3; do
		KUNAI_GEN_THREADS=$n "$KUNAI" gen --system-config "$CONF/system/example_slurm_cluster.toml" \
			--tests-dir "$CONF/test" --test-scenario "$CONF/test_scenario/nccl_test.toml" \
			--hook-dir "$CONF/hook" -o "$W/t$n" >/dev/null
		# path and size of every file, in the manifest's order
		cut -d' ' -f2,6- "$W/t$n/.kunai/manifest" >"$W/m$n"
	done
	diff -r -x local.ninja -x .kunai "$W/t1" "$W/t3"
	diff "$W/m1" "$W/m3"
	[ "$(wc -l <"$W/m1")" -eq "$(find "$W/t1" -type f -not -path '*/.kunai/*' | wc -l)" ]
	# and a regeneration by another number of threads rewrites nothing
	find "$W/t3" -type f -not -path '*/.kunai/*' -exec touch -d '2001-01-01 00:00:00' {} +
	KUNAI_GEN_THREADS=2 "$KUNAI" gen --system-config "$CONF/system/example_slurm_cluster.toml" \
		--tests-dir "$CONF/test" --test-scenario "$CONF/test_scenario/nccl_test.toml" \
		--hook-dir "$CONF/hook" -o "$W/t3" >/dev/null
	[ -z "$(find "$W/t3" -type f -newermt '2001-01-02' -not -path '*/.kunai/*')" ]
}

@test "a second gen rewrites nothing: every mtime is kept" {
	gen "$W/out" >/dev/null
	find "$W/out" -type f -exec touch -d '2001-01-01 00:00:00' {} +
	before=$(find "$W/out" -type f -newermt '2001-01-02' | wc -l)
	[ "$before" -eq 0 ]
	gen "$W/out" >/dev/null
	# .kunai/manifest records the new stats of what it vouches for
	run find "$W/out" -type f -newermt '2001-01-02' -not -path '*/.kunai/*'
	[ -z "$output" ]
	[ -z "$(find "$W/out" -name '*.tmp')" ]
}

@test "the manifest: regenerating keeps it; a file edited, replaced or deleted by hand is restored" {
	gen "$W/out" >/dev/null
	cp -R "$W/out" "$W/want"
	m=$(stat -c %Y.%y "$W/out/.kunai/manifest")
	grep -q ' a/0/run.sh$' "$W/out/.kunai/manifest"
	sleep 1
	gen "$W/out" >/dev/null
	[ "$(stat -c %Y.%y "$W/out/.kunai/manifest")" = "$m" ]
	# same size, other bytes; a file replaced by another; a file removed
	sed -i 's/# the time limit\./# the time LIMIT./' "$W/out/a/0/run.sh"
	cmp -s "$W/out/a/0/run.sh" "$W/want/a/0/run.sh" && false
	echo 'export X=1' >"$W/out/b/0/env.new" && mv "$W/out/b/0/env.new" "$W/out/b/0/env_vars.sh"
	rm "$W/out/a/1/run.sh"
	gen "$W/out" >/dev/null
	diff -r -x .kunai "$W/want" "$W/out"
	# a manifest that is no manifest trusts nothing and breaks nothing
	printf 'garbage\n0 1 2\n' >"$W/out/.kunai/manifest"
	sed -i 's/# the time limit\./# the time LIMIT./' "$W/out/a/0/run.sh"
	gen "$W/out" >/dev/null
	diff -r -x .kunai "$W/want" "$W/out"
	grep -q ' a/0/run.sh$' "$W/out/.kunai/manifest"
}

@test "no-op: after a successful run, regenerating unchanged inputs plans no run" {
	gen "$W/out" >/dev/null
	KUNAI_DATADIR="$W/fake" gen "$W/out" >/dev/null
	ninja -C "$W/out" run >/dev/null
	run ninja -C "$W/out" run
	[[ "$output" == *"ninja: no work to do."* ]]
	# touching an input regenerates build.ninja but plans no run
	sleep 1
	touch "$W/c/scenario.toml"
	run ninja -C "$W/out" build.ninja
	[[ "$output" == *"Regenerating build.ninja"* ]]
	run ninja -C "$W/out" -n run
	[[ "$output" == *"ninja: no work to do."* ]]
	ninja -C "$W/out" run >/dev/null
	run ninja -C "$W/out" run
	[[ "$output" == *"ninja: no work to do."* ]]
}

@test "editing one test's cmd_args re-plans only that test's runs" {
	KUNAI_DATADIR="$W/fake" gen "$W/out" >/dev/null
	ninja -C "$W/out" run >/dev/null
	sleep 1
	sed -i 's/seconds = 1/seconds = 2/' "$W/c/tests/sleep2.toml"
	ninja -C "$W/out" build.ninja >/dev/null
	run ninja -C "$W/out" -n run
	[ "$status" -eq 0 ]
	[[ "$output" == *"RUN b/0"* ]] || { echo "$output"; false; }
	[[ "$output" != *"RUN a/"* ]]
	grep -q 'sleep 2' "$W/out/b/0/run.sh"
}

@test "a script that changes takes its run's results with it: gen removes that stamp alone" {
	KUNAI_DATADIR="$W/fake" gen "$W/out" >/dev/null
	ninja -C "$W/out" run >/dev/null
	# the run edge names no script: gen answers for it
	[ "$(grep -c '^build .*kunai.stamp: run.*run.sh' "$W/out/build.ninja")" = 0 ]
	touch "$W/out/b/0/kunai.started"
	ls -l --time-style=+%s.%N "$W/out"/a/*/kunai.stamp >"$W/a.before"
	sleep 1
	# regenerated the same: nothing goes
	KUNAI_DATADIR="$W/fake" gen "$W/out" >/dev/null
	[ -e "$W/out/b/0/kunai.stamp" ]
	[ -e "$W/out/b/0/kunai.started" ]
	run ninja -C "$W/out" -n run
	[[ "$output" == *"ninja: no work to do."* ]]
	# b's script changes: its stamp and started go, a's stay as they were
	sed -i 's/seconds = 1/seconds = 2/' "$W/c/tests/sleep2.toml"
	KUNAI_DATADIR="$W/fake" gen "$W/out" >/dev/null
	[ ! -e "$W/out/b/0/kunai.stamp" ]
	[ ! -e "$W/out/b/0/kunai.started" ]
	ls -l --time-style=+%s.%N "$W/out"/a/*/kunai.stamp | diff -u "$W/a.before" -
	run ninja -C "$W/out" run
	[[ "$output" == *"RUN b/0"* ]] || { echo "$output"; false; }
	[[ "$output" != *"RUN a/"* ]]
	# a script edited by hand is put back by the next gen, and its run goes again
	sed -i 's/sleep 2/sleep 9/' "$W/out/b/0/run.sh"
	KUNAI_DATADIR="$W/fake" gen "$W/out" >/dev/null
	grep -q 'sleep 2' "$W/out/b/0/run.sh"
	[ ! -e "$W/out/b/0/kunai.stamp" ]
	ninja -C "$W/out" run >/dev/null
	# a stamp that is a link: the link goes, never what it names
	echo keep >"$W/outside"
	rm "$W/out/b/0/kunai.stamp"
	ln -s "$W/outside" "$W/out/b/0/kunai.stamp"
	sed -i 's/seconds = 2/seconds = 3/' "$W/c/tests/sleep2.toml"
	KUNAI_DATADIR="$W/fake" gen "$W/out" >/dev/null
	[ ! -L "$W/out/b/0/kunai.stamp" ]
	[ "$(cat "$W/outside")" = keep ]
}

@test "a new test file in --tests-dir regenerates" {
	KUNAI_DATADIR="$W/fake" gen "$W/out" >/dev/null
	ninja -C "$W/out" run >/dev/null
	sleep 1
	cat >"$W/c/tests/sleep3.toml" <<'T'
name = "sleep3"
description = "another"
test_template_name = "Sleep"
T
	printf '[[Tests]]\nid = "c"\ntest_name = "sleep3"\n' >>"$W/c/scenario.toml"
	run ninja -C "$W/out" run
	[ "$status" -eq 0 ]
	[[ "$output" == *"RUN c/0"* ]]
	[[ "$output" != *"RUN a/"* ]]
}

@test "sweeps: lists in cmd_args, env and num_nodes make numbered steps" {
	cat >"$W/c/scenario.toml" <<'T'
name = "sweep"
[[Tests]]
id = "s"
test_name = "sleep"
iterations = 2
num_nodes = [1, 2]
  [Tests.cmd_args]
  seconds = [1, 2, 3]
  [Tests.extra_env_vars]
  MODE = ["x", "y"]
T
	gen "$W/out" >/dev/null
	# 3 x 2 x 2 points, 2 iterations (CloudAI ignores iterations for sweeps)
	[ "$(ls "$W/out/s/0" | wc -l)" -eq 12 ]
	[ "$(ls "$W/out/s/1" | wc -l)" -eq 12 ]
	grep -q 'sleep 1' "$W/out/s/0/1/run.sh"
	grep -q 'MODE="x"' "$W/out/s/0/1/env_vars.sh"
	grep -q 'sleep 3' "$W/out/s/1/12/run.sh"
	grep -q 'MODE="y"' "$W/out/s/1/12/env_vars.sh"
	# the last dimension varies fastest (itertools.product order)
	run grep -c '"NUM_NODES":[[:space:]]*"2"' "$W/out/kunai.json"
	[ "$output" -eq 12 ]
}

@test "dse_excluded_args keeps a list as one value" {
	cat >"$W/c/tests/sleep.toml" <<'T'
name = "sleep"
description = "sleep"
test_template_name = "NcclTest"
dse_excluded_args = ["cmd_args.nthreads"]
[cmd_args]
subtest_name = "all_reduce_perf"
nthreads = [1, 2]
T
	gen "$W/out" >/dev/null
	[ -f "$W/out/a/0/run.sh" ]
	[ ! -d "$W/out/a/0/1" ]
}

@test "--set overrides a field and is recorded in kunai.json" {
	gen "$W/out" --set Tests.2.cmd_args.seconds=7 >/dev/null
	grep -q 'sleep 7' "$W/out/b/0/run.sh"
	grep -q '"key":	"Tests.2.cmd_args.seconds"' "$W/out/kunai.json"
	grep -q 'Tests.2.cmd_args.seconds=7' "$W/out/local.ninja"
}

@test "dry-run runs ninja scripts; CloudAI's old --mode spelling works" {
	run sh -c "cd '$W/c' && '$KUNAI' dry-run --system-config system.toml --tests-dir tests --test-scenario scenario.toml -o '$W/out'"
	[ "$status" -eq 0 ]
	[[ "$output" == *"ninja: no work to do."* ]]
	run sh -c "cd '$W/c' && '$KUNAI' --mode dry-run --system_config_path system.toml --tests_dir tests --test_scenario_path scenario.toml --output_dir '$W/old'"
	[ "$status" -eq 0 ]
	cmp "$W/out/build.ninja" "$W/old/build.ninja"
}

@test "gen into a file, or below one: exit 1, one clear message, the file untouched" {
	echo keep >"$W/file"
	run -1 gen "$W/file"
	[ "$output" = "kunai: $W/file: not a directory; the build dir must be one" ]
	run -1 gen "$W/file/out"
	[[ "$output" == "kunai: mkdir $W/file/"*": Not a directory" ]]
	[ "$(cat "$W/file")" = keep ]
	# a build dir made anew, parents included, works from its first file on
	gen "$W/new/deeper/out" >/dev/null
	[ -f "$W/new/deeper/out/a/0/run.sh" ]
	[ -f "$W/new/deeper/out/.kunai/manifest" ]
}

@test "gen usage errors exit 2" {
	run --separate-stderr "$KUNAI" gen --system-config x.toml
	[ "$status" -eq 2 ]
	[[ "$stderr" == *"missing --test-scenario"* ]]
	run --separate-stderr "$KUNAI" gen --bogus
	[ "$status" -eq 2 ]
	run --separate-stderr "$KUNAI" gen --set novalue --system-config a --test-scenario b
	[ "$status" -eq 2 ]
}

@test "every CloudAI example scenario generates" {
	need_cloudai
	for s in "$CONF"/test_scenario/*.toml; do
		run "$KUNAI" gen --system-config "$CONF/system/example_slurm_cluster.toml" --tests-dir "$CONF/test" \
			--test-scenario "$s" --hook-dir "$CONF/hook" -o "$W/out/$(basename "$s" .toml)"
		[ "$status" -eq 0 ] || { echo "$s: $output"; false; }
	done
}

@test "nothing with a line break reaches a ninja file: a test file's name, -o, the cwd" {
	cp "$W/c/tests/sleep.toml" "$W/c/tests/"$'x\n  command = touch PWNED\n#.toml'
	sed -i 's/^name = "sleep"/name = "sleep3"/' "$W/c/tests/"$'x\n'*
	run --separate-stderr gen "$W/out"
	[ "$status" -eq 1 ]
	[[ "$stderr" == "kunai: input file 'tests/x?  command = touch PWNED?#.toml' has a line break"* ]]
	[ ! -e "$W/out" ]
	rm "$W/c/tests/"$'x\n'*
	run --separate-stderr gen "$W/out"$'\n#'
	[ "$status" -eq 1 ]
	[[ "$stderr" == "kunai: argument '$W/out?#' contains a line break"* ]]
	mkdir "$W/c/d"$'\n'
	run --separate-stderr bash -c 'cd "$1" && "$2" gen --system-config ../system.toml --tests-dir ../tests --test-scenario ../scenario.toml -o "$3"' \
		_ "$W/c/d"$'\n' "$KUNAI" "$W/out"
	[ "$status" -eq 1 ]
	[[ "$stderr" == "kunai: the current directory ("*") contains a line break"* ]]
	[ ! -e "$W/out" ]
	run gen "$W/out"
	[ "$status" -eq 0 ]
	(cd "$W/out" && ninja -t query run >/dev/null)
	[ ! -e "$W/c/PWNED" ]
	[ ! -e "$W/out/PWNED" ]
}

@test "a sweep's iteration is one phony node that the next iteration names once" {
	cat >"$W/c/scenario.toml" <<'T'
name = "sw"
[[Tests]]
id = "a"
test_name = "sleep"
iterations = 2
  [Tests.cmd_args]
  seconds = [1, 2, 3]
[[Tests]]
id = "b"
test_name = "sleep2"
  [[Tests.dependencies]]
  type = "start_post_comp"
  id = "a"
T
	gen "$W/out" >/dev/null
	grep -q '^build a/0/kunai.iteration: phony a/0/1/kunai.stamp a/0/2/kunai.stamp a/0/3/kunai.stamp$' "$W/out/build.ninja"
	[ "$(grep -c '|| a/0/kunai.iteration$' "$W/out/build.ninja")" -eq 3 ]
	grep -q '^build b/0/kunai.stamp: run || a$' "$W/out/build.ninja"
	run ninja -C "$W/out" -n -j1 run
	[[ "$output" == *"RUN a/0/"*"RUN a/1/"*"RUN b/0/kunai.stamp"* ]]
	[[ "$output" != *"RUN a/1/"*"RUN a/0/"* ]]
	[[ "$output" != *"RUN b/0/"*"RUN a/"* ]]
}

@test "campaign size is bounded (\$KUNAI_MAX_RUNS), config files are regular and bounded (\$KUNAI_MAX_CONFIG_BYTES)" {
	sed -i 's/^iterations = 2$/iterations = 1000000/' "$W/c/scenario.toml"
	run --separate-stderr gen "$W/out"
	[ "$status" -eq 1 ]
	[[ "$stderr" == "scenario.toml:"*": error: test 'a' makes the campaign more than 250000 runs"* ]]
	[ ! -e "$W/out" ]
	sed -i 's/^iterations = 1000000$/iterations = 3/' "$W/c/scenario.toml"
	KUNAI_MAX_RUNS=3 run --separate-stderr gen "$W/out"
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"test 'b' makes the campaign more than 3 runs"* ]]
	KUNAI_MAX_RUNS=4 run gen "$W/out"
	[ "$status" -eq 0 ]
	run --separate-stderr timeout 10 "$KUNAI" gen --system-config /dev/zero --tests-dir "$W/c/tests" --test-scenario "$W/c/scenario.toml" -o "$W/z"
	[ "$status" -eq 1 ]
	[ "$stderr" = "kunai: /dev/zero: not a regular file; a config file must be one" ]
	KUNAI_MAX_CONFIG_BYTES=20 run --separate-stderr gen "$W/z"
	[ "$status" -eq 1 ]
	[[ "$stderr" == "kunai: system.toml: larger than 20 bytes, the limit for a config file (\$KUNAI_MAX_CONFIG_BYTES)"* ]]
	[ ! -e "$W/z" ]
}

@test "a gen that fills the disk leaves the build dir as it was (a 300 KiB tmpfs; needs root)" {
	mkdir "$W/mnt"
	mount -t tmpfs -o size=300k tmpfs "$W/mnt" 2>/dev/null || skip "cannot mount a tmpfs (not root)"
	gen "$W/mnt/out" >/dev/null || { umount "$W/mnt"; false; }
	(cd "$W/mnt" && find . | sort && find . -type f -exec ls -l --time-style=full-iso {} + | sort) >"$W/before"
	sed -i 's/^iterations = 2$/iterations = 3/' "$W/c/scenario.toml"
	printf '[[Tests]]\nid = "c"\ntest_name = "sleep"\niterations = 500\n' >>"$W/c/scenario.toml"
	run --separate-stderr gen "$W/mnt/out"
	(cd "$W/mnt" && find . | sort && find . -type f -exec ls -l --time-style=full-iso {} + | sort) >"$W/after"
	run --separate-stderr gen "$W/mnt/new"
	new=$(ls "$W/mnt")
	umount "$W/mnt"
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"No space left on device"* ]]
	# the same entries, every file with its bytes' size and mtime (a dir's
	# own mtime moves when an entry comes and goes)
	diff -u "$W/before" "$W/after"
	[ "$new" = out ]
}

@test "standalone max_jobs defaults to what the machine runs: its CPUs, or gpus_per_node for kunai's GPU programs" {
	sed -i '/^max_jobs/d' "$W/c/system.toml"
	gen "$W/out" >/dev/null
	[ "$(sed -n '/^pool jobs$/{n;s/^  depth = //p;}' "$W/out/build.ninja")" = "$(getconf _NPROCESSORS_ONLN)" ]
	# a GPU machine: Sleep still takes a CPU each, KunaiGemm a GPU each
	echo 'gpus_per_node = 3' >>"$W/c/system.toml"
	gen "$W/out" >/dev/null
	[ "$(sed -n '/^pool jobs$/{n;s/^  depth = //p;}' "$W/out/build.ninja")" = "$(getconf _NPROCESSORS_ONLN)" ]
	printf 'name = "g"\ndescription = "d"\ntest_template_name = "KunaiGemm"\n' >"$W/c/tests/g.toml"
	printf '[[Tests]]\nid = "g"\ntest_name = "g"\n' >>"$W/c/scenario.toml"
	gen "$W/out" >/dev/null
	[ "$(sed -n '/^pool jobs$/{n;s/^  depth = //p;}' "$W/out/build.ninja")" = 3 ]
	# an explicit max_jobs wins
	echo 'max_jobs = 5' >>"$W/c/system.toml"
	gen "$W/out" >/dev/null
	[ "$(sed -n '/^pool jobs$/{n;s/^  depth = //p;}' "$W/out/build.ninja")" = 5 ]
}

@test "a test at \$KUNAI_MAX_RUNS iterations runs under ninja: no chain deeper than ninja's stack" {
	# ninja recurses along order-only chains; 6,000 iterations chained
	# overflow a 1 MiB stack (8 MiB, the usual one, at about 30,000)
	sed -i 's/^iterations = 2$/iterations = 6000/' "$W/c/scenario.toml"
	KUNAI_MAX_RUNS=6001 gen "$W/out" >/dev/null
	# past the chain's bound, a pool of depth 1 keeps the iterations in order
	# (its rule, run_seq_0_0, runs them in it: no edge carries a binding)
	grep -q '^pool seq_0_0$' "$W/out/build.ninja"
	grep -q '^rule run_seq_0_0$' "$W/out/build.ninja"
	[ "$(grep -c '^build a/[0-9]*/kunai.stamp: run_seq_0_0$' "$W/out/build.ninja")" -eq 6000 ]
	! grep -q '^  pool = seq' "$W/out/build.ninja"
	! grep -q '^build a/[0-9]*/kunai.stamp: .*||' "$W/out/build.ninja"
	# the alias names every run, so b still waits for all of a: through
	# phonies of 500 (ninja rescans a waiting edge's inputs as each is built)
	[ "$(sed -n 's/^build a: phony //p' "$W/out/build.ninja")" = "$(seq -s ' ' -f 'a/kunai.runs.%g' 0 11)" ]
	[ "$(sed -n 's/^build a\/kunai\.runs\.[0-9]*: phony //p' "$W/out/build.ninja" | wc -w)" -eq 6000 ]
	[ "$(sed -n 's/^build a\/kunai\.runs\.11: phony //p' "$W/out/build.ninja" | wc -w)" -eq 500 ]
	run bash -c 'ulimit -s 1024 && ninja -C "$1" -n run' _ "$W/out"
	[ "$status" -eq 0 ]
	[[ "$output" == *"[6001/6001] RUN b/0/kunai.stamp" ]]
	# ninja releases a pool's edges in the order of the file
	[ "$(printf '%s\n' "$output" | grep -o 'RUN a/[0-9]*' | head -n 3 | tr '\n' ' ')" = "RUN a/0 RUN a/1 RUN a/2 " ]
}

@test "a sweep of more than 500 points: its iteration node and its alias name phonies of 500, in order" {
	printf 'name = "p"\n[[Tests]]\nid = "a"\ntest_name = "sleep"\niterations = 2\n[Tests.cmd_args]\nseconds = [%s]\n[[Tests]]\nid = "b"\ntest_name = "sleep2"\n  [[Tests.dependencies]]\n  type = "start_post_comp"\n  id = "a"\n' \
		"$(seq -s, 1 1200)" >"$W/c/scenario.toml"
	gen "$W/out" >/dev/null
	b=$W/out/build.ninja
	# iteration 1 waits for every point of iteration 0, b for all of a's
	[ "$(sed -n 's/^build a\/0\/kunai\.iteration: phony //p' "$b")" = "$(seq -s ' ' -f 'a/0/kunai.iteration.%g' 0 2)" ]
	[ "$(sed -n 's/^build a\/0\/kunai\.iteration\.[0-9]: phony //p' "$b" | wc -w)" -eq 1200 ]
	[ "$(sed -n 's/^build a: phony //p' "$b")" = "$(seq -s ' ' -f 'a/kunai.runs.%g' 0 2)" ]
	[ "$(sed -n 's/^build a\/kunai\.runs\.[0-9]: phony //p' "$b" | tr ' ' '\n' | grep -c '^a/1/[0-9]*/kunai.stamp$')" -eq 1200 ]
	# no edge names more than 500 files (ninja rescans them as each is built)
	[ "$(awk '$1 == "build" && NF > 503' "$b" | wc -l)" -eq 0 ]
	run ninja -C "$W/out" -n run
	[ "$status" -eq 0 ]
	[[ "$output" == *"[2401/2401] RUN b/0/kunai.stamp" ]]
	last0=$(printf '%s\n' "$output" | grep -n 'RUN a/0/' | tail -n 1 | cut -d: -f1)
	first1=$(printf '%s\n' "$output" | grep -n 'RUN a/1/' | head -n 1 | cut -d: -f1)
	[ "$last0" -lt "$first1" ]
}

@test "threads that share a parent dir (a sweep's iteration) both make it: every fresh gen succeeds" {
	# 8 threads each make run dirs of one iteration dir; one used to fail
	# with "mkdir a/0: File exists" where another made it first (5 in 40)
	printf 'name = "p"\n[[Tests]]\nid = "a"\ntest_name = "sleep"\n[Tests.cmd_args]\nseconds = [%s]\n' \
		"$(seq -s, 1 4096)" >"$W/c/scenario.toml"
	for i in $(seq 20); do
		rm -rf "$W/out"
		KUNAI_GEN_THREADS=8 gen "$W/out" >/dev/null
	done
	[ "$(find "$W/out/a/0" -mindepth 1 -maxdepth 1 -type d | wc -l)" -eq 4096 ]
	[ ! -e "$W/out/.kunai/journal" ]
}

@test "run names more than 500 tests through phonies of 500 (.kunai/run.K)" {
	seq 0 1199 | awk 'BEGIN { print "name = \"p\"" } { printf "[[Tests]]\nid = \"t%d\"\ntest_name = \"sleep\"\n", $1 }' \
		>"$W/c/scenario.toml"
	gen "$W/out" >/dev/null
	b=$W/out/build.ninja
	[ "$(sed -n 's/^build run: phony //p' "$b")" = ".kunai/run.0 .kunai/run.1 .kunai/run.2" ]
	[ "$(sed -n 's/^build \.kunai\/run\.[0-9]: phony //p' "$b" | wc -w)" -eq 1200 ]
	[ "$(sed -n 's/^build \.kunai\/run\.2: phony //p' "$b")" = "$(seq -s ' ' -f 't%g/0/kunai.stamp' 1000 1199)" ]
	run ninja -C "$W/out" -n run
	[ "$status" -eq 0 ]
	[ "$(printf '%s\n' "$output" | grep -c '] RUN t[0-9]*/0/kunai.stamp$')" -eq 1200 ]
	# run names a test of one run by its stamp; its id is still a target
	grep -qx 'build t1100: phony t1100/0/kunai.stamp' "$b"
	run ninja -C "$W/out" -n t1100
	[ "$status" -eq 0 ]
	[ "$(printf '%s\n' "$output" | sed -n 's/.*] RUN //p')" = t1100/0/kunai.stamp ]
}

@test "past 10,000 tests every test id is still a target; its dependants and run name a test of one run by its stamp" {
	# t5 has two iterations (its alias groups runs), t7 starts after t3
	# ends, t8 validates t5
	printf 'name = "p"\n' >"$W/c/scenario.toml"
	seq 0 10000 | awk '{
		printf "[[Tests]]\nid = \"t%d\"\ntest_name = \"sleep\"\n", $1
		if ($1 == 5) print "iterations = 2"
		if ($1 == 7) print "  [[Tests.dependencies]]\n  type = \"start_post_comp\"\n  id = \"t3\""
		if ($1 == 8) print "  [[Tests.dependencies]]\n  type = \"end_post_comp\"\n  id = \"t5\"" }' >>"$W/c/scenario.toml"
	run gen "$W/out"
	[ "$status" -eq 0 ]
	[[ "$output" != *"more than"* ]]
	b=$W/out/build.ninja
	[ "$(grep -c '^build t[0-9]*: phony' "$b")" -eq 10001 ]
	grep -qx 'build t3: phony t3/0/kunai.stamp' "$b"
	grep -qx 'build t10000: phony t10000/0/kunai.stamp' "$b"
	grep -qx 'build t5: phony t5/1/kunai.stamp' "$b"
	grep -qx 'build t7/0/kunai.stamp: run || t3/0/kunai.stamp' "$b"
	grep -qx 'build t8/0/kunai.stamp: run |@ t5' "$b"
	[ "$(sed -n 's/^build \.kunai\/run\.0: phony //p' "$b" | cut -d' ' -f5-7)" = "t4/0/kunai.stamp t5 t6/0/kunai.stamp" ]
	[ "$(sed -n 's/^build \.kunai\/run\.[0-9]*: phony //p' "$b" | wc -w)" -eq 10001 ]
	run ninja -C "$W/out" -n t7/0/kunai.stamp
	[ "$status" -eq 0 ]
	[ "$(printf '%s\n' "$output" | sed -n 's/.*] RUN //p' | tr '\n' ' ')" = "t3/0/kunai.stamp t7/0/kunai.stamp " ]
	# the ids, the first and the last, are targets that build their runs
	run ninja -C "$W/out" -n t7
	[ "$status" -eq 0 ]
	[ "$(printf '%s\n' "$output" | sed -n 's/.*] RUN //p' | tr '\n' ' ')" = "t3/0/kunai.stamp t7/0/kunai.stamp " ]
	run ninja -C "$W/out" -n t10000
	[ "$status" -eq 0 ]
	[ "$(printf '%s\n' "$output" | sed -n 's/.*] RUN //p')" = t10000/0/kunai.stamp ]
	run ninja -C "$W/out" -n run
	[ "$status" -eq 0 ]
	[ "$(printf '%s\n' "$output" | grep -c '] RUN t[0-9]*/[01]/kunai.stamp$')" -eq 10002 ]
}

@test "a pooled test that another starts after (start_post_init): its iterations never overlap" {
	# a pool orders edges, not a start and its end: only the first
	# iteration is split (START, then RUN), and the others wait for its end
	printf 'name = "p"\n[[Tests]]\nid = "a"\ntest_name = "sleep"\niterations = 1200\n[[Tests]]\nid = "b"\ntest_name = "sleep2"\n  [[Tests.dependencies]]\n  type = "start_post_init"\n  id = "a"\n' >"$W/c/scenario.toml"
	gen "$W/out" >/dev/null
	grep -qx 'build a/0/kunai.started: start_seq_0_0' "$W/out/build.ninja"
	grep -qx 'build a/0/kunai.stamp: run_seq_0_0 a/0/kunai.started' "$W/out/build.ninja"
	[ "$(grep -c '^build a/[0-9]*/kunai.stamp: run_seq_0_0 || a/0/kunai.stamp$' "$W/out/build.ninja")" -eq 1199 ]
	[ "$(grep -c 'kunai.started:' "$W/out/build.ninja")" -eq 1 ]
	grep -qx 'build b/0/kunai.stamp: run || a/0/kunai.started' "$W/out/build.ninja"
	run ninja -C "$W/out" -n -j 64 run
	[ "$status" -eq 0 ]
	[ "$(printf '%s\n' "$output" | grep -o '\(START\|RUN\) a/[0-9]*/[a-z.]*' | head -n 3 | tr '\n' ' ')" = \
		"START a/0/kunai.started RUN a/0/kunai.stamp RUN a/1/kunai.stamp " ]
}

@test "ninja run loads no report edge: the report graph is report.ninja, which ninja report builds" {
	sed -i 's/^test_template_name = "Sleep"$/test_template_name = "NcclTest"/' "$W/c/tests/sleep.toml"
	sed -i 's/^seconds = 0$/subtest_name = "all_reduce_perf"/' "$W/c/tests/sleep.toml"
	gen "$W/out" >/dev/null
	! grep -q 'report/\|plots/\| plot \| html ' "$W/out/build.ninja"
	# one plot edge per batch of runs: one gnuplot draws them
	grep -Eq '^build( report/plots/[^ ]*\.svg)+: plot a/0/report.json( [^ ]*/report\.json)*$' "$W/out/report.ninja"
	# the nested ninja never regenerates: report.ninja is no output of the
	# regenerate edge (gen writes it with build.ninja)
	grep -q '^build build.ninja local.ninja: regenerate' "$W/out/local.ninja"
	run ninja -C "$W/out" -t query report/index.html
	[ "$status" -ne 0 ]
	run ninja -C "$W/out" -f report.ninja -t query report/index.html
	[ "$status" -eq 0 ]
	# ninja report builds it (with the real rules): its own log, and a no-op after
	run ninja -C "$W/out" report
	[ "$status" -eq 0 ]
	[ -f "$W/out/report/index.html" ]
	[ -f "$W/out/.kunai/report/.ninja_log" ]
	# an edited input regenerates report.ninja too
	sleep 1
	echo '# edited' >>"$W/c/scenario.toml"
	run ninja -C "$W/out" report
	[ "$status" -eq 0 ]
	[[ "$output" == *"Regenerating build.ninja"* ]]
	[ "$(grep -c 'Regenerating' <<<"$output")" -eq 1 ]
}

@test "kunai.json, build.ninja and report.ninja, streamed out: regenerated over a longer, shorter or edited file, each is the fresh bytes" {
	gen "$W/out" >/dev/null
	# longer (a third iteration), then shorter again, then edited by hand
	# in the middle and at the end: each time equal to a fresh gen's
	for step in more less edit; do
		case $step in
		more) sed -i 's/^iterations = 2$/iterations = 3/' "$W/c/scenario.toml" ;;
		less) sed -i 's/^iterations = 3$/iterations = 2/' "$W/c/scenario.toml" ;;
		edit)
			sed -i 's/"sleep again"/"sleep more"/' "$W/out/kunai.json"
			printf 'trailing\n' >>"$W/out/build.ninja"
			truncate -s 100 "$W/out/report.ninja" ;;
		esac
		gen "$W/out" >/dev/null
		rm -rf "$W/fresh"
		gen "$W/fresh" >/dev/null
		for f in kunai.json build.ninja report.ninja; do cmp "$W/fresh/$f" "$W/out/$f"; done
		[ -z "$(find "$W/out" -name '*.tmp')" ]
	done
	grep -q '"iterations":2' "$W/out/kunai.json"
}

@test "rules that gain exec: kunai gen gives the finished runs of .ninja_log the new command's hash on every scheduler, and nothing else" {
	# what a kunai whose rules ran kunai job without exec left: every run
	# done (ninja ran them with a stand-in at the path local.ninja names)
	printf '%s\n' 'name = "exec"' '[[Tests]]' 'id = "a b"' 'test_name = "sleep"' 'iterations = 2' \
		'[[Tests]]' 'id = "c"' 'test_name = "sleep"' '  [[Tests.dependencies]]' '  type = "start_post_init"' \
		'  id = "a b"' >"$W/c/scenario.toml"
	printf 'name = "s"\nscheduler = "slurm"\ninstall_path = "./install"\noutput_path = "./results"\n' >"$W/c/slurm.toml"
	printf 'default_partition = "main"\n[[partitions]]\nname = "main"\n' >>"$W/c/slurm.toml"
	printf 'name = "k"\nscheduler = "kubernetes"\nkube_config_path = ""\ndefault_namespace = "t"\n' >"$W/c/k8s.toml"
	printf 'install_path = "./install"\noutput_path = "./results"\n' >>"$W/c/k8s.toml"
	printf 'name = "l"\nscheduler = "lsf"\ninstall_path = "./install"\noutput_path = "./results"\n' >"$W/c/lsf.toml"
	printf 'default_queue = "normal"\n[[queues]]\nname = "normal"\n' >>"$W/c/lsf.toml"
	printf 'name = "r"\nscheduler = "runai"\ninstall_path = "./install"\noutput_path = "./results"\n' >"$W/c/runai.toml"
	printf 'base_url = "https://runai.example.com"\nuser_email = "a@example.com"\napp_id = "id"\n' >>"$W/c/runai.toml"
	printf 'app_secret = "s"\nproject_id = "p"\ncluster_id = "7"\n' >>"$W/c/runai.toml"
	mkdir -p "$W/k" "$W/old"
	cp "$BATS_TEST_DIRNAME"/../rules/*.ninja "$BATS_TEST_DIRNAME"/../rules/*.sh "$W/old/"
	sed -i 's/^\(run\|start\)_command = exec /\1_command = /' "$W/old/"*.ninja
	printf '#!/bin/sh\nfor a; do :; done\n: >"$a"\n' >"$W/stub"
	chmod +x "$W/stub"
	for sys in slurm k8s lsf runai; do
		rm -rf "$W/b"
		cp "$KUNAI" "$W/k/kunai"
		(cd "$W/c" && "$W/k/kunai" gen --system-config $sys.toml --tests-dir tests --test-scenario scenario.toml \
			-o "$W/b" --rules-dir "$W/old") >/dev/null
		cp "$W/stub" "$W/k/kunai"
		touch -d 2000-01-01 "$W/k/kunai"
		"$NINJA" -C "$W/b" run >/dev/null
		grep -q "	a b/1/kunai.stamp	" "$W/b/.ninja_log"
		# an entry of another command (a hand-made one) stays as it was
		printf '1\t2\t3\tc/9/kunai.stamp\tdeadbeef\n' >>"$W/b/.ninja_log"
		cp "$W/b/.ninja_log" "$W/log.before"
		cp "$KUNAI" "$W/k/kunai"
		run -0 sh -c 'cd "$1/c" && "$1/k/kunai" gen --system-config "$2.toml" --tests-dir tests \
			--test-scenario scenario.toml -o "$1/b" --rules-dir "$3"' sh "$W" $sys "$BATS_TEST_DIRNAME/../rules"
		[[ "$output" == *"kept across the rules' exec"* ]]
		cp "$W/stub" "$W/k/kunai"
		touch -d 2000-01-01 "$W/k/kunai"
		# ninja would run nothing but the install the rules dir names
		"$NINJA" -C "$W/b" -n -d explain run >"$W/plan" 2>&1
		! grep -E 'RUN |START |command line changed' "$W/plan"
		grep -q '	c/9/kunai.stamp	deadbeef$' "$W/b/.ninja_log"
		[ "$(diff "$W/log.before" "$W/b/.ninja_log" | grep -c '^>')" -ge 4 ]
		# a second gen finds nothing to carry over
		cp "$KUNAI" "$W/k/kunai"
		run -0 sh -c 'cd "$1/c" && "$1/k/kunai" gen --system-config "$2.toml" --tests-dir tests \
			--test-scenario scenario.toml -o "$1/b" --rules-dir "$3"' sh "$W" $sys "$BATS_TEST_DIRNAME/../rules"
		[[ "$output" != *"kept across"* ]]
	done
	# a log of another ninja's format is left alone
	sed -i '1s/.*/# ninja log v7/' "$W/b/.ninja_log"
	cp "$W/b/.ninja_log" "$W/log.v7"
	(cd "$W/c" && "$W/k/kunai" gen --system-config k8s.toml --tests-dir tests --test-scenario scenario.toml \
		-o "$W/b" --rules-dir "$W/old") >/dev/null
	(cd "$W/c" && "$W/k/kunai" gen --system-config k8s.toml --tests-dir tests --test-scenario scenario.toml \
		-o "$W/b" --rules-dir "$BATS_TEST_DIRNAME/../rules") >/dev/null
	cmp "$W/log.v7" "$W/b/.ninja_log"
}
