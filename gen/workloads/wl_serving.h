/* wl_serving.h: what vLLM and SGLang share (CloudAI's llm_serving.py): a
 * server started in the background under srun (one, or prefill and decode
 * with a router between them), waited on until healthy, a benchmark client,
 * an optional semantic check, the servers stopped. */
#ifndef KUNAI_WL_SERVING_H
#define KUNAI_WL_SERVING_H

#include <stdbool.h>

#include "gen/base/util.h"

struct run;
struct wl_diags;
struct workload;

enum serving_role { ROLE_SERVE, ROLE_PREFILL, ROLE_DECODE };

struct serving;

/* What differs between the serving workloads. */
struct serving_ops {
	const char *name, *slug; /* "vLLM", "vllm" */
	/* Appends the serve command of role (shell words; role ROLE_SERVE when
	 * aggregated). */
	void (*serve)(const struct serving *s, enum serving_role role, struct buf *out);
	/* Appends the router's command (disaggregated). */
	void (*helper)(const struct serving *s, struct buf *out);
	/* Appends the benchmark command. */
	void (*bench)(const struct serving *s, struct buf *out);
	/* Appends "K=\"V\"" pairs (each after a blank) a disaggregated role adds
	 * after CUDA_VISIBLE_DEVICES, or NULL. */
	void (*role_env)(const struct serving *s, enum serving_role role, struct buf *out);
	/* SGLang: the aggregated serve sets CUDA_VISIBLE_DEVICES too. */
	bool serve_env_gpus;
	/* vLLM: the semantic check's {host} is a URL (http:// added). */
	bool semantic_http;
	/* Appends the lines before the node setup (ports). */
	void (*preamble)(const struct serving *s, struct buf *out);
	/* Appends the launch of a role on more than one node, or NULL: then
	 * the role must fit one node. */
	void (*launch_multi)(const struct serving *s, enum serving_role role, const char *cmd,
	                     struct buf *out);
	/* The cleanup's process and step id variables (NULL-terminated, at
	 * most 8), and the lines before them (vLLM stops Ray). */
	void (*cleanup_vars)(const struct serving *s, const char **pids, const char **steps);
	void (*cleanup_prelude)(const struct serving *s, struct buf *out);
	/* The router's health endpoint. */
	const char *(*helper_health)(const struct serving *s);
	/* Appends kunai's success check (the run's status): CloudAI's
	 * was_run_successful on the files the run wrote. */
	void (*check)(const struct serving *s, struct buf *out);
};

/* One run being written. */
struct serving {
	const struct run *r;
	const struct serving_ops *ops;
	const char *prefix_n, *prefix; /* srun prefixes, with -N and without */
	bool disagg;
	int nodes, prefill_nodes, decode_nodes;
	long port;
	struct buf gpus, prefill_gpus, decode_gpus; /* "0,1,2,3" */
	int n_gpus;
};

/* The batch script lines of run r (workload.script_body_srun), by the
 * struct serving_ops of its workload's family. */
void serving_body(const struct run *r, const char *prefix_n, const char *prefix, struct buf *out);
/* workload.check of vllm and sglang: CloudAI's refusals (port, custom_bash
 * patterns, role node counts, ports, gpu_ids), as errors in d. */
void serving_check(const struct run *r, struct wl_diags *d);
/* The Hugging Face cache every member mounts (workload.install_mounts). */
extern const char *const serving_mounts[2];

/* What a member's struct workload holds besides its name, args, tables,
 * command, grader, installables and family. */
#define SERVING_WORKLOAD \
	.schedulers = WL_SLURM, .container = true, .mpi = "none", .install_mounts = serving_mounts, \
	.script_body_srun = serving_body, .check = serving_check

/* wl_serving_args.c: fills s for run r (ops may be NULL for a check);
 * false, with why set, for what CloudAI refuses. */
bool serving_init(struct serving *s, const struct serving_ops *ops, const struct run *r, struct buf *why);
void serving_free(struct serving *s);
/* Whether r's cmd_args hold table name (set, even empty). */
bool serving_has(const struct run *r, const char *name);

/* Helpers for the flavours. */
/* Whether the run sets a semantic_eval_cmd_args key (a semantic check). */
bool serving_semantic(const struct serving *s);
const char *serving_arg(const struct serving *s, const char *key);
/* The role's name in keys and files: "serve", "prefill", "decode". */
const char *serving_role_name(enum serving_role role);
/* Number of nodes of role. */
int serving_role_nodes(const struct serving *s, enum serving_role role);
/* Appends the host the benchmark talks to: ${NODE}, ${PREFILL_NODE} or
 * cmd_args.bench_host (quoted). */
void serving_bench_host(const struct serving *s, struct buf *out);
/* Appends " --flag value" for each key of role's table that is no
 * internal field (CloudAI's serve_args); bools_as_no: True -> --flag,
 * False -> --no-flag (vLLM), else the value's text. skip: more internal
 * keys (NULL-terminated). */
void serving_serve_args(const struct serving *s, enum serving_role role, bool bools_as_no,
                        const char *const *skip, struct buf *out);
/* Appends the extra bench_cmd_args keys (not in known) as " --key value". */
void serving_bench_extras(const struct serving *s, const char *const *known, struct buf *out);
/* The custom_bash text that applies to cmd, or NULL. */
const char *serving_custom_text(const struct serving *s, const char *cmd);
/* Appends cmd wrapped by custom_bash when that applies to it:
 * bash -c 'CUSTOM; exec CMD'. */
void serving_custom(const struct serving *s, const char *cmd, struct buf *out);
/* Appends srun prefix for one role's nodes: prefix --overlap
 * --nodelist="EXPR" --nodes=N --ntasks=T --ntasks-per-node=1. */
void serving_role_prefix(const struct serving *s, const char *expr, int nodes, int tasks, struct buf *out);
/* Appends CloudAI's step discovery for role into var (expecting count). */
void serving_step_discovery(const struct serving *s, const char *role, const char *var, int count,
                            struct buf *out);

#endif
