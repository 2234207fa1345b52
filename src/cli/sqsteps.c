/* SPDX-License-Identifier: Apache-2.0 */
/* squeue -s/--steps[=J.S,...]: the running job steps (a batch job's
 * script is its step "batch"), from the controller's accounting, in
 * Slurm's layout: "%.15i %.8j %.9P %.8u %.9M %N" unless -o says otherwise
 * (the step fields are i j P u M N l S A b), ordered by job and step. */
#include "cli.h"
#include "client.h"

#include "common/jobfmt.h"
#include "common/timefmt.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define STEP_CODES "ijPuMNlSAb"

static const char *header_of(char code)
{
	switch (code) {
	case 'i': return "STEPID";
	case 'j': return "NAME";
	case 'P': return "PARTITION";
	case 'u': return "USER";
	case 'M': return "TIME";
	case 'N': return "NODELIST";
	case 'l': return "TIME_LIMIT";
	case 'S': return "START_TIME";
	case 'A': return "TASKS";
	case 'b': return "TRES_PER_JOB";
	}
	return "";
}

/* One field of step s of job j (NULL j: the header). */
static const char *value_of(char code, const json_t *j, const json_t *s, char *buf, size_t len)
{
	int64_t start = spur_json_int(s, "start", 0);

	if (!j)
		return header_of(code);
	switch (code) {
	case 'i':
		snprintf(buf, len, "%" JSON_INTEGER_FORMAT ".%s", (json_int_t)spur_json_int(j, "job_id", 0),
			 spur_json_str(s, "step", ""));
		return buf;
	case 'j': return spur_json_str(s, "name", "");
	case 'P': return spur_json_str(j, "partition", "");
	case 'u': return spur_json_str(j, "user", "");
	case 'N': return spur_json_str(s, "nodelist", "");
	case 'l': return "UNLIMITED";
	case 'b': return "(null)";
	case 'M':
		spur_duration_format(start > 0 ? (int64_t)time(NULL) - start : 0, buf, len);
		return buf;
	case 'S':
		if (start <= 0)
			return "N/A";
		spur_time_format((time_t)start, buf, len);
		return buf;
	case 'A':
		snprintf(buf, len, "%" JSON_INTEGER_FORMAT, (json_int_t)spur_json_int(s, "ntasks", 1));
		return buf;
	}
	return "";
}

static void print_line(const char *fmt, const json_t *j, const json_t *s)
{
	char tmp[256];

	for (const char *p = fmt; *p; p++) {
		bool right;
		int width;
		const char *v;
		int vl;

		if (*p != '%' || !p[1]) {
			putchar(*p);
			continue;
		}
		p = spur_fmt_field_spec(p + 1, &right, &width);
		v = value_of(*p, j, s, tmp, sizeof(tmp));
		vl = (int)strlen(v);
		if (width > 0 && vl > width)
			vl = width;
		printf(right ? "%*.*s" : "%-*.*s", width, vl, v);
	}
	putchar('\n');
}

/* Is every %x of fmt a step field? Else *bad is the first that is not. */
static bool fmt_ok(const char *fmt, char *bad)
{
	for (const char *p = fmt; *p; p++) {
		bool right;
		int width;

		if (*p != '%')
			continue;
		p = spur_fmt_field_spec(p + 1, &right, &width);
		if (!*p || !strchr(STEP_CODES, *p)) {
			*bad = *p ? *p : '%';
			return false;
		}
	}
	return true;
}

/* Steps sort: by job, then numbered steps before the batch one. */
static int step_cmp(const void *a, const void *b)
{
	const json_t *const *x = a, *const *y = b;
	json_int_t jx = spur_json_int(json_array_get(*x, 0), "job_id", 0),
		   jy = spur_json_int(json_array_get(*y, 0), "job_id", 0);
	const char *sx = spur_json_str(json_array_get(*x, 1), "step", ""),
		   *sy = spur_json_str(json_array_get(*y, 1), "step", "");

	if (jx != jy)
		return jx < jy ? -1 : 1;
	if ((*sx >= '0' && *sx <= '9') && (*sy >= '0' && *sy <= '9'))
		return atol(sx) < atol(sy) ? -1 : atol(sx) > atol(sy);
	return strcmp(sx, sy);
}

