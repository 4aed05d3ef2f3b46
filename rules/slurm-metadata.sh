#!/bin/sh
# slurm-metadata.sh: kunai's description of the node it runs on, as TOML on
# stdout (one file per node: the job script runs it with srun
# --ntasks-per-node=1 --output=metadata/node-%N.toml). The tables and keys
# are those of CloudAI's metadata files, so tools that read CloudAI's read
# these. A value that cannot be found is "null". POSIX sh; no tool is
# required, each missing one gives null.

# q VALUE: VALUE as a TOML basic string ("null" when empty)
q() {
	v=$(printf '%s' "$1" | head -n 1 | tr -d '\000-\037\177' | sed 's/\\/\\\\/g; s/"/\\"/g')
	printf '"%s"' "${v:-null}"
}

have() { command -v "$1" >/dev/null 2>&1; }

os_id=null os_version=null
if [ -r /etc/os-release ]; then
	os_id=$(sed -n 's/^ID=//p' /etc/os-release | tr -d '"')
	os_version=$(sed -n 's/^VERSION=//p' /etc/os-release | tr -d '"')
fi
gpu=
if have nvidia-smi; then
	gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -n 1)
	smi=$(nvidia-smi 2>/dev/null)
	cuda_rt=$(printf '%s\n' "$smi" | sed -n 's/.*CUDA Version: *\([0-9.]*\).*/\1/p' | head -n 1)
	driver=$(printf '%s\n' "$smi" | sed -n 's/.*Driver Version: *\([0-9.]*\).*/\1/p' | head -n 1)
fi
cpu_model= cpu_arch=$(uname -m 2>/dev/null)
if have lscpu; then
	cpu_model=$(lscpu 2>/dev/null | sed -n 's/^Model name:[[:space:]]*//p')
elif [ -r /proc/cpuinfo ]; then
	cpu_model=$(sed -n 's/^model name[[:space:]]*:[[:space:]]*//p' /proc/cpuinfo | head -n 1)
fi
mpi_type= mpi_version=
if have mpirun && mpirun --version 2>/dev/null | grep -qi 'open mpi'; then
	mpi_type=openmpi
	mpi_version=$(mpirun --version 2>/dev/null | sed -n 's/.*(Open MPI) *\([^ ]*\).*/\1/p' | head -n 1)
fi
nics=
if have lspci; then
	nics=$(lspci 2>/dev/null | grep -E 'Ethernet controller|Infiniband controller' | grep Mellanox |
		head -n 1 | sed 's/.*: //')
fi
mofed= fabric=
have ofed_info && mofed=$(ofed_info -s 2>/dev/null | sed 's/:$//')
have fi_info && fabric=$(fi_info --version 2>/dev/null | sed -n 's/.*[Ll]ibfabric:* *\([^ ]*\).*/\1/p' | head -n 1)

cat <<END
user = $(q "${USER:-$(id -un 2>/dev/null)}")

[system]
os_type = $(q "$os_id")
os_version = $(q "$os_version")
linux_kernel_version = $(q "$(uname -r 2>/dev/null)")
gpu_arch_type = $(q "$gpu")
cpu_model_name = $(q "$cpu_model")
cpu_arch_type = $(q "$cpu_arch")

[mpi]
mpi_type = $(q "$mpi_type")
mpi_version = $(q "$mpi_version")
hpcx_version = $(q "${HPCX_DIR##*/}")

[cuda]
cuda_build_version = $(q "${CUDA_BUILD_VERSION:-}")
cuda_runtime_version = $(q "$cuda_rt")
cuda_driver_version = $(q "$driver")

[network]
nics = $(q "$nics")
switch_type = $(q "${SWITCH:-}")
network_name = $(q "${NETWORK:-}")
mofed_version = $(q "$mofed")
libfabric_version = $(q "$fabric")

[nccl]
version = $(q "${NCCL_VERSION:-}")
commit_sha = $(q "${NCCL_COMMIT_SHA:-}")

[slurm]
cluster_name = $(q "${SLURM_CLUSTER_NAME:-}")
node_list = $(q "${SLURM_NODELIST:-}")
num_nodes = $(q "${SLURM_NNODES:-}")
ntasks_per_node = $(q "${SLURM_NTASKS_PER_NODE:-}")
ntasks = $(q "${SLURM_NTASKS:-}")
job_id = $(q "${SLURM_JOBID:-}")
END
