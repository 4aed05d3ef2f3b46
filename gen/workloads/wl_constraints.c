/* wl_constraints.c: CloudAI's constraint_check of the training templates
 * (NeMoRun, MegatronBridge). CloudAI applies it to DSE points only (its gym
 * skips a point that fails, with the constraint_failure reward); kunai's DSE
 * is the sweep, so a sweep point that fails is a located error: no sweep
 * loses points silently. A run that is no sweep point is not checked, as
 * CloudAI does not check it. */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "wl_train.h"
#include "gen/base/util.h"
#include "gen/model/expand.h"

struct chk {
	const struct run *r;
	struct wl_diags *d;
};

static void
fail(struct chk *c, const char *key, const char *what, const char *detail)
{
	const char *rule = strstr(what, ": ");

	workload_error(c->d, c->r, key, false, true,
	               "CloudAI's constraint %.*s fails (%s: %s); CloudAI's DSE skips such a point, kunai refuses it",
	               rule ? (int)(rule - what) : (int)strlen(what), what, rule ? rule + 2 : "", detail);
}

/* The integer value of key, else def; *set says whether the run gives one. */
static long long
ival(const struct run *r, const char *key, long long def, bool *set)
{
	long long v;

	if (set)
		*set = train_int(workload_value(r, key), &v);
	return train_int(workload_value(r, key), &v) ? v : def;
}

static bool
is_sweep_point(const struct run *r)
{
	return r->step > 0;
}

void
nemo_run_check(const struct run *r, struct wl_diags *diags)
{
	struct chk c = {r, diags};
	long long nodes = (long long)(r->nodes.len ? r->nodes.len : (size_t)r->num_nodes);
	long long tp = ival(r, "trainer.strategy.tensor_model_parallel_size", 1, NULL);
	long long pp = ival(r, "trainer.strategy.pipeline_model_parallel_size", 1, NULL);
	long long cp = ival(r, "trainer.strategy.context_parallel_size", 2, NULL);
	long long mbs = ival(r, "data.micro_batch_size", 1, NULL), gbs = ival(r, "data.global_batch_size", 1, NULL);
	long long gpus = nodes * 8, denom = tp * pp * cp, dp, vp, layers;
	bool has_vp, has_layers;
	char d[200];

	if (!is_sweep_point(r))
		return;
	vp = ival(r, "trainer.strategy.virtual_pipeline_model_parallel_size", 0, &has_vp);
	layers = ival(r, "num_layers", 0, &has_layers);
	dp = denom > 0 ? gpus / denom : 0;
	/* CloudAI counts 8 GPUs per node here, whatever the system says */
	snprintf(d, sizeof(d), "num_gpus=%lld (8 per node), tp=%lld, pp=%lld, cp=%lld", gpus, tp, pp, cp);
	if (denom <= 0 || gpus % denom != 0)
		fail(&c, "trainer.strategy.tensor_model_parallel_size", "1: num_gpus % (tp * pp * cp) == 0", d);
	if (has_vp && (!has_layers || pp <= 0 || vp <= 0 || (layers / pp) % vp != 0)) {
		snprintf(d, sizeof(d), "num_layers=%s, pp=%lld, vp=%lld", has_layers ? workload_value(r, "num_layers") : "None",
		         pp, vp);
		fail(&c, "trainer.strategy.virtual_pipeline_model_parallel_size", "2: (num_layers // pp) % vp == 0", d);
	}
	snprintf(d, sizeof(d), "num_gpus=%lld (8 per node), tp=%lld, pp=%lld, cp=%lld", gpus, tp, pp, cp);
	if (dp == 0)
		fail(&c, "trainer.strategy.tensor_model_parallel_size", "3: dp = num_gpus // (tp * pp * cp) != 0", d);
	if (dp != 0 && (mbs * dp == 0 || gbs % (mbs * dp) != 0)) {
		snprintf(d, sizeof(d), "gbs=%lld, mbs=%lld, dp=%lld", gbs, mbs, dp);
		fail(&c, "data.global_batch_size", "4: gbs % (mbs * dp) == 0", d);
	}
}

