/* SPDX-License-Identifier: Apache-2.0 */
/* The fake GPU backend: GPUs described in a file (or "TYPE:N"), for tests
 * and for simulated nodes. */
#include "gpu.h"
#include "cdi.h"

#include "common/alloc.h"
#include "common/conf_lex.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

const char *spur_gpu_link_name(enum spur_gpu_link l)
{
	return spur_topo_link_name((int)l);
}

/* A preset topology (common/gputopo.h) over the set's GPUs. */
static int apply_preset(struct spur_gpu_set *g, const char *p)
{
	if (spur_topo_link(p, 0, 1) < 0)
		return -1;
	for (size_t a = 0; a < g->n; a++)
		for (size_t b = 0; b < g->n; b++)
			g->links[a][b] = (enum spur_gpu_link)spur_topo_link(p, (unsigned)a, (unsigned)b);
	return 0;
}

static void name_gpus(struct spur_gpu_set *g, const char *type)
{
	for (size_t i = 0; i < g->n; i++) {
		snprintf(g->gpus[i].type, sizeof(g->gpus[i].type), "%s", type);
		snprintf(g->gpus[i].path, sizeof(g->gpus[i].path), "/dev/fake-gpu%zu", i);
		snprintf(g->gpus[i].uuid, sizeof(g->gpus[i].uuid), "GPU-fake-%s-%zu", type, i);
		g->gpus[i].numa = (int)(i * 2 / (g->n ? g->n : 1));
	}
}

static int from_file(const char *path, struct spur_gpu_set *g, struct spur_error *err)
{
	char *text = NULL, type[32] = "gpu", preset[32] = "", paths[SPUR_GPU_MAX][64] = { { 0 } };
	size_t len;
	int lineno = 0, rc;
	bool have_links = false;

	if ((rc = spur_read_file(path, &text, &len, err)))
		return rc;
	for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
		char key[32], a1[64] = "", a2[64] = "", a3[64] = "";
		int n = sscanf(line, "%31s %63s %63s %63s", key, a1, a2, a3);

		lineno++;
		if (n < 1 || key[0] == '#')
			continue;
		if (!strcmp(key, "type") && n == 2) {
			snprintf(type, sizeof(type), "%s", a1);
		} else if (!strcmp(key, "count") && n == 2 && atoi(a1) > 0 && atoi(a1) <= SPUR_GPU_MAX) {
			g->n = (size_t)atoi(a1);
		} else if ((!strcmp(key, "failed") && n >= 2) || (!strcmp(key, "usage") && n >= 2)) {
			/* read by the health check; by the usage query (sstat) */
		} else if (!strcmp(key, "device") && n == 3 && g->n && atoi(a1) >= 0 &&
			   (size_t)atoi(a1) < g->n && a2[0] == '/') {
			/* the device node standing for GPU N (its fencing is tested) */
			snprintf(paths[atoi(a1)], sizeof(paths[0]), "%s", a2);
		} else if (!strcmp(key, "preset") && n == 2) {
			snprintf(preset, sizeof(preset), "%s", a1);
		} else if (!strcmp(key, "link") && n == 4 && g->n) {
			int x = atoi(a1), y = atoi(a2), l = spur_topo_link_parse(a3);

			if (x < 0 || y < 0 || (size_t)x >= g->n || (size_t)y >= g->n || x == y || l < 0) {
				rc = spur_error_set(err, SPUR_EINVAL, "%s:%d: bad link '%s'", path,
						    lineno, line);
				goto out;
			}
			if (!have_links)
				apply_preset(g, "pcie-pairs");
			have_links = true;
			g->links[x][y] = g->links[y][x] = (enum spur_gpu_link)l;
		} else {
			rc = spur_error_set(err, SPUR_EINVAL,
					    "%s:%d: expected 'type T', 'count N', 'preset P', "
					    "'device N /PATH' or 'link A B CLASS', found '%s'",
					    path, lineno, line);
			goto out;
		}
	}
	if (!g->n) {
		rc = spur_error_set(err, SPUR_EINVAL, "%s: no 'count N' line", path);
		goto out;
	}
	name_gpus(g, type);
	for (size_t i = 0; i < g->n; i++)
		if (paths[i][0])
			snprintf(g->gpus[i].path, sizeof(g->gpus[i].path), "%s", paths[i]);
	if (!have_links && apply_preset(g, *preset ? preset : spur_topo_preset_for_type(type))) {
		rc = spur_error_set(err, SPUR_EINVAL, "%s: unknown preset '%s'", path, preset);
		goto out;
	}
out:
	spur_free(text);
	return rc;
}

static int fake_discover(const char *arg, struct spur_gpu_set *out, struct spur_error *err)
{
	const char *colon = arg ? strrchr(arg, ':') : NULL;
	char type[32];

	memset(out, 0, sizeof(*out));
	out->backend = "fake";
	if (!arg || !*arg)
		return spur_error_set(err, SPUR_EINVAL, "fake GPUs need TYPE:N or a file");
	if (colon && colon[1] >= '0' && colon[1] <= '9' && !strchr(arg, '/')) {
		long n = strtol(colon + 1, NULL, 10);

		if (n < 0 || n > SPUR_GPU_MAX)
			return spur_error_set(err, SPUR_ERANGE, "fake GPUs: %ld (at most %d)", n,
					      SPUR_GPU_MAX);
		snprintf(type, sizeof(type), "%.*s", (int)(colon - arg), arg);
		out->n = (size_t)n;
		name_gpus(out, type);
		apply_preset(out, spur_topo_preset_for_type(type));
		return 0;
	}
	return from_file(arg, out, err);
}

