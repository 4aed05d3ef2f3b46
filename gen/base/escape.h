/* escape.h: every quoting function, one per output context. Anything from
 * TOML that reaches a shell script or a ninja file goes through here. */
#ifndef KUNAI_ESCAPE_H
#define KUNAI_ESCAPE_H

#include <stdbool.h>

struct buf;

/* Appends s as one shell word: bare when every byte is in
 * [A-Za-z0-9_+-./=,:@%] (and s is not empty), else in '...' with ' as '\''. */
void sh_quote(struct buf *b, const char *s);

/* As sh_quote, for text that continues a word (the value after "--flag="):
 * '#' starts no comment there, so it is left bare too. */
void sh_quote_cont(struct buf *b, const char *s);

/* Appends s so that it reads back as itself between double quotes:
 * \ before each of $ ` " \ (the only bytes special there in a script). */
void sh_dquote_body(struct buf *b, const char *s);

/* In a workload's command, SH_BATCH_REF before a name is a $ that the
 * job script's batch shell expands when the command is the body of its
 * bash -c "..." (sh_dquote_batch), as in CloudAI's lines: the host's
 * value, not the container's. Only workloads write it. */
#define SH_BATCH_REF "\001"
/* As sh_dquote_body, but each SH_BATCH_REF becomes a bare $. */
void sh_dquote_batch(struct buf *b, const char *s);

/* Returns whether s holds a parameter reference: $NAME, ${NAME}, or
 * ${NAME:-word} (also -, :+, +) where word has no $ ` " \\ ' } or newline. */
bool sh_has_params(const char *s);

/* As sh_dquote_body, but the parameter references of s stay live, so the
 * shell expands them when the script runs; command substitution, backticks,
 * quotes and newlines stay literal. A reference to PWD reads the variable
 * named pwd instead, unless pwd is NULL. */
void sh_dquote_params(struct buf *b, const char *s, const char *pwd);

/* Live values: the shell values of CloudAI's `export NAME=value` lines and
 * srun mounts (doc/manual.md, "Variables in values", holds the rule). Their
 * `$X`, `${...}`, `$(...)`, `$((...))` and backquotes stay live, and a \
 * right before $ or a backquote makes it literal, as in CloudAI's bare
 * write; every other byte (blanks, quotes, other backslashes) is text of
 * the value, which stays one word. */

/* The variable by which the runner hands a job CloudAI's $PWD: the dir
 * the campaign was launched from (kunai gen's working directory). */
#define SH_LAUNCH_VAR "KUNAI_LAUNCH_DIR"

/* Returns whether s holds a $ or a backquote (else sh_quote says the same). */
bool sh_is_live(const char *s);

/* Returns whether s, as a live value, runs a command when it is expanded:
 * a $(...), $((...)) or backquote not escaped by a backslash. */
bool sh_live_computes(const char *s);

/* Appends s as the body of a "..." word by the rule above. Each $PWD and
 * ${PWD} (also inside substitutions) becomes ${var:-fallback}, each
 * ${PWD<op>...} ${var<op>...}, unless var is NULL. */
void sh_live_body(struct buf *b, const char *s, const char *var, const char *fallback);

/* Checks s as a live value. Returns NULL when the job of CloudAI's bare
 * line would see the same value, else the first difference in words;
 * sets *bad when s cannot be a live value at all (a line break, an
 * unterminated substitution), the returned words saying why. */
const char *sh_live_check(const char *s, bool *bad);

/* Returns whether s names a path under $PWD: "$PWD/..." or "${PWD}/...",
 * the rest without $ or a backquote; *rest is what follows the '/'. */
bool sh_pwd_path(const char *s, const char **rest);

/* Appends the blank-separated words of s (a CloudAI argument string such as
 * extra_srun_args), each sh_quote'd, joined by single spaces. Quotes inside
 * s are not interpreted. Returns the number of words appended. */
int sh_words(struct buf *b, const char *s);

/* Splits s (one line) into the shell words it reads as: blanks separate,
 * '...' is literal, "..." takes \ before $ ` " \, a bare \ escapes the
 * next byte; no expansion. The words (and a NULL after them) are
 * allocated in a. Returns their number, or -1 for an unterminated quote. */
struct arena;
int sh_split(struct arena *a, const char *s, char ***words);

/* Appends "<<'D'\n", body (which must end in a newline) and "D\n": a
 * quoted here-document, literal to the shell, whose delimiter D (tag, or
 * tag with a number) is no line of body. */
void sh_heredoc(struct buf *b, const char *tag, const char *body);

/* Splits s, shell text of literal words as sh_quote writes them (bare safe
 * bytes, '...', \') and, when dq, "..." with no $ ` \ inside, into the
 * words the shell would pass: each appended to out with its NUL. Returns
 * their count, or -1 when s holds anything else (an expansion, an
 * operator, a newline, an open quote). */
long sh_literal_words(const char *s, bool dq, struct buf *out);

/* Returns whether s (shell text) is one simple command of literal words,
 * as sh_quote writes them (bare safe bytes, '...', \'), whose first word
 * is no assignment, bash keyword or builtin: then `exec s` runs what
 * `bash -c s` would, without the second bash. */
bool sh_plain_command(const char *s);

/* Whether byte c needs no quoting in a shell word (sh_quote leaves it bare). */
bool sh_safe(int c);

/* Returns whether s is a valid shell variable name ([A-Za-z_][A-Za-z0-9_]*). */
bool sh_is_name(const char *s);

/* Ninja `build` line paths: $ -> $$, space -> "$ ", : -> "$:". Newline and
 * '|' cannot be expressed; the model rejects them before this point. */
void ninja_escape_path(struct buf *b, const char *s);

/* Returns whether s can be written to a ninja file at all: no line break
 * (ninja has no escape for one; kunai refuses such values before writing). */
bool ninja_expressible(const char *s);

/* Ninja `var = value` text: $ -> $$. */
void ninja_escape_value(struct buf *b, const char *s);

/* Appends s as one CSV field (RFC 4180: in "..." with "" when it holds a
 * comma, quote or line break), and, when it starts with =, +, -, @, TAB or
 * CR, with a leading ' so that a spreadsheet reads it as text, not as a
 * formula (OWASP's CSV injection advice). NULL appends nothing. */
void csv_field(struct buf *b, const char *s);

/* Appends s as inert Markdown text (a table cell too): &, <, > as entities
 * (no HTML passes through), a backslash before each of \ ` [ ] |
 * (no link, image, code span or cell break), control bytes as a space.
 * NULL appends nothing. */
void md_text(struct buf *b, const char *s);
/* Makes s (NUL-terminated, edited in place) safe to print to a terminal:
 * every control byte but a tab (ESC, CR, BEL, a line break...) and DEL
 * becomes '?', so text a run wrote (a reason, a node name) cannot move the
 * cursor, retitle the window or clear the screen. Returns s. */
char *term_text(char *s);

#endif
