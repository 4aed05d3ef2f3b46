/* workload_types.h: what a workload is: its argument schema, what it
 * installs, and struct workload, the entry each gen/workloads/wl_*.c
 * defines. Types only; the registry and the builders' helpers are
 * workload.h. */
#ifndef KUNAI_WORKLOAD_TYPES_H
#define KUNAI_WORKLOAD_TYPES_H

#include <stdbool.h>
#include <stddef.h>

struct arena;
struct argset;
struct buf;
struct run;
struct toml_value;
struct wl_diags;

enum arg_type {
	ARG_STRING,
	ARG_INT,   /* TOML integer, or a string of digits (CloudAI coerces "100") */
	ARG_FLOAT, /* TOML float or integer, or a numeric string */
	ARG_BOOL,  /* TOML boolean, or "true"/"false"/"True"/"False" */
	ARG_SIZE,  /* integer or string like "32M", "4G" (nccl-tests sizes) */
	ARG_LIST,  /* a real list value, never a sweep dimension */
	ARG_ANY,   /* any single value (string, number, boolean), passed on as text */
	ARG_TABLE, /* a table: "T" set (as "") when cmd_args.T is an empty table */
};

/* A key "T.*" stands for every key of the table cmd_args.T (flattened to
 * "T.name"), e.g. Fio's free-form [cmd_args.args]. */
struct arg_schema {
	const char *key;
	enum arg_type type;
	const char *def;            /* default as command text; NULL: omitted unless set */
	const char *const *choices; /* NULL-terminated allowed values, or NULL */
	bool required;
};

/* What a workload needs installed before it runs, declared here and turned
 * into install edges elsewhere. url "cmd_args.KEY" means the run's value of
 * that argument (a container image chosen in the test); path NULL means
 * CloudAI's own place under the install dir (<repo>__<commit> for a git
 * repository, <repo>__<commit>-venv for its python environment). */
enum inst_kind {
	INST_IMAGE, /* container image: url */
	INST_GIT,   /* git repository: url at commit */
	INST_VENV,  /* python environment made from the INST_GIT entry before it; or, with
	             * pip requirements in url (one per line) and the python version in
	             * commit, from those (path: CloudAI's venv name, under the install dir) */
	INST_FILE,  /* a helper file kunai ships: url is its path under the datadir */
	/* a file kunai does not ship (CloudAI's own Python, say) that the user
	 * puts at path in the install dir; the batch script refuses to run
	 * without it, saying hint */
	INST_USER_FILE,
	INST_HF_MODEL, /* a Hugging Face model (url: its name) under the system's hf_home_path */
};

struct installable {
	enum inst_kind kind;
	const char *url;
	const char *commit;
	const char *path;
	const char *hint; /* INST_USER_FILE: where to get it */
};

/* An environment variable a workload adds to its runs' (after the system's
 * and the test's); if_unset: only when neither set it. */
struct wl_env {
	const char *key, *value;
	bool if_unset;
};

/* The Slurm writer's pieces for script_sruns: the srun prefix of r's own
 * command (CloudAI's, -N<nodes> only when with_nodes; image, if not NULL,
 * in place of cmd_args.docker_image_url) and bash -c "source <run
 * dir>/env_vars.sh; <r's command>". Passed in, so that the workloads need
 * not link the writer (the runner and the grader link them too). */
struct wl_srun {
	void (*prefix)(struct buf *out, const struct run *r, bool with_nodes, const char *image);
	void (*bash_c)(struct buf *out, const struct run *r);
};

/* A container mount of a file of the run's own dir. */
struct wl_mount {
	const char *src, *dst;
};

/* Which schedulers a workload can run on (bit per enum sched). */
#define WL_STANDALONE (1u << 0)
#define WL_SLURM (1u << 1)
#define WL_KUBERNETES (1u << 2)
#define WL_LSF (1u << 3)
#define WL_RUNAI (1u << 4)

