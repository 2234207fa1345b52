/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests: slurm.conf / gres.conf / topology.conf loading. */
#include "../lib/testutil.h"

#include "common/conf.h"
#include "common/conf_lex.h"
#include "common/timefmt.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static bool has_unacted(const struct spur_conf *c, const char *fragment)
{
	for (size_t i = 0; i < c->nunacted; i++)
		if (strstr(c->unacted[i], fragment))
			return true;
	return false;
}

static bool has_warning(const struct spur_conf *c, const char *fragment)
{
	for (size_t i = 0; i < c->nwarnings; i++)
		if (strstr(c->warnings[i], fragment))
			return true;
	return false;
}

static const struct spur_conf_node *node(const struct spur_conf *c, const char *name)
{
	long i = spur_conf_node_index(c, name);

	assert_true(i >= 0);
	return &c->nodes[i];
}

/* The exact config real Slurm runs with in ../shared/slurm-golden. */
static void test_golden(void **state)
{
	struct spur_error err;
	struct spur_conf *c = spur_conf_load(SPUR_TEST_DATA "/conf/golden/slurm.conf", 0, &err);
	const struct spur_conf_partition *p;

	(void)state;
	if (!c)
		fail_msg("%s", err.msg);
	assert_string_equal(c->cluster_name, "bench");
	assert_int_equal(c->nctlds, 1);
	assert_string_equal(c->ctlds[0].name, "bench-host");
	assert_string_equal(c->ctlds[0].addr, "127.0.0.1");
	assert_int_equal(c->ctld_port, 16817);
	assert_int_equal(c->agent_port, 17000);
	assert_string_equal(c->spool_dir, "/tmp/slurm-bench/spool/%n");
	assert_int_equal(c->def_mem_per_cpu_mb, 1000);
	assert_int_equal(c->max_array_size, 100001);
	assert_int_equal(c->nnodes, 16);
	assert_string_equal(c->nodes[0].name, "node1");
	assert_int_equal(c->nodes[0].port, 17000);
	assert_int_equal(c->nodes[15].port, 17015);
	assert_string_equal(c->nodes[15].addr, "127.0.0.1");
	assert_string_equal(c->nodes[15].hostname, "bench-host");
	assert_int_equal(c->nodes[3].cpus, 2);
	assert_int_equal(c->nodes[3].sockets, 2);
	assert_int_equal(c->nodes[3].real_memory_mb, 1024);
	assert_int_equal(spur_gres_count(&c->nodes[3].gres, "gpu", "mi300x"), 8);
	assert_int_equal(c->nparts, 3);
	p = spur_conf_default_partition(c);
	assert_string_equal(p->name, "batch");
	assert_int_equal(p->nnodes, 16);
	assert_int_equal(p->max_time, SPUR_TIME_INFINITE);
	p = spur_conf_partition(c, "debug");
	assert_int_equal(p->nnodes, 2);
	assert_int_equal(p->max_time, 30 * 60);
	assert_int_equal(p->max_nodes, 2);
	assert_int_equal(c->ngres, 2);
	assert_int_equal(c->gres[1].count, 8);
	/* everything in the file is a key Slurm knows: no warnings */
	for (size_t i = 0; i < c->nwarnings; i++)
		fail_msg("unexpected warning: %s", c->warnings[i]);
	/* ... but the keys Spur takes without acting on are listed, except
	 * those that ask for nothing (TaskPlugin=task/none) */
	assert_true(has_unacted(c, "AuthType=auth/munge: accepted but not acted on"));
	assert_false(has_unacted(c, "DefMemPerCPU")); /* acted on: src/ctld/jobdefs.c */
	assert_int_equal(c->def_mem_per_cpu_mb, 1000);
	assert_false(has_unacted(c, "TaskPlugin"));
	assert_false(has_unacted(c, "ClusterName"));
	spur_conf_destroy(c);
}

/* Spur's own keys in spur.conf beside slurm.conf; only those there. */
static void test_spur_conf(void **state)
{
	struct spur_error err;
	struct spur_conf *c = spur_conf_load(SPUR_TEST_DATA "/conf/split/slurm.conf", 0, &err);

	(void)state;
	if (!c)
		fail_msg("%s", err.msg);
	assert_int_equal(c->rest_port, 6999);
	assert_string_equal(c->gpu_backend, "fake");
	for (size_t i = 0; i < c->nwarnings; i++)
		fail_msg("unexpected warning: %s", c->warnings[i]);
	spur_conf_destroy(c);
	c = spur_conf_load(SPUR_TEST_DATA "/conf/split-bad/slurm.conf", 0, &err);
	assert_null(c);
	assert_non_null(strstr(err.msg, "spur.conf:2: MinJobAge: only Spur's own keys"));
}

