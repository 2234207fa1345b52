/* SPDX-License-Identifier: Apache-2.0 */
/* spurrestd's request handling: slurmrestd's paths and JSON shapes
 * (data_parser v0.0.40), the OpenAPI document, Prometheus metrics and the
 * dashboard, over a backend that carries requests to the controller. Pure:
 * no sockets here, so the router is fuzzed and tested with a fake backend. */
#ifndef SPUR_REST_REST_H
#define SPUR_REST_REST_H

#include "common/error.h"

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define REST_API "v0.0.40"
#define REST_MAX_BODY (1u << 20) /* a bigger request body gets 413 */
#define REST_SAMPLES 720	 /* utilisation history kept (an hour at 5 s) */

/* Carries one request to the controller; req is stolen. The reply, or NULL
 * with err set (err->code SPUR_EPERM: authentication, SPUR_ENOENT: no such
 * job, SPUR_EIO: controller unreachable). */
struct rest_backend {
	json_t *(*call)(void *ctx, json_t *req, struct spur_error *err);
	void *ctx;
};

/* One utilisation sample: GPUs allocated of all, CPUs likewise. */
struct rest_sample {
	int64_t time;
	uint32_t gpus_alloc, gpus_total, cpus_alloc, cpus_total;
};

struct rest_history {
	struct rest_sample s[REST_SAMPLES];
	size_t n, head; /* head: the next slot written */
};

struct rest_request {
	const char *method, *url;
	const char *user_name, *user_token; /* X-SLURM-USER-NAME / -TOKEN, or NULL */
	const char *body;
	size_t body_len;
	const struct rest_history *history; /* may be NULL */
	const char *peer;		     /* the client's address, for the log */
};

struct rest_response {
	int status;
	const char *content_type;
	char *body; /* malloc'd */
	size_t len;
};

/* Answer rq; rs->body is always set (free it). */
void rest_handle(const struct rest_backend *be, const struct rest_request *rq,
		 struct rest_response *rs);

/* A sample from a "nodes" reply (borrowed). */
void rest_sample_nodes(const json_t *nodes_reply, int64_t now, struct rest_sample *out);
void rest_history_add(struct rest_history *h, const struct rest_sample *s);

/* rest_assets.c (generated from openapi.json and ui/) */
extern const char rest_openapi_json[];
extern const char rest_ui_html[];

#endif
