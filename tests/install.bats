#!/usr/bin/env bats
# install / uninstall as build.ninja's own edges: each installable once, run
# edges waiting for them order-only, real git on repositories made here, a
# stand-in enroot on PATH (no registry is reachable) that can succeed, fail
# or hang, and the srun path on a real single-node Slurm (tests/slurm/start,
# plain) when this machine can start one.
bats_require_minimum_version 1.5.0

setup() {
	W=$BATS_TEST_TMPDIR
	mkdir -p "$W/c/tests" "$W/bin"
	command -v git >/dev/null || skip "no git (apt-get install git): the installables are git repositories made here"
	git init -q "$W/repo"
	(
		cd "$W/repo"
		echo one >f
		git add f
		git -c user.email=k@x -c user.name=k commit -qm one
		git tag v1
		echo two >f
		git -c user.email=k@x -c user.name=k commit -qam two
	)
	# enroot's stand-in: writes its -o file as it goes, then ENROOT_MODE
	# says how it ends (ok, fail, hang)
	cat >"$W/bin/enroot" <<'T'
#!/bin/sh
[ "$1" = import ] && [ "$2" = -o ] || { echo "enroot stand-in: unexpected $*" >&2; exit 2; }
echo "$*" >>"${ENROOT_LOG:-/dev/null}"
printf 'partial' >"$3"
case ${ENROOT_MODE:-ok} in
fail) echo "enroot stand-in: [ERROR] no registry" >&2; exit 1 ;;
hang) echo started >"$ENROOT_LOG.started"; sleep 30 ;;
esac
printf 'squashfs of %s\n' "$4" >"$3"
T
	chmod +x "$W/bin/enroot"
	cd "$W/c"
	system true
	cat >tests/b.toml <<T
name = "b"
description = "d"
test_template_name = "BashCmd"
[cmd_args]
cmd = "cat ../../install/repo__v1/f"
[[git_repos]]
url = "$W/repo"
commit = "v1"
T
	for n in n1 n2; do
		printf 'name = "%s"\ndescription = "d"\ntest_template_name = "NcclTest"\n[cmd_args]\nsubtest_name = "all_reduce_perf_mpi"\ndocker_image_url = "nvcr.io/nvidia/pytorch:24.02-py3"\n' \
			$n >tests/$n.toml
	done
	printf 'name = "n3"\ndescription = "d"\ntest_template_name = "NcclTest"\n[cmd_args]\nsubtest_name = "all_reduce_perf_mpi"\ndocker_image_url = "nvcr.io#nvidia/pytorch:25.01-py3"\n' \
		>tests/n3.toml
	cat >scenario.toml <<'T'
name = "s"
[[Tests]]
id = "a"
test_name = "b"
iterations = 2
[[Tests]]
id = "x1"
test_name = "n1"
[[Tests]]
id = "x2"
test_name = "n2"
[[Tests]]
id = "x3"
test_name = "n3"
T
}

# system CACHE: a slurm system, install_path ./install (beside the runs)
system() {
	cat >system.toml <<T
name = "tc"
scheduler = "slurm"
install_path = "./install"
output_path = "./results"
default_partition = "debug"
cache_docker_images_locally = $1
[[partitions]]
name = "debug"
T
}

k() {
	"$KUNAI" "$1" --system-config system.toml --tests-dir tests --test-scenario scenario.toml -o out "${@:2}"
}

