/* wl_nixl.c: the launcher the NIXL workloads share (wl_nixl.h), kunai's
 * form of CloudAI's etcd lifecycle and per-node sruns. */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "wl_nixl.h"
#include "workload.h"
#include "gen/base/escape.h"
#include "gen/base/util.h"
#include "gen/model/expand.h"

bool
nixl_bytes(struct buf *out, const char *v)
{
	static const struct {
		const char *unit;
		unsigned long long mult;
	} units[] = {{"", 1}, {"b", 1}, {"kb", 1ull << 10}, {"mb", 1ull << 20}, {"gb", 1ull << 30}};
	char *end;
	unsigned long long n = strtoull(v, &end, 10);
	size_t i;

	if (end != v && *v >= '0' && *v <= '9')
		for (i = 0; i < LEN(units); i++)
			if (strcmp(end, units[i].unit) == 0 && n <= ~0ull / units[i].mult) {
				buf_printf(out, "%llu", n * units[i].mult);
				return true;
			}
	return false;
}

bool
nixl_own(const char *key, const char *const *keys)
{
	for (; *keys; keys++)
		if (strcmp(key, *keys) == 0)
			return true;
	return false;
}

const char *const nixl_table[2] = {"Block Size (B)", NULL};

const struct installable nixl_installables[2] = {
	{INST_IMAGE, "cmd_args.docker_image_url", NULL, NULL, NULL},
	{INST_IMAGE, "cmd_args.etcd_image_url", NULL, NULL, NULL},
};

void
nixl_prologue(const struct run *r, struct buf *out)
{
	(void)r;
	buf_puts(out, "\n# NIXL: a namespace of its own per job on the first node's etcd\n"
	              "export NIXL_ETCD_NAMESPACE=/nixl/kvbench/$(uuidgen)\n"
	              "export NIXL_ETCD_ENDPOINTS=\"$SLURM_JOB_MASTER_NODE:2379\"\n");
}

void
nixl_etcd_start(const struct run *r, const struct wl_srun *s, struct buf *out)
{
	const char *wait = workload_value(r, "wait_etcd_for");

	s->prefix(out, r, false, workload_value(r, "etcd_image_url"));
	buf_puts(out, " --output=\"$RUN_DIR/etcd.log\" --overlap --ntasks-per-node=1 --ntasks=1"
	              " --nodelist=$SLURM_JOB_MASTER_NODE -N1 ");
	sh_quote(out, workload_value(r, "etcd_path"));
	buf_puts(out, " --listen-client-urls=http://0.0.0.0:2379"
	              " --advertise-client-urls=http://$SLURM_JOB_MASTER_NODE:2379"
	              " --listen-peer-urls=http://0.0.0.0:2380"
	              " --initial-advertise-peer-urls=http://$SLURM_JOB_MASTER_NODE:2380"
	              " --initial-cluster=\"default=http://$SLURM_JOB_MASTER_NODE:2380\""
	              " --initial-cluster-state=new &\n"
	              "etcd_pid=$!\n");
	buf_printf(out, "timeout %ld bash -c \"until curl -s $NIXL_ETCD_ENDPOINTS/health >/dev/null 2>&1; do sleep 1; done\" || {\n"
	                "    echo \"kunai: etcd ($NIXL_ETCD_ENDPOINTS) not healthy within %ld seconds\" >&2\n"
	                "    kill -TERM $etcd_pid\n"
	                "    exit 1\n"
	                "}\n",
	           strtol(wait, NULL, 10), strtol(wait, NULL, 10));
}

void
nixl_etcd_stop(struct buf *out)
{
	buf_puts(out, "\nKUNAI_TEST_RC=$?\n"
	              "kill -TERM $etcd_pid\n"
	              "timeout 60 bash -c \"while kill -0 $etcd_pid 2>/dev/null; do sleep 1; done\" ||\n"
	              "    echo \"kunai: etcd (pid $etcd_pid) still running after 60 seconds\" >&2\n"
	              "(exit $KUNAI_TEST_RC)");
}

void
nixl_srun_on(const struct run *r, const struct wl_srun *s, int node, struct buf *out)
{
	s->prefix(out, r, false, NULL);
	if (node > 0)
		buf_printf(out, " --overlap --nodelist=$(scontrol show hostname $SLURM_JOB_NODELIST | sed -n '%dp')", node);
	else
		buf_puts(out, " --overlap --nodelist=$SLURM_JOB_MASTER_NODE");
	buf_puts(out, " --ntasks-per-node=1 --ntasks=1 -N1 ");
	s->bash_c(out, r);
}

void
nixl_body(const struct run *r, const struct wl_srun *s, const char *backend, struct buf *out)
{
	int nodes = r->nodes.len ? (int)r->nodes.len : r->num_nodes, n = 1, i;
	bool ucx = backend && strcasecmp(backend, "UCX") == 0;

	if (ucx)
		n = nodes > 1 ? nodes : 2;
	nixl_etcd_start(r, s, out);
	for (i = 0; i < n; i++) {
		nixl_srun_on(r, s, ucx && nodes > 1 ? i + 1 : 0, out);
		buf_puts(out, i + 1 < n ? " &\nsleep 15\n" : "");
	}
	nixl_etcd_stop(out);
}

void
nixl_backend_body(const struct run *r, const struct wl_srun *s, struct buf *out)
{
	nixl_body(r, s, workload_value(r, "backend"), out);
}