/* CloudAI's _normalize_str_list: "[a, 'b']" or "a,b" as lowercase items. */
static size_t
str_list(const char *v, char items[][32], size_t max)
{
	const char *p = v ? v : "", *e;
	size_t n = 0, len;

	while (*p && (isspace((unsigned char)*p) || *p == '"' || *p == '\'' || *p == '['))
		p++;
	e = p + strlen(p);
	while (e > p && (isspace((unsigned char)e[-1]) || e[-1] == '"' || e[-1] == '\'' || e[-1] == ']'))
		e--;
	while (p < e && n < max) {
		const char *q = memchr(p, ',', (size_t)(e - p)), *s = p, *t;
		if (!q)
			q = e;
		t = q;
		while (s < t && (isspace((unsigned char)*s) || *s == '"' || *s == '\''))
			s++;
		while (t > s && (isspace((unsigned char)t[-1]) || t[-1] == '"' || t[-1] == '\''))
			t--;
		len = (size_t)(t - s) < 31 ? (size_t)(t - s) : 31;
		if (len) {
			size_t i;
			for (i = 0; i < len; i++)
				items[n][i] = (char)tolower((unsigned char)s[i]);
			items[n++][len] = '\0';
		}
		p = q + 1;
	}
	return n;
}

static bool
in_list(char items[][32], size_t n, const char *w)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (strcmp(items[i], w) == 0)
			return true;
	return false;
}

