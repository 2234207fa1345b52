/* SPDX-License-Identifier: Apache-2.0 */
/* The port proxy (docs/cloud.md "Port proxy"): a request to
 * /v1/orgs/ORG/sessions/ID/proxy/PORT/PATH is sent (libcurl) to
 * http://NODE:PORT/PATH, NODE the address of the first node of the
 * session's running job as the controller knows it, and its answer sent
 * back. Only that address is ever reached; the caller's token and cookies
 * are not passed on. A jupyter session's own port is given its notebook
 * server's secret (Authorization: token), which the caller never sees. A
 * WebSocket upgrade is made again to the port and the bytes passed on
 * (wsproxy.c). */
#include "cloud/api_int.h"
#include "cloud/wsproxy.h"
#include "common/hostlist.h"
#include "common/wire.h"

#include <curl/curl.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define PROXY_MAX (64 * 1024 * 1024) /* the most of an answer relayed */

struct got {
	char *buf;
	size_t len;
	bool too_big;
	char *location; /* a path-absolute Location of the answer (a redirect) */
};

/* The answer's Location, when it is a path on this service (a server
 * behind the proxy under its base path, as Jupyter's base_url makes it);
 * one naming the node's own address is not passed on. */
static size_t on_header(char *p, size_t size, size_t n, void *arg)
{
	struct got *g = arg;
	size_t len = size * n;

	if (len > 10 && !strncasecmp(p, "Location:", 9) && !g->location) {
		const char *v = p + 9 + strspn(p + 9, " \t");
		size_t vl = strcspn(v, "\r\n");

		if (vl && vl < 4096 && v[0] == '/' && v[1] != '/')
			g->location = strndup(v, vl);
	}
	return len;
}

static size_t on_data(char *p, size_t size, size_t n, void *arg)
{
	struct got *g = arg;
	size_t add = size * n;
	char *nb;

	if (g->len + add > PROXY_MAX) {
		g->too_big = true;
		return 0;
	}
	if (!(nb = realloc(g->buf, g->len + add + 1)))
		return 0;
	g->buf = nb;
	memcpy(g->buf + g->len, p, add);
	g->len += add;
	g->buf[g->len] = '\0';
	return add;
}

/* The address of job's first node: 0 with addr set, or -1 with why. */
static int node_addr(long long job, char *addr, size_t len, char *why, size_t wlen)
{
	json_t *j = cloud_ctld(json_pack("{s:s,s:I}", "type", "job", "job_id", (json_int_t)job), why,
			       wlen),
	       *nodes = NULL;
	const json_t *n;
	char first[128];
	size_t i;
	int rc = -1;

	if (!j)
		return -1;
	spur_hostlist_first(spur_json_str(json_object_get(j, "job"), "nodelist", ""), first,
			    sizeof(first));
	if (*first && !(nodes = cloud_ctld(json_pack("{s:s}", "type", "nodes"), why, wlen))) {
		json_decref(j);
		return -1;
	}
	json_array_foreach(json_object_get(nodes, "nodes"), i, n)
		if (!strcmp(spur_json_str(n, "name", ""), first)) {
			snprintf(addr, len, "%s", spur_json_str(n, "addr", first));
			rc = 0;
		}
	if (rc)
		snprintf(why, wlen, "the session's node is not known");
	json_decref(j);
	json_decref(nodes);
	return rc;
}

/* Send rq on to url (with the notebook server's secret when not ""); its
 * answer into rs. */
static void relay(const struct cloud_req *rq, const char *url, const char *secret,
		  struct cloud_resp *rs)
{
	CURL *c = curl_easy_init();
	struct curl_slist *h = NULL;
	struct got g = { 0 };
	char ct[256], auth[128], err[CURL_ERROR_SIZE] = "";
	const char *type = NULL;
	long status = 0;
	CURLcode rc;

