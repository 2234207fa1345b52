/* SPDX-License-Identifier: Apache-2.0 */
/* The multi-call CLI: `spur VERB ...`, or a Slurm command name via argv[0]. */
#include "cli.h"
#include "client.h"

#include <errno.h>
#include <getopt.h>
#include <libgen.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* spur cdi, spur image: run by spur-node beside this binary (or on PATH),
 * which carries their libraries (argv: the command's own, after its verb) */
static int node_cmd(const char *prog, int argc, char **argv)
{
	char self[4096], path[4200], *args[260];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	const char *verb = strchr(prog, ' ') ? strchr(prog, ' ') + 1 : prog;

	if (argc > 256) {
		cli_error(prog, "too many arguments");
		return 1;
	}
	args[0] = "spur-node";
	args[1] = (char *)verb;
	for (int i = 0; i < argc; i++)
		args[2 + i] = argv[i];
	args[2 + argc] = NULL;
	if (n > 0) {
		self[n] = '\0';
		snprintf(path, sizeof(path), "%s/spur-node", dirname(self));
		execv(path, args);
	}
	execvp("spur-node", args);
	cli_error(prog, "cannot run spur-node (installed beside spur): %s", strerror(errno));
	return 127;
}

static const struct {
	const char *verb;  /* spur VERB */
	const char *slurm; /* argv[0] alias */
	int (*main)(const char *prog, int argc, char **argv);
	const char *help;
} commands[] = {
	{ "submit", "sbatch", cli_sbatch_main, "submit a batch script (sbatch)" },
	{ "queue", "squeue", cli_squeue_main, "list pending and running jobs (squeue)" },
	{ "cancel", "scancel", cli_scancel_main, "cancel jobs (scancel)" },
	{ "info", "sinfo", cli_sinfo_main, "partitions and nodes (sinfo)" },
	{ "acct", "sacct", cli_sacct_main, "job history from accounting (sacct)" },
	{ "run", "srun", cli_srun_main, "run tasks over a job's nodes (srun)" },
	{ "alloc", "salloc", cli_salloc_main, "get an allocation and run a command in it (salloc)" },
	{ "attach", "sattach", cli_sattach_main, "the output of a running step's tasks (sattach)" },
	{ "acctmgr", "sacctmgr", cli_sacctmgr_main,
	  "accounts, users, associations and QOS (sacctmgr)" },
	{ "share", "sshare", cli_sshare_main, "fair share over the account tree (sshare)" },
	{ "prio", "sprio", cli_sprio_main, "pending jobs' priority factors (sprio)" },
	{ "diag", "sdiag", cli_sdiag_main, "the controller's statistics (sdiag)" },
	{ "report", "sreport", cli_sreport_main, "usage reports from the accounting (sreport)" },
	{ "stat", "sstat", cli_sstat_main, "a running job's CPU and memory use (sstat)" },
	{ "control", "scontrol", cli_scontrol_main,
	  "show job|node|hostnames|hostlist|hostlistsorted (scontrol)" },
	{ "controller", NULL, cli_controller_main,
	  "list|add|remove|lead NAME: the controllers of the Raft cluster" },
	{ "conf", NULL, cli_conf_main, "check|show [-f FILE]: read and validate slurm.conf" },
	{ "cdi", NULL, node_cmd, "generate [-o DIR]|list: CDI specs of this node's GPUs" },
	{ "image", NULL, node_cmd, "import|list|remove: this node's container images" },
};

#define NCOMMANDS (sizeof(commands) / sizeof(commands[0]))

int cli_getopt_argv(const char *name, int argc, char **argv, char **out, int max)
{
	int n = 0;

	out[n++] = (char *)name;
	for (int i = 0; i < argc && n < max - 1; i++)
		out[n++] = argv[i];
	out[n] = NULL;
	optind = 1;
	return n;
}

static void usage(FILE *out)
{
	fprintf(out, "Usage: spur COMMAND [ARGS...]\n\nCommands:\n");
	for (size_t i = 0; i < NCOMMANDS; i++)
		fprintf(out, "  %-10s %s\n", commands[i].verb, commands[i].help);
	fprintf(out, "\nAs sbatch, srun, salloc, squeue, scancel, sinfo, sacct or scontrol, spur runs that command "
		     "through its argv[0] link.\n");
}

int main(int argc, char **argv)
{
	char *copy = strdup(argv[0] ? argv[0] : "spur");
	const char *name = copy ? basename(copy) : "spur";
	int rc = -1;

	for (size_t i = 0; i < NCOMMANDS && rc < 0; i++)
		if (commands[i].slurm && !strcmp(name, commands[i].slurm)) {
			cli_prog = commands[i].slurm;
			if (argc > 1 && (!strcmp(argv[1], "-V") || !strcmp(argv[1], "--version"))) {
				cli_version();
				rc = 0;
				break;
			}
			rc = commands[i].main(commands[i].slurm, argc - 1, argv + 1);
		}
	if (rc < 0 && argc < 2) {
		usage(stderr);
		rc = 1;
	}
	if (rc < 0 && (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V"))) {
		cli_version();
		rc = 0;
	}
	if (rc < 0 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") ||
		       !strcmp(argv[1], "help"))) {
		usage(stdout);
		rc = 0;
	}
	for (size_t i = 0; i < NCOMMANDS && rc < 0; i++) {
		if (!strcmp(argv[1], commands[i].verb)) {
			char prog[32];

			snprintf(prog, sizeof(prog), "spur %s", commands[i].verb);
			cli_prog = commands[i].slurm ? commands[i].slurm : "spur";
			rc = commands[i].main(prog, argc - 2, argv + 2);
		}
	}
	if (rc < 0) {
		cli_error("spur", "unknown command '%s' (try 'spur --help')", argv[1]);
		rc = 1;
	}
	free(copy);
	return rc;
}
