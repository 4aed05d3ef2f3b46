/* health: GPU inventory and health gates from nvidia-smi: the GPU count
 * against --expect-gpus, ECC mode and uncorrected errors, pending page
 * retirement and row remapping (and remap failures), the clock event
 * reasons that mean throttling (hw_slowdown, sw/hw thermal, power brake),
 * and PCIe links narrower than their maximum; NVRM Xid lines in the kernel
 * log are counted when dmesg is readable. A machine without nvidia-smi is
 * "not available": SKIPPED, or FAILURE when GPUs are expected. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "wl.h"

enum { MAX_GPUS = 64, MAX_FIELDS = 32 };

/* The --query-gpu fields, in order; older drivers name the last one
 * clocks_throttle_reasons.active. */
static const char *const fields[] = {
	"index", "pci.bus_id", "name", "memory.total", "ecc.mode.current", "ecc.errors.uncorrected.volatile.total",
	"ecc.errors.uncorrected.aggregate.total", "retired_pages.pending", "temperature.gpu", "power.draw",
	"clocks.sm", "clocks.max.sm", "pcie.link.gen.current", "pcie.link.gen.max", "pcie.link.width.current",
	"pcie.link.width.max", "driver_version", "clocks_event_reasons.active",
};
enum { F_INDEX, F_BUS, F_NAME, F_MEM, F_ECC, F_UNCORR, F_UNCORR_AGG, F_RETIRE_PENDING, F_TEMP, F_POWER,
       F_CLK, F_CLK_MAX, F_GEN, F_GEN_MAX, F_WIDTH, F_WIDTH_MAX, F_DRIVER, F_EVENTS, F_COUNT };

/* Clock event reason bits that mean the GPU is being slowed down. */
static const struct {
	unsigned long long bit;
	const char *name;
} throttles[] = {
	{0x8, "hw_slowdown"}, {0x20, "sw_thermal_slowdown"}, {0x40, "hw_thermal_slowdown"},
	{0x80, "hw_power_brake_slowdown"},
};

struct gpu {
	char f[F_COUNT][128];
	long remap[4]; /* correctable, uncorrectable, pending, failure; -1: not available */
};

struct opts {
	long expect;
	const char *smi;
	bool force_wrong, no_dmesg;
};

static const char usage[] =
	"usage: health [options]\n"
	"GPU inventory and health gates from nvidia-smi.\n\n"
	"  --expect-gpus N     the node must have exactly N GPUs (0: none expected; a\n"
	"                      machine without nvidia-smi is then SKIPPED, not FAILURE)\n"
	"  --nvidia-smi PATH   the nvidia-smi to run (default: nvidia-smi from PATH)\n"
	"  --no-dmesg          do not count NVRM Xid lines in the kernel log\n"
	"  --force-wrong       report an uncorrected ECC error on GPU 0 (tests the gate)\n"
	"  --help              this help\n\n"
	"Gates: GPU count, ECC enabled, no uncorrected volatile ECC errors, no pending\n"
	"page retirement or row remapping, no row remap failure, no throttling clock\n"
	"event (hw_slowdown, thermal, power brake), PCIe width at its maximum.\n"
	"Prints [HEALTH] log lines, one JSON line, then [RESULT] SUCCESS|FAILURE|SKIPPED.";

/* Runs argv, its standard output into out (NUL-terminated, truncated at
 * n - 1 bytes). Returns the exit status, 127 when it cannot be started. */
