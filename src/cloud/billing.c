/* SPDX-License-Identifier: Apache-2.0 */
/* Money and capacity (docs/cloud.md): prices per GPU-hour by GPU type and
 * per CPU-hour with validity dates; usage and cost per project, user, GPU
 * type and day from the meter's rows; credit budgets (a ledger of credits,
 * a hard stop at zero); monthly invoices as JSON or CSV; free GPUs by type
 * from the controller. Money is integer micro-units of the site's
 * currency. */
#include "cloud/api_int.h"
#include "common/wire.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* YYYY-MM-DD (month: YYYY-MM): digits where digits go. */
static bool date_like(const char *s, bool month)
{
	static const char pat[] = "dddd-dd-dd";
	size_t n = month ? 7 : 10;

	if (!s || strlen(s) != n)
		return false;
	for (size_t i = 0; i < n; i++)
		if (pat[i] == 'd' ? (s[i] < '0' || s[i] > '9') : s[i] != '-')
			return false;
	return true;
}

/* An integer field within [lo, hi] as text into out: 0, or -1. */
static int int_field(const json_t *b, const char *k, long long lo, long long hi, char *out,
		     size_t len)
{
	const json_t *v = json_object_get(b, k);

	if (!json_is_integer(v) || json_integer_value(v) < lo || json_integer_value(v) > hi)
		return -1;
	snprintf(out, len, "%lld", (long long)json_integer_value(v));
	return 0;
}

/* GET /v1/prices (anyone signed in); POST (the service's administrators):
 * {resource gpu|cpu, gpu_type, per_hour, valid_from}: the open price of
 * that resource and type closes where the new one starts. */
void cloud_prices(struct cloud_api *api, const struct cloud_req *rq, const struct who *w,
		  struct cloud_resp *rs)
{
	/* a price given no start starts at this whole second: a job that
	 * starts in it is billed at it */
	const char *sql[2] = {
		"UPDATE prices SET valid_until = coalesce($3::timestamptz, date_trunc('second', "
		"now())) WHERE resource = $1 AND gpu_type = $2 AND valid_until IS NULL AND NOT EXISTS "
		"(SELECT 1 FROM prices WHERE resource = $1 AND gpu_type = $2 AND valid_from >= "
		"coalesce($3::timestamptz, date_trunc('second', now())))",
		"INSERT INTO prices (resource, gpu_type, per_hour, valid_from) SELECT $1, $2, "
		"$3::bigint, coalesce($4::timestamptz, date_trunc('second', now())) WHERE NOT EXISTS "
		"(SELECT 1 FROM prices WHERE resource = $1 AND gpu_type = $2 AND valid_from >= "
		"coalesce($4::timestamptz, date_trunc('second', now()))) RETURNING resource, gpu_type, "
		"per_hour, valid_from"
	};
	json_t *b = NULL, *rows = NULL;
	const char *p[4], *res, *q[3];
	const char *const *params[2] = { q, p };
	int n[2] = { 3, 4 }, rc;
	char why[256], ph[24];

