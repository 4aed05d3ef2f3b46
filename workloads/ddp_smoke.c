/* ddp_smoke: data-parallel training of train_smoke's MLP across MPI ranks,
 * one per GPU: each rank computes the gradient of its rank-strided share of
 * every global batch, one all-reduce (NCCL on GPUs, MPI on the CPU) sums
 * them, and every rank applies the same SGD step. It passes when the loss
 * over the whole training set drops to below --max-loss-ratio (0.8) times
 * its value before training, nothing is NaN, the accuracy reaches
 * --min-accuracy (if set), and the parameters are the same on every rank
 * (checksum max - min within --max-param-spread). The losses before and after are forward
 * passes outside the training loop, so one epoch is as valid as ten: the
 * original compared first- and last-epoch means, equal with one epoch. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "gpu.h"
#include "mlp.h"
#include "mpi_gpu.h"
#include "wl.h"

static const char usage[] =
	"usage: ddp_smoke [options]   (under mpirun/srun: one rank per GPU)\n"
	"Data-parallel training of a 2-layer MLP on a seeded, linearly separable data\n"
	"set: gradients all-reduced with NCCL on GPUs, or with MPI on the CPU.\n\n"
	"  --samples N         training samples (default 4000)\n"
	"  --dim N --hidden N --classes N   model shape (default 128, 256, 4)\n"
	"  --batch N           global batch, split between ranks (default 256)\n"
	"  --epochs N          epochs (default 5; 1 is valid)\n"
	"  --steps N           at most N batches per epoch (default 0: all)\n"
	"  --lr X --momentum X SGD (default 0.1, 0.9)\n"
	"  --seed N            data and initial weights (default 42)\n"
	"  --max-loss-ratio X  pass when loss_end < X * loss_start (default 0.8)\n"
	"  --min-accuracy X    pass when the accuracy after training >= X (default 0:\n"
	"                      reported only, as the original DDP test did)\n"
	"  --max-param-spread X  pass when (max - min) / max(1, |max|) of the ranks'\n"
	"                      parameter checksums <= X (default 1e-5)\n"
	"  --timeout S         an NCCL operation running longer fails (default 600)\n"
	"  --expect-gpus N     GPUs per node (fewer fails; 0: the CPU path;\n"
	"                      default: GPUs if any node has one, else the CPU)\n"
	"  --cpu               the CPU path even when GPUs are present\n"
	"  --force-wrong       the last rank steps with another learning rate, so the\n"
	"                      ranks diverge (one rank: gradient ascent)\n"
	"  --help              this help\n\n"
	"Rank 0 prints [DDP] log lines, one JSON line, then [RESULT] SUCCESS|FAILURE|SKIPPED.";

struct trainer {
	struct wl *w;
	const struct mlp_opts *o;
	struct mpi_env *m;
	const struct mlp_ops *ops;
	const struct mlp_data *d;
	struct mlp_layout l;
	void *model;
	char why[512];
};

/* Loss and accuracy over the whole training set, each rank its
 * rank-strided share; false on any rank's failure. */
