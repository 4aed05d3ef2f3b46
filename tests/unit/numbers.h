/* tests/unit/numbers.h: numbers of every shape, for the unit tests that
 * compare kunai's number writers with printf's or cJSON's, byte for byte. */
#ifndef KUNAI_TEST_NUMBERS_H
#define KUNAI_TEST_NUMBERS_H

#include <math.h>
#include <string.h>

/* The next number of the xorshift sequence *x, of shape i % 4: an integer
 * (a count, or a size of up to 16 digits), a decimal of up to `digits`
 * significant digits, a measurement (a few digits) or any bit pattern; NAN
 * where that pattern is no finite number (the caller skips it). */
static double
test_number(unsigned long long *x, int i, int digits)
{
	double d;

	*x ^= *x << 13, *x ^= *x >> 7, *x ^= *x << 17;
	switch (i % 4) {
	case 0:
		return (double)(long long)(*x % (*x & 2 ? 100000ULL : 10000000000000000ULL)) * (*x & 1 ? -1 : 1);
	case 1:
		return (double)(long long)(*x % (unsigned long long)pow(10, digits)) / pow(10, (double)(*x >> 60)) *
		       (*x & 1 ? -1 : 1);
	case 2:
		return (double)(*x % 100000) / pow(10, (double)((*x >> 20) % 9));
	default:
		memcpy(&d, x, sizeof(d));
		return isfinite(d) ? d : NAN;
	}
}

#endif
