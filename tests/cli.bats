#!/usr/bin/env bats
bats_require_minimum_version 1.5.0
# The kunai binary's command line: dispatch, help, version, usage errors.

setup() {
	KUNAI=${KUNAI:-$PWD/kunai}
}

@test "kunai --help lists the commands on stdout, exit 0" {
	run "$KUNAI" --help
	[ "$status" -eq 0 ]
	[[ "${lines[0]}" == "usage: kunai "* ]]
	[[ "$output" == *"  toml2json       a TOML file as toml-test's tagged JSON"* ]]
	[[ "$output" == *"  help            this list, or the help of one command"* ]]
}

@test "kunai --version prints the version" {
	run "$KUNAI" --version
	[ "$status" -eq 0 ]
	[[ "$output" =~ ^kunai\ [0-9]+\.[0-9]+\.[0-9]+ ]]
}

@test "kunai help CMD prints that command's help" {
	run "$KUNAI" help toml2json
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "usage: kunai toml2json [FILE]" ]
	[[ "$output" == *"tagged JSON"* ]]
}

@test "kunai CMD --help is kunai help CMD" {
	run "$KUNAI" toml2json --help
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "usage: kunai toml2json [FILE]" ]
}

@test "no arguments: usage on stderr, exit 2" {
	run --separate-stderr "$KUNAI"
	[ "$status" -eq 2 ]
	[ -z "$output" ]
	[[ "$stderr" == "usage: kunai "* ]]
}

@test "unknown subcommand: message and usage on stderr, exit 2" {
	run --separate-stderr "$KUNAI" frobnicate
	[ "$status" -eq 2 ]
	[ -z "$output" ]
	[[ "$stderr" == *"kunai: unknown command 'frobnicate'"* ]]
	[[ "$stderr" == *"usage: kunai "* ]]
}

@test "unknown top-level flag: exit 2" {
	run --separate-stderr "$KUNAI" --frobnicate
	[ "$status" -eq 2 ]
	[[ "$stderr" == *"unknown option '--frobnicate'"* ]]
}

@test "unknown flag of a subcommand: exit 2" {
	run --separate-stderr "$KUNAI" toml2json --bogus
	[ "$status" -eq 2 ]
	[[ "$stderr" == *"unknown option '--bogus'"* ]]
}

@test "help of an unknown command: exit 2" {
	run --separate-stderr "$KUNAI" help nope
	[ "$status" -eq 2 ]
	[[ "$stderr" == *"unknown command 'nope'"* ]]
}

@test "toml2json reads a file and standard input alike" {
	printf 'a = 1\n[t]\nb = "x"\n' >"$BATS_TEST_TMPDIR/x.toml"
	run "$KUNAI" toml2json "$BATS_TEST_TMPDIR/x.toml"
	[ "$status" -eq 0 ]
	from_file=$output
	run sh -c "'$KUNAI' toml2json <'$BATS_TEST_TMPDIR/x.toml'"
	[ "$status" -eq 0 ]
	[ "$output" = "$from_file" ]
	run sh -c "'$KUNAI' toml2json - <'$BATS_TEST_TMPDIR/x.toml'"
	[ "$output" = "$from_file" ]
	[[ "$from_file" == *'"type":	"integer"'* ]]
}

@test "toml2json on a missing file: kunai: message with strerror, exit 1" {
	run --separate-stderr "$KUNAI" toml2json "$BATS_TEST_TMPDIR/missing.toml"
	[ "$status" -eq 1 ]
	[ "$stderr" = "kunai: open $BATS_TEST_TMPDIR/missing.toml: No such file or directory" ]
}

@test "toml2json on a directory fails cleanly" {
	run --separate-stderr "$KUNAI" toml2json "$BATS_TEST_TMPDIR"
	[ "$status" -eq 1 ]
	[[ "$stderr" == "kunai: read $BATS_TEST_TMPDIR: Is a directory" ]]
}

@test "toml2json error is path:line:col: error: message, exit 1, nothing on stdout" {
	printf 'a = 1\nb = [1,\n  2,,]\n' >"$BATS_TEST_TMPDIR/bad.toml"
	run --separate-stderr "$KUNAI" toml2json "$BATS_TEST_TMPDIR/bad.toml"
	[ "$status" -eq 1 ]
	[ -z "$output" ]
	[[ "$stderr" =~ ^$BATS_TEST_TMPDIR/bad.toml:3:[0-9]+:\ error:\ .+ ]]
}

@test "toml2json writing to a full device reports the failure" {
	[ -w /dev/full ] || skip "no /dev/full"
	printf 'a = 1\n' >"$BATS_TEST_TMPDIR/x.toml"
	run --separate-stderr sh -c "'$KUNAI' toml2json '$BATS_TEST_TMPDIR/x.toml' >/dev/full"
	[ "$status" -eq 1 ]
	[[ "$stderr" == "kunai: write standard output: No space left on device" ]]
}