@test "one install edge per distinct installable, run edges wait for theirs order-only, byte-stable" {
	run k gen
	[ "$status" -eq 0 ]
	b=out/build.ninja
	# two images (n1 and n2 share one), the repository, the metadata script
	[ "$(grep -c '^build installables/.*\.stamp: install ' $b)" -eq 4 ]
	grep -q '^build installables/nvcr.io_nvidia__pytorch__24.02-py3.sqsh.stamp: install installables/nvcr.io_nvidia__pytorch__24.02-py3.sqsh.spec$' $b
	grep -q '^build installables/nvcr.io_nvidia__pytorch__25.01-py3.sqsh.stamp: install ' $b
	grep -q '^build installables/slurm-metadata.sh.stamp: install installables/slurm-metadata.sh.spec | \$rulesdir/slurm-metadata.sh$' $b
	# each distinct set of needs is one phony, which the run edges name
	grep -q '^build a/0/kunai.stamp: run || installables/set-1$' $b
	# a later iteration waits for the one before, which waited for the set
	grep -q '^build a/1/kunai.stamp: run || a/0/kunai.stamp$' $b
	grep -q '^build installables/set-1: phony installables/slurm-metadata.sh.stamp installables/repo__v1.stamp$' $b
	grep -q '^build x1/0/kunai.stamp: run || installables/set-2$' $b
	grep -q '^build x2/0/kunai.stamp: run || installables/set-2$' $b
	grep -q '^build installables/set-2: phony installables/slurm-metadata.sh.stamp installables/nvcr.io_nvidia__pytorch__24.02-py3.sqsh.stamp$' $b
	[ "$(grep -c '^build installables/set-' $b)" -eq 3 ]
	grep -q '^build uninstall: uninstall installables/.*\.spec | always$' $b
	grep -q '^srun srun --export=ALL --partition=debug -N1 --ntasks=1 --job-name=kunai_install_image$' \
		out/installables/nvcr.io_nvidia__pytorch__25.01-py3.sqsh.spec
	grep -q '^url nvcr.io#nvidia/pytorch:25.01-py3$' out/installables/nvcr.io_nvidia__pytorch__25.01-py3.sqsh.spec
	# the scripts name the same file
	grep -q 'INSTALL_DIR}\{0,1\}/nvcr.io_nvidia__pytorch__24.02-py3.sqsh' out/x1/0/cloudai_sbatch_script.sh
	# the same bytes from another directory; a second gen rewrites nothing
	mkdir ../d2 && cp -R system.toml tests scenario.toml ../d2/
	(cd ../d2 && "$KUNAI" gen --system-config system.toml --tests-dir tests --test-scenario scenario.toml -o out2 >/dev/null)
	cmp out/build.ninja ../d2/out2/build.ninja
	for f in out/installables/*.spec; do cmp "$f" "../d2/out2/installables/${f##*/}"; done
	touch -d '2001-01-01' out/installables/*.spec
	k gen >/dev/null
	[ -z "$(find out/installables -newer out/build.ninja -name '*.spec')" ]
	[ "$(stat -c %Y out/installables/repo__v1.spec)" -lt 1000000000 ]
	# without the image cache pyxis pulls: no image edges
	system false
	k gen >/dev/null
	[ "$(grep -c '^build installables/.*\.stamp: install ' $b)" -eq 2 ]
	# CloudAI's --enable-cache-without-check: the runs wait for nothing
	k gen --enable-cache-without-check >/dev/null
	! grep -q '^build a/0/kunai.stamp: .*installables' $b
	! grep -q '^build installables/set-' $b
	grep -q '^build install: phony installables/slurm-metadata.sh.stamp installables/repo__v1.stamp$' $b
}

@test "a run that starts after a test of the same installs waits for them through it; other installs it names" {
	cat >>scenario.toml <<'T'
[[Tests]]
id = "y1"
test_name = "n1"
  [[Tests.dependencies]]
  type = "start_post_comp"
  id = "x1"
[[Tests]]
id = "y2"
test_name = "n1"
  [[Tests.dependencies]]
  type = "start_post_comp"
  id = "a"
[[Tests]]
id = "y3"
test_name = "n2"
  [[Tests.dependencies]]
  type = "start_post_init"
  id = "x2"
[[Tests]]
id = "y4"
test_name = "n1"
  [[Tests.dependencies]]
  type = "end_post_comp"
  id = "x1"
T
	run k gen
	[ "$status" -eq 0 ]
	b=out/build.ninja
	grep -qx 'build y1/0/kunai.stamp: run || x1/0/kunai.stamp' $b
	grep -qx 'build y2/0/kunai.stamp: run || a installables/set-2' $b
	grep -qx 'build y3/0/kunai.stamp: run || x2/0/kunai.started' $b
	grep -qx 'build x2/0/kunai.started: start || installables/set-2' $b
	grep -qx 'build y4/0/kunai.stamp: run || installables/set-2 |@ x1/0/kunai.stamp' $b
	# what y1 needs is built before it all the same: set-2's image, then x1
	run ninja -C out -n y1
	[ "$status" -eq 0 ]
	[ "$(printf '%s\n' "$output" | sed -n 's/^\[[0-9/]*\] //p' | grep -v '^Regenerating' | awk '{ print $2 }' | tr '\n' ' ')" = \
		"installables/slurm-metadata.sh.stamp installables/nvcr.io_nvidia__pytorch__24.02-py3.sqsh.stamp x1/0/kunai.stamp y1/0/kunai.stamp " ]
}

@test "kunai install: a repository at its commit, the metadata script; nothing twice; uninstall removes exactly that" {
	system false
	mkdir -p out/install
	echo mine >out/install/keep.txt
	echo outside >outside.txt
	run k install
	[ "$status" -eq 0 ]
	[ "$(cat out/install/repo__v1/f)" = one ]
	cmp out/install/slurm-metadata.sh "$(dirname "$KUNAI")/rules/slurm-metadata.sh"
	[ -f out/installables/repo__v1.stamp ]
	run "${NINJA:-ninja}" -C out install
	[ "$status" -eq 0 ]
	[[ "$output" == *"no work to do"* ]]
	# the metadata script writes TOML that kunai reads
	sh out/install/slurm-metadata.sh >md.toml
	"$KUNAI" toml2json md.toml >/dev/null
	grep -q '^\[slurm\]$' md.toml
	# removed by hand: the next install finds the stamp gone? no, the file:
	# present things are kept (a clone already there is not cloned again)
	rm out/installables/repo__v1.stamp
	echo local-change >>out/install/repo__v1/f
	run k install
	[ "$status" -eq 0 ]
	[[ "$output" == *"installed already"* ]]
	grep -q local-change out/install/repo__v1/f
	run k uninstall
	[ "$status" -eq 0 ]
	[ ! -e out/install/repo__v1 ]
	[ ! -e out/install/slurm-metadata.sh ]
	[ ! -e out/installables/repo__v1.stamp ]
	[ "$(cat out/install/keep.txt)" = mine ]
	[ "$(cat outside.txt)" = outside ]
	[ "$(ls -A out/install)" = keep.txt ]
}

@test "a failed clone or checkout leaves nothing that looks installed; a checkout at another commit is refused" {
	system false
	sed -i 's/commit = "v1"/commit = "no-such-commit"/' tests/b.toml
	run k install
	[ "$status" -ne 0 ]
	[[ "$output" == *"installing install/repo__no-such-commit"*"failed"* ]]
	[ ! -e out/install/repo__no-such-commit ]
	[ -z "$(ls -A out/install | grep kunai-part)" ]
	[ ! -e out/installables/repo__no-such-commit.stamp ]
	# a directory of that name at another commit is not taken, nor replaced
	sed -i 's/commit = "no-such-commit"/commit = "v1"/' tests/b.toml
	git clone -q "$W/repo" out/install/repo__v1
	run k install
	[ "$status" -ne 0 ]
	[[ "$output" == *"not a checkout of $W/repo at v1"* ]]
	[ "$(cat out/install/repo__v1/f)" = two ]
}

@test "a python environment from a repository (spec run directly): made under a temporary name, then renamed" {
	command -v python3 >/dev/null && python3 -c 'import venv, ensurepip' 2>/dev/null ||
		skip "no python3 with venv and ensurepip"
	mkdir -p b/installables b/inst/proj
	: >b/inst/proj/requirements.txt
	printf '%s\n' 'kind venv' 'url x' 'repo proj' 'install_dir inst' 'dest proj-venv' >b/installables/v.spec
	(cd b && "$KUNAI" installable install installables/v.stamp)
	[ -x b/inst/proj-venv/bin/python ]
	b/inst/proj-venv/bin/python -c 'import sys; assert sys.prefix != sys.base_prefix'
	cmp b/installables/v.spec b/installables/v.stamp
	[ -z "$(ls -A b/inst | grep kunai-part)" ]
	# a spec that points outside install_dir is refused
	printf '%s\n' 'kind file' 'url slurm-metadata.sh' 'install_dir inst' 'dest ../escape' >b/installables/e.spec
	run -1 sh -c 'cd b && "$KUNAI" installable install installables/e.stamp'
	[[ "$output" == *"'../escape' is not a path under install_path"* ]]
	run -1 sh -c 'cd b && "$KUNAI" installable uninstall installables/e.spec'
	[ -d b/inst ]
}

# The image path needs srun: a real plain cluster, started here.
start_cluster() {
	[ "$(id -u)" -eq 0 ] || skip "needs root (the test cluster runs its daemons as root)"
	command -v srun >/dev/null && command -v sbatch >/dev/null || skip "no srun (apt-get install slurm-wlm)"
	PATH=$PATH:/usr/sbin:/sbin
	command -v slurmctld >/dev/null && command -v munged >/dev/null || skip "no slurmctld/munged"
	CLUSTER=/tmp/kunai-slurm-inst-$$
	local out
	out=$(SLURM_LOCAL_CPUS=8 SLURM_LOCAL_PORT=$((${KUNAI_TEST_SLURM_PORT:-$((22992 + ($$ % 500) * 4))} + 8)) \
		"$BATS_TEST_DIRNAME/slurm/start" "$CLUSTER" 2>&1) || { echo "slurm/start: $out"; return 1; }
	export SLURM_CONF=${out##*SLURM_CONF=}
}

teardown() {
	if [ -n "${CLUSTER:-}" ] && [ -d "$CLUSTER" ]; then
		"$BATS_TEST_DIRNAME/slurm/stop" "$CLUSTER" >/dev/null 2>&1
		rm -rf "$CLUSTER"
	fi
}

@test "images through srun on a real Slurm with a stand-in enroot: once, failed and interrupted leave no image, ninja run installs first" {
	start_cluster
	export PATH=$W/bin:$PATH ENROOT_LOG=$W/enroot.log
	# only the BashCmd test and one image: the others need GPUs
	cat >scenario.toml <<'T'
name = "s"
[[Tests]]
id = "a"
test_name = "b"
T
	cat >tests/img.toml <<'T'
name = "img"
description = "d"
test_template_name = "BashCmd"
[cmd_args]
cmd = "true"
T
	k gen >/dev/null
	# a failing import: no image, no temporary file, no stamp
	sed -i 's/^cache_docker_images_locally = .*/cache_docker_images_locally = true/' system.toml
	printf '[[Tests]]\nid = "x1"\ntest_name = "n1"\n' >>scenario.toml
	k gen >/dev/null
	ENROOT_MODE=fail run "${NINJA:-ninja}" -C out installables/nvcr.io_nvidia__pytorch__24.02-py3.sqsh.stamp
	[ "$status" -ne 0 ]
	[[ "$output" == *"no registry"* ]]
	[ ! -e out/install/nvcr.io_nvidia__pytorch__24.02-py3.sqsh ]
	[ -z "$(ls -A out/install | grep kunai-part)" ]
	# an interrupted one (SIGINT to ninja, as Ctrl-C): the same
	ENROOT_MODE=hang "${NINJA:-ninja}" -C out installables/nvcr.io_nvidia__pytorch__24.02-py3.sqsh.stamp \
		>ninja.log 2>&1 3>&- &
	pid=$!
	for _ in $(seq 100); do [ -e "$ENROOT_LOG.started" ] && break; sleep 0.1; done
	[ -e "$ENROOT_LOG.started" ]
	kill -INT $pid
	wait $pid || true
	[ ! -e out/install/nvcr.io_nvidia__pytorch__24.02-py3.sqsh ]
	[ -z "$(ls -A out/install | grep kunai-part)" ]
	[ ! -e out/installables/nvcr.io_nvidia__pytorch__24.02-py3.sqsh.stamp ]
	# the import runs through srun, once; the run of a waits for its installs
	: >"$ENROOT_LOG"
	run "${NINJA:-ninja}" -C out a
	[ "$status" -eq 0 ]
	[ -e out/install/repo__v1/f ]
	[ -e out/a/0/kunai.stamp ]
	[ "$(cat out/a/0/stdout.txt)" = one ]
	run "${NINJA:-ninja}" -C out install
	[ "$status" -eq 0 ]
	grep -q '^squashfs of docker://nvcr.io/nvidia/pytorch:24.02-py3$' out/install/nvcr.io_nvidia__pytorch__24.02-py3.sqsh
	[ "$(grep -c 'import -o /.*/\.nvcr.io_nvidia__pytorch__24.02-py3.sqsh.kunai-part-[0-9]* docker://nvcr.io/nvidia/pytorch:24.02-py3$' "$ENROOT_LOG")" -eq 1 ]
	# the job's metadata srun found the script: a node file, no exit 127
	grep -q '^\[slurm\]$' out/a/0/metadata/node-*.toml
	! grep -q 'exit code 127' out/a/0/metadata/nodes.err 2>/dev/null
	# nothing twice
	run "${NINJA:-ninja}" -C out install
	[[ "$output" == *"no work to do"* ]]
	[ "$(wc -l <"$ENROOT_LOG")" -eq 1 ]
	run k uninstall
	[ "$status" -eq 0 ]
	[ ! -e out/install/nvcr.io_nvidia__pytorch__24.02-py3.sqsh ]
	[ ! -e out/install/repo__v1 ]
	# installing again (new stamps) does not rerun a run that passed: order-only
	run "${NINJA:-ninja}" -C out a
	[ "$status" -eq 0 ]
	[[ "$output" == *"INSTALL installables/repo__v1.stamp"* ]]
	[[ "$output" != *"RUN a/0"* ]]
	[ -e out/install/repo__v1/f ]
}

