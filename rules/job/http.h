/* http.h: the HTTP client of the RunAI backend (job_runai.c): libcurl
 * where configure found it (http_curl.c), else a twin that says it is
 * missing (http_null.c). TLS peers are verified; KUNAI_CA_BUNDLE names a
 * CA file to trust instead of the system's. */
#ifndef KUNAI_HTTP_H
#define KUNAI_HTTP_H

#include <stdbool.h>

#include "gen/base/util.h"

struct http_resp {
	long status;      /* 0: no HTTP answer (error says why) */
	struct buf body;
	long retry_after; /* seconds of a Retry-After header; -1: none */
	bool permanent;   /* no answer, and none will come by asking again (TLS
	                   * verification, a bad URL) */
	char error[256];
};

/* Whether kunai was built with an HTTP client. */
bool http_available(void);
/* One request: method, url, "Authorization: Bearer token" unless token is
 * NULL, a JSON body unless body is NULL; at most timeout_s. Returns whether
 * an HTTP answer came (any status); r's body is reset first. */
bool http_do(const char *method, const char *url, const char *token, const char *body, long timeout_s,
             struct http_resp *r);
/* Reads a WebSocket stream (RFC 6455) at url (ws:// or wss://) until the
 * server closes it: each text or binary message appended to out. Returns
 * false with r->error set when it cannot. */
bool http_ws_read(const char *url, const char *token, long timeout_s, struct buf *out, struct http_resp *r);
void http_resp_free(struct http_resp *r);

#endif