static void test_site(void **state)
{
	struct spur_error err;
	struct spur_conf *c = spur_conf_load(SPUR_TEST_DATA "/conf/site/slurm.conf", 0, &err);
	const struct spur_conf_node *n;
	const struct spur_conf_partition *p;

	(void)state;
	if (!c)
		fail_msg("%s", err.msg);
	assert_int_equal(c->nctlds, 3);
	assert_string_equal(c->ctlds[1].addr, "10.0.0.2");
	assert_string_equal(c->ctlds[2].addr, "ctl3");
	assert_int_equal(c->ctld_port, 6817);
	assert_int_equal(c->ctld_debug, SPUR_LOG_DEBUG);
	assert_int_equal(c->priority_weight_job_size, 100);
	assert_int_equal(c->priority_weight_fairshare, 10000);
	assert_int_equal(c->priority_decay_half_life, 14 * 86400);
	assert_int_equal(c->def_mem_per_cpu_mb, 2048);
	assert_int_equal(c->rest_port, 6830);
	assert_string_equal(c->gpu_backend, "fake");
	/* read from slurm.conf still, with a word on where they belong */
	assert_true(has_warning(c, "SpurRestPort belongs in spur.conf"));
	assert_true(has_warning(c, "slurm.conf:15: unknown key 'SomeTypoKey' ignored"));
	assert_false(has_warning(c, "MpiDefault"));
	assert_int_equal(c->nnodes, 8);
	n = node(c, "mi03");
	assert_int_equal(n->cpus, 192);
	assert_int_equal(n->weight, 10);
	assert_string_equal(n->addr, "10.1.0.3");
	assert_string_equal(n->features, "mi300x,xgmi");
	assert_non_null(strstr(n->origin.file, "conf.d/nodes.conf"));
	assert_int_equal(n->origin.line, 2);
	n = node(c, "h2");
	assert_int_equal(n->cpus, 96);
	assert_int_equal(n->port, 7002);
	assert_int_equal(spur_gres_count(&n->gres, "shard", NULL), 64);
	assert_string_equal(n->state, "UNKNOWN");
	n = node(c, "h4");
	assert_string_equal(n->state, "DRAIN");
	assert_string_equal(n->reason, "bad #fan");
	p = spur_conf_default_partition(c);
	assert_string_equal(p->name, "gpu");
	assert_int_equal(p->nnodes, 8);
	assert_int_equal(p->priority_tier, 10);
	assert_int_equal(p->max_time, 86400);
	p = spur_conf_partition(c, "debug");
	assert_int_equal(p->default_time, 600);
	assert_int_equal(p->max_time, 1800);
	assert_string_equal(p->allow_accounts, "ml, hpc");
	assert_int_equal(p->origin.line, 19);
	p = spur_conf_partition(c, "all");
	assert_true(p->hidden);
	assert_int_equal(p->max_time, SPUR_TIME_INFINITE);
	assert_int_equal(c->ngres, 4);
	assert_string_equal(c->gres[0].autodetect, "off");
	assert_int_equal(c->gres[1].count, 8);
	assert_string_equal(c->gres[2].links, "-1,18,18,18,18,18,18,18");
	assert_int_equal(c->nswitches, 3);
	assert_int_equal(c->switches[0].nnodes, 4);
	assert_int_equal(c->switches[0].link_speed, 400);
	assert_int_equal(c->switches[0].parent, 2);
	assert_int_equal(c->switches[2].parent, -1);
	assert_int_equal(c->switches[2].nchildren, 2);
	spur_conf_destroy(c);
}

static void test_default(void **state)
{
	struct spur_conf *c = spur_conf_load_text("slurm.conf", "", NULL, NULL, 0, NULL);

	(void)state;
	assert_non_null(c);
	assert_string_equal(c->cluster_name, "spur");
	assert_int_equal(c->ctld_port, 6817);
	assert_int_equal(c->nparts, 1);
	assert_string_equal(c->parts[0].name, "batch");
	spur_conf_destroy(c);
	c = spur_conf_load_text("s", "NodeName=n[1-3] CPUs=4", NULL, NULL, 0, NULL);
	assert_int_equal(c->parts[0].nnodes, 3);
	spur_conf_destroy(c);
}

