/* SPDX-License-Identifier: Apache-2.0 */
/* The AMD KFD sysfs backend: /sys/class/kfd/kfd/topology/nodes/N. */
#include "gpu.h"

#include "common/alloc.h"
#include "common/conf_lex.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define KFD_ROOT "/sys/class/kfd/kfd/topology/nodes"
#define KFD_MAX_NODES 64
#define IOLINK_XGMI 11 /* HSA_IOLINK_TYPE_XGMI */

/* The value of "key N" in a KFD properties file, or -1. */
static long prop(const char *text, const char *key)
{
	size_t kl = strlen(key);

	for (const char *p = text; p && *p;) {
		if (!strncmp(p, key, kl) && p[kl] == ' ')
			return strtol(p + kl + 1, NULL, 10);
		p = strchr(p, '\n');
		p = p ? p + 1 : NULL;
	}
	return -1;
}

static char *read_text(const char *path)
{
	char *text = NULL;
	size_t len;

	return spur_read_file(path, &text, &len, NULL) ? NULL : text;
}

static const char *type_name(long device)
{
	static const struct {
		long id;
		const char *name;
	} ids[] = {
		{ 0x74a1, "mi300x" }, { 0x74a0, "mi300a" }, { 0x74a5, "mi325x" },
		{ 0x740c, "mi250x" }, { 0x740f, "mi210" },  { 0x738c, "mi100" },
	};

	for (size_t i = 0; i < sizeof(ids) / sizeof(ids[0]); i++)
		if (ids[i].id == device)
			return ids[i].name;
	return "amdgpu";
}

struct kfd_node {
	int id;
	int gpu; /* index among GPUs, or -1 for a CPU node */
	int cpu_peer; /* for a GPU: the CPU node it hangs off */
};

static int num_cmp(const void *a, const void *b)
{
	return *(const int *)a - *(const int *)b;
}

