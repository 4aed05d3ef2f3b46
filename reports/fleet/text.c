/* fleet/text.c: the fleet verdict as text: the one line (terminal,
 * summary.json), its section of summary.md, and JUnit's failure per
 * drained node. */
#define _POSIX_C_SOURCE 200809L
#include <string.h>

#include "reports/fleet/fleet.h"
#include "reports/results/format.h"
#include "gen/base/util.h"

enum { LINE_NODES = 10, LINE_WHY = 3 };

static void
node_why(struct buf *out, const struct fleet_node *n, size_t max)
{
	size_t i;

	if (!n->n_why)
		return;
	buf_puts(out, " (");
	for (i = 0; i < n->n_why && i < max; i++)
		buf_printf(out, "%s%s", i ? ", " : "", n->why[i]);
	if (n->n_why > max)
		buf_printf(out, ", %zu more", n->n_why - max);
	buf_putc(out, ')');
}

/* The nodes of state st, with their reasons, at most LINE_NODES. */
static void
state_list(struct buf *out, const struct fleet *f, enum fleet_state st)
{
	size_t i, k = 0, n = st == FLEET_DRAIN ? f->n_drain : f->n_inconclusive;

	for (i = 0; i < f->n_nodes && k < LINE_NODES; i++) {
		if (f->nodes[i].state != st)
			continue;
		buf_printf(out, "%s%s", k++ ? ", " : "", f->nodes[i].name);
		node_why(out, &f->nodes[i], LINE_WHY);
	}
	if (n > k)
		buf_printf(out, " and %zu more", n - k);
}

void
fleet_verdict_line(const struct fleet *f, struct buf *out)
{
	if (!f->n_nodes) {
		buf_puts(out, "Drain: none; no run recorded the nodes it ran on");
		return;
	}
	buf_puts(out, "Drain: ");
	if (f->n_drain)
		state_list(out, f, FLEET_DRAIN);
	else
		buf_puts(out, "none");
	buf_printf(out, "; healthy: %zu node%s", f->n_healthy, f->n_healthy == 1 ? "" : "s");
	if (f->n_inconclusive) {
		buf_puts(out, "; inconclusive: ");
		state_list(out, f, FLEET_INCONCLUSIVE);
	}
}

/* Markdown text from run output: no markup, links, table breaks or
 * control characters. */
static void
md_text(struct buf *out, const char *s)
{
	for (; s && *s; s++) {
		if (strchr("\\`*_[]<>|#!&", *s))
			buf_putc(out, '\\');
		if ((unsigned char)*s < 0x20 || *s == 0x7F)
			buf_putc(out, ' ');
		else
			buf_putc(out, *s);
	}
}

void
fleet_markdown(const struct fleet *f, struct buf *out)
{
	struct buf line = {0};
	size_t i, k;

	buf_puts(out, "## Fleet verdict\n\n**");
	fleet_verdict_line(f, &line);
	md_text(out, line.data);
	buf_puts(out, "**\n\n");
	if (f->n_drain || f->n_inconclusive) {
		buf_puts(out, "| node | verdict | why |\n| --- | --- | --- |\n");
		for (i = 0; i < f->n_nodes; i++) {
			const struct fleet_node *n = &f->nodes[i];
			if (n->state == FLEET_HEALTHY)
				continue;
			buf_puts(out, "| ");
			md_text(out, n->name);
			buf_printf(out, " | %s | ", n->state == FLEET_DRAIN ? "drain" : "inconclusive");
			for (k = 0; k < n->n_why; k++) {
				if (k)
					buf_puts(out, "; ");
				md_text(out, n->why[k]);
			}
			buf_puts(out, " |\n");
		}
		buf_putc(out, '\n');
	}
	for (i = 0; i < f->n_multi; i++) {
		buf_puts(out, i ? "- " : "Multi-node runs:\n\n- ");
		md_text(out, f->multi[i]);
		buf_puts(out, i + 1 == f->n_multi ? "\n\n" : "\n");
	}
	for (i = 0; i < f->n_notes; i++) {
		buf_puts(out, i ? "- " : "Peers:\n\n- ");
		md_text(out, f->notes[i]);
		buf_puts(out, i + 1 == f->n_notes ? "\n\n" : "\n");
	}
	buf_free(&line);
}

void
fleet_junit(const struct fleet *f, struct buf *out)
{
	struct buf msg = {0};
	size_t i, k;

	if (!f || !f->n_drain)
		return;
	buf_printf(out, "  <testsuite name=\"fleet verdict\" tests=\"%zu\" failures=\"%zu\" errors=\"0\" skipped=\"0\" "
	                "time=\"0.000\">\n", f->n_drain, f->n_drain);
	for (i = 0; i < f->n_nodes; i++) {
		const struct fleet_node *n = &f->nodes[i];
		if (n->state != FLEET_DRAIN)
			continue;
		msg.len = 0;
		buf_puts(&msg, "drain ");
		buf_puts(&msg, n->name);
		buf_puts(&msg, ": ");
		for (k = 0; k < n->n_why; k++)
			buf_printf(&msg, "%s%s", k ? "; " : "", n->why[k]);
		buf_puts(out, "    <testcase name=\"");
		xml_escape(out, n->name, strlen(n->name), true);
		buf_puts(out, "\" classname=\"fleet verdict\" time=\"0.000\">\n      <failure type=\"drain\" message=\"");
		xml_escape(out, msg.data, msg.len, true);
		buf_puts(out, "\">");
		xml_escape(out, msg.data, msg.len, false);
		buf_puts(out, "</failure>\n    </testcase>\n");
	}
	buf_puts(out, "  </testsuite>\n");
	buf_free(&msg);
}
