/* fleet_test.c: the peer statistics and verdict of reports/fleet/fleet.c:
 * median, MAD, the outlier test in both directions, metric directions,
 * and fleet_grade on a campaign built in memory. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "tap.h"
#include "reports/fleet/fleet.h"
#include "reports/fleet/json.h"
#include "reports/results/results.h"
#include "reports/results/plan.h"
#include "gen/base/util.h"

static bool
near(double a, double b)
{
	return fabs(a - b) < 1e-9;
}

static void
stats(void)
{
	double odd[] = {5, 1, 3}, even[] = {4, 1, 3, 2}, one[] = {7}, v[] = {1, 2, 3, 4, 100}, scr[5], gap;

	ok(near(fleet_median(odd, 3), 3), "median of 3 values");
	ok(near(fleet_median(even, 4), 2.5), "median of 4 values: the mean of the middle two");
	ok(near(fleet_median(one, 1), 7), "median of one value");
	ok(near(fleet_mad(v, 5, 3, scr), 1), "MAD of 1 2 3 4 100 about 3 is 1 (the outlier does not move it)");
	ok(near(v[4], 100), "fleet_mad leaves its input alone");

	ok(fleet_outlier(289.9, 483.1, 2, false, FLEET_DIR_HIGHER, 0.10, 3, &gap) && near(round(100 * gap), 40),
	   "40%% below, far beyond 3 MAD: an outlier (gap 40%%)");
	ok(!fleet_outlier(470, 483.1, 2, false, FLEET_DIR_HIGHER, 0.10, 3, &gap), "3%% below: within the tolerance");
	ok(!fleet_outlier(400, 483.1, 40, false, FLEET_DIR_HIGHER, 0.10, 3, &gap),
	   "17%% below but within 3 MAD of a spread fleet: not an outlier");
	ok(fleet_outlier(400, 483.1, 0, false, FLEET_DIR_HIGHER, 0.10, 3, &gap), "MAD 0 (all peers equal): tolerance alone");
	ok(!fleet_outlier(600, 483.1, 2, false, FLEET_DIR_HIGHER, 0.10, 3, &gap) && gap < 0,
	   "far above on a higher-is-better metric: better, not an outlier");
	ok(fleet_outlier(130, 100, 3, false, FLEET_DIR_LOWER, 0.10, 3, &gap) && near(round(100 * gap), 30),
	   "lower is better: 30%% above the median is an outlier");
	ok(!fleet_outlier(70, 100, 3, false, FLEET_DIR_LOWER, 0.10, 3, &gap), "lower is better: below the median is fine");
	ok(!fleet_outlier(5, 0, 0, false, FLEET_DIR_LOWER, 0.10, 3, &gap), "a median of 0 flags nothing");
	ok(!fleet_outlier(1, 100, 0, false, FLEET_DIR_NONE, 0.10, 3, &gap), "no direction: never an outlier");

	/* the ratio scale */
	{
		double r[] = {1, 2, 4, 8, 800}, lmad = -1;
		ok(fleet_log_mad(r, 5, 4, scr, &lmad) && near(lmad, log(2)),
		   "log MAD of 1 2 4 8 800 about 4 is log 2 (the outlier does not move it)");
		r[0] = 0;
		ok(!fleet_log_mad(r, 5, 4, scr, &lmad) && near(lmad, log(2)), "a value of 0: no log MAD, *mad untouched");
		r[0] = -1;
		ok(!fleet_log_mad(r, 5, 4, scr, &lmad), "a negative value: no log MAD");
		r[0] = 1;
		ok(!fleet_log_mad(r, 5, 0, scr, &lmad), "a median of 0: no log MAD");
	}
	/* CI's 4 nodes sharing 2 cores, one capped at 5% of a CPU: fp64 GFLOP/s 6.93 12.57 9.0 and 0.98.
	 * Median 7.97; differences 6.99 1.04 4.60 1.03, MAD 2.82: 0.98 is within 3 MADs. As ratios
	 * the MAD is 0.30 and 0.98 is log(8.1) = 2.09 away. */
	{
		double r[] = {6.93, 12.57, 9.0, 0.98}, med, lmad, lin;
		med = fleet_median(r, 4);
		lin = fleet_mad(r, 4, med, scr);
		ok(!fleet_outlier(0.98, med, lin, false, FLEET_DIR_HIGHER, 0.10, 3, &gap) && gap > 0.8,
		   "8 times slower, peers spread 2 to 1, by differences: hidden (%.0f%% below, MAD %.2f)", 100 * gap, lin);
		ok(fleet_log_mad(r, 4, med, scr, &lmad) && fabs(lmad - 0.30) < 0.01, "log MAD %.3f", lmad);
		ok(fleet_outlier(0.98, med, lmad, true, FLEET_DIR_HIGHER, 0.10, 3, &gap) && near(round(100 * gap), 88),
		   "as ratios: an outlier, 88%% below");
		ok(!fleet_outlier(6.93, med, lmad, true, FLEET_DIR_HIGHER, 0.10, 3, &gap) && gap > 0.1,
		   "the slowest healthy node, 13%% below: within 3 MADs as ratios");
		ok(fleet_outlier(8.1, 1, lmad, true, FLEET_DIR_LOWER, 0.10, 3, &gap),
		   "lower is better, 8 times the median: an outlier as ratios");
		ok(!fleet_outlier(0.5, 1, lmad, true, FLEET_DIR_LOWER, 0.10, 3, &gap), "lower is better, half the median: fine");
		ok(fleet_outlier(400, 483.1, 0, true, FLEET_DIR_HIGHER, 0.10, 3, &gap) &&
		   !fleet_outlier(470, 483.1, 0, true, FLEET_DIR_HIGHER, 0.10, 3, &gap),
		   "as ratios with MAD 0: the tolerance alone, as by differences");
	}

	ok(fleet_direction("max_busbw", "GB/s") == FLEET_DIR_HIGHER, "GB/s: higher is better");
	ok(fleet_direction("bf16_tflops", "TFLOP/s") == FLEET_DIR_HIGHER, "TFLOP/s: higher is better");
	ok(fleet_direction("time", "us") == FLEET_DIR_LOWER, "us: lower is better");
	ok(fleet_direction("temperature", "C") == FLEET_DIR_LOWER, "temperature (C): lower is better");
	ok(fleet_direction("pcie_width", "lanes") == FLEET_DIR_HIGHER, "PCIe lanes: higher is better");
	ok(fleet_direction("wrong", "count") == FLEET_DIR_NONE, "counts: no direction");
	ok(fleet_direction("max_busbw_size", "B") == FLEET_DIR_NONE, "sizes: no direction");
	ok(fleet_direction("p99_latency", "") == FLEET_DIR_LOWER, "no unit, 'latency' in the name: lower");
}