static int
capture(char *const argv[], char *out, size_t n)
{
	int p[2], status = 0;
	size_t len = 0;
	ssize_t k;
	pid_t pid;
	char sink[4096];

	out[0] = '\0';
	if (pipe(p) != 0)
		return 127;
	pid = fork();
	if (pid < 0) {
		close(p[0]);
		close(p[1]);
		return 127;
	}
	if (pid == 0) {
		dup2(p[1], 1);
		close(p[0]);
		close(p[1]);
		execvp(argv[0], argv);
		_exit(127);
	}
	close(p[1]);
	for (;;) {
		k = len + 1 < n ? read(p[0], out + len, n - 1 - len) : read(p[0], sink, sizeof(sink));
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			break;
		if (len + 1 < n)
			len += (size_t)k;
	}
	out[len] = '\0';
	close(p[0]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

/* Splits a CSV line on commas, trimming blanks; returns the field count. */
static int
split(char *line, char **f, int max)
{
	int n = 0, i;
	char *p = line, *e;

	while (n < max) {
		while (*p == ' ')
			p++;
		f[n++] = p;
		e = strchr(p, ',');
		if (!e)
			break;
		*e = '\0';
		p = e + 1;
	}
	for (i = 0; i < n; i++) {
		size_t l = strlen(f[i]);
		while (l && (f[i][l - 1] == ' ' || f[i][l - 1] == '\r'))
			f[i][--l] = '\0';
	}
	return n;
}

/* "[N/A]", "[Not Supported]", "N/A" or empty: the driver cannot say. */
static bool
na(const char *v)
{
	return !*v || v[0] == '[' || strcmp(v, "N/A") == 0;
}

static long
num(const char *v)
{
	char *e;
	long x;

	if (na(v))
		return -1;
	x = strtol(v, &e, 10);
	return e == v ? -1 : x;
}

/* Fills g[] from --query-gpu; returns the GPU count, or -1 when nvidia-smi
 * cannot be run (why says so). */
static int
query_gpus(const struct opts *o, struct gpu *g, char *why, size_t whyn)
{
	static char out[1 << 16];
	char q[1024] = "--query-gpu=", *lines, *line, *save = NULL, *f[MAX_FIELDS];
	char *argv[] = {(char *)o->smi, q, "--format=csv,noheader,nounits", NULL};
	size_t i;
	int rc, n = 0, nf, attempt;

	for (attempt = 0; attempt < 2; attempt++) {
		size_t len = 12;
		for (i = 0; i < F_COUNT && len < sizeof(q); i++)
			len += (size_t)snprintf(q + len, sizeof(q) - len, "%s%s", i ? "," : "",
			                        i == F_EVENTS && attempt ? "clocks_throttle_reasons.active" : fields[i]);
		rc = capture(argv, out, sizeof(out));
		if (rc == 0)
			break;
		if (rc == 127) {
			snprintf(why, whyn, "nvidia-smi not available ('%s' cannot be run: no NVIDIA driver here?)", o->smi);
			return -1;
		}
	}
	if (rc != 0) {
		/* "No devices were found" exits 6 */
		snprintf(why, whyn, "nvidia-smi --query-gpu failed (exit %d): %.200s", rc, out);
		return strstr(out, "No devices") ? 0 : -1;
	}
	lines = out;
	for (line = strtok_r(lines, "\n", &save); line && n < MAX_GPUS; line = strtok_r(NULL, "\n", &save)) {
		nf = split(line, f, MAX_FIELDS);
		if (nf < F_COUNT)
			continue;
		for (i = 0; i < F_COUNT; i++)
			snprintf(g[n].f[i], sizeof(g[n].f[i]), "%s", f[i]);
		g[n].remap[0] = g[n].remap[1] = g[n].remap[2] = g[n].remap[3] = -1;
		n++;
	}
	return n;
}

/* Row remapping (A100 and later); absent elsewhere: "not available". */
static bool
query_remap(const struct opts *o, struct gpu *g, int n)
{
	static char out[1 << 16];
	char *argv[] = {(char *)o->smi,
	                "--query-remapped-rows=gpu_bus_id,remapped_rows.correctable,remapped_rows.uncorrectable,"
	                "remapped_rows.pending,remapped_rows.failure",
	                "--format=csv,noheader,nounits", NULL};
	char *line, *save = NULL, *f[8];
	int i, k;

	if (capture(argv, out, sizeof(out)) != 0)
		return false;
	for (line = strtok_r(out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (split(line, f, 8) < 5)
			continue;
		for (i = 0; i < n; i++)
			if (strcasecmp(f[0], g[i].f[F_BUS]) == 0)
				for (k = 0; k < 4; k++)
					g[i].remap[k] = num(f[k + 1]);
	}
	return true;
}

/* NVRM Xid lines in the kernel log; -1 when it cannot be read. */
static long
xids(void)
{
	static char out[1 << 20];
	char *argv[] = {"dmesg", NULL}, *p;
	long n = 0;

	if (capture(argv, out, sizeof(out)) != 0)
		return -1;
	for (p = out; (p = strstr(p, "NVRM: Xid")); p++)
		n++;
	return n;
}

static void
check_gpu(struct wl *w, struct gpu *g, cJSON *arr)
{
	const char *id = g->f[F_INDEX];
	unsigned long long ev = 0;
	cJSON *j = cJSON_CreateObject();
	char tr[256] = "";
	size_t i;

	wl_log(w, "GPU %s %s %s: %s MiB, ECC %s, uncorrected %s (volatile) %s (aggregate), retire pending %s, "
	       "remapped rows %ld/%ld pending %ld failure %ld, PCIe Gen%s x%s (max Gen%s x%s), %s C, %s W, "
	       "SM %s/%s MHz, events %s", id, g->f[F_BUS], g->f[F_NAME], g->f[F_MEM], g->f[F_ECC], g->f[F_UNCORR],
	       g->f[F_UNCORR_AGG], g->f[F_RETIRE_PENDING], g->remap[0], g->remap[1], g->remap[2], g->remap[3],
	       g->f[F_GEN], g->f[F_WIDTH], g->f[F_GEN_MAX], g->f[F_WIDTH_MAX], g->f[F_TEMP], g->f[F_POWER], g->f[F_CLK],
	       g->f[F_CLK_MAX], g->f[F_EVENTS]);
	for (i = 0; i < F_COUNT; i++)
		cJSON_AddStringToObject(j, fields[i], g->f[i]);
	cJSON_AddNumberToObject(j, "remapped_rows.uncorrectable", (double)g->remap[1]);
	cJSON_AddNumberToObject(j, "remapped_rows.pending", (double)g->remap[2]);
	cJSON_AddNumberToObject(j, "remapped_rows.failure", (double)g->remap[3]);
	cJSON_AddItemToArray(arr, j);
	if (strcmp(g->f[F_ECC], "Disabled") == 0)
		wl_fail(w, "GPU %s: ECC is disabled", id);
	if (num(g->f[F_UNCORR]) > 0)
		wl_fail(w, "GPU %s: %s uncorrected ECC errors since the driver loaded", id, g->f[F_UNCORR]);
	if (strcmp(g->f[F_RETIRE_PENDING], "Yes") == 0)
		wl_fail(w, "GPU %s: a page retirement is pending (reset the GPU)", id);
	if (g->remap[2] > 0)
		wl_fail(w, "GPU %s: %ld row remappings pending (reset the GPU)", id, g->remap[2]);
	if (g->remap[3] > 0)
		wl_fail(w, "GPU %s: row remapping failed (the GPU needs replacing)", id);
	if (!na(g->f[F_EVENTS]))
		ev = strtoull(g->f[F_EVENTS], NULL, 16);
	for (i = 0; i < sizeof(throttles) / sizeof(throttles[0]); i++)
		if (ev & throttles[i].bit)
			snprintf(tr + strlen(tr), sizeof(tr) - strlen(tr), "%s%s", *tr ? ", " : "", throttles[i].name);
	if (*tr)
		wl_fail(w, "GPU %s: throttled (%s)", id, tr);
	if (num(g->f[F_WIDTH]) >= 0 && num(g->f[F_WIDTH_MAX]) > 0 && num(g->f[F_WIDTH]) < num(g->f[F_WIDTH_MAX]))
		wl_fail(w, "GPU %s: PCIe link x%s is narrower than its x%s", id, g->f[F_WIDTH], g->f[F_WIDTH_MAX]);
	/* the generation drops at idle: reported, not graded */
}

int
main(int argc, char **argv)
{
	struct opts o = {-1, "nvidia-smi", false, false};
	const struct wl_flag flags[] = {
		{.l = "--expect-gpus", .kind = WL_LONG, .dst = &o.expect, .lo = 0, .hi = MAX_GPUS,
		 .need = "needs an integer from 0 to 64"}, /* MAX_GPUS */
		{.l = "--nvidia-smi", .kind = WL_STRING, .dst = &o.smi, .lo = 1, .need = "needs a path"},
		{.l = "--no-dmesg", .kind = WL_SET, .dst = &o.no_dmesg},
		{.l = "--force-wrong", .kind = WL_SET, .dst = &o.force_wrong},
	};
	static struct gpu g[MAX_GPUS];
	struct wl w;
	char why[512];
	cJSON *arr, *metrics;
	long x;
	int i, n, rc;

	wl_init(&w, "health", "[HEALTH]");
	if ((rc = wl_parse(&w, argc, argv, flags, sizeof(flags) / sizeof(flags[0]), usage)))
		return rc < 0 ? 0 : rc; /* --help, or a usage error */
	n = query_gpus(&o, g, why, sizeof(why));
	if (n <= 0) {
		if (o.expect > 0)
			wl_fail(&w, "expected %ld GPU%s: %s", o.expect, o.expect == 1 ? "" : "s",
			        n < 0 ? why : "nvidia-smi found no GPU");
		else {
			wl_log(&w, "%s", n < 0 ? why : "nvidia-smi found no GPU");
			wl_skip(&w, "%s", n < 0 ? "nvidia-smi not available: no NVIDIA driver on this machine"
			                        : "no NVIDIA GPU on this machine");
		}
		return wl_finish(&w);
	}
	if (!query_remap(&o, g, n))
		wl_log(&w, "row remapping: not available (needs an A100 or later and a recent driver)");
	if (o.force_wrong) {
		snprintf(g[0].f[F_UNCORR], sizeof(g[0].f[F_UNCORR]), "1");
		wl_log(&w, "--force-wrong: GPU %s reports 1 uncorrected ECC error", g[0].f[F_INDEX]);
	}
	wl_log(&w, "nvidia-smi: %d GPU%s, driver %s", n, n == 1 ? "" : "s", g[0].f[F_DRIVER]);
	cJSON_AddNumberToObject(w.json, "gpus", n);
	cJSON_AddStringToObject(w.json, "driver", g[0].f[F_DRIVER]);
	arr = cJSON_AddArrayToObject(w.json, "devices");
	if (o.expect >= 0 && n != o.expect)
		wl_fail(&w, "expected %ld GPU%s, nvidia-smi lists %d", o.expect, o.expect == 1 ? "" : "s", n);
	for (i = 0; i < n; i++)
		check_gpu(&w, &g[i], arr);
	metrics = cJSON_AddObjectToObject(w.json, "metrics");
	cJSON_AddNumberToObject(metrics, "gpus", n);
	if (!o.no_dmesg) {
		x = xids();
		if (x < 0)
			wl_log(&w, "Xid errors: unknown (dmesg cannot be read; needs root or kernel.dmesg_restrict=0)");
		else {
			wl_log(&w, "Xid errors in the kernel log: %ld (reported, not graded: they may predate this run)", x);
			cJSON_AddNumberToObject(metrics, "xid_lines", (double)x);
		}
	}
	return wl_finish(&w);
}