	if (!strcmp(rq->method, "GET")) {
		cloud_list_reply(api, rs, "prices",
				 "SELECT resource, gpu_type, per_hour, valid_from, valid_until FROM "
				 "prices ORDER BY resource, gpu_type, valid_from",
				 0, NULL);
		return;
	}
	if (strcmp(rq->method, "POST")) {
		cloud_error(rs, 405, "GET or POST /v1/prices");
		return;
	}
	if (!w->admin || !w->write) {
		cloud_error(rs, 403, w->write ? "only the service's administrators set prices"
					      : "this key is read-only");
		return;
	}
	if (!(b = cloud_body(rq, rs)))
		return;
	res = cloud_field(b, "resource");
	if (strcmp(res, "gpu") && strcmp(res, "cpu") && strcmp(res, "mem")) {
		cloud_error(rs, 400, "resource: gpu, cpu or mem");
		goto out;
	}
	if (int_field(b, "per_hour", 0, 1000000000000LL, ph, sizeof(ph))) {
		cloud_error(rs, 400, "per_hour: micro-units per GPU-hour, CPU-hour or GiB-hour (mem), "
				     "0 to 10^12");
		goto out;
	}
	p[0] = res, p[1] = cloud_field(b, "gpu_type"), p[2] = ph;
	p[3] = *cloud_field(b, "valid_from") ? cloud_field(b, "valid_from") : NULL;
	q[0] = p[0], q[1] = p[1], q[2] = p[3];
	if (strcmp(res, "gpu") && *p[1]) {
		cloud_error(rs, 400, "gpu_type: only for resource gpu");
		goto out;
	}
	rc = cloud_db_tx(api->db, 2, sql, n, params, &rows, why, sizeof(why));
	if (rc)
		cloud_db_error(rs, rc, "gpu_type: a-z, 0-9, _ (at most 32); valid_from: a time");
	else if (!json_array_size(rows))
		cloud_error(rs, 409, "a price of that resource and type starts then or later");
	else
		cloud_reply(rs, 201, json_incref(json_array_get(rows, 0)));
out:
	json_decref(rows);
	json_decref(b);
}

/* The grouping of a usage report: its SQL (a fixed text per key). */
#define USAGE_SQL(key)                                                                         \
	"SELECT " key " AS key, sum(x.seconds * x.gpus)::bigint AS gpu_seconds, "                  \
	"sum(x.seconds * x.cpus)::bigint AS cpu_seconds, sum(x.seconds * x.mem_mb)::bigint AS "     \
	"mem_mb_seconds, sum(x.cost)::bigint AS cost FROM usage x "                                 \
	"JOIN projects p ON p.id = x.project_id JOIN users u ON u.id = x.user_id WHERE x.org_id = " \
	"$1::bigint AND ($2::date IS NULL OR x.t0 >= extract(epoch FROM $2::date)) AND ($3::date " \
	"IS NULL OR x.t0 < extract(epoch FROM $3::date)) GROUP BY 1 ORDER BY 1"

/* GET /v1/orgs/ORG/usage?by=project|user|gpu_type|day[&from=DAY][&to=DAY] */
static void usage(struct cloud_api *api, const struct cloud_req *rq, const char *oid,
		  struct cloud_resp *rs)
{
	static const char *const by[][2] = {
		{ "project", USAGE_SQL("p.name") },
		{ "user", USAGE_SQL("u.email") },
		{ "gpu_type", USAGE_SQL("x.gpu_type") },
		{ "day", USAGE_SQL("to_char(to_timestamp(x.t0) AT TIME ZONE 'UTC', 'YYYY-MM-DD')") },
	};
	const char *want = cloud_arg(rq, "by") ? cloud_arg(rq, "by") : "project";
	const char *p[3] = { oid, cloud_arg(rq, "from"), cloud_arg(rq, "to") };

	if ((p[1] && !date_like(p[1], false)) || (p[2] && !date_like(p[2], false))) {
		cloud_error(rs, 400, "from, to: days, YYYY-MM-DD (UTC; to is not included)");
		return;
	}
	for (size_t i = 0; i < sizeof(by) / sizeof(by[0]); i++)
		if (!strcmp(want, by[i][0])) {
			cloud_list_reply(api, rs, "usage", by[i][1], 3, p);
			return;
		}
	cloud_error(rs, 400, "by: project, user, gpu_type or day");
}

