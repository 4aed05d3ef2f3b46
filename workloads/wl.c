/* wl.c: the result convention, flags, clock, RNG and nccl-tests rows shared
 * by kunai's workload programs (see wl.h). */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "wl.h"

/* In an AddressSanitizer build (configure --enable-sanitize): the CUDA
 * runtime maps memory where ASan's shadow gap would be. A weak definition:
 * mpi_gpu.c's replaces it for the MPI programs. */
__attribute__((weak)) const char *__asan_default_options(void);
__attribute__((weak)) const char *
__asan_default_options(void)
{
	return "protect_shadow_gap=0";
}

static void *
xcheck(void *p)
{
	if (!p) {
		fputs("out of memory\n[RESULT] FAILURE: out of memory\n", stdout);
		exit(1);
	}
	return p;
}

void
wl_init(struct wl *w, const char *name, const char *tag)
{
	memset(w, 0, sizeof(*w));
	w->name = name;
	w->tag = tag;
	w->json = xcheck(cJSON_CreateObject());
	w->failures = xcheck(cJSON_CreateArray());
	cJSON_AddStringToObject(w->json, "workload", name);
}

static char *
vfmt(const char *fmt, va_list ap)
{
	va_list ap2;
	char *s;
	int n;

	va_copy(ap2, ap);
	n = vsnprintf(NULL, 0, fmt, ap2);
	va_end(ap2);
	if (n < 0)
		n = 0;
	s = xcheck(malloc((size_t)n + 1));
	vsnprintf(s, (size_t)n + 1, fmt, ap);
	return s;
}

void
wl_log(struct wl *w, const char *fmt, ...)
{
	va_list ap;

	if (w->quiet)
		return;
	printf("%s ", w->tag);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
}

void
wl_fail(struct wl *w, const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	s = vfmt(fmt, ap);
	va_end(ap);
	cJSON_AddItemToArray(w->failures, xcheck(cJSON_CreateString(s)));
	/* other ranks are quiet, but their own failures must still be seen */
	if (w->quiet)
		fprintf(stderr, "%s FAIL: %s\n", w->tag, s);
	else
		wl_log(w, "FAIL: %s", s);
	free(s);
}

void
wl_skip(struct wl *w, const char *fmt, ...)
{
	va_list ap;

	free(w->skipped);
	va_start(ap, fmt);
	w->skipped = vfmt(fmt, ap);
	va_end(ap);
}

bool
wl_failed(const struct wl *w)
{
	return cJSON_GetArraySize(w->failures) > 0;
}

int
wl_finish(struct wl *w)
{
	int n = cJSON_GetArraySize(w->failures), i, rc = 0;
	char host[256] = "", *line;

	if (n > 0) {
		cJSON_AddStringToObject(w->json, "result", "FAILURE");
		rc = 1;
	} else if (w->skipped) {
		cJSON_AddStringToObject(w->json, "result", "SKIPPED");
		cJSON_AddStringToObject(w->json, "reason", w->skipped);
	} else
		cJSON_AddStringToObject(w->json, "result", "SUCCESS");
	cJSON_AddItemToObject(w->json, "failures", w->failures);
	/* the grader attributes every number of this line to this node */
	if (gethostname(host, sizeof(host) - 1) == 0 && host[0])
		cJSON_AddStringToObject(w->json, "host", host);
	if (!w->quiet) {
		line = cJSON_PrintUnformatted(w->json);
		if (line)
			puts(line);
		free(line);
		if (n > 0) {
			fputs("[RESULT] FAILURE: ", stdout);
			for (i = 0; i < n; i++)
				printf("%s%s", i ? "; " : "", cJSON_GetArrayItem(w->failures, i)->valuestring);
			putchar('\n');
		} else if (w->skipped)
			printf("[RESULT] SKIPPED: %s\n", w->skipped);
		else
			puts("[RESULT] SUCCESS");
	}
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "%s: cannot write standard output\n", w->name);
		rc = 1;
	}
	cJSON_Delete(w->json);
	free(w->skipped);
	w->json = w->failures = NULL;
	w->skipped = NULL;
	return rc;
}

