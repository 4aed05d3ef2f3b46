/* mlp_cuda.cu: the MLP's GPU backend (see mlp.h): cuBLAS SGEMMs for the
 * layers and their gradients, small kernels for bias + ReLU, softmax
 * cross-entropy, bias gradients and the SGD step. Column-major throughout,
 * the layout of mlp.h, so no transposes are needed beyond cuBLAS's own. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include "gpu_check.h"
#include "mlp.h"

struct gpum {
	struct mlp_shape s;
	struct mlp_layout l;
	int maxb;
	cublasHandle_t h;
	cudaStream_t st;
	float *p, *g, *v;      /* parameters, gradient, momentum */
	float *x, *z1, *lg, *dh; /* batch, hidden activations, logits, hidden gradient */
	int *y, *correct;
	float *loss;           /* per sample */
	float *hloss;          /* host copies */
	int *hcorrect;
};

#define CK(call) CUDA_CHECK(#call, call, return false)
#define BK(call) CUBLAS_CHECK(#call, call, return false)

static int
blocks(long total)
{
	long b = (total + 255) / 256;

	return (int)(b < 1 ? 1 : b > 65535 ? 65535 : b);
}

__global__ void
bias_relu(float *z, const float *bias, int rows, long total)
{
	long i;

	for (i = (long)blockIdx.x * blockDim.x + threadIdx.x; i < total; i += (long)blockDim.x * gridDim.x) {
		float v = z[i] + bias[i % rows];
		z[i] = v > 0 ? v : 0;
	}
}

/* One thread per sample, in the CPU path's order: logits + b2, max,
 * exp, normalise, loss = -log p[y]; with scale != 0 the logits become
 * (softmax - onehot) * scale. */
__global__ void
softmax_xent(float *lg, const float *b2, const int *y, int k, int nb, float scale, float *loss, int *correct)
{
	int b = blockIdx.x * blockDim.x + threadIdx.x, j, best = 0;
	float *l, mx, sum = 0;

	if (b >= nb)
		return;
	l = lg + (long)b * k;
	for (j = 0; j < k; j++)
		l[j] += b2[j];
	mx = l[0];
	for (j = 1; j < k; j++)
		if (l[j] > mx)
			mx = l[j], best = j;
	correct[b] = best == y[b];
	for (j = 0; j < k; j++) {
		l[j] = expf(l[j] - mx);
		sum += l[j];
	}
	for (j = 0; j < k; j++)
		l[j] /= sum;
	loss[b] = -logf(l[y[b]] > 1e-30f ? l[y[b]] : 1e-30f);
	if (scale != 0) {
		l[y[b]] -= 1;
		for (j = 0; j < k; j++)
			l[j] *= scale;
	}
}

__global__ void
row_sums(const float *m, int rows, int cols, float *out)
{
	int r = blockIdx.x * blockDim.x + threadIdx.x, c;
	float s = 0;

	if (r >= rows)
		return;
	for (c = 0; c < cols; c++)
		s += m[r + (long)c * rows];
	out[r] = s;
}

__global__ void
relu_grad(float *dh, const float *z1, long total)
{
	long i;

	for (i = (long)blockIdx.x * blockDim.x + threadIdx.x; i < total; i += (long)blockDim.x * gridDim.x)
		if (!(z1[i] > 0))
			dh[i] = 0;
}

__global__ void
sgd(float *p, float *v, const float *g, float lr, float momentum, long total)
{
	long i;

	for (i = (long)blockIdx.x * blockDim.x + threadIdx.x; i < total; i += (long)blockDim.x * gridDim.x) {
		v[i] = momentum * v[i] + g[i];
		p[i] -= lr * v[i];
	}
}

static void
destroy(void *mm)
{
	struct gpum *m = (struct gpum *)mm;

	if (!m)
		return;
	if (m->h)
		cublasDestroy(m->h);
	if (m->st)
		cudaStreamDestroy(m->st);
	cudaFree(m->p);
	cudaFree(m->g);
	cudaFree(m->v);
	cudaFree(m->x);
	cudaFree(m->z1);
	cudaFree(m->lg);
	cudaFree(m->dh);
	cudaFree(m->y);
	cudaFree(m->correct);
	cudaFree(m->loss);
	free(m->hloss);
	free(m->hcorrect);
	free(m);
}