/* The invoice's lines as CSV (names are [a-z0-9_-]: nothing to quote). */
static char *invoice_csv(const json_t *lines, const long long t[4])
{
	size_t cap = 128 + json_array_size(lines) * 200, len;
	char *out = malloc(cap);
	const json_t *l;
	size_t i;

	if (!out)
		return NULL;
	len = (size_t)snprintf(out, cap,
			       "project,gpu_type,gpu_seconds,cpu_seconds,mem_mb_seconds,cost\r\n");
	json_array_foreach(lines, i, l)
		len += (size_t)snprintf(out + len, cap - len, "%s,%s,%s,%s,%s,%s\r\n",
					cloud_field(l, "project"), cloud_field(l, "gpu_type"),
					cloud_field(l, "gpu_seconds"), cloud_field(l, "cpu_seconds"),
					cloud_field(l, "mem_mb_seconds"), cloud_field(l, "cost"));
	snprintf(out + len, cap - len, "total,,%lld,%lld,%lld,%lld\r\n", t[0], t[1], t[2], t[3]);
	return out;
}

/* GET /v1/orgs/ORG/invoices/YYYY-MM[.csv]: the month's usage (UTC) by
 * project and GPU type, with its total. */
static void invoice(struct cloud_api *api, const char *org, const char *oid, const char *spec,
		    struct cloud_resp *rs)
{
	char month[8];
	bool csv = strlen(spec) == 11 && !strcmp(spec + 7, ".csv");
	const char *p[2] = { oid, month };
	json_t *rows = NULL;
	const json_t *l;
	long long t[4] = { 0 }; /* GPU-, CPU-, MiB-seconds, cost */
	char why[256];
	size_t i;
	int rc;

	snprintf(month, sizeof(month), "%.7s", spec);
	if (!date_like(month, true) || (strlen(spec) != 7 && !csv)) {
		cloud_error(rs, 404, "no such invoice: /v1/orgs/ORG/invoices/YYYY-MM[.csv]");
		return;
	}
	rc = cloud_db_query(api->db,
			    "SELECT p.name AS project, x.gpu_type, sum(x.seconds * x.gpus)::bigint AS "
			    "gpu_seconds, sum(x.seconds * x.cpus)::bigint AS cpu_seconds, "
			    "sum(x.seconds * x.mem_mb)::bigint AS mem_mb_seconds, "
			    "sum(x.cost)::bigint AS cost FROM usage x JOIN projects p ON p.id = "
			    "x.project_id WHERE x.org_id = $1::bigint AND x.t0 >= extract(epoch FROM "
			    "($2::text || '-01')::date) AND x.t0 < extract(epoch FROM ($2::text || "
			    "'-01')::date + interval '1 month') GROUP BY 1, 2 ORDER BY 1, 2",
			    2, p, &rows, why, sizeof(why));
	if (rc) {
		cloud_db_error(rs, rc, "month: YYYY-MM");
		return;
	}
	json_array_foreach(rows, i, l) {
		t[0] += atoll(cloud_field(l, "gpu_seconds"));
		t[1] += atoll(cloud_field(l, "cpu_seconds"));
		t[2] += atoll(cloud_field(l, "mem_mb_seconds"));
		t[3] += atoll(cloud_field(l, "cost"));
	}
	if (csv) {
		rs->status = 200, rs->type = strdup("text/csv; charset=utf-8");
		rs->body = invoice_csv(rows, t);
		json_decref(rows);
		return;
	}
	cloud_reply(rs, 200,
		    json_pack("{s:s,s:s,s:s,s:o,s:{s:I,s:I,s:I,s:I}}", "org", org, "month", month,
			      "money", "micro-units", "lines", rows, "total", "gpu_seconds",
			      (json_int_t)t[0], "cpu_seconds", (json_int_t)t[1], "mem_mb_seconds",
			      (json_int_t)t[2], "cost", (json_int_t)t[3]));
}

/* The organisation's id by name, for the service's administrators (who
 * need not be members): 0, or -1 with rs set. */
