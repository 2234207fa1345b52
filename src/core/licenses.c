/* SPDX-License-Identifier: Apache-2.0 */
/* Licenses (slurm.conf Licenses=, sbatch -L): cluster-wide counts a job
 * holds while it runs. A pending job whose licenses are not all free now
 * waits with reason Licenses, neither started nor given a reservation, and
 * blocks no one (as a job held by a limit). */
#include "internal.h"

#include "common/alloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int lic_index(const struct sched *s, const char *name, size_t len)
{
	for (size_t i = 0; i < s->nlics; i++)
		if (strlen(s->lics[i].name) == len && !strncmp(s->lics[i].name, name, len))
			return (int)i;
	return -1;
}

int sched_add_license(struct sched *s, const char *name, uint32_t total, struct spur_error *err)
{
	char *copy;

	if (!name || !*name || strpbrk(name, ",:|@ "))
		return spur_error_set(err, SPUR_EINVAL, "invalid license name '%s'", name ? name : "");
	if (lic_index(s, name, strlen(name)) >= 0)
		return spur_error_set(err, SPUR_EEXIST, "license %s declared twice", name);
	if (spur_grow((void **)&s->lics, &s->lics_cap, s->nlics + 1, sizeof(*s->lics)) ||
	    !(copy = spur_strdup(name)))
		return spur_error_set(err, SPUR_ENOMEM, "out of memory");
	s->lics[s->nlics++] = (struct core_license){ .name = copy, .total = total };
	return 0;
}

size_t sched_license_count(const struct sched *s)
{
	return s->nlics;
}

int sched_license_info(const struct sched *s, size_t i, struct sched_license_info *out)
{
	if (i >= s->nlics)
		return SPUR_ENOENT;
	out->name = s->lics[i].name;
	out->total = s->lics[i].total;
	out->used = s->lics[i].used;
	return 0;
}

/* One term of -L: NAME or NAME:COUNT. */
static int parse_term(const struct sched *s, const char *p, size_t len, struct core_lic_req *out,
		      struct spur_error *err)
{
	const char *colon = memchr(p, ':', len);
	size_t nl = colon ? (size_t)(colon - p) : len;
	unsigned long count = 1;
	int idx;

	if (colon) {
		char num[16], *end;

		if (len - nl - 1 == 0 || len - nl - 1 >= sizeof(num))
			goto bad;
		memcpy(num, colon + 1, len - nl - 1);
		num[len - nl - 1] = '\0';
		count = strtoul(num, &end, 10);
		if (*end || count > UINT32_MAX) /* 0: as Slurm, taken and holds none */
			goto bad;
	}
	if ((idx = lic_index(s, p, nl)) < 0)
		return spur_error_set(err, SPUR_EINVAL, "Invalid license specification (no license %.*s)",
				      (int)nl, p);
	if (count > s->lics[idx].total)
		return spur_error_set(err, SPUR_EINVAL,
				      "Invalid license specification (%lu of %s, the cluster has %u)",
				      count, s->lics[idx].name, s->lics[idx].total);
	*out = (struct core_lic_req){ .lic = (uint32_t)idx, .count = (uint32_t)count };
	return 0;
bad:
	return spur_error_set(err, SPUR_EINVAL, "Invalid license specification (%.*s)", (int)len, p);
}

int core_licenses_parse(const struct sched *s, const char *text, struct core_job *j,
			struct spur_error *err)
{
	size_t n = 1;

	if (!text || !*text)
		return 0;
	if (strpbrk(text, "|@"))
		return spur_error_set(err, SPUR_EINVAL,
				      "Invalid license specification (%s): alternatives (|) and "
				      "remote licenses (@) are not supported by Spur",
				      text);
	for (const char *c = text; *c; c++)
		n += *c == ',';
	if (!(j->lic = spur_calloc(n, sizeof(*j->lic))))
		return spur_error_set(err, SPUR_ENOMEM, "out of memory");
	for (const char *p = text; *p;) {
		size_t len = strcspn(p, ",");

		if (parse_term(s, p, len, &j->lic[j->nlic], err)) {
			spur_free(j->lic);
			j->lic = NULL;
			j->nlic = 0;
			return err->code;
		}
		j->nlic++;
		p += len + (p[len] == ',');
	}
	return 0;
}

bool core_licenses_free(const struct sched *s, const struct core_job *j)
{
	for (size_t i = 0; i < j->nlic; i++) {
		const struct core_license *l = &s->lics[j->lic[i].lic];

		if (l->used + j->lic[i].count > l->total)
			return false;
	}
	return true;
}

void core_licenses_take(struct sched *s, const struct core_job *j, int sign)
{
	for (size_t i = 0; i < j->nlic; i++) {
		struct core_license *l = &s->lics[j->lic[i].lic];

		if (sign > 0)
			l->used += j->lic[i].count;
		else
			l->used -= l->used < j->lic[i].count ? l->used : j->lic[i].count;
	}
}

void core_licenses_free_all(struct sched *s)
{
	for (size_t i = 0; i < s->nlics; i++)
		spur_free(s->lics[i].name);
	spur_free(s->lics);
}
