#!/usr/bin/env bats
# kunai on a RunAI system, end to end with the real ninja, against the
# STAND-IN control plane of tests/runai/server.c (no RunAI can run here; it
# serves RunAI's REST API v1 as CloudAI's client calls it, on 127.0.0.1):
# token, submit, one listing per poll, events and logs, delete; 401, 429,
# 5xx, a workload that vanishes; Ctrl-C; reattaching; verified TLS; the
# secret never in a file or on the terminal.
bats_require_minimum_version 1.5.0
load helpers

SECRET=s3cret-$$-do-not-print

setup() {
	W=$BATS_TEST_TMPDIR
	C=$W/c
	B=$W/out
	mkdir -p "$C/tests"
	# ports of our own, apart from other suites' (KUNAI_TEST_SLURM_PORT as the Slurm suites)
	PORT=$((${KUNAI_TEST_SLURM_PORT:-$((20000 + ($$ % 1000) * 8))} + 6))
	LONG=$((6000000 + $$ % 1000000))
	system '"$KUNAI_TEST_RUNAI_SECRET"'
	tst ok 'echo hello from runai; sleep 1'
	tst fail 'echo bad; exit 3'
	tst long "sleep $LONG"
	export KUNAI_TEST_RUNAI_SECRET=$SECRET KUNAI_MAX_RETRIES=0
	export RUNAI_FAKE_APP_ID=kunai-app RUNAI_FAKE_APP_SECRET=$SECRET RUNAI_FAKE_PROJECT_ID=p1 RUNAI_FAKE_CLUSTER_ID=c1
	SPID=
}

teardown() {
	local p
	[ -z "$SPID" ] || kill "$SPID" 2>/dev/null
	for p in $(pgrep -f "sleep $LONG\$"); do
		kill -9 "$p" 2>/dev/null
	done
}

# server: the stand-in, with the RUNAI_FAKE_* faults of the environment
# (kunai must have its HTTP client: configure found libcurl)
server() {
	if grep -q '^HTTP_OBJ = rules/job/http_null.o$' "$BATS_TEST_DIRNAME/../Makefile" 2>/dev/null; then
		skip "kunai was built without libcurl (libcurl4-openssl-dev): no RunAI submission to test"
	fi
	"$BATS_TEST_DIRNAME/runai/server" "$PORT" "$W/srv" >"$W/srv.log" 2>&1 &
	SPID=$!
	local i=0
	until grep -q listening "$W/srv.log" 2>/dev/null; do
		i=$((i + 1))
		[ $i -lt 100 ] || { cat "$W/srv.log"; return 1; }
		sleep 0.05
	done
}

# system APP-SECRET-TOML-VALUE [BASE-URL]
system() {
	cat >"$C/system.toml" <<-T
	name = "runai"
	scheduler = "runai"
	install_path = "./install"
	output_path = "./results"
	monitor_interval = 1
	base_url = "${2:-http://127.0.0.1:$PORT}"
	user_email = "kunai@example.com"
	app_id = "kunai-app"
	app_secret = $1
	project_id = "p1"
	cluster_id = "c1"
	gpus_per_node = 0
	T
}

tst() {
	printf 'name = "%s"\ndescription = "d"\ntest_template_name = "BashCmd"\n[cmd_args]\ncmd = "%s"\n' "$1" "$2" \
		>"$C/tests/$1.toml"
}

gen() {
	printf 'name = "o"\n%s\n' "$1" >"$C/scenario.toml"
	(cd "$C" && "$KUNAI" gen --system-config system.toml --tests-dir tests --test-scenario scenario.toml -o "$B") >/dev/null
}

jf() {
	sed -n -e "s/^	\"$2\":	\"\(.*\)\",\{0,1\}\$/\1/p" \
		-e "s/^	\"$2\":	\([^\",]*\),\{0,1\}\$/\1/p" "$1"
}

calls() {
	grep -c "$1" "$W/srv/calls.log" || true
}

no_secret() {
	! grep -rq "$SECRET" "$B" "$C/tests" "$W/srv/calls.log"
	! grep -rq 'tok-[0-9]*-[0-9]' "$B"
}

