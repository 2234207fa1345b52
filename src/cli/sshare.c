/* SPDX-License-Identifier: Apache-2.0 */
/* sshare: the account tree's shares and decayed usage, as Slurm prints it.
 * The fair-share factor on user rows is the scheduler's own: Fair Tree's
 * rank of the user's association (docs/design.md). */
#include "client.h"
#include "sacctmgr.h"

#include <getopt.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct share_opts {
	bool all, longer, parsable, parsable2, noheader;
	const char *accounts, *users;
};

/* Shares of rec (1 when none set). */
static double shares_of(const json_t *rec)
{
	json_int_t v = spur_json_int(rec, "Fairshare", 1);

	return v > 0 ? (double)v : 1;
}

/* kind: "accounts" or "assocs" (key USER|ACCOUNT) */
static double raw_usage(const json_t *use, const char *kind, const char *key)
{
	return json_real_value(
		json_object_get(json_object_get(json_object_get(use, kind), key), "raw_usage"));
}

static void cell(const struct share_opts *o, const char *s, int width, bool left, bool last)
{
	if (o->parsable || o->parsable2) {
		fputs(s, stdout);
		if (!last || o->parsable)
			putchar('|');
	} else if (left) {
		printf("%-*.*s ", width, width, s);
	} else {
		printf("%*.*s ", width, width, s);
	}
}

struct row {
	char account[64], user[32];
	double raw_shares, norm_shares, raw_usage, norm_usage, eff_usage, fs;
	bool is_user, root;
};

static void print_row(const struct share_opts *o, const struct row *r)
{
	char b[7][32];

	snprintf(b[0], 32, "%.0f", r->raw_shares);
	snprintf(b[1], 32, "%f", r->norm_shares);
	snprintf(b[2], 32, "%.0f", r->raw_usage);
	snprintf(b[3], 32, "%f", r->eff_usage);
	snprintf(b[4], 32, "%f", r->fs);
	snprintf(b[5], 32, "%f", r->norm_usage);
	snprintf(b[6], 32, "%s", r->norm_usage > 0 ? "" : "inf");
	if (r->norm_usage > 0)
		snprintf(b[6], 32, "%f", r->norm_shares / r->norm_usage);
	cell(o, r->account, 20, true, false);
	cell(o, r->user, 10, false, false);
	cell(o, r->root ? "" : b[0], 10, false, false);
	cell(o, r->root ? "" : b[1], 11, false, false);
	cell(o, b[2], 11, false, false);
	if (o->longer)
		cell(o, b[5], 11, false, false);
	cell(o, b[3], 13, false, false);
	cell(o, r->is_user ? b[4] : "", 10, false, !o->longer);
	if (o->longer) {
		cell(o, r->root ? "" : b[6], 10, false, false);
		cell(o, "", 30, false, false);
		cell(o, "", 30, false, true);
	}
	putchar('\n');
}

static void header(const struct share_opts *o)
{
	static const char *const h[] = { "Account",  "User",	     "RawShares", "NormShares",
					 "RawUsage", "NormUsage",    "EffectvUsage", "FairShare",
					 "LevelFS",  "GrpTRESMins", "TRESRunMins" };
	static const int w[] = { 20, 10, 10, 11, 11, 11, 13, 10, 10, 30, 30 };
	size_t n = o->longer ? 11 : 7;

	if (o->noheader)
		return;
	for (size_t i = 0, k = 0; i < 11; i++) {
		if (!o->longer && (i == 5 || i > 7))
			continue;
		cell(o, h[i], w[i], i == 0, ++k == n);
	}
	putchar('\n');
	if (o->parsable || o->parsable2)
		return;
	for (size_t i = 0; i < 11; i++)
		if (o->longer || !(i == 5 || i > 7)) {
			for (int d = 0; d < w[i]; d++)
				putchar('-');
			putchar(' ');
		}
	putchar('\n');
}

struct walk {
	const struct share_opts *o;
	const json_t *accts, *assocs, *use;
	double total;
	const char *me;
};