@test "CloudAI's --single-sbatch: one allocation's script (largest node count, summed time), the runs its steps; refused off Slurm and with some runs untimed" {
	local t=$BATS_TEST_TMPDIR
	mkdir -p "$t/tests"
	printf 'name = "c"\nscheduler = "slurm"\ninstall_path = "./i"\noutput_path = "./r"\ndefault_partition = "p"\n[[partitions]]\nname = "p"\n' >"$t/slurm.toml"
	printf 'name = "l"\nscheduler = "standalone"\ninstall_path = "./i"\noutput_path = "./r"\n' >"$t/local.toml"
	printf 'name = "s"\ndescription = "d"\ntest_template_name = "Sleep"\n' >"$t/tests/s.toml"
	printf 'name = "sc"\n[[Tests]]\nid = "a"\ntest_name = "s"\nnum_nodes = 3\ntime_limit = "00:10:00"\n[[Tests]]\nid = "b"\ntest_name = "s"\niterations = 2\ntime_limit = "1h"\n' >"$t/scenario.toml"
	run --separate-stderr "$KUNAI" gen --single-sbatch --system-config "$t/slurm.toml" --tests-dir "$t/tests" --test-scenario "$t/scenario.toml" -o "$t/out"
	[ "$status" -eq 0 ] || { echo "$stderr"; false; }
	grep -qx '#SBATCH -N 3' "$t/out/single_sbatch.sh"
	grep -qx '#SBATCH --time=02:10:00' "$t/out/single_sbatch.sh"
	grep -qx '#SBATCH --partition=p' "$t/out/single_sbatch.sh"
	bash -n "$t/out/single_sbatch.sh"
	grep -q '^#KUNAI --workload Sleep --single-sbatch single_sbatch.sh ' "$t/out/b/1/cloudai_sbatch_script.sh"
	grep -q -- "--single-sbatch" "$t/out/local.ninja"
	# CloudAI's rule: every run timed, or none
	sed -i '$d' "$t/scenario.toml"
	run --separate-stderr "$KUNAI" gen --single-sbatch --system-config "$t/slurm.toml" --tests-dir "$t/tests" --test-scenario "$t/scenario.toml" -o "$t/out2"
	[ "$status" -eq 1 ]
	[ ! -e "$t/out2" ]
	[[ "$stderr" == *"--single-sbatch: 1 of 3 runs have a time_limit"* ]]
	run --separate-stderr "$KUNAI" gen --single-sbatch --system-config "$t/local.toml" --tests-dir "$t/tests" --test-scenario "$t/scenario.toml" -o "$t/out3"
	[ "$status" -eq 1 ]
	[ ! -e "$t/out3" ]
	[[ "$stderr" == *"--single-sbatch needs a Slurm system"* ]]
}

# the commands `kunai help` lists (the first word of each indented line)
help_commands() {
	"$KUNAI" help | sed -n 's/^  \([a-z][a-z0-9-]*\).*/\1/p'
}

@test "every command of kunai help has a section in doc/manual.md and an entry in kunai.1" {
	cmds=$(help_commands)
	[ "$(printf '%s\n' "$cmds" | wc -l)" -ge 17 ]
	for c in $cmds; do
		grep -qx "### kunai $c" doc/manual.md || { echo "doc/manual.md: no '### kunai $c'"; false; }
		grep -q "^\.B $(printf '%s' "$c" | sed 's/-/\\\\-/g')\( \|$\)" kunai.1 || { echo "kunai.1: no entry for $c"; false; }
	done
	# and no section for a command kunai does not have
	for c in $(sed -n 's/^### kunai \([a-z][a-z0-9-]*\)$/\1/p' doc/manual.md); do
		printf '%s\n' "$cmds" | grep -qx "$c" || { echo "doc/manual.md: '### kunai $c' is not a command"; false; }
	done
}

@test "man ./kunai.1 renders without a warning" {
	command -v man >/dev/null || skip "no man (apt-get install man-db)"
	run --separate-stderr env MANWIDTH=80 man --warnings -l ./kunai.1
	[ "$status" -eq 0 ]
	[ -z "$stderr" ] || { echo "$stderr"; false; }
	[[ "$output" == *"KUNAI(1)"* ]]
	[[ "$output" == *"EXIT STATUS"* ]]
}