/* Each bad input names the file, the line and the reason. */
static void test_errors(void **state)
{
	const struct {
		const char *slurm, *gres, *topo, *expect;
	} cases[] = {
		{ "NodeName=n[1-2] CPUs=abc", NULL, NULL,
		  "slurm.conf:1: CPUs=abc: expected a positive number" },
		{ "\n\nNodeName=n[1-", NULL, NULL, "slurm.conf:3: NodeName=n[1-: hostlist" },
		{ "NodeName=n1\nNodeName=n1", NULL, NULL,
		  "slurm.conf:2: node n1 is defined twice (first at slurm.conf:1)" },
		{ "NodeName=n1 Gres=gpu:", NULL, NULL, "slurm.conf:1: Gres=gpu:: invalid GRES" },
		{ "NodeName=n1 State=SLEEPY", NULL, NULL, "slurm.conf:1: State=SLEEPY: expected" },
		{ "NodeName=n[1-3] NodeAddr=a[1-2]", NULL, NULL,
		  "NodeAddr=a[1-2]: expands to 2 names for 3 nodes" },
		{ "NodeName=n1 Port=99999", NULL, NULL, "Port=99999: expected a port number" },
		{ "NodeName=n1\nPartitionName=p Nodes=n[1-2]", NULL, NULL,
		  "slurm.conf:2: Nodes=n[1-2]: node 'n2' is not defined" },
		{ "PartitionName=p MaxTime=forever", NULL, NULL,
		  "slurm.conf:1: MaxTime=forever: invalid time 'forever'" },
		{ "PartitionName=p\nPartitionName=p", NULL, NULL, "partition p is defined twice" },
		{ "PartitionName=p State=OPEN", NULL, NULL, "State=OPEN: expected UP" },
		{ "PartitionName=p Default=maybe", NULL, NULL, "Default=maybe: expected YES or NO" },
		{ "SlurmctldPort=http", NULL, NULL, "SlurmctldPort=http: expected a port number" },
		{ "SlurmctldDebug=loud", NULL, NULL, "SlurmctldDebug=loud: invalid log level" },
		{ "DefMemPerCPU=lots", NULL, NULL, "DefMemPerCPU=lots: invalid memory size" },
		{ "MaxJobCount=-5", NULL, NULL, "MaxJobCount=-5: expected a whole number" },
		{ "PriorityFavorSmall=perhaps", NULL, NULL, "expected YES or NO" },
		{ "SlurmctldHost=(1.2.3.4)", NULL, NULL, "expected NAME or NAME(ADDRESS)" },
		{ "SlurmctldHost=a(1.2.3.4:0)", NULL, NULL, "NAME(ADDRESS:PORT)" },
		{ "SlurmctldHost=a(1.2.3.4:http)", NULL, NULL, "NAME(ADDRESS:PORT)" },
		{ "SlurmctldHost=a(:6817)", NULL, NULL, "NAME(ADDRESS:PORT)" },
		{ "ClusterName", NULL, NULL, "slurm.conf:1: expected Key=Value, found 'ClusterName'" },
		{ "ClusterName=\"abc", NULL, NULL, "unterminated quote" },
		{ "Include x.conf", NULL, NULL, "slurm.conf:1: Include is not allowed here" },
		{ "DownNodes=zz State=DOWN", NULL, NULL, "node 'zz' is not defined" },
		{ "NodeName=n1\nDownNodes=n1 State=HAPPY", NULL, NULL, "State=HAPPY: expected DOWN" },
		{ "NodeSet=s Color=red", NULL, NULL, "NodeSet: unknown key 'Color'" },
		{ "", "Type=x", NULL, "gres.conf:1: gres.conf line needs Name=" },
		{ "", "Name=gpu File=/dev/nvidia[0-3] Count=2", NULL,
		  "gres.conf:1: File=/dev/nvidia[0-3]: names 4 files but Count=2" },
		{ "", "Name=gpu:x", NULL, "Name=gpu:x: not a valid GRES name" },
		{ "", "Name=gpu Count=many", NULL, "Count=many: invalid count" },
		{ "", NULL, "SwitchName=s1", "topology.conf:1: switch s1 needs Switches= or Nodes=" },
		{ "", NULL, "SwitchName=s1 Switches=s2", "child switch 's2' is not defined" },
		{ "", NULL, "SwitchName=s1 Switches=s2\nSwitchName=s2 Switches=s1",
		  "is part of a loop" },
		{ "", NULL, "SwitchName=s1 Nodes=a\nSwitchName=s1 Nodes=b", "switch defined twice" },
		{ "", NULL, "SwitchName=s1 Nodes=a Speed=4", "unknown key 'Speed'" },
		{ "", NULL, "Nodes=a", "topology.conf lines start with SwitchName=" },
		{ "", NULL, "SwitchName=a Nodes=x\nSwitchName=b Nodes=y\nSwitchName=c Switches=a,b\n"
			    "SwitchName=d Switches=a",
		  "switch 'a' has more than one parent" },
	};
	struct spur_error err;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct spur_conf *c = spur_conf_load_text("slurm.conf", cases[i].slurm,
							  cases[i].gres, cases[i].topo,
							  SPUR_CONF_LOAD_NO_INCLUDE, &err);

		if (c) {
			spur_conf_destroy(c);
			fail_msg("case %zu accepted", i);
		}
		if (!strstr(err.msg, cases[i].expect))
			fail_msg("case %zu: message '%s' lacks '%s'", i, err.msg, cases[i].expect);
	}
}