static void walk(const struct walk *w, const char *acct, int depth, double norm, double parent_use)
{
	double sib = 0, use = strcmp(acct, "root") ? raw_usage(w->use, "accounts", acct) : w->total;
	const char *k;
	json_t *rec;
	struct row r = { 0 };
	bool shown = !w->o->accounts || spur_jobfmt_in_list(w->o->accounts, acct) || !strcmp(acct, "root");

	snprintf(r.account, sizeof(r.account), "%*s%s", depth, "", acct);
	r.raw_shares = shares_of(json_object_get(w->accts, acct));
	r.norm_shares = strcmp(acct, "root") ? norm : 1.0;
	r.raw_usage = use;
	r.norm_usage = w->total > 0 ? use / w->total : 0;
	r.eff_usage = parent_use > 0 ? use / parent_use : strcmp(acct, "root") || use <= 0 ? 0 : 1;
	r.root = !strcmp(acct, "root");
	if (shown && !(w->o->users && !w->o->all))
		print_row(w->o, &r);
	/* the children: users of this account, then sub-accounts */
	json_object_foreach((json_t *)w->assocs, k, rec)
		if (!strcmp(spur_json_str(rec, "account", ""), acct))
			sib += shares_of(rec);
	json_object_foreach((json_t *)w->accts, k, rec)
		if (!strcmp(spur_json_str(rec, "parent", "root"), acct))
			sib += shares_of(rec);
	json_object_foreach((json_t *)w->assocs, k, rec) {
		const char *u = spur_json_str(rec, "user", "");
		struct row ur = { 0 };

		if (strcmp(spur_json_str(rec, "account", ""), acct) || !shown ||
		    (w->o->users ? !spur_jobfmt_in_list(w->o->users, u)
				 : !w->o->all && strcmp(u, w->me)))
			continue;
		snprintf(ur.account, sizeof(ur.account), "%*s%s", depth + 1, "", acct);
		snprintf(ur.user, sizeof(ur.user), "%s", u);
		ur.raw_shares = shares_of(rec);
		ur.norm_shares = sib > 0 ? ur.raw_shares / sib : 0;
		ur.raw_usage = raw_usage(w->use, "assocs", k);
		ur.norm_usage = w->total > 0 ? ur.raw_usage / w->total : 0;
		ur.eff_usage = use > 0 ? ur.raw_usage / use : 0;
		ur.fs = json_real_value(json_object_get(
			json_object_get(json_object_get(w->use, "assocs"), k), "fairshare"));
		ur.is_user = true;
		print_row(w->o, &ur);
	}
	json_object_foreach((json_t *)w->accts, k, rec)
		if (!strcmp(spur_json_str(rec, "parent", "root"), acct))
			walk(w, k, depth + 1, sib > 0 ? shares_of(rec) / sib : 0, use);
}

int cli_sshare_main(const char *prog, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "all", no_argument, NULL, 'a' },	     { "accounts", required_argument, NULL, 'A' },
		{ "long", no_argument, NULL, 'l' },	     { "noheader", no_argument, NULL, 'n' },
		{ "parsable", no_argument, NULL, 'p' },	     { "parsable2", no_argument, NULL, 'P' },
		{ "users", required_argument, NULL, 'u' },   { "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },	     { NULL, 0, NULL, 0 },
	};
	struct share_opts o = { 0 };
	struct walk w = { .o = &o };
	struct passwd *pw = getpwuid(getuid());
	char *gargv[256];
	int gargc = cli_getopt_argv(prog, argc, argv, gargv, 256), c;
	json_t *r, *st;
	const char *k;
	json_t *rec;

	while ((c = getopt_long(gargc, gargv, "aA:lnpPu:hV", longopts, NULL)) != -1) {
		switch (c) {
		case 'a': o.all = true; break;
		case 'A': o.accounts = optarg; break;
		case 'l': o.longer = true; break;
		case 'n': o.noheader = true; break;
		case 'p': o.parsable = true; break;
		case 'P': o.parsable2 = true; break;
		case 'u': o.users = optarg; break;
		case 'V': cli_version(); return 0;
		case 'h': printf("Usage: sshare [-a] [-l] [-n] [-p|-P] [-A ACCOUNTS] [-u USERS]\n"); return 0;
		default:
			fprintf(stderr, "%s: the other sshare options are not supported\n", prog);
			return 1;
		}
	}
	if (optind < gargc) {
		cli_error(prog, "unexpected argument %s", gargv[optind]);
		return 1;
	}
	if (!(r = acm_fetch(prog)))
		return 1;
	st = json_object_get(r, "state");
	w.accts = json_object_get(st, "accounts");
	w.assocs = json_object_get(st, "assocs");
	w.use = json_object_get(r, "use");
	w.me = pw ? pw->pw_name : "";
	json_object_foreach((json_t *)w.accts, k, rec)
		if (!strcmp(spur_json_str(rec, "parent", "root"), "root"))
			w.total += raw_usage(w.use, "accounts", k);
	header(&o);
	walk(&w, "root", 0, 1.0, 0);
	json_decref(r);
	return 0;
}
