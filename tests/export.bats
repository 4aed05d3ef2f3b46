#!/usr/bin/env bats
# kunai export BUILD_DIR -o FILE.tar.gz, and the safe way back in
# (export_open, as `kunai export --list`, report --history and compare use
# it): truncated archives and entries outside the root are refused.
bats_require_minimum_version 1.5.0

setup() {
	W=$BATS_TEST_TMPDIR
	mkdir -p "$W/c/tests" "$W/tmp"
	export TMPDIR=$W/tmp
	cat >"$W/c/system.toml" <<'T'
name = "local"
scheduler = "standalone"
install_path = "./install"
output_path = "./results"
T
	cat >"$W/c/tests/sleep.toml" <<'T'
name = "sleep"
description = "sleep"
test_template_name = "Sleep"
[cmd_args]
seconds = 0
T
	cat >"$W/c/scenario.toml" <<'T'
name = "e"
[[Tests]]
id = "a"
test_name = "sleep"
iterations = 2
T
	cd "$W/c"
}

campaign() {
	"$KUNAI" run --system-config system.toml --tests-dir tests --test-scenario scenario.toml -o out >/dev/null
}

# refused ARCHIVE WHAT: --list refuses it, says WHAT, leaves no temp dir
refused() {
	run "$KUNAI" export --list "$1"
	echo "$output"
	[ "$status" -eq 1 ]
	[[ "$output" == *"$2"* ]]
	[ -z "$(ls "$W/tmp")" ]
}

@test "export packs kunai.json, each run's records and the report, relative to the build dir" {
	campaign
	# a refusal's answer and an LSF job script, as other schedulers leave them
	echo refused >out/a/0/sbatch.txt
	mkdir out/a/1/attempt-1
	echo refused >out/a/1/attempt-1/kubectl.txt
	echo '#BSUB -J a' >out/a/1/bsub_script.sh
	run "$KUNAI" export out -o e.tar.gz
	[ "$status" -eq 0 ]
	[[ "$output" == *"files"*"e.tar.gz"* ]]
	[ ! -e e.tar.gz.tmp ]
	tar tzf e.tar.gz >list
	grep -qx kunai.json list
	grep -qx a/0/job.json list
	grep -qx a/1/report.json list
	grep -qx a/1/stdout.txt list
	grep -qx report/summary.json list
	grep -qx a/0/sbatch.txt list
	grep -qx a/1/attempt-1/kubectl.txt list
	grep -qx a/1/bsub_script.sh list
	! grep -q '^/' list
	! grep -q 'kunai.stamp\|\.kunai/\|\.ninja_log' list
	run "$KUNAI" export --list e.tar.gz
	[ "$status" -eq 0 ]
	[ "$(printf '%s\n' "${lines[@]}" | sort)" = "$(sort list)" ]
	[ -z "$(ls "$W/tmp")" ]
	# the files' times survive (report regrades by them)
	mkdir x && tar xzf e.tar.gz -C x
	[ "$(stat -c %Y x/a/0/job.json)" = "$(stat -c %Y out/a/0/job.json)" ]
}

@test "export --list takes a build dir as it is" {
	campaign
	run "$KUNAI" export --list out
	[ "$status" -eq 0 ]
	[[ "$output" == *kunai.json* ]]
}

@test "export: usage errors exit 2, a dir without kunai.json 1" {
	run "$KUNAI" export out
	[ "$status" -eq 2 ]
	run "$KUNAI" export -o x.tar.gz
	[ "$status" -eq 2 ]
	mkdir empty
	run "$KUNAI" export empty -o x.tar.gz
	[ "$status" -eq 1 ]
	[ ! -e x.tar.gz ]
}

@test "a truncated archive is refused, at any cut" {
	campaign
	"$KUNAI" export out -o e.tar.gz
	size=$(stat -c %s e.tar.gz)
	for cut in 10 $((size / 2)) $((size - 4)); do
		head -c "$cut" e.tar.gz >t.tar.gz
		refused t.tar.gz truncated
	done
	# a tar stream cut short inside a well-formed gzip
	gzip -dc e.tar.gz | head -c 3000 | gzip >t2.tar.gz
	refused t2.tar.gz truncated
}

@test "entries with '..', absolute paths, links or no kunai.json are refused" {
	mkdir -p d/sub
	echo '{}' >d/kunai.json
	echo secret >outside
	(cd d && tar -P -czf ../dotdot.tar.gz kunai.json ../outside)
	refused dotdot.tar.gz "'..'"
	(cd d && tar -P -czf ../abs.tar.gz kunai.json "$W/c/outside")
	refused abs.tar.gz "absolute"
	ln -s "$W/c/outside" d/link
	(cd d && tar -czf ../link.tar.gz kunai.json link)
	refused link.tar.gz "symbolic link"
	rm d/link
	ln d/kunai.json d/hard
	(cd d && tar -czf ../hard.tar.gz kunai.json hard)
	refused hard.tar.gz "hard link"
	(cd d && tar -czf ../nojson.tar.gz sub)
	refused nojson.tar.gz "no kunai.json"
	(cd d && tar --hard-dereference -czf ../twice.tar.gz kunai.json kunai.json)
	refused twice.tar.gz "twice"
	echo 'not gzip' >plain.tar.gz
	refused plain.tar.gz "no gzip header"
	[ ! -e "$W/outside2" ]
}

@test "compare and report --history take an exported archive wherever they take a build dir" {
	campaign
	"$KUNAI" export out -o old.tar.gz >/dev/null
	cp -R out new
	run "$KUNAI" compare old.tar.gz new
	[ "$status" -eq 0 ] || { echo "$output"; return 1; }
	[[ "$output" == *"values in both"* ]]
	run "$KUNAI" report new --history old.tar.gz
	[ "$status" -eq 0 ] || { echo "$output"; return 1; }
	# what was extracted is gone again
	[ -z "$(ls "$W/tmp")" ]
	# a truncated archive is refused there too
	head -c 200 old.tar.gz >cut.tar.gz
	run "$KUNAI" compare cut.tar.gz new
	[ "$status" -eq 1 ]
	[[ "$output" == *"cut.tar.gz"* ]]
}
