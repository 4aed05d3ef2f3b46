#!/usr/bin/env bats
# The workload image (workloads/Containerfile, make image), built and run for
# real with podman: kunai's acceptance programs run and graded inside it with
# the metrics they have on the host; all-reduce across two containers, one
# rank each, through their sshd on port 222 as an MPIJob's launcher reaches
# its workers; the .sqsh export that enroot and pyxis import. Skipped, with
# the reason, where podman cannot run containers (tests/podman.bash).
bats_require_minimum_version 1.5.0
load podman

setup_file() {
	image_setup
}

setup() {
	need_image
	W=$BATS_TEST_TMPDIR
	# this bats process's containers, removed by teardown whatever happens
	LABEL=image-$$
}

teardown() {
	podman_cleanup "$LABEL"
}

# outcome FILE: a report.json's outcome
outcome() {
	"$BATS_TEST_DIRNAME/jsonquery" "$1" outcome
}

# metrics FILE: the names of a report.json's metrics, sorted
metrics() {
	"$BATS_TEST_DIRNAME/jsonquery" "$1" metrics | grep -o '"[^"]*":' | tr -d '":' | sort | paste -sd' ' -
}

@test "the acceptance programs run in the image and kunai grade finds the metrics they have on the host" {
	local C=$W/c r
	mkdir -p "$C/tests" "$W/bin"
	printf 'name = "local"\nscheduler = "standalone"\ninstall_path = "./install"\noutput_path = "./results"\n' \
		>"$C/system.toml"
	for r in health gemm train_smoke allreduce; do
		cp "$BATS_TEST_DIRNAME/../conf/test/kunai_$r.toml" "$C/tests/"
	done
	cat >"$C/scenario.toml" <<-'EOF'
	name = "in_image"
	[[Tests]]
	id = "health"
	test_name = "kunai_health"
	[[Tests]]
	id = "gemm"
	test_name = "kunai_gemm"
	cmd_args = { size = 256, reps = 1 }
	[[Tests]]
	id = "train_smoke"
	test_name = "kunai_train_smoke"
	[[Tests]]
	id = "allreduce"
	test_name = "kunai_allreduce"
	cmd_args = { maxbytes = "1M", iters = 5, warmup = 1 }
	EOF
	for b in host img; do
		(cd "$C" && "$KUNAI" gen --system-config system.toml --tests-dir tests --test-scenario scenario.toml \
			-o "$W/$b") >/dev/null
	done
	# the image's kunai runs every job (and the programs, the image's) in a
	# container of its own that sees the build dir at the same path
	cat >"$W/bin/kunai" <<-EOF
	#!/bin/sh
	exec podman run --rm --network=host --hostname kunai-image --label kunai.test=$LABEL \\
		-v "$W:$W" -w "\$PWD" "$IMAGE" kunai "\$@"
	EOF
	chmod +x "$W/bin/kunai"
	sed -i "s|^kunai = .*|kunai = $W/bin/kunai|" "$W/img/local.ninja"
	run "$NINJA" -C "$W/host" -k 0 run
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	run "$NINJA" -C "$W/img" -k 0 run
	[ "$status" -eq 0 ] || { echo "$output"; cat "$W"/img/*/0/std*.txt; false; }
	for r in health gemm train_smoke allreduce; do
		(cd "$W/host" && "$KUNAI" grade "$r/0/report.json")
		(cd "$W/img" && "$W/bin/kunai" grade "$r/0/report.json")
		# the same outcome: passed (health: skipped where nvidia-smi is absent)
		[ "$(outcome "$W/img/$r/0/report.json")" = "$(outcome "$W/host/$r/0/report.json")" ] ||
			{ cat "$W/img/$r/0/report.json"; false; }
		case $r in
		health) [[ $(outcome "$W/img/$r/0/report.json") == passed || $(outcome "$W/img/$r/0/report.json") == skipped ]] ;;
		*) [ "$(outcome "$W/img/$r/0/report.json")" = passed ] ;;
		esac
		# it ran in the image's container, with the image's programs
		grep -q '"nodes":	"kunai-image"' "$W/img/$r/0/report.json"
		echo "$r: host: $(metrics "$W/host/$r/0/report.json")"
		echo "$r: image: $(metrics "$W/img/$r/0/report.json")"
		[ $r = health ] || [ -n "$(metrics "$W/img/$r/0/report.json")" ]
		[ "$(metrics "$W/host/$r/0/report.json")" = "$(metrics "$W/img/$r/0/report.json")" ]
	done
	grep -q '^\[ALLREDUCE\] 2 ranks, MPI' "$W/img/allreduce/0/stdout.txt"
	[ -z "$(podman ps -aq --filter "label=kunai.test=$LABEL")" ]
}

@test "all-reduce across two containers: mpirun over SSH to their sshd on 127.0.0.2:222 and 127.0.0.3:222" {
	local C=$W/c launcher worker n
	mkdir -p "$C/tests"
	port_closed 127.0.0.2 222 && port_closed 127.0.0.3 222 || skip "something already listens on port 222"
	# the MPIJob kunai gen writes for a KunaiAllReduce of two nodes
	printf 'name = "k"\nscheduler = "kubernetes"\nkube_config_path = ""\ndefault_namespace = "t"\n' >"$C/system.toml"
	printf 'install_path = "./install"\noutput_path = "./results"\ngpus_per_node = 1\n' >>"$C/system.toml"
	printf 'name = "allreduce"\ndescription = "d"\ntest_template_name = "KunaiAllReduce"\n' >"$C/tests/a.toml"
	printf '[cmd_args]\ncpu = true\nmaxbytes = "1M"\niters = 5\nwarmup = 1\n' >>"$C/tests/a.toml"
	printf 'name = "s"\n[[Tests]]\nid = "a"\ntest_name = "allreduce"\nnum_nodes = 2\n' >"$C/scenario.toml"
	(cd "$C" && "$KUNAI" gen --system-config system.toml --tests-dir tests --test-scenario scenario.toml \
		-o "$W/b") >/dev/null
	launcher=$("$BATS_TEST_DIRNAME/jsonquery" "$W/b/a/0/k8s.json" spec.mpiReplicaSpecs.Launcher.template.spec.containers.0.command.2)
	worker=$("$BATS_TEST_DIRNAME/jsonquery" "$W/b/a/0/k8s.json" spec.mpiReplicaSpecs.Worker.template.spec.containers.0.command.2)
	[ "$worker" = "/usr/sbin/sshd -De -p 222" ]
	[[ $launcher == "mpirun --allow-run-as-root -np 2 "*" -mca plm_rsh_args '-p 222 "* ]]
	# each worker is a pod of its own address: its sshd listens there only (and
	# for 300 s at most, should this process be killed before its teardown)
	for n in 2 3; do
		echo "ListenAddress 127.0.0.$n" >"$W/listen$n.conf"
		podman run -d --rm --network=host --hostname "worker-$n" --label "kunai.test=$LABEL" \
			-v "$W/listen$n.conf:/etc/ssh/sshd_config.d/00-listen.conf:ro" "$IMAGE" timeout 300 bash -c "$worker" >/dev/null
	done
	# the launcher as the MPI operator sets it up: a hostfile of the workers;
	# all of them share this machine's loopback, where Open MPI must look
	printf '127.0.0.2 slots=1\n127.0.0.3 slots=1\n' >"$W/hostfile"
	run podman run --rm --network=host --hostname launcher --label "kunai.test=$LABEL" \
		-v "$W/hostfile:/etc/mpi/hostfile:ro" -e OMPI_MCA_orte_default_hostfile=/etc/mpi/hostfile \
		-e OMPI_MCA_btl_tcp_if_include=lo -e OMPI_MCA_oob_tcp_if_include=lo "$IMAGE" \
		bash -c "mpirun --allow-run-as-root -np 2 -mca plm_rsh_args '-p 222' hostname; $launcher"
	echo "$output"
	[ "$status" -eq 0 ]
	# one rank in each worker container
	[ "$(echo "$output" | grep -c '^worker-[23]$')" -eq 2 ]
	echo "$output" | grep -qx worker-2
	echo "$output" | grep -qx worker-3
	[[ $output == *"[ALLREDUCE] 2 ranks, MPI: largest busbw "*" GB/s at "*", 0 wrong elements"* ]]
	[[ $output == *"[RESULT] SUCCESS"* ]]
	podman_cleanup "$LABEL"
	[ -z "$(podman ps -aq --filter "label=kunai.test=$LABEL")" ]
	port_closed 127.0.0.2 222
	port_closed 127.0.0.3 222
}

@test "the .sqsh export is a squashfs that enroot and pyxis import, with kunai and its programs" {
	command -v unsquashfs >/dev/null || skip "no unsquashfs (apt-get install squashfs-tools)"
	local top=$BATS_TEST_DIRNAME/.. p
	(cd "$top" && sh workloads/container/image.sh --version "${VERSION:-0.1.0}" --sqsh "$W/k.sqsh") >/dev/null
	run unsquashfs -s "$W/k.sqsh"
	[ "$status" -eq 0 ]
	[[ $output == *"Found a valid SQUASHFS 4:0 superblock"* ]]
	unsquashfs -l "$W/k.sqsh" >"$W/list"
	grep -qx 'squashfs-root/usr/local/bin/kunai' "$W/list"
	for p in gemm train_smoke health allreduce ddp_smoke bisection; do
		grep -qx "squashfs-root/usr/local/share/kunai/workloads/$p" "$W/list"
	done
	grep -qx 'squashfs-root/usr/sbin/sshd' "$W/list"
	grep -qx 'squashfs-root/root/.ssh/authorized_keys' "$W/list"
	# enroot's configuration files: the command, the environment, the mounts
	unsquashfs -cat "$W/k.sqsh" etc/environment | grep -qx 'KUNAI_WORKLOADS=/usr/local/share/kunai/workloads'
	unsquashfs -cat "$W/k.sqsh" etc/rc | grep -q 'exec "/usr/sbin/sshd" "-D" "-e"'
	grep -qx 'squashfs-root/etc/fstab' "$W/list"
}
