/* SPDX-License-Identifier: Apache-2.0 */
/* Accounts, users, associations and QOS: sacctmgr's changes as "assoc" ops
 * in the Raft log (they survive failover and restart with no database),
 * applied to the core's limits and kept in c->assoc:
 *   {"accounts": {NAME: rec}, "users": {NAME: rec},
 *    "assocs": {"USER|ACCOUNT": rec}, "qos": {NAME: rec}}
 * A record holds Slurm's field names (docs/rfc/0003-wire.md). */
#include "ctld.h"
#include "assoc.h"

#include "common/log.h"
#include "common/timefmt.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const char *const kinds[] = { "accounts", "users", "assocs", "qos", "clusters" };

static bool in_list(const char *list, const char *name)
{
	size_t n = strlen(name);

	for (const char *p = list; *p;) {
		size_t l = strcspn(p, ",");

		if (l == n && !strncmp(p, name, n))
			return true;
		p += l + (p[l] == ',');
	}
	return false;
}

static json_t *table(struct ctld *c, const char *kind)
{
	json_t *t;

	if (!c->assoc) {
		c->assoc = json_object();
		for (size_t i = 0; c->assoc && i < sizeof(kinds) / sizeof(kinds[0]); i++)
			json_object_set_new(c->assoc, kinds[i], json_object());
	}
	t = c->assoc ? json_object_get(c->assoc, kind) : NULL;
	return t;
}

static const char *kind_table(const char *kind)
{
	return !strcmp(kind, "account") ? "accounts"
	       : !strcmp(kind, "user")	? "users"
	       : !strcmp(kind, "assoc") ? "assocs"
	       : !strcmp(kind, "qos")	? "qos"
	       : !strcmp(kind, "cluster") ? "clusters"
					: NULL;
}

/* The record's key in its table. */
static void rec_key(const char *kind, const json_t *rec, char *buf, size_t len)
{
	if (!strcmp(kind, "assoc"))
		snprintf(buf, len, "%s|%s", spur_json_str(rec, "user", ""),
			 spur_json_str(rec, "account", ""));
	else
		snprintf(buf, len, "%s", spur_json_str(rec, "name", ""));
}

