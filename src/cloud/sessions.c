/* SPDX-License-Identifier: Apache-2.0 */
/* GPU sessions: each one a Spur job under its project's account, submitted
 * to the leading controller by the service (as the service's own user),
 * and followed from the controller's view of the job: requested -> queued
 * (with the pending reason) -> running -> stopping -> ended (completed,
 * failed, cancelled, timeout). Templates: "command" (a shell command),
 * "shell" (the job waits for its terminal until its time limit or a
 * stop), "image" (a container image, from the nodes' image stores, with
 * a command or waiting like a shell), "jupyter" (the nodes' Jupyter
 * notebook server, reached through the port proxy, which alone knows its
 * secret). */
#include "cloud/api_int.h"
#include "cli/client.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <pthread.h>
#include <pwd.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SESSION_COLS                                                                           \
	"s.id, p.name AS project, u.email AS owner, s.name, s.gpus, s.gpu_type, s.template, "    \
	"s.command, s.image, s.time_limit, s.job_id, s.state, s.outcome, s.reason, s.created, "      \
	"s.ended, s.port, s.ssh_port"
#define SESSION_FROM                                                                           \
	" FROM sessions s JOIN projects p ON p.id = s.project_id JOIN users u ON u.id = s.user_id"

/* One request to the controller: its reply, or NULL with why. The CLI's
 * client keeps its token and the controller's address in statics: one
 * request at a time (the HTTP thread and the meter's). */
json_t *cloud_ctld(json_t *req, char *why, size_t wlen)
{
	static pthread_mutex_t one = PTHREAD_MUTEX_INITIALIZER;
	struct spur_error err = { 0 };
	json_t *reply = NULL;
	int fd;

	pthread_mutex_lock(&one);
	fd = cli_send(req, 15000, &reply, &err);
	pthread_mutex_unlock(&one);
	json_decref(req);
	if (fd >= 0)
		close(fd);
	if (reply && !strcmp(spur_json_str(reply, "type", ""), "error")) {
		snprintf(why, wlen, "%s", spur_json_str(reply, "message", "refused"));
		json_decref(reply);
		return NULL;
	}
	if (!reply)
		snprintf(why, wlen, "the cluster's controller: %s", err.msg);
	return reply;
}

json_t *cloud_jobs_by_id(const json_t *jobs)
{
	json_t *by = json_object(), *j;
	size_t i;

	json_array_foreach(jobs, i, j) {
		char key[24];

		snprintf(key, sizeof(key), "%lld", (long long)spur_json_int(j, "job_id", 0));
		json_object_set(by, key, j);
	}
	return by;
}

/* The session's state from its job's: state and outcome (NULL: none yet). */
static void state_of(const char *job_state, const char **state, const char **outcome)
{
	static const char *const map[][3] = {
		{ "PENDING", "queued", NULL },		{ "RUNNING", "running", NULL },
		{ "COMPLETING", "stopping", NULL },	{ "COMPLETED", "ended", "completed" },
		{ "FAILED", "ended", "failed" },	{ "OUT_OF_MEMORY", "ended", "failed" },
		{ "NODE_FAIL", "ended", "failed" },	{ "CANCELLED", "ended", "cancelled" },
		{ "PREEMPTED", "ended", "cancelled" }, { "TIMEOUT", "ended", "timeout" },
	};

	*state = "ended", *outcome = "unknown";
	for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++)
		if (!strcmp(job_state, map[i][0])) {
			*state = map[i][1], *outcome = map[i][2];
			return;
		}
}

/* Bring the org's sessions not yet ended up to date with the controller
 * (one "queue" request for them all); a controller that cannot be reached
 * leaves them as they were. A session stopped for its budget keeps that
 * reason. */
static void refresh(struct cloud_api *api, const char *oid)
{
	const char *p[1] = { oid };
	json_t *rows = NULL, *row, *r = NULL, *byjob = NULL;
	char why[256];
	size_t i;

	if (cloud_db_query(api->db,
			   "SELECT id, job_id FROM sessions WHERE org_id = $1::bigint AND state <> "
			   "'ended' AND job_id IS NOT NULL",
			   1, p, &rows, why, sizeof(why)) || !json_array_size(rows) ||
	    !(r = cloud_ctld(json_pack("{s:s,s:b}", "type", "queue", "all", 1), why, sizeof(why))))
		goto out;
	byjob = cloud_jobs_by_id(json_object_get(r, "jobs"));
	json_array_foreach(rows, i, row) {
		const json_t *job = json_object_get(byjob, cloud_field(row, "job_id"));
		const char *state, *outcome, *u[4];

		state_of(job ? spur_json_str(job, "state", "") : "", &state, &outcome);
		u[0] = cloud_field(row, "id"), u[1] = state, u[2] = outcome;
		u[3] = job ? spur_json_str(job, "reason", "") : "the job is no longer known";
		cloud_db_query(api->db,
			       "UPDATE sessions SET state = $2, outcome = $3, reason = CASE WHEN "
			       "reason LIKE 'budget:%' OR reason LIKE 'idle:%' THEN reason ELSE $4 END, "
			       "ended = CASE WHEN $2 = "
			       "'ended' THEN coalesce(ended, now()) END WHERE id = $1::bigint",
			       4, u, NULL, why, sizeof(why));
	}
out:
	json_decref(rows);
	json_decref(r);
	json_decref(byjob);
}

/* A batch job's integer fields and the job's keys for them. */
static const char *const job_ints[][2] = {
	{ "nodes", "nodes" }, { "ntasks", "ntasks" }, { "cpus_per_task", "cpus_per_task" },
	{ "mem", "mem_per_node" },
};

/* The jupyter template's script: the notebook server on port, under the
 * proxy's path (base), its token from the job's environment (set by
 * job_of; no other user sees a job's environment). */
