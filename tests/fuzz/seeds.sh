#!/bin/sh
# tests/fuzz/seeds.sh DIR: seed inputs for gen_fuzz in DIR, one per campaign of
# conf/ and tests/cases/{slurm,cloudai,errors}: the system, each test file and
# the scenario, separated by lines "%%%" (the form gen_fuzz splits).
set -eu
dir=${1:?usage: tests/fuzz/seeds.sh DIR}
mkdir -p "$dir"
# seed NAME SYSTEM TESTS_DIR SCENARIO
seed() {
	{
		cat "$2"
		for t in "$3"/*.toml; do
			[ -f "$t" ] || continue
			printf '\n%%%%%%\n'
			cat "$t"
		done
		printf '\n%%%%%%\n'
		cat "$4"
	} >"$dir/$1"
}
for s in conf/scenario/*.toml; do
	for y in conf/system/*.toml; do
		seed "conf-$(basename "$y" .toml)-$(basename "$s" .toml)" "$y" conf/test "$s"
	done
done
for d in tests/cases/slurm/*/ tests/cases/cloudai/*/ tests/cases/errors/*/; do
	d=${d%/}
	[ -f "$d/system.toml" ] && [ -f "$d/scenario.toml" ] || continue
	seed "$(basename "$(dirname "$d")")-$(basename "$d")" "$d/system.toml" "$d/tests" "$d/scenario.toml"
done
