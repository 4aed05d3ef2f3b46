/* job_cause.c: why a run failed, in words a person acts on (DESIGN 18). A
 * table of known failure signatures, each the text a real tool prints
 * (srun, pyxis, enroot, slurmstepd, sbatch, bsub, CUDA, NCCL, the shell),
 * read from the run's stderr.txt and stdout.txt or from sbatch's or bsub's
 * refusal; the first signature of the table found wins, so the specific
 * ones come first. A refusal that names a setting of the configuration is a
 * configuration error naming the TOML field. */
#define _POSIX_C_SOURCE 200809L
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "job_proc.h"
#include "job_steps.h"
#include "gen/base/util.h"

enum { TAIL_BYTES = 256 * 1024, LINE_MAX_SHOWN = 200 };

struct signature {
	const char *text;  /* what the message holds */
	const char *cause; /* what it means, and what to do */
	/* the outcome class that already says as much (the state TIMEOUT for
	 * slurmstepd's time limit line): then it is not repeated; else
	 * OUTCOME_PASSED, which no failure is */
	enum outcome same;
};

/* A scheduler's refusal of a setting: what it says, the job script's
 * directive whose value the cause names ("%s"; NULL: none), the cause. */
struct refusal {
	const char *text, *key, *cause;
};

#define NONE OUTCOME_PASSED /* no outcome says it already */

/* Causes that several messages share. */
#define NO_PYXIS(opt) \
	"srun has no " opt ": pyxis is not installed on this cluster (install pyxis and enroot on the nodes, " \
	"or run the test without container_image)"
#define HOST_OOM \
	"out of host memory: the OOM killer ended a process (ask for more memory, e.g. extra_sbatch_args = " \
	"[\"--mem=0\"], or run fewer ranks per node)"
#define GPU_OOM "out of GPU memory: use smaller sizes or batches, or fewer processes per GPU"
#define NCCL_NET "check the nodes' network (InfiniBand/RoCE links, NCCL_SOCKET_IFNAME, NCCL_IB_HCA)"
#define NCCL_FAILED "NCCL failed: see the NCCL WARN lines (NCCL_DEBUG=INFO says more); " NCCL_NET
#define NO_COMMAND "a command was not found: install it on the nodes, or fix its name or path in the test"

/* In a run's output. */
static const struct signature output_sigs[] = {
	{"unrecognized option '--container-image", NO_PYXIS("--container-image"), NONE},
	{"unrecognized option '--container-mounts", NO_PYXIS("--container-mounts"), NONE},
	{"returned error code: 401",
	 "the container registry refused the credentials (401): add them to enroot's credentials file "
	 "($ENROOT_CONFIG_PATH/.credentials) on the nodes", NONE},
	{"returned error code: 404",
	 "the container registry has no such image or tag (404): check the test's container_image", NONE},
	{"pyxis: failed to import docker image",
	 "the container image did not import (pyxis/enroot): check the test's container_image, the registry's "
	 "credentials and that the nodes reach the registry (the enroot log is in stderr.txt)", NONE},
	{"pyxis: couldn't start container", "pyxis could not start the container (the enroot log is in stderr.txt)",
	 NONE},
	{"DUE TO TIME LIMIT", "the job hit its time limit: raise the test's time_limit, or make the run shorter",
	 OUTCOME_TIMEOUT},
	{"DUE TO NODE FAILURE",
	 "a node failed under the job: the next run retries it; when it repeats, drain the node "
	 "(scontrol show node says why)",
	 OUTCOME_NODE_FAIL},
	{"DUE TO PREEMPTION", "a higher-priority job preempted it: the next run retries it", OUTCOME_INFRA},
	{"oom-kill event", HOST_OOM, NONE},
	{"oom_kill event", HOST_OOM, NONE},
	{"Out Of Memory", HOST_OOM, NONE},
	{"CUDA out of memory", GPU_OOM, NONE},
	{"CUDA error: out of memory", GPU_OOM, NONE},
	{"NCCL error", NCCL_FAILED, NONE},
	{"NCCL failure", NCCL_FAILED, NONE},
	{"NCCL WARN", "NCCL warned before the run failed: see the NCCL WARN lines; " NCCL_NET, NONE},
	{"command not found", NO_COMMAND, NONE},
	{"execve(): ", NO_COMMAND, NONE},
	{": not found", NO_COMMAND, NONE},
};

/* sbatch's refusals of a setting: "%s" is the value the script asked for,
 * from the directive key (NULL: none). */
