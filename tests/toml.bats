#!/usr/bin/env bats
# TOML golden cases the cproc way: tests/cases/toml/NAME.toml with either
# NAME.json (the exact `kunai toml2json` output, it must succeed) or NAME.err
# (the exact error, exit 1, nothing on stdout). UPDATE=1 rewrites them. Fuzz
# crashes become cases here, and seed `make fuzz`.
bats_require_minimum_version 1.5.0

@test "every tests/cases/toml case gives its expected output" {
	cd tests/cases/toml
	fails=0 n=0
	for t in *.toml; do
		name=${t%.toml}
		n=$((n + 1))
		run --separate-stderr "$KUNAI" toml2json "$t"
		if [ -n "${UPDATE:-}" ]; then
			rm -f "$name.json" "$name.err"
			if [ "$status" -eq 0 ]; then printf '%s\n' "$output" >"$name.json"
			else printf '%s\n' "$stderr" >"$name.err"; fi
			continue
		fi
		if [ -f "$name.json" ]; then
			if [ "$status" -ne 0 ] || ! diff -u "$name.json" <(printf '%s\n' "$output"); then
				echo "FAIL $name: expected success (status $status) $stderr"
				fails=$((fails + 1))
			fi
		elif [ -f "$name.err" ]; then
			if [ "$status" -ne 1 ] || [ -n "$output" ] || ! diff -u "$name.err" <(printf '%s\n' "$stderr"); then
				echo "FAIL $name: expected error, exit 1 (status $status)"
				fails=$((fails + 1))
			fi
		else
			echo "FAIL $name: neither $name.json nor $name.err"
			fails=$((fails + 1))
		fi
	done
	echo "$n cases, $fails failed"
	[ "$fails" -eq 0 ]
	[ "$n" -ge 15 ]
}
