/* SPDX-License-Identifier: Apache-2.0 */
/* The CLI's link to spurctld: find it from the config, one request, one reply. */
#include "client.h"

#include "common/auth.h"
#include "common/conf.h"
#include "common/rlimit.h"

#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <strings.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define CLI_MAX_CTLDS 8

const char *cli_conf_path(const char *given)
{
	static const char *const fallbacks[] = { "/etc/spur/slurm.conf", "/etc/slurm/slurm.conf" };
	const char *env;

	if (given)
		return given;
	if ((env = getenv("SPUR_CONF")) && *env)
		return env;
	if ((env = getenv("SLURM_CONF")) && *env)
		return env;
	for (size_t i = 0; i < 2; i++)
		if (access(fallbacks[i], R_OK) == 0)
			return fallbacks[i];
	return NULL;
}

struct ctld_addrs {
	struct spur_hostport ctl[CLI_MAX_CTLDS];
	size_t n;
	unsigned timeout_s; /* MessageTimeout: how long to keep trying */
};

/* How this process proves who it is where the kernel cannot say (TCP):
 * $SLURM_JWT, else a short token signed with the cluster key when this
 * user may read it (root, SlurmUser). */
static char key_path[4096];
static long slurm_user_uid = -1;
static unsigned kill_wait_s = 30; /* KillWait, once the configuration is read */
static char *own_token;
static int64_t own_token_until; /* re-signed a minute before it ends */
#define OWN_TOKEN_S 300

/* $SPUR_CTLD (host:port[,host:port...]) wins; else every SlurmctldHost of
 * the config, in order. $SPUR_MESSAGE_TIMEOUT (seconds) overrides
 * MessageTimeout. */
static int ctld_addrs(struct ctld_addrs *a, struct spur_error *err)
{
	const char *env = getenv("SPUR_CTLD");
	const char *path = cli_conf_path(NULL);
	struct spur_conf *c;

	memset(a, 0, sizeof(*a));
	a->timeout_s = 10;
	if (getenv("SPUR_MESSAGE_TIMEOUT"))
		a->timeout_s = (unsigned)strtoul(getenv("SPUR_MESSAGE_TIMEOUT"), NULL, 10);
	c = path ? spur_conf_load(path, 0, err) : spur_conf_default(err);
	if (!c && !(env && *env))
		return err->code;
	if (env && *env) {
		long n = spur_hostports_parse(env, 6817, a->ctl, CLI_MAX_CTLDS);

		if (n < 0) {
			spur_conf_destroy(c);
			return spur_error_set(err, SPUR_EINVAL,
					      "SPUR_CTLD=%s: expected HOST:PORT[,HOST:PORT...]", env);
		}
		a->n = (size_t)n;
		if (a->n && !c)
			return 0;
	}
	spur_auth_key_path(c, key_path, sizeof(key_path));
	kill_wait_s = c->kill_wait;
	if (c->slurm_user) {
		struct passwd *pw = getpwnam(c->slurm_user);

		slurm_user_uid = pw ? (long)pw->pw_uid : -1;
	}
	if (c->message_timeout && !getenv("SPUR_MESSAGE_TIMEOUT"))
		a->timeout_s = c->message_timeout;
	if (a->n) {
		/* $SPUR_CTLD: the config says where the key is, and the timeout */
		spur_conf_destroy(c);
		return 0;
	}
	a->n = spur_conf_ctld_addrs(c, a->ctl, CLI_MAX_CTLDS);
	spur_conf_destroy(c);
	return 0;
}

/* The controller must say it leads: a follower, or one replaying its log
 * after a restart, sends requests elsewhere; with several controllers, one
 * that accepts the connection may still be paused or cut off, so it must
 * answer within a second. */
static bool leads(int fd, int timeout_ms, struct spur_error *err)
{
	json_t *req = json_pack("{s:s}", "type", "ping"), *reply = NULL;
	bool ok = !spur_wire_send(fd, req, err) && !spur_wire_recv(fd, &reply, timeout_ms, err) &&
		  !strcmp(spur_json_str(reply, "type", ""), "ok") &&
		  spur_json_bool(reply, "leader", 1);

	if (reply && !ok)
		spur_error_set(err, SPUR_EAGAIN, "%s is not the leading controller",
			       spur_json_str(reply, "name", "controller"));
	json_decref(req);
	json_decref(reply);
	return ok;
}

