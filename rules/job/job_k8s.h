/* job_k8s.h: what job_k8s.c (create, wait, logs, delete), job_k8s_state.c
 * (the objects' states as rows) and job_k8s_dgd.c (AIDynamo's benchmark)
 * share; the runner calls kubernetes through job_sched.h. */
#ifndef KUNAI_JOB_K8S_H
#define KUNAI_JOB_K8S_H

#include <stdbool.h>
#include <stddef.h>

#include "job_state.h"

struct cJSON;

/* Rows for ids from `kubectl get ... -o json` output; false when it is not
 * such a list. */
bool k8s_rows(const char *json, char *const *ids, size_t n, struct buf *rows);
/* "jobs.batch" for "Job" or an id "job:NAME"; NULL for another kind. */
const char *k8s_resource(const char *kind_or_id);
/* "job" for "Job": the prefix of the kind's job ids. */
const char *k8s_id_prefix(const char *kind);
/* Whether kubectl's stderr says the API server was briefly out of reach. */
bool k8s_transient(const char *err);
/* kubectl [--kubeconfig K] [--namespace NS] --request-timeout=30s ARGS...,
 * retrying transient errors up to tries times; its exit status. */
int k8s_kubectl(struct job *j, const char *const *args, int tries, bool cleanup, struct buf *out, struct buf *err);
/* "kubectl WHAT: " and the first line of err, in the arena. */
const char *k8s_first_line(struct job *j, const char *what, struct buf *err, int rc);
/* The labels selector of this run's attempt's pods, into sel. */
void k8s_run_selector(struct job *j, struct buf *sel);
/* AIDynamo (job_k8s_dgd.c): the DynamoGraphDeployment's pods are Ready:
 * runs the benchmark in its frontend pod, copies its results into the run
 * dir; sets j->info's state (COMPLETED, FAILED, LAUNCH_FAILED) and reason.
 * False when a signal came (j->signo). */
bool dgd_benchmark(struct job *j);
/* A DynamoGraphDeployment as kunai creates it: kunai's labels on it and on
 * each service (the operator puts them on the pods), its name after the
 * run dir; returns the name (in the arena). */
const char *dgd_prepare(struct job *j, struct cJSON *doc);

#endif
