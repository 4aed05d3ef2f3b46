/* http_curl.c: http.h with libcurl. Requests are one easy handle each
 * (a run makes a few per minute); TLS peers and host names are verified
 * (libcurl's default, never switched off). A WebSocket stream (RunAI's
 * cluster API serves logs so; this libcurl has no ws:// of its own) is read
 * over a CONNECT_ONLY connection: the upgrade request, then frames.
 * libcurl is opened (dlopen) the first time a request is made, not linked:
 * linked, its 30 libraries (TLS, Kerberos, LDAP, ...) were loaded by every
 * `kunai job` of every scheduler, about 4 ms of CPU per run. */
#define _GNU_SOURCE /* strcasestr */
#define CURL_DISABLE_TYPECHECK /* the calls go through the table below */
#include <curl/curl.h>
#include <dlfcn.h>
#include <poll.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "http.h"

/* The soname of libcurl since 7.16 (Debian's libcurl4 package);
 * KUNAI_LIBCURL names another file to open. */
#define LIBCURL "libcurl.so.4"

/* The libcurl functions this file calls, from dlsym. */
static struct curl_api {
	CURL *(*easy_init)(void);
	CURLcode (*easy_setopt)(CURL *, CURLoption, ...);
	CURLcode (*easy_perform)(CURL *);
	CURLcode (*easy_getinfo)(CURL *, CURLINFO, ...);
	CURLcode (*easy_send)(CURL *, const void *, size_t, size_t *);
	CURLcode (*easy_recv)(CURL *, void *, size_t, size_t *);
	const char *(*easy_strerror)(CURLcode);
	void (*easy_cleanup)(CURL *);
	struct curl_slist *(*slist_append)(struct curl_slist *, const char *);
	void (*slist_free_all)(struct curl_slist *);
	CURLU *(*url)(void);
	CURLUcode (*url_set)(CURLU *, CURLUPart, const char *, unsigned int);
	CURLUcode (*url_get)(const CURLU *, CURLUPart, char **, unsigned int);
	void (*url_cleanup)(CURLU *);
	void (*free)(void *);
} cu;

/* Why libcurl could not be opened; empty once it is. */
static char load_error[200];

/* Opens libcurl once; false (load_error says why) when it cannot. */
static bool
load(void)
{
	static const struct {
		const char *name;
		size_t off;
	} syms[] = {
#define SYM(f) {"curl_" #f, offsetof(struct curl_api, f)}
	    SYM(easy_init), SYM(easy_setopt), SYM(easy_perform), SYM(easy_getinfo), SYM(easy_send),
	    SYM(easy_recv), SYM(easy_strerror), SYM(easy_cleanup), SYM(slist_append), SYM(slist_free_all),
	    SYM(url), SYM(url_set), SYM(url_get), SYM(url_cleanup), SYM(free),
#undef SYM
	};
	static int state; /* 0: not tried, 1: loaded, -1: failed */
	const char *name = getenv("KUNAI_LIBCURL");
	void *lib;

	if (state)
		return state > 0;
	state = -1;
	if (!name || !*name)
		name = LIBCURL;
	if (!(lib = dlopen(name, RTLD_NOW | RTLD_LOCAL))) {
		snprintf(load_error, sizeof(load_error), "%s (install libcurl4: apt-get install libcurl4)", dlerror());
		return false;
	}
	for (size_t i = 0; i < sizeof(syms) / sizeof(syms[0]); i++) {
		void *f = dlsym(lib, syms[i].name);

		if (!f) {
			snprintf(load_error, sizeof(load_error), "%s has no %s: libcurl 7.78 or newer is needed", name,
			         syms[i].name);
			return false;
		}
		memcpy((char *)&cu + syms[i].off, &f, sizeof(f));
	}
	state = 1;
	return true;
}

/* A request that cannot be made because libcurl is not there. */
static bool
unloaded(struct http_resp *r)
{
	snprintf(r->error, sizeof(r->error), "cannot open libcurl: %s: RunAI submission is disabled", load_error);
	r->permanent = true;
	return false;
}

bool
http_available(void)
{
	return load();
}

void
http_resp_free(struct http_resp *r)
{
	buf_free(&r->body);
}

static size_t
on_body(char *p, size_t size, size_t n, void *arg)
{
	buf_push(arg, p, size * n);
	return size * n;
}

static size_t
on_header(char *p, size_t size, size_t n, void *arg)
{
	struct http_resp *r = arg;
	size_t len = size * n;

	if (len > 12 && strncasecmp(p, "Retry-After:", 12) == 0)
		r->retry_after = strtol(p + 12, NULL, 10);
	return len;
}

