/* SPDX-License-Identifier: Apache-2.0 */
/* sacctmgr: accounts, users, associations and QOS, kept by the controllers
 * in their Raft log (no slurmdbd). add|modify|delete|show|list for
 * account, user, assoc, qos and cluster; dump and load of a cluster file. */
#include "client.h"
#include "sacctmgr.h"

#include "common/timefmt.h"

#include <ctype.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

/* Slurm's words for a setting, and the record's key for it. */
static const struct {
	const char *words; /* comma list, lower case */
	const char *key;
	enum { V_STR, V_COUNT, V_TRES, V_WALL, V_NUM } type;
} keys[] = {
	{ "description,descr", "Description", V_STR },
	{ "organization,org", "Organization", V_STR },
	{ "parent,parentname", "parent", V_STR },
	{ "fairshare,share,shares", "Fairshare", V_COUNT },
	{ "grptres", "GrpTRES", V_TRES },
	{ "maxtres,maxtresperjob,maxtrespj", "MaxTRES", V_TRES },
	{ "maxtrespernode,maxtrespn", "MaxTRESPerNode", V_TRES },
	{ "maxtresperuser,maxtrespu", "MaxTRESPerUser", V_TRES },
	{ "grpjobs", "GrpJobs", V_COUNT },
	{ "grpsubmitjobs,grpsubmit", "GrpSubmitJobs", V_COUNT },
	{ "maxjobs,maxjobsperuser,maxjobspu", "MaxJobs", V_COUNT },
	{ "maxsubmitjobs,maxsubmit,maxsubmitjobsperuser,maxsubmitpu", "MaxSubmitJobs", V_COUNT },
	{ "maxwall,maxwalldurationperjob", "MaxWall", V_WALL },
	{ "priority", "Priority", V_COUNT },
	{ "preempt", "Preempt", V_STR },
	{ "preemptmode", "PreemptMode", V_STR },
	{ "usagefactor", "UsageFactor", V_NUM },
	{ "flags", "Flags", V_STR },
	{ "defaultaccount,defaccount", "DefaultAccount", V_STR },
	{ "adminlevel,admin", "AdminLevel", V_STR },
	{ "qos,qoslevel", "QOS", V_STR },
	{ "defaultqos,defqos", "DefaultQOS", V_STR },
	/* refused by name by the controller */
	{ "grptresmins", "GrpTRESMins", V_TRES },
	{ "maxtresmins,maxtresminsperjob", "MaxTRESMins", V_STR },
	{ "grptresrunmins", "GrpTRESRunMins", V_STR },
	{ "grpwall", "GrpWall", V_STR },
	{ "gracetime", "GraceTime", V_STR },
	{ "mintres,mintresperjob", "MinTRES", V_STR },
};

#define NKEYS (sizeof(keys) / sizeof(keys[0]))

int acm_key(const char *word)
{
	for (size_t k = 0; k < NKEYS; k++)
		if (spur_jobfmt_in_list(keys[k].words, word))
			return (int)k;
	return -1;
}

/* TRES text merged: "a=1,b=2" + "b=3,c=-1" -> "a=1,b=3". */
static char *tres_merge(const char *old, const char *add)
{
	char *out = calloc(1, strlen(old ? old : "") + strlen(add) + 2);
	const char *lists[2] = { old ? old : "", add };

	if (!out)
		return NULL;
	for (int l = 0; l < 2; l++)
		for (const char *p = lists[l]; *p;) {
			size_t len = strcspn(p, ","), kl = strcspn(p, "=");
			char *at = out, *hit = NULL;

			while (*at) { /* drop an earlier entry of this TRES */
				size_t el = strcspn(at, ","), ekl = strcspn(at, "=");

				if (ekl == kl && kl < len && !strncasecmp(at, p, kl)) {
					hit = at;
					memmove(at, at + el + (at[el] == ','), strlen(at + el) + 1);
					break;
				}
				at += el + (at[el] == ',');
			}
			(void)hit;
			if (len > kl + 1 && strncmp(p + kl + 1, "-1", len - kl - 1))
				snprintf(out + strlen(out), len + 2, "%s%.*s",
					 *out && out[strlen(out) - 1] != ',' ? "," : "", (int)len, p);
			p += len + (p[len] == ',');
		}
	if (*out && out[strlen(out) - 1] == ',')
		out[strlen(out) - 1] = 0;
	return out;
}