/* The description file's "failed I [reason words]" lines, read again on each
 * check (a test appends one to fail a GPU mid-job); "TYPE:N" never fails. */
static uint32_t fake_health(const char *arg, const struct spur_gpu_set *set, char *why,
			    size_t len)
{
	char *text = NULL;
	size_t tl;
	uint32_t failed = 0;

	if (!arg || !strchr(arg, '/') || spur_read_file(arg, &text, &tl, NULL))
		return 0;
	for (char *save = NULL, *line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		char *end;
		long i;

		line += strspn(line, " \t");
		if (strncmp(line, "failed", 6) || (line[6] != ' ' && line[6] != '\t'))
			continue;
		i = strtol(line + 7, &end, 10);
		if (end == line + 7 || i < 0 || (size_t)i >= set->n)
			continue;
		end += strspn(end, " \t");
		if (!failed)
			snprintf(why, len, "GPU %ld: %s", i, *end ? end : "failed");
		failed |= 1u << i;
	}
	spur_free(text);
	return failed;
}

/* The description file's last "usage I PERCENT MB" line for GPU i. */
static int fake_usage(const char *arg, const struct spur_gpu_set *set, size_t i,
		      struct spur_gpu_usage *u)
{
	char *text = NULL;
	size_t tl;
	int rc = SPUR_ENOENT;

	if (!arg || !strchr(arg, '/') || i >= set->n || spur_read_file(arg, &text, &tl, NULL))
		return SPUR_ENOENT;
	for (char *save = NULL, *line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		unsigned long gi, pct;
		unsigned long long mb;

		line += strspn(line, " \t");
		if (sscanf(line, "usage %lu %lu %llu", &gi, &pct, &mb) == 3 && gi == i) {
			u->util_pct = (unsigned)(pct > 100 ? 100 : pct);
			u->mem_used_mb = mb;
			rc = 0;
		}
	}
	spur_free(text);
	return rc;
}

const struct spur_gpu_backend spur_gpu_fake = { "fake", fake_discover, fake_health, fake_usage };

int spur_gpu_usage(const struct spur_gpu_set *set, const char *arg, size_t i,
		   struct spur_gpu_usage *u)
{
	const struct spur_gpu_backend *const all[] = { &spur_gpu_kfd, &spur_gpu_nvml, &spur_gpu_cdi,
						       &spur_gpu_fake };

	memset(u, 0, sizeof(*u));
	for (size_t k = 0; set->backend && k < sizeof(all) / sizeof(all[0]); k++)
		if (!strcmp(set->backend, all[k]->name) && all[k]->usage)
			return all[k]->usage(arg, set, i, u);
	return SPUR_EUNSUPP;
}

uint32_t spur_gpu_health(const struct spur_gpu_set *set, const char *arg, char *why, size_t len)
{
	const struct spur_gpu_backend *const all[] = { &spur_gpu_kfd, &spur_gpu_nvml, &spur_gpu_cdi,
						       &spur_gpu_fake };

	if (len)
		why[0] = '\0';
	for (size_t i = 0; set->backend && i < sizeof(all) / sizeof(all[0]); i++)
		if (!strcmp(set->backend, all[i]->name) && all[i]->health)
			return all[i]->health(arg, set, why, len);
	return 0;
}

int spur_gpu_discover_auto(struct spur_gpu_set *out, struct spur_error *err)
{
	int rc = spur_gpu_kfd.discover(NULL, out, err);

	if (rc == SPUR_ENOENT)
		rc = spur_gpu_nvml.discover(NULL, out, err);
	if (rc == SPUR_ENOENT) {
		memset(out, 0, sizeof(*out));
		out->backend = "none";
		return 0; /* no GPUs is a valid answer */
	}
	return rc;
}

int spur_gpu_discover(const char *spec, struct spur_gpu_set *out, const char **arg,
		      struct spur_error *err)
{
	static const struct {
		const char *name;
		const struct spur_gpu_backend *b;
	} named[] = { { "kfd", &spur_gpu_kfd }, { "nvml", &spur_gpu_nvml }, { "cdi", &spur_gpu_cdi } };

	*arg = spec;
	if (!strcmp(spec, "auto")) {
		*arg = NULL;
		return spur_gpu_discover_auto(out, err);
	}
	if (!strcmp(spec, "none")) {
		memset(out, 0, sizeof(*out));
		out->backend = "none";
		return 0;
	}
	for (size_t i = 0; i < sizeof(named) / sizeof(named[0]); i++) {
		size_t l = strlen(named[i].name);

		if (!strncmp(spec, named[i].name, l) && (!spec[l] || spec[l] == ':')) {
			*arg = spec[l] ? spec + l + 1 : NULL;
			return named[i].b->discover(*arg, out, err);
		}
	}
	return spur_gpu_fake.discover(spec, out, err);
}