static bool
setup(struct gpum *m, const float *params, char *why, size_t n)
{
	size_t hb = (size_t)m->s.hidden * (size_t)m->maxb, P = m->l.total * sizeof(float);

	CK(cudaStreamCreate(&m->st));
	BK(cublasCreate(&m->h));
	BK(cublasSetStream(m->h, m->st));
	CK(cudaMalloc(&m->p, P));
	CK(cudaMalloc(&m->g, P));
	CK(cudaMalloc(&m->v, P));
	CK(cudaMalloc(&m->x, (size_t)m->s.dim * (size_t)m->maxb * sizeof(float)));
	CK(cudaMalloc(&m->z1, hb * sizeof(float)));
	CK(cudaMalloc(&m->dh, hb * sizeof(float)));
	CK(cudaMalloc(&m->lg, (size_t)m->s.classes * (size_t)m->maxb * sizeof(float)));
	CK(cudaMalloc(&m->y, (size_t)m->maxb * sizeof(int)));
	CK(cudaMalloc(&m->correct, (size_t)m->maxb * sizeof(int)));
	CK(cudaMalloc(&m->loss, (size_t)m->maxb * sizeof(float)));
	CK(cudaMemcpy(m->p, params, P, cudaMemcpyHostToDevice));
	CK(cudaMemset(m->g, 0, P));
	CK(cudaMemset(m->v, 0, P));
	m->hloss = (float *)malloc((size_t)m->maxb * sizeof(float));
	m->hcorrect = (int *)malloc((size_t)m->maxb * sizeof(int));
	if (!m->hloss || !m->hcorrect) {
		snprintf(why, n, "out of memory");
		return false;
	}
	return true;
}

static void *
create(const struct mlp_shape *s, const float *params, int max_batch, char *why, size_t n)
{
	struct gpum *m = (struct gpum *)calloc(1, sizeof(*m));

	if (!m) {
		snprintf(why, n, "out of memory");
		return NULL;
	}
	m->s = *s;
	m->maxb = max_batch;
	mlp_layout(s, &m->l);
	if (!setup(m, params, why, n)) {
		destroy(m);
		return NULL;
	}
	return m;
}

/* Forward over nb samples already on the device (scale != 0: also turn
 * the logits into their gradient); sums loss and correct on the host. */
static bool
forward(struct gpum *m, int nb, float scale, double *loss, int *correct, char *why, size_t n)
{
	const struct mlp_shape *s = &m->s;
	const float one = 1, zero = 0;
	int b;

	BK(cublasSgemm(m->h, CUBLAS_OP_N, CUBLAS_OP_N, s->hidden, nb, s->dim, &one, m->p + m->l.w1, s->hidden,
	               m->x, s->dim, &zero, m->z1, s->hidden));
	bias_relu<<<blocks((long)s->hidden * nb), 256, 0, m->st>>>(m->z1, m->p + m->l.b1, s->hidden,
	                                                            (long)s->hidden * nb);
	BK(cublasSgemm(m->h, CUBLAS_OP_N, CUBLAS_OP_N, s->classes, nb, s->hidden, &one, m->p + m->l.w2, s->classes,
	               m->z1, s->hidden, &zero, m->lg, s->classes));
	softmax_xent<<<(nb + 127) / 128, 128, 0, m->st>>>(m->lg, m->p + m->l.b2, m->y, s->classes, nb, scale,
	                                                   m->loss, m->correct);
	CK(cudaGetLastError());
	CK(cudaMemcpyAsync(m->hloss, m->loss, (size_t)nb * sizeof(float), cudaMemcpyDeviceToHost, m->st));
	CK(cudaMemcpyAsync(m->hcorrect, m->correct, (size_t)nb * sizeof(int), cudaMemcpyDeviceToHost, m->st));
	CK(cudaStreamSynchronize(m->st));
	for (b = 0; b < nb; b++) {
		*loss += m->hloss[b];
		*correct += m->hcorrect[b];
	}
	return true;
}

