/* mlp.h: the training smoke tests' model and data, shared by train_smoke and
 * ddp_smoke and by their CPU (mlp.c) and CUDA (mlp_cuda.cu) backends, so both
 * paths do the same maths on the same data; and what the two programs share
 * around it: their flags, the result they record and its verdict.
 *
 * Data: x ~ N(0, 1) in `dim` features, label = argmax(x . W*) over `classes`
 * for a hidden W* drawn from the same seed: linearly separable, as in the
 * original gpu-cluster-acceptance smoke test (4000 x 128, 4 classes).
 * Model: logits = W2 . relu(W1 . x + b1) + b2, softmax cross-entropy, SGD
 * with momentum. Matrices are column-major (cuBLAS's layout): W1 is
 * hidden x dim, W2 classes x hidden; a batch of n samples stored sample
 * after sample is the dim x n matrix X. */
#ifndef KUNAI_MLP_H
#define KUNAI_MLP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct mlp_shape {
	int dim, hidden, classes;
};

/* Offsets of the parameters in one flat float array (gradients and the
 * momentum use the same layout, so one all-reduce moves every gradient). */
struct mlp_layout {
	size_t w1, b1, w2, b2, total;
};

void mlp_layout(const struct mlp_shape *s, struct mlp_layout *l);
/* Fills params (layout.total floats) from seed: uniform in +-1/sqrt(fan_in),
 * as PyTorch's Linear does. */
void mlp_init_params(const struct mlp_shape *s, uint64_t seed, float *params);

/* The data set: x is n x dim (sample after sample), y the labels. The first
 * n_train samples and the next n_test share W* but no sample. */
struct mlp_data {
	int n;
	float *x;
	int *y;
};
/* Returns false when out of memory. */
bool mlp_make_data(const struct mlp_shape *s, uint64_t seed, int n, struct mlp_data *out);
void mlp_free_data(struct mlp_data *d);

/* One backend: the same operations on the CPU or a GPU. Every function
 * that can fail returns false with a reason in why. */
struct mlp_ops {
	const char *name; /* "cpu", "cuda" */
	/* NULL with why when the backend cannot run (no device, no CUDA). */
	void *(*create)(const struct mlp_shape *s, const float *params, int max_batch, char *why, size_t n);
	/* Forward and backward over x (nb samples, host memory): the gradient,
	 * scaled by `scale` (1 / global batch), goes to the backend's gradient
	 * buffer; *loss gets the summed loss, *correct the right argmaxes. */
	bool (*grad)(void *m, const float *x, const int *y, int nb, float scale, double *loss, int *correct,
	             char *why, size_t n);
	/* The gradient buffer (layout.total floats, device memory on a GPU),
	 * for the data-parallel all-reduce. */
	float *(*grad_buf)(void *m);
	/* v = momentum * v + g; p -= lr * v. */
	bool (*step)(void *m, float lr, float momentum, char *why, size_t n);
	/* Forward only: summed loss and correct count over n samples. */
	bool (*eval)(void *m, const float *x, const int *y, int nx, double *loss, int *correct, char *why,
	             size_t n);
	/* Copies the parameters to host memory. */
	bool (*params)(void *m, float *out, char *why, size_t n);
	void (*destroy)(void *m);
};

extern const struct mlp_ops mlp_cpu_ops; /* mlp.c */
extern const struct mlp_ops mlp_gpu_ops; /* mlp_cuda.cu, or mlp_nocuda.c */

/* The flags of train_smoke and ddp_smoke, in one struct: those both take
 * (mlp_flags) and each one's own (train_smoke: --test-samples, --device;
 * ddp_smoke: --max-param-spread, --timeout). */
struct mlp_opts {
	long samples, test_samples, dim, hidden, classes, batch, epochs, steps, seed, expect, device;
	double lr, momentum, max_ratio, min_acc, max_spread, timeout;
	bool force_wrong, cpu;
};
enum { MLP_NFLAGS = 15 };
struct wl_flag;
/* Writes the table of the flags both take into f[0..MLP_NFLAGS). */
void mlp_flags(struct mlp_opts *o, struct wl_flag *f);

struct wl;
/* The result both record: "steps", "loss_start", "loss_end" (-1 when not
 * finite) and "accuracy" into w's JSON. */
void mlp_record(struct wl *w, long steps, double loss_start, double loss_end, double acc);
/* Both verdicts: the final loss finite and below --max-loss-ratio times the
 * start, the accuracy at least --min-accuracy; records each failure. */
void mlp_judge(struct wl *w, const struct mlp_opts *o, double loss_start, double loss_end, double acc);

/* A checksum of the parameters that a permutation or a one-ulp change
 * moves: sum of p[i] * (1 + (i % 7)) in double. */
double mlp_checksum(const float *p, size_t n);

#ifdef __cplusplus
}
#endif

#endif
