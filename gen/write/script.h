/* script.h: per-run job scripts (one writer per scheduler). Writers see only
 * the model and the expanded runs, never TOML. */
#ifndef KUNAI_SCRIPT_H
#define KUNAI_SCRIPT_H

#include <stdbool.h>

struct arena;
struct buf;
struct run;
struct runlist;

/* The hooks that wrap a run: pre runs before the main command (which runs
 * only if they all pass), post after it. Either list may be empty. */
struct hooks {
	const struct runlist *pre, *post;
};

/* Appends the sbatch script of run r to out. Returns false after reporting. */
bool script_slurm(struct arena *a, const struct run *r, const struct hooks *h, struct buf *out);
/* Whether old, a run's sbatch script as an earlier kunai wrote it (rel:
 * its path), runs the job that data does: the same bytes but for the
 * record lines, which now make a clean exit the job's end without a query
 * (record_script_lines). gen keeps such a script's mtime (sink.h), so
 * that an upgrade reruns nothing. */
bool script_slurm_same_job(const char *rel, const char *old, size_t oldlen, const char *data, size_t len);
/* The --single-sbatch allocation's batch script for the runs of rl; false
 * after reporting (some runs with a time limit, some without). */
struct runlist;
struct campaign;
bool script_single(const struct campaign *c, const struct runlist *rl, struct buf *out);

/* Appends the bash script that runs r on this machine to out. */
bool script_standalone(struct arena *a, const struct run *r, const struct hooks *h, struct buf *out);

/* Appends phases/NAME.sh (phase_script.c) for the scenario's prepare or cleanup
 * phase: its #KUNAI time limit, then each command, the first failure
 * ending the script with that status. */
struct phase;
void phase_script(const struct phase *ph, const char *name, const char *scenario_path, struct buf *out);
/* Appends the Kubernetes object of r (manifest_k8s.c) as JSON: a Job, a
 * JobSet for a multi-pod run, an MPIJob for NcclTest. Returns false after
 * reporting. */
bool manifest_k8s(const struct run *r, struct buf *out);
/* AIDynamo's DynamoGraphDeployment (manifest_k8s_dynamo.c). */
struct cJSON;
struct cJSON *manifest_k8s_dynamo(const struct run *r);
/* The benchmark the runner runs in its frontend pod: k8s.bench.json. */
void manifest_k8s_dynamo_bench(const struct run *r, struct buf *out);
/* "Job", "JobSet", "MPIJob" or "DynamoGraphDeployment": the kind manifest_k8s writes for r. */
const char *manifest_k8s_kind(const struct run *r);

/* Appends the RunAI training request of r (manifest_runai.c) as JSON:
 * what kunai job POSTs to /api/v1/workloads/trainings. */
bool manifest_runai(const struct run *r, struct buf *out);

/* Appends env_vars.sh for r: one `export K="V"` line per variable (V
 * escaped for the double quotes; names that are no shell name left out). */
void script_env(const struct run *r, struct buf *out);

/* Shared by the writers (defined in script.c, but script_test_command in
 * script_slurm.c). */

/* Appends the #KUNAI line: the options `kunai job` reads from the script
 * (--workload, --time-limit, --after-start DIR:DELAY, --stop-with ID,
 * --delay), shell-quoted. */
void script_directives(struct buf *out, const struct run *r);
/* Appends run r's #SBATCH lines; returns false after reporting a value that
 * cannot go on such a line. */
bool script_sbatch_directives(struct buf *out, const struct run *r);
/* Appends run r's #BSUB lines (LSF); as script_sbatch_directives. */
bool script_bsub_directives(struct buf *out, const struct run *r);
/* Appends the bsub script of run r (script_standalone.c): #BSUB lines,
 * the job's own start and exit records, then what run.sh does. */
bool script_lsf(struct arena *a, const struct run *r, const struct hooks *h, struct buf *out);
/* Appends the BUILD_DIR= and INSTALL_DIR= lines, which derive both from
 * $RUN_DIR when the script runs (a relative install_path is relative to the
 * build dir). */
void script_paths(struct buf *out, const struct run *r);
/* The same lines with shell builtins only (no subshell): for a script run
 * from its own dir, RUN_DIR=$PWD. */
void script_paths_local(struct buf *out, const struct run *r);
/* Appends the test's command line: [nsys profile ...] <workload command>. */
void script_test_command(struct buf *out, const struct run *r);
/* Returns false after reporting each environment variable of r or of its
 * hooks whose name is not a shell name (the writers leave such names out). */
bool script_env_ok(const struct run *r, const struct hooks *h);
/* Appends `export K=V` lines (V shell-quoted). */
void script_env_exports(struct buf *out, const struct run *r);
/* Appends the body of a hook's success check for `SUCCESS_i=$( ... )`:
 * the hook's exit status ($? of the line before) is 0, each all_of pattern
 * is in stdout_word (a shell word naming its stdout.txt) and no none_of
 * pattern is; it prints 1 or 0. */
void script_check(struct buf *out, const struct run *hr, const char *stdout_word);

#endif
