/* SPDX-License-Identifier: Apache-2.0 */
/* Metering (meter.h): each session's job, as the controller's accounting
 * rows tell it (start, end, GPUs, CPUs and memory held), billed in intervals from
 * the session's cursor (metered_until) to the job's end or the
 * controller's now. The cursor moves in the same statement as the row is
 * written, and only from the value read, and (session, t0) is unique: a
 * pass repeated, a restart, or two services metering at once never bill
 * a second twice. A job found ended before the cursor (billed "up to now"
 * while the controller had not yet heard of its end) gets a correction
 * row that gives those seconds back. */
#include "cloud/meter.h"
#include "cloud/api_int.h"
#include "cloud/terminal.h"
#include "common/log.h"
#include "common/wire.h"
#include "common/hostlist.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The price per hour of one resource at second t0 ($1): the GPU type's
 * own price before the default ('') one. */
#define PRICE(res, type)                                                                       \
	"coalesce((SELECT per_hour FROM prices WHERE resource = '" res "' AND gpu_type IN (" type \
	", '') AND valid_from <= to_timestamp($6::bigint) AND (valid_until IS NULL OR "           \
	"valid_until > to_timestamp($6::bigint)) ORDER BY gpu_type DESC LIMIT 1), 0)"

/* One interval: $1 session, $2 the cursor read (NULL: none yet), $3 the new
 * cursor, $4 done, $5 GPU type, $6 t0, $7 t1, $8 seconds (negative: a
 * correction), $9 GPUs, $10 CPUs, $11 memory (MiB; priced per GiB-hour).
 * Nothing when the cursor moved meanwhile; only the cursor when t0 = t1. */
static const char interval_sql[] =
	"WITH u AS (UPDATE sessions SET metered_until = $3::bigint, metered_done = $4::boolean "
	"WHERE id = $1::bigint AND NOT metered_done AND metered_until IS NOT DISTINCT FROM "
	"$2::bigint RETURNING id, org_id, project_id, user_id, job_id) "
	"INSERT INTO usage (session_id, org_id, project_id, user_id, job_id, gpu_type, gpus, cpus, "
	"mem_mb, t0, t1, seconds, cost, correction) SELECT id, org_id, project_id, user_id, job_id, "
	"$5, $9::int, $10::int, $11::bigint, $6::bigint, $7::bigint, $8::bigint, trunc(($9::numeric * " PRICE(
		"gpu", "$5") " + $10::numeric * " PRICE("cpu", "''") " + $11::numeric / 1024 * " PRICE(
			"mem", "''") ") * $8::bigint / 3600)::bigint, "
	"$8::bigint < 0 FROM u WHERE $6::bigint <> $7::bigint "
	"ON CONFLICT (session_id, t0, correction) DO NOTHING";

/* The GPU type of the node a job ran on first (nodes: the controller's
 * "nodes" reply), "" when not known. */
static void type_of(const json_t *nodes, const char *nodelist, char *type, size_t len)
{
	char first[128];
	const json_t *n;
	size_t i;

	*type = '\0';
	spur_hostlist_first(nodelist, first, sizeof(first));
	json_array_foreach(json_object_get(nodes, "nodes"), i, n) {
		const char *g = spur_json_str(n, "gres", ""), *c1, *c2;

		if (strcmp(spur_json_str(n, "name", ""), first))
			continue;
		/* "gpu:TYPE:N[...]" */
		if (!strncmp(g, "gpu:", 4) && (c1 = g + 4) && (c2 = strchr(c1, ':')) &&
		    (size_t)(c2 - c1) < len && strspn(c1, "abcdefghijklmnopqrstuvwxyz0123456789_") ==
						   (size_t)(c2 - c1))
			snprintf(type, len, "%.*s", (int)(c2 - c1), c1);
		return;
	}
}

/* Write one interval row (or only move the cursor). */
static int interval(struct cloud_db *db, const char *sid, const char *cur, int64_t next,
		    bool done, const char *type, int64_t t0, int64_t t1, int64_t secs, int64_t gpus,
		    int64_t cpus, int64_t mem, char *why, size_t wlen)
{
	char v[7][24];
	const char *p[11];

	snprintf(v[0], sizeof(v[0]), "%lld", (long long)next);
	snprintf(v[1], sizeof(v[1]), "%lld", (long long)t0);
	snprintf(v[2], sizeof(v[2]), "%lld", (long long)t1);
	snprintf(v[3], sizeof(v[3]), "%lld", (long long)secs);
	snprintf(v[4], sizeof(v[4]), "%lld", (long long)gpus);
	snprintf(v[5], sizeof(v[5]), "%lld", (long long)cpus);
	snprintf(v[6], sizeof(v[6]), "%lld", (long long)mem);
	p[0] = sid, p[1] = *cur ? cur : NULL, p[2] = v[0], p[3] = done ? "true" : "false";
	p[4] = type, p[5] = v[1], p[6] = v[2], p[7] = v[3], p[8] = v[4], p[9] = v[5], p[10] = v[6];
	return cloud_db_query(db, interval_sql, 11, p, NULL, why, wlen);
}

