/* toml_priv.h: parser state shared by toml.c (structure) and toml_scalar.c
 * (strings, numbers, date-times). Not for other files. */
#ifndef KUNAI_TOML_PRIV_H
#define KUNAI_TOML_PRIV_H

#include <setjmp.h>

#include "toml.h"
#include "gen/base/util.h"

struct key_part {
	size_t off, len; /* in parser.keys */
	const char *at;
	struct toml_pos pos;
};

struct parser {
	struct arena *a;
	const char *path;
	const char *start, *p, *end; /* start is past any BOM */
	const char *bol;             /* beginning of the current line */
	int line;
	struct toml_error *err;
	jmp_buf jmp;
	struct buf str;  /* a decoded string value */
	struct buf keys; /* the decoded parts of the current key */
	struct key_part *parts;
	size_t nparts, partcap;
	struct toml_value **stack; /* elements of the arrays being parsed */
	size_t nstack, stackcap;
	char *pool; /* see toml_alloc */
	size_t pool_left;
	struct toml_table *sect; /* see open_section */
	struct toml_keyval *sect_items;
	size_t sect_cap;
	char desc[48], name[96]; /* message fragments */
};

/* Returns zeroed memory from the arena, packed tighter than arena_alloc. */
void *toml_alloc(struct parser *P, size_t n, size_t align);
#define NEW(P, type) ((type *)toml_alloc((P), sizeof(type), _Alignof(type)))
/* Returns a NUL-terminated copy in the arena. */
char *toml_strndup(struct parser *P, const char *s, size_t n);

/* Sets P->err with the position of at and longjmps out of toml_parse. */
void toml_fail(struct parser *P, const char *at, const char *fmt, ...)
	__attribute__((format(printf, 3, 4), noreturn));
/* Returns a description of the character at for messages ("'x'", "end of line"). */
const char *toml_found(struct parser *P, const char *at);
/* Returns the position of at, which must be on the current line. */
struct toml_pos toml_pos_at(struct parser *P, const char *at);
/* Consumes LF or CRLF at P->p; fails on a bare CR. */
void toml_newline(struct parser *P);

/* Appends the single-line string at P->p, decoded, to out. */
void toml_scan_string(struct parser *P, struct buf *out, bool basic);
/* Parses the value at P->p into v. */
void toml_parse_string(struct parser *P, struct toml_value *v);
void toml_parse_scalar(struct parser *P, struct toml_value *v);

/* Returns the first byte that is not valid UTF-8, or NULL. */
const char *toml_utf8_check(const char *s, const char *end);
/* Returns the code point at s, which must be valid UTF-8 (0 if cut off). */
unsigned long toml_utf8_decode(const char *s, const char *end);

/* Indexes the last key of t (the table just grew by one). */
void toml_index_add(struct arena *a, struct toml_table *t);

#endif