	if (!c) {
		cloud_error(rs, 500, "no memory");
		return;
	}
	if (rq->content_type && strlen(rq->content_type) < 200) {
		snprintf(ct, sizeof(ct), "Content-Type: %s", rq->content_type);
		h = curl_slist_append(h, ct);
	}
	if (*secret) {
		snprintf(auth, sizeof(auth), "Authorization: token %s", secret);
		h = curl_slist_append(h, auth);
		sodium_memzero(auth, sizeof(auth));
	}
	curl_easy_setopt(c, CURLOPT_URL, url);
	curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, rq->method);
	curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http");
	curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 0L);
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(c, CURLOPT_TIMEOUT, 60L);
	curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT, 10L);
	curl_easy_setopt(c, CURLOPT_HTTPHEADER, h);
	curl_easy_setopt(c, CURLOPT_ERRORBUFFER, err);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_data);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, &g);
	curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, on_header);
	curl_easy_setopt(c, CURLOPT_HEADERDATA, &g);
	if (rq->len) {
		curl_easy_setopt(c, CURLOPT_POSTFIELDS, rq->body);
		curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE, (long)rq->len);
	} else if (!strcmp(rq->method, "HEAD")) {
		curl_easy_setopt(c, CURLOPT_NOBODY, 1L);
	}
	rc = curl_easy_perform(c);
	curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
	curl_easy_getinfo(c, CURLINFO_CONTENT_TYPE, &type);
	if (rc != CURLE_OK || status < 100 || status > 599) {
		char msg[CURL_ERROR_SIZE + 64];

		snprintf(msg, sizeof(msg), "the session's port: %s",
			 g.too_big ? "an answer over 64 MiB" : *err ? err : curl_easy_strerror(rc));
		cloud_error(rs, 502, msg);
		free(g.buf);
	} else {
		rs->status = (int)status;
		rs->body = g.buf ? g.buf : strdup("");
		rs->len = g.len;
		rs->type = strdup(type ? type : "application/octet-stream");
		rs->location = g.location;
		g.location = NULL;
	}
	free(g.location);
	curl_slist_free_all(h);
	curl_easy_cleanup(c);
}

void cloud_ssh_connect(long long job, unsigned port, struct cloud_resp *rs)
{
	char addr[256], why[256];
	int fd;

	if (node_addr(job, addr, sizeof(addr), why, sizeof(why))) {
		cloud_error(rs, 503, why);
		return;
	}
	if ((fd = cloud_wsp_dial(addr, port, why, sizeof(why))) < 0) {
		char msg[400];

		snprintf(msg, sizeof(msg), "the session's SSH server: %s", why);
		cloud_error(rs, 502, msg);
		return;
	}
	rs->status = 101;
	rs->upstream = rs->tunnel = true;
	rs->upstream_fd = fd;
}

void cloud_url_encode(const char *s, bool query, char *out, size_t len)
{
	static const char hexd[] = "0123456789ABCDEF";
	size_t o = 0;

	for (; *s && o + 4 < len; s++) {
		unsigned char ch = (unsigned char)*s;
		bool plain = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
			     (ch >= '0' && ch <= '9') || strchr("-._~", ch) ||
			     (!query && strchr("/!$'()*,;:@", ch));

		if (plain) {
			out[o++] = (char)ch;
		} else {
			out[o++] = '%';
			out[o++] = hexd[ch >> 4];
			out[o++] = hexd[ch & 15];
		}
	}
	out[o] = '\0';
}

void cloud_proxy(const struct cloud_req *rq, long long job, unsigned port, const char *path,
		 const char *secret, struct cloud_resp *rs)
{
	char addr[256], why[256], *url, *epath;
	size_t n = strlen(path) * 3 + 1;

	if (node_addr(job, addr, sizeof(addr), why, sizeof(why))) {
		cloud_error(rs, 503, why);
		return;
	}
	epath = malloc(n);
	n += strlen(addr) + strlen(rq->query ? rq->query : "") + 64;
	if (!epath || !(url = malloc(n))) {
		free(epath);
		cloud_error(rs, 500, "no memory");
		return;
	}
	cloud_url_encode(path, false, epath, strlen(path) * 3 + 1);
	snprintf(url, n, "http://%s%s%s:%u/%s%s%s", strchr(addr, ':') ? "[" : "", addr,
		 strchr(addr, ':') ? "]" : "", port, epath, rq->query && *rq->query ? "?" : "",
		 rq->query ? rq->query : "");
	if (rq->ws_key) /* the path and query, as sent on */
		cloud_wsp_connect(rq, addr, port, strstr(strstr(url, "//") + 2, "/") + 1, secret, rs);
	else
		relay(rq, url, secret, rs);
	free(epath);
	free(url);
}