/* n single-node runs of one test, node i measuring bw[i] */
static void
campaign(struct arena *a, struct plan *p, struct summary *s, const double *bw, size_t n)
{
	size_t i;

	memset(p, 0, sizeof(*p));
	memset(s, 0, sizeof(*s));
	p->n_tests = 1;
	p->tests = arena_alloc(a, sizeof(*p->tests));
	p->tests[0].id = "ar";
	p->tests[0].name = "nccl";
	p->tests[0].workload = "NcclTest";
	fleet_peers_default(&p->tests[0].peers);
	p->n_runs = s->n_runs = n;
	p->runs = arena_alloc(a, n * sizeof(*p->runs));
	s->runs = arena_alloc(a, n * sizeof(*s->runs));
	for (i = 0; i < n; i++) {
		struct run_report *r = &s->runs[i];
		struct metric *m = arena_alloc(a, 2 * sizeof(*m));
		p->runs[i].dir = r->dir = arena_printf(a, "ar-%zu/0", i);
		p->runs[i].id = r->id = "ar";
		r->nodes = arena_printf(a, "gpu-node-%02zu", i + 1);
		r->outcome = OUTCOME_PASSED;
		m[0] = (struct metric){"max_busbw", bw[i], "GB/s", r->nodes, -1, "H100", -1, NULL, CHECK_NONE, NULL};
		m[1] = (struct metric){"wrong", 0, "count", r->nodes, -1, "H100", -1, NULL, CHECK_NONE, NULL};
		r->metrics = m;
		r->n_metrics = 2;
	}
}