static int org_id(struct cloud_api *api, const char *org, char oid[24], struct cloud_resp *rs)
{
	const char *p[1] = { org };
	json_t *rows = NULL;
	char why[256];
	int rc = cloud_db_query(api->db, "SELECT id FROM orgs WHERE name = $1", 1, p, &rows, why,
				sizeof(why));

	if (rc)
		cloud_db_error(rs, rc, why);
	else if (!json_array_size(rows))
		cloud_error(rs, 404, "no such organisation");
	else
		snprintf(oid, 24, "%s", cloud_field(json_array_get(rows, 0), "id"));
	json_decref(rows);
	return rc || !oid[0] ? -1 : 0;
}

/* POST /v1/orgs/ORG/credits {amount, note}: a credit (or, negative, a
 * debit) in the ledger; the organisation's budget is enforced from then
 * on. PUT /v1/orgs/ORG/budget {budgeted}: on or off. Administrators. */
static void budget_change(struct cloud_api *api, const struct cloud_req *rq, const char *org,
			  bool credit, struct cloud_resp *rs)
{
	const char *sql[2] = { "INSERT INTO credits (org_id, amount, note) VALUES ($1::bigint, "
			       "$2::bigint, $3)",
			       "UPDATE orgs SET budgeted = true WHERE id = $1::bigint" };
	char oid[24] = "", amount[24] = "0", why[256];
	const char *p[3] = { oid, amount, "" };
	const char *const *params[2] = { p, p };
	int n[2] = { 3, 1 }, rc;
	json_t *b = cloud_body(rq, rs);
	const json_t *on;

	if (!b || org_id(api, org, oid, rs))
		goto out;
	on = json_object_get(b, "budgeted");
	if (credit && (int_field(b, "amount", -1000000000000000LL, 1000000000000000LL, amount,
				 sizeof(amount)) ||
		       !strcmp(amount, "0") || strlen(cloud_field(b, "note")) > 200)) {
		cloud_error(rs, 400, "amount: micro-units, not 0, at most 10^15 either way; note: "
				     "at most 200 characters");
		goto out;
	}
	if (!credit && !json_is_boolean(on)) {
		cloud_error(rs, 400, "budgeted: true or false");
		goto out;
	}
	p[1] = json_is_true(on) ? "true" : "false";
	p[2] = cloud_field(b, "note");
	if (credit)
		p[1] = amount;
	rc = credit ? cloud_db_tx(api->db, 2, sql, n, params, NULL, why, sizeof(why))
		    : cloud_db_query(api->db,
				     "UPDATE orgs SET budgeted = $2::boolean WHERE id = $1::bigint", 2,
				     p, NULL, why, sizeof(why));
	if (rc)
		cloud_db_error(rs, rc, why);
	else
		cloud_reply(rs, credit ? 201 : 200, json_incref(b));
out:
	json_decref(b);
}

void cloud_org_billing(struct cloud_api *api, const struct cloud_req *rq, const struct who *w,
		       const char *org, const char *what, struct cloud_resp *rs)
{
	char oid[24], role[16];
	bool get = !strcmp(rq->method, "GET");

	if (!get) {
		if ((!strcmp(what, "credits") && strcmp(rq->method, "POST")) ||
		    (!strcmp(what, "budget") && strcmp(rq->method, "PUT")) ||
		    (strcmp(what, "credits") && strcmp(what, "budget")))
			cloud_error(rs, 405, "GET usage, budget, credits, invoices/YYYY-MM; POST "
					     "credits; PUT budget");
		else if (!w->admin || !w->write)
			cloud_error(rs, 403, w->write ? "only the service's administrators change "
							"budgets"
						      : "this key is read-only");
		else
			budget_change(api, rq, org, !strcmp(what, "credits"), rs);
		return;
	}
	if (cloud_org_role(api, w, org, oid, role, rs))
		return;
	if (!strcmp(what, "usage")) {
		usage(api, rq, oid, rs);
	} else if (!strcmp(what, "budget")) {
		const char *p[1] = { oid };

		cloud_list_reply(api, rs, "budget",
				 "SELECT o.budgeted, c.credit, s.spent, c.credit - s.spent AS balance "
				 "FROM orgs o, LATERAL (SELECT coalesce(sum(amount), 0) AS credit FROM "
				 "credits WHERE org_id = o.id) c, LATERAL (SELECT coalesce(sum(cost), 0) "
				 "AS spent FROM usage WHERE org_id = o.id) s WHERE o.id = $1::bigint",
				 1, p);
	} else if (!strcmp(what, "credits")) {
		const char *p[1] = { oid };

		cloud_list_reply(api, rs, "credits",
				 "SELECT amount, note, created FROM credits WHERE org_id = $1::bigint "
				 "ORDER BY id",
				 1, p);
	} else if (!cloud_manages(role)) {
		cloud_error(rs, 403, "invoices: the organisation's owners and admins");
	} else {
		invoice(api, org, oid, what + strlen("invoices/"), rs);
	}
}