const char *cli_prog = "spur";

/* The controller at hp: on this host through its Unix socket, when one
 * that root, SlurmUser or this user runs is there, else over TCP. */
static int open_ctld(const struct spur_hostport *hp, int timeout_ms, struct spur_error *err)
{
	unsigned suid;
	int fd = spur_wire_connect_local(hp->host, hp->port, &suid, err);

	if (fd >= 0 && (suid == 0 || suid == (unsigned)geteuid() || (long)suid == slurm_user_uid))
		return fd;
	if (fd >= 0)
		close(fd);
	return spur_wire_connect(hp->host, hp->port, timeout_ms, err);
}

/* The token a request on fd carries, or NULL (the Unix socket's peer
 * credentials say it all). */
static const char *auth_for(int fd)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);
	struct spur_auth_key key;
	struct passwd *pw;
	int64_t now = (int64_t)time(NULL);

	if (getenv("SLURM_JWT") && *getenv("SLURM_JWT"))
		return getenv("SLURM_JWT");
	if (getsockname(fd, (struct sockaddr *)&ss, &len) || ss.ss_family == AF_UNIX)
		return NULL;
	if (own_token && now >= own_token_until) {
		/* a long salloc or srun outlives one token */
		free(own_token);
		own_token = NULL;
	}
	if (!own_token && *key_path && (pw = getpwuid(geteuid())) &&
	    !spur_auth_key_load(key_path, false, &key, NULL)) {
		own_token = spur_token_sign(&key, pw->pw_name, SPUR_ROLE_USER, NULL, now,
					    OWN_TOKEN_S, NULL);
		own_token_until = now + OWN_TOKEN_S - 60;
		memset(&key, 0, sizeof(key));
	}
	return own_token;
}

static unsigned timeout_s = 10; /* MessageTimeout, once cli_connect has read it */

unsigned cli_message_timeout(void)
{
	return timeout_s;
}

unsigned cli_kill_wait(void)
{
	return kill_wait_s;
}

/* Connect to the first controller that answers, trying each in turn for up
 * to MessageTimeout seconds (a controller restarting, a failover), as
 * Slurm's commands do. Only the connection is retried: nothing was sent, so
 * no request can be made twice. */
static int connect_ctld(bool *unasked, struct spur_error *err)
{
	struct ctld_addrs a;
	struct timespec start, now;
	int rc = ctld_addrs(&a, err);

	if (rc)
		return rc;
	timeout_s = a.timeout_s;
	clock_gettime(CLOCK_MONOTONIC, &start);
	for (;;) {
		for (size_t i = 0; i < a.n; i++) {
			int fd = open_ctld(&a.ctl[i], a.n > 1 ? 1000 : 5000, err);

			/* one controller: no other to turn to, so the request
			 * itself asks it to lead ("lead"), one round trip fewer */
			if (fd >= 0 && unasked && a.n == 1) {
				*unasked = true;
				return fd;
			}
			if (fd >= 0 && leads(fd, a.n > 1 ? 1000 : 30000, err))
				return fd;
			if (fd >= 0)
				close(fd);
		}
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (now.tv_sec - start.tv_sec >= (time_t)a.timeout_s)
			return err->code;
		/* nothing to wait on from outside: poll at 10 Hz */
		nanosleep(&(struct timespec){ .tv_nsec = 100 * 1000 * 1000 }, NULL);
	}
}

int cli_connect(struct spur_error *err)
{
	return connect_ctld(NULL, err);
}

json_t *cli_request_raw(int fd, json_t *req, int timeout_ms, struct spur_error *err)
{
	json_t *reply = NULL;
	const char *tok = json_object_get(req, "auth") ? NULL : auth_for(fd);

	if (tok)
		json_object_set_new(req, "auth", json_string(tok));
	if (spur_wire_send(fd, req, err) || spur_wire_recv(fd, &reply, timeout_ms, err))
		return NULL;
	return reply;
}

