# tests/helpers.bash: what several bats files share (`load helpers`).

# need_cloudai: CloudAI's own example configs and reference scripts are
# third-party material (SHARED=DIR, see doc/manual.md, "Building"): a test that reads them is
# skipped, with this reason, without it.
need_cloudai() {
	[ -d "$SHARED/cloudai-compat" ] || skip "no CloudAI reference material: set SHARED=DIR (see doc/manual.md, Building)"
}

# standalone_campaign DIR: DIR/system.toml, a standalone system, and
# DIR/tests/ok.toml, a BashCmd test that echoes ok
standalone_campaign() {
	mkdir -p "$1/tests"
	printf 'name = "local"\nscheduler = "standalone"\ninstall_path = "./install"\noutput_path = "./results"\n' \
		>"$1/system.toml"
	printf 'name = "ok"\ndescription = "d"\ntest_template_name = "BashCmd"\n[cmd_args]\ncmd = "echo ok"\n' \
		>"$1/tests/ok.toml"
}

# local_slurm NAME OFFSET [--accounting]: a real single-node Slurm cluster
# (tests/slurm/start) for a setup_file, its state in /tmp/kunai-slurm-NAME-$$
# and slurmctld on port KUNAI_TEST_SLURM_PORT+OFFSET (+1..+3 for slurmd,
# slurmdbd and MariaDB). Prints the SLURM_CONF to use, or nothing (status 0)
# where no cluster can run here (not root, no Slurm); status 1, and what
# went wrong instead of the SLURM_CONF, when it would not start.
local_slurm() {
	local dir=/tmp/kunai-slurm-$1-$$ out
	[ "$(id -u)" -eq 0 ] || return 0
	command -v sbatch >/dev/null && PATH=$PATH:/usr/sbin:/sbin command -v slurmctld >/dev/null || return 0
	if [ "${3:-}" = --accounting ]; then
		command -v slurmdbd >/dev/null && command -v mariadbd >/dev/null || return 0
	fi
	out=$(SLURM_LOCAL_CPUS=8 SLURM_LOCAL_PORT=$((${KUNAI_TEST_SLURM_PORT:-$((24000 + ($$ % 500) * 4))} + $2)) \
		"$BATS_TEST_DIRNAME/slurm/start" ${3:+"$3"} "$dir" 2>&1) || { echo "slurm/start: $out"; return 1; }
	echo "${out##*SLURM_CONF=}"
}

# local_slurm_stop NAME: stops and removes local_slurm NAME's cluster
local_slurm_stop() {
	local dir=/tmp/kunai-slurm-$1-$$
	[ -d "$dir" ] || return 0
	"$BATS_TEST_DIRNAME/slurm/stop" "$dir" >/dev/null 2>&1
	rm -rf "$dir"
}