static bool
evaluate(struct trainer *t, float *x, int *y, double *loss, double *acc)
{
	const struct mlp_opts *o = t->o;
	double local[2] = {0, 0}, all[2];
	int n = 0, i, correct = 0;

	for (i = t->m->rank; i < (int)o->samples; i += t->m->size, n++) {
		memcpy(x + (size_t)n * (size_t)o->dim, t->d->x + (size_t)i * (size_t)o->dim, (size_t)o->dim * sizeof(float));
		y[n] = t->d->y[i];
	}
	if (n > 0 && !t->ops->eval(t->model, x, y, n, &local[0], &correct, t->why, sizeof(t->why)))
		wl_fail(t->w, "evaluation: %s", t->why);
	local[1] = correct;
	if (!mpi_sync(t->w, t->m))
		return false;
	MPI_Allreduce(local, all, 2, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
	*loss = all[0] / (double)o->samples;
	*acc = all[1] / (double)o->samples;
	return true;
}

/* One global batch: this rank's share, then the gradient all-reduce. */
static bool
step(struct trainer *t, const int *perm, int b, float *bx, int *by, float lr, double *loss)
{
	const struct mlp_opts *o = t->o;
	double local = 0, all = 0;
	int nb = 0, i, correct, rc;

	for (i = t->m->rank; i < (int)o->batch; i += t->m->size, nb++) {
		memcpy(bx + (size_t)nb * (size_t)o->dim, t->d->x + (size_t)perm[b + i] * (size_t)o->dim,
		       (size_t)o->dim * sizeof(float));
		by[nb] = t->d->y[perm[b + i]];
	}
	/* scaled by the global batch, the summed gradients are its mean */
	if (!t->ops->grad(t->model, bx, by, nb, 1.0f / (float)o->batch, &local, &correct, t->why, sizeof(t->why))) {
		wl_fail(t->w, "gradient: %s", t->why);
		return mpi_sync(t->w, t->m);
	}
	if (t->m->gpu) {
		if (!nccl_allreduce(t->m->nccl, t->ops->grad_buf(t->model), t->ops->grad_buf(t->model), t->l.total,
		                    t->why, sizeof(t->why)))
			wl_fail(t->w, "gradient all-reduce: %s", t->why);
	} else if ((rc = MPI_Allreduce(MPI_IN_PLACE, t->ops->grad_buf(t->model), (int)t->l.total, MPI_FLOAT, MPI_SUM,
	                               MPI_COMM_WORLD)) != MPI_SUCCESS)
		wl_fail(t->w, "gradient MPI_Allreduce failed (error %d)", rc);
	if (!wl_failed(t->w) && !t->ops->step(t->model, lr, (float)o->momentum, t->why, sizeof(t->why)))
		wl_fail(t->w, "SGD step: %s", t->why);
	if (!mpi_sync(t->w, t->m))
		return false;
	MPI_Allreduce(&local, &all, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
	*loss = all / (double)o->batch;
	return true;
}

static void
train(struct trainer *t)
{
	const struct mlp_opts *o = t->o;
	struct mlp_shape s = {(int)o->dim, (int)o->hidden, (int)o->classes};
	int n = (int)o->samples, share = n / t->m->size + 1, *perm = NULL, *by = NULL, e, b, i, batches;
	float *params = NULL, *bx = NULL, lr = (float)o->lr;
	double loss = 0, loss_start, loss_end, acc, acc0, epoch_loss, sum[2], lo, hi, spread, t0 = wl_now();
	uint64_t st = (uint64_t)o->seed * 7919u + 1;
	cJSON *epochs = NULL;
	long steps = 0;

	mlp_layout(&s, &t->l);
	params = malloc(t->l.total * sizeof(float));
	perm = malloc((size_t)n * sizeof(int));
	by = malloc((size_t)share * sizeof(int));
	bx = malloc((size_t)share * (size_t)s.dim * sizeof(float));
	if (!params || !perm || !by || !bx)
		wl_fail(t->w, "out of memory");
	else {
		mlp_init_params(&s, (uint64_t)o->seed, params);
		if (!(t->model = t->ops->create(&s, params, share, t->why, sizeof(t->why))))
			wl_fail(t->w, "%s", t->why);
	}
	if (!mpi_sync(t->w, t->m) || !evaluate(t, bx, by, &loss_start, &acc0))
		goto out;
	wl_log(t->w, "before training: loss %.4f, accuracy %.3f", loss_start, acc0);
	/* the test hooks: one rank out of step, or a lone rank climbing */
	if (o->force_wrong && t->m->size > 1 && t->m->rank == t->m->size - 1)
		lr *= 1.5f;
	else if (o->force_wrong && t->m->size == 1)
		lr = -lr;
	epochs = cJSON_AddArrayToObject(t->w->json, "epoch_loss");
	for (i = 0; i < n; i++)
		perm[i] = i;
	for (e = 0; e < o->epochs; e++) {
		epoch_loss = 0;
		/* the same seed on every rank: the same global batches */
		for (i = n - 1; i > 0; i--) {
			int j = (int)(wl_rng_next(&st) % (uint64_t)(i + 1)), tmp = perm[i];
			perm[i] = perm[j];
			perm[j] = tmp;
		}
		for (b = 0, batches = 0; b + o->batch <= n && (o->steps == 0 || batches < o->steps); b += (int)o->batch) {
			if (!step(t, perm, b, bx, by, lr, &loss))
				goto out;
			epoch_loss += loss;
			batches++;
			steps++;
		}
		epoch_loss /= batches;
		cJSON_AddItemToArray(epochs, cJSON_CreateNumber(isfinite(epoch_loss) ? epoch_loss : -1));
		wl_log(t->w, "epoch %d: mean loss %.4f over %d global batches", e + 1, epoch_loss, batches);
		if (!isfinite(epoch_loss)) {
			if (t->m->rank == 0)
				wl_fail(t->w, "epoch %d: the loss is not finite (%g)", e + 1, epoch_loss);
			goto out;
		}
	}
	if (!evaluate(t, bx, by, &loss_end, &acc))
		goto out;
	/* identical parameters on every rank: the checksum's spread */
	if (!t->ops->params(t->model, params, t->why, sizeof(t->why)))
		wl_fail(t->w, "reading the parameters: %s", t->why);
	if (!mpi_sync(t->w, t->m))
		goto out;
	sum[0] = mlp_checksum(params, t->l.total);
	sum[1] = -sum[0];
	MPI_Allreduce(MPI_IN_PLACE, sum, 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
	hi = sum[0];
	lo = -sum[1];
	spread = (hi - lo) / (fabs(hi) > 1 ? fabs(hi) : 1);
	wl_log(t->w, "after %ld steps on %d ranks: loss %.4f (%.1f%% of the start), accuracy %.3f, parameter "
	       "checksum %.9g (spread %.3g), %.2f s", steps, t->m->size, loss_end, 100 * loss_end / loss_start, acc,
	       hi, spread, wl_now() - t0);
	mlp_record(t->w, steps, loss_start, loss_end, acc);
	cJSON_AddNumberToObject(t->w->json, "checksum_spread", spread);
	cJSON_AddNumberToObject(t->w->json, "time_s", wl_now() - t0);
	if (t->m->rank != 0)
		goto out;
	mlp_judge(t->w, o, loss_start, loss_end, acc);
	if (!(spread <= o->max_spread))
		wl_fail(t->w, "parameters differ between ranks: checksums %.9g .. %.9g (spread %.3g > %g)", lo, hi,
		        spread, o->max_spread);
out:
	if (t->model)
		t->ops->destroy(t->model);
	t->model = NULL;
	free(params);
	free(perm);
	free(by);
	free(bx);
}

int
main(int argc, char **argv)
{
	struct mlp_opts o = {.samples = 4000, .dim = 128, .hidden = 256, .classes = 4, .batch = 256, .epochs = 5,
	                     .seed = 42, .expect = -1, .lr = 0.1, .momentum = 0.9, .max_ratio = 0.8,
	                     .max_spread = 1e-5, .timeout = 600};
	struct wl_flag flags[MLP_NFLAGS + 2] = {
		[MLP_NFLAGS] = {.l = "--max-param-spread", .kind = WL_DOUBLE, .dst = &o.max_spread, .lo = 0, .hi = 1e9},
		{.l = "--timeout", .kind = WL_DOUBLE, .dst = &o.timeout, .lo = 1, .hi = 1e7},
	};
	struct mlp_shape s;
	struct mlp_data d = {0};
	struct mpi_env m;
	struct trainer t;
	struct wl w;
	int rc;

	wl_init(&w, "ddp_smoke", "[DDP]");
	mpi_start(&w, &argc, &argv, &m);
	mlp_flags(&o, flags);
	if (!mpi_parse(&w, argc, argv, flags, MLP_NFLAGS + 2, usage, &rc))
		return rc;
	if (o.batch < m.size || o.batch > o.samples) {
		if (m.rank == 0)
			wl_fail(&w, "--batch %ld: the global batch must hold at least one sample per rank (%d) and at most "
			        "--samples (%ld)", o.batch, m.size, o.samples);
		return mpi_finish(&w, &m);
	}
	if (!mpi_choose_path(&w, &m, o.expect, o.cpu, 0, o.timeout))
		return mpi_finish(&w, &m);
	mpi_print_devices(&w, &m);
	s = (struct mlp_shape){(int)o.dim, (int)o.hidden, (int)o.classes};
	cJSON_AddStringToObject(w.json, "path", m.gpu ? "nccl" : "mpi");
	cJSON_AddNumberToObject(w.json, "ranks", m.size);
	cJSON_AddNumberToObject(w.json, "epochs", (double)o.epochs);
	cJSON_AddNumberToObject(w.json, "batch", (double)o.batch);
	wl_log(&w, "%d ranks, %s: %ld samples x %ld features, %ld classes, MLP %ld-%ld-%ld, global batch %ld, %ld "
	       "epochs, SGD lr %g momentum %g, seed %ld", m.size, m.gpu ? "NCCL on GPUs" : "MPI on the CPU",
	       o.samples, o.dim, o.classes, o.dim, o.hidden, o.classes, o.batch, o.epochs, o.lr, o.momentum, o.seed);
	if (!mlp_make_data(&s, (uint64_t)o.seed, (int)o.samples, &d))
		wl_fail(&w, "out of memory for the data set");
	if (!mpi_sync(&w, &m))
		goto out;
	if (o.force_wrong)
		wl_log(&w, "--force-wrong: %s", m.size > 1 ? "the last rank steps with 1.5 x the learning rate"
		                                           : "gradient ascent (a negated learning rate)");
	t = (struct trainer){&w, &o, &m, m.gpu ? &mlp_gpu_ops : &mlp_cpu_ops, &d, {0}, NULL, ""};
	train(&t);
out:
	mlp_free_data(&d);
	return mpi_finish(&w, &m);
}
