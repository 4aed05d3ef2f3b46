/* model_priv.h: what the model's files (model.c, model_check.c,
 * model_system.c, model_test.c, model_scenario.c, model_set.c, verify.c)
 * share. Not for other files. */
#ifndef KUNAI_MODEL_PRIV_H
#define KUNAI_MODEL_PRIV_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "model.h"
#include "gen/toml/toml.h"

struct buf;

/* A TOML file the model read, cached by identity (device and inode) so
 * that each file is parsed, validated and reported at most once, however
 * many scenarios, hook lookups or verify-configs paths reach it. */
struct mfile {
	const char *path; /* as given or joined, never made absolute */
	dev_t dev;
	ino_t ino;
	struct toml_value *root; /* NULL: unreadable or bad TOML (reported) */
	/* as a test definition */
	int def_state; /* 0: not loaded, 1: ok, -1: failed */
	struct testdef *def;
	/* a failed definition's errors, held back while no scenario uses it
	 * (gen: a tests folder may hold files kunai cannot use) */
	struct merror *deferred;
	size_t n_deferred;
	/* as a scenario (or hook) */
	int sc_state; /* 0: not loaded, 1: ok, -1: failed, 2: loading */
	struct scenario *sc;
};

/* Test definitions by name: a --tests-dir, a <hook-dir>/test, or the test
 * files verify-configs found. Failed definitions stay in (def_state -1)
 * so that scenarios naming them report nothing more. */
struct pool {
	struct mfile **items;
	size_t len, cap;
	/* files of the dir (or the dir itself) that could not be read or
	 * parsed (reported): they may define any name, so unknown names are
	 * not reported */
	size_t n_broken;
};

/* A hook directory: its scenario files, and its test/ pool. */
struct hookdir {
	const char *path;
	dev_t dev;
	ino_t ino;
	struct mfile **files; /* every *.toml in it, sorted by file name */
	size_t n_files;
	struct pool tests;
};

/* A reported error, held back so that each file's errors print in line
 * order (the loaders check by topic, not by line). */
struct merror {
	struct toml_pos pos;
	size_t seq, rank;
	char *msg;
};

struct mctx {
	struct arena *a;
	struct merror *errs; /* not yet printed; m_flush prints them */
	size_t n_errs, cap_errs;
	const struct system *sys; /* NULL: checks that need a system are skipped */
	int errors;               /* reported so far */
	struct mfile **files;     /* the cache */
	size_t n_files, cap_files;
	struct hookdir **hooks;
	size_t n_hooks, cap_hooks;
	struct strlist *inputs; /* files read, in order; NULL: not recorded */
	size_t cap_inputs;
	const char *hook_dir; /* for the scenario being loaded; NULL: none */
	/* gen: a test definition's errors count only when a scenario uses it;
	 * verify-configs reports every file */
	bool lenient_tests;
	bool presets_checked; /* the scenario's [presets] were validated */
};

/* The scenario's case ids, hashed: the duplicate check and each dependency
 * look one up instead of comparing every pair (100k tests took 45 s). */
struct id_index {
	size_t *slot; /* case index + 1; 0: empty */
	size_t mask;
};

/* model_deps.c */
/* The case index of id in ix, SIZE_MAX when absent; with add, an absent id
 * is added as case i. */
size_t id_find(struct id_index *ix, const struct scenario *sc, const char *id, bool add, size_t i);
/* Sizes ix for n ids (in a). */
void id_index_init(struct arena *a, struct id_index *ix, size_t n);
/* Resolves every case's dependencies through ix (ids added as the cases
 * were read) and reports unknown ids, self-dependencies and cycles. */
void resolve_deps(struct mctx *c, struct scenario *sc, struct id_index *ix);

/* model.c */
/* Reads and parses path (once); returns the cached file, whose root is NULL
 * after a reported failure. */