void
megatron_bridge_check(const struct run *r, struct wl_diags *diags)
{
	static const char *const scopes_ok[] = {"attn", "mlp", "moe", "moe_router", "moe_preprocess", "mamba"};
	struct chk c = {r, diags};
	char sc[16][32], rm[16][32], d[256], impl[32] = "";
	long long gpus = ival(r, "num_gpus", 8, NULL), tp, pp, cp, vp, mbs, gbs, et, ep, ndo, off, denom, dp;
	bool has_vp, has_mbs, has_gbs, has_et, has_ep, has_ndo, fsdp, graphs, impl_on;
	const char *cgi = workload_value(r, "cuda_graph_impl"), *recipe = workload_value(r, "model_recipe_name");
	size_t nsc, nrm, i;

	if (!is_sweep_point(r))
		return;
	/* None or 0 is 1, as CloudAI's `or 1` */
	tp = ival(r, "tp", 1, NULL), pp = ival(r, "pp", 1, NULL), cp = ival(r, "cp", 1, NULL);
	tp = tp ? tp : 1, pp = pp ? pp : 1, cp = cp ? cp : 1;
	vp = ival(r, "vp", 0, &has_vp), mbs = ival(r, "mb", 0, &has_mbs), gbs = ival(r, "gb", 0, &has_gbs);
	et = ival(r, "et", 0, &has_et), ep = ival(r, "ep", 0, &has_ep);
	ndo = ival(r, "num_distributed_optimizer_instances", 0, &has_ndo);
	off = ival(r, "activation_offload_layers", 0, NULL);
	fsdp = workload_true(workload_value(r, "use_megatron_fsdp"));
	denom = tp * pp * cp;
	dp = denom > 0 ? gpus / denom : 0;
	for (i = 0; cgi && cgi[i] && i < sizeof(impl) - 1; i++)
		impl[i] = (char)tolower((unsigned char)cgi[i]);
	/* Python's strip() too */
	impl_on = *impl && strcmp(impl, "none") != 0 && strcmp(impl, "null") != 0;
	nsc = str_list(workload_value(r, "cuda_graph_scope"), sc, LEN(sc));
	nrm = str_list(workload_value(r, "recompute_modules"), rm, LEN(rm));
	graphs = impl_on && nsc > 0;

	snprintf(d, sizeof(d), "num_gpus=%lld, tp=%lld, pp=%lld, cp=%lld", gpus, tp, pp, cp);
	if (denom <= 0 || gpus % denom != 0)
		fail(&c, "tp", "1: num_gpus % (tp * pp * cp) == 0", d);
	if (dp == 0)
		fail(&c, "tp", "3: dp != 0", d);
	if (has_mbs && has_gbs && mbs && gbs) {
		long long div = dp ? mbs * dp * (fsdp ? (has_ndo && ndo ? ndo : 1) : 1) : 0;
		snprintf(d, sizeof(d), "gb=%lld, mb=%lld, dp=%lld%s", gbs, mbs, dp, fsdp ? ", times ndo with fsdp" : "");
		if (div == 0 || gbs % div != 0)
			fail(&c, "gb", "4: gb % (mb * dp [* ndo]) == 0", d);
	}
	if (fsdp && graphs)
		fail(&c, "use_megatron_fsdp", "5: use_megatron_fsdp needs CUDA graphs off", "cuda_graph_impl and scope set");
	if (fsdp && !(pp == 1 && cp == 1 && (!has_vp || vp == 1))) {
		snprintf(d, sizeof(d), "pp=%lld, cp=%lld, vp=%s", pp, cp, has_vp ? workload_value(r, "vp") : "None");
		fail(&c, "use_megatron_fsdp", "6: use_megatron_fsdp needs pp == cp == vp == 1", d);
	}
	if (has_et && has_ep && (et * ep * pp == 0 || gpus % (et * ep * pp) != 0)) {
		snprintf(d, sizeof(d), "num_gpus=%lld, et=%lld, ep=%lld, pp=%lld", gpus, et, ep, pp);
		fail(&c, "ep", "7: num_gpus % (et * ep * pp) == 0", d);
	}
	if (has_ndo && ndo > 1 && !fsdp)
		fail(&c, "num_distributed_optimizer_instances", "9: num_distributed_optimizer_instances > 1 needs "
		                                                "use_megatron_fsdp", workload_value(r, "num_distributed_optimizer_instances"));
	if (pp > 1 && off > 0)
		fail(&c, "activation_offload_layers", "10: pp > 1 excludes CPU offloading", "activation_offload_layers > 0");
	if (impl_on && workload_true(workload_value(r, "moe_a2a_overlap")))
		fail(&c, "moe_a2a_overlap", "11: moe_a2a_overlap needs cuda_graph_impl none", impl);
	if (graphs && off > 0)
		fail(&c, "activation_offload_layers", "12: CUDA graphs exclude CPU offloading", "activation_offload_layers > 0");
	if (*impl && strcmp(impl, "none") && strcmp(impl, "null") && strcmp(impl, "transformer_engine") &&
	    strcmp(impl, "local"))
		fail(&c, "cuda_graph_impl", "13: cuda_graph_impl is none, transformer_engine or local", impl);
	if (strcmp(impl, "local") == 0 && nsc > 0 && !(nsc == 1 && strcmp(sc[0], "full_iteration") == 0))
		fail(&c, "cuda_graph_scope", "14: cuda_graph_impl local allows cuda_graph_scope full_iteration only",
		     workload_value(r, "cuda_graph_scope"));
	if (strcmp(impl, "transformer_engine") == 0)
		for (i = 0; i < nsc; i++) {
			size_t j;
			for (j = 0; j < LEN(scopes_ok) && strcmp(sc[i], scopes_ok[j]) != 0; j++)
				;
			if (j == LEN(scopes_ok)) {
				fail(&c, "cuda_graph_scope", "14: scopes of transformer_engine CUDA graphs are attn, mlp, moe, "
				                             "moe_router, moe_preprocess, mamba", sc[i]);
				break;
			}
		}
	if (in_list(sc, nsc, "moe") && in_list(sc, nsc, "moe_router"))
		fail(&c, "cuda_graph_scope", "15: cuda_graph_scope not both moe and moe_router", "both given");
	if (in_list(sc, nsc, "moe_preprocess") && !in_list(sc, nsc, "moe_router"))
		fail(&c, "cuda_graph_scope", "16: cuda_graph_scope moe_preprocess needs moe_router", "moe_router absent");
	if (nsc && nrm &&
	    ((in_list(sc, nsc, "attn") && (in_list(rm, nrm, "core_attn") || in_list(rm, nrm, "mla_up_proj"))) ||
	     (in_list(sc, nsc, "mlp") && in_list(rm, nrm, "mlp")) ||
	     (in_list(sc, nsc, "moe") &&
	      (in_list(rm, nrm, "moe_act") || in_list(rm, nrm, "moe") || in_list(rm, nrm, "shared_experts"))) ||
	     (in_list(sc, nsc, "moe_router") && (in_list(rm, nrm, "moe") || in_list(rm, nrm, "shared_experts"))) ||
	     (in_list(rm, nrm, "layernorm") && in_list(sc, nsc, "attn") && in_list(sc, nsc, "mlp") &&
	      (in_list(sc, nsc, "moe") || in_list(sc, nsc, "moe_router")))))
		fail(&c, "recompute_modules", "17: the CUDA graph scopes and recompute_modules are compatible",
		     workload_value(r, "recompute_modules"));
	if (recipe) {
		static const long long pv[][2] = {{1, 1}, {4, 1}, {8, 1}, {4, 2}, {16, 1}, {8, 2}, {4, 4}};
		char low[128];
		long long v = has_vp ? vp : 1;
		for (i = 0; recipe[i] && i < sizeof(low) - 1; i++)
			low[i] = (char)tolower((unsigned char)recipe[i]);
		low[i] = '\0';
		if (strstr(low, "deepseek_v3") || strstr(low, "deepseekv3")) {
			for (i = 0; i < LEN(pv) && !(pv[i][0] == pp && pv[i][1] == v); i++)
				;
			snprintf(d, sizeof(d), "pp=%lld, vp=%lld", pp, v);
			if (i == LEN(pv))
				fail(&c, "pp", "18: (pp, vp) is a DeepSeek v3 pipeline layout", d);
		}
	}
}