@test "a commit with a '/' installs into a folder of its own, and uninstall removes that folder too" {
	system false
	git -C "$W/repo" branch rel/x v1
	sed -i 's/commit = "v1"/commit = "rel\/x"/' tests/b.toml
	run k install
	[ "$status" -eq 0 ]
	[ "$(cat out/install/repo__rel/x/f)" = one ]
	ls out/installables/repo__rel_x-*.stamp
	run k uninstall
	[ "$status" -eq 0 ]
	[ "$(ls -A out/install)" = "" ]
}

@test "ninja install quotes extra_srun_args word by word, as the job scripts do: nothing of it runs as shell" {
	export PATH=$W/bin:$PATH ENROOT_LOG=$W/enroot.log SRUN_LOG=$W/srun.log
	# srun's stand-in: records its arguments one a line, runs the command after them
	cat >"$W/bin/srun" <<'T'
#!/bin/sh
printf '%s\n' "$@" >>"$SRUN_LOG"
while [ "$1" != --job-name=kunai_install_image ]; do shift; done
shift
exec "$@"
T
	chmod +x "$W/bin/srun"
	system true
	sed -i '/^default_partition/a extra_srun_args = "--reservation=r;touch ../pwned $(touch ../pwned2)"' system.toml
	printf 'name = "s"\n[[Tests]]\nid = "x1"\ntest_name = "n1"\n' >scenario.toml
	k gen >/dev/null
	grep -q "^srun srun --export=ALL --partition=debug '--reservation=r;touch' ../pwned '\$(touch' '../pwned2)' -N1" \
		out/installables/nvcr.io_nvidia__pytorch__24.02-py3.sqsh.spec
	# the job script has the same words
	grep -q "'--reservation=r;touch' ../pwned '\$(touch' '../pwned2)'" out/x1/0/cloudai_sbatch_script.sh
	run "${NINJA:-ninja}" -C out install
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	grep -qx -- '--reservation=r;touch' "$SRUN_LOG"
	grep -qx -- '$(touch' "$SRUN_LOG"
	[ ! -e pwned ]
	[ ! -e pwned2 ]
	[ ! -e out/pwned ]
	[ ! -e out/pwned2 ]
}

@test "a run that needs one installable names it through its set's short phony too" {
	printf 'name = "e"\ndescription = "d"\ntest_template_name = "BashCmd"\n[cmd_args]\ncmd = "true"\n' >tests/e.toml
	printf 'name = "s"\n[[Tests]]\nid = "e"\ntest_name = "e"\niterations = 2\n' >scenario.toml
	run k gen
	[ "$status" -eq 0 ]
	grep -qx 'build e/0/kunai.stamp: run || installables/set-1' out/build.ninja
	grep -qx 'build installables/set-1: phony installables/slurm-metadata.sh.stamp' out/build.ninja
	[ "$(grep -c '^build installables/set-' out/build.ninja)" -eq 1 ]
}
