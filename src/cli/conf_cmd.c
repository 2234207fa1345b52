/* SPDX-License-Identifier: Apache-2.0 */
/* `spur conf check|show`: read slurm.conf (+ gres.conf, topology.conf),
 * report problems with file:line, and print what Spur understood. */
#include "cli.h"

#include "common/alloc.h"
#include "common/conf.h"
#include "common/hostlist.h"
#include "common/size.h"
#include "common/timefmt.h"

#include <getopt.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

/* Compress a set of node indexes into a hostlist expression. */
static char *node_expr(const struct spur_conf *c, const size_t *idx, size_t n)
{
	struct spur_hostlist *hl = spur_hostlist_create();
	char *s = NULL;

	if (!hl)
		return NULL;
	for (size_t i = 0; i < n; i++)
		if (spur_hostlist_push(hl, c->nodes[idx ? idx[i] : i].name, NULL))
			goto out;
	s = spur_hostlist_compress(hl, NULL);
out:
	spur_hostlist_destroy(hl);
	return s;
}

static void print_nodes(const struct spur_conf *c)
{
	size_t i = 0;

	while (i < c->nnodes) {
		const struct spur_conf_node *n = &c->nodes[i];
		size_t j = i + 1, *idx;
		char *names, *gres;

		/* a group: consecutive nodes from the same NodeName line */
		while (j < c->nnodes && c->nodes[j].origin.file == n->origin.file &&
		       c->nodes[j].origin.line == n->origin.line && !strcmp(c->nodes[j].state, n->state))
			j++;
		idx = spur_calloc(j - i, sizeof(size_t));
		for (size_t k = 0; idx && k < j - i; k++)
			idx[k] = i + k;
		names = idx ? node_expr(c, idx, j - i) : NULL;
		gres = spur_gres_format(&n->gres);
		printf("  NodeName=%s CPUs=%" PRIu32 " Sockets=%" PRIu32 " CoresPerSocket=%" PRIu32
		       " ThreadsPerCore=%" PRIu32 " RealMemory=%" PRIu64 " Gres=%s Features=%s "
		       "Weight=%" PRIu32 " State=%s%s%s\n",
		       names ? names : n->name, n->cpus, n->sockets, n->cores_per_socket,
		       n->threads_per_core, n->real_memory_mb, gres && *gres ? gres : "(null)",
		       n->features ? n->features : "(null)", n->weight, n->state,
		       n->reason ? " Reason=" : "", n->reason ? n->reason : "");
		spur_free(gres);
		spur_free(names);
		spur_free(idx);
		i = j;
	}
}

static void print_partitions(const struct spur_conf *c)
{
	static const char *const states[] = { "UP", "DOWN", "DRAIN", "INACTIVE" };

	for (size_t i = 0; i < c->nparts; i++) {
		const struct spur_conf_partition *p = &c->parts[i];
		char *nodes = node_expr(c, p->nodes, p->nnodes);
		char maxt[32], deft[32], maxn[16];

		spur_duration_format(p->max_time, maxt, sizeof(maxt));
		spur_duration_format(p->default_time, deft, sizeof(deft));
		if (p->max_nodes == SPUR_CONF_UNLIMITED)
			snprintf(maxn, sizeof(maxn), "UNLIMITED");
		else
			snprintf(maxn, sizeof(maxn), "%" PRIu32, p->max_nodes);
		printf("  PartitionName=%s Nodes=%s Default=%s MaxTime=%s DefaultTime=%s "
		       "MaxNodes=%s PriorityTier=%u State=%s TotalNodes=%zu\n",
		       p->name, nodes && *nodes ? nodes : "(null)", p->is_default ? "YES" : "NO",
		       maxt, p->default_time == SPUR_TIME_INFINITE ? "NONE" : deft, maxn,
		       p->priority_tier, states[p->state], p->nnodes);
		spur_free(nodes);
	}
}

