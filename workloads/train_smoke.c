/* train_smoke: a tiny MLP trained on a seeded, linearly separable data set
 * (mlp.h) on one GPU (CUDA kernels + cuBLAS) or, without GPUs, on the CPU
 * with the same maths. It passes when the loss after training is below
 * --max-loss-ratio (0.7) times the loss before it, the held-out accuracy is
 * at least --min-accuracy (0.9) on the training set (the held-out accuracy,
 * about 0.92 for this data size, is reported, not graded: the test is that
 * the GPU learns, not how well 4000 samples generalise), and nothing is NaN. Both losses are taken
 * over the whole training set by forward passes outside the training loop,
 * so the comparison holds for any number of epochs, even one (the original
 * compared first- and last-epoch means, which are equal with one epoch). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu.h"
#include "mlp.h"
#include "wl.h"

static const char usage[] =
	"usage: train_smoke [options]\n"
	"Trains a 2-layer MLP on a synthetic, seeded, linearly separable data set on\n"
	"one GPU (CUDA + cuBLAS), or on the CPU with the same maths.\n\n"
	"  --samples N         training samples (default 4000)\n"
	"  --test-samples N    held-out samples, for the reported test accuracy (default 1000)\n"
	"  --dim N --hidden N --classes N   model shape (default 128, 256, 4)\n"
	"  --batch N           batch size (default 256)\n"
	"  --epochs N          epochs (default 5)\n"
	"  --steps N           at most N batches per epoch (default 0: all)\n"
	"  --lr X --momentum X SGD (default 0.1, 0.9)\n"
	"  --seed N            data and initial weights (default 42)\n"
	"  --max-loss-ratio X  pass when loss_end < X * loss_start (default 0.7)\n"
	"  --min-accuracy X    pass when the training-set accuracy after training\n"
	"                      is >= X (default 0.9)\n"
	"  --expect-gpus N     GPUs this node must have (fewer fails; 0: the CPU path;\n"
	"                      default: a GPU if present, else the CPU)\n"
	"  --device N          the GPU to train on (default 0)\n"
	"  --cpu               the CPU path even when GPUs are present\n"
	"  --force-wrong       scramble the training labels (tests that the check fails)\n"
	"  --help              this help\n\n"
	"Prints [TRAIN] log lines, one JSON line, then [RESULT] SUCCESS|FAILURE|SKIPPED.";

/* Trains on the first o->samples of data, evaluates on the rest. */
static void
train(struct wl *w, const struct mlp_opts *o, const struct mlp_ops *ops, const struct mlp_data *d)
{
	struct mlp_shape s = {(int)o->dim, (int)o->hidden, (int)o->classes};
	struct mlp_layout l;
	int n = (int)o->samples, nb = (int)o->batch, *perm = NULL, *by = NULL, correct, acc_n, e, b, i;
	float *params = NULL, *bx = NULL;
	double loss, loss_start, loss_end, epoch_loss, t0 = wl_now(), acc, train_acc;
	uint64_t st = (uint64_t)o->seed * 7919u + 1;
	char why[512];
	void *m = NULL;
	cJSON *epochs;
	long steps = 0;

	mlp_layout(&s, &l);
	params = malloc(l.total * sizeof(float));
	perm = malloc((size_t)n * sizeof(int));
	by = malloc((size_t)nb * sizeof(int));
	bx = malloc((size_t)nb * (size_t)s.dim * sizeof(float));
	if (!params || !perm || !by || !bx) {
		wl_fail(w, "out of memory");
		goto out;
	}
	mlp_init_params(&s, (uint64_t)o->seed, params);
	if (!(m = ops->create(&s, params, nb > n ? n : nb, why, sizeof(why)))) {
		wl_fail(w, "%s", why);
		goto out;
	}
	if (!ops->eval(m, d->x, d->y, n, &loss, &correct, why, sizeof(why))) {
		wl_fail(w, "%s", why);
		goto out;
	}
	loss_start = loss / n;
	wl_log(w, "before training: loss %.4f, train accuracy %.3f", loss_start, (double)correct / n);
	epochs = cJSON_AddArrayToObject(w->json, "epoch_loss");
	for (i = 0; i < n; i++)
		perm[i] = i;
	for (e = 0; e < o->epochs; e++) {
		int batches = 0;
		epoch_loss = 0;
		/* Fisher-Yates from the seed: the same order on every backend */
		for (i = n - 1; i > 0; i--) {
			int j = (int)(wl_rng_next(&st) % (uint64_t)(i + 1)), t = perm[i];
			perm[i] = perm[j];
			perm[j] = t;
		}
		for (b = 0; b < n && (o->steps == 0 || batches < o->steps); b += nb, batches++) {
			int k = n - b < nb ? n - b : nb;
			for (i = 0; i < k; i++) {
				memcpy(bx + (size_t)i * (size_t)s.dim, d->x + (size_t)perm[b + i] * (size_t)s.dim,
				       (size_t)s.dim * sizeof(float));
				by[i] = d->y[perm[b + i]];
			}
			if (!ops->grad(m, bx, by, k, 1.0f / (float)k, &loss, &correct, why, sizeof(why)) ||
			    !ops->step(m, (float)o->lr, (float)o->momentum, why, sizeof(why))) {
				wl_fail(w, "epoch %d: %s", e + 1, why);
				goto out;
			}
			epoch_loss += loss / k;
			steps++;
		}
		epoch_loss /= batches;
		cJSON_AddItemToArray(epochs, cJSON_CreateNumber(isfinite(epoch_loss) ? epoch_loss : -1));
		wl_log(w, "epoch %d: mean loss %.4f over %d batches", e + 1, epoch_loss, batches);
		if (!isfinite(epoch_loss)) {
			wl_fail(w, "epoch %d: the loss is not finite (%g)", e + 1, epoch_loss);
			goto out;
		}
	}
	if (!ops->eval(m, d->x, d->y, n, &loss, &correct, why, sizeof(why)) ||
	    !ops->eval(m, d->x + (size_t)n * (size_t)s.dim, d->y + n, (int)o->test_samples, &acc, &acc_n, why,
	               sizeof(why))) {
		wl_fail(w, "%s", why);
		goto out;
	}
	loss_end = loss / n;
	train_acc = (double)correct / n;
	acc = (double)acc_n / (double)o->test_samples;
	wl_log(w, "after %ld steps: loss %.4f (%.1f%% of the start), train accuracy %.3f, held-out accuracy %.3f, "
	       "%.2f s", steps, loss_end, 100 * loss_end / loss_start, train_acc, acc, wl_now() - t0);
	mlp_record(w, steps, loss_start, loss_end, train_acc);
	cJSON_AddNumberToObject(w->json, "test_accuracy", acc);
	cJSON_AddNumberToObject(w->json, "time_s", wl_now() - t0);
	mlp_judge(w, o, loss_start, loss_end, train_acc);
out:
	if (m)
		ops->destroy(m);
	free(params);
	free(perm);
	free(by);
	free(bx);
}

