/* plot.c: which plot a workload's report gets, and the name of a run's
 * plot and page: what gen's report edges and the HTML report must agree
 * on. The plot kinds are reports/write/plot/KIND.gp. */
#include <stdint.h>
#include <string.h>

#include "workload.h"
#include "gen/base/util.h"

const char *
workload_plot(const struct workload *wl)
{
	static const struct {
		const char *name, *kind;
	} kinds[] = {
		{"KunaiAllReduce", "busbw"}, {"KunaiBisection", "busbw"}, {"KunaiDdpSmoke", "loss"},
		{"KunaiGemm", "gemm"},       {"KunaiTrainSmoke", "loss"}, {"NcclTest", "busbw"},
		{"OSUBench", "osu"},         {"UCCTest", "ucc"},
	};
	size_t i;

	for (i = 0; wl && i < LEN(kinds); i++)
		if (strcmp(kinds[i].name, wl->name) == 0)
			return kinds[i].kind;
	return NULL;
}

void
workload_run_stem(size_t index, const char *dir, struct buf *out)
{
	const char *p;

	buf_printf(out, "%zu-", index + 1);
	for (p = dir; *p; p++) {
		unsigned char c = (unsigned char)*p;
		if (c == '/')
			buf_putc(out, '-');
		else if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
		         c == '_' || c == '-')
			buf_putc(out, (char)c);
		else
			buf_putc(out, '_');
	}
}

void
workload_test_stem(const char *id, struct buf *out)
{
	uint32_t h = 2166136261u; /* FNV-1a: two ids that clean alike differ */
	const char *p;

	buf_puts(out, "test-");
	for (p = id; *p; p++) {
		unsigned char c = (unsigned char)*p;
		h = (h ^ c) * 16777619u;
		if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_' ||
		    c == '-')
			buf_putc(out, (char)c);
		else
			buf_putc(out, '_');
	}
	buf_printf(out, "-%08x", (unsigned)h);
}