static void
setup(CURL *c, long timeout_s)
{
	const char *ca = getenv("KUNAI_CA_BUNDLE");

	cu.easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	cu.easy_setopt(c, CURLOPT_TIMEOUT, timeout_s);
	cu.easy_setopt(c, CURLOPT_CONNECTTIMEOUT, timeout_s < 30 ? timeout_s : 30L);
	cu.easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
	if (ca && *ca)
		cu.easy_setopt(c, CURLOPT_CAINFO, ca);
}

bool
http_do(const char *method, const char *url, const char *token, const char *body, long timeout_s,
        struct http_resp *r)
{
	struct curl_slist *h = NULL;
	struct buf auth = {0};
	CURLcode rc;
	CURL *c;

	r->body.len = 0;
	r->status = 0;
	r->retry_after = -1;
	r->error[0] = '\0';
	if (!load())
		return unloaded(r);
	if (!(c = cu.easy_init())) {
		snprintf(r->error, sizeof(r->error), "curl_easy_init failed");
		return false;
	}
	setup(c, timeout_s);
	cu.easy_setopt(c, CURLOPT_URL, url);
	cu.easy_setopt(c, CURLOPT_CUSTOMREQUEST, method);
	h = cu.slist_append(h, "Accept: application/json");
	if (body) {
		h = cu.slist_append(h, "Content-Type: application/json");
		cu.easy_setopt(c, CURLOPT_POSTFIELDS, body);
	}
	if (token) {
		buf_printf(&auth, "Authorization: Bearer %s", token);
		h = cu.slist_append(h, auth.data);
	}
	cu.easy_setopt(c, CURLOPT_HTTPHEADER, h);
	cu.easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
	cu.easy_setopt(c, CURLOPT_WRITEDATA, &r->body);
	cu.easy_setopt(c, CURLOPT_HEADERFUNCTION, on_header);
	cu.easy_setopt(c, CURLOPT_HEADERDATA, r);
	rc = cu.easy_perform(c);
	r->permanent = false;
	if (rc == CURLE_OK) {
		cu.easy_getinfo(c, CURLINFO_RESPONSE_CODE, &r->status);
	} else {
		snprintf(r->error, sizeof(r->error), "%s", cu.easy_strerror(rc));
		r->permanent = rc == CURLE_PEER_FAILED_VERIFICATION || rc == CURLE_SSL_CACERT_BADFILE ||
		               rc == CURLE_SSL_CERTPROBLEM || rc == CURLE_URL_MALFORMAT ||
		               rc == CURLE_UNSUPPORTED_PROTOCOL || rc == CURLE_SSL_ISSUER_ERROR;
	}
	buf_str(&r->body);
	cu.easy_cleanup(c);
	cu.slist_free_all(h);
	/* the token is a credential: its header goes, byte by byte */
	if (auth.data)
		memset(auth.data, 0, auth.len);
	buf_free(&auth);
	return rc == CURLE_OK;
}

/* ---- WebSocket (RFC 6455), client side, receiving ------------------------------- */

/* SHA-1 (FIPS 180-4) of n bytes: only for Sec-WebSocket-Accept. */
static void
sha1(const unsigned char *p, size_t n, unsigned char out[20])
{
	uint32_t h[5] = {0x67452301, 0xEFCDAB89, 0x98BADCFE, 0x10325476, 0xC3D2E1F0}, w[80], a, b, c, d, e, t;
	size_t total = ((n + 8) / 64 + 1) * 64, i, k;
	unsigned char *m = xmalloc(total);

	memset(m, 0, total);
	memcpy(m, p, n);
	m[n] = 0x80;
	for (i = 0; i < 8; i++)
		m[total - 1 - i] = (unsigned char)(((uint64_t)n * 8) >> (8 * i));
	for (k = 0; k < total; k += 64) {
		for (i = 0; i < 16; i++)
			w[i] = (uint32_t)m[k + 4 * i] << 24 | (uint32_t)m[k + 4 * i + 1] << 16 |
			       (uint32_t)m[k + 4 * i + 2] << 8 | m[k + 4 * i + 3];
		for (i = 16; i < 80; i++) {
			t = w[i - 3] ^ w[i - 8] ^ w[i - 14] ^ w[i - 16];
			w[i] = t << 1 | t >> 31;
		}
		a = h[0], b = h[1], c = h[2], d = h[3], e = h[4];
		for (i = 0; i < 80; i++) {
			uint32_t f = i < 20 ? ((b & c) | (~b & d)) + 0x5A827999
			             : i < 40 ? (b ^ c ^ d) + 0x6ED9EBA1
			             : i < 60 ? ((b & c) | (b & d) | (c & d)) + 0x8F1BBCDC
			                      : (b ^ c ^ d) + 0xCA62C1D6;
			t = (a << 5 | a >> 27) + f + e + w[i];
			e = d, d = c, c = b << 30 | b >> 2, b = a, a = t;
		}
		h[0] += a, h[1] += b, h[2] += c, h[3] += d, h[4] += e;
	}
	for (i = 0; i < 20; i++)
		out[i] = (unsigned char)(h[i / 4] >> (24 - 8 * (i % 4)));
	free(m);
}

