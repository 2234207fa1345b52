/* SPDX-License-Identifier: Apache-2.0 */
/* The fake GPU backend: GPUs described in a file (or "TYPE:N"), for tests
 * and for simulated nodes. */
#include "gpu.h"

#include "common/alloc.h"
#include "common/conf_lex.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const char *const link_names[] = { "self", "xgmi", "nvlink", "pcie-switch", "numa", "sys" };

const char *spur_gpu_link_name(enum spur_gpu_link l)
{
	return (unsigned)l < 6 ? link_names[l] : "?";
}

static int link_from_name(const char *s)
{
	for (int i = 1; i < 6; i++)
		if (!strcasecmp(s, link_names[i]))
			return i;
	return -1;
}

/* The same presets as the core's (sched_node_spec_preset). */
static int apply_preset(struct spur_gpu_set *g, const char *p)
{
	for (size_t a = 0; a < g->n; a++) {
		for (size_t b = 0; b < g->n; b++) {
			enum spur_gpu_link l = SPUR_GPU_LINK_SYS;

			if (a == b)
				l = SPUR_GPU_LINK_SELF;
			else if (!strcmp(p, "mi300x"))
				l = SPUR_GPU_LINK_XGMI;
			else if (!strcmp(p, "nvswitch"))
				l = SPUR_GPU_LINK_NVLINK;
			else if (!strcmp(p, "mi250"))
				l = a / 2 == b / 2 ? SPUR_GPU_LINK_XGMI
				    : a / 4 == b / 4 ? SPUR_GPU_LINK_PCIE_SWITCH
						     : SPUR_GPU_LINK_NUMA;
			else if (!strcmp(p, "nvlink-islands"))
				l = a / 4 == b / 4 ? SPUR_GPU_LINK_NVLINK : SPUR_GPU_LINK_SYS;
			else if (!strcmp(p, "pcie-pairs"))
				l = a / 2 == b / 2 ? SPUR_GPU_LINK_PCIE_SWITCH
				    : a / 4 == b / 4 ? SPUR_GPU_LINK_NUMA
						     : SPUR_GPU_LINK_SYS;
			else
				return -1;
			g->links[a][b] = l;
		}
	}
	return 0;
}

/* A preset from the type's name, as the controller guesses one. */
static const char *preset_for(const char *type)
{
	if (!strncmp(type, "mi300", 5))
		return "mi300x";
	if (!strncmp(type, "mi250", 5))
		return "mi250";
	if (!strncmp(type, "h100", 4) || !strncmp(type, "h200", 4) || !strncmp(type, "a100", 4))
		return "nvswitch";
	if (!strncmp(type, "v100", 4))
		return "nvlink-islands";
	return "pcie-pairs";
}

static void name_gpus(struct spur_gpu_set *g, const char *type)
{
	for (size_t i = 0; i < g->n; i++) {
		snprintf(g->gpus[i].type, sizeof(g->gpus[i].type), "%s", type);
		snprintf(g->gpus[i].path, sizeof(g->gpus[i].path), "/dev/fake-gpu%zu", i);
		g->gpus[i].numa = (int)(i * 2 / (g->n ? g->n : 1));
	}
}

static int from_file(const char *path, struct spur_gpu_set *g, struct spur_error *err)
{
	char *text = NULL, type[32] = "gpu", preset[32] = "";
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
		} else if (!strcmp(key, "preset") && n == 2) {
			snprintf(preset, sizeof(preset), "%s", a1);
		} else if (!strcmp(key, "link") && n == 4 && g->n) {
			int x = atoi(a1), y = atoi(a2), l = link_from_name(a3);

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
					    "%s:%d: expected 'type T', 'count N', 'preset P' or "
					    "'link A B CLASS', found '%s'",
					    path, lineno, line);
			goto out;
		}
	}
	if (!g->n) {
		rc = spur_error_set(err, SPUR_EINVAL, "%s: no 'count N' line", path);
		goto out;
	}
	name_gpus(g, type);
	if (!have_links && apply_preset(g, *preset ? preset : preset_for(type))) {
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
		apply_preset(out, preset_for(type));
		return 0;
	}
	return from_file(arg, out, err);
}

const struct spur_gpu_backend spur_gpu_fake = { "fake", fake_discover };

int spur_gpu_discover_auto(struct spur_gpu_set *out, struct spur_error *err)
{
	int rc = spur_gpu_kfd.discover(NULL, out, err);

	if (rc == SPUR_ENOENT) {
		memset(out, 0, sizeof(*out));
		out->backend = "none";
		return 0; /* no GPUs is a valid answer */
	}
	return rc;
}