/* key=value into rec, as the key's type wants it. */
int acm_set(json_t *rec, int k, const char *v, const char *prog)
{
	const char *key = keys[k].key;
	char *end, buf[64];
	long long n;
	int64_t secs;

	switch (keys[k].type) {
	case V_COUNT:
		n = strtoll(v, &end, 10);
		if (!*v || *end || n < -1) {
			cli_error(prog, "%s=%s: a number (or -1) is required", key, v);
			return -1;
		}
		if (n == -1 && strcmp(key, "Fairshare") && strcmp(key, "Priority"))
			json_object_del(rec, key);
		else
			json_object_set_new(rec, key, json_integer(n));
		return 0;
	case V_NUM:
		json_object_set_new(rec, key, json_real(strtod(v, NULL)));
		return 0;
	case V_TRES: {
		char *m = tres_merge(spur_json_str(rec, key, ""), v);

		if (!m)
			return -1;
		if (*m)
			json_object_set_new(rec, key, json_string(m));
		else
			json_object_del(rec, key);
		free(m);
		return 0;
	}
	case V_WALL:
		if (!strcmp(v, "-1")) {
			json_object_del(rec, key);
			return 0;
		}
		if (spur_duration_parse(v, &secs, NULL) || secs < 0) {
			cli_error(prog, "MaxWall=%s: not a time ([DD-]HH:MM:SS or minutes)", v);
			return -1;
		}
		/* as sacctmgr prints a time: [D-]HH:MM:SS */
		if (secs >= 86400)
			snprintf(buf, sizeof(buf), "%lld-%02lld:%02lld:%02lld", (long long)(secs / 86400),
				 (long long)(secs % 86400 / 3600), (long long)(secs % 3600 / 60),
				 (long long)(secs % 60));
		else
			snprintf(buf, sizeof(buf), "%02lld:%02lld:%02lld", (long long)(secs / 3600),
				 (long long)(secs % 3600 / 60), (long long)(secs % 60));
		json_object_set_new(rec, key, json_string(buf));
		return 0;
	default:
		if (*v)
			json_object_set_new(rec, key, json_string(v));
		else
			json_object_del(rec, key);
		return 0;
	}
}

/* ---------------------------------------------------------------- words */

static void words_free(struct acm_words *w)
{
	for (size_t i = 0; i < w->nkv; i++)
		free(w->kv[i].val);
	free(w->kv);
	free(w->names);
	memset(w, 0, sizeof(*w));
}

/* WORD... [where] COND... [set] SETTING...: names, conditions, settings. */
static int words_parse(int argc, char **argv, struct acm_words *w, const char *prog)
{
	bool set = false;

	memset(w, 0, sizeof(*w));
	w->names = calloc((size_t)argc + 1, sizeof(char *));
	w->kv = calloc((size_t)argc + 1, sizeof(*w->kv));
	if (!w->names || !w->kv)
		return -1;
	for (int i = 0; i < argc; i++) {
		const char *a = argv[i], *eq = strchr(a, '=');
		char word[64];

		if (!strcasecmp(a, "where"))
			continue;
		if (!strcasecmp(a, "set")) {
			set = true;
			continue;
		}
		if (!eq) {
			w->names[w->nnames++] = a;
			continue;
		}
		snprintf(word, sizeof(word), "%.*s", (int)(eq - a), a);
		w->kv[w->nkv].set = set;
		w->kv[w->nkv].val = strdup(eq + 1);
		snprintf(w->kv[w->nkv].word, sizeof(w->kv[w->nkv].word), "%s", word);
		if (!w->kv[w->nkv].val)
			return -1;
		w->nkv++;
	}
	(void)prog;
	return 0;
}

/* The value of condition word (one of words, a comma list), or NULL. */
const char *acm_cond(const struct acm_words *w, const char *words)
{
	for (size_t i = 0; i < w->nkv; i++)
		if (!w->kv[i].set && spur_jobfmt_in_list(words, w->kv[i].word))
			return w->kv[i].val;
	return NULL;
}

