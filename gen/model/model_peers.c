/* model_peers.c: [peers], kunai's settings of the peer comparison
 * (DESIGN 15) in a test definition, a scenario's test case or the
 * scenario itself: a value far from the median of the same metric on the
 * other nodes or GPUs of the campaign makes its run suspect. The reports
 * read the validated table from kunai.json; here every key is checked. */
#include <math.h>
#include <string.h>

#include "model_priv.h"
#include "gen/base/util.h"

static const char *const peer_keys[] = {
	"enabled", "tolerance", "mad_k", "min_peers", "metrics", "higher_is_better", "lower_is_better", NULL,
};

const struct toml_value *
m_load_peers(struct mctx *c, const struct toml_value *root)
{
	const struct toml_value *t = m_table(c, root, "peers");
	struct toml_keyval *kv;
	struct strlist l = {0};
	double d = 0;
	long n;
	bool b;

	if (!t)
		return NULL;
	m_check_keys(c, t, peer_keys);
	m_bool(c, t, "enabled", &b);
	if (m_num(c, t, "tolerance", &d) && (kv = m_kv(t, "tolerance")) && (d < 0 || d >= 1))
		merr(c, kv->value->pos, "peers.tolerance must be a fraction in [0, 1) (0.1: 10%% below the median), not %g", d);
	if (m_num(c, t, "mad_k", &d) && (kv = m_kv(t, "mad_k")) && d < 0)
		merr(c, kv->value->pos, "peers.mad_k must be at least 0, not %g", d);
	m_int(c, t, "min_peers", false, 2, &n);
	struct strlist hi = {0}, lo = {0};
	size_t i, j;

	m_strlist(c, t, "metrics", &l);
	m_strlist(c, t, "higher_is_better", &hi);
	m_strlist(c, t, "lower_is_better", &lo);
	for (i = 0; i < lo.len; i++)
		for (j = 0; j < hi.len; j++)
			if (strcmp(lo.items[i], hi.items[j]) == 0)
				merr(c, lo.pos[i], "peers: '%s' is in both higher_is_better and lower_is_better",
				     m_shown(c, lo.items[i]));
	return t;
}