/* Several controllers on one host: NAME(ADDRESS:PORT). */
static void test_ctld_ports(void **state)
{
	struct spur_conf *c = spur_conf_load_text(
		"slurm.conf",
		"SlurmctldHost=c1(127.0.0.1:7001)\nSlurmctldHost=c2(127.0.0.1)\n"
		"SlurmctldHost=c3(fe80::1)\nSlurmctldPort=7100\n",
		NULL, NULL, 0, NULL);

	(void)state;
	assert_non_null(c);
	assert_int_equal(c->nctlds, 3);
	assert_string_equal(c->ctlds[0].addr, "127.0.0.1");
	assert_int_equal(c->ctlds[0].port, 7001);
	assert_int_equal(c->ctlds[1].port, 0);
	assert_string_equal(c->ctlds[2].addr, "fe80::1");
	assert_int_equal(c->ctlds[2].port, 0);
	assert_int_equal(c->ctld_port, 7100);
	assert_int_equal(spur_conf_raft_port(c, 0), 7005);
	assert_int_equal(spur_conf_raft_port(c, 1), 7104);
	{
		struct spur_hostport hp[4];

		assert_int_equal(spur_conf_ctld_addrs(c, hp, 4), 3);
		assert_string_equal(hp[0].host, "127.0.0.1");
		assert_int_equal(hp[0].port, 7001);
		assert_int_equal(hp[1].port, 7100);
		assert_int_equal(spur_conf_ctld_addrs(c, hp, 2), 2);
		assert_int_equal(spur_hostports_parse("a:1,b,c:65535", 99, hp, 4), 3);
		assert_string_equal(hp[1].host, "b");
		assert_int_equal(hp[1].port, 99);
		assert_int_equal(hp[2].port, 65535);
		assert_int_equal(spur_hostports_parse("a:1,b:2,c:3", 99, hp, 2), 2);
		assert_int_equal(spur_hostports_parse("a:0", 99, hp, 4), -1);
		assert_int_equal(spur_hostports_parse("a:12x", 99, hp, 4), -1);
		assert_int_equal(spur_hostports_parse(":5", 99, hp, 4), -1);
	}
	spur_conf_destroy(c);
}

static void test_warnings(void **state)
{
	struct spur_conf *c = spur_conf_load_text(
		"slurm.conf",
		"NodeName=n[1-2] Gres=gpu:a100:4 Frobnicate=1\nPartitionName=p Nodes=n1 Colour=x\n"
		"PartitionName=q Nodes=n2 Default=YES\nPartitionName=r Nodes=n2 Default=YES\n",
		"NodeName=n[1-2] Name=gpu Type=a100 File=/dev/nvidia[0-1]\nBogus=1 Name=x",
		"SwitchName=s1 Nodes=n[1-3]", 0, NULL);

	(void)state;
	assert_non_null(c);
	assert_true(has_warning(c, "slurm.conf:1: NodeName: unknown key 'Frobnicate'"));
	assert_true(has_warning(c, "slurm.conf:2: PartitionName: unknown key 'Colour'"));
	assert_true(has_warning(c, "partition r is also Default=YES"));
	assert_string_equal(spur_conf_default_partition(c)->name, "r");
	assert_true(has_warning(c, "gres.conf:2: gres.conf: unknown key 'Bogus'"));
	assert_true(has_warning(c, "node n1 declares Gres=gpu:a100:4 but gres.conf describes 2"));
	assert_true(has_warning(c, "topology.conf:1: Nodes: node 'n3' is not defined"));
	assert_int_equal(c->switches[0].nnodes, 2);
	spur_conf_destroy(c);
}