static void
grade(void)
{
	static const double slow[] = {483.1, 480.2, 485.0, 483.1, 289.9, 483.1, 480.2, 485.0};
	static const double even[] = {483.1, 480.2, 485.0, 470.0, 490.0, 475.5, 480.2, 485.0};
	struct arena a = {0};
	struct plan p;
	struct summary s;
	struct fleet f;
	struct buf b = {0};

	campaign(&a, &p, &s, slow, 8);
	fleet_grade(&a, &p, &s, &f);
	ok(s.runs[4].outcome == OUTCOME_SUSPECT, "the slow node's run is suspect");
	ok(s.runs[4].reason && !strcmp(s.runs[4].reason, "max_busbw on gpu-node-05: 289.9 GB/s is 40% below the "
	                                                "median of 8 nodes (483.1 GB/s)"),
	   "its reason names node, value, gap, peers and median (%s)", s.runs[4].reason);
	ok(s.counts[OUTCOME_SUSPECT] == 1 && s.counts[OUTCOME_PASSED] == 7, "counts follow");
	ok(f.n_drain == 1 && !strcmp(f.nodes[0].name, "gpu-node-05") && f.n_healthy == 7, "gpu-node-05 drained, 7 healthy");
	ok(fleet_run_flagged(&f, 4) && !fleet_run_flagged(&f, 3), "fleet_run_flagged says which run");
	fleet_verdict_line(&f, &b);
	ok(!strcmp(b.data, "Drain: gpu-node-05 (nccl max_busbw 40% below peers); healthy: 7 nodes"), "verdict: %s",
	   b.data);
	/* the same results again (report --html-only): the same verdict */
	fleet_grade(&a, &p, &s, &f);
	ok(s.runs[4].outcome == OUTCOME_SUSPECT && f.n_drain == 1, "grading twice gives the same verdict");

	campaign(&a, &p, &s, even, 8);
	fleet_grade(&a, &p, &s, &f);
	ok(f.n_drain == 0 && f.n_healthy == 8 && s.counts[OUTCOME_SUSPECT] == 0, "nodes within 3%%: nothing drained");

	/* four nodes that share their CPUs: the healthy ones spread 2 to 1, the capped one 8 times slow */
	{
		static const double noisy[] = {6.93, 12.57, 9.0, 0.98}, spread[] = {6.93, 12.57, 9.0, 8.0};
		campaign(&a, &p, &s, noisy, 4);
		fleet_grade(&a, &p, &s, &f);
		ok(f.n_drain == 1 && !strcmp(f.nodes[0].name, "gpu-node-04") && f.n_healthy == 3,
		   "peers spread 2 to 1, one node 8 times slower: that node drained, 3 healthy");
		campaign(&a, &p, &s, spread, 4);
		fleet_grade(&a, &p, &s, &f);
		ok(f.n_drain == 0 && f.n_healthy == 4, "peers spread 2 to 1 and none far off: nothing drained");
	}

	campaign(&a, &p, &s, slow, 3);
	fleet_grade(&a, &p, &s, &f);
	ok(f.n_drain == 0 && f.n_notes == 1 &&
	   !strcmp(f.notes[0], "nccl: not enough peers to compare (3 nodes; 4 needed)"),
	   "3 nodes: not enough peers to compare");

	campaign(&a, &p, &s, slow, 8);
	p.tests[0].peers.tolerance = 0.5;
	fleet_grade(&a, &p, &s, &f);
	ok(f.n_drain == 0, "tolerance 0.5: 40%% below is tolerated");
	campaign(&a, &p, &s, slow, 8);
	p.tests[0].peers.enabled = false;
	fleet_grade(&a, &p, &s, &f);
	ok(f.n_drain == 0 && f.n_values == 0, "peers off for the test: nothing compared");
	/* a failure where the peers passed drains; one node's own iterations are no peers */
	campaign(&a, &p, &s, even, 8);
	s.runs[2].outcome = OUTCOME_FAILED;
	fleet_grade(&a, &p, &s, &f);
	ok(f.n_drain == 1 && !strcmp(f.nodes[0].name, "gpu-node-03") && f.nodes[0].n_why == 1 &&
	   !strcmp(f.nodes[0].why[0], "ar failed where 7 peers passed"), "failed where 7 peers passed: drained");
	campaign(&a, &p, &s, even, 8);
	for (size_t i = 0; i < 8; i++)
		s.runs[i].nodes = s.runs[i].metrics[0].node = s.runs[i].metrics[1].node = "localhost";
	s.runs[2].outcome = OUTCOME_FAILED;
	fleet_grade(&a, &p, &s, &f);
	b.len = 0;
	fleet_verdict_line(&f, &b);
	ok(f.n_drain == 0 && f.n_inconclusive == 1 && !strcmp(f.nodes[0].why[0], "ar failed"),
	   "a failed iteration among the same node's passed ones: inconclusive, not drained (%s)", b.data);
	buf_free(&b);
	arena_free(&a);
}

