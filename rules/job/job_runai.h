/* job_runai.h: what job_runai.c (the API: configuration, token, calls,
 * submit, the listing) and job_runai_wait.c (the wait, logs, the end)
 * share. Not for other files. */
#ifndef KUNAI_JOB_RUNAI_H
#define KUNAI_JOB_RUNAI_H

#include <stdbool.h>

#include "http.h"
#include "job_state.h"

/* the trainings collection, after base_url */
#define TRAININGS "/api/v1/workloads/trainings"

enum {
	TRIES = 10,          /* per request: 5xx, 429 and no answer retried */
	TIMEOUT_S = 60,      /* per request */
	RETRY_AFTER_MAX = 120,
	UNREACHABLE_S = 600, /* KUNAI_RUNAI_UNREACHABLE: no listing answered */
	TIME_GRACE_S = 60,   /* past the time limit before kunai deletes it */
	PAGE = 500,          /* workloads per listing page */
	PAGES_MAX = 20,
};

struct runai {
	const char *base, *app_id, *project, *cluster;
	char *secret, *token; /* malloc'd, wiped when freed */
	const char *name;     /* the applied request's name */
	bool config_error;    /* runai_config failed on the configuration (DESIGN 18) */
};

/* The system's API address, ids and secret (kunai.json, the environment,
 * the system file); false with j->info's reason set. */
bool runai_config(struct job *j);
/* One call of the API (path after base_url, or a whole URL), authenticated,
 * retried as the answers say (tries at most); false when no answer came.
 * A signal ends the retries unless cleanup. */
bool runai_api(struct job *j, const char *method, const char *path, const char *body, bool cleanup, int tries,
               struct http_resp *h);
/* POST /api/v1/token; false with h's error or status. */
bool runai_auth(struct job *j, struct http_resp *h);
/* "RunAI WHAT: HTTP N: message" for an answer h (in the arena). */
const char *runai_error(struct job *j, const char *what, const struct http_resp *h);
/* DELETE of training id; false with *why (warned) when it is left behind. */
bool runai_delete(struct job *j, const char *id, bool cleanup, const char **why);
/* Zeroes and frees *s. */
void runai_wipe(char **s);

#endif
