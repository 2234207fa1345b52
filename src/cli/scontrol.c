/* SPDX-License-Identifier: Apache-2.0 */
/* scontrol: the verbs that need no controller (hostlist expansion). */
#include "cli.h"

#include "common/alloc.h"
#include "common/hostlist.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static int show_hostnames(const char *prog, const char *expr)
{
	struct spur_error err;
	struct spur_hostlist *hl;

	if (!expr && !(expr = getenv("SLURM_JOB_NODELIST")) && !(expr = getenv("SPUR_JOB_NODELIST"))) {
		cli_error(prog, "no hostlist given and SLURM_JOB_NODELIST is not set");
		return 1;
	}
	hl = spur_hostlist_from_expr(expr, &err);
	if (!hl) {
		cli_error(prog, "%s", err.msg);
		return 1;
	}
	for (size_t i = 0; i < spur_hostlist_count(hl); i++)
		printf("%s\n", spur_hostlist_nth(hl, i));
	spur_hostlist_destroy(hl);
	return 0;
}

static int show_hostlist(const char *prog, const char *expr, int sorted)
{
	struct spur_error err;
	struct spur_hostlist *hl;
	char *s;

	if (!expr) {
		cli_error(prog, "show hostlist needs a list of host names");
		return 1;
	}
	hl = spur_hostlist_from_expr(expr, &err);
	if (!hl) {
		cli_error(prog, "%s", err.msg);
		return 1;
	}
	if (sorted)
		spur_hostlist_sort(hl);
	s = spur_hostlist_ranged(hl, &err);
	spur_hostlist_destroy(hl);
	if (!s) {
		cli_error(prog, "%s", err.msg);
		return 1;
	}
	printf("%s\n", s);
	spur_free(s);
	return 0;
}

int cli_scontrol_main(const char *prog, int argc, char **argv)
{
	const char *what;

	if (argc < 1 || !strcmp(argv[0], "--help") || !strcmp(argv[0], "-h")) {
		fprintf(argc < 1 ? stderr : stdout,
			"Usage: %s show hostnames [LIST] | show hostlist LIST | "
			"show hostlistsorted LIST\n",
			prog);
		return argc < 1 ? 1 : 0;
	}
	if (strcasecmp(argv[0], "show")) {
		cli_error(prog, "'%s' needs the controller (spurctld), which this build does not "
				"have yet",
			  argv[0]);
		return 1;
	}
	if (argc < 2) {
		cli_error(prog, "show what? (hostnames, hostlist, hostlistsorted)");
		return 1;
	}
	what = argv[1];
	if (argc > 3) {
		cli_error(prog, "too many arguments after 'show %s'", what);
		return 1;
	}
	if (!strcasecmp(what, "hostnames"))
		return show_hostnames(prog, argc > 2 ? argv[2] : NULL);
	if (!strcasecmp(what, "hostlist"))
		return show_hostlist(prog, argc > 2 ? argv[2] : NULL, 0);
	if (!strcasecmp(what, "hostlistsorted"))
		return show_hostlist(prog, argc > 2 ? argv[2] : NULL, 1);
	cli_error(prog, "'show %s' needs the controller (spurctld), which this build does not "
			"have yet",
		  what);
	return 1;
}
