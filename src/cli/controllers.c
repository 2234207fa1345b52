/* SPDX-License-Identifier: Apache-2.0 */
/* The controllers of a Raft cluster: `spur controller list|add|remove` and
 * `scontrol ping`. */
#include "cli.h"
#include "client.h"

#include "common/conf.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static struct spur_conf *load_conf(const char *prog)
{
	struct spur_error err;
	const char *path = cli_conf_path(NULL);
	struct spur_conf *c = path ? spur_conf_load(path, 0, &err) : spur_conf_default(&err);

	if (!c)
		cli_error(prog, "%s", err.msg);
	return c;
}

/* Ask controller i itself (not the leader): its ping answer, or NULL. */
static json_t *ping_one(const struct spur_conf *c, size_t i)
{
	struct spur_error err;
	int fd = spur_wire_connect(c->ctlds[i].addr, spur_conf_ctld_port(c, i), 1000, &err);
	json_t *req, *reply;

	if (fd < 0)
		return NULL;
	req = json_pack("{s:s}", "type", "ping");
	reply = cli_request(fd, req, 1000, &err);
	json_decref(req);
	close(fd);
	return reply;
}

/* As Slurm's: "Slurmctld(primary) at ctl1 is UP", then backup or backupN. */
int cli_scontrol_ping(const char *prog)
{
	struct spur_conf *c = load_conf(prog);
	int rc = 1;

	if (!c)
		return 1;
	for (size_t i = 0; i < c->nctlds; i++) {
		json_t *r = ping_one(c, i);
		char label[32];

		if (i == 0)
			snprintf(label, sizeof(label), "primary");
		else if (c->nctlds == 2)
			snprintf(label, sizeof(label), "backup");
		else
			snprintf(label, sizeof(label), "backup%zu", i);
		printf("Slurmctld(%s) at %s is %s\n", label, c->ctlds[i].name, r ? "UP" : "DOWN");
		if (r)
			rc = 0;
		json_decref(r);
	}
	spur_conf_destroy(c);
	return rc;
}

/* The SlurmctldHost entry called name: its index, or -1 (said). */
static long find_ctld(const char *prog, const struct spur_conf *c, const char *name)
{
	for (size_t i = 0; i < c->nctlds; i++)
		if (!strcmp(c->ctlds[i].name, name))
			return (long)i;
	cli_error(prog,
		  "%s is not a SlurmctldHost of the configuration: add its line to slurm.conf "
		  "first (the controllers' ids are the lines' order)",
		  name);
	return -1;
}

static int list(const char *prog, const struct spur_conf *c)
{
	struct spur_error err;
	json_t *r = cli_call(json_pack("{s:s}", "type", "members"), &err), *m;
	size_t i;

	if (!r) {
		cli_error(prog, "%s", err.msg);
		return 1;
	}
	printf("%-12s %3s %-22s %-22s %-7s %s\n", "NAME", "ID", "ADDRESS", "RAFT", "ROLE", "STATE");
	json_array_foreach(json_object_get(r, "members"), i, m) {
		json_int_t id = spur_json_int(m, "id", 0);
		char addr[300] = "?";
		const char *name = "?", *state = "leader";
		json_t *p = NULL;

		if (id > 0 && (size_t)id <= c->nctlds) {
			name = c->ctlds[id - 1].name;
			snprintf(addr, sizeof(addr), "%s:%u", c->ctlds[id - 1].addr,
				 spur_conf_ctld_port(c, (size_t)id - 1));
			if (!spur_json_bool(m, "leader", 0))
				p = ping_one(c, (size_t)id - 1);
		}
		if (!spur_json_bool(m, "leader", 0))
			state = p ? "follower" : "unreachable";
		printf("%-12s %3lld %-22s %-22s %-7s %s\n", name, (long long)id, addr,
		       spur_json_str(m, "address", "?"), spur_json_str(m, "role", "?"), state);
		json_decref(p);
	}
	printf("term %lld, commit index %lld\n", (long long)spur_json_int(r, "term", 0),
	       (long long)spur_json_int(r, "commit_index", 0));
	json_decref(r);
	return 0;
}

static int lead(const char *prog, const struct spur_conf *c, const char *name)
{
	struct spur_error err;
	long i = find_ctld(prog, c, name);
	json_t *r;

	if (i < 0)
		return 1;
	r = cli_call(json_pack("{s:s,s:I}", "type", "member_lead", "id", (json_int_t)i + 1), &err);
	if (!r) {
		cli_error(prog, "handing leadership to %s: %s", name, err.msg);
		return 1;
	}
	printf("Leadership handed to %s\n", name);
	json_decref(r);
	return 0;
}

static int change(const char *prog, const struct spur_conf *c, bool add, const char *name)
{
	struct spur_error err;
	long i = find_ctld(prog, c, name);
	char raft[300];
	json_t *req, *r;

	if (i < 0)
		return 1;
	spur_conf_raft_address(c, (size_t)i, raft, sizeof(raft));
	req = json_pack("{s:s,s:I}", "type", add ? "member_add" : "member_remove", "id",
			(json_int_t)i + 1);
	if (add)
		json_object_set_new(req, "address", json_string(raft));
	r = cli_call(req, &err);
	if (!r) {
		cli_error(prog, "%s %s: %s", add ? "adding" : "removing", name, err.msg);
		return 1;
	}
	printf("Controller %s %s (id %ld); %zu controllers now\n", name, add ? "added" : "removed",
	       i + 1, json_array_size(json_object_get(r, "members")));
	json_decref(r);
	return 0;
}

int cli_controller_main(const char *prog, int argc, char **argv)
{
	const char *verb = argc > 0 ? argv[0] : "list";
	struct spur_conf *c;
	int rc;

	if (!strcmp(verb, "-h") || !strcmp(verb, "--help")) {
		printf("Usage: %s [list] | add NAME | remove NAME | lead NAME\n"
		       "  NAME is a SlurmctldHost of slurm.conf; start a new controller with\n"
		       "  'spurctld -N NAME -j' before adding it; lead hands leadership to it.\n",
		       prog);
		return 0;
	}
	if (strcmp(verb, "list") && strcmp(verb, "add") && strcmp(verb, "remove") &&
	    strcmp(verb, "lead")) {
		cli_error(prog, "unknown action '%s' (list, add NAME, remove NAME, lead NAME)", verb);
		return 1;
	}
	if (strcmp(verb, "list") && argc != 2) {
		cli_error(prog, "%s needs one controller name", verb);
		return 1;
	}
	if (!strcmp(verb, "list") && argc > 1) {
		cli_error(prog, "list takes no arguments");
		return 1;
	}
	if (!(c = load_conf(prog)))
		return 1;
	if (!strcmp(verb, "list"))
		rc = list(prog, c);
	else if (!strcmp(verb, "lead"))
		rc = lead(prog, c, argv[1]);
	else
		rc = change(prog, c, !strcmp(verb, "add"), argv[1]);
	spur_conf_destroy(c);
	return rc;
}
