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
	{ "OUT_OF_MEMORY", "OOM" }, { "DEADLINE", "DL" },	   { "SUSPENDED", "S" },
	{ "SPECIAL_EXIT", "SE" },
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
	{ 'F', "ARRAY_JOB_ID" }, { 'q', "QOS" },	{ 'W', "LICENSES" },
	{ 'U', "UID" },
};

const char *spur_jobfmt_state_code(const char *st)
{
	for (size_t i = 0; i < sizeof(states) / sizeof(states[0]); i++)
		if (!strcmp(states[i].name, st))
			return states[i].code;
	return st;
}

static const char *utoa(uint64_t n, char *buf);

void spur_jobfmt_id(const struct spur_jobfmt_job *j, char *buf, size_t len)
{
	char a[24], t[24];

	if (j->array_task_id >= 0 && len >= 2 * sizeof(a)) {
		size_t al = strlen(utoa(j->array_job_id, a)), tl = strlen(utoa((uint64_t)j->array_task_id, t));

		memcpy(buf, a, al);
		buf[al] = '_';
		memcpy(buf + al + 1, t, tl + 1);
	} else if (len >= sizeof(a))
		utoa(j->job_id, buf);
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

/* n in decimal into buf (at least 12 bytes); returns buf. */
static const char *utoa(uint64_t n, char *buf)
{
	char tmp[24];
	size_t k = 0, o = 0;

	do
		tmp[k++] = (char)('0' + n % 10);
	while ((n /= 10));
	while (k)
		buf[o++] = tmp[--k];
	buf[o] = '\0';
	return buf;
}

/* The text of field c for job j: a string of j's (borrowed) where the field
 * is one, else written into tmp (len bytes). No printf on the way: squeue
 * of 100,000 jobs formats 800,000 fields. */
static const char *field(char c, const struct spur_jobfmt_job *j, int64_t now, char *tmp,
			 size_t len)
{
	bool running = !strcmp(j->state, "RUNNING");

	switch (c) {
	case 'i':
		if (j->array_tasks && len > 24 + strlen(j->array_tasks)) {
			/* pending tasks in one row, as Slurm: 5_[2-10] */
			utoa(j->array_job_id, tmp);
			strcat(tmp, "_");
			strcat(tmp, j->array_tasks);
			return tmp;
		}
		spur_jobfmt_id(j, tmp, len);
		return tmp;
	case 'A':
		return utoa(j->job_id, tmp);
	case 'F':
		return utoa(j->array_task_id >= 0 ? j->array_job_id : j->job_id, tmp);
	case 'K':
		if (j->array_tasks)
			return j->array_tasks;
		return j->array_task_id >= 0 ? utoa((uint64_t)j->array_task_id, tmp) : "N/A";
	case 'P':
		return j->partition;
	case 'j':
		return j->name;
	case 'u':
		return j->user;
	case 'a':
		return *j->account ? j->account : "(null)";
	case 'q':
		return j->qos && *j->qos ? j->qos : "normal";
	case 't':
		return spur_jobfmt_state_code(j->state);
	case 'T':
		return j->state;
	case 'M':
		if (!running || !j->start)
			return "0:00";
		spur_duration_format(now - j->start, tmp, len);
		return tmp;
	case 'l':
	case 'L':
		if (!j->time_limit)
			return "UNLIMITED";
		spur_duration_format(c == 'L' && running ? j->time_limit - (now - j->start)
							 : j->time_limit,
				     tmp, len);
		return tmp;
	case 'D':
		return utoa(j->nodes, tmp);
	case 'C':
		return utoa((uint64_t)j->cpus_per_task * (j->ntasks ? j->ntasks : j->nodes), tmp);
	case 'N':
		return j->nodelist;
	case 'r':
		return j->reason;
	case 'R': {
		size_t rl = strlen(j->reason);

		if (strcmp(j->state, "PENDING") && strcmp(j->state, "SPECIAL_EXIT"))
			return j->nodelist;
		if (rl + 3 > len)
			rl = len - 3;
		tmp[0] = '(';
		memcpy(tmp + 1, j->reason, rl);
		tmp[rl + 1] = ')';
		tmp[rl + 2] = '\0';
		return tmp;
	}
	case 'Q':
		return utoa(j->priority, tmp);
	case 'b':
		if (!*j->gres)
			return "N/A";
		snprintf(tmp, len, "gres/%s", j->gres);
		return tmp;
	case 'S':
		stamp(j->start, tmp, len);
		return tmp;
	case 'V':
		stamp(j->submit, tmp, len);
		return tmp;
	case 'e':
		stamp(j->end, tmp, len);
		return tmp;
	case 'Z':
		return j->workdir;
	case 'W':
		return j->licenses && *j->licenses ? j->licenses : "(null)";
	case 'U':
		return utoa(j->uid, tmp);
	default:
		return "";
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
		int width = 0;
		char tmp[256], esc[1024];
		const char *v;
		size_t vl, pad;

		if (*p != '%') {
			if (o + 2 >= cap)
				return false;
			buf[o++] = *p++;
			continue;
		}
		p = spur_fmt_field_spec(p + 1, &right, &width);
		if (!*p)
			return false;
		v = j ? field(*p, j, now, tmp, sizeof(tmp)) : header_of(*p) ? header_of(*p) : "";
		p++;
		vl = strlen(v);
		/* what users wrote (a name, a reason) shown escaped */
		if (j && spur_has_controls(v, vl)) {
			vl = spur_escape_controls(v, vl, esc, sizeof(esc));
			v = esc;
		}
		if (width > 0 && vl > (size_t)width)
			vl = (size_t)width; /* squeue cuts a value to its field width */
		pad = width > 0 && (size_t)width > vl ? (size_t)width - vl : 0;
		if (o + vl + pad + 2 >= cap)
			return false;
		if (right) {
			memset(buf + o, ' ', pad);
			o += pad;
		}
		memcpy(buf + o, v, vl);
		o += vl;
		if (!right) {
			memset(buf + o, ' ', pad);
			o += pad;
		}
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

bool spur_jobfmt_sort_valid(const char *spec, char *bad)
{
	for (const char *s = spec; *s;) {
		if (*s == ',') { /* empty items pass, as Slurm's */
			s++;
			continue;
		}
		s += *s == '-' || *s == '+';
		if (!*s || !strchr("iAFKpQPRtTuUjaqrNDClSVeM", *s) || (s[1] && s[1] != ',')) {
			*bad = *s ? *s : '?';
			return false;
		}
		s++;
	}
	return true;
}