/* Meter one session (s: its row) from its job's accounting row (j). */
static int meter_one(struct cloud_db *db, const json_t *s, const json_t *j, int64_t now,
		     const json_t *nodes, char *why, size_t wlen)
{
	const char *sid = cloud_field(s, "id"), *cur = cloud_field(s, "metered_until");
	int64_t start = spur_json_int(j, "start", 0), end = spur_json_int(j, "end", 0);
	int64_t gpus = spur_json_int(j, "gpus", 0), cpus = spur_json_int(j, "cpus", 0);
	int64_t mem = spur_json_int(j, "mem_mb", 0);
	/* a requeued job starts again after the cursor: from its new start */
	int64_t from = *cur && atoll(cur) > start ? atoll(cur) : start, upto = end ? end : now;
	char type[40];

	if (!start) /* ended before it ran: nothing to bill */
		return end || strcmp(spur_json_str(j, "state", "PENDING"), "PENDING")
			       ? interval(db, sid, cur, 0, true, "", 0, 0, 0, 0, 0, 0, why, wlen)
			       : 0;
	snprintf(type, sizeof(type), "%s", cloud_field(s, "gpu_type"));
	if (!*type && gpus)
		type_of(nodes, spur_json_str(j, "nodelist", ""), type, sizeof(type));
	if (upto >= from)
		return interval(db, sid, cur, upto, end != 0, type, from, upto, upto - from, gpus,
				cpus, mem, why, wlen);
	/* billed past the end: give back [end, cursor) */
	return interval(db, sid, cur, end, true, type, end, from, end - from, gpus, cpus, mem,
			why, wlen);
}

/* The controller's accounting rows for these sessions' jobs: "jobs",
 * "now"; NULL with why. */
static json_t *acct_of(const json_t *sessions, char *why, size_t wlen)
{
	size_t cap = json_array_size(sessions) * 21 + 1, len = 0, i;
	char *list = calloc(1, cap);
	const json_t *s;
	json_t *r;

	if (!list) {
		snprintf(why, wlen, "no memory");
		return NULL;
	}
	json_array_foreach(sessions, i, s)
		len += (size_t)snprintf(list + len, cap - len, "%s%s", len ? "," : "",
					cloud_field(s, "job_id"));
	r = cloud_ctld(json_pack("{s:s,s:s}", "type", "acct", "jobs", list), why, wlen);
	free(list);
	return r;
}

int cloud_meter_pass(struct cloud_db *db, char *why, size_t wlen)
{
	json_t *sessions = NULL, *acct = NULL, *nodes = NULL, *byjob = NULL;
	const json_t *s;
	int rc, metered = 0;
	size_t i;

	rc = cloud_db_query(db,
			    "SELECT id, job_id, metered_until, gpu_type, state FROM sessions WHERE job_id "
			    "IS NOT NULL AND NOT metered_done ORDER BY id LIMIT 2000",
			    0, NULL, &sessions, why, wlen);
	if (rc || !json_array_size(sessions))
		goto out;
	if (!(acct = acct_of(sessions, why, wlen))) {
		rc = -1;
		goto out;
	}
	byjob = cloud_jobs_by_id(json_object_get(acct, "jobs"));
	json_array_foreach(sessions, i, s) {
		const json_t *row = json_object_get(byjob, cloud_field(s, "job_id"));

		if (!row && !strcmp(cloud_field(s, "state"), "ended")) {
			/* the controller has no record: nothing can be billed */
			rc = interval(db, cloud_field(s, "id"), cloud_field(s, "metered_until"),
				      atoll(cloud_field(s, "metered_until")), true, "", 0, 0, 0, 0, 0,
				      0, why, wlen);
		} else if (row) {
			if (!nodes && !*cloud_field(s, "gpu_type") && spur_json_int(row, "gpus", 0))
				nodes = cloud_ctld(json_pack("{s:s}", "type", "nodes"), why, wlen);
			rc = meter_one(db, s, row, spur_json_int(acct, "now", 0), nodes, why, wlen);
		}
		if (rc)
			goto out;
		metered += row != NULL;
	}
	rc = metered;
out:
	json_decref(sessions);
	json_decref(acct);
	json_decref(nodes);
	json_decref(byjob);
	return rc;
}

