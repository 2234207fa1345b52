/* SPDX-License-Identifier: Apache-2.0 */
/* #PBS and #BSUB lines as Slurm 22.05's sbatch translates them (its
 * src/sbatch/xlate.c): the same options, the same readings. Where Slurm
 * reads an option and then drops it, Spur refuses it by name. */
#include "pbs.h"

#include <ctype.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int cli_directive_words(const char *s, char **words, int max, char *buf, size_t len)
{
	int n = 0;
	size_t o = 0;

	while (*s && n < max && o + 1 < len) {
		char q = 0;

		while (isspace((unsigned char)*s))
			s++;
		if (!*s || *s == '#')
			break;
		words[n++] = buf + o;
		while (*s && (q || !isspace((unsigned char)*s)) && o + 1 < len) {
			if (!q && (*s == '"' || *s == '\'')) {
				q = *s++;
				continue;
			}
			if (q && *s == q) {
				q = 0;
				s++;
				continue;
			}
			buf[o++] = *s++;
		}
		buf[o++] = '\0';
	}
	return n;
}

/* The sbatch words being made, or the reason it stopped. */
struct out {
	char **words;
	int n, max;
	char *buf;
	size_t len, used;
	char *err;
	size_t errlen;
	bool failed;
};

static void __attribute__((format(printf, 2, 3))) add(struct out *o, const char *fmt, ...)
{
	va_list ap;
	int w;

	if (o->failed)
		return;
	va_start(ap, fmt);
	w = vsnprintf(o->buf + o->used, o->len - o->used, fmt, ap);
	va_end(ap);
	if (w < 0 || (size_t)w >= o->len - o->used || o->n + 1 >= o->max) {
		snprintf(o->err, o->errlen, "too many #PBS/#BSUB options");
		o->failed = true;
		return;
	}
	o->words[o->n++] = o->buf + o->used;
	o->words[o->n] = NULL;
	o->used += (size_t)w + 1;
}

static void __attribute__((format(printf, 2, 3))) refuse(struct out *o, const char *fmt, ...)
{
	va_list ap;

	if (o->failed)
		return;
	va_start(ap, fmt);
	vsnprintf(o->err, o->errlen, fmt, ap);
	va_end(ap);
	o->failed = true;
}

/* The value at *p up to one of the stop characters (or the end), moved
 * past it and its stop; copied into v. */
static const char *value(const char **p, const char *stops, char *v, size_t len)
{
	size_t n = strcspn(*p, stops);

	snprintf(v, len, "%.*s", (int)n, *p);
	*p += n + ((*p)[n] ? 1 : 0);
	return v;
}

/* -l nodes=N[:ppn=P][:gpus=G][+N...][+host...]: nodes, tasks, GPUs, hosts. */
static void pbs_nodes(struct out *o, const char *spec)
{
	int nodes = 0, ppn = 0;
	char hosts[1024] = "", v[256];
	const char *p = spec;

	while (*p) {
		if (!strncmp(p, "gpus=", 5)) {
			p += 5;
			add(o, "--gpus-per-node=%s", value(&p, "+:", v, sizeof(v)));
		} else if (!strncmp(p, "ppn=", 4)) {
			p += 4;
			ppn += atoi(value(&p, "+:", v, sizeof(v)));
		} else if (isdigit((unsigned char)*p)) {
			nodes += atoi(value(&p, "+:", v, sizeof(v)));
		} else if (isalpha((unsigned char)*p)) {
			value(&p, "+:", v, sizeof(v));
			if (strlen(hosts) + strlen(v) + 2 < sizeof(hosts))
				snprintf(hosts + strlen(hosts), sizeof(hosts) - strlen(hosts), "%s%s",
					 *hosts ? "," : "", v);
		} else {
			p++;
		}
	}
	if (nodes)
		add(o, "--nodes=%d", nodes);
	if (ppn)
		add(o, "--ntasks=%d", ppn * (nodes ? nodes : 1));
	if (*hosts)
		add(o, "--nodelist=%s", hosts);
}

/* A size as Torque writes it (1024mb, 2gb): Slurm's (1024m, 2g). */
static const char *size_of(const char **p, char *v, size_t len)
{
	size_t n;

	value(p, ",", v, len);
	n = strlen(v);
	if (n > 1 && toupper((unsigned char)v[n - 1]) == 'B')
		v[n - 1] = '\0';
	return v;
}

/* -l's resource list: "key=value" items apart by ',' (PBS Pro's select,
 * ncpus and mpiprocs also by ':'). */
