#!/usr/bin/env bats
# Kubernetes manifests (gen/write/manifest_k8s.c): tests/cases/k8s/NAME/ holds
# inputs (system.toml, tests/, scenario.toml) and expected.json, the k8s.json
# of the case's only run. UPDATE=1 rewrites expected.json for review with
# git diff. No cluster is reachable here: these compare bytes only.
bats_require_minimum_version 1.5.0
load helpers

gen_case() {
	local d=$1 out=$2
	"$KUNAI" gen --system-config "$d/system.toml" --tests-dir "$d/tests" \
		--test-scenario "$d/scenario.toml" -o "$out" >/dev/null
}

@test "every k8s case writes its expected manifest" {
	local d n=0 bad=0 got
	for d in "$BATS_TEST_DIRNAME"/cases/k8s/*/; do
		d=${d%/}
		n=$((n + 1))
		gen_case "$d" "$BATS_TEST_TMPDIR/$(basename "$d")" || { bad=$((bad + 1)); continue; }
		got=$(find "$BATS_TEST_TMPDIR/$(basename "$d")" -name k8s.json)
		if [ -n "${UPDATE:-}" ]; then
			cp "$got" "$d/expected.json"
		elif ! diff -u "$d/expected.json" "$got"; then
			bad=$((bad + 1))
		fi
	done
	echo "$n cases, $bad failed"
	[ "$bad" -eq 0 ]
	[ "$n" -ge 3 ]
}

@test "the kinds: Job for one pod, JobSet for several, MPIJob for NcclTest" {
	local c=$BATS_TEST_DIRNAME/cases/k8s
	grep -q '"kind":	"Job",' "$c/job/expected.json"
	grep -q '"kind":	"JobSet",' "$c/jobset/expected.json"
	grep -q '"kind":	"MPIJob",' "$c/mpijob/expected.json"
	grep -q '"backoffLimit":	0' "$c/job/expected.json"
	grep -q '"activeDeadlineSeconds":	300' "$c/job/expected.json"
}

@test "manifests are byte-stable across build dirs and name no absolute path" {
	local d=$BATS_TEST_DIRNAME/cases/k8s/mpijob
	gen_case "$d" "$BATS_TEST_TMPDIR/a"
	mkdir -p "$BATS_TEST_TMPDIR/elsewhere"
	(cd "$BATS_TEST_TMPDIR/elsewhere" && gen_case "$d" b)
	cmp "$BATS_TEST_TMPDIR/a/nccl/0/k8s.json" "$BATS_TEST_TMPDIR/elsewhere/b/nccl/0/k8s.json"
	! grep -q "$BATS_TEST_TMPDIR" "$BATS_TEST_TMPDIR/a/nccl/0/k8s.json"
}

# validate KIND-SCHEMA CASE: the case's expected manifest against the schema
validate() {
	"$BATS_TEST_DIRNAME/k8s/validate" "$BATS_TEST_DIRNAME/k8s/schemas/$1.json" "$2"
}

@test "every generated manifest validates against its official schema" {
	local c=$BATS_TEST_DIRNAME/cases/k8s n=0 f kind
	for f in "$c"/*/expected.json; do
		kind=$(sed -n 's/^	"kind":	"\(.*\)",$/\1/p' "$f")
		case $kind in
		Job) validate batch_v1_job "$f" ;;
		JobSet) validate jobset.x-k8s.io_v1alpha2 "$f" ;;
		MPIJob) validate kubeflow.org_v2beta1_mpijob "$f" ;;
		*) echo "$f: kind '$kind'"; return 1 ;;
		esac
		n=$((n + 1))
	done
	echo "$n manifests validated"
	[ "$n" -ge 3 ]
}

@test "the validator rejects a wrong type, an unknown field and a bad int-or-string" {
	local c=$BATS_TEST_DIRNAME/cases/k8s
	sed 's/"backoffLimit":	0/"backoffLimit":	"zero", "bogusField": 1/' "$c/job/expected.json" >"$BATS_TEST_TMPDIR/bad.json"
	run -1 validate batch_v1_job "$BATS_TEST_TMPDIR/bad.json"
	[[ $output == *"/spec/backoffLimit: is not of type integer"* ]]
	[[ $output == *"/spec/bogusField: is an unknown field"* ]]
	sed 's/"medium":	"Memory"/"medium": "Memory", "sizeLimit": [1]/' "$c/mpijob/expected.json" >"$BATS_TEST_TMPDIR/bad2.json"
	run -1 validate kubeflow.org_v2beta1_mpijob "$BATS_TEST_TMPDIR/bad2.json"
	[[ $output == *"sizeLimit: is neither an integer nor a string"* ]]
}

@test "the manifests of the CloudAI Kubernetes system validate (Sleep as Job, NcclTest as MPIJob)" {
	need_cloudai
	local C=$SHARED/cloudai-compat/conf f n=0 s
	for s in sleep nccl_test; do
		"$KUNAI" gen --system-config "$C/system/kubernetes_cluster.toml" --tests-dir "$C/test" \
			--test-scenario "$C/test_scenario/$s.toml" -o "$BATS_TEST_TMPDIR/$s" >/dev/null
	done
	for f in $(find "$BATS_TEST_TMPDIR/sleep" "$BATS_TEST_TMPDIR/nccl_test" -name k8s.json | sort); do
		case $(sed -n 's/^	"kind":	"\(.*\)",$/\1/p' "$f") in
		Job) validate batch_v1_job "$f" ;;
		JobSet) validate jobset.x-k8s.io_v1alpha2 "$f" ;;
		MPIJob) validate kubeflow.org_v2beta1_mpijob "$f" ;;
		esac
		n=$((n + 1))
	done
	echo "$n manifests validated"
	[ "$n" -ge 9 ]
}

@test "node_selector and tolerations: located errors for what Kubernetes would refuse" {
	local d=$BATS_TEST_DIRNAME/cases/k8s/placement c=$BATS_TEST_TMPDIR/c
	mkdir -p "$c"
	cp -r "$d/tests" "$d/scenario.toml" "$c/"
	cat >"$c/system.toml" <<-'T'
	name = "bad"
	scheduler = "kubernetes"
	install_path = "./install"
	output_path = "./results"
	[node_selector]
	"bad key!" = "x"
	zone = "-edge"
	count = 3
	[[tolerations]]
	operator = "exists"
	effect = "NoSchedule"
	colour = "red"
	[[tolerations]]
	key = "k"
	operator = "Exists"
	value = "v"
	toleration_seconds = 5
	T
	run -1 "$KUNAI" gen --system-config "$c/system.toml" --tests-dir "$c/tests" --test-scenario "$c/scenario.toml" \
		-o "$BATS_TEST_TMPDIR/out"
	echo "$output"
	[[ $output == *"system.toml:6:1: error: node_selector: 'bad key!' is not a label key: it must be letters, digits"* ]]
	[[ $output == *"system.toml:7:8: error: node_selector 'zone': '-edge' is not a label value"* ]]
	[[ $output == *"system.toml:8:9: error: node_selector 'count' must be a string, not an integer"* ]]
	[[ $output == *"system.toml:10:12: error: toleration operator 'exists' is not Equal or Exists"* ]]
	[[ $output == *"system.toml:12:1: error: unknown key 'colour'"* ]]
	[[ $output == *"system.toml:16:9: error: a toleration with operator Exists takes no value"* ]]
	[[ $output == *"system.toml:17:22: error: toleration_seconds needs effect = \"NoExecute\""* ]]
	[ ! -e "$BATS_TEST_TMPDIR/out/build.ninja" ]
}
