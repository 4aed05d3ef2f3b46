/* toml_tree.h: the tree toml.c makes, as the model reads it: values with
 * the place they came from. Types only; the parser is in toml.h. */
#ifndef KUNAI_TOML_TREE_H
#define KUNAI_TOML_TREE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum toml_type {
	TOML_TABLE,
	TOML_ARRAY,
	TOML_STRING,
	TOML_INTEGER,
	TOML_FLOAT,
	TOML_BOOL,
	TOML_DATETIME,       /* offset date-time */
	TOML_DATETIME_LOCAL, /* local date-time */
	TOML_DATE_LOCAL,
	TOML_TIME_LOCAL,
};

struct toml_pos {
	const char *path;
	int line, col; /* 1-based; col counts bytes */
};

/* Narrow fields keep struct toml_value at 40 bytes: big documents hold
 * millions of values. */
struct toml_datetime {
	int16_t year;
	int8_t month, day;
	int8_t hour, minute, second;
	int8_t frac_digits;     /* digits of fraction as written (0..9) */
	int16_t offset_minutes; /* for TOML_DATETIME */
	bool offset_z;          /* written as Z */
	int32_t nanosecond;
};

struct toml_table;
struct toml_array;

struct toml_value {
	enum toml_type type;
	struct toml_pos pos;
	union {
		struct {
			const char *s; /* NUL-terminated, may contain NUL: use len */
			size_t len;
		} str;
		int64_t integer;
		double flt;
		bool boolean;
		struct toml_datetime dt;
		struct toml_array *array;
		struct toml_table *table;
	} u;
};

struct toml_keyval {
	const char *key; /* NUL-terminated, may contain NUL: use key_len */
	size_t key_len;
	struct toml_pos pos; /* position of the key */
	struct toml_value *value;
};

/* Keys in declaration order. */
struct toml_table {
	struct toml_keyval *items;
	size_t len;
	/* private lookup accelerator, trusted while len is unchanged: set it
	 * to NULL after editing items in place */
	struct toml_table_index *index;
	size_t cap;
	unsigned flags; /* private: defined / implicit / inline / dotted */
};

struct toml_array {
	struct toml_value **items;
	size_t len, cap;
	bool of_tables; /* created by [[header]] */
};

#endif