static void pbs_resources(struct out *o, const char *rl)
{
	static const char *const dropped[] = { "arch=",	 "host=",  "opsys=", "other=",
					       "pmem=",	 "pvmem=", "software=", "vmem=" };
	const char *p = rl;
	char v[512];
	int gpus = 0, ncpus = 0, mpiprocs = 0, pro = 0; /* select 1, ncpus 2, mpiprocs 4 */

	while (*p && !o->failed) {
		size_t k;

		for (k = 0; k < sizeof(dropped) / sizeof(dropped[0]); k++)
			if (!strncmp(p, dropped[k], strlen(dropped[k])))
				break;
		if (k < sizeof(dropped) / sizeof(dropped[0])) {
			refuse(o, "#PBS -l %.*s is not supported by Spur", (int)strlen(dropped[k]) - 1,
			       dropped[k]);
		} else if (!strncasecmp(p, "accelerator=", 12)) {
			p += 12;
			if (!strncasecmp(value(&p, ",:", v, sizeof(v)), "true", 4) && gpus < 1)
				gpus = 1;
		} else if (!strncmp(p, "cput=", 5) || !strncmp(p, "pcput=", 6) ||
			   !strncmp(p, "walltime=", 9)) {
			p = strchr(p, '=') + 1;
			add(o, "--time=%s", value(&p, ",", v, sizeof(v)));
		} else if (!strncmp(p, "file=", 5)) {
			p += 5;
			add(o, "--tmp=%s", size_of(&p, v, sizeof(v)));
		} else if (!strncmp(p, "mem=", 4)) {
			p += 4;
			add(o, "--mem=%s", size_of(&p, v, sizeof(v)));
		} else if (!strncasecmp(p, "mpiprocs=", 9)) {
			p += 9;
			pro |= 4;
			mpiprocs = atoi(value(&p, ",:", v, sizeof(v)));
			add(o, "--ntasks-per-node=%s", v);
		} else if (!strncasecmp(p, "naccelerators=", 14)) {
			p += 14;
			gpus = atoi(value(&p, ",:", v, sizeof(v)));
		} else if (!strncasecmp(p, "ncpus=", 6)) {
			p += 6;
			pro |= 2;
			ncpus = atoi(value(&p, ",:", v, sizeof(v)));
			add(o, "--mincpus=%s", v);
		} else if (!strncmp(p, "nice=", 5)) {
			p += 5;
			add(o, "--nice=%s", value(&p, ",", v, sizeof(v)));
		} else if (!strncmp(p, "nodes=", 6)) {
			p += 6;
			pbs_nodes(o, value(&p, ",", v, sizeof(v)));
		} else if (!strncmp(p, "proc=", 5)) {
			p += 5;
			add(o, "--constraint=%s", value(&p, ",", v, sizeof(v)));
		} else if (!strncasecmp(p, "select=", 7)) {
			p += 7;
			pro |= 1;
			add(o, "--nodes=%s", value(&p, ",:", v, sizeof(v)));
		} else if (*p == ',' || *p == ':' || isspace((unsigned char)*p)) {
			p++;
		} else {
			refuse(o, "#PBS -l %.*s is not supported by Spur", (int)strcspn(p, "=,:"), p);
		}
	}
	/* PBS Pro's select:ncpus:mpiprocs: the CPUs of a node shared by its tasks */
	if (pro == 7 && mpiprocs > 0 && ncpus > mpiprocs)
		add(o, "--cpus-per-task=%d", ncpus / mpiprocs);
	if (gpus > 0)
		add(o, "--gres=gpu:%d", gpus);
}

/* -m abe/n: Slurm's mail types. */
static void pbs_mail(struct out *o, const char *arg)
{
	char t[32] = "";

	if (strpbrk(arg, "nN"))
		snprintf(t, sizeof(t), "NONE");
	else {
		if (strpbrk(arg, "bB"))
			strcat(t, "BEGIN");
		if (strpbrk(arg, "eE"))
			strcat(t, *t ? ",END" : "END");
		if (strpbrk(arg, "aA"))
			strcat(t, *t ? ",FAIL" : "FAIL");
	}
	if (*t)
		add(o, "--mail-type=%s", t);
	else
		refuse(o, "#PBS -m %s: not a PBS mail option (a, b, e or n)", arg);
}

/* -W attribute=value: depend= and umask= are read; others refused. */
static void pbs_attribute(struct out *o, const char *arg)
{
	if (!strncasecmp(arg, "depend=", 7))
		add(o, "--dependency=%s", arg + 7);
	else
		refuse(o, "#PBS -W %.*s is not supported by Spur", (int)strcspn(arg, "="), arg);
}

