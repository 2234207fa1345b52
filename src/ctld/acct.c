/* SPDX-License-Identifier: Apache-2.0 */
/* Job accounting in an embedded SQLite database (StateSaveLocation/
 * accounting.db), for sacct. Rows are upserted at submit, start and end, so
 * replaying the operation log rewrites the same rows. */
#include "ctld.h"

#include "common/hostlist.h"
#include "common/log.h"

#include <sqlite3.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

static const char schema[] =
	"PRAGMA journal_mode=WAL;"
	"PRAGMA synchronous=NORMAL;"
	"CREATE TABLE IF NOT EXISTS jobs ("
	" id INTEGER PRIMARY KEY, array_job_id INTEGER, array_task_id INTEGER,"
	" name TEXT, user TEXT, uid INTEGER, account TEXT, partition TEXT, state TEXT,"
	" exit_code INTEGER, submit INTEGER, start INTEGER, end INTEGER, nnodes INTEGER,"
	" nodelist TEXT, cpus INTEGER, gres TEXT, time_limit INTEGER, workdir TEXT, gpus INTEGER,"
	" mem_mb INTEGER);"
	"CREATE INDEX IF NOT EXISTS jobs_user ON jobs(user);"
	"CREATE TABLE IF NOT EXISTS steps ("
	" job_id INTEGER, step TEXT, name TEXT, state TEXT, exit_code INTEGER, start INTEGER,"
	" end INTEGER, nnodes INTEGER, ntasks INTEGER, nodelist TEXT, max_rss INTEGER,"
	" cpus INTEGER, srun_host TEXT, srun_pid INTEGER, tres TEXT, time_limit INTEGER,"
	" PRIMARY KEY (job_id, step));"
	"CREATE TABLE IF NOT EXISTS resvs ("
	" name TEXT, start INTEGER, end INTEGER, nodes TEXT, flags TEXT,"
	" PRIMARY KEY (name, start));";

int ctld_acct_open(struct ctld *c, struct spur_error *err)
{
	char path[4096];
	char *msg = NULL;

	snprintf(path, sizeof(path), "%s/accounting.db", c->state_dir);
	if (sqlite3_open(path, &c->acct) != SQLITE_OK)
		return spur_error_set(err, SPUR_EIO, "accounting database %s: %s", path,
				      sqlite3_errmsg(c->acct));
	if (sqlite3_exec(c->acct, schema, NULL, NULL, &msg) != SQLITE_OK) {
		spur_error_set(err, SPUR_EIO, "accounting database %s: %s", path, msg);
		sqlite3_free(msg);
		return SPUR_EIO;
	}
	/* a database made before steps kept their MaxRSS gets the column (it
	 * is there already on the others: that error is the expected one) */
	sqlite3_exec(c->acct, "ALTER TABLE steps ADD COLUMN max_rss INTEGER", NULL, NULL, NULL);
	/* the same for the jobs' GPUs (sreport's gres/gpu) */
	sqlite3_exec(c->acct, "ALTER TABLE jobs ADD COLUMN gpus INTEGER", NULL, NULL, NULL);
	/* and their memory (Spur-Cloud's GiB-hours) */
	sqlite3_exec(c->acct, "ALTER TABLE jobs ADD COLUMN mem_mb INTEGER", NULL, NULL, NULL);
	/* and the steps' CPUs and srun (scontrol show step) */
	sqlite3_exec(c->acct, "ALTER TABLE steps ADD COLUMN cpus INTEGER", NULL, NULL, NULL);
	sqlite3_exec(c->acct, "ALTER TABLE steps ADD COLUMN srun_host TEXT", NULL, NULL, NULL);
	sqlite3_exec(c->acct, "ALTER TABLE steps ADD COLUMN srun_pid INTEGER", NULL, NULL, NULL);
	sqlite3_exec(c->acct, "ALTER TABLE steps ADD COLUMN tres TEXT", NULL, NULL, NULL);
	sqlite3_exec(c->acct, "ALTER TABLE steps ADD COLUMN time_limit INTEGER", NULL, NULL, NULL);
	return 0;
}