static void test_lexer(void **state)
{
	struct spur_conf_doc doc = { 0 };
	struct spur_error err;
	const char *text = "A=1 B = \"two words\" C=x\\#y # comment \\\n"
			   "D=4\r\n"
			   "E=5 \\\n"
			   "  F=6\n"
			   "\n  # only a comment\n"
			   "G=\n";

	(void)state;
	assert_int_equal(spur_conf_lex_buf(&doc, "t.conf", text, strlen(text), 0, &err), 0);
	assert_int_equal(doc.n, 4);
	assert_int_equal(doc.lines[0].n, 3);
	assert_string_equal(doc.lines[0].pairs[1].value, "two words");
	assert_string_equal(doc.lines[0].pairs[2].value, "x#y");
	assert_string_equal(doc.lines[1].pairs[0].key, "D");
	assert_string_equal(doc.lines[1].pairs[0].value, "4");
	assert_int_equal(doc.lines[2].n, 2);
	assert_int_equal(doc.lines[2].lineno, 3);
	assert_string_equal(doc.lines[2].pairs[1].key, "F");
	assert_int_equal(doc.lines[3].lineno, 7);
	assert_string_equal(doc.lines[3].pairs[0].value, "");
	spur_conf_doc_fini(&doc);
	assert_int_equal(spur_conf_lex_buf(&doc, "t", "A=1\0B=2", 7, 0, &err), SPUR_EPARSE);
	assert_non_null(strstr(err.msg, "NUL byte"));
	spur_conf_doc_fini(&doc);
	assert_int_equal(spur_conf_lex_file(&doc, "/nonexistent.conf", 0, &err), SPUR_ENOENT);
	assert_non_null(strstr(err.msg, "/nonexistent.conf: No such file"));
	spur_conf_doc_fini(&doc);
}

static void test_include_errors(void **state)
{
	char dir[] = "/tmp/spur-conf-XXXXXX";
	char path[128], path2[128];
	struct spur_error err;
	struct spur_conf *c;
	FILE *f;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/slurm.conf", dir);
	snprintf(path2, sizeof(path2), "%s/loop.conf", dir);
	f = fopen(path, "w");
	fprintf(f, "ClusterName=x\ninclude missing.conf\n");
	fclose(f);
	c = spur_conf_load(path, 0, &err);
	assert_null(c);
	assert_non_null(strstr(err.msg, "slurm.conf:2: Include: "));
	assert_non_null(strstr(err.msg, "missing.conf: No such file"));
	f = fopen(path, "w");
	fprintf(f, "Include loop.conf\n");
	fclose(f);
	f = fopen(path2, "w");
	fprintf(f, "Include loop.conf\n");
	fclose(f);
	c = spur_conf_load(path, 0, &err);
	assert_null(c);
	assert_non_null(strstr(err.msg, "nested more than 8 deep"));
	unlink(path);
	unlink(path2);
	rmdir(dir);
}

/* Regression (found by fuzz_conf): DEFAULT, NodeSet and DownNodes lines are
 * applied after gres.conf has been lexed, which moves the line array. */
static void test_lines_move(void **state)
{
	char gres[64 * 40] = "";
	struct spur_error err;
	struct spur_conf *c;

	(void)state;
	for (int i = 0; i < 60; i++)
		strcat(gres, "Name=nic Count=1\n");
	c = spur_conf_load_text("slurm.conf",
				"NodeName=DEFAULT CPUs=8\nNodeName=n[1-4] Feature=f\n"
				"NodeSet=ns Feature=f\nPartitionName=p Nodes=ns\n"
				"DownNodes=n[1-2] State=DRAIN Reason=\"cable\"\n",
				gres, NULL, 0, &err);
	if (!c)
		fail_msg("%s", err.msg);
	assert_string_equal(c->nodes[1].state, "DRAIN");
	assert_string_equal(c->nodes[1].reason, "cable");
	assert_int_equal(c->nodes[3].cpus, 8);
	assert_int_equal(c->parts[0].nnodes, 4);
	assert_int_equal(c->ngres, 60);
	spur_conf_destroy(c);
}

static void test_alloc_failures(void **state)
{
	struct spur_error err;
	struct spur_conf *c = NULL;

	(void)state;
	ALLOC_SWEEP(!(c = spur_conf_load(SPUR_TEST_DATA "/conf/site/slurm.conf", 0, &err)),
		    err.code, (void)0);
	assert_int_equal(c->nnodes, 8);
	spur_conf_destroy(c);
}