/* One #PBS option (getopt's opt and optarg). err/e: the -e file, and
 * whether -j joins it into the output (so it is dropped). */
static void pbs_opt(struct out *o, int opt, const char *arg, const char *export, char *efile,
		    size_t elen, bool *join)
{
	static const char *const names[128] = {
		['c'] = "checkpoint", ['C'] = "directive prefix", ['I'] = "interactive",
		['k'] = "keep",	      ['S'] = "shell",		  ['u'] = "user",
		['z'] = "no_std",
	};

	switch (opt) {
	case 'a': add(o, "--begin=%s", arg); break;
	case 'A': add(o, "--account=%s", arg); break;
	case 'e': snprintf(efile, elen, "%s", arg); break;
	case 'o': add(o, "--output=%s", arg); break;
	case 'h': add(o, "--hold"); break;
	case 'J':
	case 't': add(o, "--array=%s", arg); break; /* PBS Pro's -J, Torque's -t */
	case 'j':
		/* oe, eo: stderr joins stdout (Slurm's own default); n: apart */
		if (!strcmp(arg, "oe") || !strcmp(arg, "eo"))
			*join = true;
		else if (strcmp(arg, "n"))
			refuse(o, "#PBS -j %s: not oe, eo or n", arg);
		break;
	case 'l': pbs_resources(o, arg); break;
	case 'm': pbs_mail(o, arg); break;
	case 'M': add(o, "--mail-user=%s", arg); break;
	case 'N': add(o, "--job-name=%s", arg); break;
	case 'p': add(o, "--nice=%s", arg); break;
	case 'q': add(o, "--partition=%s", arg); break;
	case 'r':
		if (!strcmp(arg, "y") || !strcmp(arg, "n"))
			add(o, *arg == 'y' ? "--requeue" : "--no-requeue");
		else
			refuse(o, "#PBS -r %s: not y or n", arg);
		break;
	case 'v': add(o, "--export=%s%s%s", export ? export : "", export ? "," : "", arg); break;
	case 'V': add(o, "--export=ALL"); break;
	case 'W': pbs_attribute(o, arg); break;
	default:
		if (opt > 0 && opt < 128 && names[opt])
			refuse(o, "#PBS -%c (%s) is not supported by Spur", opt, names[opt]);
		else
			refuse(o, "Unrecognized command line parameter %c", opt > 0 ? opt : '?');
	}
}

static void pbs_opts(struct out *o, int argc, char **argv, const char *export)
{
	static const struct option longs[] = {
		{ "start_time", required_argument, 0, 'a' },	{ "account", required_argument, 0, 'A' },
		{ "checkpoint", required_argument, 0, 'c' },	{ "working_dir", required_argument, 0, 'C' },
		{ "error", required_argument, 0, 'e' },		{ "hold", no_argument, 0, 'h' },
		{ "interactive", no_argument, 0, 'I' },		{ "join", optional_argument, 0, 'j' },
		{ "job_array", required_argument, 0, 'J' },	{ "keep", required_argument, 0, 'k' },
		{ "resource_list", required_argument, 0, 'l' }, { "mail_options", required_argument, 0, 'm' },
		{ "mail_user_list", required_argument, 0, 'M' }, { "job_name", required_argument, 0, 'N' },
		{ "out", required_argument, 0, 'o' },		{ "priority", required_argument, 0, 'p' },
		{ "destination", required_argument, 0, 'q' },	{ "rerunable", required_argument, 0, 'r' },
		{ "script_path", required_argument, 0, 'S' },	{ "array", required_argument, 0, 't' },
		{ "running_user", required_argument, 0, 'u' },	{ "variable_list", required_argument, 0, 'v' },
		{ "all_env", no_argument, 0, 'V' },		{ "attributes", required_argument, 0, 'W' },
		{ "no_std", no_argument, 0, 'z' },		{ NULL, 0, 0, 0 },
	};
	char efile[1024] = "";
	bool join = false;
	int opt;

	optind = 0;
	while (!o->failed &&
	       (opt = getopt_long(argc, argv, "+a:A:c:C:e:hIj:J:k:l:m:M:N:o:p:q:r:S:t:u:v:VW:z",
				  longs, NULL)) != -1)
		pbs_opt(o, opt, optarg ? optarg : "", export, efile, sizeof(efile), &join);
	if (!o->failed && optind < argc)
		refuse(o, "Invalid argument: %s", argv[optind]);
	if (*efile && !join)
		add(o, "--error=%s", efile);
}

