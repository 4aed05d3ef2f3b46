/* script.c: the pieces of a job script that every scheduler's writer shares
 * (script.h): the #KUNAI line, the path lines, env_vars.sh and
 * the exports, and the hooks' success check. */
#include <stdbool.h>
#include <string.h>

#include "script.h"
#include "gen/base/escape.h"
#include "gen/base/util.h"
#include "gen/model/expand.h"
#include "gen/model/model.h"
#include "gen/workloads/workload.h"

/* Exported by a job script whose export lines computed run r's values
 * that run a command; its value is r's dir (script_env_exports). */
#define ENV_RUN_VAR "KUNAI_ENV_RUN"

void
script_check(struct buf *out, const struct run *hr, const char *stdout_word)
{
	const struct workload *wl = hr->def->wl;
	size_t i;

	buf_puts(out, "[ $? -eq 0 ]");
	for (i = 0; wl->all_of && wl->all_of[i]; i++) {
		buf_puts(out, " && grep -qF -- ");
		sh_quote(out, wl->all_of[i]);
		buf_printf(out, " %s", stdout_word);
	}
	for (i = 0; wl->none_of && wl->none_of[i]; i++) {
		buf_puts(out, " && ! grep -qF -- ");
		sh_quote(out, wl->none_of[i]);
		buf_printf(out, " %s", stdout_word);
	}
	for (i = 0; wl->any_of && wl->any_of[i]; i++) {
		buf_puts(out, i ? " || grep -qF -- " : " && { grep -qF -- ");
		sh_quote(out, wl->any_of[i]);
		buf_printf(out, " %s", stdout_word);
		if (!wl->any_of[i + 1])
			buf_puts(out, "; }");
	}
	buf_puts(out, " && echo 1 || echo 0");
}

/* How many directories r->dir goes down from the build dir. */
static int
depth(const char *dir)
{
	int n = 1;

	for (; *dir; dir++)
		n += *dir == '/';
	return n;
}

/* The INSTALL_DIR= line, after BUILD_DIR. */
static void
install_dir(struct buf *out, const struct run *r)
{
	const char *ip = r->c->system->install_path;

	/* a relative install_path is relative to the build dir: the same
	 * campaign then resolves it the same way wherever it is generated */
	if (ip && ip[0] == '/') {
		buf_puts(out, "INSTALL_DIR=");
		sh_quote(out, ip);
	} else {
		while (ip && ip[0] == '.' && ip[1] == '/')
			ip += 2;
		buf_puts(out, "INSTALL_DIR=\"$BUILD_DIR\"");
		if (ip && *ip && strcmp(ip, ".") != 0) {
			buf_puts(out, "/");
			sh_quote(out, ip);
		}
	}
	buf_putc(out, '\n');
}

void
script_paths(struct buf *out, const struct run *r)
{
	int i, n = depth(r->dir);

	buf_puts(out, "BUILD_DIR=$(cd \"$RUN_DIR");
	for (i = 0; i < n; i++)
		buf_puts(out, "/..");
	buf_puts(out, "\" && pwd)\n");
	install_dir(out, r);
}

void
script_paths_local(struct buf *out, const struct run *r)
{
	int i, n = depth(r->dir);

	/* what `cd ../..; pwd` would print, without its subshell: the
	 * logical parent, as cd .. goes */
	buf_puts(out, "BUILD_DIR=${RUN_DIR%");
	for (i = 0; i < n; i++)
		buf_puts(out, "/*");
	buf_puts(out, "}\n");
	install_dir(out, r);
}

/* Slurm: a PARTITION:GROUP:N spec's nodes are chosen when the job is
 * submitted (from node states); the runner gets the group's members, and
 * the case's other node lists, here: PARTITION:GROUP:N:MEMBERS. */
