/* SPDX-License-Identifier: Apache-2.0 */
/* sacctmgr show|list: Slurm's columns, widths and order; format=, -n, -p,
 * -P. Each entity's rows are JSON objects of column name -> text. */
#include "client.h"
#include "sacctmgr.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

struct col {
	const char *name; /* header, as Slurm prints it */
	const char *also; /* other words format= takes for it (comma list) */
	int width;
	bool def; /* in the default format */
};

static const struct col account_cols[] = {
	{ "Account", "name", 10, true },
	{ "Descr", "description", 20, true },
	{ "Org", "organization", 20, true },
	{ "ParentName", "parent", 10, false },
};

static const struct col user_cols[] = {
	{ "User", "name", 10, true },
	{ "Def Acct", "defaultaccount,defacct", 10, true },
	{ "Admin", "adminlevel", 9, true },
	{ "Account", "", 10, false },
};

#define LIMIT_COLS(d)                                                                        \
	{ "GrpJobs", "", 7, d }, { "GrpTRES", "", 13, d }, { "GrpSubmit", "grpsubmitjobs", 9, d }, \
	{ "GrpWall", "", 11, d }, { "GrpTRESMins", "", 13, d }, { "MaxJobs", "", 7, d },           \
	{ "MaxTRES", "maxtresperjob", 13, d }, { "MaxTRESPerNode", "", 14, d },                  \
	{ "MaxSubmit", "maxsubmitjobs", 9, d }, { "MaxWall", "", 11, d },                         \
	{ "MaxTRESMins", "", 13, d }

static const struct col assoc_cols[] = {
	{ "Cluster", "", 10, true },
	{ "Account", "", 10, true },
	{ "User", "", 10, true },
	{ "Partition", "", 10, true },
	{ "Share", "fairshare", 9, true },
	{ "Priority", "", 10, true },
	LIMIT_COLS(true),
	{ "QOS", "", 20, true },
	{ "Def QOS", "defaultqos", 9, true },
	{ "GrpTRESRunMin", "", 13, true },
	{ "ParentName", "", 10, false },
};

static const struct col qos_cols[] = {
	{ "Name", "", 10, true },
	{ "Priority", "", 10, true },
	{ "GraceTime", "", 10, true },
	{ "Preempt", "", 10, true },
	{ "PreemptExemptTime", "", 19, true },
	{ "PreemptMode", "", 11, true },
	{ "Flags", "", 40, true },
	{ "UsageThres", "", 10, true },
	{ "UsageFactor", "", 11, true },
	{ "GrpTRES", "", 13, true },
	{ "GrpTRESMins", "", 13, true },
	{ "GrpTRESRunMin", "", 13, true },
	{ "GrpJobs", "", 7, true },
	{ "GrpSubmit", "grpsubmitjobs", 9, true },
	{ "GrpWall", "", 11, true },
	{ "MaxTRES", "maxtresperjob", 13, true },
	{ "MaxTRESPerNode", "", 14, true },
	{ "MaxTRESMins", "", 13, true },
	{ "MaxWall", "", 11, true },
	{ "MaxTRESPU", "maxtresperuser", 13, true },
	{ "MaxJobsPU", "maxjobsperuser", 9, true },
	{ "MaxSubmitPU", "maxsubmitjobsperuser", 11, true },
	{ "MaxTRESPA", "", 13, true },
	{ "MaxJobsPA", "", 9, true },
	{ "MaxSubmitPA", "", 11, true },
	{ "MinTRES", "", 13, true },
};

static const struct col cluster_cols[] = {
	{ "Cluster", "name", 10, true },    { "ControlHost", "", 15, true },
	{ "ControlPort", "", 12, true },    { "RPC", "", 5, true },
	{ "Share", "", 9, true },	    { "GrpJobs", "", 7, true },
	{ "GrpTRES", "", 13, true },	    { "GrpSubmit", "", 9, true },
	{ "MaxJobs", "", 7, true },	    { "MaxTRES", "", 13, true },
	{ "MaxSubmit", "", 9, true },	    { "MaxWall", "", 11, true },
	{ "QOS", "", 20, true },	    { "Def QOS", "", 9, true },
};

json_t *acm_fetch(const char *prog)
{
	struct spur_error err;
	json_t *r = cli_call(json_pack("{s:s}", "type", "assoc_show"), &err);

	if (!r)
		cli_error(prog, "%s", err.msg);
	return r;
}

/* ---------------------------------------------------------------- printing */

struct sel {
	const struct col *c;
	int width;
};

static bool col_is(const struct col *c, const char *word)
{
	char squeezed[64];
	size_t n = 0;

	for (const char *p = c->name; *p && n + 1 < sizeof(squeezed); p++)
		if (*p != ' ')
			squeezed[n++] = *p;
	squeezed[n] = 0;
	return !strcasecmp(c->name, word) || !strcasecmp(squeezed, word) ||
	       spur_jobfmt_in_list(c->also, word);
}