@test "CloudAI's example RunAI system: dry-run with an NCCL scenario writes one request per run" {
	need_cloudai
	cat >"$C/tests/nccl.toml" <<-'T'
	name = "nccl"
	description = "all_reduce"
	test_template_name = "NcclTest"
	[cmd_args]
	docker_image_url = "nvcr.io/nvidia/pytorch:24.02-py3"
	subtest_name = "all_reduce_perf_mpi"
	T
	printf 'name = "n"\n[[Tests]]\nid = "nccl"\ntest_name = "nccl"\nnum_nodes = 2\niterations = 3\n' >"$C/sc.toml"
	run "$KUNAI" dry-run --system-config "$SHARED/cloudai-compat/conf/system/example_runai_cluster.toml" \
		--tests-dir "$C/tests" --test-scenario "$C/sc.toml" -o "$B"
	[ "$status" -eq 0 ]
	[ "$(find "$B" -name runai.json | wc -l)" -eq 3 ]
	local f=$B/nccl/1/runai.json
	grep -q '"name":	"kunai-nccl-1",' "$f"
	grep -q '"projectId":	"your_project_id",' "$f"
	grep -q '"clusterId":	"your_cluster_id",' "$f"
	grep -q '"command":	"all_reduce_perf_mpi",' "$f"
	grep -q '"args":	"--nthreads 1 --ngpus 1 --minbytes 32M' "$f"
	grep -q '"gpuDevicesRequest":	8' "$f"
	grep -q '"parallelism":	2,' "$f"
	grep -q '"name":	"NCCL_IB_TIMEOUT",' "$f"
	! grep -rq your_app_secret "$B"
}

@test "runs: token, submit, one listing per poll, events and logs stored, graded, deleted; no secret anywhere" {
	server
	local s="" i
	for i in 1 2 3 4; do
		s="$s$(printf '[[Tests]]\nid = "t%s"\ntest_name = "ok"\n' "$i")"$'\n'
	done
	gen "$s[[Tests]]
id = \"f\"
test_name = \"fail\""
	run "$NINJA" -C "$B" -k 0 run
	echo "$output"
	[ "$status" -ne 0 ]
	for i in 1 2 3 4; do
		[ "$(jf "$B/t$i/0/job.json" outcome)" = passed ]
		[ "$(jf "$B/t$i/0/job.json" scheduler)" = runai ]
		[ "$(cat "$B/t$i/0/stdout.txt")" = "hello from runai" ]
		grep -q '"reason":"Scheduled"' "$B/t$i/0/events.txt"
		grep -q '"name":	"kunai-t'$i'-0-a1",' "$B/t$i/0/runai.applied.json"
		[ -e "$B/t$i/0/kunai.stamp" ]
	done
	[ "$(jf "$B/f/0/job.json" outcome)" = failed ]
	[ "$(cat "$B/f/0/stdout.txt")" = bad ]
	# the workload id RunAI gave, recorded; every workload deleted
	[[ "$(jf "$B/t1/0/job.json" job_id)" == *-0000-4000-8000-* ]]
	[ "$(calls 'POST /api/v1/workloads/trainings 202')" -eq 5 ]
	[ "$(calls 'DELETE /api/v1/workloads/trainings/.* 202')" -eq 5 ]
	# polite: a listing serves all the waiters (far fewer than one per run per second)
	local listings
	listings=$(calls '^GET /api/v1/workloads 200$')
	echo "5 runs: $listings listings"
	[ "$listings" -ge 1 ]
	[ "$listings" -le 12 ]
	[ "$(calls '^GET /api/v1/workloads/trainings/[^ /]* 200')" -eq 5 ]
	no_secret
	[[ $output != *"$SECRET"* ]]
	run "$NINJA" -C "$B" run
	[ "$(jf "$B/f/0/job.json" attempt)" = 2 ]
	grep -q '"name":	"kunai-f-0-a2",' "$B/f/0/runai.applied.json"
}

