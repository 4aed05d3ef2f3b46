/* tests/runai/server.c: a STAND-IN for a RunAI control plane and cluster
 * API (none can run here), serving HTTP/1.1 on 127.0.0.1:PORT the calls
 * kunai makes, with the paths, fields and phases of RunAI's REST API as
 * CloudAI's client uses them (src/cloudai/systems/runai/, API v1):
 *
 *   POST   /api/v1/token                       {grantType, AppId, AppSecret} -> {accessToken}
 *   POST   /api/v1/workloads/trainings         training request -> 202 {workloadId, name, actualPhase, ...}
 *   GET    /api/v1/workloads?filterBy=K==V&limit=&offset=   {workloads: [{id, name, type, phase, ...}], next}
 *   GET    /api/v1/workloads/trainings/ID      the training (name, clusterId, actualPhase, ...)
 *   DELETE /api/v1/workloads/trainings/ID      202
 *   GET    /api/v1/workloads/ID/events         {events: [...]}
 *   GET    /api/v1/org-unit/projects           {projects: [{id, name}]}
 *   GET    /api/v1/clusters                    [{uuid, name, domain}]
 *   GET    /cluster-api/status                 OK
 *   GET    /cluster-api/api/v1/PROJECT/workloads/training/runai/NAME/logs   WebSocket: the log, then close
 *
 * Each training runs its spec's command and args (sh -c "COMMAND ARGS", its
 * environmentVariables set) in DIR/ID/, phases Creating, Pending, Running,
 * then Completed or Failed. Faults, from the environment: RUNAI_FAKE_429=N
 * (the first N API calls answer 429 with Retry-After: 1), RUNAI_FAKE_5XX=N
 * (then N answer 503), RUNAI_FAKE_VANISH=1 (a running workload disappears
 * from the API), RUNAI_FAKE_TOKEN_USES=N (a token expires after N calls:
 * 401). App id and secret: RUNAI_FAKE_APP_ID, RUNAI_FAKE_APP_SECRET. Every
 * call is logged to DIR/calls.log as "METHOD PATH STATUS".
 *
 * usage: server PORT DIR    (runs until killed) */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <cjson/cJSON.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAXW 4096

struct wl {
	char id[40], name[128], project[128], cluster[128];
	cJSON *spec;
	pid_t pid;
	int phase; /* 0 Creating, 1 Pending, 2 Running, 3 Completed, 4 Failed, 5 deleted */
	double created;
	bool vanished;
};

static const char *const phases[] = {"Creating", "Pending", "Running", "Completed", "Failed", "Deleting"};
static struct wl wls[MAXW];
static int nwl, port, faults_429, faults_5xx, token_uses, tokens;
static char dir[4096];
/* the tokens given out, each with its calls so far (independent, as RunAI's) */
static struct {
	char tok[64];
	int uses;
} toks[1024];
static bool vanish;

static double
now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void
logcall(const char *m, const char *p, int status)
{
	char path[4200];
	FILE *f;

	snprintf(path, sizeof(path), "%s/calls.log", dir);
	if ((f = fopen(path, "a"))) {
		fprintf(f, "%s %s %d\n", m, p, status);
		fclose(f);
	}
}

static void
sendall(int fd, const void *p, size_t n)
{
	ssize_t k;

	while (n && (k = write(fd, p, n)) > 0)
		p = (const char *)p + k, n -= (size_t)k;
}

static void
reply(int fd, const char *m, const char *path, int status, const char *extra, const char *body)
{
	char h[512];
	size_t n = body ? strlen(body) : 0;

	snprintf(h, sizeof(h), "HTTP/1.1 %d X\r\nContent-Type: application/json\r\nContent-Length: %zu\r\n%s"
	         "Connection: close\r\n\r\n", status, n, extra ? extra : "");
	sendall(fd, h, strlen(h));
	if (n)
		sendall(fd, body, n);
	logcall(m, path, status);
}

