/* job_nodes.c: a Slurm job's nodes = ["PARTITION:GROUP:N"], chosen when the
 * job is submitted, as CloudAI does: the group's nodes by their sinfo
 * state, idle first, then completing, then allocated or mixed, then
 * reserved; down, drained, failing or not responding nodes never. N may be
 * max_avail: every idle, completing or reserved node of the group. The
 * choice goes on sbatch's command line (--nodelist, --nodes), so the
 * script stays as gen wrote it. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "job_sched.h"
#include "gen/base/hostlist.h"
#include "gen/base/util.h"

/* The rank of a sinfo %t state: 0 idle .. 3 reserved; -1 not usable
 * (down, drain, fail, maint, a suffix such as * for not responding). */
/* A list of node names (in the job's arena; cap 0 after hostlist_expand). */
struct nodes {
	const char **items;
	size_t len, cap;
};

static void
nodes_add(struct arena *a, struct nodes *l, const char *name)
{
	l->items = arena_reserve(a, (void *)l->items, l->len, l->len + 1, &l->cap, sizeof(*l->items));
	l->items[l->len++] = name;
}

static int
state_rank(const char *s, size_t n)
{
	static const char *const usable[][2] = {{"idle", "0"}, {"comp", "1"}, {"alloc", "2"},
	                                        {"mix", "2"},  {"resv", "3"}};
	size_t i;

	for (i = 0; i < LEN(usable); i++)
		if (strlen(usable[i][0]) == n && strncmp(s, usable[i][0], n) == 0)
			return usable[i][1][0] - '0';
	return -1;
}

static bool
in_list(const struct nodes *l, const char *name)
{
	size_t i;

	for (i = 0; i < l->len; i++)
		if (strcmp(l->items[i], name) == 0)
			return true;
	return false;
}

/* sinfo's state of node in partition part, into *state; -2 when sinfo
 * does not list it there. */
static int
node_state(const char *sinfo, const char *part, size_t plen, const char *node, const char **state, size_t *slen)
{
	const char *l, *b1, *b2, *eol;
	size_t nlen = strlen(node);

	/* "NODE|PARTITION|STATE" lines; the default partition has a '*' */
	for (l = sinfo; *l; l = *eol ? eol + 1 : eol) {
		eol = l + strcspn(l, "\n");
		b1 = memchr(l, '|', (size_t)(eol - l));
		b2 = b1 ? memchr(b1 + 1, '|', (size_t)(eol - b1 - 1)) : NULL;
		if (!b2 || (size_t)(b1 - l) != nlen || strncmp(l, node, nlen) != 0)
			continue;
		if (!((size_t)(b2 - b1 - 1) == plen || ((size_t)(b2 - b1 - 1) == plen + 1 && b2[-1] == '*')) ||
		    strncmp(b1 + 1, part, plen) != 0)
			continue;
		*state = b2 + 1;
		*slen = (size_t)(eol - b2 - 1);
		return state_rank(*state, *slen);
	}
	return -2;
}

/* One PARTITION:GROUP:N:MEMBERS spec: its nodes into chosen. */
static bool
choose_group(struct job *j, const char *spec, const char *sinfo, const struct nodes *excl, struct nodes *chosen)
{
	const char *c1 = strchr(spec, ':'), *c2 = strchr(c1 + 1, ':'), *c3 = strchr(c2 + 1, ':'), *st;
	struct nodes members = {0};
	struct buf why = {0};
	size_t plen = (size_t)(c1 - spec), i, slen, have = 0, want;
	bool max_avail = strncmp(c2 + 1, "max_avail:", 10) == 0, ok;
	int rank, r;

	want = max_avail ? 0 : (size_t)strtoul(c2 + 1, NULL, 10);
	if (c3[1] && !hostlist_expand(&j->arena, c3 + 1, &members.items, &members.len)) {
		j->info.reason = arena_printf(&j->arena, "node group %.*s: bad node list '%s'", (int)(c3 - spec), spec,
		                              c3 + 1);
		return false;
	}
	/* idle ones first, and so on: CloudAI's order */
	for (rank = 0; rank <= 3 && (max_avail || have < want); rank++)
		for (i = 0; i < members.len && (max_avail || have < want); i++) {
			if (in_list(excl, members.items[i]) || in_list(chosen, members.items[i]))
				continue;
			r = node_state(sinfo, spec, plen, members.items[i], &st, &slen);
			if (r != rank || (max_avail && r == 2))
				continue;
			nodes_add(&j->arena, chosen, members.items[i]);
			have++;
		}
	ok = max_avail ? have > 0 : have >= want;
	if (!ok) {
		for (i = 0; i < members.len && i < 16; i++) {
			r = node_state(sinfo, spec, plen, members.items[i], &st, &slen);
			if (in_list(excl, members.items[i]))
				buf_printf(&why, "%s%s excluded", i ? ", " : "", members.items[i]);
			else if (r == -2)
				buf_printf(&why, "%s%s not in the partition", i ? ", " : "", members.items[i]);
			else
				buf_printf(&why, "%s%s %.*s", i ? ", " : "", members.items[i], (int)slen, st);
		}
		if (members.len > 16)
			buf_printf(&why, ", ... (%zu nodes)", members.len);
		if (max_avail)
			j->info.reason = arena_printf(&j->arena, "node group %.*s: no usable node (%s); not submitted",
			                              (int)(c3 - spec), spec, members.len ? why.data : "the group is empty");
		else
			j->info.reason = arena_printf(&j->arena,
			                              "node group %.*s: %zu node%s asked, %zu usable (%s); not submitted",
			                              (int)(c3 - spec), spec, want, want == 1 ? "" : "s", have,
			                              members.len ? why.data : "the group is empty");
	}
	buf_free(&why);
	return ok;
}

bool
slurm_choose_nodes(struct job *j, struct buf *nodelist, int *count)
{
	char *argv[] = {"sinfo", "-h", "-N", "-o", "%N|%P|%t", NULL};
	struct buf out = {0}, err = {0};
	struct nodes chosen = {0}, excl = {0};
	size_t i;
	bool ok = true;

	if (j->exclude_nodes && !hostlist_expand(&j->arena, j->exclude_nodes, &excl.items, &excl.len)) {
		j->info.reason = arena_printf(&j->arena, "bad excluded node list '%s'", j->exclude_nodes);
		return false;
	}
	if (j->also_nodes && !hostlist_expand(&j->arena, j->also_nodes, &chosen.items, &chosen.len)) {
		j->info.reason = arena_printf(&j->arena, "bad node list '%s'", j->also_nodes);
		return false;
	}
	if (slurm_cmd(j, argv, NULL, 4, false, &out, &err) != 0) {
		j->info.reason = arena_printf(&j->arena, "sinfo, to choose the nodes of a node group: %.*s",
		                              (int)strcspn(buf_str(&err), "\n"), err.len ? buf_str(&err) : "failed");
		ok = false;
	}
	for (i = 0; ok && i < j->n_node_groups; i++)
		ok = choose_group(j, j->node_groups[i], buf_str(&out), &excl, &chosen);
	for (i = 0; ok && i < chosen.len; i++)
		buf_printf(nodelist, "%s%s", i ? "," : "", chosen.items[i]);
	*count = (int)chosen.len;
	buf_free(&out);
	buf_free(&err);
	return ok;
}