/* Each of rows' sessions (id, job_id, reason) stopped: its job cancelled,
 * the session stopping with the reason (kept by refresh). 0, or negative
 * with why. */
static int stop_sessions(struct cloud_db *db, const json_t *rows, char *why, size_t wlen)
{
	const json_t *s;
	json_t *r;
	size_t i;
	int rc = 0;

	json_array_foreach(rows, i, s) {
		const char *p[2] = { cloud_field(s, "id"), cloud_field(s, "reason") };

		if (!(r = cloud_ctld(json_pack("{s:s,s:[{s:I}]}", "type", "cancel", "jobs", "job_id",
					       (json_int_t)atoll(cloud_field(s, "job_id"))),
				     why, wlen)))
			return -1;
		json_decref(r);
		spur_info("session %s: stopped: %s", p[0], p[1]);
		/* the reason even where a refresh saw the job end between the
		 * cancel and this (it keeps a budget's or idle reason from then on) */
		if ((rc = cloud_db_query(db,
					 "UPDATE sessions SET state = CASE WHEN state = 'ended' THEN "
					 "state ELSE 'stopping' END, reason = $2 WHERE id = $1::bigint",
					 2, p, NULL, why, wlen)))
			break;
	}
	return rc;
}

/* Organisations with a budget whose credit is spent: each one's live
 * sessions' jobs cancelled, the sessions stopping with the reason. */
int cloud_meter_budgets(struct cloud_db *db, char *why, size_t wlen)
{
	json_t *rows = NULL;
	int rc = cloud_db_query(
		db,
		"SELECT s.id, s.job_id, 'budget: the organisation''s credit is spent' AS reason FROM "
		"sessions s JOIN orgs o ON o.id = s.org_id WHERE o.budgeted AND s.state <> 'ended' AND "
		"s.job_id IS NOT NULL AND s.reason NOT LIKE 'budget:%' AND (SELECT coalesce(sum(amount), "
		"0) FROM credits WHERE org_id = o.id) - (SELECT coalesce(sum(cost), 0) FROM usage WHERE "
		"org_id = o.id) <= 0",
		0, NULL, &rows, why, wlen);

	if (!rc)
		rc = stop_sessions(db, rows, why, wlen);
	json_decref(rows);
	return rc;
}

/* Sessions with an idle limit: those with a terminal open are active now;
 * one that has run (it has usage) without a terminal for its limit, since
 * its last terminal or its start, is stopped. */
int cloud_meter_idle(struct cloud_db *db, char *why, size_t wlen)
{
	long long open[256];
	size_t n = cloud_term_open(open, 256), len = 0;
	char list[256 * 21 + 3] = "{";
	const char *p[1] = { list };
	json_t *rows = NULL;
	int rc;

	for (size_t i = 0; i < n; i++)
		len += (size_t)snprintf(list + 1 + len, sizeof(list) - 1 - len, "%s%lld",
					i ? "," : "", open[i]);
	snprintf(list + 1 + len, sizeof(list) - 1 - len, "}");
	rc = cloud_db_query(db,
			    "UPDATE sessions SET last_active = now() WHERE job_id = ANY($1::bigint[]) "
			    "AND state <> 'ended'",
			    1, p, NULL, why, wlen);
	if (!rc)
		rc = cloud_db_query(
			db,
			"SELECT s.id, s.job_id, 'idle: no terminal for ' || s.idle_limit || ' min' AS "
			"reason FROM sessions s WHERE s.idle_limit IS NOT NULL AND s.state <> 'ended' AND "
			"NOT s.metered_done AND s.reason NOT LIKE 'idle:%' AND NOT (s.job_id = "
			"ANY($1::bigint[])) AND greatest(s.last_active, (SELECT to_timestamp(min(t0)) FROM "
			"usage u WHERE u.session_id = s.id)) < now() - s.idle_limit * interval '1 minute' "
			"AND EXISTS (SELECT 1 FROM usage u WHERE u.session_id = s.id)",
			1, p, &rows, why, wlen);
	if (!rc)
		rc = stop_sessions(db, rows, why, wlen);
	json_decref(rows);
	return rc;
}