json_t *cli_reply(json_t *reply, struct spur_error *err)
{
	if (reply && !strcmp(spur_json_str(reply, "type", ""), "error")) {
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

json_t *cli_request(int fd, json_t *req, int timeout_ms, struct spur_error *err)
{
	return cli_reply(cli_request_raw(fd, req, timeout_ms, err), err);
}

int cli_send(json_t *req, int timeout_ms, json_t **reply, struct spur_error *err)
{
	struct timespec start, now;

	clock_gettime(CLOCK_MONOTONIC, &start);
	for (;;) {
		bool unasked = false;
		int fd = connect_ctld(&unasked, err);

		*reply = NULL;
		if (fd < 0)
			return fd;
		if (unasked)
			json_object_set_new(req, "lead", json_true());
		*reply = cli_request_raw(fd, req, timeout_ms, err);
		/* what users wrote (names, comments, reasons) reaches a terminal
		 * escaped */
		if (*reply && spur_json_escape_controls(*reply)) {
			json_decref(*reply);
			*reply = NULL;
			close(fd);
			return spur_error_set(err, SPUR_ENOMEM, "out of memory");
		}
		if (!*reply || spur_json_int(*reply, "code", 0) != SPUR_ERETRY)
			return fd;
		close(fd);
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (now.tv_sec - start.tv_sec >= (time_t)timeout_s) {
			spur_error_set(err, SPUR_ERETRY, "%s",
				       spur_json_str(*reply, "message", "try again"));
			json_decref(*reply);
			*reply = NULL;
			return SPUR_ERETRY;
		}
		json_decref(*reply);
		/* the leadership moves within an election: poll at 10 Hz */
		nanosleep(&(struct timespec){ .tv_nsec = 100 * 1000 * 1000 }, NULL);
	}
}

json_t *cli_call(json_t *req, struct spur_error *err)
{
	json_t *reply;
	int fd = cli_send(req, 30000, &reply, err);

	json_decref(req);
	if (fd < 0)
		return NULL;
	close(fd);
	return cli_reply(reply, err);
}

int cli_each_job(const char *prog, int argc, char **argv, const char *type, bool admin,
		 const json_t *extra, cli_job_fail_f fail)
{
	int rc = 0;

	for (int i = 0; i < argc; i++) {
		struct spur_error err;
		char *end, *tend;
		long id = strtol(argv[i], &end, 10), task = -1;
		json_t *reply, *req;

		if (*end == '_') /* J_T: task T of array J */
			task = strtol(end + 1, &tend, 10);
		if ((*end && *end != '_') || id <= 0 ||
		    (*end == '_' && (task < 0 || *tend || tend == end + 1))) {
			fprintf(stderr, "%s: error: Invalid job id %s\n", prog, argv[i]);
			rc = 1;
			continue;
		}
		req = json_pack("{s:s,s:i,s:b}", "type", type, "job_id", (int)id, "admin", admin);
		if (extra)
			json_object_update(req, (json_t *)extra);
		if (task >= 0)
			json_object_set_new(req, "task_id", json_integer(task));
		reply = cli_call(req, &err);
		if (!reply) {
			fail(prog, id, err.msg);
			rc = 1;
			continue;
		}
		json_decref(reply);
	}
	return rc;
}

extern char **environ;

json_t *cli_rlimits(void)
{
	json_t *o = json_object();

	for (size_t i = 0; i < SPUR_RLIMIT_COUNT; i++) {
		struct rlimit rl;

		if (!getrlimit(spur_rlimit_resource(i), &rl))
			json_object_set_new(o, spur_rlimit_name(i),
					    json_integer(rl.rlim_cur == RLIM_INFINITY
								 ? -1
								 : (json_int_t)rl.rlim_cur));
	}
	return o;
}

int cli_propagate_check(const char *prog, const char *list)
{
	const char *bad;
	size_t l;

	if (spur_rlimit_list_ok(list, &bad, &l))
		return 0;
	fprintf(stderr, "%s: error: Invalid --propagate specification: %.*s\n", prog, (int)l, bad);
	return -1;
}

int cli_open_mode(const char *prog, const char *arg, bool *append)
{
	/* as Slurm: the first letter, any case */
	if (!*arg || !strchr("aAtT", *arg)) {
		fprintf(stderr, "%s: error: Invalid --open-mode specification\n", prog);
		return 255;
	}
	*append = *arg == 'a' || *arg == 'A';
	return 0;
}

int cli_hint_check(const char *prog, const char *arg)
{
	if (!strcmp(arg, "help")) {
		printf("Application hint options:\n"
		       "    --hint=             Bind tasks according to application hints\n"
		       "        compute_bound   use all cores in each socket\n"
		       "        memory_bound    use only one core in each socket\n"
		       "        [no]multithread [don't] use extra threads with in-core multi-threading\n"
		       "        help            show this help message\n");
		return 1; /* as Slurm's: exit 1 */
	}
	if (!strcmp(arg, "memory_bound")) {
		fprintf(stderr, "%s: error: --hint=memory_bound is not supported by Spur\n", prog);
		return 1;
	}
	if (strcmp(arg, "compute_bound") && strcmp(arg, "multithread") &&
	    strcmp(arg, "nomultithread")) {
		fprintf(stderr, "%s: error: unrecognized --hint argument \"%s\", see --hint=help\n",
			prog, arg);
		return 1;
	}
	return 0;
}

json_t *cli_export_env(const char *export)
{
	json_t *env = json_object();
	char *copy = export ? strdup(export) : NULL, *save = NULL;
	bool all = true;

	if (!env || (export && !copy)) {
		json_decref(env);
		free(copy);
		return NULL;
	}
	/* without ALL, only what is named (and Slurm's own variables) */
	if (copy) {
		all = false;
		for (char *v = strtok_r(copy, ",", &save); v; v = strtok_r(NULL, ",", &save))
			all |= !strcmp(v, "ALL");
		strcpy(copy, export);
	}
	for (char **e = environ; *e; e++) {
		const char *eq = strchr(*e, '=');
		char key[256];

		if (!eq || (size_t)(eq - *e) >= sizeof(key))
			continue;
		snprintf(key, sizeof(key), "%.*s", (int)(eq - *e), *e);
		if (all || !strncmp(key, "SLURM_", 6) || !strncmp(key, "SPUR_", 5))
			json_object_set_new(env, key, json_string(eq + 1));
	}
	for (char *v = copy ? strtok_r(copy, ",", &save) : NULL; v; v = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(v, '=');

		if (!strcmp(v, "ALL") || !strcmp(v, "NONE") || !strcmp(v, "NIL"))
			continue;
		if (eq) {
			*eq = '\0';
			json_object_set_new(env, v, json_string(eq + 1));
		} else if (getenv(v)) {
			json_object_set_new(env, v, json_string(getenv(v)));
		}
	}
	free(copy);
	if (!json_object_get(env, "SLURM_UMASK")) {
		/* Slurm's: the tasks get the submitter's umask (the agent sets it) */
		mode_t m = umask(0);
		char buf[8];

		umask(m);
		snprintf(buf, sizeof(buf), "%04o", (unsigned)m);
		json_object_set_new(env, "SLURM_UMASK", json_string(buf));
	}
	return env;
}

bool cli_refused_opts(const char *prog, int argc, char **argv, const char *const *longs,
		      const char *shorts)
{
	for (int i = 0; i < argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "--"))
			break;
		if (!strncmp(a, "--", 2)) {
			size_t n = strcspn(a + 2, "=");

			for (size_t k = 0; longs && longs[k]; k++)
				if (strlen(longs[k]) == n && !strncmp(a + 2, longs[k], n)) {
					fprintf(stderr, "%s: error: --%s is not supported by Spur\n",
						prog, longs[k]);
					return true;
				}
		} else if (a[0] == '-' && a[1] && shorts && strchr(shorts, a[1])) {
			fprintf(stderr, "%s: error: -%c is not supported by Spur\n", prog, a[1]);
			return true;
		}
	}
	return false;
}
