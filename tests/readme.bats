#!/usr/bin/env bats
bats_require_minimum_version 1.5.0
# README.md's first campaign, as a newcomer copies it: the three TOML files
# from its code blocks, then the commands it shows, in a fresh folder.
# (The README's two set-up commands are run by .ci/run, exactly as written, in a
# fresh Debian 12 root (.ci/fresh-root) and on the host.)

setup() {
	SRC=$PWD
	KUNAI=${KUNAI:-$PWD/kunai}
	cd "$BATS_TEST_TMPDIR"
	ln -s "$KUNAI" kunai
	# every ```toml block whose first line names a my-cluster/ file
	awk '/^```toml$/ { inb = 1; f = ""; next }
	     /^```$/ { inb = 0; f = ""; next }
	     inb && f == "" && /^# my-cluster\// { f = $2; sub(/:$/, "", f); system("mkdir -p $(dirname " f ")") }
	     inb && f != "" { print > f }' "$SRC/README.md"
}

# readme_commands PREFIX: the README's indented commands starting with PREFIX,
# continuation lines joined
readme_commands() {
	sed -n 's/^    //p' "$SRC/README.md" | awk -v p="$1" '
		{ line = (cont ? line " " : "") $0; cont = sub(/ *\\$/, "", line) }
		!cont { gsub(/  +/, " ", line); if (index(line, p) == 1) print line; line = "" }'
}

@test "README: the first campaign's three files are there to copy" {
	[ -f my-cluster/system.toml ]
	[ -f my-cluster/tests/nccl.toml ]
	[ -f my-cluster/scenario.toml ]
	run -0 ./kunai verify-configs --tests-dir my-cluster/tests my-cluster
	[[ "${lines[-1]}" == "3 files: 3 ok, 0 failed" ]]
}

@test "README: the dry run writes the sbatch scripts it names, for 1 and 2 nodes" {
	cmd=$(readme_commands "./kunai dry-run")
	[ -n "$cmd" ]
	run -0 sh -c "$cmd"
	[[ "$output" == *"kunai: 2 runs of scenario 'first' in results/first"* ]]
	f=$(readme_commands "less " | sed 's/^less //')
	[ -f "$f" ]
	grep -qx '#SBATCH -N 2' "$f"
	grep -qx '#SBATCH --partition=gpu' "$f"
	grep -q 'all_reduce_perf_mpi .*--minbytes 8M --maxbytes 8G' "$f"
	grep -q -- '--container-image=nvcr.io/nvidia/pytorch:24.02-py3' "$f"
	# the run command is the same campaign: same flags, same build dir
	run_cmd=$(readme_commands "./kunai run" | grep -- '--tests-dir my-cluster/tests')
	[ "${run_cmd#./kunai run}" = "${cmd#./kunai dry-run}" ]
	# and status reads that build dir (nothing ran yet)
	run ./kunai status results/first
	[[ "$output" == *"nccl.1node"* ]]
	[[ "$output" == *"nccl.2nodes"* ]]
}

@test "README: the campaign without containers uses only the system file, kunai's own tests and its quick preset" {
	ln -s "$SRC/conf" conf
	cmd=$(readme_commands "./kunai run" | grep -- '--tests-dir conf/test')
	[ -n "$cmd" ]
	# the same, as a dry run: every script, none with a container
	run -0 sh -c "./kunai dry-run ${cmd#./kunai run }"
	[[ "$output" == *"kunai: 5 runs of scenario 'acceptance' in results/smoke"* ]]
	n=$(ls results/smoke/*/0/cloudai_sbatch_script.sh | wc -l)
	[ "$n" -eq 5 ]
	! grep -l -- '--container-image' results/smoke/*/0/cloudai_sbatch_script.sh
}

@test "README: make run's closing lines are the ones kunai run prints" {
	grep -q '^    kunai: report: results/acceptance/report/index.html (summary.md, summary.json, junit.xml beside it)$' "$SRC/README.md"
	grep -q "kunai: report: results/acceptance/report/index.html" "$SRC/.ci/run"
	[ "$(wc -l <"$SRC/README.md")" -lt 200 ]
}

@test "README: every local link and picture names a file of the tree" {
	links=$(grep -o '](\([^)#:]*\))' "$SRC/README.md" | sed 's/^](//; s/)$//')
	[ -n "$links" ]
	for l in $links; do
		[ -e "$SRC/$l" ] || { echo "README.md links to $l, which is missing"; false; }
	done
}

@test "manual: every difference from CloudAI a test names is in its one list" {
	local f tag n=0 missing=
	# the list: the table rows of "Differences from CloudAI", by id
	sed -n '/^## Differences from CloudAI$/,/^## /p' "$SRC/doc/manual.md" |
		sed -n 's/^| `\([a-z_]*\/[A-Za-z0-9-]*\)` |.*/\1/p' | sort >"$BATS_TEST_TMPDIR/listed"
	[ "$(wc -l <"$BATS_TEST_TMPDIR/listed")" -ge 40 ]
	# each "#  TAG. ..." a test file's comments define
	for f in "$SRC"/tests/*.bats; do
		for tag in $(sed -n 's/^#  *\([A-Z]\{0,2\}[0-9]\{1,2\}\)\. .*/\1/p' "$f"); do
			n=$((n + 1))
			grep -qx "$(basename "$f" .bats)/$tag" "$BATS_TEST_TMPDIR/listed" ||
				missing+=" $(basename "$f" .bats)/$tag"
		done
	done
	[ -z "$missing" ] || { echo "not in doc/manual.md's Differences from CloudAI:$missing"; false; }
	[ "$n" -ge 35 ]
	# the tests' references to differences name listed ones
	! grep -ho '`[a-z_]*/[A-Za-z0-9-]*` in "Differences from CloudAI"' "$SRC/doc/manual.md" |
		sed 's/`\([^`]*\)`.*/\1/' | grep -vxFf "$BATS_TEST_TMPDIR/listed"
}