void
wl_free(struct wl *w)
{
	cJSON_Delete(w->json);
	cJSON_Delete(w->failures);
	free(w->skipped);
	w->json = w->failures = NULL;
	w->skipped = NULL;
}

int
wl_usage_error(struct wl *w, const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	s = vfmt(fmt, ap);
	va_end(ap);
	/* every MPI rank parses the same flags: rank 0 speaks for them */
	if (!w->quiet) {
		fprintf(stderr, "%s: %s (see %s --help)\n", w->name, s, w->name);
		printf("[RESULT] FAILURE: usage: %s\n", s);
	}
	fflush(stdout);
	free(s);
	wl_free(w);
	return WL_EXIT_USAGE;
}

bool
wl_opt(char **argv, int argc, int *i, const char *name, const char **val)
{
	const char *a = argv[*i];
	size_t n = strlen(name);

	*val = NULL;
	if (strncmp(a, name, n) != 0 || (a[n] != '=' && a[n] != '\0'))
		return false;
	if (a[n] == '=')
		*val = a + n + 1;
	else if (*i + 1 < argc)
		*val = argv[++*i];
	return true;
}

/* The name argv[*i] gives f (f->s or f->l), its value in *v; NULL when it
 * is not f. */
static const char *
flag_match(const struct wl_flag *f, char **argv, int argc, int *i, const char **v)
{
	const char *a = argv[*i];

	*v = NULL;
	if (f->kind == WL_SET)
		return strcmp(a, f->l) == 0 ? f->l : f->s && strcmp(a, f->s) == 0 ? f->s : NULL;
	if (f->s && wl_opt(argv, argc, i, f->s, v))
		return f->s;
	return wl_opt(argv, argc, i, f->l, v) ? f->l : NULL;
}

static bool
flag_value(const struct wl_flag *f, const char *v)
{
	switch (f->kind) {
	case WL_LONG:
		return wl_parse_long(v, (long)f->lo, (long)f->hi, f->dst);
	case WL_DOUBLE:
		return wl_parse_double(v, f->lo, f->hi, f->dst);
	case WL_SIZE:
		return wl_parse_size(v, f->dst) && (double)*(size_t *)f->dst >= f->lo;
	case WL_STRING:
		if ((double)strlen(v) < f->lo)
			return false;
		*(const char **)f->dst = v;
		return true;
	case WL_CALL:
		return f->call(v, f->dst);
	case WL_SET:
		break;
	}
	return false;
}

int
wl_parse(struct wl *w, int argc, char **argv, const struct wl_flag *flags, size_t n, const char *usage)
{
	const struct wl_flag *f;
	const char *name = NULL, *v = NULL;
	int i;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
			if (!w->quiet)
				puts(usage);
			wl_free(w);
			return -1;
		}
		for (f = flags; f < flags + n && !(name = flag_match(f, argv, argc, &i, &v)); f++)
			;
		if (f == flags + n)
			return wl_usage_error(w, "unknown option '%s'", a);
		if (f->kind == WL_SET)
			*(bool *)f->dst = true;
		else if (v && flag_value(f, v))
			continue;
		else if (f->need)
			return wl_usage_error(w, "%s %s", name, f->need);
		else if (!v)
			return wl_usage_error(w, "%s needs a value", name);
		else if (f->bad)
			return wl_usage_error(w, "%s '%s': %s", name, v, f->bad);
		else if (f->kind == WL_LONG)
			return wl_usage_error(w, "%s '%s': expected an integer from %ld to %ld", name, v, (long)f->lo,
			                      (long)f->hi);
		else if (f->kind == WL_DOUBLE)
			return wl_usage_error(w, "%s '%s': expected a number from %g to %g", name, v, f->lo, f->hi);
		else
			return wl_usage_error(w, "%s '%s': expected a byte count like 8, 1K, 32M", name, v);
	}
	return 0;
}

