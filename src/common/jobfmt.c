/* SPDX-License-Identifier: Apache-2.0 */
/* The squeue format engine. */
#include "jobfmt.h"
#include "wire.h"

#include "timefmt.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

static const struct {
	const char *name, *code;
} states[] = {
	{ "PENDING", "PD" },   { "RUNNING", "R" },  { "COMPLETED", "CD" }, { "FAILED", "F" },
	{ "CANCELLED", "CA" }, { "TIMEOUT", "TO" }, { "NODE_FAIL", "NF" }, { "PREEMPTED", "PR" },
};

static const struct {
	char c;
	const char *header;
} headers[] = {
	{ 'i', "JOBID" },	 { 'A', "JOBID" },	{ 'P', "PARTITION" },	{ 'j', "NAME" },
	{ 'u', "USER" },	 { 't', "ST" },		{ 'T', "STATE" },	{ 'M', "TIME" },
	{ 'l', "TIME_LIMIT" },	 { 'D', "NODES" },	{ 'R', "NODELIST(REASON)" },
	{ 'N', "NODELIST" },	 { 'r', "REASON" },	{ 'Q', "PRIORITY" },	{ 'b', "TRES_PER_NODE" },
	{ 'a', "ACCOUNT" },	 { 'S', "START_TIME" }, { 'V', "SUBMIT_TIME" }, { 'C', "CPUS" },
	{ 'e', "END_TIME" },	 { 'L', "TIME_LEFT" },	{ 'Z', "WORK_DIR" },	{ 'K', "ARRAY_TASK_ID" },
	{ 'F', "ARRAY_JOB_ID" },
};

const char *spur_jobfmt_state_code(const char *st)
{
	for (size_t i = 0; i < sizeof(states) / sizeof(states[0]); i++)
		if (!strcmp(states[i].name, st))
			return states[i].code;
	return st;
}

void spur_jobfmt_id(const struct spur_jobfmt_job *j, char *buf, size_t len)
{
	if (j->array_task_id >= 0)
		snprintf(buf, len, "%" PRIu32 "_%" PRId32, j->array_job_id, j->array_task_id);
	else
		snprintf(buf, len, "%" PRIu32, j->job_id);
}

bool spur_jobfmt_in_list(const char *list, const char *v)
{
	size_t vl = strlen(v);

	if (!list)
		return true;
	for (const char *p = list; *p;) {
		size_t l = strcspn(p, ",");

		if (l == vl && !strncasecmp(p, v, l))
			return true;
		p += l + (p[l] == ',');
	}
	return false;
}

static const char *header_of(char c)
{
	for (size_t i = 0; i < sizeof(headers) / sizeof(headers[0]); i++)
		if (headers[i].c == c)
			return headers[i].header;
	return NULL;
}

static void stamp(int64_t t, char *buf, size_t len)
{
	if (!t)
		snprintf(buf, len, "N/A");
	else
		spur_time_format((time_t)t, buf, len);
}

