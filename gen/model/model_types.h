/* model_types.h: the typed campaign (system, test definitions, scenario)
 * as model.c builds it and the later stages (expand, workloads, writers,
 * reports) read it. Types only; the code is in model.h. */
#ifndef KUNAI_MODEL_TYPES_H
#define KUNAI_MODEL_TYPES_H

#include <stdbool.h>
#include <stddef.h>

#include "gen/toml/toml_tree.h"

struct workload;

enum sched {
	SCHED_STANDALONE,
	SCHED_SLURM,
	SCHED_KUBERNETES,
	SCHED_LSF,
	SCHED_RUNAI,
};

/* One flattened key (nested tables joined with '.') and its TOML value:
 * a scalar, or an array (a sweep dimension unless excluded). */
struct arg {
	const char *key;
	struct toml_pos pos; /* of the key */
	const struct toml_value *val;
};

struct argset {
	struct arg *items;
	size_t len, cap;
};

struct strlist {
	const char **items;
	struct toml_pos *pos; /* pos[i] is where items[i] came from */
	size_t len, cap;      /* cap: room in items and pos (strlist_reserve) */
};

struct slurm_group {
	const char *name;
	struct strlist nodes; /* node specs as written, e.g. "node-[001-025]" */
	struct toml_pos pos;
};

struct slurm_partition {
	const char *name;
	struct strlist nodes; /* the older [partitions.<name>] form's own nodes */
	struct slurm_group *groups;
	size_t n_groups, cap_groups;
	struct toml_pos pos;
};

struct system {
	const char *path; /* the TOML file */
	const char *name;
	enum sched scheduler;
	const char *install_path, *output_path, *hf_home_path;
	struct argset global_env_vars; /* scalar values */
	int monitor_interval;
	int max_jobs; /* ninja pool depth (standalone default: machine_jobs) */

	/* slurm */
	const char *default_partition;
	struct slurm_partition *partitions;
	size_t n_partitions, cap_partitions;
	const char *account, *distribution, *mpi;
	int gpus_per_node;   /* 0: not set */
	int ntasks_per_node; /* 0: not set */
	bool cache_docker_images_locally, container_mount_home;
	const char *extra_srun_args; /* NULL: none */
	struct strlist extra_sbatch_args;
	struct strlist extra_transient_status_errors;
	int status_retry_pause_seconds;
	int supports_gpu_directives; /* -1 unknown (assume yes), 0, 1 */

	/* kubernetes */
	const char *kube_config_path, *default_namespace;
	const char *workloads_image; /* kunai's programs' image (NULL: kunai-workloads:VERSION) */
	int use_host_network; /* -1 unset */
	struct argset node_selector; /* [node_selector]: label = value (string values) */
	struct k8s_toleration {
		const char *key, *operator, *value, *effect; /* NULL: not given */
		long seconds;                                /* -1: not given */
	} *tolerations; /* [[tolerations]] */
	size_t n_tolerations;

	/* lsf: queues in partitions (groups as Slurm's), account as Slurm's */
	const char *project_name, *default_queue, *lsf_app, *os_version;

	/* runai (gpus_per_node, workloads_image as kubernetes') */
	const char *base_url, *user_email, *app_id, *project_id, *cluster_id;
	/* app_secret = "$NAME" or "${NAME}": the variable kunai job reads it
	 * from; NULL: the secret is written in the system file itself, which
	 * kunai job reads again (it never reaches a generated file) */
	const char *app_secret_env;
};

struct nsys {
	bool enable;
	const char *nsys_binary, *task, *output, *sample, *trace;
	int force_overwrite; /* -1 unset */
	const char *capture_range, *capture_range_end, *cuda_graph_trace, *gpu_metrics_devices;
	struct strlist extra_args;
};

struct git_repo {
	const char *url, *commit, *mount_as, *installed_path;
	bool init_submodules;
};

struct testdef {
	const char *path; /* file it came from (the scenario's for inline tests) */
	struct toml_pos pos;
	const char *name, *description, *template_name;
	const struct workload *wl;
	struct argset cmd_args;       /* flattened, in declaration order */
	struct argset extra_cmd_args; /* string values, keys as written */
	struct argset extra_env_vars; /* string or list-of-string values */
	struct strlist extra_container_mounts;
	struct strlist dse_excluded_args;
	struct strlist extra_srun_args; /* SlurmContainer */
	struct git_repo *git_repos;
	size_t n_git_repos;
	struct nsys *nsys; /* NULL: none */
	const struct toml_value *toml; /* the (merged) table it was loaded from */
	const struct toml_value *references; /* [references], validated; NULL: none */
	const struct toml_value *peers;      /* [peers], validated; NULL: none */
};

enum dep_type {
	DEP_START_POST_COMP,
	DEP_START_POST_INIT,
	DEP_END_POST_COMP,
};

struct dep {
	enum dep_type type;
	const char *id;
	size_t target; /* index into scenario->cases */
	long delay;    /* seconds */
	struct toml_pos pos;
};

struct test_case {
	struct toml_pos pos;
	const char *id;
	struct testdef *def; /* merged with the scenario's overrides */
	int iterations;
	struct toml_value *num_nodes; /* integer or array of integers (a sweep) */
	bool num_nodes_set;           /* written in the scenario (else 1) */
	struct strlist nodes, exclude_nodes;
	long time_limit; /* seconds, -1: none (hook time not included) */
	const char *extra_srun_args;
	struct dep *deps;
	size_t n_deps;
	double weight, ideal_perf, sol;
	bool has_sol;
};

/* A campaign phase (the scenario's [prepare] or [cleanup]): shell commands
 * run in order from the build dir, the first failure ending it. */
struct phase {
	struct strlist commands;
	long time_limit; /* seconds, for the whole phase */
	struct toml_pos pos;
};

struct scenario {
	const char *path;
	const char *name;
	bool job_status_check;
	struct scenario *pre_test, *post_test; /* hooks, NULL: none */
	struct phase *prepare, *cleanup;       /* NULL: none */
	struct test_case *cases;
	size_t n_cases;
	const struct toml_value *peers; /* [peers] of the campaign, validated; NULL: none */
};

/* A --set KEY=VALUE override: KEY is a dotted path from the scenario root
 * (e.g. "Tests.1.cmd_args.iters", list indices from 1, or a test id in
 * place of the index: Tests."Tests.all_reduce".iterations) or, prefixed
 * "system.", from the system's. VALUE is parsed as a TOML value, or taken
 * as a string when it is not one. See model_set.c. */
struct override {
	const char *key, *value;
	/* from a preset (model_preset.c): its name, the value as parsed
	 * (value is its TOML text) and where the key is; NULL for --set */
	const char *preset;
	const struct toml_value *val;
	struct toml_pos pos;
};

struct campaign {
	struct system *system;
	struct testdef **tests; /* from --tests-dir, sorted by name */
	size_t n_tests;
	struct scenario *scenario;
	struct strlist inputs; /* every TOML file read, for the regenerate rule */
	const struct override *overrides; /* the presets', then --set's */
	size_t n_overrides;
	const char **presets; /* the resolved chain, in the order applied */
	size_t n_presets;
	bool single_sbatch; /* gen --single-sbatch: the runs are steps of one allocation */
};

#endif
