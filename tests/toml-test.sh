#!/bin/sh
# toml-test conformance: every valid document must decode to JSON semantically
# equal to its .json, every invalid one must be rejected with a located error.
# Prints TAP, then "toml-test: valid P/N, invalid P/N" and "N passed, N failed".
# usage: tests/toml-test.sh KUNAI JSONCMP SUITE_DIR
kunai=$1 jsoncmp=$2 suite=$3
tmp=${TMPDIR:-/tmp}/kunai-toml-test.$$
trap 'rm -f "$tmp".*' EXIT INT TERM
if [ ! -f "$suite/files-toml-1.0.0" ]; then
	# one skipped test, so that tests/run counts and names it
	echo "1..1"
	echo "ok 1 toml-test suite # skip no toml-test suite at $suite: set SHARED=DIR (see doc/manual.md, Building)"
	exit 0
fi
n=0 vpass=0 vtotal=0 ipass=0 itotal=0
while read -r f; do
	case $f in
	valid/*.toml)
		n=$((n + 1)) vtotal=$((vtotal + 1))
		if ! "$kunai" toml2json <"$suite/$f" >"$tmp.out" 2>"$tmp.err"; then
			echo "not ok $n - $f: rejected: $(head -c 300 "$tmp.err")"
		elif ! "$jsoncmp" "$suite/${f%.toml}.json" "$tmp.out" 2>"$tmp.err"; then
			echo "not ok $n - $f: wrong JSON: $(head -c 300 "$tmp.err")"
		else
			echo "ok $n - $f"
			vpass=$((vpass + 1))
		fi
		;;
	invalid/*.toml)
		n=$((n + 1)) itotal=$((itotal + 1))
		"$kunai" toml2json <"$suite/$f" >"$tmp.out" 2>"$tmp.err"
		rc=$?
		if [ $rc -eq 0 ]; then
			echo "not ok $n - $f: accepted"
		elif [ $rc -ne 1 ]; then
			echo "not ok $n - $f: exit status $rc (crash?)"
		elif ! grep -q '^<stdin>:[0-9]*:[0-9]*: error: ' "$tmp.err"; then
			echo "not ok $n - $f: error not located: $(head -c 300 "$tmp.err")"
		else
			echo "ok $n - $f"
			ipass=$((ipass + 1))
		fi
		;;
	esac
done <"$suite/files-toml-1.0.0"
echo "1..$n"
echo "toml-test: valid $vpass/$vtotal, invalid $ipass/$itotal"
echo "$((vpass + ipass)) passed, $((n - vpass - ipass)) failed"