static int kfd_discover(const char *arg, struct spur_gpu_set *out, struct spur_error *err)
{
	const char *root = arg && *arg ? arg : KFD_ROOT;
	DIR *d = opendir(root);
	struct dirent *e;
	int ids[KFD_MAX_NODES], nids = 0, gpu_of[KFD_MAX_NODES];
	struct kfd_node nodes[KFD_MAX_NODES];
	/* direct GPU-GPU XGMI weights, 0 = none */
	long w[SPUR_GPU_MAX][SPUR_GPU_MAX] = { { 0 } };

	memset(out, 0, sizeof(*out));
	out->backend = "kfd";
	if (!d)
		return spur_error_set(err, SPUR_ENOENT, "kfd: no %s (no AMD GPU driver)", root);
	while ((e = readdir(d)) && nids < KFD_MAX_NODES)
		if (e->d_name[0] >= '0' && e->d_name[0] <= '9')
			ids[nids++] = atoi(e->d_name);
	closedir(d);
	qsort(ids, (size_t)nids, sizeof(int), num_cmp);
	for (int i = 0; i < nids; i++) {
		char path[512], *text;
		long gpu_id = 0, simd;

		nodes[i] = (struct kfd_node){ ids[i], -1, -1 };
		gpu_of[i] = -1;
		snprintf(path, sizeof(path), "%s/%d/gpu_id", root, ids[i]);
		if ((text = read_text(path))) {
			gpu_id = strtol(text, NULL, 10);
			spur_free(text);
		}
		snprintf(path, sizeof(path), "%s/%d/properties", root, ids[i]);
		if (!(text = read_text(path)))
			continue;
		simd = prop(text, "simd_count");
		if (gpu_id > 0 && simd > 0 && out->n < SPUR_GPU_MAX) {
			struct spur_gpu *g = &out->gpus[out->n];

			snprintf(g->type, sizeof(g->type), "%s", type_name(prop(text, "device_id")));
			snprintf(g->path, sizeof(g->path), "/dev/dri/renderD%ld",
				 prop(text, "drm_render_minor"));
			g->vendor = (unsigned)prop(text, "vendor_id");
			if (strstr(text, "\nunique_id ")) /* as ROCm names it: GPU-<hex> */
				snprintf(g->uuid, sizeof(g->uuid), "GPU-%016llx",
					 strtoull(strstr(text, "\nunique_id ") + 11, NULL, 10));
			g->device = (unsigned)prop(text, "device_id");
			g->numa = -1;
			snprintf(g->probe, sizeof(g->probe), "%.127s", path);
			nodes[i].gpu = (int)out->n;
			gpu_of[i] = (int)out->n++;
		}
		spur_free(text);
	}
	if (!out->n)
		return spur_error_set(err, SPUR_ENOENT, "kfd: %s has no GPU nodes", root);
	/* io links: GPU-GPU XGMI, and which CPU node each GPU hangs off */
	for (int i = 0; i < nids; i++) {
		char path[512];

		if (nodes[i].gpu < 0)
			continue;
		for (int l = 0; l < 64; l++) {
			char *text;
			long type, to, weight;
			int k;

			snprintf(path, sizeof(path), "%s/%d/io_links/%d/properties", root, ids[i], l);
			if (!(text = read_text(path)))
				break;
			type = prop(text, "type");
			to = prop(text, "node_to");
			weight = prop(text, "weight");
			spur_free(text);
			for (k = 0; k < nids && ids[k] != to; k++)
				;
			if (k == nids)
				continue;
			if (nodes[k].gpu >= 0 && type == IOLINK_XGMI)
				w[nodes[i].gpu][nodes[k].gpu] = weight > 0 ? weight : 1;
			else if (nodes[k].gpu < 0)
				nodes[i].cpu_peer = ids[k];
		}
		out->gpus[nodes[i].gpu].numa = nodes[i].cpu_peer;
	}
	for (size_t a = 0; a < out->n; a++) {
		for (size_t b = 0; b < out->n; b++) {
			enum spur_gpu_link l;

			if (a == b)
				l = SPUR_GPU_LINK_SELF;
			else if (w[a][b] && w[a][b] <= 15)
				l = SPUR_GPU_LINK_XGMI;
			else if (w[a][b])
				l = SPUR_GPU_LINK_PCIE_SWITCH;
			else if (out->gpus[a].numa >= 0 && out->gpus[a].numa == out->gpus[b].numa)
				l = SPUR_GPU_LINK_NUMA;
			else
				l = SPUR_GPU_LINK_SYS;
			out->links[a][b] = l;
		}
	}
	(void)gpu_of;
	return 0;
}

/* A GPU whose topology node's properties can no longer be read has gone
 * (the driver removed it: a reset that failed, a GPU off the bus). */
static uint32_t kfd_health(const char *arg, const struct spur_gpu_set *set, char *why, size_t len)
{
	uint32_t failed = 0;

	(void)arg;
	for (size_t i = 0; i < set->n; i++) {
		char *text;

		if (!set->gpus[i].probe[0])
			continue;
		if ((text = read_text(set->gpus[i].probe))) {
			spur_free(text);
			continue;
		}
		if (!failed)
			snprintf(why, len, "GPU %zu (%s): KFD topology node gone", i,
				 set->gpus[i].path);
		failed |= 1u << i;
	}
	return failed;
}

/* amdgpu's own figures, under the render node's DRM device. */
static int kfd_usage(const char *arg, const struct spur_gpu_set *set, size_t i,
		     struct spur_gpu_usage *u)
{
	const char *minor = i < set->n ? strstr(set->gpus[i].path, "renderD") : NULL;
	char path[160], *text;

	(void)arg;
	if (!minor)
		return SPUR_ENOENT;
	snprintf(path, sizeof(path), "/sys/class/drm/%s/device/gpu_busy_percent", minor);
	if (!(text = read_text(path)))
		return SPUR_ENOENT;
	u->util_pct = (unsigned)strtoul(text, NULL, 10);
	spur_free(text);
	snprintf(path, sizeof(path), "/sys/class/drm/%s/device/mem_info_vram_used", minor);
	if ((text = read_text(path))) {
		u->mem_used_mb = strtoull(text, NULL, 10) >> 20;
		spur_free(text);
	}
	return 0;
}

const struct spur_gpu_backend spur_gpu_kfd = { "kfd", kfd_discover, kfd_health, kfd_usage };