static void bsub_opts(struct out *o, int argc, char **argv)
{
	static const struct option longs[] = {
		{ "cwd", required_argument, 0, 'c' },	      { "error_file", required_argument, 0, 'e' },
		{ "job_name", required_argument, 0, 'J' },    { "hostname", required_argument, 0, 'm' },
		{ "memory_limit", required_argument, 0, 'M' }, { "output_file", required_argument, 0, 'o' },
		{ "queue_name", required_argument, 0, 'q' },  { "time", required_argument, 0, 'W' },
		{ "exclusive", no_argument, 0, 'x' },	      { NULL, 0, 0, 0 },
	};
	int opt;

	optind = 0;
	while (!o->failed &&
	       (opt = getopt_long(argc, argv, "+c:e:J:m:M:n:o:q:W:x", longs, NULL)) != -1) {
		const char *a = optarg ? optarg : "", *c;

		switch (opt) {
		case 'c': add(o, "--chdir=%s", a); break;
		case 'e': add(o, "--error=%s", a); break;
		case 'J': add(o, "--job-name=%s", a); break;
		case 'o': add(o, "--output=%s", a); break;
		case 'm': { /* LSF's hosts apart by spaces */
			char hosts[1024];

			snprintf(hosts, sizeof(hosts), "%s", a);
			for (char *s = hosts; (s = strchr(s, ' '));)
				*s = ',';
			add(o, "--nodelist=%s", hosts);
			break;
		}
		case 'M': /* LSF's unit: KB */
			add(o, "--mem-per-cpu=%s%s", a,
			    *a && isdigit((unsigned char)a[strlen(a) - 1]) ? "K" : "");
			break;
		case 'n': /* MIN,MAX: the most */
			c = strchr(a, ',') ? strchr(a, ',') + 1 : a;
			if (!*c)
				refuse(o, "#BSUB -n format not correct given: '%s'", a);
			else
				add(o, "--ntasks=%s", c);
			break;
		case 'q': add(o, "--partition=%s", a); break;
		case 'W': add(o, "--time=%s", a); break;
		case 'x': add(o, "--exclusive"); break;
		default: refuse(o, "Unrecognized command line parameter %c", '?');
		}
	}
	if (!o->failed && optind < argc)
		refuse(o, "Invalid argument: %s", argv[optind]);
}

/* The words of every line that starts with magic, after argv[0]: argc,
 * 0 when there is none. */
static int collect(const char *script, const char *magic, char **argv, int max, char *buf,
		   size_t len)
{
	size_t mlen = strlen(magic), used = 0;
	int argc = 1, plain = 0;
	bool found = false;

	argv[0] = "sbatch";
	for (const char *p = script; *p && plain <= 100;) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);
		char line[4096];

		snprintf(line, sizeof(line), "%.*s", (int)n, p);
		p += n + (nl ? 1 : 0);
		if (strncmp(line, magic, mlen)) {
			plain += line[0] != '#';
			continue;
		}
		found = true;
		if (used < len) {
			int k = cli_directive_words(line + mlen, argv + argc, max - argc - 1,
						    buf + used, len - used);

			for (int i = 0; i < k; i++)
				used += strlen(argv[argc + i]) + 1;
			argc += k;
		}
	}
	argv[argc] = NULL;
	/* LSF's -cwd is a long option with one dash */
	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], "-cwd"))
			argv[i] = "-c";
	return found ? argc : 0;
}

int cli_pbs_words(const char *script, const char *export, char **words, int max, char *buf,
		  size_t len, char *err, size_t errlen)
{
	static char text[65536];
	char *argv[512];
	struct out o = { .words = words, .n = 1, .max = max, .buf = buf, .len = len, .err = err,
			 .errlen = errlen };
	int argc, saved_optind = optind, saved_opterr = opterr;

	words[0] = "sbatch";
	words[1] = NULL;
	opterr = 1; /* getopt's own words for a typo, as Slurm's sbatch */
	if ((argc = collect(script, "#BSUB", argv, 512, text, sizeof(text))) > 0)
		bsub_opts(&o, argc, argv);
	else if ((argc = collect(script, "#PBS", argv, 512, text, sizeof(text))) > 0)
		pbs_opts(&o, argc, argv, export);
	optind = saved_optind;
	opterr = saved_opterr;
	return o.failed ? -1 : o.n;
}