int
main(int argc, char **argv)
{
	struct mlp_opts o = {.samples = 4000, .test_samples = 1000, .dim = 128, .hidden = 256, .classes = 4,
	                     .batch = 256, .epochs = 5, .seed = 42, .expect = -1, .lr = 0.1, .momentum = 0.9,
	                     .max_ratio = 0.7, .min_acc = 0.9};
	struct wl_flag flags[MLP_NFLAGS + 2] = {
		[MLP_NFLAGS] = {.l = "--test-samples", .kind = WL_LONG, .dst = &o.test_samples, .lo = 1, .hi = 10000000},
		{.l = "--device", .kind = WL_LONG, .dst = &o.device, .lo = 0, .hi = 63},
	};
	const struct mlp_ops *ops = &mlp_cpu_ops;
	struct mlp_shape s;
	struct mlp_data d;
	struct wl w;
	char why[512] = "", name[256] = "", bus[64] = "";
	int rc, ndev, major, minor, i;
	double mem;

	wl_init(&w, "train_smoke", "[TRAIN]");
	mlp_flags(&o, flags);
	if ((rc = wl_parse(&w, argc, argv, flags, MLP_NFLAGS + 2, usage)))
		return rc < 0 ? 0 : rc;
	if (!o.cpu && o.expect != 0) {
		ndev = gpu_count(why, sizeof(why));
		if (o.expect > 0 && ndev < o.expect) {
			wl_fail(&w, "expected %ld GPU%s, found %d%s%s", o.expect, o.expect == 1 ? "" : "s", ndev,
			        *why ? ": " : "", why);
			return wl_finish(&w);
		}
		if (ndev == 0)
			wl_log(&w, "no GPU (%s): running the CPU path", why);
		else if (o.device >= ndev) {
			wl_fail(&w, "--device %ld: this node has %d GPUs", o.device, ndev);
			return wl_finish(&w);
		} else {
			ops = &mlp_gpu_ops;
			if (!gpu_select((int)o.device, why, sizeof(why)) ||
			    !gpu_info((int)o.device, name, sizeof(name), &major, &minor, &mem, bus, sizeof(bus), why,
			              sizeof(why))) {
				wl_fail(&w, "GPU %ld: %s", o.device, why);
				return wl_finish(&w);
			}
			wl_log(&w, "GPU %ld: %s (compute %d.%d, %s)", o.device, name, major, minor, bus);
		}
	}
	s = (struct mlp_shape){(int)o.dim, (int)o.hidden, (int)o.classes};
	cJSON_AddStringToObject(w.json, "path", ops->name);
	if (*name)
		cJSON_AddStringToObject(w.json, "gpu", name);
	cJSON_AddNumberToObject(w.json, "samples", (double)o.samples);
	cJSON_AddNumberToObject(w.json, "epochs", (double)o.epochs);
	cJSON_AddNumberToObject(w.json, "batch", (double)o.batch);
	wl_log(&w, "%s path: %ld samples x %ld features, %ld classes, MLP %ld-%ld-%ld, batch %ld, %ld epochs, "
	       "SGD lr %g momentum %g, seed %ld", ops->name, o.samples, o.dim, o.classes, o.dim, o.hidden, o.classes,
	       o.batch, o.epochs, o.lr, o.momentum, o.seed);
	if (!mlp_make_data(&s, (uint64_t)o.seed, (int)(o.samples + o.test_samples), &d)) {
		wl_fail(&w, "out of memory for the data set");
		return wl_finish(&w);
	}
	if (o.force_wrong) {
		uint64_t st = 12345;
		for (i = 0; i < (int)o.samples; i++)
			d.y[i] = (int)(wl_rng_next(&st) % (uint64_t)o.classes);
		wl_log(&w, "--force-wrong: the training labels are scrambled");
	}
	train(&w, &o, ops, &d);
	mlp_free_data(&d);
	return wl_finish(&w);
}