int ctld_assoc_enforce(const char *value, struct sched_config *cfg, struct spur_error *err)
{
	char buf[256], *save = NULL;

	snprintf(buf, sizeof(buf), "%s", value ? value : "");
	for (char *w = strtok_r(buf, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
		if (!strcasecmp(w, "associations") || !strcasecmp(w, "assoc")) {
			cfg->enforce_assoc = true;
		} else if (!strcasecmp(w, "limits")) {
			cfg->enforce_assoc = cfg->enforce_limits = true;
		} else if (!strcasecmp(w, "qos")) {
			cfg->enforce_assoc = cfg->enforce_qos = true;
		} else if (!strcasecmp(w, "none") || !strcasecmp(w, "0")) {
			cfg->enforce_assoc = cfg->enforce_limits = cfg->enforce_qos = false;
		} else {
			return spur_error_set(err, SPUR_EINVAL,
					      "AccountingStorageEnforce=%s: '%s' is not supported "
					      "(associations, limits, qos)",
					      value, w);
		}
	}
	return 0;
}

/* ---------------------------------------------------------------- records */

static int tres_field(struct ctld *c, const json_t *rec, const char *key, int64_t *tres,
		      struct spur_error *err)
{
	const char *v = spur_json_str(rec, key, "");

	if (sched_tres_parse(c->sched, v, tres, err))
		return spur_error_wrap(err, "%s", key);
	return 0;
}

static int count_field(const json_t *rec, const char *key, int64_t *out, struct spur_error *err)
{
	json_t *v = json_object_get(rec, key);

	if (!v)
		return 0;
	if (!json_is_integer(v) || json_integer_value(v) < -1)
		return spur_error_set(err, SPUR_EINVAL, "%s: a count (or -1) is required", key);
	*out = json_integer_value(v);
	return 0;
}

/* Slurm's limits not carried out: refused by name, never kept. */
static const char *const unsupported[] = {
	"MaxTRESMins", "GrpTRESRunMins", "GrpWall", "MaxTRESMinsPerJob",
	"MaxTRESRunMinsPerUser", "MinTRES", "MaxTRESPerAccount", "MaxJobsPerAccount",
	"MaxSubmitJobsPerAccount", "GraceTime", "MinPrioThreshold", NULL,
};

static int rec_limits(struct ctld *c, const json_t *rec, struct sched_limits *l,
		      struct spur_error *err)
{
	const char *wall = spur_json_str(rec, "MaxWall", "");

	sched_limits_none(l);
	for (size_t i = 0; unsupported[i]; i++)
		if (json_object_get(rec, unsupported[i]))
			return spur_error_set(err, SPUR_EUNSUPP, "%s is not supported by Spur",
					      unsupported[i]);
	if (tres_field(c, rec, "GrpTRES", l->grp_tres, err) ||
	    tres_field(c, rec, "MaxTRES", l->max_tres_per_job, err) ||
	    tres_field(c, rec, "MaxTRESPerNode", l->max_tres_per_node, err) ||
	    tres_field(c, rec, "MaxTRESPerUser", l->max_tres_per_user, err) ||
	    tres_field(c, rec, "GrpTRESMins", l->grp_tres_mins, err) ||
	    count_field(rec, "GrpJobs", &l->grp_jobs, err) ||
	    count_field(rec, "GrpSubmitJobs", &l->grp_submit, err) ||
	    count_field(rec, "MaxJobs", &l->max_jobs, err) ||
	    count_field(rec, "MaxSubmitJobs", &l->max_submit, err))
		return err->code;
	if (*wall && strcmp(wall, "-1") && spur_duration_parse(wall, &l->max_wall, err))
		return spur_error_wrap(err, "MaxWall");
	return 0;
}

static uint32_t shares(const json_t *rec)
{
	json_int_t v = spur_json_int(rec, "Fairshare", 1);

	return v > 0 ? (uint32_t)v : 1;
}

static int set_account(struct ctld *c, const json_t *rec, struct spur_error *err)
{
	struct sched_account_spec sp = { .name = spur_json_str(rec, "name", ""),
					 .parent = spur_json_str(rec, "parent", "root"),
					 .shares = shares(rec) };

	if (rec_limits(c, rec, &sp.lim, err))
		return err->code;
	return sched_set_account(c->sched, &sp, err);
}

/* The cluster's own association (root): its limits for every job. */
static int set_cluster(struct ctld *c, const json_t *rec, struct spur_error *err)
{
	struct sched_limits lim;

	if (strcmp(spur_json_str(rec, "name", ""), c->conf->cluster_name ? c->conf->cluster_name : ""))
		return spur_error_set(err, SPUR_EINVAL, "cluster %s: this is cluster %s",
				      spur_json_str(rec, "name", ""), c->conf->cluster_name);
	if (rec_limits(c, rec, &lim, err))
		return err->code;
	sched_set_root_limits(c->sched, &lim);
	return 0;
}

static int set_assoc(struct ctld *c, const json_t *rec, struct spur_error *err)
{
	struct sched_user_spec sp = { .user = spur_json_str(rec, "user", ""),
				      .account = spur_json_str(rec, "account", ""),
				      .shares = shares(rec) };

	if (rec_limits(c, rec, &sp.lim, err))
		return err->code;
	return sched_set_user_assoc(c->sched, &sp, err);
}

static int set_qos(struct ctld *c, const json_t *rec, bool with_preempt, struct spur_error *err)
{
	const char *mode = spur_json_str(rec, "PreemptMode", "");
	const char *flags = spur_json_str(rec, "Flags", "");
	struct sched_qos_limits_spec sp = {
		.name = spur_json_str(rec, "name", ""),
		.priority = (uint32_t)spur_json_int(rec, "Priority", 0),
		.preempt = with_preempt ? spur_json_str(rec, "Preempt", "") : "",
		.preempt_requeue = !strcasecmp(mode, "requeue"),
		.usage_factor = json_number_value(json_object_get(rec, "UsageFactor")),
		.deny_on_limit = strstr(flags, "DenyOnLimit") != NULL,
	};

	if (*mode && strcasecmp(mode, "requeue") && strcasecmp(mode, "cancel") &&
	    strcasecmp(mode, "cluster") && strcasecmp(mode, "off"))
		return spur_error_set(err, SPUR_EUNSUPP, "PreemptMode=%s is not supported by Spur",
				      mode);
	if (*flags && strcmp(flags, "DenyOnLimit"))
		return spur_error_set(err, SPUR_EUNSUPP,
				      "Flags=%s: only DenyOnLimit is supported by Spur", flags);
	if (rec_limits(c, rec, &sp.lim, err))
		return err->code;
	return sched_set_qos(c->sched, &sp, err);
}

/* A user record: its default account must be one of its associations. */
static int set_user(struct ctld *c, const json_t *rec, struct spur_error *err)
{
	const char *def = spur_json_str(rec, "DefaultAccount", "");

	if (!*spur_json_str(rec, "name", ""))
		return spur_error_set(err, SPUR_EINVAL, "a user needs a name");
	if (*def && !sched_user_assoc_exists(c->sched, spur_json_str(rec, "name", ""), def))
		return spur_error_set(err, SPUR_EINVAL,
				      "user %s has no association with its default account %s",
				      spur_json_str(rec, "name", ""), def);
	return 0;
}

/* Every association of user, removable (no job active): then all go. */
static int del_user(struct ctld *c, const char *user, struct spur_error *err)
{
	json_t *assocs = table(c, "assocs"), *rec;
	const char *key;
	void *tmp;

	json_object_foreach(assocs, key, rec) {
		struct sched_usage u;

		if (!strcmp(spur_json_str(rec, "user", ""), user) &&
		    !sched_usage(c->sched, spur_json_str(rec, "account", ""), user, NULL, &u) &&
		    u.submitted)
			return spur_error_set(err, SPUR_ESTATE,
					      "Job(s) active, cancel job(s) before remove (user %s)",
					      user);
	}
	json_object_foreach_safe(assocs, tmp, key, rec) {
		if (strcmp(spur_json_str(rec, "user", ""), user))
			continue;
		sched_del_user_assoc(c->sched, user, spur_json_str(rec, "account", ""), NULL);
		json_object_del(assocs, key);
	}
	return 0;
}

static int apply_one(struct ctld *c, const char *kind, bool del, const json_t *rec,
		     struct spur_error *err)
{
	if (!del)
		return !strcmp(kind, "account")	  ? set_account(c, rec, err)
		       : !strcmp(kind, "assoc")	  ? set_assoc(c, rec, err)
		       : !strcmp(kind, "qos")	  ? set_qos(c, rec, true, err)
		       : !strcmp(kind, "cluster") ? set_cluster(c, rec, err)
						  : set_user(c, rec, err);
	if (!strcmp(kind, "cluster"))
		return spur_error_set(err, SPUR_EUNSUPP,
				      "a cluster cannot be removed: Spur serves its ClusterName");
	if (!strcmp(kind, "account"))
		return sched_del_account(c->sched, spur_json_str(rec, "name", ""), err);
	if (!strcmp(kind, "assoc"))
		return sched_del_user_assoc(c->sched, spur_json_str(rec, "user", ""),
					    spur_json_str(rec, "account", ""), err);
	if (!strcmp(kind, "qos"))
		return sched_del_qos(c->sched, spur_json_str(rec, "name", ""), err);
	return del_user(c, spur_json_str(rec, "name", ""), err);
}

/* The whole state of a snapshot: QOS (twice: the ones a QOS preempts may
 * come later), accounts parents first, associations, users. */
static int apply_state(struct ctld *c, const json_t *doc, struct spur_error *err)
{
	const json_t *accts = json_object_get(doc, "accounts");
	const char *key;
	json_t *rec;
	size_t left = json_object_size(accts), before;

	ctld_assoc_clear(c);
	json_object_foreach((json_t *)json_object_get(doc, "qos"), key, rec)
		if (set_qos(c, rec, false, err))
			return err->code;
	json_object_foreach((json_t *)json_object_get(doc, "qos"), key, rec)
		if (set_qos(c, rec, true, err))
			return err->code;
	do {
		before = left;
		json_object_foreach((json_t *)accts, key, rec) {
			const char *p = spur_json_str(rec, "parent", "root");

			if (json_object_get(table(c, "accounts"), key) ||
			    (strcmp(p, "root") && !json_object_get(table(c, "accounts"), p)))
				continue;
			if (set_account(c, rec, err))
				return err->code;
			json_object_set(table(c, "accounts"), key, rec);
			left--;
		}
	} while (left && left < before);
	if (left)
		return spur_error_set(err, SPUR_EINVAL, "%zu accounts under no known parent", left);
	json_object_foreach((json_t *)json_object_get(doc, "assocs"), key, rec)
		if (set_assoc(c, rec, err))
			return err->code;
	json_object_foreach((json_t *)json_object_get(doc, "clusters"), key, rec)
		if (set_cluster(c, rec, err))
			return err->code;
	json_object_update(table(c, "clusters"), json_object_get(doc, "clusters"));
	json_object_update(table(c, "assocs"), json_object_get(doc, "assocs"));
	json_object_update(table(c, "users"), json_object_get(doc, "users"));
	json_object_update(table(c, "qos"), json_object_get(doc, "qos"));
	return 0;
}

int ctld_apply_assoc(struct ctld *c, json_t *op, struct spur_error *err)
{
	const char *kind = spur_json_str(op, "kind", "");
	const char *tab = kind_table(kind);
	json_t *rec = json_object_get(op, "rec");
	bool del = !strcmp(spur_json_str(op, "action", ""), "del");
	char key[512];

	if (!strcmp(spur_json_str(op, "op", ""), "assoc_state"))
		return apply_state(c, json_object_get(op, "doc"), err);
	if (!tab || !json_is_object(rec))
		return spur_error_set(err, SPUR_EINVAL, "assoc: unknown kind '%s'", kind);
	if (!table(c, tab))
		return spur_error_set(err, SPUR_ENOMEM, "out of memory");
	if (apply_one(c, kind, del, rec, err))
		return err->code;
	rec_key(kind, rec, key, sizeof(key));
	if (del)
		json_object_del(table(c, tab), key);
	else
		json_object_set(table(c, tab), key, rec);
	spur_info("%s %s %s", del ? "removed" : "set", kind, key);
	return 0;
}

json_t *ctld_assoc_state_op(struct ctld *c)
{
	if (!c->assoc)
		return NULL;
	return json_pack("{s:s,s:O}", "op", "assoc_state", "doc", c->assoc);
}

void ctld_assoc_clear(struct ctld *c)
{
	json_decref(c->assoc);
	c->assoc = NULL;
}

/* key of rec, else of the nearest account up from account (NULL: none). */
static const char *inherited(struct ctld *c, const json_t *rec, const char *account,
			     const char *key)
{
	const char *v = spur_json_str(rec, key, NULL);
	int depth = 0;

	while (!v && account && strcmp(account, "root") && depth++ < 64) {
		const json_t *a = json_object_get(table(c, "accounts"), account);

		v = spur_json_str(a, key, NULL);
		account = a ? spur_json_str(a, "parent", "root") : NULL;
	}
	return v;
}

int ctld_assoc_qos(struct ctld *c, json_t *job, struct spur_error *err)
{
	const char *user = spur_json_str(job, "user", ""), *acct = spur_json_str(job, "account", "");
	char key[512];
	const json_t *rec;
	const char *list, *def, *qos = spur_json_str(job, "qos", "");

	if (!c->assoc)
		return 0;
	snprintf(key, sizeof(key), "%s|%s", user, acct);
	rec = json_object_get(table(c, "assocs"), key);
	list = inherited(c, rec, acct, "QOS");
	def = inherited(c, rec, acct, "DefaultQOS");
	if (!*qos && def && *def) {
		json_object_set_new(job, "qos", json_string(def));
		qos = def;
	}
	if (c->enforce_qos && list && *list && !in_list(list, *qos ? qos : "normal"))
		return spur_error_set(err, SPUR_EINVAL, "Invalid qos specification");
	return 0;
}

const char *ctld_assoc_default_account(const struct ctld *c, const char *user)
{
	json_t *u = c->assoc ? json_object_get(json_object_get(c->assoc, "users"), user) : NULL;
	const char *def = spur_json_str(u, "DefaultAccount", "");

	return *def ? def : NULL;
}

/* ---------------------------------------------------------------- requests */

static json_t *use_json(const struct sched *s, const struct sched_usage *u)
{
	char tres[512];

	sched_tres_format(s, u->tres, tres, sizeof(tres));
	return json_pack("{s:s,s:i,s:i,s:f,s:f}", "tres", tres, "jobs", (int)u->jobs, "submitted",
			 (int)u->submitted, "raw_usage", u->raw_usage, "fairshare", u->fairshare);
}

/* The state, each account's, association's and QOS' use beside it. */
void ctld_handle_assoc_show(struct ctld_conn *cn, json_t *msg)
{
	struct ctld *c = cn->c;
	json_t *use = json_pack("{s:{},s:{},s:{}}", "accounts", "assocs", "qos"), *doc;
	struct sched_usage u;
	const char *key;
	json_t *rec;

	(void)msg;
	doc = json_deep_copy(table(c, "accounts") ? c->assoc : NULL);
	json_object_foreach(table(c, "accounts"), key, rec)
		if (!sched_usage(c->sched, key, NULL, NULL, &u))
			json_object_set_new(json_object_get(use, "accounts"), key,
					    use_json(c->sched, &u));
	json_object_foreach(table(c, "assocs"), key, rec)
		if (!sched_usage(c->sched, spur_json_str(rec, "account", ""),
				 spur_json_str(rec, "user", ""), NULL, &u))
			json_object_set_new(json_object_get(use, "assocs"), key,
					    use_json(c->sched, &u));
	json_object_foreach(table(c, "qos"), key, rec)
		if (!sched_usage(c->sched, NULL, NULL, key, &u))
			json_object_set_new(json_object_get(use, "qos"), key, use_json(c->sched, &u));
	ctld_conn_send(cn, json_pack("{s:s,s:o,s:o,s:s,s:I}", "type", "ok", "state",
				     doc ? doc : json_object(), "use", use, "cluster",
				     c->conf->cluster_name ? c->conf->cluster_name : "cluster",
				     "now", (json_int_t)ctld_now()));
}

/* {changes: [{kind, action, rec}...]}: each committed in turn; the first
 * refused one stops the rest and is the answer. */
void ctld_lower(json_t *o, const char *key)
{
	const char *v = json_string_value(json_object_get(o, key));
	char *low;

	if (!v || !(low = strdup(v)))
		return;
	for (char *p = low; *p; p++)
		*p = (char)tolower((unsigned char)*p);
	json_object_set_new(o, key, json_string(low));
	free(low);
}

/* A change's record with account names lowercase, as Slurm keeps them. */
static json_t *change_rec(const json_t *ch)
{
	json_t *rec = json_deep_copy(json_object_get(ch, "rec"));

	if (!json_is_object(rec))
		return rec;
	if (!strcmp(spur_json_str(ch, "kind", ""), "account"))
		ctld_lower(rec, "name");
	ctld_lower(rec, "account");
	ctld_lower(rec, "parent");
	ctld_lower(rec, "DefaultAccount");
	return rec;
}

void ctld_handle_assoc_change(struct ctld_conn *cn, json_t *msg)
{
	json_t *changes = json_object_get(msg, "changes"), *ch;
	struct spur_error err;
	size_t i, n = json_array_size(changes);

	if (!n) {
		ctld_conn_send(cn, json_pack("{s:s,s:i,s:s}", "type", "error", "code", SPUR_EINVAL,
					     "message", "Nothing new added."));
		return;
	}
	json_array_foreach(changes, i, ch) {
		json_t *op = json_pack("{s:s,s:s,s:s,s:o?,s:I}", "op", "assoc", "kind",
				       spur_json_str(ch, "kind", ""), "action",
				       spur_json_str(ch, "action", "set"), "rec", change_rec(ch),
				       "time", (json_int_t)ctld_now());
		json_t *reply = i + 1 == n ? json_pack("{s:s,s:i}", "type", "ok", "changed", (int)n)
					   : NULL;
		int rc = ctld_commit(cn->c, op, reply ? cn : NULL, reply, &err);

		json_decref(op);
		if (rc) {
			ctld_conn_send(cn, json_pack("{s:s,s:i,s:s,s:i}", "type", "error", "code",
						     rc, "message", err.msg, "done", (int)i));
			ctld_cycle_soon(cn->c);
			return;
		}
	}
	/* a limit raised or lifted may let pending jobs start */
	ctld_cycle_soon(cn->c);
}