static void
base64(struct buf *out, const unsigned char *p, size_t n)
{
	static const char t[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	size_t i;

	for (i = 0; i < n; i += 3) {
		unsigned v = (unsigned)p[i] << 16 | (i + 1 < n ? (unsigned)p[i + 1] << 8 : 0) | (i + 2 < n ? p[i + 2] : 0);
		buf_putc(out, t[v >> 18 & 63]);
		buf_putc(out, t[v >> 12 & 63]);
		buf_putc(out, i + 1 < n ? t[v >> 6 & 63] : '=');
		buf_putc(out, i + 2 < n ? t[v & 63] : '=');
	}
}

struct ws {
	CURL *c;
	curl_socket_t fd;
	time_t deadline;
	struct buf in; /* received, not yet taken */
	size_t pos;
};

static bool
ws_wait(struct ws *s, bool out)
{
	struct pollfd p = {s->fd, out ? POLLOUT : POLLIN, 0};
	long ms = (long)(s->deadline - time(NULL)) * 1000;

	return ms > 0 && poll(&p, 1, (int)ms) > 0;
}

static bool
ws_send(struct ws *s, const void *p, size_t n)
{
	size_t sent;

	while (n) {
		CURLcode rc = cu.easy_send(s->c, p, n, &sent);
		if (rc == CURLE_AGAIN) {
			if (!ws_wait(s, true))
				return false;
			continue;
		}
		if (rc != CURLE_OK)
			return false;
		p = (const char *)p + sent;
		n -= sent;
	}
	return true;
}

/* At least want bytes in s->in past pos; false at the end or on error. */
static bool
ws_fill(struct ws *s, size_t want)
{
	char chunk[16384];
	size_t got;

	while (s->in.len - s->pos < want) {
		CURLcode rc = cu.easy_recv(s->c, chunk, sizeof(chunk), &got);
		if (rc == CURLE_AGAIN) {
			if (!ws_wait(s, false))
				return false;
			continue;
		}
		if (rc != CURLE_OK || got == 0)
			return false;
		buf_push(&s->in, chunk, got);
	}
	return true;
}

/* A frame to the server: masked, as a client's must be (the mask may be
 * anything; zero keeps the payload as it is). */
static void
ws_frame(struct ws *s, unsigned op, const unsigned char *p, size_t n)
{
	unsigned char h[8] = {(unsigned char)(0x80 | op), (unsigned char)(0x80 | (n < 126 ? n : 0)), 0, 0, 0, 0};

	if (n >= 126)
		return; /* control frames only: at most 125 bytes */
	if (ws_send(s, h, 6))
		ws_send(s, p, n);
}

bool
http_ws_read(const char *url, const char *token, long timeout_s, struct buf *out, struct http_resp *r)
{
	static const char guid[] = "258EAFA5-E914-47DA-95CA-C5AB0DC11B65";
	struct ws s = {0};
	struct buf req = {0}, key = {0}, accept = {0}, http = {0};
	unsigned char nonce[16], dig[20];
	char *host = NULL, *port = NULL, *path = NULL, *query = NULL;
	const char *hdr_end, *acc;
	CURLU *u;
	size_t i;
	bool ok = false;
	long sock;

	r->status = 0;
	r->retry_after = -1;
	r->error[0] = '\0';
	if (!load())
		return unloaded(r);
	u = cu.url();
	/* ws:// is http:// until the upgrade */
	buf_printf(&http, "%s%s", strncmp(url, "wss://", 6) == 0 ? "https://" : "http://",
	           strstr(url, "://") ? strstr(url, "://") + 3 : url);
	if (!u || cu.url_set(u, CURLUPART_URL, http.data, 0) != CURLUE_OK ||
	    cu.url_get(u, CURLUPART_HOST, &host, 0) != CURLUE_OK ||
	    cu.url_get(u, CURLUPART_PATH, &path, 0) != CURLUE_OK) {
		snprintf(r->error, sizeof(r->error), "not a WebSocket URL");
		goto out;
	}
	cu.url_get(u, CURLUPART_PORT, &port, 0);
	cu.url_get(u, CURLUPART_QUERY, &query, 0);
	if (!(s.c = cu.easy_init()))
		goto out;
	setup(s.c, timeout_s);
	cu.easy_setopt(s.c, CURLOPT_URL, http.data);
	cu.easy_setopt(s.c, CURLOPT_CONNECT_ONLY, 1L);
	s.deadline = time(NULL) + timeout_s;
	if (cu.easy_perform(s.c) != CURLE_OK || cu.easy_getinfo(s.c, CURLINFO_ACTIVESOCKET, &sock) != CURLE_OK) {
		snprintf(r->error, sizeof(r->error), "cannot connect to %s", host);
		goto out;
	}
	s.fd = (curl_socket_t)sock;
	srand((unsigned)time(NULL) ^ (unsigned)(uintptr_t)&s);
	for (i = 0; i < sizeof(nonce); i++)
		nonce[i] = (unsigned char)(rand() >> 7);
	base64(&key, nonce, sizeof(nonce));
	buf_printf(&req, "GET %s%s%s HTTP/1.1\r\nHost: %s%s%s\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
	                 "Sec-WebSocket-Key: %s\r\nSec-WebSocket-Version: 13\r\n",
	           path, query ? "?" : "", query ? query : "", host, port ? ":" : "", port ? port : "", key.data);
	if (token)
		buf_printf(&req, "Authorization: Bearer %s\r\n", token);
	buf_puts(&req, "\r\n");
	if (!ws_send(&s, req.data, req.len)) {
		snprintf(r->error, sizeof(r->error), "cannot send the upgrade request");
		goto out;
	}
	while (!(hdr_end = strstr(buf_str(&s.in), "\r\n\r\n")))
		if (!ws_fill(&s, s.in.len + 1)) {
			snprintf(r->error, sizeof(r->error), "no answer to the upgrade request");
			goto out;
		}
	r->status = strtol(s.in.data + strcspn(s.in.data, " "), NULL, 10);
	buf_printf(&key, "%s", guid);
	sha1((const unsigned char *)key.data, key.len, dig);
	base64(&accept, dig, sizeof(dig));
	acc = strcasestr(s.in.data, "\r\nSec-WebSocket-Accept:");
	if (r->status != 101 || !acc || acc > hdr_end) {
		snprintf(r->error, sizeof(r->error), "the server did not upgrade to WebSocket (HTTP %ld)", r->status);
		goto out;
	}
	acc += strlen("\r\nSec-WebSocket-Accept:");
	acc += strspn(acc, " ");
	if (strncmp(acc, accept.data, accept.len) != 0) {
		snprintf(r->error, sizeof(r->error), "wrong Sec-WebSocket-Accept");
		goto out;
	}
	s.pos = (size_t)(hdr_end + 4 - s.in.data);
	for (;;) {
		const unsigned char *f;
		uint64_t len;
		size_t hl = 2, k;
		unsigned op, masked;

		if (!ws_fill(&s, 2))
			break; /* closed without a close frame: what came is the log */
		f = (const unsigned char *)s.in.data + s.pos;
		op = f[0] & 0x0f;
		masked = f[1] & 0x80;
		len = f[1] & 0x7f;
		if (len == 126)
			hl += 2;
		else if (len == 127)
			hl += 8;
		hl += masked ? 4 : 0;
		if (!ws_fill(&s, hl))
			break;
		f = (const unsigned char *)s.in.data + s.pos;
		if ((f[1] & 0x7f) == 126)
			len = (uint64_t)f[2] << 8 | f[3];
		else if ((f[1] & 0x7f) == 127)
			for (len = 0, k = 0; k < 8; k++)
				len = len << 8 | f[2 + k];
		if (len > (64u << 20) || !ws_fill(&s, hl + (size_t)len)) {
			snprintf(r->error, sizeof(r->error), "a frame over 64 MiB, or cut short");
			goto out;
		}
		f = (const unsigned char *)s.in.data + s.pos;
		if (masked)
			for (k = 0; k < len; k++)
				((unsigned char *)f)[hl + k] ^= f[hl - 4 + k % 4];
		if (op == 0x0 || op == 0x1 || op == 0x2)
			buf_push(out, (const char *)f + hl, (size_t)len);
		else if (op == 0x9)
			ws_frame(&s, 0xA, f + hl, (size_t)len);
		s.pos += hl + (size_t)len;
		if (op == 0x8) {
			ws_frame(&s, 0x8, NULL, 0);
			break;
		}
		if (s.pos > (1u << 20)) { /* drop what was taken */
			memmove(s.in.data, s.in.data + s.pos, s.in.len - s.pos);
			s.in.len -= s.pos;
			s.pos = 0;
		}
	}
	ok = true;
out:
	if (!ok && !r->error[0])
		snprintf(r->error, sizeof(r->error), "WebSocket failed");
	if (req.data)
		memset(req.data, 0, req.len);
	buf_free(&req);
	buf_free(&key);
	buf_free(&accept);
	buf_free(&http);
	buf_free(&s.in);
	cu.free(host);
	cu.free(port);
	cu.free(path);
	cu.free(query);
	if (u)
		cu.url_cleanup(u);
	if (s.c)
		cu.easy_cleanup(s.c);
	return ok;
}