bool
wl_parse_long(const char *s, long min, long max, long *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (end == s || *end || errno || v < min || v > max)
		return false;
	*out = v;
	return true;
}

bool
wl_parse_double(const char *s, double min, double max, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (end == s || *end || errno || !isfinite(v) || v < min || v > max)
		return false;
	*out = v;
	return true;
}

bool
wl_parse_size(const char *s, size_t *out)
{
	unsigned long long v, mul = 1;
	char *end;

	errno = 0;
	if (*s < '0' || *s > '9')
		return false;
	v = strtoull(s, &end, 10);
	if (end == s || errno)
		return false;
	switch (*end) {
	case 'K': case 'k': mul = 1ull << 10; end++; break;
	case 'M': case 'm': mul = 1ull << 20; end++; break;
	case 'G': case 'g': mul = 1ull << 30; end++; break;
	default: break;
	}
	if (*end || v > (unsigned long long)SIZE_MAX / mul)
		return false;
	*out = (size_t)(v * mul);
	return true;
}

double
wl_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

double
wl_median(double *v, size_t n)
{
	if (n == 0)
		return 0;
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

uint64_t
wl_rng_next(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

double
wl_rng_uniform(uint64_t *state)
{
	return (double)(wl_rng_next(state) >> 11) * 0x1.0p-53;
}

double
wl_rng_normal(uint64_t *state)
{
	double u = wl_rng_uniform(state), v = wl_rng_uniform(state);

	/* 1 - u is in (0, 1], so the log is finite */
	return sqrt(-2.0 * log(1.0 - u)) * cos(2.0 * 3.14159265358979323846 * v);
}

/* nccl-tests' getFloatStr: %.2f, then fewer decimals, then %.0e, so the
 * number fits its column. */
static void
num(char *out, size_t n, double v, int width)
{
	int prec;

	for (prec = 2; prec >= 0; prec--) {
		snprintf(out, n, "%.*f", prec, v);
		if ((int)strlen(out) <= width)
			return;
	}
	snprintf(out, n, "%.0e", v);
}

void
wl_coll_header(int halves)
{
	int i;

	fputs("#\n#                                                   ", stdout);
	for (i = 0; i < halves; i++)
		fputs(halves == 2 ? (i ? "           in-place              " : "           out-of-place          ")
		                  : "", stdout);
	fputs("\n#       size         count      type   redop    root", stdout);
	for (i = 0; i < halves; i++)
		fputs("     time   algbw   busbw  #wrong", stdout);
	fputs("\n#        (B)    (elements)                          ", stdout);
	for (i = 0; i < halves; i++)
		fputs("     (us)  (GB/s)  (GB/s)        ", stdout);
	putchar('\n');
}

void
wl_coll_row(size_t bytes, size_t count, const char *type, const char *redop, int root,
            const struct wl_half *h, int halves)
{
	char t[32], a[32], b[32], wr[32];
	int i;

	printf("%12zu  %12zu  %8s  %6s  %6d", bytes, count, type, redop, root);
	for (i = 0; i < halves; i++) {
		num(t, sizeof(t), h[i].time_us, 7);
		num(a, sizeof(a), h[i].algbw, 6);
		num(b, sizeof(b), h[i].busbw, 6);
		if (h[i].wrong < 0)
			snprintf(wr, sizeof(wr), "N/A");
		else
			snprintf(wr, sizeof(wr), "%ld", h[i].wrong);
		printf("  %7s  %6s  %6s  %6s", t, a, b, wr);
	}
	putchar('\n');
}

void
wl_coll_footer(long wrong_tests, double avg_busbw)
{
	printf("# %-20s : %ld %s\n", "Out of bounds values", wrong_tests, wrong_tests ? "FAILED" : "OK");
	printf("# %-20s : %g \n#\n", "Avg bus bandwidth", avg_busbw);
	fflush(stdout);
}