static const struct refusal sbatch_sigs[] = {
	{"Invalid partition name specified", "#SBATCH --partition=",
	 "partition '%s' does not exist on this cluster: set the system TOML's default_partition (or the "
	 "partition of a test's nodes) to one that sinfo lists"},
	{"invalid partition specified", "#SBATCH --partition=",
	 "partition '%s' does not exist on this cluster: set the system TOML's default_partition (or the "
	 "partition of a test's nodes) to one that sinfo lists"},
	{"Invalid generic resource (gres) specification", "#SBATCH --gres=",
	 "the cluster has no GPU gres for --gres=gpu:%s: check the system TOML's gpus_per_node (or set "
	 "supports_gpu_directives_cache = false where the cluster declares no gres)"},
	{"Invalid account or account/partition combination specified", "#SBATCH --account=",
	 "account '%s' is not valid here: set the system TOML's account to one sacctmgr lists for you"},
	{"Invalid qos specification", NULL,
	 "the QoS is not valid here: fix --qos in the system TOML's extra_sbatch_args (sacctmgr show qos)"},
	{"Requested time limit is invalid", NULL,
	 "the time limit exceeds what the partition allows: lower the test's time_limit (sinfo shows TIMELIMIT)"},
	{"Requested node configuration is not available", NULL,
	 "no node of the partition matches the request: the test's num_nodes, or the system TOML's "
	 "gpus_per_node, ntasks_per_node or extra_sbatch_args, ask for more than its nodes have"},
	{"Node count specification invalid", NULL,
	 "the node count is not valid for the partition: check the test's num_nodes"},
	{"Invalid feature specification", NULL,
	 "a --constraint names a feature no node has: fix it in the system TOML's extra_sbatch_args"},
};

/* bsub's: LSF's texts for these refusals (lsb_sysmsg), after "VALUE: " and
 * before ". Job not submitted." */
static const struct refusal bsub_sigs[] = {
	{"No such queue", "#BSUB -q ",
	 "queue '%s' does not exist on this cluster: set the system TOML's default_queue (or the queue of a "
	 "test's nodes) to one that bqueues lists"},
	{"User cannot use the queue", "#BSUB -q ",
	 "you may not submit to queue '%s': set the system TOML's default_queue to one that bqueues -u $USER "
	 "lists"},
	{"Invoker is not in specified project group", "#BSUB -P ",
	 "you are not in project '%s': set the system TOML's project_name to one of yours"},
	{"Too many processors requested", "#BSUB -n ",
	 "%s hosts (a slot each) are more than the queue allows: lower the test's num_nodes"},
	{"Cannot exceed queue's hard limit", "#BSUB -W ",
	 "a run limit of %s minutes exceeds the queue's: lower the test's time_limit (bqueues -l shows RUNLIMIT)"},
	{"Bad host name, host group name or cluster name", "#BSUB -m ",
	 "-m %s names no host, host group or cluster here: fix the system TOML's os_version, or the test's nodes"},
};

/* The value of the directive key ("#SBATCH --partition=", "#BSUB -q ") at
 * the start of a line of the run's job script; "" when none. */
static const char *
directive(struct job *j, const char *key)
{
	struct buf text = {0};
	const char *r = "", *at, *s;
	size_t n = strlen(key);

	if (job_read_record(j, job_script_name(j), &text))
		for (s = buf_str(&text); s && *s; s = strchr(s, '\n'), s = s ? s + 1 : NULL)
			if (strncmp(s, key, n) == 0) {
				at = s + n;
				r = arena_strndup(&j->arena, at, strcspn(at, "\n"));
				break;
			}
	/* gres=gpu:8: the count */
	if (strstr(key, "--gres=") && strchr(r, ':'))
		r = strrchr(r, ':') + 1;
	buf_free(&text);
	return r;
}

/* The line of text around at, shortened and without control characters. */
static void
line_at(struct buf *out, const char *text, const char *at)
{
	const char *s = at, *e = at + strcspn(at, "\n");
	size_t n, whole;

	while (s > text && s[-1] != '\n')
		s--;
	whole = (size_t)(e - s);
	n = whole > LINE_MAX_SHOWN ? LINE_MAX_SHOWN : whole;
	for (; n--; s++)
		buf_putc(out, (unsigned char)*s < ' ' || *s == 0x7f ? ' ' : *s);
	if (whole > LINE_MAX_SHOWN)
		buf_puts(out, "...");
}

/* "configuration error: CAUSE [the line of err at at]", in the arena; cause
 * is a format of one %s, value, when value is not NULL. */
