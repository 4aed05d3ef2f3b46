/* http_null.c: http.h without libcurl (configure did not find
 * libcurl4-openssl-dev): every request fails, saying so. */
#include <stdio.h>

#include "http.h"

bool
http_available(void)
{
	return false;
}

static bool
missing(struct http_resp *r)
{
	r->status = 0;
	r->retry_after = -1;
	r->permanent = true;
	snprintf(r->error, sizeof(r->error), "kunai was built without libcurl (install libcurl4-openssl-dev, "
	                                     "then ./configure && make): RunAI submission is disabled");
	return false;
}

bool
http_do(const char *method, const char *url, const char *token, const char *body, long timeout_s,
        struct http_resp *r)
{
	(void)method, (void)url, (void)token, (void)body, (void)timeout_s;
	return missing(r);
}

bool
http_ws_read(const char *url, const char *token, long timeout_s, struct buf *out, struct http_resp *r)
{
	(void)url, (void)token, (void)timeout_s, (void)out;
	return missing(r);
}

void
http_resp_free(struct http_resp *r)
{
	buf_free(&r->body);
}
