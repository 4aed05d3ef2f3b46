/* wl_kunai.c: the command builder shared by kunai's own workloads (see
 * wl_kunai.h). */
#include <stdbool.h>
#include <string.h>

#include "escape.h"
#include "expand.h"
#include "model.h"
#include "util.h"
#include "wl_kunai.h"
#include "workload.h"

const char *const wl_kunai_success[] = {"[RESULT] SUCCESS", NULL};
const char *const wl_kunai_no_failure[] = {"[RESULT] FAILURE", NULL};

/* Schema keys that configure the launch, not the program. */
static bool
launch_key(const char *key)
{
	return strcmp(key, "ranks") == 0 || strcmp(key, "mpirun") == 0 || strcmp(key, "mpirun_args") == 0 ||
	       strcmp(key, "expect_gpus") == 0;
}

/* Appends " " and the words of s (arguments written in TOML), if any. */
static void
words(struct buf *out, const char *s)
{
	buf_putc(out, ' ');
	if (!sh_words(out, s))
		out->len--;
}

void
wl_kunai_command(const struct run *r, struct buf *out, const char *prog, bool mpi)
{
	const struct workload *wl = r->def->wl;
	const struct system *sys = r->c->system;
	const char *v;
	size_t i, k;

	if (mpi && sys->scheduler == SCHED_STANDALONE) {
		/* Open MPI refuses root without both variables; others ignore them */
		buf_puts(out, "OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 ");
		sh_quote(out, workload_value(r, "mpirun"));
		v = workload_value(r, "mpirun_args");
		if (v && *v)
			words(out, v);
		buf_puts(out, " -np ");
		v = workload_value(r, "ranks");
		if (v)
			sh_quote(out, v);
		else
			buf_puts(out, "2");
		buf_putc(out, ' ');
	}
	/* expanded by the shell that runs the command, on the node that runs it */
	buf_printf(out, "\"${KUNAI_WORKLOADS:-$(kunai --datadir)/workloads}\"/%s", prog);
	v = workload_value(r, "expect_gpus");
	if (v) {
		buf_puts(out, " --expect-gpus ");
		sh_quote(out, v);
	} else if (sys->gpus_per_node > 0 && sys->scheduler == SCHED_SLURM)
		buf_printf(out, " --expect-gpus %d", sys->gpus_per_node);
	for (i = 0; i < wl->n_args; i++) {
		const struct arg_schema *s = &wl->args[i];
		if (launch_key(s->key) || !(v = workload_value(r, s->key)))
			continue;
		if (s->type == ARG_BOOL && !workload_true(v))
			continue;
		buf_puts(out, " --");
		for (k = 0; s->key[k]; k++)
			buf_putc(out, s->key[k] == '_' ? '-' : s->key[k]);
		if (s->type != ARG_BOOL) {
			buf_putc(out, ' ');
			sh_quote(out, v);
		}
	}
	workload_extra_args(r, ' ', out);
}

int
wl_kunai_ranks_per_gpu(const struct run *r)
{
	int g = r->c->system->gpus_per_node;

	return g > 0 ? g * (r->nodes.len ? (int)r->nodes.len : r->num_nodes) : 0;
}

int
wl_kunai_one_per_node(const struct run *r)
{
	return r->nodes.len ? (int)r->nodes.len : r->num_nodes;
}

bool
wl_kunai_mpi(const struct run *r)
{
	(void)r;
	return true;
}

bool
wl_kunai_no_mpi(const struct run *r)
{
	(void)r;
	return false;
}