@test "kunai run survives 429 (waits its Retry-After), 5xx (backs off) and an expired token (401: a new one)" {
	RUNAI_FAKE_429=3 RUNAI_FAKE_5XX=3 RUNAI_FAKE_TOKEN_USES=4 server
	printf 'name = "o"\n[[Tests]]\nid = "a"\ntest_name = "ok"\n' >"$C/scenario.toml"
	cd "$C"
	run "$KUNAI" run --system-config system.toml --tests-dir tests --test-scenario scenario.toml -o "$B"
	echo "$output"
	[ "$status" -eq 0 ]
	# graded as for any scheduler: the report has the run, passed
	[ -s "$B/report/summary.json" ] || [ -s "$B/summary.json" ]
	[[ $output == *passed* ]]
	[ "$(jf "$B/a/0/job.json" outcome)" = passed ]
	[ "$(cat "$B/a/0/stdout.txt")" = "hello from runai" ]
	[ "$(calls ' 429$')" -eq 3 ]
	[ "$(calls ' 503$')" -eq 3 ]
	[ "$(calls ' 401$')" -ge 1 ]
	[ "$(calls 'POST /api/v1/token 200')" -ge 2 ]
	[ "$(calls 'POST /api/v1/workloads/trainings 202')" -eq 1 ]
	[[ $output == *"RunAI asks to slow down (HTTP 429); again in 1 s"* ]]
	no_secret
}

@test "a wrong secret, a secret variable not set: configuration errors naming the field, not retried, no secret shown" {
	RUNAI_FAKE_APP_SECRET=other server
	gen '[[Tests]]
id = "a"
test_name = "ok"'
	# (retries allowed: none is made for a refusal of the configuration)
	KUNAI_MAX_RETRIES=2 run "$NINJA" -C "$B" run
	echo "$output"
	[ "$status" -ne 0 ]
	[ "$(jf "$B/a/0/job.json" outcome)" = failed ]
	[ "$(jf "$B/a/0/job.json" state)" = CONFIG_ERROR ]
	[ "$(jf "$B/a/0/job.json" reason)" = "configuration error: RunAI refused the application's credentials: check the system TOML's app_id and app_secret [RunAI token: HTTP 401: invalid client credentials]" ]
	# one token request: a refusal of the configuration is not retried
	[ "$(calls 'POST /api/v1/token')" = 1 ]
	# the token request's whole answer beside the record (no_secret below reads it too)
	head -1 "$B/a/0/runai.txt" | grep -Eqx '# POST https?://[^ ]+/api/v1/token: HTTP 401'
	grep -q 'invalid client credentials' "$B/a/0/runai.txt"
	[[ $output != *"$SECRET"* ]]
	KUNAI_TEST_RUNAI_SECRET= run "$NINJA" -C "$B" run
	[ "$(jf "$B/a/0/job.json" reason)" = 'configuration error: app_secret is \"$KUNAI_TEST_RUNAI_SECRET\", which is not set in the environment: export it for ninja, or write the secret in the system TOML' ]
	[ "$(jf "$B/a/0/job.json" outcome)" = failed ]
	no_secret
}

@test "a secret written in the system file: read from there by kunai job, in no generated file" {
	server
	system "\"$SECRET\""
	gen '[[Tests]]
id = "a"
test_name = "ok"'
	! grep -rq "$SECRET" "$B"
	grep -q "system_config = $C/system.toml" "$B/local.ninja"
	KUNAI_TEST_RUNAI_SECRET= run "$NINJA" -C "$B" run
	[ "$status" -eq 0 ]
	[ "$(jf "$B/a/0/job.json" outcome)" = passed ]
	! grep -rq "$SECRET" "$B"
}

