/* mlp.c: the smoke tests' flags, data set and the CPU backend of the MLP
 * (see mlp.h). Plain loops in the same order of operations as the CUDA kernels
 * where it matters (max-subtracted softmax, gradients scaled by 1/batch). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mlp.h"
#include "wl.h"

void
mlp_flags(struct mlp_opts *o, struct wl_flag *f)
{
	const struct wl_flag flags[MLP_NFLAGS] = {
		{.l = "--samples", .kind = WL_LONG, .dst = &o->samples, .lo = 1, .hi = 10000000},
		{.l = "--dim", .kind = WL_LONG, .dst = &o->dim, .lo = 1, .hi = 65536},
		{.l = "--hidden", .kind = WL_LONG, .dst = &o->hidden, .lo = 1, .hi = 65536},
		{.l = "--classes", .kind = WL_LONG, .dst = &o->classes, .lo = 2, .hi = 65536},
		{.l = "--batch", .kind = WL_LONG, .dst = &o->batch, .lo = 1, .hi = 1000000},
		{.l = "--epochs", .kind = WL_LONG, .dst = &o->epochs, .lo = 1, .hi = 100000},
		{.l = "--steps", .kind = WL_LONG, .dst = &o->steps, .lo = 0, .hi = 100000000},
		{.l = "--seed", .kind = WL_LONG, .dst = &o->seed, .lo = 0, .hi = 2147483647},
		{.l = "--expect-gpus", .kind = WL_LONG, .dst = &o->expect, .lo = 0, .hi = 64},
		{.l = "--lr", .kind = WL_DOUBLE, .dst = &o->lr, .lo = 0, .hi = 100},
		{.l = "--momentum", .kind = WL_DOUBLE, .dst = &o->momentum, .lo = 0, .hi = 0.9999},
		{.l = "--max-loss-ratio", .kind = WL_DOUBLE, .dst = &o->max_ratio, .lo = 0, .hi = 10},
		{.l = "--min-accuracy", .kind = WL_DOUBLE, .dst = &o->min_acc, .lo = 0, .hi = 1},
		{.l = "--force-wrong", .kind = WL_SET, .dst = &o->force_wrong},
		{.l = "--cpu", .kind = WL_SET, .dst = &o->cpu},
	};

	memcpy(f, flags, sizeof(flags));
}

void
mlp_record(struct wl *w, long steps, double loss_start, double loss_end, double acc)
{
	cJSON_AddNumberToObject(w->json, "steps", (double)steps);
	cJSON_AddNumberToObject(w->json, "loss_start", loss_start);
	cJSON_AddNumberToObject(w->json, "loss_end", isfinite(loss_end) ? loss_end : -1);
	cJSON_AddNumberToObject(w->json, "accuracy", acc);
}

void
mlp_judge(struct wl *w, const struct mlp_opts *o, double loss_start, double loss_end, double acc)
{
	if (!isfinite(loss_end))
		wl_fail(w, "the final loss is not finite (%g)", loss_end);
	else if (!(loss_end < o->max_ratio * loss_start))
		wl_fail(w, "loss did not drop enough: %.4f -> %.4f, needs < %.2f x start", loss_start, loss_end,
		        o->max_ratio);
	if (!(acc >= o->min_acc))
		wl_fail(w, "accuracy %.3f is below %.2f", acc, o->min_acc);
}

void
mlp_layout(const struct mlp_shape *s, struct mlp_layout *l)
{
	l->w1 = 0;
	l->b1 = l->w1 + (size_t)s->hidden * (size_t)s->dim;
	l->w2 = l->b1 + (size_t)s->hidden;
	l->b2 = l->w2 + (size_t)s->classes * (size_t)s->hidden;
	l->total = l->b2 + (size_t)s->classes;
}

static void
uniform(uint64_t *st, float *p, size_t n, double bound)
{
	size_t i;

	for (i = 0; i < n; i++)
		p[i] = (float)((2.0 * wl_rng_uniform(st) - 1.0) * bound);
}

void
mlp_init_params(const struct mlp_shape *s, uint64_t seed, float *params)
{
	struct mlp_layout l;
	uint64_t st = seed ^ 0x6d6c70ull; /* not the data's stream */
	double b1 = 1.0 / sqrt((double)s->dim), b2 = 1.0 / sqrt((double)s->hidden);

	mlp_layout(s, &l);
	uniform(&st, params + l.w1, l.b1 - l.w1, b1);
	uniform(&st, params + l.b1, l.w2 - l.b1, b1);
	uniform(&st, params + l.w2, l.b2 - l.w2, b2);
	uniform(&st, params + l.b2, l.total - l.b2, b2);
}