/* A node's GPUs from its gres ("gpu:TYPE:N..." or "gpu:N..."): the count,
 * and the type into type ("" when untyped). */
static long gpus_of(const char *gres, char *type, size_t len)
{
	const char *g = strstr(gres, "gpu:"), *c;

	*type = '\0';
	if (!g || (g != gres && g[-1] != ','))
		return 0;
	g += 4;
	if ((c = strchr(g, ':')) && (size_t)(c - g) < len &&
	    strspn(g, "abcdefghijklmnopqrstuvwxyz0123456789_") == (size_t)(c - g)) {
		snprintf(type, len, "%.*s", (int)(c - g), g);
		g = c + 1;
	}
	return strtol(g, NULL, 10);
}

/* GET /v1/capacity: GPUs by type on the nodes that are up (their agent
 * there, not down, drained or failed), and of those the free ones on
 * nodes anyone may use now (idle or mixed, not reserved). */
void cloud_capacity(struct cloud_api *api, const struct cloud_req *rq, struct cloud_resp *rs)
{
	static const char *const up[] = { "IDLE", "MIXED", "ALLOCATED", "RESERVED", "COMPLETING" };
	char why[256], type[40];
	json_t *r = cloud_ctld(json_pack("{s:s}", "type", "nodes"), why, sizeof(why));
	json_t *by = json_object(), *out = json_array(), *t;
	const json_t *n;
	const char *k;
	size_t i;

	(void)api, (void)rq;
	if (!r) {
		json_decref(by);
		json_decref(out);
		cloud_error(rs, 503, why);
		return;
	}
	json_array_foreach(json_object_get(r, "nodes"), i, n) {
		const char *st = spur_json_str(n, "state", "");
		long total = gpus_of(spur_json_str(n, "gres", ""), type, sizeof(type));
		bool is_up = false;

		for (size_t u = 0; u < sizeof(up) / sizeof(up[0]); u++)
			is_up |= !strcmp(st, up[u]);
		if (!total || !is_up || !spur_json_bool(n, "agent", 1))
			continue;
		if (!(t = json_object_get(by, type))) {
			t = json_pack("{s:s,s:I,s:I,s:I}", "gpu_type", type, "total", 0, "free", 0,
				      "nodes", 0);
			json_object_set_new(by, type, t);
		}
		json_object_set_new(t, "total", json_integer(spur_json_int(t, "total", 0) + total));
		json_object_set_new(t, "nodes", json_integer(spur_json_int(t, "nodes", 0) + 1));
		if (!strcmp(st, "IDLE") || !strcmp(st, "MIXED"))
			json_object_set_new(t, "free", json_integer(spur_json_int(t, "free", 0) +
								    spur_json_int(n, "free_gpus", 0)));
	}
	json_object_foreach(by, k, t)
		json_array_append(out, t);
	json_decref(by);
	json_decref(r);
	cloud_reply(rs, 200, json_pack("{s:o}", "gpus", out));
}