/* Rows are written into one open transaction, which ctld_acct_flush
 * commits: every 20 ms on the leader, once a second on a follower and
 * during a log replay, before a snapshot and at exit. A commit per row was
 * most of the controller's work for a short job (a dozen lock calls and
 * WAL writes each, two or three rows a job); only this process reads the
 * database, and it sees its own open transaction. A row not yet committed
 * when the process dies is written again from the log, which keeps every
 * operation since the last snapshot. */
static void hold(struct ctld *c)
{
	if (sqlite3_get_autocommit(c->acct) &&
	    sqlite3_exec(c->acct, "BEGIN", NULL, NULL, NULL) != SQLITE_OK)
		spur_error_log("accounting: begin: %s", sqlite3_errmsg(c->acct));
}

void ctld_acct_flush(struct ctld *c)
{
	if (!c->acct || sqlite3_get_autocommit(c->acct))
		return;
	if (sqlite3_exec(c->acct, "COMMIT", NULL, NULL, NULL) != SQLITE_OK) {
		spur_error_log("accounting: commit: %s", sqlite3_errmsg(c->acct));
		sqlite3_exec(c->acct, "ROLLBACK", NULL, NULL, NULL);
	}
}

void ctld_acct_close(struct ctld *c)
{
	ctld_acct_flush(c);
	sqlite3_finalize(c->acct_put);
	c->acct_put = NULL;
	sqlite3_close(c->acct);
	c->acct = NULL;
}

/* One step's row. */
struct acct_step {
	uint32_t id;
	const char *step, *name, *state, *nodes, *srun_host, *tres;
	int64_t time_limit; /* srun -t, seconds; 0: the job's */
	int64_t exit_code, start, end, nnodes, ntasks, max_rss_kb, cpus, srun_pid;
};