static void
reply_json(int fd, const char *m, const char *path, int status, cJSON *o)
{
	char *s = cJSON_PrintUnformatted(o);
	reply(fd, m, path, status, NULL, s);
	free(s);
	cJSON_Delete(o);
}

static void
error(int fd, const char *m, const char *path, int status, const char *msg)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddNumberToObject(o, "code", status);
	cJSON_AddStringToObject(o, "message", msg);
	reply_json(fd, m, path, status, o);
}

static void
reap(void)
{
	int st, i;
	pid_t p;

	while ((p = waitpid(-1, &st, WNOHANG)) > 0)
		for (i = 0; i < nwl; i++)
			if (wls[i].pid == p) {
				wls[i].pid = 0;
				if (wls[i].phase < 3)
					wls[i].phase = WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 3 : 4;
			}
	/* Creating and Pending for a moment, as a scheduler would */
	for (i = 0; i < nwl; i++) {
		if (wls[i].phase == 0 && now() - wls[i].created > 0.2)
			wls[i].phase = 1;
		if (wls[i].phase == 1 && wls[i].pid > 0 && now() - wls[i].created > 0.4)
			wls[i].phase = 2;
	}
}

static void
start(struct wl *w)
{
	const cJSON *cmd = cJSON_GetObjectItem(w->spec, "command"), *args = cJSON_GetObjectItem(w->spec, "args"), *e;
	char d[4200], line[65536];
	pid_t p;

	snprintf(d, sizeof(d), "%s/%s", dir, w->id);
	mkdir(d, 0755);
	snprintf(line, sizeof(line), "%s %s", cJSON_IsString(cmd) ? cmd->valuestring : "true",
	         cJSON_IsString(args) ? args->valuestring : "");
	if ((p = fork()) == 0) {
		setpgid(0, 0);
		if (chdir(d) != 0)
			_exit(127);
		cJSON_ArrayForEach(e, cJSON_GetObjectItem(w->spec, "environmentVariables"))
		{
			const cJSON *n = cJSON_GetObjectItem(e, "name"), *v = cJSON_GetObjectItem(e, "value");
			if (cJSON_IsString(n) && cJSON_IsString(v))
				setenv(n->valuestring, v->valuestring, 1);
		}
		if (!freopen("log", "w", stdout) || dup2(1, 2) < 0)
			_exit(127);
		usleep(400000); /* Pending, then Running */
		execl("/bin/sh", "sh", "-c", line, (char *)NULL);
		_exit(127);
	}
	w->pid = p;
}

static struct wl *
find(const char *id)
{
	int i;

	for (i = 0; i < nwl; i++)
		if (strcmp(wls[i].id, id) == 0 && wls[i].phase != 5 && !wls[i].vanished)
			return &wls[i];
	return NULL;
}

static cJSON *
training_json(const struct wl *w)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddStringToObject(o, "name", w->name);
	cJSON_AddStringToObject(o, "requestedName", w->name);
	cJSON_AddStringToObject(o, "workloadId", w->id);
	cJSON_AddStringToObject(o, "projectId", w->project);
	cJSON_AddStringToObject(o, "clusterId", w->cluster);
	cJSON_AddStringToObject(o, "createdBy", "kunai-test@example.com");
	cJSON_AddStringToObject(o, "createdAt", "2025-01-01T00:00:00Z");
	cJSON_AddStringToObject(o, "desiredPhase", w->phase == 5 ? "Deleted" : "Running");
	cJSON_AddStringToObject(o, "actualPhase", phases[w->phase]);
	cJSON_AddItemToObject(o, "spec", cJSON_Duplicate(w->spec, 1));
	return o;
}