struct workload {
	const char *name; /* test_template_name */
	const char *program; /* kunai's own program in workloads/; NULL for the others */
	const struct arg_schema *args;
	size_t n_args;
	bool extra_args_ok; /* unknown cmd_args accepted (and forwarded by the builder) */
	unsigned schedulers;
	bool container; /* runs in a container image (cmd_args.docker_image_url) on Slurm */
	bool container_if_image; /* ... only when cmd_args.docker_image_url is set */
	bool in_batch;  /* Slurm: runs in the batch script itself, not under srun (BashCmd) */
	/* Appends the workload's command (a shell command line, not yet quoted for
	 * any outer context) for run r. */
	void (*command)(const struct run *r, struct buf *out);
	/* Slurm: srun task shape. Non-zero ntasks overrides the per-node layout
	 * (e.g. NCCL's single-process subtests use 1); mpi false drops --mpi. */
	int (*ntasks)(const struct run *r);
	bool (*uses_mpi)(const struct run *r);
	/* Slurm, optional: srun options of the test command only (not of the
	 * mapping and metadata probes), after the prefix (e.g. a task layout). */
	void (*srun_args)(const struct run *r, struct buf *out);
	/* Success check on stdout: every pattern of all_of present, none of none_of. */
	const char *const *all_of;
	const char *const *none_of;
	/* ... and at least one pattern of any_of present (CloudAI's grep -E a|b) */
	const char *const *any_of;
	const char *grader; /* name of the grader (reports/), for later */
	const struct installable *installables;
	size_t n_installables;
	/* Slurm: when set, appends the shell lines that run r in the batch
	 * script itself, in place of the srun of its command (a workload that
	 * drives its own launcher); the status of the last line is the run's. */
	void (*script_body)(const struct run *r, struct buf *out);
	/* Slurm: script_body for a workload of several sruns, given the
	 * writer's srun pieces (struct wl_srun). */
	void (*script_sruns)(const struct run *r, const struct wl_srun *s, struct buf *out);
	/* Slurm, optional: lines after the SLURM_JOB_MASTER_NODE export, before
	 * the environment (e.g. DeepEP's head node, a generated config file). */
	void (*script_prologue)(const struct run *r, struct buf *out);
	/* Writes at most max container mounts of files of the run's own dir
	 * (src relative to it, "" the dir itself) after the test's; returns how
	 * many. */
	size_t (*run_mounts)(const struct run *r, struct wl_mount *out, size_t max);
	/* NcclTest/UCCTest with use_deepep_matrix: the matrix file the
	 * MoEBenchmark or DeepEP run of its start_post_comp chain writes, and
	 * where the container sees it (r's value of cmd_args key dest_arg, else
	 * dest). */
	const char *deepep_matrix, *deepep_matrix_arg, *deepep_matrix_dest;
	bool writes_deepep_matrix; /* MoEBenchmark, DeepEP: the producers */
	bool bare_probes; /* Slurm: the mapping and metadata sruns outside the container (NIXL) */
	/* Slurm: its command is a launcher that submits the test's job itself
	 * (NeMoLauncher, MegatronBridge): the job script asks one node and no
	 * GPUs for it, never the test's size, and runs no mapping or metadata
	 * srun (they would describe the launcher's node). */
	bool launcher;
	/* Writes at most max variables to add to r's environment (r's cmd_args
	 * and env are resolved); returns how many. Values must outlive r
	 * (constants, r's own texts, or allocated in a). */
	size_t (*env)(struct arena *a, const struct run *r, struct wl_env *out, size_t max);
	/* Optional: CloudAI's checks of a resolved run (its constraint_check, the
	 * model's validators); adds each failure to d (workload_error). */
	void (*check)(const struct run *r, struct wl_diags *d);
	/* Slurm, optional: a container path where every srun of r mounts its run
	 * directory (after the other mounts). */
	const char *(*run_dir_mount)(const struct run *r);
	/* Slurm, optional: as script_body, for a workload that runs its own sruns
	 * in the test's container: image and mounts are the options
	 * --container-image=WORD and --container-mounts=WORD (quoted) as the
	 * other sruns of r have them. */
	void (*container_body)(const struct run *r, const char *image, const char *mounts, struct buf *out);
	/* Container mounts "SRC:DST" added after the test's, SRC relative to
	 * the install dir ("" is the install dir itself; "@hf_home" the
	 * system's hf_home_path); NULL-terminated. */
	const char *const *install_mounts;
	/* cmd_args keys whose value, a path, is mounted at the same path in the
	 * container (after install_mounts); NULL-terminated. */
	const char *const *arg_mounts;
	/* Top-level tables (or values) of a test definition that the workload
	 * reads besides cmd_args (vLLM's bench_cmd_args), NULL-terminated:
	 * checked against the schema's "NAME.key" entries and kept in the
	 * run's cmd_args under those keys; they hold no sweeps. */
	const char *const *tables;
	/* Slurm: srun --mpi= of the test's own steps instead of the system's
	 * (CloudAI's serving workloads: "none"). */
	const char *mpi;
	/* Slurm: as script_body, given CloudAI's srun prefix of the test's
	 * steps with -N (prefix_n) and without (prefix), container included. */
	void (*script_body_srun)(const struct run *r, const char *prefix_n, const char *prefix,
	                         struct buf *out);
	/* Optional: checks what the schema cannot (tables that go together,
	 * lists of tables); on a bad cmd_args set args, writes the message to
	 * msg, sets *where to the value at fault (NULL: the cmd_args table) and
	 * returns false. */
	bool (*validate)(const struct argset *args, struct buf *msg, const struct toml_value **where);
	/* Optional: the node count of a run whose case sets neither num_nodes
	 * nor nodes (AIDynamo: its prefill and decode workers' nodes). */
	int (*num_nodes)(const struct run *r);
	/* Slurm, optional: shell lines before the run's command line (side
	 * services, files the job writes for itself), given the run's srun
	 * prefix (srun ... --container-mounts=... and the extra srun args). */
	void (*script_pre)(const struct run *r, const char *srun_prefix, struct buf *out);
	/* Slurm, optional: shell lines after it, which may change $KUNAI_RC
	 * (the run's status), e.g. a success check on files the run wrote. */
	void (*script_post)(const struct run *r, struct buf *out);
	/* The table a family's shared code reads for this member, where the
	 * members differ only in data: struct jax_template (wl_jax.h), struct
	 * serving_ops (wl_serving.h). */
	const void *family;
};

#endif
