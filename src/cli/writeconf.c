/* SPDX-License-Identifier: Apache-2.0 */
/* scontrol write config [FILE]: the configuration the controller runs
 * now, as a slurm.conf (Slurm's layout: KEY=VALUE, "#KEY=" for an unset
 * one, then a NodeName line per node and a PartitionName line per
 * partition, with the partitions as scontrol create/update left them).
 * Without FILE, "slurm.conf.<time>" beside the slurm.conf this command
 * read. The file is written where scontrol runs (Slurm's controller writes
 * it on its own host). */
#include "cli.h"
#include "client.h"

#include "common/alloc.h"
#include "common/hostlist.h"
#include "common/timefmt.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <time.h>

/* Keys of show config that are facts of the running controller, not
 * configuration (Slurm leaves them out too). */
static bool not_a_key(const char *k)
{
	static const char *const skip[] = { "BOOT_TIME", "HASH_VAL", "MULTIPLE_SLURMD",
					    "NEXT_JOB_ID", "SLURM_CONF", "SLURM_VERSION", NULL };

	for (size_t i = 0; skip[i]; i++)
		if (!strcmp(k, skip[i]))
			return true;
	return false;
}

/* One show config pair as a slurm.conf line: units dropped ("300 sec"),
 * "SlurmctldHost[0]" as SlurmctldHost, an unset one commented out. */
static void write_pair(FILE *f, const char *key, const char *value)
{
	char k[128], v[4096];
	size_t vl;

	snprintf(k, sizeof(k), "%.*s", (int)strcspn(key, "["), key);
	snprintf(v, sizeof(v), "%s", value);
	vl = strlen(v);
	if (vl > 3 && v[vl - 1] == ')' && strchr(v, '(') && strchr(v, '(') > v) /* "root(0)" */
		*strchr(v, '(') = '\0', vl = strlen(v);
	if (vl > 4 && (!strcmp(v + vl - 4, " sec") || !strcmp(v + vl - 4, " min")))
		v[vl - 4] = '\0';
	if (!*v || !strcmp(v, "(null)") || !strcmp(v, "(null type)"))
		fprintf(f, "#%s=\n", k);
	else
		fprintf(f, "%s=%s%s%s\n", k, strchr(v, ' ') ? "\"" : "", v, strchr(v, ' ') ? "\"" : "");
}

static void write_node(FILE *f, const json_t *n)
{
	const char *gres = spur_json_str(n, "gres", ""), *feat = spur_json_str(n, "features", "");

	fprintf(f, "NodeName=%s NodeHostName=%s NodeAddr=%s CPUs=%" JSON_INTEGER_FORMAT
		   " Sockets=%" JSON_INTEGER_FORMAT " CoresPerSocket=%" JSON_INTEGER_FORMAT
		   " ThreadsPerCore=%" JSON_INTEGER_FORMAT " RealMemory=%" JSON_INTEGER_FORMAT
		   " TmpDisk=%" JSON_INTEGER_FORMAT " Weight=%" JSON_INTEGER_FORMAT,
		spur_json_str(n, "name", ""), spur_json_str(n, "hostname", ""),
		spur_json_str(n, "addr", ""), (json_int_t)spur_json_int(n, "cpus", 1),
		(json_int_t)spur_json_int(n, "sockets", 1),
		(json_int_t)spur_json_int(n, "cores_per_socket", 1),
		(json_int_t)spur_json_int(n, "threads_per_core", 1),
		(json_int_t)spur_json_int(n, "memory", 1), (json_int_t)spur_json_int(n, "tmp_disk", 0),
		(json_int_t)spur_json_int(n, "weight", 1));
	if (*gres)
		fprintf(f, " Gres=%s", gres);
	if (*feat)
		fprintf(f, " Features=%s", feat);
	fputc('\n', f);
}

/* A time key of a partition: UNLIMITED, or Slurm's [D-]HH:MM:SS. */
static void write_time(FILE *f, const char *key, int64_t secs)
{
	char t[32];

	if (secs < 0 || secs >= INT64_MAX / 2) {
		fprintf(f, " %s=UNLIMITED", key);
		return;
	}
	spur_duration_format_hms(secs, t, sizeof(t));
	fprintf(f, " %s=%s", key, t);
}