static int pick_cols(const struct acm_opts *o, const struct acm_words *w, const struct col *cols,
		     size_t ncols, struct sel *out, size_t max)
{
	const char *fmt = acm_cond(w, "format,formats");
	size_t n = 0;

	if (!fmt) {
		for (size_t i = 0; i < ncols && n < max; i++)
			if (cols[i].def)
				out[n++] = (struct sel){ &cols[i], cols[i].width };
		return (int)n;
	}
	for (const char *p = fmt; *p && n < max;) {
		size_t l = strcspn(p, ",");
		char word[64], *pct;
		size_t i;

		snprintf(word, sizeof(word), "%.*s", (int)l, p);
		p += l + (p[l] == ',');
		if (!*word)
			continue;
		pct = strchr(word, '%');
		if (pct)
			*pct++ = 0;
		for (i = 0; i < ncols && !col_is(&cols[i], word); i++)
			;
		if (i == ncols) {
			cli_error(o->prog, "Invalid field requested: \"%s\"", word);
			return -1;
		}
		out[n++] = (struct sel){ &cols[i], pct ? atoi(pct) : cols[i].width };
	}
	return (int)n;
}

static void cell(const struct acm_opts *o, const char *text, int width, bool last)
{
	int len = (int)strlen(text);

	if (o->parsable || o->parsable2) {
		fputs(text, stdout);
		if (!last || o->parsable)
			putchar('|');
		return;
	}
	if (width < 0) { /* %-N: left */
		printf("%-*.*s ", -width, -width, text);
		return;
	}
	if (len > width)
		printf("%.*s+ ", width - 1, text);
	else
		printf("%*s ", width, text);
}

static void print_table(const struct acm_opts *o, const struct sel *s, size_t n, json_t *rows)
{
	size_t i;
	json_t *row;

	if (!o->noheader) {
		for (size_t k = 0; k < n; k++)
			cell(o, s[k].c->name, s[k].width, k + 1 == n);
		putchar('\n');
		if (!o->parsable && !o->parsable2) {
			for (size_t k = 0; k < n; k++) {
				int wd = s[k].width < 0 ? -s[k].width : s[k].width;

				for (int d = 0; d < wd; d++)
					putchar('-');
				putchar(' ');
			}
			putchar('\n');
		}
	}
	json_array_foreach(rows, i, row) {
		for (size_t k = 0; k < n; k++)
			cell(o, spur_json_str(row, s[k].c->name, ""), s[k].width, k + 1 == n);
		putchar('\n');
	}
}

/* ---------------------------------------------------------------- rows */

static void put(json_t *row, const char *col, const json_t *rec, const char *key)
{
	json_t *v = json_object_get(rec, key);
	char buf[64];

	if (json_is_string(v))
		json_object_set(row, col, v);
	else if (json_is_integer(v) && json_integer_value(v) >= 0) {
		snprintf(buf, sizeof(buf), "%lld", (long long)json_integer_value(v));
		json_object_set_new(row, col, json_string(buf));
	} else if (json_is_real(v)) {
		snprintf(buf, sizeof(buf), "%f", json_real_value(v));
		json_object_set_new(row, col, json_string(buf));
	}
}

static void put_limits(json_t *row, const json_t *rec)
{
	put(row, "GrpJobs", rec, "GrpJobs");
	put(row, "GrpTRES", rec, "GrpTRES");
	put(row, "GrpTRESMins", rec, "GrpTRESMins");
	put(row, "GrpSubmit", rec, "GrpSubmitJobs");
	put(row, "MaxJobs", rec, "MaxJobs");
	put(row, "MaxTRES", rec, "MaxTRES");
	put(row, "MaxTRESPerNode", rec, "MaxTRESPerNode");
	put(row, "MaxSubmit", rec, "MaxSubmitJobs");
	put(row, "MaxWall", rec, "MaxWall");
	put(row, "QOS", rec, "QOS");
	put(row, "Def QOS", rec, "DefaultQOS");
}

static json_t *assoc_row(const char *cluster, const char *account, const char *user,
			 const json_t *rec, const char *parent)
{
	json_t *row = json_pack("{s:s,s:s,s:s,s:s,s:s}", "Cluster", cluster, "Account", account,
				"User", user, "Share", "1", "ParentName", parent);

	put(row, "Share", rec, "Fairshare");
	put_limits(row, rec);
	if (!*spur_json_str(row, "QOS", ""))
		json_object_set_new(row, "QOS", json_string("normal"));
	return row;
}