/* The query parameter's values "K==V" for filterBy: does w match them all? */
static bool
matches(const struct wl *w, const char *query)
{
	const char *p = query;
	char k[256], v[256];

	while (p && (p = strstr(p, "filterBy="))) {
		p += 9;
		if (sscanf(p, "%255[^%=]%%3D%%3D%255[^&]", k, v) != 2 && sscanf(p, "%255[^=]==%255[^&]", k, v) != 2)
			continue;
		if (strcmp(k, "projectId") == 0 && strcmp(v, w->project) != 0)
			return false;
		if (strcmp(k, "name") == 0 && strcmp(v, w->name) != 0)
			return false;
	}
	return true;
}

static long
param(const char *query, const char *key, long def)
{
	const char *p = query ? strstr(query, key) : NULL;
	return p && p[strlen(key)] == '=' ? strtol(p + strlen(key) + 1, NULL, 10) : def;
}

/* SHA-1 and base64, for Sec-WebSocket-Accept only. */
static void
sha1(const unsigned char *p, size_t n, unsigned char out[20])
{
	uint32_t h[5] = {0x67452301, 0xEFCDAB89, 0x98BADCFE, 0x10325476, 0xC3D2E1F0}, w[80], a, b, c, d, e, t, f;
	size_t total = ((n + 8) / 64 + 1) * 64, i, k;
	unsigned char *m = calloc(total, 1);

	memcpy(m, p, n);
	m[n] = 0x80;
	for (i = 0; i < 8; i++)
		m[total - 1 - i] = (unsigned char)(((uint64_t)n * 8) >> (8 * i));
	for (k = 0; k < total; k += 64) {
		for (i = 0; i < 16; i++)
			w[i] = (uint32_t)m[k + 4 * i] << 24 | (uint32_t)m[k + 4 * i + 1] << 16 | (uint32_t)m[k + 4 * i + 2] << 8 |
			       m[k + 4 * i + 3];
		for (i = 16; i < 80; i++)
			t = w[i - 3] ^ w[i - 8] ^ w[i - 14] ^ w[i - 16], w[i] = t << 1 | t >> 31;
		a = h[0], b = h[1], c = h[2], d = h[3], e = h[4];
		for (i = 0; i < 80; i++) {
			if (i < 20)
				f = ((b & c) | (~b & d)) + 0x5A827999;
			else if (i < 40)
				f = (b ^ c ^ d) + 0x6ED9EBA1;
			else if (i < 60)
				f = ((b & c) | (b & d) | (c & d)) + 0x8F1BBCDC;
			else
				f = (b ^ c ^ d) + 0xCA62C1D6;
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
b64(char *out, const unsigned char *p, size_t n)
{
	static const char t[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	size_t i;

	for (i = 0; i < n; i += 3) {
		unsigned v = (unsigned)p[i] << 16 | (i + 1 < n ? (unsigned)p[i + 1] << 8 : 0) | (i + 2 < n ? p[i + 2] : 0);
		*out++ = t[v >> 18 & 63];
		*out++ = t[v >> 12 & 63];
		*out++ = i + 1 < n ? t[v >> 6 & 63] : '=';
		*out++ = i + 2 < n ? t[v & 63] : '=';
	}
	*out = '\0';
}

/* The log of the training named name, as WebSocket frames of up to 1000
 * bytes, then a close frame. */
static void
ws_logs(int fd, const char *path, const char *hdrs, const char *name)
{
	const char *k = strcasestr(hdrs, "\r\nSec-WebSocket-Key:");
	char key[128] = "", acc[64], h[256], lp[4200], buf[1000];
	unsigned char dig[20], fh[4];
	FILE *f = NULL;
	size_t n;
	int i;

	if (k)
		sscanf(k + 20, " %100[^\r\n]", key);
	if (!*key || !strcasestr(hdrs, "\r\nUpgrade: websocket")) {
		error(fd, "GET", path, 400, "a WebSocket upgrade is expected");
		return;
	}
	for (i = 0; i < nwl; i++)
		if (strcmp(wls[i].name, name) == 0) {
			snprintf(lp, sizeof(lp), "%s/%s/log", dir, wls[i].id);
			f = fopen(lp, "r");
		}
	strcat(key, "258EAFA5-E914-47DA-95CA-C5AB0DC11B65");
	sha1((unsigned char *)key, strlen(key), dig);
	b64(acc, dig, 20);
	snprintf(h, sizeof(h), "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
	         "Sec-WebSocket-Accept: %s\r\n\r\n", acc);
	sendall(fd, h, strlen(h));
	logcall("GET", path, 101);
	while (f && (n = fread(buf, 1, sizeof(buf), f)) > 0) {
		fh[0] = 0x81;
		if (n < 126) {
			fh[1] = (unsigned char)n;
			sendall(fd, fh, 2);
		} else {
			fh[1] = 126, fh[2] = (unsigned char)(n >> 8), fh[3] = (unsigned char)n;
			sendall(fd, fh, 4);
		}
		sendall(fd, buf, n);
	}
	if (f)
		fclose(f);
	fh[0] = 0x88, fh[1] = 0;
	sendall(fd, fh, 2);
}

static void
handle(int fd)
{
	static char req[1 << 20];
	size_t len = 0, need = 0;
	ssize_t k;
	char m[16], path[4096], *body, *hdr_end, *q, *cl, *auth;
	struct wl *w;
	int i;

	for (;;) {
		k = read(fd, req + len, sizeof(req) - 1 - len);
		if (k <= 0)
			return;
		len += (size_t)k;
		req[len] = '\0';
		if ((hdr_end = strstr(req, "\r\n\r\n"))) {
			cl = strcasestr(req, "\r\nContent-Length:");
			need = (size_t)(hdr_end + 4 - req) + (cl && cl < hdr_end ? strtoul(cl + 17, NULL, 10) : 0);
			if (len >= need)
				break;
		}
	}
	if (sscanf(req, "%15s %4095s", m, path) != 2)
		return;
	body = hdr_end + 4;
	*hdr_end = '\0';
	q = strchr(path, '?');
	if (strcmp(path, "/cluster-api/status") == 0) {
		reply(fd, m, path, 200, NULL, "OK");
		return;
	}
	if (strcmp(m, "POST") == 0 && strcmp(path, "/api/v1/token") == 0) {
		cJSON *in = cJSON_Parse(body), *o;
		const cJSON *id = cJSON_GetObjectItem(in, "AppId"), *sec = cJSON_GetObjectItem(in, "AppSecret"),
		            *g = cJSON_GetObjectItem(in, "grantType");
		const char *want_id = getenv("RUNAI_FAKE_APP_ID"), *want_sec = getenv("RUNAI_FAKE_APP_SECRET");
		if (!cJSON_IsString(g) || strcmp(g->valuestring, "app_token") != 0 || !cJSON_IsString(id) ||
		    !cJSON_IsString(sec) || strcmp(id->valuestring, want_id ? want_id : "") != 0 ||
		    strcmp(sec->valuestring, want_sec ? want_sec : "") != 0) {
			cJSON_Delete(in);
			error(fd, m, path, 401, "invalid client credentials");
			return;
		}
		cJSON_Delete(in);
		i = tokens++ % 1024;
		snprintf(toks[i].tok, sizeof(toks[i].tok), "tok-%d-%ld", tokens, (long)getpid());
		toks[i].uses = 0;
		o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "accessToken", toks[i].tok);
		reply_json(fd, m, path, 200, o);
		return;
	}
	auth = strcasestr(req, "\r\nAuthorization: Bearer ");
	for (i = 0; auth && i < 1024 && i < tokens; i++) {
		size_t n = strlen(toks[i].tok);
		if (strncmp(auth + 24, toks[i].tok, n) == 0 && (auth[24 + n] == '\r' || !auth[24 + n]))
			break;
	}
	if (!auth || i >= 1024 || i >= tokens || (token_uses && ++toks[i].uses > token_uses)) {
		error(fd, m, path, 401, "unauthorized");
		return;
	}
	if (faults_429 > 0) {
		faults_429--;
		reply(fd, m, path, 429, "Retry-After: 1\r\n", "{\"code\":429,\"message\":\"Too Many Requests\"}");
		return;
	}
	if (faults_5xx > 0) {
		faults_5xx--;
		error(fd, m, path, 503, "Service Unavailable");
		return;
	}
	if (q)
		*q++ = '\0';
	if (strcmp(m, "POST") == 0 && strcmp(path, "/api/v1/workloads/trainings") == 0) {
		cJSON *in = cJSON_Parse(body);
		const cJSON *n = cJSON_GetObjectItem(in, "name"), *p = cJSON_GetObjectItem(in, "projectId"),
		            *c = cJSON_GetObjectItem(in, "clusterId"), *s = cJSON_GetObjectItem(in, "spec");
		if (!cJSON_IsString(n) || !cJSON_IsString(p) || !cJSON_IsString(c) || !cJSON_IsObject(s) || nwl == MAXW) {
			cJSON_Delete(in);
			error(fd, m, path, 400, "name, projectId, clusterId and spec are required");
			return;
		}
		for (i = 0; i < nwl; i++)
			if (strcmp(wls[i].name, n->valuestring) == 0 && wls[i].phase != 5) {
				cJSON_Delete(in);
				error(fd, m, path, 409, "a workload with this name already exists");
				return;
			}
		w = &wls[nwl++];
		memset(w, 0, sizeof(*w));
		snprintf(w->id, sizeof(w->id), "%08x-0000-4000-8000-%012d", (unsigned)getpid(), nwl);
		snprintf(w->name, sizeof(w->name), "%s", n->valuestring);
		snprintf(w->project, sizeof(w->project), "%s", p->valuestring);
		snprintf(w->cluster, sizeof(w->cluster), "%s", c->valuestring);
		w->spec = cJSON_Duplicate(s, 1);
		w->created = now();
		cJSON_Delete(in);
		start(w);
		reply_json(fd, m, path, 202, training_json(w));
		return;
	}
	if (strcmp(m, "GET") == 0 && strcmp(path, "/api/v1/workloads") == 0) {
		cJSON *o = cJSON_CreateObject(), *a = cJSON_AddArrayToObject(o, "workloads");
		long limit = param(q, "limit", 50), off = param(q, "offset", 0), seen = 0, total = 0;
		for (i = 0; i < nwl; i++) {
			cJSON *x;
			if (wls[i].phase == 5 || wls[i].vanished || !matches(&wls[i], q))
				continue;
			if (vanish && wls[i].phase == 2) {
				wls[i].vanished = true;
				if (wls[i].pid > 0)
					kill(-wls[i].pid, SIGKILL);
				continue;
			}
			total++;
			if (seen++ < off || cJSON_GetArraySize(a) >= limit)
				continue;
			x = cJSON_CreateObject();
			cJSON_AddStringToObject(x, "id", wls[i].id);
			cJSON_AddStringToObject(x, "name", wls[i].name);
			cJSON_AddStringToObject(x, "type", "Training");
			cJSON_AddStringToObject(x, "phase", phases[wls[i].phase]);
			cJSON_AddStringToObject(x, "projectId", wls[i].project);
			cJSON_AddStringToObject(x, "clusterId", wls[i].cluster);
			cJSON_AddItemToArray(a, x);
		}
		if (off + limit < total)
			cJSON_AddNumberToObject(o, "next", (double)(off + limit));
		reply_json(fd, m, path, 200, o);
		return;
	}
	if (strncmp(path, "/api/v1/workloads/trainings/", 28) == 0) {
		if (!(w = find(path + 28))) {
			error(fd, m, path, 404, "workload not found");
			return;
		}
		if (strcmp(m, "DELETE") == 0) {
			if (w->pid > 0)
				kill(-w->pid, SIGKILL);
			w->phase = 5;
			reply(fd, m, path, 202, NULL, "{}");
		} else {
			reply_json(fd, m, path, 200, training_json(w));
		}
		return;
	}
	if (strncmp(path, "/api/v1/workloads/", 18) == 0 && strstr(path, "/events")) {
		cJSON *o = cJSON_CreateObject(), *a = cJSON_AddArrayToObject(o, "events"), *e = cJSON_CreateObject();
		cJSON_AddStringToObject(e, "type", "Normal");
		cJSON_AddStringToObject(e, "reason", "Scheduled");
		cJSON_AddStringToObject(e, "message", "Successfully assigned to node fake-node-0");
		cJSON_AddItemToArray(a, e);
		reply_json(fd, m, path, 200, o);
		return;
	}
	if (strcmp(path, "/api/v1/org-unit/projects") == 0) {
		cJSON *o = cJSON_CreateObject(), *a = cJSON_AddArrayToObject(o, "projects"), *p = cJSON_CreateObject();
		cJSON_AddStringToObject(p, "id", getenv("RUNAI_FAKE_PROJECT_ID") ? getenv("RUNAI_FAKE_PROJECT_ID") : "p1");
		cJSON_AddStringToObject(p, "name", "kunai-project");
		cJSON_AddItemToArray(a, p);
		reply_json(fd, m, path, 200, o);
		return;
	}
	if (strcmp(path, "/api/v1/clusters") == 0) {
		cJSON *a = cJSON_CreateArray(), *c = cJSON_CreateObject();
		char d[64];
		snprintf(d, sizeof(d), "http://127.0.0.1:%d", port);
		cJSON_AddStringToObject(c, "uuid", getenv("RUNAI_FAKE_CLUSTER_ID") ? getenv("RUNAI_FAKE_CLUSTER_ID") : "c1");
		cJSON_AddStringToObject(c, "name", "fake");
		cJSON_AddStringToObject(c, "domain", d);
		cJSON_AddItemToArray(a, c);
		reply_json(fd, m, path, 200, a);
		return;
	}
	if (strncmp(path, "/cluster-api/api/v1/", 20) == 0 && strstr(path, "/logs")) {
		char *e = strstr(path, "/logs"), *s;
		*e = '\0';
		s = strrchr(path, '/');
		ws_logs(fd, path, req, s + 1);
		return;
	}
	error(fd, m, path, 404, "no such endpoint");
}

int
main(int argc, char **argv)
{
	struct sockaddr_in a = {0};
	int s, one = 1, fd;

	if (argc != 3)
		return 2;
	port = atoi(argv[1]);
	snprintf(dir, sizeof(dir), "%s", argv[2]);
	mkdir(dir, 0755);
	faults_429 = getenv("RUNAI_FAKE_429") ? atoi(getenv("RUNAI_FAKE_429")) : 0;
	faults_5xx = getenv("RUNAI_FAKE_5XX") ? atoi(getenv("RUNAI_FAKE_5XX")) : 0;
	token_uses = getenv("RUNAI_FAKE_TOKEN_USES") ? atoi(getenv("RUNAI_FAKE_TOKEN_USES")) : 0;
	vanish = getenv("RUNAI_FAKE_VANISH") != NULL;
	signal(SIGPIPE, SIG_IGN);
	s = socket(AF_INET, SOCK_STREAM, 0);
	setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	a.sin_family = AF_INET;
	a.sin_port = htons((uint16_t)port);
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (bind(s, (struct sockaddr *)&a, sizeof(a)) != 0 || listen(s, 64) != 0) {
		perror("bind");
		return 1;
	}
	printf("listening on 127.0.0.1:%d\n", port);
	fflush(stdout);
	for (;;) {
		struct pollfd p = {s, POLLIN, 0};
		reap();
		if (poll(&p, 1, 50) <= 0)
			continue;
		if ((fd = accept(s, NULL, NULL)) < 0)
			continue;
		reap();
		handle(fd);
		close(fd);
	}
}