@test "CloudAI's --log-file and --log-level before the command: stderr copied to the file, warnings kept off the terminal at ERROR" {
	local d=$BATS_TEST_TMPDIR
	mkdir -p "$d/tests"
	printf 'name = "l"\nscheduler = "standalone"\ninstall_path = "i"\noutput_path = "o"\n' >"$d/sys.toml"
	printf 'name = "sleep"\ndescription = "d"\ntest_template_name = "Sleep"\n[cmd_args]\nseconds = 0\n' >"$d/tests/sleep.toml"
	printf 'name = "s"\n[reports]\nper_test = { enable = true }\n[[Tests]]\nid = "a"\ntest_name = "sleep"\n' >"$d/sc.toml"
	echo stale >"$d/debug.log"
	run --separate-stderr "$KUNAI" --log-file "$d/debug.log" --log-level=error gen --system-config "$d/sys.toml" \
		--tests-dir "$d/tests" --test-scenario "$d/sc.toml" -o "$d/o"
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	[[ "$output" == *"1 runs of scenario 's'"* ]]
	grep -q "sc.toml:3:1: warning: kunai does not make CloudAI's report 'per_test'" "$d/debug.log"
	! grep -q stale "$d/debug.log"
	# the file alone: the terminal still gets every line
	run --separate-stderr "$KUNAI" --log-file="$d/debug.log" gen --system-config "$d/sys.toml" \
		--tests-dir "$d/tests" --test-scenario "$d/sc.toml" -o "$d/o"
	[ "$status" -eq 0 ]
	[[ "$stderr" == *"warning: kunai does not make CloudAI's report 'per_test'"* ]]
	diff <(printf '%s\n' "$stderr") "$d/debug.log"
	# the exit status is the command's; an unknown level is a usage error
	run --separate-stderr "$KUNAI" --log-level WARNING report "$d/nope"
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"nope"* ]]
	run --separate-stderr "$KUNAI" --log-level LOUD help
	[ "$status" -eq 2 ]
	[[ "$stderr" == *"--log-level LOUD: one of DEBUG, INFO, WARNING, ERROR, CRITICAL"* ]]
	run --separate-stderr "$KUNAI" --log-file
	[ "$status" -eq 2 ]
}

@test "kunai help: the user's commands, each with a one-line description, then the internal ones apart" {
	run -0 "$KUNAI" help
	user=$(sed -n '/^commands:$/,/^$/p' <<<"$output" | sed -n 's/^  \([a-z][a-z0-9-]*\) .*/\1/p')
	internal=$(sed -n '/^internal commands/,/^$/p' <<<"$output" | sed -n 's/^  \([a-z][a-z0-9-]*\) .*/\1/p')
	[ "$(printf '%s\n' "$user" | head -n 1)" = run ]
	for c in run status report dry-run gen compare export install uninstall verify-configs help; do
		printf '%s\n' "$user" | grep -qx "$c" || { echo "not a user command: $c"; false; }
	done
	for c in job installable phase grade plot toml2json; do
		printf '%s\n' "$internal" | grep -qx "$c" || { echo "not internal: $c"; false; }
		! printf '%s\n' "$user" | grep -qx "$c"
	done
	# a description of at least three words on each line
	sed -n '/^commands:$/,/^$/p' <<<"$output" | grep '^  ' | while read -r name desc; do
		[ "$(wc -w <<<"$desc")" -ge 3 ] || { echo "$name: no description"; false; }
	done
}

# flags_of FILE...: the --flags a parser compares its arguments with
flags_of() {
	grep -ho '"--[a-z][a-z-]*"' "$@" | tr -d '"' | sort -u
}

# help_flags CMD: the --flags kunai help CMD names (CloudAI's _ spellings as -)
help_flags() {
	"$KUNAI" help "$1" | grep -o -- '--[a-z][a-z_-]*' | tr _ - | sort -u
}

@test "kunai help CMD names every flag CMD's parser accepts, and CMD accepts every flag it names" {
	local gen=gen/write/gen_opts.c
	check() { # CMD PARSER-FILE...
		local c=$1
		shift
		diff -u <(flags_of "$@") <(help_flags "$c") || { echo "kunai help $c and $* differ"; return 1; }
	}
	check gen $gen
	check dry-run $gen
	check install $gen
	check uninstall $gen
	check run $gen gen/cli/run.c
	check report reports/report.c
	check compare reports/history/compare.c
	check export reports/history/export.c
	check verify-configs gen/model/verify.c
	check plot reports/write/plot/plot.c
	check status reports/history/status.c
	check job rules/job/job_args.c
	# what the help names, the command takes: never "unknown option"
	local c f
	for c in gen dry-run run report compare export verify-configs; do
		for f in $(help_flags "$c"); do
			run "$KUNAI" "$c" "$f" x
			[[ "$output" != *"unknown option"* ]] || { echo "kunai $c $f: $output"; false; }
		done
	done
}

@test "a usage error of run names run, not gen" {
	run --separate-stderr "$KUNAI" run
	[ "$status" -eq 2 ]
	[[ "$stderr" == *"missing --system-config"* ]]
	[[ "$stderr" == *"usage: kunai run --system-config FILE"* ]]
	[[ "$stderr" == *"'kunai help run'"* ]]
}