static void print_summary(const struct spur_conf *c)
{
	uint64_t gpus = 0, mem = 0, cpus = 0;
	char memstr[32];

	for (size_t i = 0; i < c->nnodes; i++) {
		gpus += spur_gres_count(&c->nodes[i].gres, "gpu", NULL);
		mem += c->nodes[i].real_memory_mb;
		cpus += c->nodes[i].cpus;
	}
	spur_mem_format_mb(mem, memstr, sizeof(memstr));
	printf("ClusterName=%s SlurmctldPort=%u SlurmdPort=%u\n", c->cluster_name, c->ctld_port,
	       c->agent_port);
	printf("Controllers=");
	for (size_t i = 0; i < c->nctlds; i++)
		printf("%s%s(%s)", i ? "," : "", c->ctlds[i].name, c->ctlds[i].addr);
	printf("\nTotals: %zu nodes, %" PRIu64 " CPUs, %s memory, %" PRIu64 " GPUs, %zu "
	       "partitions, %zu switches\n",
	       c->nnodes, cpus, memstr, gpus, c->nparts, c->nswitches);
	printf("Nodes:\n");
	print_nodes(c);
	printf("Partitions:\n");
	print_partitions(c);
	if (c->ngres) {
		printf("GRES (gres.conf):\n");
		for (size_t i = 0; i < c->ngres; i++) {
			const struct spur_conf_gres *g = &c->gres[i];

			if (!g->name) {
				printf("  AutoDetect=%s\n", g->autodetect);
				continue;
			}
			printf("  NodeName=%s Name=%s Type=%s Count=%" PRIu64 " File=%s%s%s\n",
			       g->nodes_expr ? g->nodes_expr : "(all)", g->name,
			       g->type ? g->type : "(null)", g->count, g->file ? g->file : "(null)",
			       g->links ? " Links=" : "", g->links ? g->links : "");
		}
	}
	if (c->nswitches) {
		printf("Switches (topology.conf):\n");
		for (size_t i = 0; i < c->nswitches; i++) {
			const struct spur_conf_switch *s = &c->switches[i];
			char *nodes = node_expr(c, s->nodes, s->nnodes);

			printf("  SwitchName=%s Parent=%s Switches=%s Nodes=%s\n", s->name,
			       s->parent >= 0 ? c->switches[s->parent].name : "(root)",
			       s->switches_expr ? s->switches_expr : "(null)",
			       nodes && *nodes ? nodes : "(null)");
			spur_free(nodes);
		}
	}
}

int cli_conf_main(const char *prog, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "config", required_argument, NULL, 'f' },
		{ "strict", no_argument, NULL, 's' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *file = NULL, *action;
	bool strict = false, quiet = false;
	struct spur_error err;
	struct spur_conf *c;
	int opt;

	/* argv[0] is the action (check|show); getopt starts after it */
	if (argc < 1 || (strcmp(argv[0], "check") && strcmp(argv[0], "show"))) {
		if (argc >= 1 && (!strcmp(argv[0], "--help") || !strcmp(argv[0], "-h"))) {
			printf("Usage: %s check|show [-f FILE] [--strict] [--quiet] [FILE]\n", prog);
			return 0;
		}
		cli_error(prog, "expected 'check' or 'show' (usage: %s check|show [-f FILE])",
			  prog);
		return 1;
	}
	action = argv[0];
	optind = 1;
	while ((opt = getopt_long(argc, argv, "f:sqh", opts, NULL)) != -1) {
		switch (opt) {
		case 'f':
			file = optarg;
			break;
		case 's':
			strict = true;
			break;
		case 'q':
			quiet = true;
			break;
		case 'h':
			printf("Usage: %s check|show [-f FILE] [--strict] [--quiet] [FILE]\n", prog);
			return 0;
		default:
			return 1;
		}
	}
	if (optind < argc)
		file = argv[optind++];
	if (optind < argc) {
		cli_error(prog, "unexpected argument '%s'", argv[optind]);
		return 1;
	}
	file = cli_conf_path(file);
	if (!file) {
		cli_error(prog, "no configuration file: give -f FILE or set SPUR_CONF or SLURM_CONF");
		return 1;
	}
	c = spur_conf_load(file, 0, &err);
	if (!c) {
		cli_error(prog, "%s", err.msg);
		return 1;
	}
	for (size_t i = 0; i < c->nwarnings; i++)
		fprintf(stderr, "%s: %s: %s\n", prog, strict ? "error" : "warning", c->warnings[i]);
	/* what a site might think is in force: said, an error with --strict */
	for (size_t i = 0; i < c->nunacted; i++)
		fprintf(stderr, "%s: %s: %s\n", prog, strict ? "error" : "warning", c->unacted[i]);
	if (!strcmp(action, "show"))
		print_summary(c);
	else if (!quiet)
		printf("%s: OK: %zu nodes, %zu partitions, %zu gres.conf lines, %zu switches, %zu "
		       "warnings, %zu keys not acted on\n",
		       file, c->nnodes, c->nparts, c->ngres, c->nswitches, c->nwarnings,
		       c->nunacted);
	opt = strict && (c->nwarnings || c->nunacted) ? 1 : 0;
	spur_conf_destroy(c);
	return opt;
}