static void jupyter_script(char *out, size_t len, const char *base, unsigned port)
{
	snprintf(out, len,
		 "# Spur-Cloud: the jupyter template\n"
		 "cd \"${HOME:-/tmp}\" 2>/dev/null || cd /tmp\n"
		 "export JUPYTER_RUNTIME_DIR=\"${TMPDIR:-/tmp}/spur-cloud-jupyter-$SLURM_JOB_ID\"\n"
		 "[ ${#JUPYTER_TOKEN} = 64 ] || { echo 'spur-cloud: no notebook secret' >&2; exit 1; }\n"
		 "exec jupyter notebook --no-browser --ip=0.0.0.0 --port=%u "
		 "--NotebookApp.port_retries=0 --NotebookApp.base_url=%s "
		 "--NotebookApp.token=\"$JUPYTER_TOKEN\" "
		 "--NotebookApp.allow_remote_access=True --allow-root\n",
		 port, base);
}

/* With SSH keys: the job's own SSH server (Debian's sshd, as the job's
 * user, who alone may log in, with those keys alone) on ssh_port, in the
 * background of the job (its logins inside the job's cgroups, as Slurm's
 * pam_slurm_adopt puts them, with the job's Slurm and GPU variables), its
 * files in a new private folder; the keys come in the job's environment
 * (CLOUD_SSH_KEYS, one a line). */
static size_t ssh_prelude(char *out, size_t len, unsigned ssh_port)
{
	return (size_t)snprintf(
		out, len,
		"if [ -n \"$CLOUD_SSH_KEYS\" ]; then\n"
		"  d=$(mktemp -d) && printf '%%s\\n' \"$CLOUD_SSH_KEYS\" >\"$d/keys\" &&\n"
		"  ssh-keygen -q -t ed25519 -N '' -f \"$d/host\" </dev/null || exit 1\n"
		"  [ \"$(id -u)\" != 0 ] || mkdir -p /run/sshd\n"
		"  e=; for v in SLURM_JOB_ID SLURM_JOBID SLURM_JOB_NAME SLURM_JOB_NODELIST "
		"SLURMD_NODENAME SLURM_JOB_ACCOUNT SLURM_JOB_PARTITION SLURM_JOB_GPUS "
		"CUDA_VISIBLE_DEVICES ROCR_VISIBLE_DEVICES GPU_DEVICE_ORDINAL; do\n"
		"    eval \"x=\\${$v-}\"; case \"$x\" in ''|*[!A-Za-z0-9_.,:/@+-]*) ;; "
		"*) e=\"$e $v=$x\";; esac\n"
		"  done\n"
		"  /usr/sbin/sshd -D -e -f /dev/null -p %u -h \"$d/host\" -o "
		"AuthorizedKeysFile=\"$d/keys\" -o AllowUsers=\"$(id -un)\" -o "
		"PasswordAuthentication=no -o KbdInteractiveAuthentication=no -o UsePAM=no -o "
		"PidFile=none -o StrictModes=no -o PermitRootLogin=prohibit-password "
		"${e:+-o \"SetEnv=$e\"} "
		"2>\"$d/sshd.log\" </dev/null &\n"
		"  unset CLOUD_SSH_KEYS\n"
		"fi\n",
		ssh_port);
}

/* The job a session is: its template's script under the project's
 * account (a shell waits: its time limit or a stop ends it); a jupyter
 * session's proxy path (base), port and secret; its SSH server's port. */
static json_t *job_of(const json_t *b, const char *id, const char *account, const char *base,
		      unsigned port, const char *secret, unsigned ssh_port, const char *output)
{
	struct passwd *pw = getpwuid(getuid());
	const char *cmd = cloud_field(b, "command");
	const json_t *keys = json_object_get(b, "ssh_keys"), *k;
	char script[8400], name[40];
	size_t o = (size_t)snprintf(script, sizeof(script), "#!/bin/sh\n"), ki;
	json_t *job;

	if (ssh_port)
		o += ssh_prelude(script + o, sizeof(script) - o, ssh_port);
	if (port)
		jupyter_script(script + o, sizeof(script) - o, base, port);
	else
		snprintf(script + o, sizeof(script) - o, "%s\n",
			 *cmd ? cmd : "exec sleep 2147483647 # waits for the terminal");
	snprintf(name, sizeof(name), "cloud-%s", id);
	job = json_pack("{s:s,s:s,s:s,s:s,s:I,s:I,s:s,s:s,s:I,s:{}}", "script",
			strcmp(cloud_field(b, "template"), "batch") ? script : cmd, "name", name,
			"account", account, "user", pw ? pw->pw_name : "nobody", "uid",
			(json_int_t)getuid(), "gid", (json_int_t)getgid(), "workdir", "/tmp",
			"output", output, "time_limit",
			(json_int_t)json_integer_value(json_object_get(b, "time_limit")) * 60, "env");
	if (json_integer_value(json_object_get(b, "gpus")) > 0)
		json_object_set_new(job, "gpus", json_integer(json_integer_value(json_object_get(b, "gpus"))));
	if (*cloud_field(b, "gpu_type"))
		json_object_set_new(job, "gpu_type", json_string(cloud_field(b, "gpu_type")));
	/* a batch job's sbatch fields */
	for (size_t i = 0; i < sizeof(job_ints) / sizeof(job_ints[0]); i++)
		if (json_is_integer(json_object_get(b, job_ints[i][0])))
			json_object_set(job, job_ints[i][1], json_object_get(b, job_ints[i][0]));
	if (*cloud_field(b, "image"))
		json_object_set_new(job, "container",
				    json_pack("{s:s}", "image", cloud_field(b, "image")));
	if (port)
		json_object_set_new(json_object_get(job, "env"), "JUPYTER_TOKEN",
				    json_string(secret));
	if (ssh_port) {
		char *all = calloc(1, 16 * 8200);

		json_array_foreach(keys, ki, k)
			if (all)
				snprintf(all + strlen(all), 16 * 8200 - strlen(all), "%s%s",
					 ki ? "\n" : "", json_string_value(k));
		json_object_set_new(json_object_get(job, "env"), "CLOUD_SSH_KEYS",
				    json_string(all ? all : ""));
		free(all);
	}
	return job;
}

/* Minutes: an integer from 1 to a week. */
static bool valid_minutes(const json_t *v)
{
	return json_is_integer(v) && json_integer_value(v) >= 1 && json_integer_value(v) <= 10080;
}