static const char *
config_error(struct job *j, const char *cause, const char *value, const char *err, const char *at)
{
	struct buf b = {0};
	const char *r;

	buf_puts(&b, "configuration error: ");
	if (value)
		buf_printf(&b, cause, value);
	else
		buf_puts(&b, cause);
	/* what the scheduler said */
	buf_puts(&b, " [");
	line_at(&b, err, at);
	buf_putc(&b, ']');
	r = arena_strdup(&j->arena, b.data);
	buf_free(&b);
	return r;
}

/* "configuration error: CAUSE [the line that said it]" for the first of the
 * n refusals sigs that err holds; NULL when none. */
static const char *
refused(struct job *j, const struct refusal *sigs, size_t n, const char *err)
{
	const char *at;
	size_t i;

	for (i = 0; err && i < n; i++)
		if ((at = strstr(err, sigs[i].text)))
			return config_error(j, sigs[i].cause, sigs[i].key ? directive(j, sigs[i].key) : NULL, err, at);
	return NULL;
}

const char *
job_cause_submit(struct job *j, const char *err)
{
	return refused(j, sbatch_sigs, LEN(sbatch_sigs), err);
}

const char *
job_cause_bsub(struct job *j, const char *err)
{
	return refused(j, bsub_sigs, LEN(bsub_sigs), err);
}

const char *
job_cause_kubectl(struct job *j, const char *err)
{
	/* kubectl's words, then the quoted value the cause names, and what
	 * must follow it (NULL: anything) */
	static const struct {
		const char *text, *after, *cause;
	} sigs[] = {
		{"error loading config file \"", NULL,
		 "kubectl cannot load the kubeconfig '%s': fix it, or set the system TOML's kube_config_path to one "
		 "that kubectl reads"},
		{" is forbidden: User \"", NULL,
		 "user '%s' may not create the run's object (Kubernetes RBAC): use a kubeconfig (the system TOML's "
		 "kube_config_path) or a namespace (default_namespace) where it may"},
		{"namespaces \"", "\" not found",
		 "namespace '%s' does not exist: set the system TOML's default_namespace to one that kubectl get "
		 "namespaces lists"},
	};
	const char *at, *v;
	size_t i, n;

	for (i = 0; err && i < LEN(sigs); i++)
		for (at = strstr(err, sigs[i].text); at; at = strstr(at + 1, sigs[i].text)) {
			v = at + strlen(sigs[i].text);
			n = strcspn(v, "\"\n");
			if (v[n] != '"' || (sigs[i].after && strncmp(v + n, sigs[i].after, strlen(sigs[i].after)) != 0))
				continue;
			return config_error(j, sigs[i].cause, arena_strndup(&j->arena, v, n), err, at);
		}
	return NULL;
}

/* The last TAIL_BYTES of DIR/name, or NULL. */
static char *
tail_of(struct job *j, const char *name)
{
	struct buf p = {0};
	struct stat st;
	char *t = NULL;
	ssize_t n;
	off_t from;
	int fd = file_open_regular(AT_FDCWD, job_path(j, &p, name), O_NOFOLLOW);

	buf_free(&p);
	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
		from = st.st_size > TAIL_BYTES ? st.st_size - TAIL_BYTES : 0;
		t = xmalloc(TAIL_BYTES + 1);
		n = pread(fd, t, TAIL_BYTES, from);
		if (n < 0)
			n = 0;
		t[n] = '\0';
		/* NUL bytes end the text early, which is fine for a search */
	}
	close(fd);
	return t;
}

const char *
job_cause_output(struct job *j, enum outcome o)
{
	static const char *const files[] = {"stderr.txt", "stdout.txt"};
	char *text[2];
	const char *at = NULL, *r = NULL;
	struct buf b = {0};
	size_t i, f;

	for (f = 0; f < LEN(files); f++)
		text[f] = tail_of(j, files[f]);
	for (i = 0; i < LEN(output_sigs) && !r; i++)
		for (f = 0; f < LEN(files) && !r && output_sigs[i].same != o; f++) {
			if (!text[f] || !(at = strstr(text[f], output_sigs[i].text)))
				continue;
			/* the shell's "sh: 2: x: not found" is an error message; in
			 * stdout the words may be anything */
			if (f == 1 && output_sigs[i].text[0] == ':')
				continue;
			buf_printf(&b, "%s [%s: ", output_sigs[i].cause, files[f]);
			line_at(&b, text[f], at);
			buf_putc(&b, ']');
			r = arena_strdup(&j->arena, b.data);
		}
	for (f = 0; f < LEN(files); f++)
		free(text[f]);
	buf_free(&b);
	return r;
}