/* Does name match the names given (bare words, Name=, or the entity's
 * own word: Account=, User=)? Everything matches when none is given. */
bool acm_name_match(const struct acm_words *w, const char *words, const char *name)
{
	const char *v = acm_cond(w, words);
	bool any = false;

	for (size_t i = 0; i < w->nnames; i++) {
		any = true;
		if (spur_jobfmt_in_list(w->names[i], name))
			return true;
	}
	if (v) {
		any = true;
		if (spur_jobfmt_in_list(v, name))
			return true;
	}
	return !any;
}

/* ---------------------------------------------------------------- main */

static void usage(FILE *out)
{
	fprintf(out, "Usage: sacctmgr [-i] [-n] [-p|-P] [-Q] COMMAND ENTITY [SPECS]\n"
		     "  add|modify|delete|show|list  account|user|assoc|qos|cluster\n"
		     "  dump CLUSTER [File=F]   load File=F\n");
}

int cli_sacctmgr_main(const char *prog, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "immediate", no_argument, NULL, 'i' }, { "noheader", no_argument, NULL, 'n' },
		{ "parsable", no_argument, NULL, 'p' },	 { "parsable2", no_argument, NULL, 'P' },
		{ "quiet", no_argument, NULL, 'Q' },	 { "readonly", no_argument, NULL, 'r' },
		{ "verbose", no_argument, NULL, 'v' },	 { "help", no_argument, NULL, 'h' },
		{ "usage", no_argument, NULL, 'u' },	 { "version", no_argument, NULL, 'V' },
		{ "associations", no_argument, NULL, 's' },
		{ "withsubaccounts", no_argument, NULL, 's' },
		{ NULL, 0, NULL, 0 },
	};
	struct acm_opts o = { .prog = prog };
	struct acm_words w;
	char *gargv[256];
	int gargc = cli_getopt_argv(prog, argc, argv, gargv, 256), c, rc;
	const char *cmd, *ent;

	while ((c = getopt_long(gargc, gargv, "+inpPQrvhuVs", longopts, NULL)) != -1) {
		switch (c) {
		case 'i': o.immediate = true; break;
		case 'n': o.noheader = true; break;
		case 'p': o.parsable = true; break;
		case 'P': o.parsable2 = true; break;
		case 'Q': o.quiet = true; break;
		case 'r': o.readonly = true; break;
		case 'v': break;
		case 's': o.with_assoc = true; break;
		case 'V': cli_version(); return 0;
		case 'h':
		case 'u': usage(stdout); return 0;
		default: usage(stderr); return 1;
		}
	}
	if (optind >= gargc) {
		usage(stderr);
		return 1;
	}
	cmd = gargv[optind];
	ent = optind + 1 < gargc ? gargv[optind + 1] : "";
	if (!strcasecmp(cmd, "load"))
		ent = "", optind--;
	if (words_parse(gargc - optind - 2, gargv + optind + 2, &w, prog)) {
		words_free(&w);
		return 1;
	}
	if (!strcasecmp(cmd, "show") || !strcasecmp(cmd, "list"))
		rc = acm_show(&o, ent, &w);
	else if (o.readonly)
		rc = (cli_error(prog, "the -r (readonly) option refuses %s", cmd), 1);
	else if (!strcasecmp(cmd, "add") || !strcasecmp(cmd, "create"))
		rc = acm_add(&o, ent, &w);
	else if (!strcasecmp(cmd, "modify") || !strcasecmp(cmd, "update"))
		rc = acm_modify(&o, ent, &w);
	else if (!strcasecmp(cmd, "delete") || !strcasecmp(cmd, "remove"))
		rc = acm_delete(&o, ent, &w);
	else if (!strcasecmp(cmd, "dump"))
		rc = acm_dump(&o, ent, &w);
	else if (!strcasecmp(cmd, "load"))
		rc = acm_load(&o, &w);
	else {
		fprintf(stderr, "%s: %s is not a valid command (add, modify, delete, show, list, dump, "
				"load); others are not supported\n", prog, cmd);
		rc = 1;
	}
	words_free(&w);
	return rc;
}
