#!/usr/bin/env bats
# CloudAI's communication and storage templates that kunai implements
# (Fio, DDLBTest): what their cmd_args accept and refuse, and, where the
# program is on this machine, a real run graded end to end. Their Slurm
# scripts are golden cases in tests/cases/slurm/{fio,ddlb}.
bats_require_minimum_version 1.5.0

setup() {
	T=$BATS_TEST_TMPDIR
	mkdir -p "$T/tests"
	printf 'name = "local"\nscheduler = "standalone"\ninstall_path = "./install"\noutput_path = "./results"\n' \
		>"$T/system.toml"
	Q="$BATS_TEST_DIRNAME/jsonquery"
}

# metric DIR NAME: a metric of DIR/report.json
metric() {
	"$Q" "$1/report.json" "metrics.$2"
}

@test "Fio on standalone: a real fio run passes with IOPS, bandwidth, latency and percentiles per operation" {
	command -v fio >/dev/null || skip "no fio (apt-get install fio)"
	cat >"$T/tests/fio.toml" <<'T'
name = "fio"
description = "fio"
test_template_name = "Fio"
[cmd_args]
metric_operation = "write"
metric_name = "iops"
[cmd_args.args]
name = "smoke"
filename = "fio-test-file"
rw = "randrw"
bs = "4k"
size = "2m"
iodepth = 1
group_reporting = true
thread = false
T
	printf 'name = "fio"\n[[Tests]]\nid = "fio"\ntest_name = "fio"\n' >"$T/scenario.toml"
	run "$KUNAI" run --system-config "$T/system.toml" --tests-dir "$T/tests" --test-scenario "$T/scenario.toml" -o "$T/out"
	[ "$status" -eq 0 ] || { echo "$output"; cat "$T/out/fio/0/stderr.txt"; return 1; }
	local r=$T/out/fio/0 m
	[ "$("$Q" "$r/report.json" outcome)" = passed ]
	for m in read_iops read_bw read_latency read_clat_p50 read_clat_p99 write_iops write_bw write_latency default; do
		metric "$r" "$m" | grep -Eq '^[0-9.e+]+$' || { echo "no $m"; cat "$r/report.json"; return 1; }
	done
	# the default metric is what metric_* chose: write IOPS
	[ "$(metric "$r" default)" = "$(metric "$r" write_iops)" ]
	grep -q -- '--thread' "$r/run.sh" && return 1
	grep -q -- "fio --name=smoke --filename=fio-test-file --rw=randrw --bs=4k --size=2m --iodepth=1 --group_reporting" "$r/run.sh"
}

@test "Fio: output without a summary is a failed run with the reason, not a crash" {
	cat >"$T/tests/fio.toml" <<'T'
name = "fio"
description = "fio"
test_template_name = "Fio"
[cmd_args]
fio_binary = "echo"
[cmd_args.args]
rw = "IOPS=garbled"
T
	printf 'name = "fio"\n[[Tests]]\nid = "fio"\ntest_name = "fio"\n' >"$T/scenario.toml"
	run "$KUNAI" run --system-config "$T/system.toml" --tests-dir "$T/tests" --test-scenario "$T/scenario.toml" -o "$T/out"
	[ "$status" -eq 1 ]
	[ "$("$Q" "$T/out/fio/0/report.json" outcome)" = failed ]
	[[ "$("$Q" "$T/out/fio/0/report.json" reason)" == *"no summary"* ]]
}

@test "Fio and DDLBTest: bad cmd_args are located errors" {
	cat >"$T/tests/fio.toml" <<'T'
name = "fio"
description = "fio"
test_template_name = "Fio"
[cmd_args]
metric_name = "speed"
num_tasks_per_node = "two"
fio_bin = "fio"
[cmd_args.args]
rw = ["read", []]
T
	cat >"$T/tests/ddlb.toml" <<'T'
name = "ddlb"
description = "ddlb"
test_template_name = "DDLBTest"
[cmd_args]
docker_image_url = "x"
primitive = "tp_columnwise"
T
	run --separate-stderr "$KUNAI" verify-configs "$T/tests"
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"fio.toml:5:15: error: 'metric_name' must be one of bw, iops, latency"* ]]
	[[ "$stderr" == *"fio.toml:6:22: error: 'num_tasks_per_node' must be an integer"* ]]
	[[ "$stderr" == *"fio.toml:7:1: error: unknown key 'fio_bin'"* ]]
	[[ "$stderr" == *"fio.toml:9:15: error: 'args.rw' must hold single values, not an array"* ]]
	[[ "$stderr" == *"ddlb.toml:"*"missing required key 'dtype' in cmd_args"* ]]
}