struct mfile *mfile_read(struct mctx *c, const char *path);
/* Loads every *.toml in dir (not recursive, sorted by file name) as test
 * definitions into p; a missing dir is an error only when required. */
bool pool_load_dir(struct mctx *c, struct pool *p, const char *dir, bool required);
/* Adds f (a loaded test definition) to p; reports a duplicate name. */
void pool_add(struct mctx *c, struct pool *p, struct mfile *f);
/* The names of p's definitions, for "did you mean" ("" when unnamed). */
const char **pool_names(struct mctx *c, const struct pool *p);
/* Reports the errors held back for f's definition (now that a scenario
 * uses it), once. */
void m_use_deferred(struct mctx *c, struct mfile *f);
/* Prints one warning per test definition whose errors were held back and
 * that nothing used: it is skipped. */
void m_warn_unused(struct mctx *c);
/* Returns the file whose definition is named name, or NULL. */
struct mfile *pool_find(const struct pool *p, const char *name);
/* Returns the hook directory (loaded on first use), or NULL if missing. */
struct hookdir *hookdir_get(struct mctx *c, const char *path);
/* The hook directory CloudAI's layout implies for a scenario file:
 * <dir of the scenario's dir>/hook, when it is a directory; else NULL. */
const char *default_hook_dir(struct arena *a, const char *scenario_path);
/* Lists a directory's *.toml entries (sorted); recursive into
 * subdirectories when rec. Returns false after reporting. */
bool list_toml(struct arena *a, const char *dir, bool rec, const char ***out, size_t *n);
bool is_dir(const char *path);
/* Same file or directory (by device and inode)? */
bool same_file(const char *a, const char *b);
char *path_dir(struct arena *a, const char *path);

/* model_live.c */
/* Reports the environment values and mounts of cp's runs that no script
 * can hold (errors) or whose job would differ from CloudAI's (warnings). */
void m_check_live(struct mctx *c, const struct campaign *cp);

