/* tap.h: a minimal TAP producer for C unit tests. */
#ifndef KUNAI_TAP_H
#define KUNAI_TAP_H

#include <stdio.h>

static int tap_n, tap_failed;

/* ok(cond, fmt, ...): one TAP line; cond is evaluated once */
#define ok(cond, ...)                                                         \
	do {                                                                  \
		int tap_c = !!(cond);                                         \
		tap_n++;                                                      \
		if (!tap_c)                                                   \
			tap_failed++;                                         \
		printf("%s %d - ", tap_c ? "ok" : "not ok", tap_n);           \
		printf(__VA_ARGS__);                                          \
		printf("%s\n", tap_c ? "" : " (failed: " #cond ")");          \
		fflush(stdout); /* whole lines: stderr shares the file */     \
	} while (0)

static int
tap_done(void)
{
	printf("1..%d\n", tap_n);
	return tap_failed != 0;
}

#endif