@test "Ctrl-C on kunai run deletes the running workloads; a workload that vanishes is infra (LOST)" {
	server
	printf 'name = "o"\n[[Tests]]\nid = "l1"\ntest_name = "long"\n[[Tests]]\nid = "l2"\ntest_name = "long"\n' \
		>"$C/scenario.toml"
	(cd "$C" && exec "$KUNAI" run --system-config system.toml --tests-dir tests --test-scenario scenario.toml \
		-o "$B") >"$W/ninja.log" 2>&1 3>&- &
	local npid=$! i=0
	until [ "$(pgrep -f "sleep $LONG\$" | wc -l)" -ge 2 ] || [ $i -ge 200 ]; do sleep 0.05; i=$((i + 1)); done
	[ "$(pgrep -f "sleep $LONG\$" | wc -l)" -ge 2 ]
	kill -INT "$npid"
	wait "$npid" || true
	cat "$W/ninja.log"
	[ "$(calls 'DELETE /api/v1/workloads/trainings/.* 202')" -eq 2 ]
	[ "$(jf "$B/l1/0/job.json" outcome)" = cancelled ]
	[ "$(jf "$B/l2/0/job.json" outcome)" = cancelled ]
	i=0
	while pgrep -f "sleep $LONG\$" >/dev/null && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
	! pgrep -f "sleep $LONG\$"
	kill "$SPID"
	RUNAI_FAKE_VANISH=1 server
	rm -rf "$B"
	gen '[[Tests]]
id = "v"
test_name = "long"'
	run "$NINJA" -C "$B" run
	[ "$status" -ne 0 ]
	[ "$(jf "$B/v/0/job.json" outcome)" = infra ]
	[ "$(jf "$B/v/0/job.json" state)" = LOST ]
	[[ "$(jf "$B/v/0/job.json" reason)" == "the workload is gone (deleted outside kunai?)" ]]
}

@test "SIGKILL of ninja and kunai job: the next ninja reattaches, never a second workload" {
	server
	tst mid "echo run >>$W/count; sleep 3"
	gen '[[Tests]]
id = "x"
test_name = "mid"'
	"$NINJA" -C "$B" run >"$W/ninja.log" 2>&1 3>&- &
	local npid=$! i=0 p pids
	until [ -e "$W/count" ] || [ $i -ge 400 ]; do sleep 0.05; i=$((i + 1)); done
	[ -e "$W/count" ]
	# ninja, its shells and their kunai job, all at once
	pids=$npid
	for p in $(pgrep -P "$npid"); do
		pids="$pids $p $(pgrep -P "$p" -x kunai || true)"
	done
	kill -9 $pids
	wait "$npid" 2>/dev/null || true
	run "$NINJA" -C "$B" run
	echo "$output"
	[ "$status" -eq 0 ]
	[[ $output == *"x/0: reattaching to job "*"-0000-4000-8000-"* ]]
	[ "$(calls 'POST /api/v1/workloads/trainings 202')" -eq 1 ]
	[ "$(wc -l <"$W/count")" -eq 1 ]
	[ "$(jf "$B/x/0/job.json" outcome)" = passed ]
}

@test "TLS is verified: a server whose certificate no CA vouches for is refused" {
	command -v openssl >/dev/null || skip "no openssl to make a throwaway certificate"
	! grep -q '^HTTP_OBJ = rules/job/http_null.o$' "$BATS_TEST_DIRNAME/../Makefile" 2>/dev/null ||
		skip "kunai was built without libcurl (libcurl4-openssl-dev): no RunAI submission to test"
	openssl req -x509 -newkey rsa:2048 -nodes -keyout "$W/k.pem" -out "$W/c.pem" -days 1 \
		-subj /CN=127.0.0.1 >/dev/null 2>&1
	openssl s_server -quiet -accept "$PORT" -cert "$W/c.pem" -key "$W/k.pem" -www >/dev/null 2>&1 &
	SPID=$!
	local i=0
	until (exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null; do
		i=$((i + 1))
		[ $i -lt 200 ] || { echo "openssl s_server did not start"; return 1; }
		sleep 0.05
	done
	system '"$KUNAI_TEST_RUNAI_SECRET"' "https://127.0.0.1:$PORT"
	gen '[[Tests]]
id = "a"
test_name = "ok"'
	local t0=$SECONDS
	run "$NINJA" -C "$B" run
	[ "$status" -ne 0 ]
	[[ "$(jf "$B/a/0/job.json" reason)" == "RunAI submit: SSL"*"certificate"* ]]
	# refused at once: a certificate no CA vouches for is not retried
	[ $((SECONDS - t0)) -lt 20 ]
}