static void test_scale(void **state)
{
	struct spur_conf *c = spur_conf_load_text(
		"s", "NodeName=gpu[00001-10000] CPUs=128 Gres=gpu:mi300x:8\nPartitionName=p Nodes=ALL",
		NULL, NULL, 0, NULL);

	(void)state;
	assert_int_equal(c->nnodes, 10000);
	assert_int_equal(c->parts[0].nnodes, 10000);
	assert_int_equal(spur_conf_node_index(c, "gpu10000"), 9999);
	spur_conf_destroy(c);
}


/* scontrol create/delete partition: a slurm.conf line into a loaded
 * configuration, refused with Slurm's words and nothing changed; a deleted
 * partition's slot is kept and taken back by its name; save/restore. */
static void test_partition_runtime(void **state)
{
	struct spur_error err;
	struct spur_conf *c = spur_conf_load_text(
		"s", "NodeName=n[1-3] CPUs=4\nPartitionName=a Nodes=ALL Default=YES", NULL, NULL, 0,
		&err);
	struct spur_conf_parts_saved *sv;
	size_t slot, nw;

	(void)state;
	assert_non_null(c);
	nw = c->nwarnings;
	sv = spur_conf_partitions_save(c);
	assert_non_null(sv);
	assert_int_equal(spur_conf_partition_create(c, "PartitionName=b Nodes=n[2-3] MaxTime=30 "
						       "Priority=3 Default=YES",
						    &slot, &err),
			 0);
	assert_int_equal(slot, 1);
	assert_int_equal(c->parts[1].nnodes, 2);
	assert_int_equal(c->parts[1].max_time, 30 * 60);
	assert_int_equal(c->parts[1].priority_tier, 3);
	assert_int_equal(c->parts[1].priority_job_factor, 3);
	assert_int_equal(c->parts[1].min_nodes, 1);
	assert_string_equal(spur_conf_default_partition(c)->name, "b");
	assert_int_not_equal(spur_conf_partition_create(c, "PartitionName=b", &slot, &err), 0);
	assert_string_equal(err.msg, "Invalid partition name specified");
	assert_int_not_equal(spur_conf_partition_create(c, "PartitionName=x Nodes=n9", &slot, &err), 0);
	assert_string_equal(err.msg, "Invalid node name specified");
	assert_int_not_equal(spur_conf_partition_create(c, "PartitionName=x Bogus=1", &slot, &err), 0);
	assert_string_equal(err.msg, "Update of this parameter is not supported: Bogus=1");
	assert_int_not_equal(
		spur_conf_partition_create(c, "PartitionName=x OverSubscribe=FORCE:64", &slot, &err), 0);
	assert_non_null(strstr(err.msg, "OverSubscribe=FORCE:64: not supported by Spur"));
	assert_int_not_equal(spur_conf_partition_create(c, "Nodes=n1", &slot, &err), 0);
	assert_int_equal(c->nparts, 2); /* none of those changed anything */
	assert_int_equal(c->nwarnings, nw);
	assert_null(spur_conf_partition(c, "x"));
	assert_int_equal(spur_conf_partition_delete(c, "b", &err), 0);
	assert_null(spur_conf_partition(c, "b"));
	assert_string_equal(spur_conf_default_partition(c)->name, "a");
	assert_int_not_equal(spur_conf_partition_delete(c, "b", &err), 0);
	assert_int_equal(spur_conf_partition_create(c, "PartitionName=b", &slot, &err), 0);
	assert_int_equal(slot, 1); /* its old slot */
	assert_int_equal(c->nparts, 2);
	spur_conf_partitions_restore(c, sv);
	assert_int_equal(c->nparts, 1);
	assert_null(spur_conf_partition(c, "b"));
	assert_string_equal(spur_conf_default_partition(c)->name, "a");
	spur_conf_destroy(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_golden),	       cmocka_unit_test(test_site),
		cmocka_unit_test(test_default),	       cmocka_unit_test(test_errors),
		cmocka_unit_test(test_warnings), cmocka_unit_test(test_spur_conf), cmocka_unit_test(test_ctld_ports),       cmocka_unit_test(test_lexer),
		cmocka_unit_test(test_include_errors), cmocka_unit_test(test_alloc_failures),
		cmocka_unit_test(test_scale),	       cmocka_unit_test(test_lines_move),
		cmocka_unit_test(test_partition_runtime),
	};

	return cmocka_run_group_tests_name("conf", tests, NULL, NULL);
}
