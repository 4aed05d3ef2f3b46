/* job_plain.h: job_plain.c, a standalone run.sh that needs no bash: what
 * it execs and exports (job_supervise.c runs it so). */
#ifndef KUNAI_JOB_PLAIN_H
#define KUNAI_JOB_PLAIN_H

#include <stdbool.h>
#include <stddef.h>

#include "gen/base/util.h"

struct arena;

/* A standalone run.sh that needs no bash: what it execs and exports. */
struct job_plain {
	const char *env_vars; /* env_vars.sh's text, NULL when unreadable */
	struct buf words;     /* the command's words, each with its NUL */
	size_t nword;
	struct buf exports;   /* NAME=VALUE of its exports in order, each with its NUL */
	size_t nexport;
	bool redirect;        /* exec >stdout.txt 2>stderr.txt */
	unsigned commands;    /* lines run before the exec */
	unsigned assigns;     /* the path variables it assigns (a bit each) */
};
/* Whether script (run.sh's text) is one bash is not needed for, given
 * env_vars (env_vars.sh's text, or NULL): fills p (job_plain_free frees
 * it) and returns true; else false, with nothing to free. */
bool job_plain_parse(const char *script, const char *env_vars, struct job_plain *p);
void job_plain_free(struct job_plain *p);
/* The environment p's command gets from bash started with env in this
 * dir, NULL-terminated in a; NULL when env holds what only bash treats
 * right (the script is then bash's). */
char **job_plain_env(struct arena *a, const struct job_plain *p, char *const *env);
/* The file bash's exec would run for cmd with envp's PATH; NULL where
 * bash should say what happens (not found, not executable, no PATH). */
const char *job_plain_path(struct arena *a, char *const *envp, const char *cmd);

#endif