static void
node_groups(struct buf *out, const struct run *r)
{
	const struct system *s = r->c->system;
	const struct test_case *tc = r->tc;
	struct buf spec = {0}, also = {0};
	size_t i, k, g;
	bool any = false;

	for (i = 0; tc && s->scheduler == SCHED_SLURM && i < tc->nodes.len; i++) {
		const char *n = tc->nodes.items[i], *c1 = strchr(n, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
		if (!c2) {
			buf_printf(&also, "%s%s", also.len ? "," : "", n);
			continue;
		}
		spec.len = 0;
		buf_printf(&spec, "%s:", n);
		for (k = 0; k < s->n_partitions; k++) {
			const struct slurm_partition *p = &s->partitions[k];
			if (strlen(p->name) != (size_t)(c1 - n) || strncmp(p->name, n, (size_t)(c1 - n)) != 0)
				continue;
			for (g = 0; g < p->n_groups; g++) {
				const struct slurm_group *gr = &p->groups[g];
				size_t m;
				if (strlen(gr->name) != (size_t)(c2 - c1 - 1) || strncmp(gr->name, c1 + 1, (size_t)(c2 - c1 - 1)))
					continue;
				for (m = 0; m < gr->nodes.len; m++)
					buf_printf(&spec, "%s%s", m ? "," : "", gr->nodes.items[m]);
			}
		}
		buf_puts(out, " --node-group ");
		sh_quote(out, spec.data);
		any = true;
	}
	if (any && also.len) {
		buf_puts(out, " --also-nodes ");
		sh_quote(out, also.data);
	}
	if (any && tc->exclude_nodes.len) {
		also.len = 0;
		for (i = 0; i < tc->exclude_nodes.len; i++)
			buf_printf(&also, "%s%s", i ? "," : "", tc->exclude_nodes.items[i]);
		buf_puts(out, " --exclude-nodes ");
		sh_quote(out, also.data);
	}
	buf_free(&spec);
	buf_free(&also);
}

void
script_directives(struct buf *out, const struct run *r)
{
	const struct scenario *sc = r->c->scenario;
	long delay = 0;
	size_t j;

	buf_printf(out, "#KUNAI --workload %s", r->def->wl->name);
	if (r->c->single_sbatch)
		buf_puts(out, " --single-sbatch single_sbatch.sh");
	if (r->time_limit > 0)
		buf_printf(out, " --time-limit %ld", r->time_limit);
	for (j = 0; j < r->n_deps; j++) {
		struct buf d = {0};

		switch (r->deps[j].type) {
		case DEP_START_POST_COMP:
			if (r->deps[j].delay > delay)
				delay = r->deps[j].delay;
			break;
		case DEP_START_POST_INIT:
			buf_printf(&d, "%s:%ld", r->deps[j].first_dir, r->deps[j].delay);
			buf_puts(out, " --after-start ");
			sh_quote(out, d.data);
			break;
		case DEP_END_POST_COMP:
			/* stopped when every run of the other case has completed */
			buf_puts(out, " --stop-with ");
			sh_quote(out, sc->cases[r->deps[j].case_index].id);
			break;
		}
		buf_free(&d);
	}
	if (delay)
		buf_printf(out, " --delay %ld", delay);
	node_groups(out, r);
	buf_putc(out, '\n');
}

bool
script_env_ok(const struct run *r, const struct hooks *h)
{
	const struct runlist *lists[] = {h ? h->pre : NULL, h ? h->post : NULL};
	size_t i, j;
	bool ok = true;

	for (i = 0; i < r->env.len; i++)
		if (!sh_is_name(r->env.items[i].key)) {
			warn("test '%s': environment variable '%s' is not a shell name", r->tc->id,
			     r->env.items[i].key);
			ok = false;
		}
	for (i = 0; i < LEN(lists); i++)
		for (j = 0; lists[i] && j < lists[i]->len; j++)
			ok &= script_env_ok(&lists[i]->items[j], NULL);
	return ok;
}

/* Whether a value of r's runs a command when it is expanded. */
static bool
env_computes(const struct run *r)
{
	size_t i;

	for (i = 0; i < r->env.len; i++)
		if (sh_is_name(r->env.items[i].key) && sh_live_computes(r->env.items[i].value))
			return true;
	return false;
}

void
script_env_exports(struct buf *out, const struct run *r)
{
	size_t i;

	for (i = 0; i < r->env.len; i++) {
		if (!sh_is_name(r->env.items[i].key))
			continue; /* reported by script_env_ok */
		buf_printf(out, "export %s=", r->env.items[i].key);
		/* CloudAI's bare export: expanded where the job starts; $PWD is
		 * CloudAI's launch dir, which the runner hands to the job */
		if (sh_is_live(r->env.items[i].value)) {
			buf_putc(out, '"');
			sh_live_body(out, r->env.items[i].value, SH_LAUNCH_VAR, "$BUILD_DIR");
			buf_putc(out, '"');
		} else {
			sh_quote(out, r->env.items[i].value);
		}
		buf_putc(out, '\n');
	}
	/* the values that ran a command were computed here, once: r's
	 * env_vars.sh, sourced in a container (where scontrol and the like
	 * usually are not), keeps them (srun --export=ALL brings them) */
	if (env_computes(r)) {
		buf_printf(out, "export %s=", ENV_RUN_VAR);
		sh_quote(out, r->dir);
		buf_putc(out, '\n');
	}
}

void
script_env(const struct run *r, struct buf *out)
{
	size_t i;

	/* CloudAI's export K="V", sourced inside the container: expanded
	 * there (PWD is the container's), by the rule of the script's own
	 * export lines, so both give the variable the same value; a
	 * standalone run.sh sources it itself, where $PWD is the launch dir */
	bool here = r->c->system->scheduler == SCHED_STANDALONE;
	for (i = 0; i < r->env.len; i++) {
		if (!sh_is_name(r->env.items[i].key))
			continue; /* reported by script_env_ok */
		/* computed by the job script's own export line already when
		 * it is r's (script_env_exports); a hook's is computed here */
		if (sh_live_computes(r->env.items[i].value)) {
			buf_printf(out, "[ \"${%s-}\" = ", ENV_RUN_VAR);
			sh_quote(out, r->dir);
			buf_puts(out, " ] || ");
		}
		buf_printf(out, "export %s=\"", r->env.items[i].key);
		sh_live_body(out, r->env.items[i].value, here ? SH_LAUNCH_VAR : NULL, "$BUILD_DIR");
		buf_puts(out, "\"\n");
	}
}
