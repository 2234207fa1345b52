/* SPDX-License-Identifier: Apache-2.0 */
/* GPU discovery: a node's GPUs, their type and the links between them,
 * from a backend: AMD KFD sysfs, NVIDIA NVML (dlopen), a fake described in a
 * file. */
#ifndef SPUR_DEVICES_GPU_H
#define SPUR_DEVICES_GPU_H

#include "common/error.h"
#include "common/gputopo.h"

#include <stddef.h>
#include <stdint.h>

#define SPUR_GPU_MAX 16

/* Link classes, best first; the values of common/gputopo.h, as the core's. */
enum spur_gpu_link {
	SPUR_GPU_LINK_SELF = SPUR_LINK_SELF,
	SPUR_GPU_LINK_XGMI = SPUR_LINK_XGMI,
	SPUR_GPU_LINK_NVLINK = SPUR_LINK_NVLINK,
	SPUR_GPU_LINK_PCIE_SWITCH = SPUR_LINK_PCIE_SWITCH,
	SPUR_GPU_LINK_NUMA = SPUR_LINK_NUMA,
	SPUR_GPU_LINK_SYS = SPUR_LINK_SYS,
};

struct spur_gpu {
	char type[32];	/* "mi300x" */
	char path[64];	/* device node, "/dev/dri/renderD128" */
	int numa;	/* socket / NUMA node, -1 unknown */
	unsigned vendor, device;
	char probe[128]; /* what the health check looks at (kfd: the node's properties) */
	char uuid[96];	 /* "GPU-8f6b..." (NVML), "GPU-<unique_id>" (KFD); cdi: KIND=NAME */
};

struct spur_gpu_set {
	struct spur_gpu gpus[SPUR_GPU_MAX];
	size_t n;
	enum spur_gpu_link links[SPUR_GPU_MAX][SPUR_GPU_MAX];
	const char *backend; /* "kfd", "fake" */
};

/* What a GPU is doing now (sstat's gres/gpuutil, gres/gpumem). */
struct spur_gpu_usage {
	unsigned util_pct;    /* busy, percent */
	uint64_t mem_used_mb; /* its memory in use */
};

/* One backend: discover into out (zeroed first). SPUR_ENOENT when the
 * backend finds no devices of its kind. */
struct spur_gpu_backend {
	const char *name;
	int (*discover)(const char *arg, struct spur_gpu_set *out, struct spur_error *err);
	/* Which GPUs of a set this backend discovered have failed since: bit i
	 * for GPU i, why names the first. Cheap enough to run every second. */
	uint32_t (*health)(const char *arg, const struct spur_gpu_set *set, char *why,
			   size_t len);
	/* GPU i's use now: 0, or an error when the backend cannot say. */
	int (*usage)(const char *arg, const struct spur_gpu_set *set, size_t i,
		     struct spur_gpu_usage *u);
};

/* AMD KFD topology: arg is the nodes folder (default
 * /sys/class/kfd/kfd/topology/nodes). Links: a direct XGMI io_link of
 * weight <= 15 is XGMI (a hive), a longer XGMI hop counts as a PCIe switch,
 * GPUs on the same CPU node are NUMA, else SYS. */
extern const struct spur_gpu_backend spur_gpu_kfd;

/* NVIDIA NVML, loaded with dlopen: arg is the library (default
 * libnvidia-ml.so.1). Links: NVLink peer-to-peer is NVLINK (NVSwitch systems
 * are all NVLINK), a common PCIe switch is PCIE_SWITCH, the same CPU is NUMA,
 * else SYS. The type is the model word of the name ("NVIDIA H100 80GB
 * HBM3" -> h100). */
extern const struct spur_gpu_backend spur_gpu_nvml;

/* A file of "type T", "count N", "preset P" (mi300x, mi250, nvlink-islands,
 * nvswitch, pcie-pairs) and "link A B CLASS" lines (xgmi, nvlink,
 * pcie-switch, numa, sys), with "failed I [reason]" and "usage I PERCENT MB"
 * lines read again by the health check and the usage query; or, without a
 * file, arg "TYPE:N" (one preset by type name). */
extern const struct spur_gpu_backend spur_gpu_fake;

/* The name of a link class ("xgmi"...). */
const char *spur_gpu_link_name(enum spur_gpu_link l);

/* The health check of the backend that discovered set (set->backend), with
 * the discovery's arg: kfd, a GPU whose topology node can no longer be read;
 * nvml, a GPU NVML reports lost (Xid 79: fallen off the bus); fake, the
 * description file's "failed I [reason]" lines. 0 when all are well. */
uint32_t spur_gpu_health(const struct spur_gpu_set *set, const char *arg, char *why, size_t len);

/* GPU i's use now, from the backend that discovered set: kfd, the DRM
 * device's gpu_busy_percent and mem_info_vram_used; nvml, its utilization
 * rates and memory; fake, the file's "usage I PERCENT MB" lines. Not 0:
 * unknown. */
int spur_gpu_usage(const struct spur_gpu_set *set, const char *arg, size_t i,
		   struct spur_gpu_usage *u);

/* Try "kfd", then "nvml", then report none: the agent's --gpus auto. */
int spur_gpu_discover_auto(struct spur_gpu_set *out, struct spur_error *err);
/* Discover by a spec as spurd --gpus takes it: auto | none | kfd[:ROOT] |
 * nvml[:LIB] | cdi[:DIRS] | a fake's FILE or TYPE:N. *arg: the backend's
 * argument, for its health and usage calls. */
int spur_gpu_discover(const char *spec, struct spur_gpu_set *out, const char **arg,
		      struct spur_error *err);

#endif