bool
mlp_make_data(const struct mlp_shape *s, uint64_t seed, int n, struct mlp_data *out)
{
	size_t d = (size_t)s->dim, k = (size_t)s->classes, i, j, c;
	uint64_t st = seed;
	double *wstar;

	memset(out, 0, sizeof(*out));
	wstar = malloc(d * k * sizeof(*wstar));
	out->x = malloc((size_t)n * d * sizeof(*out->x));
	out->y = malloc((size_t)n * sizeof(*out->y));
	if (!wstar || !out->x || !out->y) {
		free(wstar);
		mlp_free_data(out);
		return false;
	}
	for (i = 0; i < d * k; i++)
		wstar[i] = wl_rng_normal(&st);
	for (i = 0; i < (size_t)n; i++) {
		float *x = out->x + i * d;
		double best = -INFINITY;
		for (j = 0; j < d; j++)
			x[j] = (float)wl_rng_normal(&st);
		for (c = 0; c < k; c++) {
			double v = 0;
			for (j = 0; j < d; j++)
				v += (double)x[j] * wstar[j * k + c];
			if (v > best) {
				best = v;
				out->y[i] = (int)c;
			}
		}
	}
	out->n = n;
	free(wstar);
	return true;
}

void
mlp_free_data(struct mlp_data *d)
{
	free(d->x);
	free(d->y);
	d->x = NULL;
	d->y = NULL;
	d->n = 0;
}

double
mlp_checksum(const float *p, size_t n)
{
	double s = 0;
	size_t i;

	for (i = 0; i < n; i++)
		s += (double)p[i] * (double)(1 + i % 7);
	return s;
}

/* ---- the CPU backend -------------------------------------------------------- */

struct cpu {
	struct mlp_shape s;
	struct mlp_layout l;
	float *p, *g, *v;    /* parameters, gradient, momentum */
	float *z1, *dz, *dh; /* one sample's activations and their gradients */
};

static void
cpu_destroy(void *m)
{
	struct cpu *c = m;

	if (!c)
		return;
	free(c->p);
	free(c->g);
	free(c->v);
	free(c->z1);
	free(c->dz);
	free(c->dh);
	free(c);
}

static void *
cpu_create(const struct mlp_shape *s, const float *params, int max_batch, char *why, size_t n)
{
	struct cpu *c = calloc(1, sizeof(*c));

	(void)max_batch;
	if (!c) {
		snprintf(why, n, "out of memory");
		return NULL;
	}
	c->s = *s;
	mlp_layout(s, &c->l);
	c->p = malloc(c->l.total * sizeof(float));
	c->g = calloc(c->l.total, sizeof(float));
	c->v = calloc(c->l.total, sizeof(float));
	c->z1 = malloc((size_t)s->hidden * sizeof(float));
	c->dh = malloc((size_t)s->hidden * sizeof(float));
	c->dz = malloc((size_t)s->classes * sizeof(float));
	if (!c->p || !c->g || !c->v || !c->z1 || !c->dh || !c->dz) {
		cpu_destroy(c);
		snprintf(why, n, "out of memory");
		return NULL;
	}
	memcpy(c->p, params, c->l.total * sizeof(float));
	return c;
}

/* Forward for one sample: z1 = relu(W1 x + b1), logits in dz; returns the
 * loss (max-subtracted log-softmax) and leaves the softmax in dz. */
