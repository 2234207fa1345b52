/* SPDX-License-Identifier: Apache-2.0 */
/* The CLI's link to spurctld: find it from the config, one request, one reply. */
#include "client.h"

#include "common/conf.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* $SPUR_CTLD (host:port) wins; else the first SlurmctldHost of the config. */
static int ctld_addr(char *host, size_t len, uint16_t *port, struct spur_error *err)
{
	const char *env = getenv("SPUR_CTLD");
	const char *path = cli_conf_path(NULL);
	struct spur_conf *c;

	if (env && *env) {
		const char *colon = strrchr(env, ':');

		snprintf(host, len, "%.*s", colon ? (int)(colon - env) : (int)strlen(env), env);
		*port = colon ? (uint16_t)atoi(colon + 1) : 6817;
		return 0;
	}
	c = path ? spur_conf_load(path, 0, err) : spur_conf_default(err);
	if (!c)
		return err->code;
	snprintf(host, len, "%s", c->nctlds ? c->ctlds[0].addr : "127.0.0.1");
	*port = c->ctld_port;
	spur_conf_destroy(c);
	return 0;
}

const char *cli_prog = "spur";

int cli_connect(struct spur_error *err)
{
	char host[256];
	uint16_t port = 0;
	int rc = ctld_addr(host, sizeof(host), &port, err);

	if (rc)
		return rc;
	return spur_wire_connect(host, port, 5000, err);
}

json_t *cli_request(int fd, json_t *req, int timeout_ms, struct spur_error *err)
{
	json_t *reply = NULL;

	if (spur_wire_send(fd, req, err) || spur_wire_recv(fd, &reply, timeout_ms, err))
		return NULL;
	if (!strcmp(spur_json_str(reply, "type", ""), "error")) {
		const char *detail = spur_json_str(reply, "detail", NULL);

		/* a detail line comes first, as Slurm's commands print it */
		if (detail)
			fprintf(stderr, "%s: error: %s\n", cli_prog, detail);
		spur_error_set(err, (int)spur_json_int(reply, "code", SPUR_EINVAL), "%s",
			       spur_json_str(reply, "message", "error"));
		json_decref(reply);
		return NULL;
	}
	return reply;
}

json_t *cli_call(json_t *req, struct spur_error *err)
{
	int fd = cli_connect(err);
	json_t *reply;

	if (fd < 0) {
		json_decref(req);
		return NULL;
	}
	reply = cli_request(fd, req, 30000, err);
	json_decref(req);
	close(fd);
	return reply;
}

int cli_each_job(const char *prog, int argc, char **argv, const char *type, bool admin,
		 cli_job_fail_f fail)
{
	int rc = 0;

	for (int i = 0; i < argc; i++) {
		struct spur_error err;
		char *end;
		long id = strtol(argv[i], &end, 10);
		json_t *reply;

		if (*end || id <= 0) {
			fprintf(stderr, "%s: error: Invalid job id %s\n", prog, argv[i]);
			rc = 1;
			continue;
		}
		reply = cli_call(json_pack("{s:s,s:i,s:b}", "type", type, "job_id", (int)id, "admin",
					   admin),
				 &err);
		if (!reply) {
			fail(prog, id, err.msg);
			rc = 1;
			continue;
		}
		json_decref(reply);
	}
	return rc;
}