static int key_cmp(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Names of the table's records, sorted (NULL-terminated; free the array). */
static const char **sorted_keys(const json_t *t)
{
	const char **v = calloc(json_object_size(t) + 1, sizeof(*v));
	const char *k;
	json_t *rec;
	size_t n = 0;

	if (!v)
		return NULL;
	json_object_foreach((json_t *)t, k, rec)
		v[n++] = k;
	qsort(v, n, sizeof(*v), key_cmp);
	return v;
}

/* Slurm's order: an account's own row, its users, then its sub-accounts. */
static void assoc_walk(const json_t *st, const char *cluster, const char *acct, json_t *rows,
		       const struct acm_words *w)
{
	const json_t *accts = json_object_get(st, "accounts"), *assocs = json_object_get(st, "assocs");
	const char **ak = sorted_keys(accts), **uk = sorted_keys(assocs);
	const char *parent = strcmp(acct, "root") ? spur_json_str(json_object_get(accts, acct),
								  "parent", "root")
						  : "";
	const char *accounts = acm_cond(w, "account,accounts");
	bool acct_ok = !accounts || spur_jobfmt_in_list(accounts, acct);
	const char *users = acm_cond(w, "user,users");

	if (!ak || !uk)
		goto out;
	if (acct_ok && !users)
		json_array_append_new(
			rows, assoc_row(cluster, acct, "",
					strcmp(acct, "root") ? json_object_get(accts, acct)
							     : json_object_get(json_object_get(st, "clusters"),
									       cluster),
					parent));
	if (!strcmp(acct, "root") && acct_ok && (!users || spur_jobfmt_in_list(users, "root")))
		json_array_append_new(rows, assoc_row(cluster, "root", "root", NULL, ""));
	for (size_t i = 0; uk[i]; i++) {
		const json_t *r = json_object_get(assocs, uk[i]);

		if (!strcmp(spur_json_str(r, "account", ""), acct) && acct_ok &&
		    (!users || spur_jobfmt_in_list(users, spur_json_str(r, "user", ""))))
			json_array_append_new(rows, assoc_row(cluster, acct,
							      spur_json_str(r, "user", ""), r, ""));
	}
	for (size_t i = 0; ak[i]; i++)
		if (!strcmp(spur_json_str(json_object_get(accts, ak[i]), "parent", "root"), acct))
			assoc_walk(st, cluster, ak[i], rows, w);
out:
	free(ak);
	free(uk);
}

/* Rows in name order (sacctmgr sorts by name, root among the others). */
static int row_cmp(const void *a, const void *b)
{
	const json_t *x = *(json_t *const *)a, *y = *(json_t *const *)b;

	return strcmp(spur_json_str(x, "Account", spur_json_str(x, "User", "")),
		      spur_json_str(y, "Account", spur_json_str(y, "User", "")));
}

static json_t *sorted_rows(json_t *rows)
{
	size_t n = json_array_size(rows);
	json_t **v = calloc(n + 1, sizeof(*v)), *out = json_array();

	for (size_t i = 0; v && i < n; i++)
		v[i] = json_array_get(rows, i);
	if (v)
		qsort(v, n, sizeof(*v), row_cmp);
	for (size_t i = 0; v && i < n; i++)
		json_array_append(out, v[i]);
	free(v);
	json_decref(rows);
	return out;
}

static json_t *account_rows(const json_t *st, const struct acm_words *w)
{
	const json_t *accts = json_object_get(st, "accounts");
	const char **ak = sorted_keys(accts);
	json_t *rows = json_array();

	if (acm_name_match(w, "name,names,account,accounts", "root"))
		json_array_append_new(rows, json_pack("{s:s,s:s,s:s}", "Account", "root", "Descr",
						      "default root account", "Org", "root"));
	for (size_t i = 0; ak && ak[i]; i++) {
		const json_t *r = json_object_get(accts, ak[i]);
		json_t *row;

		if (!acm_name_match(w, "name,names,account,accounts", ak[i]))
			continue;
		row = json_pack("{s:s,s:s}", "Account", ak[i], "ParentName",
				spur_json_str(r, "parent", "root"));
		put(row, "Descr", r, "Description");
		put(row, "Org", r, "Organization");
		json_array_append_new(rows, row);
	}
	free(ak);
	return sorted_rows(rows);
}

static json_t *user_rows(const json_t *st, const struct acm_words *w)
{
	const json_t *users = json_object_get(st, "users");
	const char **k = sorted_keys(users);
	json_t *rows = json_array();
	bool root_listed = json_object_get(users, "root") != NULL;

	if (!root_listed && acm_name_match(w, "name,names,user,users", "root"))
		json_array_append_new(rows, json_pack("{s:s,s:s,s:s}", "User", "root", "Def Acct",
						      "root", "Admin", "Administrator"));
	for (size_t i = 0; k && k[i]; i++) {
		const json_t *r = json_object_get(users, k[i]);
		json_t *row;

		if (!acm_name_match(w, "name,names,user,users", k[i]))
			continue;
		row = json_pack("{s:s,s:s}", "User", k[i], "Admin",
				spur_json_str(r, "AdminLevel", "None"));
		put(row, "Def Acct", r, "DefaultAccount");
		json_array_append_new(rows, row);
	}
	free(k);
	return sorted_rows(rows);
}

static json_t *qos_row(const char *name, const json_t *r)
{
	json_t *row = json_pack("{s:s,s:s,s:s,s:s,s:s,s:s}", "Name", name, "Priority", "0",
				"GraceTime", "00:00:00", "PreemptMode", "cluster", "UsageFactor",
				"1.000000", "PreemptExemptTime", "");

	put(row, "Priority", r, "Priority");
	put(row, "Preempt", r, "Preempt");
	put(row, "PreemptMode", r, "PreemptMode");
	put(row, "Flags", r, "Flags");
	put(row, "UsageFactor", r, "UsageFactor");
	put(row, "GrpTRES", r, "GrpTRES");
	put(row, "GrpTRESMins", r, "GrpTRESMins");
	put(row, "GrpJobs", r, "GrpJobs");
	put(row, "GrpSubmit", r, "GrpSubmitJobs");
	put(row, "MaxTRES", r, "MaxTRES");
	put(row, "MaxTRESPerNode", r, "MaxTRESPerNode");
	put(row, "MaxWall", r, "MaxWall");
	put(row, "MaxTRESPU", r, "MaxTRESPerUser");
	put(row, "MaxJobsPU", r, "MaxJobs");
	put(row, "MaxSubmitPU", r, "MaxSubmitJobs");
	return row;
}

static json_t *qos_rows(const json_t *st, const struct acm_words *w)
{
	const json_t *qos = json_object_get(st, "qos"), *rec;
	json_t *rows = json_array();
	const char *k;

	/* every cluster has "normal" (the controller makes it), first; the
	 * others in the order they were added, as sacctmgr lists them */
	if (acm_name_match(w, "name,names", "normal"))
		json_array_append_new(rows, qos_row("normal", json_object_get(qos, "normal")));
	json_object_foreach((json_t *)qos, k, rec)
		if (strcmp(k, "normal") && acm_name_match(w, "name,names", k))
			json_array_append_new(rows, qos_row(k, rec));
	return rows;
}

int acm_show(const struct acm_opts *o, const char *ent, const struct acm_words *w)
{
	const struct col *cols;
	size_t ncols;
	struct sel s[64];
	json_t *r, *rows;
	const char *cluster;
	int n;

	if (!strncasecmp(ent, "account", 7))
		cols = account_cols, ncols = sizeof(account_cols) / sizeof(*cols);
	else if (!strncasecmp(ent, "user", 4))
		cols = user_cols, ncols = sizeof(user_cols) / sizeof(*cols);
	else if (!strncasecmp(ent, "assoc", 5))
		cols = assoc_cols, ncols = sizeof(assoc_cols) / sizeof(*cols);
	else if (!strncasecmp(ent, "qos", 3))
		cols = qos_cols, ncols = sizeof(qos_cols) / sizeof(*cols);
	else if (!strncasecmp(ent, "cluster", 7))
		cols = cluster_cols, ncols = sizeof(cluster_cols) / sizeof(*cols);
	else {
		cli_error(o->prog, "show %s: not supported (account, user, assoc, qos, cluster)",
			  ent);
		return 1;
	}
	if ((n = pick_cols(o, w, cols, ncols, s, 64)) < 0 || !(r = acm_fetch(o->prog)))
		return 1;
	cluster = spur_json_str(r, "cluster", "cluster");
	if (cols == account_cols)
		rows = account_rows(json_object_get(r, "state"), w);
	else if (cols == user_cols)
		rows = user_rows(json_object_get(r, "state"), w);
	else if (cols == qos_cols)
		rows = qos_rows(json_object_get(r, "state"), w);
	else if (cols == cluster_cols) {
		const json_t *crec = json_object_get(
			json_object_get(json_object_get(r, "state"), "clusters"), cluster);

		rows = json_pack("[{s:s,s:s,s:s,s:s}]", "Cluster", cluster, "RPC", "9728", "Share",
				 "1", "QOS", "normal");
		put_limits(json_array_get(rows, 0), crec);
		if (!*spur_json_str(json_array_get(rows, 0), "QOS", ""))
			json_object_set_new(json_array_get(rows, 0), "QOS", json_string("normal"));
	}
	else {
		rows = json_array();
		if (acm_name_match(w, "cluster,clusters", cluster))
			assoc_walk(json_object_get(r, "state"), cluster, "root", rows, w);
	}
	print_table(o, s, (size_t)n, rows);
	json_decref(rows);
	json_decref(r);
	return 0;
}