static bool
upload(struct gpum *m, const float *x, const int *y, int nb, char *why, size_t n)
{
	CK(cudaMemcpyAsync(m->x, x, (size_t)nb * (size_t)m->s.dim * sizeof(float), cudaMemcpyHostToDevice, m->st));
	CK(cudaMemcpyAsync(m->y, y, (size_t)nb * sizeof(int), cudaMemcpyHostToDevice, m->st));
	return true;
}

static bool
grad(void *mm, const float *x, const int *y, int nb, float scale, double *loss, int *correct, char *why, size_t n)
{
	struct gpum *m = (struct gpum *)mm;
	const struct mlp_shape *s = &m->s;
	const float one = 1, zero = 0;

	*loss = 0;
	*correct = 0;
	if (nb > m->maxb) {
		snprintf(why, n, "batch of %d exceeds the %d the model was set up for", nb, m->maxb);
		return false;
	}
	if (!upload(m, x, y, nb, why, n) || !forward(m, nb, scale, loss, correct, why, n))
		return false;
	/* dW2 = dL . Z1^T, db2 = rows of dL, dH = W2^T . dL masked by ReLU,
	 * dW1 = dH . X^T, db1 = rows of dH */
	BK(cublasSgemm(m->h, CUBLAS_OP_N, CUBLAS_OP_T, s->classes, s->hidden, nb, &one, m->lg, s->classes, m->z1,
	               s->hidden, &zero, m->g + m->l.w2, s->classes));
	row_sums<<<(s->classes + 127) / 128, 128, 0, m->st>>>(m->lg, s->classes, nb, m->g + m->l.b2);
	BK(cublasSgemm(m->h, CUBLAS_OP_T, CUBLAS_OP_N, s->hidden, nb, s->classes, &one, m->p + m->l.w2, s->classes,
	               m->lg, s->classes, &zero, m->dh, s->hidden));
	relu_grad<<<blocks((long)s->hidden * nb), 256, 0, m->st>>>(m->dh, m->z1, (long)s->hidden * nb);
	BK(cublasSgemm(m->h, CUBLAS_OP_N, CUBLAS_OP_T, s->hidden, s->dim, nb, &one, m->dh, s->hidden, m->x, s->dim,
	               &zero, m->g + m->l.w1, s->hidden));
	row_sums<<<(s->hidden + 127) / 128, 128, 0, m->st>>>(m->dh, s->hidden, nb, m->g + m->l.b1);
	CK(cudaGetLastError());
	CK(cudaStreamSynchronize(m->st));
	return true;
}

static float *
grad_buf(void *mm)
{
	return ((struct gpum *)mm)->g;
}

static bool
step(void *mm, float lr, float momentum, char *why, size_t n)
{
	struct gpum *m = (struct gpum *)mm;

	sgd<<<blocks((long)m->l.total), 256, 0, m->st>>>(m->p, m->v, m->g, lr, momentum, (long)m->l.total);
	CK(cudaGetLastError());
	CK(cudaStreamSynchronize(m->st));
	return true;
}

static bool
eval(void *mm, const float *x, const int *y, int nx, double *loss, int *correct, char *why, size_t n)
{
	struct gpum *m = (struct gpum *)mm;
	int b, k;

	*loss = 0;
	*correct = 0;
	for (b = 0; b < nx; b += k) {
		k = nx - b < m->maxb ? nx - b : m->maxb;
		if (!upload(m, x + (size_t)b * (size_t)m->s.dim, y + b, k, why, n) ||
		    !forward(m, k, 0, loss, correct, why, n))
			return false;
	}
	return true;
}

static bool
params(void *mm, float *out, char *why, size_t n)
{
	struct gpum *m = (struct gpum *)mm;

	CK(cudaMemcpy(out, m->p, m->l.total * sizeof(float), cudaMemcpyDeviceToHost));
	return true;
}

extern "C" const struct mlp_ops mlp_gpu_ops = {
	"cuda", create, grad, grad_buf, step, eval, params, destroy,
};