/* run 4 of the slow campaign measured again beside gpu-node-01: at
 * again_self against the peer's 483 */
static void
again_campaign(struct arena *a, const char *root, struct plan *p, struct summary *s, struct fleet *f,
               const char *job, const char *outcome, double again_self)
{
	static const double slow[] = {483.1, 480.2, 485.0, 483.1, 289.9, 483.1, 480.2, 485.0};
	struct metric self = {"max_busbw", again_self, "GB/s", NULL, -1, NULL, -1, NULL, CHECK_NONE, NULL};
	struct metric peer = {"max_busbw", 483.0, "GB/s", NULL, -1, NULL, -1, NULL, CHECK_NONE, NULL};
	struct fleet_again_record e = {"42", "gpu-node-05", "gpu-node-01", outcome, "passed", &self, &peer, 1, 1};
	char *d = arena_printf(a, "%s/ar-4", root);

	mkdir(d, 0777);
	mkdir(arena_printf(a, "%s/0", d), 0777);
	ok(fleet_again_write(root, "ar-4/0", &e), "again.json written");
	campaign(a, p, s, slow, 8);
	s->root = root;
	s->runs[4].job_id = job;
	fleet_grade(a, p, s, f);
}

static void
again(void)
{
	struct arena a = {0};
	struct plan p;
	struct summary s;
	struct fleet f;
	struct buf b = {0};
	char root[] = "/tmp/kunai-fleet-test-XXXXXX";

	if (!mkdtemp(root)) {
		ok(false, "mkdtemp");
		return;
	}
	again_campaign(&a, root, &p, &s, &f, "42", "passed", 280.0);
	fleet_verdict_line(&f, &b);
	ok(f.n_drain == 1 && s.runs[4].outcome == OUTCOME_SUSPECT &&
	   !strcmp(b.data, "Drain: gpu-node-05 (nccl max_busbw 40% below peers, reproduced 2 of 2: 42% worse than "
	                   "gpu-node-01 side by side); healthy: 7 nodes"),
	   "42%% worse again beside a peer: reproduced, drained, and it says so (%s)", b.data);
	again_campaign(&a, root, &p, &s, &f, "42", "passed", 470.0);
	b.len = 0;
	fleet_verdict_line(&f, &b);
	ok(f.n_drain == 0 && f.n_healthy == 8 && s.runs[4].outcome == OUTCOME_PASSED && !fleet_run_flagged(&f, 4),
	   "3%% worse again: not reproduced; not suspect, nothing drained (%s)", b.data);
	ok(f.n_notes == 1 && !strcmp(f.notes[0], "gpu-node-05: nccl max_busbw 40% below peers, then 3% below "
	                                         "gpu-node-01 measured again side by side: not reproduced, not drained"),
	   "the note says why (%s)", f.n_notes ? f.notes[0] : "");
	again_campaign(&a, root, &p, &s, &f, "43", "passed", 470.0);
	ok(f.n_drain == 1 && s.runs[4].outcome == OUTCOME_SUSPECT, "again.json of an earlier job: measured once, drained");
	again_campaign(&a, root, &p, &s, &f, "42", "failed", 0);
	ok(f.n_drain == 1 && strstr(f.nodes[0].why[0], "reproduced 2 of 2: failed again where gpu-node-01 passed"),
	   "failed again where the peer passed: reproduced (%s)", f.nodes[0].why[0]);
	b.len = 0;
	buf_printf(&b, "rm -rf '%s'", root);
	ok(system(b.data) == 0, "cleaned up");
	buf_free(&b);
	arena_free(&a);
}

int
main(void)
{
	stats();
	grade();
	again();
	return tap_done();
}
