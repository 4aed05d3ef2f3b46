/* run.h: one run (test case x sweep point x iteration) as expand.c
 * makes it: the data the workloads' command builders and the writers read,
 * apart from the code that makes it (expand.h). */
#ifndef KUNAI_RUN_H
#define KUNAI_RUN_H

#include <stdbool.h>
#include <stddef.h>

#include "model_types.h"

/* One resolved key/value: the text that goes on a command line. */
struct kv {
	const char *key, *value;
};

struct kvlist {
	struct kv *items;
	size_t len;
};

struct run {
	const struct campaign *c;
	const struct test_case *tc;
	const struct testdef *def;
	const struct scenario *hook_of; /* non-NULL for a pre/post hook run */
	int iteration; /* from 0 */
	int step;      /* sweep point from 1; 0 when the case has no sweep */
	const char *dir; /* relative to the build dir: "<id>/<iteration>[/<step>]" */
	struct kvlist args; /* cmd_args for this point, in declaration order,
	                       as given (workload defaults are the builder's) */
	struct kvlist sweep; /* only the swept keys and their values here */
	struct kvlist env;   /* system global_env_vars overlaid with extra_env_vars */
	int num_nodes;
	struct strlist nodes; /* explicit node names (expanded), may be empty */
	const char *partition; /* from a PARTITION:GROUP:N spec; NULL: the default */
	struct strlist hook_env; /* env_vars.sh files of its hooks (set by gen) */
	long time_limit;      /* seconds incl. pre/post hook limits, -1: none */
	size_t index;         /* position in the run list */
	/* the previous iteration of its case, which must complete first: its
	 * first run's index and the number of runs per iteration (valid when
	 * iteration > 0) */
	size_t prev, per_iter;
	/* dependencies on other cases, with their kind and delay */
	struct run_dep {
		enum dep_type type;
		size_t case_index;
		const char *first_dir; /* dir of that case's first run */
		long delay;
	} *deps; /* shared by the case's runs */
	size_t n_deps;
	/* use_deepep_matrix: the dir of the run that writes the matrix (the
	 * first MoEBenchmark or DeepEP case of the start_post_comp chain);
	 * NULL when not used */
	const char *matrix_dir;
	bool matrix_out; /* this run writes the matrices others read */
};

struct runlist {
	struct run *items;
	size_t len;
};

#endif