/* ssh_keys: 1 to 16 public keys as OpenSSH writes them (TYPE BASE64
 * [COMMENT], one line, no options): NULL, or what is wrong. */
static const char *invalid_keys(const json_t *keys)
{
	static const char *const types[] = { "ssh-ed25519 ", "ssh-rsa ", "ecdsa-sha2-nistp256 ",
					     "ecdsa-sha2-nistp384 ", "ecdsa-sha2-nistp521 ",
					     "sk-ssh-ed25519@openssh.com ",
					     "sk-ecdsa-sha2-nistp256@openssh.com " };
	const json_t *k;
	size_t i;

	if (!json_is_array(keys) || !json_array_size(keys) || json_array_size(keys) > 16)
		return "ssh_keys: 1 to 16 public keys";
	json_array_foreach(keys, i, k) {
		const char *s = json_string_value(k), *b64;
		size_t t = 0, n;

		if (!s || strlen(s) > 8192)
			return "ssh_keys: each a public key of at most 8,192 characters";
		while (t < sizeof(types) / sizeof(types[0]) && strncmp(s, types[t], strlen(types[t])))
			t++;
		if (t == sizeof(types) / sizeof(types[0]))
			return "ssh_keys: each an OpenSSH public key (ssh-ed25519, ssh-rsa, ecdsa-sha2-*, "
			       "sk-*): TYPE BASE64 [COMMENT]";
		b64 = s + strlen(types[t]);
		n = strspn(b64, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=");
		if (n < 16 || (b64[n] && b64[n] != ' '))
			return "ssh_keys: a key's base64 part is not one";
		for (const char *c = b64 + n; *c; c++)
			if ((unsigned char)*c < 0x20 || *c == 0x7f)
				return "ssh_keys: no control characters (one key, one line)";
	}
	return NULL;
}

/* The template's fields: NULL, or what is wrong. */
static const char *invalid_template(const json_t *b)
{
	const char *tpl = *cloud_field(b, "template") ? cloud_field(b, "template") : "command";
	const char *bad;
	const char *cmd = cloud_field(b, "command"), *img = cloud_field(b, "image");

	if (json_object_get(b, "ssh_keys") && (bad = invalid_keys(json_object_get(b, "ssh_keys"))))
		return bad;
	if (json_object_get(b, "ssh_keys") && (!strcmp(tpl, "image") || !strcmp(tpl, "batch")))
		return "ssh_keys: not with templates image and batch (their jobs run no SSH server)";
	if (!strcmp(tpl, "batch")) /* made by cloud_jobs, checked there */
		return NULL;
	if (strcmp(tpl, "command") && strcmp(tpl, "shell") && strcmp(tpl, "image") &&
	    strcmp(tpl, "jupyter"))
		return "template: command, shell, image or jupyter";
	if (strlen(cmd) > 4096 || (!strcmp(tpl, "command") && !*cmd))
		return "command: 1 to 4096 characters (template command needs one)";
	if ((!strcmp(tpl, "shell") || !strcmp(tpl, "jupyter")) && *cmd)
		return "command: a shell or jupyter session takes none (use template command)";
	if (!strcmp(tpl, "image") != !!*img)
		return "image: the template image needs one, the others take none";
	/* as srun --container-image takes it: an absolute path, or a name in
	 * the nodes' stores (registries are refused: import first) */
	if (*img && (strlen(img) > 1024 ||
		     (*img != '/' &&
		      strspn(img, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._:+-@") !=
			      strlen(img))))
		return "image: an absolute path on the nodes or a name in their image stores";
	return NULL;
}

/* The body's fields checked: NULL, or what is wrong. */
static const char *invalid(const json_t *b)
{
	const json_t *g = json_object_get(b, "gpus"), *t = json_object_get(b, "time_limit");
	const char *type = cloud_field(b, "gpu_type"), *bad;

	if ((bad = invalid_template(b)))
		return bad;
	if (g && (!json_is_integer(g) || json_integer_value(g) < 0 || json_integer_value(g) > 64))
		return "gpus: an integer from 0 to 64";
	if (!json_is_integer(t) || json_integer_value(t) < 1 || json_integer_value(t) > 10080)
		return "time_limit: minutes, an integer from 1 to 10080";
	if (strlen(type) > 32 || strspn(type, "abcdefghijklmnopqrstuvwxyz0123456789_") != strlen(type))
		return "gpu_type: a-z, 0-9, _ (at most 32)";
	if (strlen(cloud_field(b, "name")) > 64)
		return "name: at most 64 characters";
	if (json_object_get(b, "idle_limit") && !valid_minutes(json_object_get(b, "idle_limit")))
		return "idle_limit: minutes, an integer from 1 to 10080";
	return NULL;
}

/* One session (its state brought up to date) as the answer, with status. */
static void show(struct cloud_api *api, const char *oid, const char *id, int status,
		 struct cloud_resp *rs)
{
	const char *p[2] = { oid, id };
	json_t *rows = NULL;
	char why[256];
	int rc;

	refresh(api, oid);
	rc = cloud_db_query(api->db,
			    "SELECT " SESSION_COLS SESSION_FROM
			    " WHERE s.org_id = $1::bigint AND s.id = $2::bigint",
			    2, p, &rows, why, sizeof(why));
	if (rc)
		cloud_db_error(rs, rc, why);
	else if (!json_array_size(rows))
		cloud_error(rs, 404, "no such session");
	else
		cloud_reply(rs, status, json_incref(json_array_get(rows, 0)));
	json_decref(rows);
}

/* GET .../sessions[?limit=N][&after=ID]: a page of the organisation's
 * sessions by id (limit 1 to 1000, 1000 when not given), after the last
 * of the page before. */
static void list(struct cloud_api *api, const struct cloud_req *rq, const char *oid,
		 struct cloud_resp *rs)
{
	const char *lim = cloud_arg(rq, "limit"), *after = cloud_arg(rq, "after");
	const char *p[3] = { oid, after ? after : "0", lim ? lim : "1000" };

	if ((lim && (!*lim || strspn(lim, "0123456789") != strlen(lim) || strlen(lim) > 4 ||
		     atoi(lim) < 1 || atoi(lim) > 1000)) ||
	    (after && (!*after || strspn(after, "0123456789") != strlen(after) || strlen(after) > 18))) {
		cloud_error(rs, 400, "limit: 1 to 1000; after: a session id");
		return;
	}
	refresh(api, oid);
	cloud_list_reply(api, rs, "sessions",
			 "SELECT " SESSION_COLS SESSION_FROM " WHERE s.org_id = $1::bigint AND s.id > "
			 "$2::bigint ORDER BY s.id LIMIT $3::int",
			 3, p);
}

/* The quota a session of p[4] GPUs of type p[5] (any: '') would pass in
 * org p[0] for user p[2]: a quota of type T counts the live (not ended)
 * sessions of type T and those of no type (they may take T); one of type ''
 * counts all. */
#define QUOTA_HIT                                                                              \
	"EXISTS (SELECT 1 FROM quotas q WHERE q.org_id = $1::bigint AND (q.gpu_type = '' OR "     \
	"$6 = '' OR q.gpu_type = $6) AND ($5::int + (SELECT coalesce(sum(s.gpus), 0) FROM "       \
	"sessions s WHERE s.org_id = $1::bigint AND s.state <> 'ended' AND (q.gpu_type = '' OR "  \
	"s.gpu_type = '' OR s.gpu_type = q.gpu_type)) > q.max_gpus OR (q.max_gpus_per_user IS "   \
	"NOT NULL AND $5::int + (SELECT coalesce(sum(s.gpus), 0) FROM sessions s WHERE "          \
	"s.org_id = $1::bigint AND s.user_id = $3::bigint AND s.state <> 'ended' AND "            \
	"(q.gpu_type = '' OR s.gpu_type = '' OR s.gpu_type = q.gpu_type)) > "                     \
	"q.max_gpus_per_user)))"

/* Is org $1's budget spent (it has one, and its credits less its usage
 * are not above zero)? */
#define BUDGET_SPENT                                                                           \
	"EXISTS (SELECT 1 FROM orgs o WHERE o.id = $1::bigint AND o.budgeted AND (SELECT "       \
	"coalesce(sum(amount), 0) FROM credits WHERE org_id = o.id) - (SELECT coalesce(sum(cost), " \
	"0) FROM usage WHERE org_id = o.id) <= 0)"

/* The session's row, unless its project is not there or a quota stops it
 * (then no row): under the organisation's lock, so two starts at once
 * (in one service or several) cannot both pass a quota one of them fills. */
static int insert(struct cloud_api *api, const char *const *p, json_t **rows, char *why,
		  size_t wlen)
{
	const char *sql[2] = {
		"SELECT pg_advisory_xact_lock(7371, $1::int)",
		"INSERT INTO sessions (org_id, project_id, user_id, name, gpus, gpu_type, template, "
		"command, image, time_limit, idle_limit, state) SELECT $1::bigint, p.id, $3::bigint, "
		"$4, $5::int, $6, $9, $7, nullif($10, ''), $8::int, $11::int, 'requested' FROM "
		"projects p WHERE "
		"p.org_id = $1::bigint AND "
		"p.name = $2 AND NOT (" QUOTA_HIT ") AND NOT " BUDGET_SPENT " RETURNING id, (SELECT "
		"account FROM projects "
		"WHERE org_id = $1::bigint AND name = $2)"
	};
	const char *const *params[2] = { p, p };
	int n[2] = { 1, 11 };

	return cloud_db_tx(api->db, 2, sql, n, params, rows, why, wlen);
}

/* Why no row was made: 404 (no project), 402 (the budget) or 403 naming
 * the quota. */
static void refused(struct cloud_api *api, const char *const *p, struct cloud_resp *rs)
{
	json_t *rows = NULL;
	char why[256], msg[300];
	int rc = cloud_db_query(api->db,
				"SELECT (SELECT count(*) FROM projects WHERE org_id = $1::bigint AND "
				"name = $2) AS projects, " QUOTA_HIT " AS hit, " BUDGET_SPENT
				" AS spent, $3, $4, $7, $8",
				8, p, &rows, why, sizeof(why));
	const json_t *row = json_array_get(rows, 0);

	if (rc)
		cloud_db_error(rs, rc, why);
	else if (!strcmp(cloud_field(row, "projects"), "0"))
		cloud_error(rs, 404, "no such project");
	else if (!strcmp(cloud_field(row, "spent"), "t"))
		cloud_error(rs, 402, "budget: the organisation's credit is spent (GET "
				     "/v1/orgs/ORG/budget)");
	else {
		snprintf(msg, sizeof(msg),
			 "quota: %s more %s GPU%s would pass the organisation's or your limit on "
			 "GPUs in use at once (GET /v1/orgs/ORG/quotas)",
			 p[4], *p[5] ? p[5] : "", strcmp(p[4], "1") ? "s" : "");
		cloud_error(rs, 403, msg);
	}
	json_decref(rows);
}

/* A jupyter session's port on its node (one of 20,000 from its id; a
 * port taken there fails the session, saying so in its job's end), secret
 * and proxy path (base), kept with the session: 0, or -1 with why. */
static int jupyter_prepare(struct cloud_api *api, const char *org, const char *id,
			   unsigned *port, char *secret, char *base, size_t blen, char *why,
			   size_t wlen)
{
	unsigned char raw[32];
	char ports[8];
	const char *p[3] = { id, secret, ports };

	randombytes_buf(raw, sizeof(raw));
	sodium_bin2hex(secret, 65, raw, sizeof(raw));
	*port = 20000 + (unsigned)(strtoull(id, NULL, 10) % 20000);
	snprintf(ports, sizeof(ports), "%u", *port);
	snprintf(base, blen, "/v1/orgs/%s/sessions/%s/proxy/%u/", org, id, *port);
	return cloud_db_query(api->db,
			      "UPDATE sessions SET secret = $2, port = $3::int WHERE id = $1::bigint", 3,
			      p, NULL, why, wlen)
		       ? -1
		       : 0;
}

/* A session with SSH keys: its SSH server's port on its node (one of
 * 20,000 from its id, apart from the notebooks'), kept with it: the port,
 * or 0 with why. */
static unsigned ssh_prepare(struct cloud_api *api, const char *id, char *why, size_t wlen)
{
	unsigned port = 40000 + (unsigned)(strtoull(id, NULL, 10) % 20000);
	char ps[8];
	const char *p[2] = { id, ps };

	snprintf(ps, sizeof(ps), "%u", port);
	return cloud_db_query(api->db, "UPDATE sessions SET ssh_port = $2::int WHERE id = $1::bigint",
			      2, p, NULL, why, wlen)
		       ? 0
		       : port;
}

static void start(struct cloud_api *api, json_t *b, const struct who *w, const char *org,
		  const char *oid, const char *project, struct cloud_resp *rs)
{
	json_t *rows = NULL, *r = NULL;
	char why[256], said[256], gpus[16], tl[16], id[24], secret[65] = "", base[200] = "";
	char output[3100] = "/dev/null";
	const char *bad, *p[11];
	unsigned port = 0, ssh_port = 0;
	char idle[16];
	int rc;

	if (!b)
		return;
	if ((bad = invalid(b))) {
		cloud_error(rs, 400, bad);
		goto out;
	}
	snprintf(gpus, sizeof(gpus), "%d", (int)json_integer_value(json_object_get(b, "gpus")));
	snprintf(tl, sizeof(tl), "%d", (int)json_integer_value(json_object_get(b, "time_limit")));
	p[0] = oid, p[1] = project, p[2] = w->id, p[3] = cloud_field(b, "name"), p[4] = gpus;
	p[5] = cloud_field(b, "gpu_type"), p[6] = cloud_field(b, "command"), p[7] = tl;
	p[8] = *cloud_field(b, "template") ? cloud_field(b, "template") : "command";
	p[9] = cloud_field(b, "image");
	snprintf(idle, sizeof(idle), "%d", (int)json_integer_value(json_object_get(b, "idle_limit")));
	p[10] = json_is_integer(json_object_get(b, "idle_limit")) ? idle : NULL;
	rc = insert(api, p, &rows, why, sizeof(why));
	if (rc || !json_array_size(rows)) {
		if (rc)
			cloud_db_error(rs, rc, why);
		else
			refused(api, p, rs);
		goto out;
	}
	snprintf(id, sizeof(id), "%s", cloud_field(json_array_get(rows, 0), "id"));
	if (json_object_get(b, "ssh_keys"))
		ssh_port = ssh_prepare(api, id, said, sizeof(said));
	if (api->output_dir) /* the job's output, kept for GET .../output */
		snprintf(output, sizeof(output), "%s/session-%s.out", api->output_dir, id);
	if ((!strcmp(p[8], "jupyter") &&
	     jupyter_prepare(api, org, id, &port, secret, base, sizeof(base), said, sizeof(said))) ||
	    (json_object_get(b, "ssh_keys") && !ssh_port))
		snprintf(said, sizeof(said), "the database: the session's ports were not kept");
	else
		r = cloud_ctld(json_pack("{s:s,s:o}", "type", "submit", "job",
					 job_of(b, id, cloud_field(json_array_get(rows, 0), "account"),
						base, port, secret, ssh_port, output)),
			       said, sizeof(said));
	sodium_memzero(secret, sizeof(secret));
	p[0] = id;
	if (!r) { /* the session ends there, saying why */
		p[1] = said;
		cloud_db_query(api->db,
			       "UPDATE sessions SET state = 'ended', outcome = 'failed', reason = $2, "
			       "ended = now() WHERE id = $1::bigint",
			       2, p, NULL, why, sizeof(why));
		cloud_error(rs, strstr(p[1], "controller:") ? 503 : 400, p[1]);
		goto out;
	}
	snprintf(gpus, sizeof(gpus), "%lld", (long long)spur_json_int(r, "job_id", 0));
	p[1] = gpus;
	json_decref(r);
	cloud_db_query(api->db,
		       "UPDATE sessions SET job_id = $2::bigint, state = 'queued' WHERE id = $1::bigint",
		       2, p, NULL, why, sizeof(why));
	show(api, oid, id, 201, rs);
out:
	json_decref(rows);
	json_decref(b);
}

/* Session id of the organisation, for its owner or the organisation's
 * owners and admins: its row (job_id, state; in *rows, which the caller
 * frees), or NULL with rs set (the database, 404, 403). */
static const json_t *acted_on(struct cloud_api *api, const struct who *w, const char *oid,
			      const char *role, const char *id, json_t **rows,
			      struct cloud_resp *rs)
{
	const char *p[3] = { oid, id, w->id };
	const json_t *row;
	char why[256];
	int rc = cloud_db_query(api->db,
				"SELECT job_id, state, user_id = $3::bigint AS mine, secret, port, ssh_port FROM sessions "
				"WHERE org_id = $1::bigint AND id = $2::bigint",
				3, p, rows, why, sizeof(why));

	row = json_array_get(*rows, 0);
	if (rc)
		cloud_db_error(rs, rc, why);
	else if (!row)
		cloud_error(rs, 404, "no such session");
	else if (strcmp(cloud_field(row, "mine"), "t") && !cloud_manages(role))
		cloud_error(rs, 403, "only the session's owner or the organisation's owners and admins");
	else
		return row;
	return NULL;
}

/* DELETE: the job cancelled; the session is stopping until the job ends.
 * Its owner, or the organisation's owners and admins. */
static void stop(struct cloud_api *api, const struct who *w, const char *oid, const char *role,
		 const char *id, struct cloud_resp *rs)
{
	const char *p[2] = { oid, id };
	json_t *rows = NULL, *r;
	const json_t *row = acted_on(api, w, oid, role, id, &rows, rs);
	char why[256];

	if (!row) {
		/* said */
	} else if (!strcmp(cloud_field(row, "state"), "ended") || !*cloud_field(row, "job_id")) {
		show(api, oid, id, 200, rs);
	} else if (!(r = cloud_ctld(json_pack("{s:s,s:[{s:I}]}", "type", "cancel", "jobs", "job_id",
					(json_int_t)atoll(cloud_field(row, "job_id"))),
			      why, sizeof(why)))) {
		cloud_error(rs, 503, why);
	} else {
		json_decref(r);
		cloud_db_query(api->db,
			       "UPDATE sessions SET state = 'stopping' WHERE id = $2::bigint AND "
			       "org_id = $1::bigint AND state <> 'ended'",
			       2, p, NULL, why, sizeof(why));
		show(api, oid, id, 200, rs);
	}
	json_decref(rows);
}

/* A running session as the ways into it need it: its job, its SSH
 * server's port (0: none), and, when the port asked for is its notebook
 * server's, that server's secret ("" otherwise). */
struct entered {
	long long job;
	unsigned ssh_port;
	char secret[65];
};

/* Running session id, for its owner or the organisation's owners and
 * admins, into e (port: the one the caller goes to, 0 none): true, or
 * false with rs set (404, 403, 409). */
static bool enter(struct cloud_api *api, const struct who *w, const char *oid, const char *role,
		  const char *id, unsigned port, struct entered *e, struct cloud_resp *rs)
{
	json_t *rows = NULL;
	const json_t *row;
	char msg[128];

	*e = (struct entered){ 0 };
	refresh(api, oid);
	if (!(row = acted_on(api, w, oid, role, id, &rows, rs))) {
		/* said */
	} else if (strcmp(cloud_field(row, "state"), "running")) {
		snprintf(msg, sizeof(msg), "the session is %s, not running", cloud_field(row, "state"));
		cloud_error(rs, 409, msg);
	} else {
		e->job = atoll(cloud_field(row, "job_id"));
		e->ssh_port = (unsigned)strtoul(cloud_field(row, "ssh_port"), NULL, 10);
		if (port && strtoul(cloud_field(row, "port"), NULL, 10) == port)
			snprintf(e->secret, sizeof(e->secret), "%s", cloud_field(row, "secret"));
	}
	json_decref(rows);
	return e->job != 0;
}

/* GET .../sessions/ID/terminal, a WebSocket upgrade: 101, then
 * terminal.c. */
static void terminal(struct cloud_api *api, const struct cloud_req *rq, const struct who *w,
		     const char *oid, const char *role, const char *id, struct cloud_resp *rs)
{
	if (!rq->ws_key) {
		cloud_error(rs, 400, "the terminal is a WebSocket: GET with Upgrade: websocket");
		return;
	}
	struct entered e;

	if (enter(api, w, oid, role, id, 0, &e, rs)) {
		rs->terminal_job = e.job;
		rs->status = 101;
	}
}

/* GET .../sessions/ID/output[?offset=N]: what the session's job wrote
 * (stdout and stderr), from byte N, or its last MiB; 1 MiB at most. Its
 * owner, or the organisation's owners and admins. */
static void output(struct cloud_api *api, const struct cloud_req *rq, const struct who *w,
		   const char *oid, const char *role, const char *id, struct cloud_resp *rs)
{
	enum { MAX = 1024 * 1024 };
	const char *off = cloud_arg(rq, "offset");
	json_t *rows = NULL;
	char path[3100];
	struct stat st;
	long long from;
	ssize_t n;
	int fd = -1;

	if (!acted_on(api, w, oid, role, id, &rows, rs))
		goto out;
	if (off && (!*off || strspn(off, "0123456789") != strlen(off) || strlen(off) > 15)) {
		cloud_error(rs, 400, "offset: a byte offset, 0 or more");
		goto out;
	}
	snprintf(path, sizeof(path), "%s/session-%s.out", api->output_dir ? api->output_dir : "", id);
	if (!api->output_dir || (fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)) < 0 ||
	    fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		cloud_error(rs, 404, api->output_dir ? "no output (yet) for this session"
						     : "no output is kept (the service runs without "
						       "--output-dir)");
		goto out;
	}
	from = off ? atoll(off) : st.st_size > MAX ? (long long)st.st_size - MAX : 0;
	if (!(rs->body = malloc(MAX + 1)) ||
	    (n = pread(fd, rs->body, MAX, from > st.st_size ? st.st_size : from)) < 0) {
		free(rs->body);
		rs->body = NULL;
		cloud_error(rs, 500, "the session's output cannot be read");
		goto out;
	}
	rs->status = 200, rs->len = (size_t)n, rs->type = strdup("text/plain; charset=utf-8");
	if (!n) /* an empty body: "" rather than no body */
		rs->body[0] = '\0';
out:
	if (fd >= 0)
		close(fd);
	json_decref(rows);
}

/* GET .../sessions/ID/ssh, a WebSocket upgrade: 101, then a tunnel to the
 * session's SSH server (binary frames carry the SSH connection's bytes;
 * spur-cloud-ssh is ssh's ProxyCommand for it). 409 for a session started
 * without SSH keys. */
static void ssh(struct cloud_api *api, const struct cloud_req *rq, const struct who *w,
		const char *oid, const char *role, const char *id, struct cloud_resp *rs)
{
	struct entered e;

	if (!rq->ws_key) {
		cloud_error(rs, 400, "SSH goes through a WebSocket: GET with Upgrade: websocket "
				     "(spur-cloud-ssh as ssh's ProxyCommand)");
		return;
	}
	if (!enter(api, w, oid, role, id, 0, &e, rs))
		return;
	if (!e.ssh_port)
		cloud_error(rs, 409, "the session was started without ssh_keys: no SSH server");
	else
		cloud_ssh_connect(e.job, e.ssh_port, rs);
}

/* .../sessions/ID/proxy/PORT[/PATH]: the session's HTTP port. A token
 * given as ?access_token= is kept in a cookie for this session's proxy
 * path, so a browser's next requests (a page's links) carry it. */
static void proxy(struct cloud_api *api, const struct cloud_req *rq, const struct who *w,
		  const char *org, const char *oid, const char *role, const char *id,
		  const char *sub, struct cloud_resp *rs)
{
	unsigned port = 0;
	int used = 0;
	const char *tok = cloud_arg(rq, "access_token");
	struct entered e;

	if (sscanf(sub, "/proxy/%5u%n", &port, &used) != 1 || port < 1 || port > 65535 ||
	    (sub[used] && sub[used] != '/')) {
		cloud_error(rs, 404, "the proxy's path: .../proxy/PORT/PATH (PORT 1 to 65535)");
		return;
	}
	if (!enter(api, w, oid, role, id, port, &e, rs))
		return;
	/* a notebook server serves under the proxy's path (its base_url): the
	 * whole path goes on; another server gets the path below PORT/ */
	cloud_proxy(rq, e.job, port, *e.secret ? rq->path + 1 : sub[used] ? sub + used + 1 : "",
		    e.secret, rs);
	sodium_memzero(e.secret, sizeof(e.secret));
	if (tok && strlen(tok) < 128 && strspn(tok, "spc_0123456789abcdef") == strlen(tok) &&
	    (rs->set_cookie = malloc(512)))
		snprintf(rs->set_cookie, 512,
			 "spur_cloud_token=%s; Path=/v1/orgs/%s/sessions/%s/proxy/; HttpOnly; "
			 "SameSite=Strict",
			 tok, org, id);
}

/* PATCH .../sessions/ID {time_limit, idle_limit}: a new time limit,
 * queued or running (the controller's update of the job: it may refuse,
 * as Slurm does, a raise by one who is not an administrator), or idle
 * limit (null: none). Its owner, or the organisation's owners and admins;
 * live sessions only. */
static void change(struct cloud_api *api, const struct cloud_req *rq, const struct who *w,
		   const char *oid, const char *role, const char *id, struct cloud_resp *rs)
{
	json_t *b = cloud_body(rq, rs), *rows = NULL, *r;
	const json_t *t, *il;
	const char *p[3] = { oid, id, NULL };
	char why[256], v[16];
	const json_t *row;

	if (!b)
		return;
	refresh(api, oid);
	t = json_object_get(b, "time_limit"), il = json_object_get(b, "idle_limit");
	if ((!t && !il) || (t && !valid_minutes(t)) || (il && !json_is_null(il) && !valid_minutes(il))) {
		cloud_error(rs, 400, "time_limit, idle_limit: minutes, 1 to 10080 (idle_limit null: none)");
		goto out;
	}
	if (!(row = acted_on(api, w, oid, role, id, &rows, rs))) {
		goto out;
	} else if (strcmp(cloud_field(row, "state"), "running") &&
		   strcmp(cloud_field(row, "state"), "queued")) {
		cloud_error(rs, 409, "the session is not queued or running");
		goto out;
	}
	if (t && !(r = cloud_ctld(json_pack("{s:s,s:I,s:{s:I}}", "type", "update", "job_id",
					      (json_int_t)atoll(cloud_field(row, "job_id")), "set",
					      "time_limit", json_integer_value(t) * 60),
				  why, sizeof(why)))) {
		cloud_error(rs, strstr(why, "controller:") ? 503 : 409, why);
		goto out;
	} else if (t) {
		json_decref(r);
		snprintf(v, sizeof(v), "%d", (int)json_integer_value(t));
		p[2] = v;
		cloud_db_query(api->db,
			       "UPDATE sessions SET time_limit = $3::int WHERE org_id = $1::bigint AND "
			       "id = $2::bigint",
			       3, p, NULL, why, sizeof(why));
	}
	if (il) {
		snprintf(v, sizeof(v), "%d", (int)json_integer_value(il));
		p[2] = json_is_null(il) ? NULL : v;
		cloud_db_query(api->db,
			       "UPDATE sessions SET idle_limit = $3::int, last_active = now() WHERE "
			       "org_id = $1::bigint AND id = $2::bigint",
			       3, p, NULL, why, sizeof(why));
	}
	show(api, oid, id, 200, rs);
out:
	json_decref(rows);
	json_decref(b);
}

void cloud_sessions(struct cloud_api *api, const struct cloud_req *rq, const struct who *w,
		    const char *org, const char *project, const char *rest, struct cloud_resp *rs)
{
	char oid[24], role[16], id[24] = "";
	const char *sub = rest;
	bool get = !strcmp(rq->method, "GET");

	if (*rest == '/') {
		size_t l = strspn(rest + 1, "0123456789");

		if (l && l <= 18)
			snprintf(id, sizeof(id), "%.*s", (int)l, rest + 1);
		sub = rest + 1 + l;
	}
	if ((*rest && !*id) ||
	    (*sub && strcmp(sub, "/terminal") && strcmp(sub, "/ssh") && strcmp(sub, "/output") &&
	     strncmp(sub, "/proxy/", 7))) {
		cloud_error(rs, 404, "no such session");
		return;
	}
	if (cloud_org_role(api, w, org, oid, role, rs))
		return;
	if ((!get || (*sub && strcmp(sub, "/output"))) && (!w->write || !strcmp(role, "viewer"))) {
		cloud_error(rs, 403, w->write ? "a viewer cannot start, change, stop or enter sessions"
					      : "this key is read-only");
		return;
	}
	if (!strncmp(sub, "/proxy/", 7))
		proxy(api, rq, w, org, oid, role, id, sub, rs);
	else if (!strcmp(sub, "/output") && get)
		output(api, rq, w, oid, role, id, rs);
	else if (!strcmp(sub, "/ssh") && get)
		ssh(api, rq, w, oid, role, id, rs);
	else if (*sub && get)
		terminal(api, rq, w, oid, role, id, rs);
	else if (project && !*id && !strcmp(rq->method, "POST"))
		start(api, cloud_body(rq, rs), w, org, oid, project, rs);
	else if (!project && get && !*sub && *id)
		show(api, oid, id, 200, rs);
	else if (!project && get && !*sub)
		list(api, rq, oid, rs);
	else if (!project && *id && !*sub && !strcmp(rq->method, "DELETE"))
		stop(api, w, oid, role, id, rs);
	else if (!project && *id && !*sub && !strcmp(rq->method, "PATCH"))
		change(api, rq, w, oid, role, id, rs);
	else
		cloud_error(rs, 405, "POST /v1/orgs/ORG/projects/P/sessions, GET /v1/orgs/ORG/sessions[/ID], "
				     "DELETE|PATCH /v1/orgs/ORG/sessions/ID, GET (WebSocket) "
				     "/v1/orgs/ORG/sessions/ID/terminal, any "
				     "/v1/orgs/ORG/sessions/ID/proxy/PORT/PATH");
}

/* POST /v1/orgs/ORG/projects/P/jobs {script, name, time_limit, gpus,
 * gpu_type, nodes, ntasks, cpus_per_task, mem}: a batch job, as sbatch
 * submits one, made a session of template "batch" (its state, metering,
 * quotas and budget as any session's). Other fields are refused by name. */
void cloud_jobs(struct cloud_api *api, const struct cloud_req *rq, const struct who *w,
		const char *org, const char *project, struct cloud_resp *rs)
{
	static const char *const ok[] = { "script", "name",  "time_limit",	"gpus", "gpu_type",
					  "nodes",  "ntasks", "cpus_per_task", "mem" };
	char oid[24], role[16], msg[160];
	json_t *b;
	const json_t *v;
	const char *k, *script;

	if (strcmp(rq->method, "POST")) {
		cloud_error(rs, 405, "POST /v1/orgs/ORG/projects/P/jobs");
		return;
	}
	if (cloud_org_role(api, w, org, oid, role, rs))
		return;
	if (!w->write || !strcmp(role, "viewer")) {
		cloud_error(rs, 403, w->write ? "a viewer cannot submit jobs" : "this key is read-only");
		return;
	}
	if (!(b = cloud_body(rq, rs)))
		return;
	json_object_foreach(b, k, v) {
		bool known = false;

		for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++)
			known |= !strcmp(k, ok[i]);
		if (!known || (strcmp(k, "script") && strcmp(k, "name") && strcmp(k, "gpu_type") &&
			       (!json_is_integer(v) || json_integer_value(v) < 1 ||
				json_integer_value(v) > 1000000) &&
			       !(!strcmp(k, "gpus") && json_is_integer(v) && !json_integer_value(v)))) {
			snprintf(msg, sizeof(msg),
				 known ? "%.40s: a positive integer"
				       : "%.40s: not supported (script, name, time_limit, gpus, gpu_type, "
					 "nodes, ntasks, cpus_per_task, mem)",
				 k);
			cloud_error(rs, 400, msg);
			json_decref(b);
			return;
		}
	}
	script = cloud_field(b, "script");
	if (strncmp(script, "#!", 2) || strlen(script) > 65000) {
		cloud_error(rs, 400, "script: a batch script (it starts with #!), at most 65000 bytes");
		json_decref(b);
		return;
	}
	json_object_set_new(b, "template", json_string("batch"));
	json_object_set_new(b, "command", json_string(script));
	json_object_del(b, "script");
	start(api, b, w, org, oid, project, rs);
}

