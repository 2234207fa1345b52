/* SPDX-License-Identifier: Apache-2.0 */
/* Parsing of --array and --dependency values. */
#include "jobspec.h"
#include "wire.h"

#include "alloc.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

static int read_u32(const char **p, uint32_t *out)
{
	uint64_t v = 0;
	const char *s = *p;

	if (!isdigit((unsigned char)*s))
		return -1;
	while (isdigit((unsigned char)*s)) {
		v = v * 10 + (uint64_t)(*s - '0');
		if (v > UINT32_MAX)
			return -1;
		s++;
	}
	*p = s;
	*out = (uint32_t)v;
	return 0;
}

static int u32_cmp(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

int spur_array_parse(const char *s, uint32_t max_id, struct spur_array_spec *out,
		     struct spur_error *err)
{
	const char *p = s;
	size_t cap = 0;
	int rc;

	memset(out, 0, sizeof(*out));
	if (!s || !*s)
		return spur_error_set(err, SPUR_EPARSE, "invalid array specification ''");
	for (;;) {
		uint32_t lo, hi, step = 1;

		if (read_u32(&p, &lo))
			goto bad;
		hi = lo;
		if (*p == '-') {
			p++;
			if (read_u32(&p, &hi) || hi < lo)
				goto bad;
			if (*p == ':') {
				p++;
				if (read_u32(&p, &step) || step == 0)
					goto bad;
			}
		}
		if (hi > max_id) {
			rc = spur_error_set(err, SPUR_ERANGE,
					    "invalid array specification '%s': task id %u is above "
					    "the limit %u (MaxArraySize)",
					    s, hi, max_id);
			goto out_free;
		}
		for (uint64_t v = lo; v <= hi; v += step) {
			if (out->n >= SPUR_ARRAY_MAX_TASKS) {
				rc = spur_error_set(err, SPUR_ETOOBIG,
						    "invalid array specification '%s': too many tasks",
						    s);
				goto out_free;
			}
			if (spur_grow((void **)&out->ids, &cap, out->n + 1, sizeof(uint32_t))) {
				rc = spur_error_set(err, SPUR_ENOMEM, "array: out of memory");
				goto out_free;
			}
			out->ids[out->n++] = (uint32_t)v;
		}
		if (*p == ',') {
			p++;
			continue;
		}
		if (*p == '%') {
			p++;
			if (read_u32(&p, &out->throttle) || out->throttle == 0 || *p)
				goto bad;
		}
		if (*p)
			goto bad;
		break;
	}
	qsort(out->ids, out->n, sizeof(uint32_t), u32_cmp);
	{
		size_t w = 0;

		for (size_t i = 0; i < out->n; i++)
			if (!w || out->ids[w - 1] != out->ids[i])
				out->ids[w++] = out->ids[i];
		out->n = w;
	}
	return 0;
bad:
	rc = spur_error_set(err, SPUR_EPARSE,
			    "invalid array specification '%s' (expected N, N-M, N-M:STEP, lists "
			    "of those, and an optional %%LIMIT)",
			    s);
out_free:
	spur_array_fini(out);
	return rc;
}

void spur_array_fini(struct spur_array_spec *a)
{
	spur_free(a->ids);
	memset(a, 0, sizeof(*a));
}

static const char *const dep_names[] = { "after",      "afterany",  "afterok",
					 "afternotok", "aftercorr", "singleton" };

const char *spur_dep_type_name(enum spur_dep_type t)
{
	return (unsigned)t < 6 ? dep_names[t] : "?";
}

static int add_dep(struct spur_dep_list *l, size_t *cap, struct spur_dep d)
{
	if (spur_grow((void **)&l->deps, cap, l->n + 1, sizeof(d)))
		return SPUR_ENOMEM;
	l->deps[l->n++] = d;
	return 0;
}

int spur_dep_parse(const char *s, struct spur_dep_list *out, struct spur_error *err)
{
	const char *p = s;
	size_t cap = 0;
	bool comma = false, question = false;
	int rc;

	memset(out, 0, sizeof(*out));
	if (!s || !*s)
		return spur_error_set(err, SPUR_EPARSE, "invalid dependency ''");
	for (;;) {
		size_t tlen = strcspn(p, ":,?");
		int type = -1;

		for (int i = 0; i < 6; i++)
			if (strlen(dep_names[i]) == tlen && !strncmp(p, dep_names[i], tlen))
				type = i;
		if (type < 0)
			goto bad;
		p += tlen;
		if (type == SPUR_DEP_SINGLETON) {
			if (*p == ':')
				goto bad;
			if (add_dep(out, &cap, (struct spur_dep){ SPUR_DEP_SINGLETON, 0, -1, 0 }))
				goto oom;
		} else {
			if (*p != ':')
				goto bad;
			while (*p == ':') {
				struct spur_dep d = { (enum spur_dep_type)type, 0, -1, 0 };
				uint32_t v;

				p++;
				if (read_u32(&p, &d.job_id) || d.job_id == 0)
					goto bad;
				if (*p == '_') {
					p++;
					if (read_u32(&p, &v) || v > INT32_MAX)
						goto bad;
					d.task_id = (int32_t)v;
				}
				if (*p == '+') {
					p++;
					if (read_u32(&p, &v) || v > 1000000)
						goto bad;
					d.delay_secs = v * 60;
				}
				if (add_dep(out, &cap, d))
					goto oom;
			}
		}
		if (!*p)
			break;
		if (*p == ',')
			comma = true;
		else if (*p == '?')
			question = true;
		else
			goto bad;
		if (comma && question) {
			rc = spur_error_set(err, SPUR_EPARSE,
					    "invalid dependency '%s': ',' (all) and '?' (any) cannot "
					    "be mixed",
					    s);
			goto out_free;
		}
		p++;
	}
	out->any = question;
	return 0;
oom:
	rc = spur_error_set(err, SPUR_ENOMEM, "dependency: out of memory");
	goto out_free;
bad:
	rc = spur_error_set(err, SPUR_EPARSE,
			    "invalid dependency '%s' near '%.20s' (expected TYPE:JOBID[:JOBID...] "
			    "with TYPE after, afterany, afterok, afternotok or aftercorr, or "
			    "singleton)",
			    s, p);
out_free:
	spur_dep_fini(out);
	return rc;
}

void spur_dep_fini(struct spur_dep_list *l)
{
	spur_free(l->deps);
	memset(l, 0, sizeof(*l));
}

/* Expand Slurm's filename pattern: %j %x %u %N %A %a %% (and %J = %j). */
static void expand_pattern(const char *pat, const json_t *m, const char *node, char *out,
			   size_t len)
{
	size_t o = 0;
	char tmp[64];

	for (const char *p = pat; *p && o + 1 < len; p++) {
		const char *v = NULL;

		if (*p != '%' || !p[1]) {
			out[o++] = *p;
			continue;
		}
		p++;
		switch (*p) {
		case 'j':
		case 'J':
			snprintf(tmp, sizeof(tmp), "%" JSON_INTEGER_FORMAT,
				 (json_int_t)spur_json_int(m, "job_id", 0));
			v = tmp;
			break;
		case 'A':
			snprintf(tmp, sizeof(tmp), "%" JSON_INTEGER_FORMAT,
				 (json_int_t)spur_json_int(m, "array_job_id",
							   spur_json_int(m, "job_id", 0)));
			v = tmp;
			break;
		case 'a':
			snprintf(tmp, sizeof(tmp), "%" JSON_INTEGER_FORMAT,
				 (json_int_t)spur_json_int(m, "array_task_id", 0));
			v = tmp;
			break;
		case 'x':
			v = spur_json_str(m, "name", "");
			break;
		case 'u':
			v = spur_json_str(m, "user", "");
			break;
		case 'N':
			v = node;
			break;
		case '%':
			v = "%";
			break;
		default:
			tmp[0] = '%';
			tmp[1] = *p;
			tmp[2] = '\0';
			v = tmp;
		}
		o += (size_t)snprintf(out + o, len - o, "%s", v);
	}
	out[o < len ? o : len - 1] = '\0';
}

/* The job's output file (key "output" or "error"), patterns expanded; the
 * supervisor opens it as the job's user. */
void spur_job_output_path(const json_t *m, const char *key, const char *node, const char *workdir,
			char *path, size_t len)
{
	const char *pat = spur_json_str(m, key, "");
	char name[4096];

	if (!*pat)
		pat = spur_json_int(m, "array_job_id", 0) ? "slurm-%A_%a.out" : "slurm-%j.out";
	expand_pattern(pat, m, node, name, sizeof(name));
	if (name[0] == '/')
		snprintf(path, len, "%s", name);
	else
		snprintf(path, len, "%s/%s", workdir, name);
}