/* Is step "J.S" of job j wanted by the --steps list (NULL: all)? */
static bool wanted(const char *list, const json_t *j, const json_t *s)
{
	char id[64], job[32];

	snprintf(id, sizeof(id), "%" JSON_INTEGER_FORMAT ".%s",
		 (json_int_t)spur_json_int(j, "job_id", 0), spur_json_str(s, "step", ""));
	snprintf(job, sizeof(job), "%" JSON_INTEGER_FORMAT, (json_int_t)spur_json_int(j, "job_id", 0));
	return !list || spur_jobfmt_in_list(list, id) || spur_jobfmt_in_list(list, job);
}

/* The running steps of the running jobs f's filters pass (jobs, users,
 * partitions), as [job, step] pairs in rows. NULL: said. */
static json_t *running_steps(const char *prog, const char *const *f, const char *steps)
{
	struct spur_error err;
	json_t *q = cli_call(json_pack("{s:s}", "type", "queue"), &err), *acct = NULL, *rows, *j, *s;
	char list[8192] = "";
	size_t o = 0, i, k;

	if (!q) {
		cli_error(prog, "%s", err.msg);
		return NULL;
	}
	json_array_foreach(json_object_get(q, "jobs"), i, j) {
		char id[32];

		snprintf(id, sizeof(id), "%" JSON_INTEGER_FORMAT, (json_int_t)spur_json_int(j, "job_id", 0));
		if (strcmp(spur_json_str(j, "state", ""), "RUNNING") || !spur_jobfmt_in_list(f[0], id) ||
		    !spur_jobfmt_in_list(f[1], spur_json_str(j, "user", "")) ||
		    !spur_jobfmt_in_list(f[2], spur_json_str(j, "partition", "")) || o + 24 > sizeof(list))
			continue;
		o += (size_t)snprintf(list + o, sizeof(list) - o, "%s%s", o ? "," : "", id);
	}
	rows = json_array();
	if (o && !(acct = cli_call(json_pack("{s:s,s:s}", "type", "acct", "jobs", list), &err))) {
		cli_error(prog, "%s", err.msg);
		json_decref(q);
		json_decref(rows);
		return NULL;
	}
	json_array_foreach(json_object_get(acct, "jobs"), i, j)
		json_array_foreach(json_object_get(j, "steps"), k, s)
			if (!strcmp(spur_json_str(s, "state", ""), "RUNNING") && wanted(steps, j, s))
				json_array_append_new(rows, json_pack("[O,O]", j, s));
	json_decref(q);
	json_decref(acct);
	return rows;
}

int cli_squeue_steps(const char *prog, const char *fmt, const char *steps,
		     const char *const *filters, bool header, bool stamped)
{
	json_t *rows, *r;
	size_t i, n;
	char bad;

	if (!fmt)
		fmt = "%.15i %.8j %.9P %.8u %.9M %N";
	if (!fmt_ok(fmt, &bad)) {
		cli_error(prog, "Invalid job step format specification: %c", bad);
		return 1;
	}
	if (!(rows = running_steps(prog, filters, steps)))
		return 1;
	n = json_array_size(rows);
	if (n) { /* sorted in place: the array's slots */
		json_t **v = calloc(n, sizeof(*v));

		for (i = 0; v && i < n; i++)
			v[i] = json_incref(json_array_get(rows, i));
		if (v) {
			qsort(v, n, sizeof(*v), step_cmp);
			json_array_clear(rows);
			for (i = 0; i < n; i++)
				json_array_append_new(rows, v[i]);
			free(v);
		}
	}
	if (stamped) {
		time_t now = time(NULL);
		char when[64];

		strftime(when, sizeof(when), "%a %b %d %H:%M:%S %Y", localtime(&now));
		printf("%s\n", when);
	}
	if (header)
		print_line(fmt, NULL, NULL);
	json_array_foreach(rows, i, r)
		print_line(fmt, json_array_get(r, 0), json_array_get(r, 1));
	json_decref(rows);
	return 0;
}