/* The text of field c for job j. */
static void field(char c, const struct spur_jobfmt_job *j, int64_t now, char *buf, size_t len)
{
	bool running = !strcmp(j->state, "RUNNING");

	switch (c) {
	case 'i':
		spur_jobfmt_id(j, buf, len);
		break;
	case 'A':
		snprintf(buf, len, "%" PRIu32, j->job_id);
		break;
	case 'F':
		snprintf(buf, len, "%" PRIu32, j->array_task_id >= 0 ? j->array_job_id : j->job_id);
		break;
	case 'K':
		if (j->array_task_id >= 0)
			snprintf(buf, len, "%" PRId32, j->array_task_id);
		else
			snprintf(buf, len, "N/A");
		break;
	case 'P':
		snprintf(buf, len, "%s", j->partition);
		break;
	case 'j':
		snprintf(buf, len, "%s", j->name);
		break;
	case 'u':
		snprintf(buf, len, "%s", j->user);
		break;
	case 'a':
		snprintf(buf, len, "%s", *j->account ? j->account : "(null)");
		break;
	case 't':
		snprintf(buf, len, "%s", spur_jobfmt_state_code(j->state));
		break;
	case 'T':
		snprintf(buf, len, "%s", j->state);
		break;
	case 'M':
		spur_duration_format(running && j->start ? now - j->start : 0, buf, len);
		break;
	case 'l':
	case 'L':
		if (!j->time_limit)
			snprintf(buf, len, "UNLIMITED");
		else
			spur_duration_format(c == 'L' && running ? j->time_limit - (now - j->start)
								 : j->time_limit,
					     buf, len);
		break;
	case 'D':
		snprintf(buf, len, "%" PRIu32, j->nodes);
		break;
	case 'C':
		snprintf(buf, len, "%" PRIu32, j->cpus_per_task * (j->ntasks ? j->ntasks : j->nodes));
		break;
	case 'N':
		snprintf(buf, len, "%s", j->nodelist);
		break;
	case 'r':
		snprintf(buf, len, "%s", j->reason);
		break;
	case 'R':
		if (!strcmp(j->state, "PENDING"))
			snprintf(buf, len, "(%s)", j->reason);
		else
			snprintf(buf, len, "%s", j->nodelist);
		break;
	case 'Q':
		snprintf(buf, len, "%" PRIu32, j->priority);
		break;
	case 'b':
		snprintf(buf, len, "%s%s", *j->gres ? "gres/" : "N/A", j->gres);
		break;
	case 'S':
		stamp(j->start, buf, len);
		break;
	case 'V':
		stamp(j->submit, buf, len);
		break;
	case 'e':
		stamp(j->end, buf, len);
		break;
	case 'Z':
		snprintf(buf, len, "%s", j->workdir);
		break;
	default:
		buf[0] = '\0';
	}
}

bool spur_jobfmt_valid(const char *fmt)
{
	for (const char *p = fmt; *p; p++) {
		if (*p != '%')
			continue;
		p++;
		if (*p == '.')
			p++;
		while (*p >= '0' && *p <= '9')
			p++;
		if (!*p || !header_of(*p))
			return false;
	}
	return true;
}

bool spur_jobfmt_line(const char *fmt, const struct spur_jobfmt_job *j, int64_t now, char *buf,
		      size_t *len, size_t cap)
{
	size_t o = *len;

	for (const char *p = fmt; *p;) {
		bool right = false;
		int width = 0, n;
		char val[1024], raw[256];

		if (*p != '%') {
			if (o + 2 >= cap)
				return false;
			buf[o++] = *p++;
			continue;
		}
		p = spur_fmt_field_spec(p + 1, &right, &width);
		if (!*p)
			return false;
		if (j) {
			/* what users wrote (a name, a reason) shown escaped */
			field(*p, j, now, raw, sizeof(raw));
			spur_escape_controls(raw, strlen(raw), val, sizeof(val));
		} else
			snprintf(val, sizeof(val), "%s", header_of(*p) ? header_of(*p) : "");
		p++;
		if (width > 0 && width < (int)sizeof(val) && (int)strlen(val) > width)
			val[width] = '\0'; /* squeue cuts a value to its field width */
		n = snprintf(buf + o, cap - o, right ? "%*s" : "%-*s", width, val);
		if (n < 0 || (size_t)n + 2 >= cap - o)
			return false;
		o += (size_t)n;
	}
	while (o > *len && buf[o - 1] == ' ')
		o--;
	buf[o++] = '\n';
	buf[o] = '\0';
	*len = o;
	return true;
}

const char *spur_fmt_field_spec(const char *p, bool *right, int *width)
{
	*right = *p == '.';
	p += *right;
	*width = 0;
	while (*p >= '0' && *p <= '9' && *width < 100000)
		*width = *width * 10 + (*p++ - '0');
	return p;
}