static double
forward(struct cpu *c, const float *x, int y, int *correct)
{
	const struct mlp_shape *s = &c->s;
	const float *w1 = c->p + c->l.w1, *b1 = c->p + c->l.b1;
	const float *w2 = c->p + c->l.w2, *b2 = c->p + c->l.b2;
	int h = s->hidden, k = s->classes, r, j, best = 0;
	float mx, sum = 0;

	memcpy(c->z1, b1, (size_t)h * sizeof(float));
	for (j = 0; j < s->dim; j++) {
		const float *col = w1 + (size_t)j * (size_t)h;
		float xj = x[j];
		for (r = 0; r < h; r++)
			c->z1[r] += col[r] * xj;
	}
	for (r = 0; r < h; r++)
		if (c->z1[r] < 0)
			c->z1[r] = 0;
	memcpy(c->dz, b2, (size_t)k * sizeof(float));
	for (r = 0; r < h; r++) {
		const float *col = w2 + (size_t)r * (size_t)k;
		for (j = 0; j < k; j++)
			c->dz[j] += col[j] * c->z1[r];
	}
	mx = c->dz[0];
	for (j = 1; j < k; j++)
		if (c->dz[j] > mx)
			mx = c->dz[j], best = j;
	*correct += best == y;
	for (j = 0; j < k; j++) {
		c->dz[j] = expf(c->dz[j] - mx);
		sum += c->dz[j];
	}
	for (j = 0; j < k; j++)
		c->dz[j] /= sum;
	return -log((double)c->dz[y] > 1e-30 ? (double)c->dz[y] : 1e-30);
}

static bool
cpu_grad(void *m, const float *x, const int *y, int nb, float scale, double *loss, int *correct, char *why,
         size_t n)
{
	struct cpu *c = m;
	const struct mlp_shape *s = &c->s;
	float *gw1 = c->g + c->l.w1, *gb1 = c->g + c->l.b1, *gw2 = c->g + c->l.w2, *gb2 = c->g + c->l.b2;
	const float *w2 = c->p + c->l.w2;
	int h = s->hidden, k = s->classes, b, r, j;

	(void)why;
	(void)n;
	memset(c->g, 0, c->l.total * sizeof(float));
	*loss = 0;
	*correct = 0;
	for (b = 0; b < nb; b++) {
		const float *xb = x + (size_t)b * (size_t)s->dim;
		*loss += forward(c, xb, y[b], correct);
		/* dlogits = (softmax - onehot) * scale */
		c->dz[y[b]] -= 1;
		for (j = 0; j < k; j++)
			c->dz[j] *= scale;
		for (j = 0; j < k; j++)
			gb2[j] += c->dz[j];
		for (r = 0; r < h; r++) {
			float *gcol = gw2 + (size_t)r * (size_t)k;
			const float *col = w2 + (size_t)r * (size_t)k;
			float d = 0;
			for (j = 0; j < k; j++) {
				gcol[j] += c->dz[j] * c->z1[r];
				d += col[j] * c->dz[j];
			}
			c->dh[r] = c->z1[r] > 0 ? d : 0;
		}
		for (r = 0; r < h; r++)
			gb1[r] += c->dh[r];
		for (j = 0; j < s->dim; j++) {
			float *gcol = gw1 + (size_t)j * (size_t)h, xj = xb[j];
			for (r = 0; r < h; r++)
				gcol[r] += c->dh[r] * xj;
		}
	}
	return true;
}

static float *
cpu_grad_buf(void *m)
{
	return ((struct cpu *)m)->g;
}

static bool
cpu_step(void *m, float lr, float momentum, char *why, size_t n)
{
	struct cpu *c = m;
	size_t i;

	(void)why;
	(void)n;
	for (i = 0; i < c->l.total; i++) {
		c->v[i] = momentum * c->v[i] + c->g[i];
		c->p[i] -= lr * c->v[i];
	}
	return true;
}

static bool
cpu_eval(void *m, const float *x, const int *y, int nx, double *loss, int *correct, char *why, size_t n)
{
	struct cpu *c = m;
	int b;

	(void)why;
	(void)n;
	*loss = 0;
	*correct = 0;
	for (b = 0; b < nx; b++)
		*loss += forward(c, x + (size_t)b * (size_t)c->s.dim, y[b], correct);
	return true;
}

static bool
cpu_params(void *m, float *out, char *why, size_t n)
{
	struct cpu *c = m;

	(void)why;
	(void)n;
	memcpy(out, c->p, c->l.total * sizeof(float));
	return true;
}

const struct mlp_ops mlp_cpu_ops = {
	"cpu", cpu_create, cpu_grad, cpu_grad_buf, cpu_step, cpu_eval, cpu_params, cpu_destroy,
};