/* GET /v1/orgs/ORG/quotas (members), PUT (the service's administrators):
 * {gpu_type ('' all types), max_gpus, max_gpus_per_user (null: none)}. */
void cloud_quotas(struct cloud_api *api, const struct cloud_req *rq, const struct who *w,
		  const char *org, struct cloud_resp *rs)
{
	const char *p[4] = { w->id, org };
	char oid[24], role[16], why[256], mx[16], mu[16];
	json_t *b = NULL, *rows = NULL;
	const json_t *m, *u;
	int rc;

	if (!strcmp(rq->method, "GET")) {
		if (cloud_org_role(api, w, org, oid, role, rs))
			return;
		p[0] = oid;
		cloud_list_reply(api, rs, "quotas",
				 "SELECT gpu_type, max_gpus, max_gpus_per_user FROM quotas WHERE "
				 "org_id = $1::bigint ORDER BY gpu_type",
				 1, p);
		return;
	}
	if (strcmp(rq->method, "PUT")) {
		cloud_error(rs, 405, "GET or PUT /v1/orgs/ORG/quotas");
		return;
	}
	if (!w->write) {
		cloud_error(rs, 403, "this key is read-only");
		return;
	}
	if (!(b = cloud_body(rq, rs)))
		return;
	m = json_object_get(b, "max_gpus"), u = json_object_get(b, "max_gpus_per_user");
	if (!json_is_integer(m) || json_integer_value(m) < 0 || json_integer_value(m) > 100000 ||
	    (u && !json_is_null(u) &&
	     (!json_is_integer(u) || json_integer_value(u) < 0 || json_integer_value(u) > 100000))) {
		cloud_error(rs, 400, "max_gpus (and max_gpus_per_user, or null): 0 to 100000");
		goto out;
	}
	snprintf(mx, sizeof(mx), "%d", (int)json_integer_value(m));
	snprintf(mu, sizeof(mu), "%d", (int)json_integer_value(u));
	p[2] = cloud_field(b, "gpu_type"), p[3] = mx;
	{
		const char *q[5] = { p[0], p[1], p[2], p[3], json_is_integer(u) ? mu : NULL };

		rc = cloud_db_query(
			api->db,
			"INSERT INTO quotas (org_id, gpu_type, max_gpus, max_gpus_per_user) SELECT "
			"o.id, $3, $4::int, $5::int FROM orgs o, users u WHERE o.name = $2 AND u.id = "
			"$1::bigint AND u.is_admin ON CONFLICT (org_id, gpu_type) DO "
			"UPDATE SET max_gpus = excluded.max_gpus, max_gpus_per_user = "
			"excluded.max_gpus_per_user RETURNING gpu_type",
			5, q, &rows, why, sizeof(why));
	}
	if (rc)
		cloud_db_error(rs, rc, "gpu_type: a-z, 0-9, _ (at most 32)");
	else if (!json_array_size(rows))
		cloud_error(rs, 403, "only the service's administrators set quotas (or no such "
				     "organisation)");
	else
		cloud_reply(rs, 200, json_incref(b));
out:
	json_decref(rows);
	json_decref(b);
}