static void write_part(FILE *f, const json_t *p, const json_t *nodes)
{
	static const char *const strs[][2] = {
		{ "allow_groups", "AllowGroups" },   { "allow_accounts", "AllowAccounts" },
		{ "deny_accounts", "DenyAccounts" }, { "allow_qos", "AllowQos" },
		{ "deny_qos", "DenyQos" },	     { "oversubscribe", "OverSubscribe" },
		{ "qos", "QOS" },
	};
	static const char *const mems[][2] = { { "def_mem_per_cpu", "DefMemPerCPU" },
					       { "def_mem_per_node", "DefMemPerNode" },
					       { "def_mem_per_gpu", "DefMemPerGPU" },
					       { "max_mem_per_node", "MaxMemPerNode" },
					       { "def_cpu_per_gpu", "DefCpuPerGPU" } };
	struct spur_hostlist *hl = spur_hostlist_create();
	int64_t mt = spur_json_int(p, "max_time", -1), dt = spur_json_int(p, "default_time", -1);
	char *names;
	size_t i;
	json_t *ni;

	json_array_foreach(json_object_get(p, "nodes"), i, ni)
		spur_hostlist_push(hl, spur_json_str(json_array_get(nodes, (size_t)json_integer_value(ni)),
						     "name", ""), NULL);
	names = spur_hostlist_ranged(hl, NULL);
	fprintf(f, "PartitionName=%s", spur_json_str(p, "name", ""));
	if (spur_json_bool(p, "default", 0))
		fprintf(f, " Default=YES");
	write_time(f, "MaxTime", mt);
	if (spur_json_bool(p, "default_unlimited", 0))
		fprintf(f, " DefaultTime=UNLIMITED");
	else if (dt >= 0 && dt < INT64_MAX / 2 && dt != mt)
		write_time(f, "DefaultTime", dt);
	if (spur_json_int(p, "max_nodes", 0))
		fprintf(f, " MaxNodes=%" JSON_INTEGER_FORMAT, (json_int_t)spur_json_int(p, "max_nodes", 0));
	fprintf(f, " MinNodes=%" JSON_INTEGER_FORMAT " Nodes=%s PriorityTier=%" JSON_INTEGER_FORMAT
		   " PriorityJobFactor=%" JSON_INTEGER_FORMAT " State=%s",
		(json_int_t)spur_json_int(p, "min_nodes", 0), names && *names ? names : "\"\"",
		(json_int_t)spur_json_int(p, "tier", 1), (json_int_t)spur_json_int(p, "job_factor", 1),
		(const char *const[]){ "UP", "DOWN", "DRAIN", "INACTIVE" }[spur_json_int(p, "state", 0) & 3]);
	for (size_t k = 0; k < sizeof(strs) / sizeof(strs[0]); k++)
		if (json_is_string(json_object_get(p, strs[k][0])))
			fprintf(f, " %s=%s", strs[k][1], spur_json_str(p, strs[k][0], ""));
	for (size_t k = 0; k < sizeof(mems) / sizeof(mems[0]); k++)
		if (spur_json_int(p, mems[k][0], 0))
			fprintf(f, " %s=%" JSON_INTEGER_FORMAT, mems[k][1],
				(json_int_t)spur_json_int(p, mems[k][0], 0));
	if (spur_json_bool(p, "hidden", 0))
		fprintf(f, " Hidden=YES");
	if (spur_json_bool(p, "root_only", 0))
		fprintf(f, " RootOnly=YES");
	if (spur_json_bool(p, "exclusive_user", 0))
		fprintf(f, " ExclusiveUser=YES");
	if (strcmp(spur_json_str(p, "preempt_mode", "OFF"), "OFF"))
		fprintf(f, " PreemptMode=%s", spur_json_str(p, "preempt_mode", ""));
	fputc('\n', f);
	spur_free(names);
	spur_hostlist_destroy(hl);
}

/* The file's name: FILE, else slurm.conf.<time> beside slurm.conf. */
static void target(const char *arg, char *path, size_t len)
{
	const char *conf = cli_conf_path(NULL);
	time_t now = time(NULL);
	char when[32];
	struct tm tm;

	localtime_r(&now, &tm);
	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%S", &tm);
	if (arg)
		snprintf(path, len, "%s", arg);
	else
		snprintf(path, len, "%s.%s", conf ? conf : "slurm.conf", when);
}

int cli_write_config(const char *prog, const char *arg)
{
	struct spur_error err;
	json_t *conf = cli_call(json_pack("{s:s}", "type", "config"), &err), *nodes = NULL, *v;
	char path[4096];
	size_t i;
	FILE *f;

	if (!conf || !(nodes = cli_call(json_pack("{s:s}", "type", "nodes"), &err))) {
		cli_error(prog, "%s", err.msg);
		json_decref(conf);
		return 1;
	}
	target(arg, path, sizeof(path));
	if (!(f = fopen(path, "w"))) {
		cli_error(prog, "write config: %s: %s", path, strerror(errno));
		json_decref(conf);
		json_decref(nodes);
		return 1;
	}
	fprintf(f, "# slurm.conf written by scontrol write config (Spur %s)\n#\n", SPUR_VERSION);
	json_array_foreach(json_object_get(conf, "config"), i, v)
		if (!not_a_key(json_string_value(json_array_get(v, 0))))
			write_pair(f, json_string_value(json_array_get(v, 0)),
				   json_string_value(json_array_get(v, 1)));
	fprintf(f, "#\n# NODES\n#\n");
	json_array_foreach(json_object_get(nodes, "nodes"), i, v)
		write_node(f, v);
	fprintf(f, "#\n# PARTITIONS\n#\n");
	json_array_foreach(json_object_get(nodes, "partitions"), i, v)
		write_part(f, v, json_object_get(nodes, "nodes"));
	json_decref(conf);
	json_decref(nodes);
	if (fclose(f)) {
		cli_error(prog, "write config: %s: %s", path, strerror(errno));
		return 1;
	}
	printf("Slurm config saved to %s\n", path);
	return 0;
}
