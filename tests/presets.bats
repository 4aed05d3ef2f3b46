#!/usr/bin/env bats
# Presets: [presets.NAME] tables of --set overrides in the scenario, with
# extends; --preset NAME on gen/dry-run/run; the chain in kunai.json and
# kunai status. (Errors: tests/cases/errors/preset-*.)
bats_require_minimum_version 1.5.0

setup() {
	W=$BATS_TEST_TMPDIR
	Q=$PWD/tests/jsonquery
	mkdir -p "$W/c/tests"
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
name = "p"
[[Tests]]
id = "a"
test_name = "sleep"

[presets.base]
description = "the common part"
Tests.a.iterations = 2
Tests.a.cmd_args.seconds = 1
system.max_jobs = 3

[presets.more]
extends = ["base"]
Tests.a.iterations = 3

[presets.other]
Tests.a.cmd_args.seconds = 2

[presets.both]
extends = ["more", "other", "base"]
T
	cd "$W/c"
}

gen() {
	"$KUNAI" gen --system-config system.toml --tests-dir tests --test-scenario scenario.toml -o out "$@"
}

@test "a preset is its overrides: extends first, in order, each preset once" {
	run gen --preset both
	[ "$status" -eq 0 ]
	[ "$("$Q" out/kunai.json presets)" = '["base","more","other","both"]' ]
	[ "$("$Q" out/kunai.json runs.#)" = 3 ]
	[ "$("$Q" out/kunai.json overrides.0.key)" = Tests.a.iterations ]
	[ "$("$Q" out/kunai.json overrides.0.preset)" = base ]
	[ "$("$Q" out/kunai.json system.max_jobs)" = 3 ]
}

@test "--set comes after the presets; --preset is repeatable; the same as --set by hand" {
	run gen --preset other --preset more --set Tests.a.iterations=1
	[ "$status" -eq 0 ]
	[ "$("$Q" out/kunai.json presets)" = '["other","base","more"]' ]
	[ "$("$Q" out/kunai.json runs.#)" = 1 ]
	cp out/a/0/run.sh preset.sh
	run gen -o out2 --set Tests.a.cmd_args.seconds=2 --set Tests.a.iterations=2 \
		--set Tests.a.cmd_args.seconds=1 --set system.max_jobs=3 --set Tests.a.iterations=3 \
		--set Tests.a.iterations=1
	[ "$status" -eq 0 ]
	cmp preset.sh out2/a/0/run.sh
	cmp out/build.ninja out2/build.ninja
}

@test "regeneration keeps the presets by name: an edited preset takes effect" {
	gen --preset more
	[ "$("$Q" out/kunai.json runs.#)" = 3 ]
	grep -q -- "--preset more" out/local.ninja
	sleep 1
	sed -i 's/^Tests.a.iterations = 3/Tests.a.iterations = 4/' scenario.toml
	run ninja -C out scripts
	[ "$status" -eq 0 ]
	[ "$("$Q" out/kunai.json runs.#)" = 4 ]
}

@test "kunai status shows the preset chain; without presets, no such line" {
	gen --preset more
	run "$KUNAI" status out
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "presets: base more" ]
	gen -o plain
	run "$KUNAI" status plain
	[[ "${lines[0]}" != presets:* ]]
	run "$Q" plain/kunai.json presets
	[ "$status" -eq 1 ]
}

@test "a scenario with presets but no --preset generates as if it had none" {
	run gen
	[ "$status" -eq 0 ]
	[ "$("$Q" out/kunai.json runs.#)" = 1 ]
	[ "$("$Q" out/kunai.json overrides)" = '[]' ]
}

@test "kunai run --preset quick: the shipped acceptance presets resolve" {
	cd "$OLDPWD"
	run "$KUNAI" gen --system-config conf/system/local.toml --tests-dir conf/test \
		--test-scenario conf/scenario/acceptance.toml --preset quick -o "$W/q"
	[ "$status" -eq 0 ]
	[ "$("$Q" "$W/q/kunai.json" presets)" = '["quick"]' ]
	run "$KUNAI" gen --system-config conf/system/local.toml --tests-dir conf/test \
		--test-scenario conf/scenario/acceptance.toml --preset full -o "$W/f"
	[ "$status" -eq 0 ]
	[ "$("$Q" "$W/f/kunai.json" runs.#)" = 10 ]
}

@test "--preset needs a name" {
	run gen --preset ''
	[ "$status" -eq 2 ]
}