static void put_step(struct ctld *c, const struct acct_step *s)
{
	static const char sql[] = "INSERT OR REPLACE INTO steps (job_id, step, name, state,"
				  " exit_code, start, end, nnodes, ntasks, nodelist, max_rss, cpus,"
				  " srun_host, srun_pid, tres, time_limit)"
				  " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)";
	sqlite3_stmt *st;

	hold(c);
	if (sqlite3_prepare_v2(c->acct, sql, -1, &st, NULL) != SQLITE_OK)
		return;
	sqlite3_bind_int64(st, 1, s->id);
	sqlite3_bind_text(st, 2, s->step, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 3, s->name, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 4, s->state, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(st, 5, s->exit_code);
	sqlite3_bind_int64(st, 6, s->start);
	sqlite3_bind_int64(st, 7, s->end);
	sqlite3_bind_int64(st, 8, s->nnodes);
	sqlite3_bind_int64(st, 9, s->ntasks);
	sqlite3_bind_text(st, 10, s->nodes ? s->nodes : "", -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(st, 11, s->max_rss_kb);
	sqlite3_bind_int64(st, 12, s->cpus);
	sqlite3_bind_text(st, 13, s->srun_host ? s->srun_host : "", -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(st, 14, s->srun_pid);
	sqlite3_bind_text(st, 15, s->tres ? s->tres : "", -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(st, 16, s->time_limit);
	if (sqlite3_step(st) != SQLITE_DONE)
		spur_error_log("accounting: job %u step %s: %s", s->id, s->step,
			       sqlite3_errmsg(c->acct));
	sqlite3_finalize(st);
}

/* The first node of a hostlist ("node[3-4]": node3), where a batch
 * script runs. */
static const char *first_node(const char *nodes, char *buf, size_t len)
{
	struct spur_hostlist *hl = nodes ? spur_hostlist_from_expr(nodes, NULL) : NULL;

	snprintf(buf, len, "%s", hl && spur_hostlist_count(hl) ? spur_hostlist_nth(hl, 0) : "");
	spur_hostlist_destroy(hl);
	return buf;
}

/* A batch job's script is its step "batch", as Slurm's sacct shows it;
 * when the job ends, its steps still open end with it (CANCELLED). */
static void batch_step(struct ctld *c, const struct ctld_job *cj, const struct sched_job_info *info)
{
	bool ended = info->state != SCHED_JOB_PENDING && info->state != SCHED_JOB_RUNNING;
	char sql[200], first[256];

	if (!cj->start || info->state == SCHED_JOB_PENDING)
		return;
	if (!ctld_job_interactive(cj)) {
		uint32_t cpus = 0;

		for (size_t i = 0; i < info->nalloc && i < 1; i++)
			cpus = info->alloc[i].cpus;
		put_step(c, &(struct acct_step){
				    .id = cj->id, .step = "batch", .name = "batch",
				    .state = sched_job_state_name(info->state),
				    .exit_code = cj->exit_code, .start = cj->start,
				    .end = ended ? cj->end : 0, .nnodes = 1, .ntasks = 1,
				    .nodes = first_node(cj->nodes, first, sizeof(first)),
				    .max_rss_kb = cj->end_op ? spur_json_int(cj->end_op, "max_rss_kb", 0) : 0,
				    .cpus = cpus });
	}
	if (!ended)
		return;
	snprintf(sql, sizeof(sql),
		 "UPDATE steps SET state='CANCELLED', end=%lld WHERE job_id=%u AND state='RUNNING'",
		 (long long)cj->end, cj->id);
	sqlite3_exec(c->acct, sql, NULL, NULL, NULL);
}

size_t ctld_acct_running_steps(struct ctld *c, uint32_t id, uint32_t *out, size_t max)
{
	static const char sql[] = "SELECT step FROM steps WHERE job_id = ? AND state = 'RUNNING'"
				  " AND step != 'batch'";
	sqlite3_stmt *st;
	size_t n = 0;

	if (!c->acct || sqlite3_prepare_v2(c->acct, sql, -1, &st, NULL) != SQLITE_OK)
		return 0;
	sqlite3_bind_int64(st, 1, id);
	while (n < max && sqlite3_step(st) == SQLITE_ROW)
		out[n++] = (uint32_t)sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return n;
}

void ctld_acct_step_limit(struct ctld *c, const json_t *op)
{
	static const char sql[] = "UPDATE steps SET time_limit = ? WHERE job_id = ? AND step = ?";
	sqlite3_stmt *st;
	char name[16];

	if (!c->acct || sqlite3_prepare_v2(c->acct, sql, -1, &st, NULL) != SQLITE_OK)
		return;
	hold(c);
	snprintf(name, sizeof(name), "%lld", (long long)spur_json_int(op, "step", 0));
	sqlite3_bind_int64(st, 1, spur_json_int(op, "time_limit", 0));
	sqlite3_bind_int64(st, 2, spur_json_int(op, "id", 0));
	sqlite3_bind_text(st, 3, name, -1, SQLITE_TRANSIENT);
	if (sqlite3_step(st) != SQLITE_DONE)
		spur_error_log("accounting: step limit: %s", sqlite3_errmsg(c->acct));
	sqlite3_finalize(st);
}

bool ctld_acct_step_running(struct ctld *c, uint32_t id, uint32_t step)
{
	static const char sql[] =
		"SELECT 1 FROM steps WHERE job_id = ? AND step = ? AND state = 'RUNNING'";
	sqlite3_stmt *st;
	char name[16];
	bool running;

	if (!c->acct || sqlite3_prepare_v2(c->acct, sql, -1, &st, NULL) != SQLITE_OK)
		return false;
	snprintf(name, sizeof(name), "%u", step);
	sqlite3_bind_int64(st, 1, id);
	sqlite3_bind_text(st, 2, name, -1, SQLITE_TRANSIENT);
	running = sqlite3_step(st) == SQLITE_ROW;
	sqlite3_finalize(st);
	return running;
}

void ctld_acct_step(struct ctld *c, const json_t *op)
{
	char step[16];

	if (!c->acct)
		return;
	snprintf(step, sizeof(step), "%lld", (long long)spur_json_int(op, "step", 0));
	put_step(c, &(struct acct_step){ .id = (uint32_t)spur_json_int(op, "id", 0), .step = step,
					  .name = spur_json_str(op, "name", ""),
					  .state = spur_json_str(op, "state", "RUNNING"),
					  .exit_code = spur_json_int(op, "exit", 0),
					  .start = spur_json_int(op, "start", 0),
					  .end = spur_json_int(op, "end", 0),
					  .nnodes = spur_json_int(op, "nnodes", 1),
					  .ntasks = spur_json_int(op, "ntasks", 1),
					  .nodes = spur_json_str(op, "nodes", ""),
					  .cpus = spur_json_int(op, "cpus", 0),
					  .srun_host = spur_json_str(op, "srun_host", ""),
					  .srun_pid = spur_json_int(op, "srun_pid", 0),
					  .tres = spur_json_str(op, "tres", ""),
					  .time_limit = spur_json_int(op, "time_limit", 0) });
}

/* The GPUs a job holds (held): from its allocation while it runs, else its
 * first node's GPUs times its nodes (an ended job's allocation is gone). */
static int64_t job_gpus(const struct ctld_job *cj, const struct sched_job_info *info)
{
	int64_t n = 0;

	for (size_t i = 0; i < info->nalloc; i++)
		n += __builtin_popcount(info->alloc[i].gpu_mask);
	if (info->nalloc || !cj->gpus || !*cj->gpus || !cj->start)
		return n;
	n = 1;
	for (const char *p = cj->gpus; *p; p++)
		n += *p == ',';
	return n * (int64_t)spur_json_int(cj->spec, "nodes", 1);
}

/* Write what is known of job id now. */
void ctld_acct_record(struct ctld *c, uint32_t id)
{
	static const char sql[] =
		"INSERT OR REPLACE INTO jobs VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)";
	struct ctld_job *cj = ctld_job(c, id);
	struct sched_job_info info;
	sqlite3_stmt *st;
	const json_t *sp;
	uint32_t cpus = 0;

	if (!c->acct || !cj || sched_job_info(c->sched, id, &info))
		return;
	/* prepared once: a million array tasks were a million SQL parses */
	if (!c->acct_put && sqlite3_prepare_v2(c->acct, sql, -1, &c->acct_put, NULL) != SQLITE_OK) {
		spur_error_log("accounting: %s", sqlite3_errmsg(c->acct));
		return;
	}
	hold(c);
	st = c->acct_put;
	sp = cj->spec;
	for (size_t i = 0; i < info.nalloc; i++)
		cpus += info.alloc[i].cpus;
	if (!cpus && info.state != SCHED_JOB_PENDING)
		cpus = cj->cpus;
	if (!cpus)
		cpus = (uint32_t)(spur_json_int(sp, "cpus_per_task", 1) *
				  (spur_json_int(sp, "ntasks", 0) ? spur_json_int(sp, "ntasks", 0)
								  : spur_json_int(sp, "nodes", 1)));
	sqlite3_bind_int64(st, 1, id);
	sqlite3_bind_int64(st, 2, info.array_job_id);
	sqlite3_bind_int64(st, 3, info.array_job_id ? info.array_task_id : -1);
	sqlite3_bind_text(st, 4, spur_json_str(sp, "name", ""), -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 5, spur_json_str(sp, "user", ""), -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(st, 6, spur_json_int(sp, "uid", 0));
	sqlite3_bind_text(st, 7, spur_json_str(sp, "account", ""), -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 8, ctld_job_partition(c, cj, &info), -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 9, ctld_state_name(&info), -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 10, cj->exit_code);
	sqlite3_bind_int64(st, 11, info.submit_time);
	sqlite3_bind_int64(st, 12, info.state == SCHED_JOB_PENDING ? 0 : cj->start);
	sqlite3_bind_int64(st, 13, info.state == SCHED_JOB_RUNNING || info.state == SCHED_JOB_PENDING
					   ? 0
					   : cj->end);
	sqlite3_bind_int64(st, 14, info.nalloc ? (int64_t)info.nalloc : spur_json_int(sp, "nodes", 1));
	sqlite3_bind_text(st, 15, cj->nodes ? cj->nodes : "None assigned", -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(st, 16, cpus);
	sqlite3_bind_text(st, 17, spur_json_str(sp, "gres", ""), -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(st, 18, spur_json_int(sp, "time_limit", 0));
	sqlite3_bind_text(st, 19, spur_json_str(sp, "workdir", ""), -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(st, 20, job_gpus(cj, &info));
	sqlite3_bind_int64(st, 21, cj->start ? (int64_t)cj->mem_mb : 0);
	if (sqlite3_step(st) != SQLITE_DONE)
		spur_error_log("accounting: job %u: %s", id, sqlite3_errmsg(c->acct));
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	batch_step(c, cj, &info);
}

/* Each row's steps ("steps": batch first, then by number), in one pass
 * over the steps table. */
static void add_steps(struct ctld *c, json_t *rows)
{
	static const char sql[] =
		"SELECT job_id, step, name, state, exit_code, start, end, nnodes, ntasks, nodelist,"
		" max_rss, cpus, srun_host, srun_pid, tres, time_limit FROM steps"
		" ORDER BY job_id, step != 'batch', CAST(step AS INTEGER)";
	static const char *const cols[] = { "job_id",	"step",	    "name",	  "state",
					    "exit_code", "start",   "end",	  "nnodes",
					    "ntasks",	"nodelist", "max_rss_kb", "cpus",
					    "srun_host", "srun_pid", "tres", "time_limit" };
	json_t *by_id = json_object(), *r;
	sqlite3_stmt *st;
	size_t i;

	json_array_foreach(rows, i, r) {
		char key[24];

		snprintf(key, sizeof(key), "%lld", (long long)spur_json_int(r, "job_id", 0));
		json_object_set(by_id, key, r);
	}
	if (json_object_size(by_id) && sqlite3_prepare_v2(c->acct, sql, -1, &st, NULL) == SQLITE_OK) {
		while (sqlite3_step(st) == SQLITE_ROW) {
			char key[24];
			json_t *job, *s = json_object();

			snprintf(key, sizeof(key), "%lld", sqlite3_column_int64(st, 0));
			if (!(job = json_object_get(by_id, key))) {
				json_decref(s);
				continue;
			}
			for (int k = 1; k < (int)(sizeof(cols) / sizeof(cols[0])); k++)
				json_object_set_new(s, cols[k],
						    sqlite3_column_type(st, k) == SQLITE_TEXT
							    ? json_string((const char *)
										  sqlite3_column_text(st, k))
							    : json_integer(sqlite3_column_int64(st, k)));
			if (!json_object_get(job, "steps"))
				json_object_set_new(job, "steps", json_array());
			json_array_append_new(json_object_get(job, "steps"), s);
		}
		sqlite3_finalize(st);
	}
	json_decref(by_id);
}

/* sacct's query: by job ids (comma list of ids or array ids), user, or all. */
json_t *ctld_acct_query(struct ctld *c, const char *jobs, const char *user, struct spur_error *err)
{
	static const char sql[] =
		"SELECT id, array_job_id, array_task_id, name, user, account, partition, state,"
		" exit_code, submit, start, end, nnodes, nodelist, cpus, gres, time_limit, workdir,"
		" gpus, mem_mb"
		" FROM jobs WHERE (?1 IS NULL OR user = ?1) ORDER BY id";
	static const char *const cols[] = { "job_id",	 "array_job_id", "array_task_id", "name",
					    "user",	 "account",	 "partition",	  "state",
					    "exit_code", "submit",	 "start",	  "end",
					    "nnodes",	 "nodelist",	 "cpus",	  "gres",
					    "time_limit", "workdir",	 "gpus",	  "mem_mb" };
	sqlite3_stmt *st;
	json_t *rows = json_array();

	if (!c->acct || sqlite3_prepare_v2(c->acct, sql, -1, &st, NULL) != SQLITE_OK) {
		json_decref(rows);
		spur_error_set(err, SPUR_EIO, "accounting: %s",
			       c->acct ? sqlite3_errmsg(c->acct) : "not open");
		return NULL;
	}
	if (user)
		sqlite3_bind_text(st, 1, user, -1, SQLITE_TRANSIENT);
	while (sqlite3_step(st) == SQLITE_ROW) {
		json_t *r = json_object();
		char idtxt[32], arrtxt[32];

		snprintf(idtxt, sizeof(idtxt), "%lld", sqlite3_column_int64(st, 0));
		snprintf(arrtxt, sizeof(arrtxt), "%lld", sqlite3_column_int64(st, 1));
		for (int k = 0; k < (int)(sizeof(cols) / sizeof(cols[0])); k++) {
			if (sqlite3_column_type(st, k) == SQLITE_TEXT)
				json_object_set_new(r, cols[k],
						    json_string((const char *)sqlite3_column_text(st, k)));
			else
				json_object_set_new(r, cols[k], json_integer(sqlite3_column_int64(st, k)));
		}
		if (jobs) {
			bool want = false;

			for (const char *p = jobs; *p;) {
				size_t l = strcspn(p, ",");

				if ((l == strlen(idtxt) && !strncmp(p, idtxt, l)) ||
				    (sqlite3_column_int64(st, 1) && l == strlen(arrtxt) &&
				     !strncmp(p, arrtxt, l)))
					want = true;
				p += l + (p[l] == ',');
			}
			if (!want) {
				json_decref(r);
				continue;
			}
		}
		json_array_append_new(rows, r);
	}
	sqlite3_finalize(st);
	add_steps(c, rows);
	return rows;
}

void ctld_acct_resv(struct ctld *c, const json_t *op, bool del)
{
	sqlite3_stmt *st;
	const char *sql = del ? "UPDATE resvs SET end = min(end, ?3) WHERE name = ?1 AND end > ?3"
			      : "INSERT OR REPLACE INTO resvs VALUES (?1, ?2, ?3, ?4, ?5)";

	if (!c->acct || sqlite3_prepare_v2(c->acct, sql, -1, &st, NULL) != SQLITE_OK)
		return;
	hold(c);
	sqlite3_bind_text(st, 1, spur_json_str(op, "name", ""), -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(st, 2, spur_json_int(op, "start", 0));
	sqlite3_bind_int64(st, 3, del ? spur_json_int(op, "time", 0) : spur_json_int(op, "end", 0));
	sqlite3_bind_text(st, 4, spur_json_str(op, "nodes", ""), -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 5, spur_json_str(op, "flags", ""), -1, SQLITE_TRANSIENT);
	if (sqlite3_step(st) != SQLITE_DONE)
		spur_error_log("accounting: reservation: %s", sqlite3_errmsg(c->acct));
	sqlite3_finalize(st);
}

json_t *ctld_acct_resvs(struct ctld *c, int64_t from, int64_t to)
{
	static const char sql[] = "SELECT name, start, end, nodes, flags FROM resvs"
				  " WHERE end > ?1 AND start < ?2 ORDER BY start";
	json_t *rows = json_array();
	sqlite3_stmt *st;

	if (!c->acct || sqlite3_prepare_v2(c->acct, sql, -1, &st, NULL) != SQLITE_OK)
		return rows;
	sqlite3_bind_int64(st, 1, from);
	sqlite3_bind_int64(st, 2, to);
	while (sqlite3_step(st) == SQLITE_ROW)
		json_array_append_new(rows,
				      json_pack("{s:s,s:I,s:I,s:s,s:s}", "name",
						(const char *)sqlite3_column_text(st, 0), "start",
						(json_int_t)sqlite3_column_int64(st, 1), "end",
						(json_int_t)sqlite3_column_int64(st, 2), "nodes",
						(const char *)sqlite3_column_text(st, 3), "flags",
						(const char *)sqlite3_column_text(st, 4)));
	sqlite3_finalize(st);
	return rows;
}
