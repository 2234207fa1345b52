/* SPDX-License-Identifier: Apache-2.0 */
/* sacctmgr add|modify|delete, dump and load: each call becomes a list of
 * changes ({kind, action, rec}: whole records, merged here from the
 * controllers' state) sent in one request, committed in order. */
#include "client.h"
#include "sacctmgr.h"

#include "common/timefmt.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static void change(json_t *list, const char *kind, const char *action, json_t *rec)
{
	json_array_append_new(list, json_pack("{s:s,s:s,s:o}", "kind", kind, "action", action,
					      "rec", rec));
}

/* Without -i, ask as sacctmgr asks; true: go on. */
static bool confirm(const struct acm_opts *o)
{
	char line[32];

	if (o->immediate)
		return true;
	printf("Would you like to commit changes? (You have 30 seconds to decide)\n(N/y): ");
	fflush(stdout);
	if (!fgets(line, sizeof(line), stdin) || (line[0] != 'y' && line[0] != 'Y')) {
		printf(" Changes Discarded\n");
		return false;
	}
	return true;
}

static int send_changes(const struct acm_opts *o, json_t *changes)
{
	struct spur_error err;
	json_t *r;

	if (!json_array_size(changes)) {
		json_decref(changes);
		if (!o->quiet)
			printf(" Nothing new added.\n");
		return 1;
	}
	if (!confirm(o)) {
		json_decref(changes);
		return 1;
	}
	r = cli_call(json_pack("{s:s,s:o}", "type", "assoc_change", "changes", changes), &err);
	if (!r) {
		cli_error(o->prog, "%s", err.msg);
		return 1;
	}
	json_decref(r);
	return 0;
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* rec's QOS list (its own, else "normal") with v's names added (op '+'),
 * taken out ('-') or as they are ('='), sorted as sacctmgr shows them. */
static int qos_change(json_t *rec, char op, const char *v)
{
	const char *old = op == '=' ? "" : spur_json_str(rec, "QOS", "normal");
	char buf[2048], *names[128], *save = NULL, out[2048] = "";
	size_t n = 0;

	snprintf(buf, sizeof(buf), "%s,%s", old, op == '-' ? "" : v);
	for (char *t = strtok_r(buf, ",", &save); t && n < 128; t = strtok_r(NULL, ",", &save)) {
		bool dup = false;

		for (size_t i = 0; i < n; i++)
			dup |= !strcmp(names[i], t);
		if (!dup && !(op == '-' && spur_jobfmt_in_list(v, t)))
			names[n++] = t;
	}
	qsort(names, n, sizeof(*names), name_cmp);
	for (size_t i = 0; i < n; i++)
		snprintf(out + strlen(out), sizeof(out) - strlen(out), "%s%s", i ? "," : "", names[i]);
	json_object_set_new(rec, "QOS", json_string(out));
	return 0;
}

/* Settings after set (or all, for add) into rec; words is the setting's
 * class (user: DefaultAccount, AdminLevel; the rest: associations). */
static int apply_settings(const struct acm_opts *o, const struct acm_words *w, json_t *rec,
			  bool all, int only_user)
{
	for (size_t i = 0; i < w->nkv; i++) {
		const char *word = w->kv[i].word;
		int k;
		bool user_key;

		if ((!all && !w->kv[i].set) || spur_jobfmt_in_list("name,names,account,accounts,user,users,"
							     "cluster,clusters,format",
							     word))
			continue;
		if (word[0] && strchr("+-", word[strlen(word) - 1])) {
			/* QOS+=X, QOS-=X: the list grows or shrinks */
			char base[64];

			snprintf(base, sizeof(base), "%.*s", (int)strlen(word) - 1, word);
			if (!spur_jobfmt_in_list("qos,qoslevel", base)) {
				cli_error(o->prog, "%s=: only QOS takes += and -=", word);
				return -1;
			}
			if (only_user != 1)
				qos_change(rec, word[strlen(word) - 1], w->kv[i].val);
			continue;
		}
		if (spur_jobfmt_in_list("qos,qoslevel", word)) {
			if (only_user != 1)
				qos_change(rec, '=', w->kv[i].val);
			continue;
		}
		if ((k = acm_key(word)) < 0) {
			cli_error(o->prog, "Unknown option: %s=%s (not supported)", word,
				  w->kv[i].val);
			return -1;
		}
		user_key = !strcasecmp(word, "defaultaccount") || !strcasecmp(word, "defaccount") ||
			   !strcasecmp(word, "adminlevel") || !strcasecmp(word, "admin");
		if (only_user >= 0 && user_key != (only_user == 1))
			continue;
		if (acm_set(rec, k, w->kv[i].val, o->prog))
			return -1;
	}
	return 0;
}

/* The next name of a comma list into buf: where the rest starts, or NULL
 * at the end. */
static const char *next_name(const char *p, char *buf, size_t len)
{
	size_t l;

	while (p && *p == ',')
		p++;
	if (!p || !*p)
		return NULL;
	l = strcspn(p, ",");
	snprintf(buf, len, "%.*s", (int)l, p);
	return p + l;
}

/* All the names: bare words and Name=. */
static void names_of(const struct acm_words *w, char *out, size_t len)
{
	const char *n = acm_cond(w, "name,names");

	out[0] = 0;
	for (size_t i = 0; i < w->nnames; i++)
		snprintf(out + strlen(out), len - strlen(out), "%s%s", *out ? "," : "", w->names[i]);
	if (n)
		snprintf(out + strlen(out), len - strlen(out), "%s%s", *out ? "," : "", n);
}

/* The settings of rec other than its keys, as "  KEY = VALUE" lines. */
static void say_settings(const json_t *rec, const char *const *skip, int width)
{
	const char *k;
	json_t *v;

	json_object_foreach((json_t *)rec, k, v) {
		bool s = false;

		for (size_t i = 0; skip[i]; i++)
			s |= !strcmp(skip[i], k);
		if (s)
			continue;
		if (json_is_string(v))
			printf("  %-*s = %s\n", width, k, json_string_value(v));
		else if (json_is_integer(v))
			printf("  %-*s = %lld\n", width, k, (long long)json_integer_value(v));
		else if (json_is_real(v))
			printf("  %-*s = %g\n", width, k, json_real_value(v));
	}
}

/* What sacctmgr says it adds, as Slurm words it. */
static void say_added(const json_t *changes, const char *what, const char *cluster)
{
	static const char *const acct_skip[] = { "name", "parent", "Description", "Organization", NULL };
	static const char *const assoc_skip[] = { "user", "account", NULL };
	static const char *const qos_skip[] = { "name", "Priority", NULL };
	const json_t *ch, *first = NULL;
	size_t i;
	bool user = !strcmp(what, "User");

	if (!json_array_size(changes))
		return;
	printf(" Adding %s(s)\n", what);
	json_array_foreach(changes, i, ch) {
		const json_t *rec = json_object_get(ch, "rec");
		const char *kind = spur_json_str(ch, "kind", "");

		if ((user && !strcmp(kind, "user")) || (!user && strcmp(kind, "assoc"))) {
			printf("  %s\n", spur_json_str(rec, "name", ""));
			first = first ? first : rec;
		}
	}
	if (!strcmp(what, "QOS")) {
		printf(" Settings\n  Description    = %s\n", spur_json_str(first, "name", ""));
		if (json_object_get(first, "Priority"))
			printf("  Priority                 = %lld\n",
			       (long long)spur_json_int(first, "Priority", 0));
		say_settings(first, qos_skip, 24);
		return;
	}
	if (!user)
		printf(" Settings\n  Description     = %s\n  Organization    = %s\n Associations\n",
		       spur_json_str(first, "Description", ""), spur_json_str(first, "Organization", ""));
	else
		printf(" Associations =\n");
	json_array_foreach(changes, i, ch) {
		const json_t *rec = json_object_get(ch, "rec");

		if (user && !strcmp(spur_json_str(ch, "kind", ""), "assoc"))
			printf("  U = %-9s A = %-10s C = %-10s\n", spur_json_str(rec, "user", ""),
			       spur_json_str(rec, "account", ""), cluster);
		else if (!user)
			printf("  A = %-10s C = %-10s\n", spur_json_str(rec, "name", ""), cluster);
	}
	if (user) {
		printf(" Non Default Settings\n");
		json_array_foreach(changes, i, ch)
			if (!strcmp(spur_json_str(ch, "kind", ""), "assoc")) {
				say_settings(json_object_get(ch, "rec"), assoc_skip, 13);
				break;
			}
		return;
	}
	printf(" Settings\n  Parent        = %s\n", spur_json_str(first, "parent", "root"));
	say_settings(first, acct_skip, 13);
}

static int add_accounts(const struct acm_opts *o, const struct acm_words *w, const json_t *st,
			const char *cluster)
{
	json_t *changes = json_array();
	char names[4096], name[256];
	const char *parent = acm_cond(w, "parent");

	names_of(w, names, sizeof(names));
	if (!*names) {
		cli_error(o->prog, "No account name given");
		json_decref(changes);
		return 1;
	}
	for (const char *np = names; (np = next_name(np, name, sizeof(name)));) {
		json_t *rec;

		if (json_object_get(json_object_get(st, "accounts"), name)) {
			fprintf(stderr, " Account %s already exists\n", name);
			continue;
		}
		rec = json_pack("{s:s,s:s,s:s,s:s}", "name", name, "parent", parent ? parent : "root",
				"Description", name, "Organization", parent ? parent : name);
		if (apply_settings(o, w, rec, true, 0)) {
			json_decref(rec);
			json_decref(changes);
			return 1;
		}
		change(changes, "account", "set", rec);
	}
	if (!o->quiet)
		say_added(changes, "Account", cluster);
	return send_changes(o, changes);
}

static int add_users(const struct acm_opts *o, const struct acm_words *w, const json_t *st,
		     const char *cluster)
{
	json_t *changes = json_array(), *users = json_object_get(st, "users");
	const char *accts = acm_cond(w, "account,accounts"), *def = acm_cond(w, "defaultaccount");
	char names[4096], name[256], acct[256], key[600];

	names_of(w, names, sizeof(names));
	if (!accts)
		accts = def;
	if (!*names || !accts) {
		cli_error(o->prog, !*names ? "No user name given"
					   : "Need name of account to add user to.");
		json_decref(changes);
		return 1;
	}
	for (const char *np = names; (np = next_name(np, name, sizeof(name)));) {
		json_t *urec = json_deep_copy(json_object_get(users, name));

		for (const char *ap = accts; (ap = next_name(ap, acct, sizeof(acct)));) {
			json_t *rec = json_pack("{s:s,s:s}", "user", name, "account", acct);

			snprintf(key, sizeof(key), "%s|%s", name, acct);
			if (json_object_get(json_object_get(st, "assocs"), key) ||
			    apply_settings(o, w, rec, true, 0)) {
				json_decref(rec);
				continue;
			}
			change(changes, "assoc", "set", rec);
		}
		if (!urec) {
			char first[256];

			snprintf(first, sizeof(first), "%.*s", (int)strcspn(accts, ","), accts);
			urec = json_pack("{s:s,s:s,s:s}", "name", name, "DefaultAccount",
					 def ? def : first, "AdminLevel", "None");
		}
		if (apply_settings(o, w, urec, true, 1)) {
			json_decref(urec);
			json_decref(changes);
			return 1;
		}
		change(changes, "user", "set", urec);
	}
	if (!o->quiet)
		say_added(changes, "User", cluster);
	return send_changes(o, changes);
}

static int add_qos(const struct acm_opts *o, const struct acm_words *w, const json_t *st)
{
	json_t *changes = json_array();
	char names[4096], name[256];

	names_of(w, names, sizeof(names));
	for (const char *np = names; (np = next_name(np, name, sizeof(name)));) {
		json_t *rec = json_pack("{s:s}", "name", name);

		if (json_object_get(json_object_get(st, "qos"), name)) {
			json_decref(rec);
			continue;
		}
		if (apply_settings(o, w, rec, true, 0)) {
			json_decref(rec);
			json_decref(changes);
			return 1;
		}
		change(changes, "qos", "set", rec);
	}
	if (!o->quiet)
		say_added(changes, "QOS", NULL);
	return send_changes(o, changes);
}

/* Spur serves one cluster, its ClusterName: adding it is what Slurm says
 * of a cluster that exists; another is refused. */
static int add_cluster(const struct acm_opts *o, const struct acm_words *w, const char *cluster)
{
	char names[1024], name[256];
	int rc = 0;

	names_of(w, names, sizeof(names));
	for (const char *np = names; (np = next_name(np, name, sizeof(name)));) {
		if (strcmp(name, cluster)) {
			cli_error(o->prog, "add cluster %s: not supported (this controller serves one "
					   "cluster, ClusterName=%s)",
				  name, cluster);
			rc = 1;
		} else if (!o->quiet) {
			printf(" This cluster %s already exists.  Not adding.\n", name);
		}
	}
	return rc;
}

int acm_add(const struct acm_opts *o, const char *ent, const struct acm_words *w)
{
	json_t *r = acm_fetch(o->prog);
	const json_t *st = json_object_get(r, "state");
	int rc;

	if (!r)
		return 1;
	if (!strncasecmp(ent, "account", 7))
		rc = add_accounts(o, w, st, spur_json_str(r, "cluster", ""));
	else if (!strncasecmp(ent, "user", 4))
		rc = add_users(o, w, st, spur_json_str(r, "cluster", ""));
	else if (!strncasecmp(ent, "qos", 3))
		rc = add_qos(o, w, st);
	else if (!strncasecmp(ent, "cluster", 7))
		rc = add_cluster(o, w, spur_json_str(r, "cluster", ""));
	else {
		cli_error(o->prog, "add %s: not supported (account, user, qos, cluster)", ent);
		rc = 1;
	}
	json_decref(r);
	return rc;
}

/* modify/delete: the records of table that match (by their name, or for
 * associations by user and account). */
static int edit(const struct acm_opts *o, const char *ent, const struct acm_words *w, bool del)
{
	json_t *r = acm_fetch(o->prog), *changes = json_array(), *rec, *seen = json_object();
	const json_t *st = json_object_get(r, "state");
	bool user = !strncasecmp(ent, "user", 4), qos = !strncasecmp(ent, "qos", 3);
	bool acct = !strncasecmp(ent, "account", 7);
	const char *tab = user ? "assocs" : qos ? "qos" : "accounts", *key;
	const char *own = user ? "name,names,user,users" : "name,names,account,accounts";
	const char *acct_cond = acm_cond(w, "account,accounts");
	const char *cluster = spur_json_str(r, "cluster", "");

	if (!r || (!user && !qos && !acct)) {
		if (r)
			cli_error(o->prog, "%s %s: not supported (account, user, qos)",
				  del ? "delete" : "modify", ent);
		json_decref(r);
		json_decref(changes);
		json_decref(seen);
		return 1;
	}
	if (!w->nnames && !acm_cond(w, own) && !acm_cond(w, "name,names")) {
		cli_error(o->prog, "No conditions given");
		goto fail;
	}
	if (!o->quiet && del)
		printf(" Deleting %s(s)...\n", user ? "user" : qos ? "QOS" : "account");
	else if (!o->quiet)
		printf(" Modified %s...\n", user ? "user associations" : qos ? "qos" : "account associations");
	json_object_foreach((json_t *)json_object_get(st, tab), key, rec) {
		const char *name = user ? spur_json_str(rec, "user", "") : key;
		json_t *copy;

		if (!acm_name_match(w, qos ? "name,names" : own, name) ||
		    (user && acct_cond &&
		     !spur_jobfmt_in_list(acct_cond, spur_json_str(rec, "account", ""))))
			continue;
		if (user && del && !acm_cond(w, "account,accounts")) {
			/* the user goes, every association with it */
			if (!json_object_get(seen, name)) {
				json_object_set_new(seen, name, json_true());
				if (!o->quiet)
					printf("  %s\n", name);
				change(changes, "user", "del", json_pack("{s:s}", "name", name));
			}
			continue;
		}
		copy = json_deep_copy(rec);
		if (!del && apply_settings(o, w, copy, false, user ? 0 : -1)) {
			json_decref(copy);
			goto fail;
		}
		if (!o->quiet && (del || qos))
			printf("  %s\n", name);
		else if (!o->quiet && user)
			printf("  C = %-10s A = %-20s U = %-9s\n", cluster,
			       spur_json_str(rec, "account", ""), name);
		else if (!o->quiet)
			printf("  C = %-10s A = %s of %s\n", cluster, name,
			       spur_json_str(rec, "parent", "root"));
		change(changes, user ? "assoc" : qos ? "qos" : "account", del ? "del" : "set", copy);
	}
	/* the user records themselves: DefaultAccount, AdminLevel */
	if (user && !del)
		json_object_foreach((json_t *)json_object_get(st, "users"), key, rec) {
			json_t *copy = json_deep_copy(rec);

			if (!acm_name_match(w, own, key) || apply_settings(o, w, copy, false, 1) ||
			    json_equal(copy, rec)) {
				json_decref(copy);
				continue;
			}
			change(changes, "user", "set", copy);
		}
	json_decref(r);
	json_decref(seen);
	return send_changes(o, changes);
fail:
	json_decref(r);
	json_decref(changes);
	json_decref(seen);
	return 1;
}

/* modify cluster NAME set ...: the cluster's own association (root); its
 * record is made at its first change. */
static int edit_cluster(const struct acm_opts *o, const struct acm_words *w, bool del)
{
	json_t *r = acm_fetch(o->prog), *changes = json_array(), *rec;
	const char *cluster = spur_json_str(r, "cluster", "");

	if (!r)
		return 1;
	rec = json_deep_copy(json_object_get(
		json_object_get(json_object_get(r, "state"), "clusters"), cluster));
	if (!rec)
		rec = json_pack("{s:s}", "name", cluster);
	if (!acm_name_match(w, "name,names,cluster,clusters", cluster) ||
	    (!del && apply_settings(o, w, rec, false, 0))) {
		if (!acm_name_match(w, "name,names,cluster,clusters", cluster))
			cli_error(o->prog, "this is cluster %s: no other is served here", cluster);
		json_decref(rec);
		json_decref(changes);
		json_decref(r);
		return 1;
	}
	if (!o->quiet)
		printf(del ? " Deleting clusters...\n  %s\n" : " Modified cluster...\n  %s\n", cluster);
	change(changes, "cluster", del ? "del" : "set", rec);
	json_decref(r);
	return send_changes(o, changes);
}

/* "assoc where user=U account=A": the user's associations (with user=),
 * else the accounts' own. */
static const char *entity(const char *ent, const struct acm_words *w)
{
	if (strncasecmp(ent, "assoc", 5))
		return ent;
	return acm_cond(w, "user,users") ? "user" : "account";
}

int acm_modify(const struct acm_opts *o, const char *ent, const struct acm_words *w)
{
	if (!strncasecmp(ent, "cluster", 7))
		return edit_cluster(o, w, false);
	return edit(o, entity(ent, w), w, false);
}

int acm_delete(const struct acm_opts *o, const char *ent, const struct acm_words *w)
{
	if (!strncasecmp(ent, "cluster", 7))
		return edit_cluster(o, w, true);
	return edit(o, entity(ent, w), w, true);
}

/* ---------------------------------------------------------------- dump, load */

/* A record's settings as a cluster file's ":Key=value" list, with the
 * names Slurm's dump uses (MaxTRESPerJob, MaxWallDurationPerJob in
 * minutes). */
static void dump_settings(FILE *f, const json_t *rec)
{
	static const char *const skip[] = { "name", "user", "account", "parent", NULL };
	const char *k;
	json_t *v;

	json_object_foreach((json_t *)rec, k, v) {
		bool s = false;
		int64_t secs;

		for (size_t i = 0; skip[i]; i++)
			s |= !strcmp(k, skip[i]);
		if (s)
			continue;
		if (!strcmp(k, "MaxWall") && json_is_string(v) &&
		    !spur_duration_parse(json_string_value(v), &secs, NULL))
			fprintf(f, ":MaxWallDurationPerJob=%lld", (long long)(secs / 60));
		else if (!strcmp(k, "MaxTRES") && json_is_string(v))
			fprintf(f, ":MaxTRESPerJob=%s", json_string_value(v));
		else if (!strcmp(k, "GrpTRES") || !strcmp(k, "MaxTRESPerNode") ||
			 !strcmp(k, "GrpTRESMins") || !strcmp(k, "MaxTRESPerUser"))
			fprintf(f, ":%s=%s", k, json_string_value(v));
		else if (json_is_string(v))
			fprintf(f, ":%s='%s'", k, json_string_value(v));
		else if (json_is_integer(v))
			fprintf(f, ":%s=%lld", k, (long long)json_integer_value(v));
		else if (json_is_real(v))
			fprintf(f, ":%s=%g", k, json_real_value(v));
	}
}

static void dump_tree(FILE *f, const json_t *st, const char *parent)
{
	const json_t *accts = json_object_get(st, "accounts"), *assocs = json_object_get(st, "assocs");
	const json_t *users = json_object_get(st, "users");
	const char *k;
	json_t *rec;
	bool any = false;

	json_object_foreach((json_t *)accts, k, rec)
		any |= !strcmp(spur_json_str(rec, "parent", "root"), parent);
	json_object_foreach((json_t *)assocs, k, rec)
		any |= !strcmp(spur_json_str(rec, "account", ""), parent);
	if (!any)
		return;
	fprintf(f, "Parent - '%s'\n", parent);
	json_object_foreach((json_t *)assocs, k, rec) {
		const char *u = spur_json_str(rec, "user", "");
		const json_t *urec = json_object_get(users, u);

		if (strcmp(spur_json_str(rec, "account", ""), parent))
			continue;
		fprintf(f, "User - '%s'", u);
		if (urec) {
			fprintf(f, ":DefaultAccount='%s'", spur_json_str(urec, "DefaultAccount", parent));
			if (strcmp(spur_json_str(urec, "AdminLevel", "None"), "None"))
				fprintf(f, ":AdminLevel='%s'", spur_json_str(urec, "AdminLevel", ""));
		}
		dump_settings(f, rec);
		fputc('\n', f);
	}
	json_object_foreach((json_t *)accts, k, rec)
		if (!strcmp(spur_json_str(rec, "parent", "root"), parent)) {
			fprintf(f, "Account - '%s'", k);
			dump_settings(f, rec);
			fputc('\n', f);
		}
	json_object_foreach((json_t *)accts, k, rec)
		if (!strcmp(spur_json_str(rec, "parent", "root"), parent))
			dump_tree(f, st, k);
}

int acm_dump(const struct acm_opts *o, const char *ent, const struct acm_words *w)
{
	const char *file = acm_cond(w, "file");
	json_t *r = acm_fetch(o->prog);
	FILE *f = stdout;

	if (!r)
		return 1;
	if (*ent && strcmp(ent, spur_json_str(r, "cluster", ""))) {
		cli_error(o->prog, "Cluster %s does not exist (this one is %s)", ent,
			  spur_json_str(r, "cluster", ""));
		json_decref(r);
		return 1;
	}
	if (file && !(f = fopen(file, "w"))) {
		cli_error(o->prog, "%s: %s", file, strerror(errno));
		json_decref(r);
		return 1;
	}
	fprintf(f, "# Spur's sacctmgr dump: a Slurm cluster file (sacctmgr load File=...)\n");
	fprintf(f, "Cluster - '%s':Fairshare=1:QOS='normal'\n", spur_json_str(r, "cluster", ""));
	dump_tree(f, json_object_get(r, "state"), "root");
	if (f != stdout)
		fclose(f);
	if (file && !o->quiet)
		printf(" Wrote %s\n", file);
	json_decref(r);
	return 0;
}

/* Older cluster-file words for what acm_key does not know. */
static const struct {
	const char *word, *key, *tres;
} old_words[] = {
	{ "MaxNodesPerJob", "MaxTRES", "node" }, { "MaxCPUsPerJob", "MaxTRES", "cpu" },
	{ "GrpNodes", "GrpTRES", "node" },	 { "GrpCPUs", "GrpTRES", "cpu" },
	{ "MaxWallDuration", "MaxWall", NULL },
};

/* One "Key=value" of a cluster-file line into rec. */
static int load_setting(const struct acm_opts *o, json_t *rec, char *kv, int line)
{
	char *eq = strchr(kv, '='), *v, tres[128];
	int k;

	if (!eq) {
		cli_error(o->prog, "line %d: '%s' is not Key=value", line, kv);
		return -1;
	}
	*eq = 0;
	v = eq + 1;
	if (*v == '\'' && strlen(v) > 1 && v[strlen(v) - 1] == '\'') {
		v[strlen(v) - 1] = 0;
		v++;
	}
	for (size_t i = 0; i < sizeof(old_words) / sizeof(old_words[0]); i++)
		if (!strcasecmp(kv, old_words[i].word)) {
			if (old_words[i].tres) {
				snprintf(tres, sizeof(tres), "%s=%s", old_words[i].tres, v);
				v = tres;
			}
			kv = (char *)old_words[i].key;
		}
	if (spur_jobfmt_in_list("qos,qoslevel", kv)) { /* '+gold': added to the parent's */
		qos_change(rec, *v == '+' || *v == '-' ? *v : '=', v + (*v == '+' || *v == '-'));
		return 0;
	}
	if ((k = acm_key(kv)) < 0) {
		cli_error(o->prog, "line %d: %s is not supported", line, kv);
		return -1;
	}
	return acm_set(rec, k, v, o->prog);
}

/* "Kind - 'name':K=V:..." into a change (NULL for Cluster/Parent lines). */
static int load_line(const struct acm_opts *o, char *s, int line, char *parent, size_t plen,
		     json_t *changes)
{
	char *dash = strstr(s, " - "), *name, *end, *save = NULL;
	json_t *rec;
	bool user;

	if (!dash)
		return cli_error(o->prog, "line %d: expected 'Kind - 'name''", line), -1;
	*dash = 0;
	name = dash + 3;
	if (*name == '\'')
		name++;
	end = name + strcspn(name, "':");
	if (*end == '\'')
		*end++ = 0;
	else if (*end)
		*end++ = 0;
	if (!strcasecmp(s, "Cluster"))
		return 0;
	if (!strcasecmp(s, "Parent")) {
		snprintf(parent, plen, "%s", name);
		return 0;
	}
	user = !strcasecmp(s, "User");
	if (!user && strcasecmp(s, "Account"))
		return cli_error(o->prog, "line %d: %s lines are not supported", line, s), -1;
	rec = user ? json_pack("{s:s,s:s}", "user", name, "account", parent)
		   : json_pack("{s:s,s:s}", "name", name, "parent", parent);
	for (char *kv = strtok_r(end, ":", &save); kv; kv = strtok_r(NULL, ":", &save))
		if (*kv && load_setting(o, rec, kv, line)) {
			json_decref(rec);
			return -1;
		}
	if (user) {
		json_t *urec = json_pack("{s:s,s:s,s:s}", "name", name, "DefaultAccount",
					 spur_json_str(rec, "DefaultAccount", parent), "AdminLevel",
					 spur_json_str(rec, "AdminLevel", "None"));

		json_object_del(rec, "DefaultAccount");
		json_object_del(rec, "AdminLevel");
		change(changes, "assoc", "set", rec);
		if (json_object_get(rec, "DefaultAccount") == NULL)
			change(changes, "user", "set", urec);
	} else {
		change(changes, "account", "set", rec);
	}
	return 0;
}

/* Users last, and each once: their default account's association first. */
static json_t *users_last(json_t *changes)
{
	json_t *out = json_array(), *seen = json_object(), *ch;
	size_t i;

	json_array_foreach(changes, i, ch)
		if (strcmp(spur_json_str(ch, "kind", ""), "user"))
			json_array_append(out, ch);
	json_array_foreach(changes, i, ch) {
		const json_t *rec = json_object_get(ch, "rec");
		const char *n = spur_json_str(rec, "name", "");

		if (!strcmp(spur_json_str(ch, "kind", ""), "user") && !json_object_get(seen, n) &&
		    strcmp(n, "root")) {
			json_object_set_new(seen, n, json_true());
			json_array_append(out, ch);
		}
	}
	json_decref(seen);
	json_decref(changes);
	return out;
}

int acm_load(const struct acm_opts *o, const struct acm_words *w)
{
	const char *file = acm_cond(w, "file");
	char buf[4096], parent[256] = "root";
	json_t *changes = json_array();
	FILE *f;
	int line = 0;

	if (!file && w->nnames)
		file = w->names[0];
	if (!file || !(f = fopen(file, "r"))) {
		cli_error(o->prog, "load: %s: %s", file ? file : "no File= given",
			  file ? strerror(errno) : "");
		json_decref(changes);
		return 1;
	}
	while (fgets(buf, sizeof(buf), f)) {
		char *s = buf;

		line++;
		s[strcspn(s, "\r\n")] = 0;
		while (*s == ' ' || *s == '\t')
			s++;
		if (!*s || *s == '#')
			continue;
		if (load_line(o, s, line, parent, sizeof(parent), changes)) {
			fclose(f);
			json_decref(changes);
			return 1;
		}
	}
	fclose(f);
	/* the root user's association is the cluster's own */
	for (size_t i = json_array_size(changes); i-- > 0;) {
		const json_t *rec = json_object_get(json_array_get(changes, i), "rec");

		if (!strcmp(spur_json_str(rec, "account", ""), "root") ||
		    !strcmp(spur_json_str(rec, "user", ""), "root"))
			json_array_remove(changes, i);
	}
	if (!o->quiet)
		printf(" Loading %zu records from %s\n", json_array_size(changes), file);
	return send_changes(o, users_last(changes));
}
