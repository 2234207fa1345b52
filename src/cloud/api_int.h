/* SPDX-License-Identifier: Apache-2.0 */
/* What the API's modules share (api.c, sessions.c): who is asking, and
 * the replies' helpers. Internal to src/cloud. */
#ifndef SPUR_CLOUD_API_INT_H
#define SPUR_CLOUD_API_INT_H

#include "cloud/api.h"

#include <jansson.h>
#include <stdbool.h>

/* The signed-in caller: a user id, whether the token may change things,
 * and whether the user is one of the service's administrators. */
struct who {
	char id[24];
	bool write;
	bool admin;
};

/* body becomes the response (its reference taken). */
void cloud_reply(struct cloud_resp *rs, int status, json_t *body);
void cloud_error(struct cloud_resp *rs, int status, const char *msg);
/* A database call's failure as the client sees it (503, 409, 400, 500). */
void cloud_db_error(struct cloud_resp *rs, int rc, const char *what);
/* The body as a JSON object, or NULL with rs set (400). */
json_t *cloud_body(const struct cloud_req *rq, struct cloud_resp *rs);
/* A string field of b, "" when absent. */
const char *cloud_field(const json_t *b, const char *k);
/* w's role in org into role (16 bytes) and its id into oid (24): 0, or -1
 * with rs set (404 for an organisation w is not in). */
int cloud_org_role(struct cloud_api *api, const struct who *w, const char *org, char *oid,
		   char *role, struct cloud_resp *rs);
/* A listing: the rows of sql (n params p) as {key: [...]} (200), or the failure. */
void cloud_list_reply(struct cloud_api *api, struct cloud_resp *rs, const char *key,
		      const char *sql, int n, const char *const *p);
/* One request to the cluster's leading controller (req's reference
 * taken): its reply, or NULL with why (from the controller, or "the
 * cluster's controller: ..." when it cannot be reached). Thread-safe. */
json_t *cloud_ctld(json_t *req, char *why, size_t wlen);
/* The controller's jobs (an array of objects with job_id) as an object
 * keyed by the job id's decimal text (new reference). */
json_t *cloud_jobs_by_id(const json_t *jobs);
/* May this role change the organisation's projects and members? */
bool cloud_manages(const char *role);

/* Sessions (sessions.c): /v1/orgs/ORG/sessions[/ID] (rest: what follows
 * "sessions", "" or "/ID") and /v1/orgs/ORG/projects/P/sessions. */
void cloud_sessions(struct cloud_api *api, const struct cloud_req *rq, const struct who *w,
		    const char *org, const char *project, const char *rest,
		    struct cloud_resp *rs);

/* Batch jobs (sessions.c): POST /v1/orgs/ORG/projects/P/jobs. */
void cloud_jobs(struct cloud_api *api, const struct cloud_req *rq, const struct who *w,
		const char *org, const char *project, struct cloud_resp *rs);

/* GPU quotas (sessions.c): GET|PUT /v1/orgs/ORG/quotas. */
void cloud_quotas(struct cloud_api *api, const struct cloud_req *rq, const struct who *w,
		  const char *org, struct cloud_resp *rs);

/* Prices, usage, budgets, invoices, capacity (billing.c). */
void cloud_prices(struct cloud_api *api, const struct cloud_req *rq, const struct who *w,
		  struct cloud_resp *rs);
/* /v1/orgs/ORG/ + what: "usage", "budget", "credits", "invoices/YYYY-MM[.csv]" */
void cloud_org_billing(struct cloud_api *api, const struct cloud_req *rq, const struct who *w,
		       const char *org, const char *what, struct cloud_resp *rs);
void cloud_capacity(struct cloud_api *api, const struct cloud_req *rq, struct cloud_resp *rs);
/* The port proxy (proxy.c): rq sent on to port PORT of job's first node,
 * at path (decoded, without its leading '/'), with Authorization: token
 * SECRET when secret is not ""; the answer into rs (a WebSocket upgrade:
 * wsproxy.h's cloud_wsp_connect). */
void cloud_proxy(const struct cloud_req *rq, long long job, unsigned port, const char *path,
		 const char *secret, struct cloud_resp *rs);
/* SSH into a session (proxy.c): a connection to port PORT (its SSH
 * server) of job's first node, as rs's 101 tunnel, or rs an error. */
void cloud_ssh_connect(long long job, unsigned port, struct cloud_resp *rs);
/* A query argument of rq, NULL when absent. */
const char *cloud_arg(const struct cloud_req *rq, const char *key);

#endif
