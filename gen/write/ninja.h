/* ninja.h: the build.ninja and local.ninja writers. */
#ifndef KUNAI_NINJA_H
#define KUNAI_NINJA_H

#include <stdbool.h>
#include <stddef.h>

#include "gen/model/model.h"

struct buf;
struct install_set;
struct runlist;

/* Returns the job script's file name for a scheduler (in every run dir). */
const char *ninja_script_name(enum sched s);
/* Returns the rule file (in the rules dir) of a scheduler. */
const char *ninja_rules_file(enum sched s);

/* ninja rescans a waiting edge's inputs each time one of them is built:
 * an edge naming n files costs n^2, so an edge that would name more than
 * NINJA_INPUT_GROUP of them names phonies of NINJA_INPUT_GROUP each instead. */
enum { NINJA_INPUT_GROUP = 500 };

/* Every test's id is a ninja target, at any count of tests: a phony that
 * names its runs. For a test of one run that phony only renames the run's
 * stamp, at the cost of an edge and a node that ninja parses on every
 * `ninja run` (about 400 bytes of its memory, nearly half of what a bare
 * graph's run costs: 1.34x a bare graph's peak memory, 1.26x its time, on a
 * no-op of 10,000 such tests). It is the one line
 * `build <id>: phony <id>/0/kunai.stamp`, and its dependants and `run` name
 * the stamp, so that a `ninja run` never scans (nor stats) it. No spelling
 * is cheaper (an implicit output of the run edge costs a .ninja_log line
 * on every run; `run` naming the aliases, a stat of each). */

/* Appends DIR/FILE, escaped for a ninja path. */
void ninja_path_in(struct buf *b, const char *dir, const char *file);

/* Appends the runs [from, to)'s FILE to list as an edge's inputs (each
 * after a blank): the files themselves, or past NINJA_INPUT_GROUP runs the
 * phonies NAME.K of NINJA_INPUT_GROUP files each, whose edges go to b. */
void ninja_grouped_runs(struct buf *b, struct buf *list, const struct runlist *rl, size_t from, size_t to,
                        const char *name, const char *file);

/* Appends build.ninja: identical bytes for the same campaign anywhere; the
 * runs wait for what inst says they need. */
void ninja_write_build(const struct campaign *c, const struct runlist *rl, const struct install_set *inst,
                       struct buf *b);

/* Appends report.ninja: the report graph (grading, plots, HTML) that
 * `ninja report` builds with a nested ninja, out of what `ninja run` loads. */
void ninja_write_report(const struct campaign *c, const struct runlist *rl, struct buf *b);

/* Appends local.ninja: kunai's path, the rules dir and the regenerate edge,
 * which reruns `kunai argv...` in cwd. */
void ninja_write_local(const struct campaign *c, const char *kunai, const char *rulesdir,
                       const char *cwd, const char *const *argv, size_t argc, struct buf *b);

/* ninja_log.c: when the scheduler's rule file (rulesdir/rules_file) runs
 * its run and start commands under exec, gives each entry of out_dir's
 * .ninja_log that has the hash of that command without exec (its variables
 * from out_dir's local.ninja) the hash with it, so that ninja does not run
 * a finished run again. Never fails: a log it cannot read or write is left
 * as it was (and its runs run again). */
void ninja_log_migrate(const char *out_dir, const char *rulesdir, const char *rules_file);

#endif