/* model_check.c: typed access to TOML tables, reporting as it goes */
/* Reports "path:line:col: error: ..." (printed by m_flush). */
void merr(struct mctx *c, struct toml_pos pos, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Prints "path:line:col: warning: ..." now. */
void m_warn(struct toml_pos pos, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Prints the errors reported so far, each file's in line order. */
void m_flush(struct mctx *c);
/* "a string", "an integer", ... for messages */
const char *m_a_type(const struct toml_value *v);
/* Returns s with control characters shown as '?' (for messages). */
const char *m_shown(struct mctx *c, const char *s);
/* Reports every key of table t not in keys (NULL-terminated), with a
 * "did you mean" among them. */
void m_check_keys(struct mctx *c, const struct toml_value *t, const char *const *keys);
struct toml_keyval *m_kv(const struct toml_value *t, const char *key);
/* Each getter leaves *out alone when the key is absent (unless required,
 * which is reported at the table) and returns false after reporting. */
bool m_str(struct mctx *c, const struct toml_value *t, const char *key, bool required,
           const char **out);
bool m_int(struct mctx *c, const struct toml_value *t, const char *key, bool required, long min,
           long *out);
bool m_bool(struct mctx *c, const struct toml_value *t, const char *key, bool *out);
bool m_num(struct mctx *c, const struct toml_value *t, const char *key, double *out);
bool m_strlist(struct mctx *c, const struct toml_value *t, const char *key, struct strlist *out);
/* The table under key (NULL when absent or reported). */
const struct toml_value *m_table(struct mctx *c, const struct toml_value *t, const char *key);
/* Checks a string value: no NUL byte. */
bool m_check_str(struct mctx *c, const char *key, const struct toml_value *v);
/* A name that becomes a path component or a ninja target: not empty, ".",
 * "..", no '/', '|', control characters, no leading '-'. what is "id". */
bool m_check_name(struct mctx *c, const char *what, const char *s, size_t len,
                  struct toml_pos pos);
/* reports = { <name> = { enable = bool, ... } } of a system or scenario. */
void m_check_reports(struct mctx *c, const struct toml_value *t);
/* model_peers.c: validates root's [peers] table (errors reported) and
 * returns it; NULL when there is none. */
const struct toml_value *m_load_peers(struct mctx *c, const struct toml_value *root);
/* model_refs.c: checks the test definition's [references]. */
void m_load_references(struct mctx *c, const struct toml_value *root);
/* An environment variable name ([A-Za-z_][A-Za-z0-9_]*), which env files
 * and job manifests can carry unquoted. */
bool m_check_env_name(struct mctx *c, const char *key, size_t len, struct toml_pos pos);
/* A string value with text s at pos, allocated in a. */
struct toml_value *m_string_value(struct arena *a, const char *s, struct toml_pos pos);
/* A scalar as a string value (integers, floats, and, with bools, booleans
 * as Python prints them). NULL when v is not such a scalar. */
struct toml_value *m_stringify(struct mctx *c, const struct toml_value *v, bool bools);
void argset_add(struct arena *a, struct argset *s, const char *key, struct toml_pos pos,
                const struct toml_value *val);
/* A fresh empty table value at pos. */
struct toml_value *m_new_table(struct arena *a, struct toml_pos pos);
/* Appends key = v to table t (which must not have key). */
void m_table_add(struct arena *a, struct toml_value *t, const char *key, struct toml_pos kpos,
                 struct toml_value *v);

/* model_util.c */
/* Best candidate within a small edit distance of word, or NULL. */
const char *m_suggest(const char *word, const char *const *cands, size_t n);
/* Like m_suggest, but only close misspellings (for keys that would
 * otherwise be passed through). */
const char *m_suggest_close(const char *word, const char *const *cands, size_t n);
/* Appends " (did you mean 'x'?)" or nothing. */
void m_did_you_mean(struct buf *b, const char *word, const char *const *cands, size_t n);

/* model_set.c */
/* Applies the overrides whose key starts "system." (system) or not
 * (scenario) to root. Returns false after reporting. */
bool m_apply_overrides(struct mctx *c, struct toml_value *root, const struct override *o,
                       size_t n, bool system);
/* Returns a new table: base with over's keys deep-merged in (tables merge
 * key by key; everything else replaces). Neither input is modified. */
struct toml_value *m_merge(struct arena *a, const struct toml_value *base,
                           const struct toml_value *over, const char *const *keys);

/* model_preset.c */
/* Validates root's [presets] table (once): shapes, extends names, cycles.
 * Returns false after reporting. */
bool m_check_presets(struct mctx *c, const struct toml_value *root);
/* Resolves --preset names against scenario f: cp->overrides becomes every
 * preset's overrides (extends first, each preset once) followed by sets,
 * cp->presets the chain. Returns false after reporting. */
bool m_resolve_presets(struct mctx *c, const struct mfile *f, const char *const *names, size_t n,
                       const struct override *sets, size_t n_sets, struct campaign *cp);

/* model_system.c: system TOML (root of f) -> system; NULL after reporting.
 * runnable false: verify-configs (no data_repository warning). */
struct system *m_load_system(struct mctx *c, const char *path, const struct toml_value *root,
                             bool runnable);

/* model_test.c: a test definition table -> testdef; NULL after reporting.
 * path is the file it came from (the scenario's for inline tests). */
struct testdef *m_load_testdef(struct mctx *c, const char *path, const struct toml_value *root);
/* Loads f as a test definition (once); false if it failed. */
bool m_load_test_file(struct mctx *c, struct mfile *f);

/* model_scenario.c: the scenario of file f, validated against tests (and
 * hooks from c->hook_dir). hook: f is a hook (hooks may not have hooks). */
struct scenario *m_load_scenario(struct mctx *c, struct mfile *f, const struct pool *tests,
                                 bool hook);

#endif
