/* gemm_pattern.h: gemm's structured inputs, whose exact product is known in
 * closed form, so a GEMM that returns garbage fast cannot pass. Shared by
 * the CPU path (gemm.c) and the CUDA kernels (gemm_cuda.cu).
 *
 * A(i,k) = a(i) + c(k) and B(k,j) = d(k) + e(j) with small integers, so
 *   C(i,j) = sum_k A(i,k) B(k,j)
 *          = a(i) Sd + a(i) e(j) K + Scd + e(j) Sc
 * with Sd = sum d(k), Sc = sum c(k), Scd = sum c(k) d(k). Every input is
 * exact in fp16, bf16, tf32, fp32 and fp64, and every partial sum is an
 * integer far below 2^24, so fp32 accumulation is exact too. The periods
 * (3, 2, 5, 2) differ so that a transposed or shifted operand changes C. */
#ifndef KUNAI_GEMM_PATTERN_H
#define KUNAI_GEMM_PATTERN_H

#ifdef __CUDACC__
#define GEMM_HD __host__ __device__
#else
#define GEMM_HD
#endif

static inline GEMM_HD int gemm_pa(long i) { return (int)(i % 3) - 1; }
static inline GEMM_HD int gemm_pc(long k) { return (int)(k % 2); }
static inline GEMM_HD int gemm_pd(long k) { return (int)(k % 5) - 2; }
static inline GEMM_HD int gemm_pe(long j) { return (int)((j / 3) % 2); }

struct gemm_sums {
	long long sd, sc, scd, k;
};

static inline void
gemm_sums(long k, struct gemm_sums *s)
{
	long i;

	s->sd = s->sc = s->scd = 0;
	s->k = k;
	for (i = 0; i < k; i++) {
		s->sd += gemm_pd(i);
		s->sc += gemm_pc(i);
		s->scd += (long long)gemm_pc(i) * gemm_pd(i);
	}
}

static inline GEMM_HD double
gemm_exact(const struct gemm_sums *s, long i, long j)
{
	long long a = gemm_pa(i), e = gemm_pe(j);

	return (double)(a * s->sd + a * e * s->k + s->scd + e * s->sc);
}

/* The largest |C(i,j)|: fp16 overflows past 65504. */
static inline double
gemm_max_abs(const struct gemm_sums *s)
{
	double m = 0, v;
	int a, e;

	for (a = -1; a <= 1; a++)
		for (e = 0; e <= 1; e++) {
			v = (double)(a * s->sd + (long long)a * e * s->k + s->scd + e * s->sc);
			if (v < 0)
				v = -v;
			if (v > m)
				m = v;
		}
	return m;
}

#endif
