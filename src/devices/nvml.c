/* SPDX-License-Identifier: Apache-2.0 */
/* The NVIDIA backend: NVML, loaded with dlopen at run time so that spurd
 * neither links against nor needs the driver's library where there are no
 * NVIDIA GPUs. Only the few stable entry points below are used; their C
 * types are declared here (nvml.h is not in Debian main). */
#include "gpu.h"

#include <ctype.h>
#include <dlfcn.h>
#include <stdbool.h>
#include <stddef.h>
#include <strings.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef void *nvml_device;

struct nvml_pci {
	char bus_id_legacy[16];
	unsigned domain, bus, device, pci_device_id, pci_subsystem_id;
	char bus_id[32];
};

enum { NVML_SUCCESS = 0, NVML_P2P_CAPS_INDEX_NVLINK = 2, NVML_P2P_STATUS_OK = 0 };
enum { NVML_ERROR_GPU_IS_LOST = 15 };
enum {
	NVML_TOPOLOGY_INTERNAL = 0,
	NVML_TOPOLOGY_SINGLE = 10,
	NVML_TOPOLOGY_MULTIPLE = 20,
	NVML_TOPOLOGY_HOSTBRIDGE = 30,
	NVML_TOPOLOGY_NODE = 40,
	NVML_TOPOLOGY_SYSTEM = 50,
};

struct nvml {
	void *lib;
	int (*init)(void);
	int (*shutdown)(void);
	const char *(*error_string)(int);
	int (*count)(unsigned *);
	int (*handle)(unsigned, nvml_device *);
	int (*name)(nvml_device, char *, unsigned);
	int (*minor)(nvml_device, unsigned *);
	int (*pci)(nvml_device, struct nvml_pci *);
	int (*ancestor)(nvml_device, nvml_device, int *);
	int (*p2p)(nvml_device, nvml_device, int, int *);
	int (*memory)(nvml_device, unsigned long long[3]);
	int (*utilization)(nvml_device, unsigned[2]); /* gpu, memory: percent */
	int (*uuid)(nvml_device, char *, unsigned);
};

static int load(struct nvml *n, const char *path, struct spur_error *err)
{
	static const struct {
		const char *sym;
		size_t off;
	} syms[] = {
#define S(name, field) { name, offsetof(struct nvml, field) }
		S("nvmlInit_v2", init),
		S("nvmlShutdown", shutdown),
		S("nvmlErrorString", error_string),
		S("nvmlDeviceGetCount_v2", count),
		S("nvmlDeviceGetHandleByIndex_v2", handle),
		S("nvmlDeviceGetName", name),
		S("nvmlDeviceGetMinorNumber", minor),
		S("nvmlDeviceGetPciInfo_v3", pci),
		S("nvmlDeviceGetTopologyCommonAncestor", ancestor),
		S("nvmlDeviceGetP2PStatus", p2p),
		S("nvmlDeviceGetMemoryInfo", memory),
		S("nvmlDeviceGetUtilizationRates", utilization),
		S("nvmlDeviceGetUUID", uuid),
#undef S
	};

	memset(n, 0, sizeof(*n));
	n->lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!n->lib)
		return spur_error_set(err, SPUR_ENOENT, "NVML: %s", dlerror());
	for (size_t i = 0; i < sizeof(syms) / sizeof(syms[0]); i++) {
		void *f = dlsym(n->lib, syms[i].sym);

		if (!f) {
			dlclose(n->lib);
			return spur_error_set(err, SPUR_EUNSUPP, "NVML %s: no %s", path, syms[i].sym);
		}
		memcpy((char *)n + syms[i].off, &f, sizeof(f));
	}
	return 0;
}

/* "NVIDIA H100 80GB HBM3" -> "h100", "Tesla V100-SXM2-16GB" -> "v100",
 * "NVIDIA GeForce RTX 4090" -> "rtx4090": the word Slurm sites use. */
static void type_from_name(const char *name, char *out, size_t len)
{
	static const char *const skip[] = { "nvidia", "tesla", "geforce", "quadro" };
	char words[4][32] = { { 0 } };
	size_t nw = 0, o = 0;

	for (const char *p = name; *p && nw < 4;) {
		size_t l = strcspn(p, " -");
		bool skipped = false;

		for (size_t s = 0; s < sizeof(skip) / sizeof(skip[0]); s++)
			skipped |= l == strlen(skip[s]) && !strncasecmp(p, skip[s], l);
		if (l && !skipped) {
			for (size_t k = 0; k < l && k < 31; k++)
				words[nw][k] = (char)tolower((unsigned char)p[k]);
			nw++;
		}
		p += l;
		p += *p != '\0';
	}
	out[0] = '\0';
	for (size_t w = 0; w < nw && o + 1 < len; w++) {
		o += (size_t)snprintf(out + o, len - o, "%s", words[w]);
		/* a family word needs its number */
		if (strcmp(words[w], "rtx") && strcmp(words[w], "gtx") && strcmp(words[w], "titan"))
			break;
	}
	if (!out[0])
		snprintf(out, len, "gpu");
}

/* The NUMA node of a PCI device from sysfs ("0000:1B:00.0"), or -1. */
static int pci_numa(const char *bus_id)
{
	char path[128], lower[40];
	int v = -1;
	size_t i;
	FILE *f;

	/* NVML gives an 8-digit domain; sysfs has 4 */
	if (strlen(bus_id) > 12 && !strncmp(bus_id, "0000", 4))
		bus_id += 4;
	for (i = 0; bus_id[i] && i < sizeof(lower) - 1; i++)
		lower[i] = (char)tolower((unsigned char)bus_id[i]);
	lower[i] = '\0';
	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/numa_node", lower);
	f = fopen(path, "r");
	if (f) {
		if (fscanf(f, "%d", &v) != 1)
			v = -1;
		fclose(f);
	}
	return v;
}

static enum spur_gpu_link link_class(struct nvml *n, nvml_device a, nvml_device b,
				     const struct spur_gpu *ga, const struct spur_gpu *gb)
{
	int st = -1, level = NVML_TOPOLOGY_SYSTEM;

	if (n->p2p(a, b, NVML_P2P_CAPS_INDEX_NVLINK, &st) == NVML_SUCCESS &&
	    st == NVML_P2P_STATUS_OK)
		return SPUR_GPU_LINK_NVLINK;
	if (n->ancestor(a, b, &level) != NVML_SUCCESS)
		level = NVML_TOPOLOGY_SYSTEM;
	if (level <= NVML_TOPOLOGY_MULTIPLE)
		return SPUR_GPU_LINK_PCIE_SWITCH;
	if (level <= NVML_TOPOLOGY_NODE || (ga->numa >= 0 && ga->numa == gb->numa))
		return SPUR_GPU_LINK_NUMA;
	return SPUR_GPU_LINK_SYS;
}

static int nvml_discover(const char *arg, struct spur_gpu_set *out, struct spur_error *err)
{
	const char *path = arg && *arg ? arg : "libnvidia-ml.so.1";
	nvml_device dev[SPUR_GPU_MAX];
	struct nvml n;
	unsigned count = 0;
	int rc;

	memset(out, 0, sizeof(*out));
	if (load(&n, path, err))
		return err->code;
	if ((rc = n.init()) != NVML_SUCCESS) {
		spur_error_set(err, SPUR_ENOENT, "NVML init: %s", n.error_string(rc));
		dlclose(n.lib);
		return err->code;
	}
	if ((rc = n.count(&count)) != NVML_SUCCESS) {
		spur_error_set(err, SPUR_EIO, "NVML device count: %s", n.error_string(rc));
		goto out_shutdown;
	}
	if (!count) {
		spur_error_set(err, SPUR_ENOENT, "NVML: no NVIDIA GPUs");
		goto out_shutdown;
	}
	if (count > SPUR_GPU_MAX)
		count = SPUR_GPU_MAX; /* the core places up to 16 per node */
	for (unsigned i = 0; i < count; i++) {
		struct spur_gpu *g = &out->gpus[i];
		struct nvml_pci pci;
		char name[96] = "";
		unsigned minor = i;

		if ((rc = n.handle(i, &dev[i])) != NVML_SUCCESS ||
		    (rc = n.name(dev[i], name, sizeof(name))) != NVML_SUCCESS) {
			spur_error_set(err, SPUR_EIO, "NVML GPU %u: %s", i, n.error_string(rc));
			goto out_shutdown;
		}
		type_from_name(name, g->type, sizeof(g->type));
		if (n.minor(dev[i], &minor) != NVML_SUCCESS)
			minor = i;
		snprintf(g->path, sizeof(g->path), "/dev/nvidia%u", minor);
		if (n.uuid(dev[i], g->uuid, sizeof(g->uuid)) != NVML_SUCCESS)
			g->uuid[0] = '\0';
		g->numa = -1;
		memset(&pci, 0, sizeof(pci));
		if (n.pci(dev[i], &pci) == NVML_SUCCESS) {
			g->vendor = pci.pci_device_id & 0xffff;
			g->device = pci.pci_device_id >> 16;
			g->numa = pci_numa(pci.bus_id);
		}
	}
	out->n = count;
	for (unsigned a = 0; a < count; a++)
		for (unsigned b = 0; b < count; b++)
			out->links[a][b] = a == b ? SPUR_GPU_LINK_SELF
						  : link_class(&n, dev[a], dev[b], &out->gpus[a],
							       &out->gpus[b]);
	out->backend = "nvml";
	n.shutdown();
	dlclose(n.lib);
	return 0;
out_shutdown:
	n.shutdown();
	dlclose(n.lib);
	memset(out, 0, sizeof(*out));
	return err->code;
}

/* A GPU NVML reports lost (NVML_ERROR_GPU_IS_LOST: Xid 79, off the bus)
 * on a cheap query. The library stays loaded and initialised between checks
 * (nvmlInit costs far more than the query); the agent is its only user. */
/* The library, loaded and initialised once for the checks and the usage
 * queries; NULL when it cannot be. */
static struct nvml *live(const char *arg)
{
	static struct nvml n;
	static bool ready;

	if (!ready) {
		struct spur_error err;

		if (load(&n, arg && *arg ? arg : "libnvidia-ml.so.1", &err))
			return NULL;
		if (n.init() != NVML_SUCCESS) {
			dlclose(n.lib);
			return NULL;
		}
		ready = true;
	}
	return &n;
}

static uint32_t nvml_health(const char *arg, const struct spur_gpu_set *set, char *why,
			    size_t len)
{
	struct nvml *np = live(arg);
	uint32_t failed = 0;

	if (!np)
		return 0;
	for (unsigned i = 0; i < set->n; i++) {
		nvml_device d;
		unsigned long long mem[3];
		int rc = np->handle(i, &d);

		if (rc == NVML_SUCCESS)
			rc = np->memory(d, mem);
		if (rc != NVML_ERROR_GPU_IS_LOST)
			continue;
		if (!failed)
			snprintf(why, len, "GPU %u: %s", i, np->error_string(rc));
		failed |= 1u << i;
	}
	return failed;
}

static int nvml_usage(const char *arg, const struct spur_gpu_set *set, size_t i,
		      struct spur_gpu_usage *u)
{
	struct nvml *n = live(arg);
	nvml_device d;
	unsigned util[2];
	unsigned long long mem[3]; /* total, free, used */

	if (!n || i >= set->n || n->handle((unsigned)i, &d) != NVML_SUCCESS ||
	    n->utilization(d, util) != NVML_SUCCESS)
		return SPUR_ENOENT;
	u->util_pct = util[0];
	if (n->memory(d, mem) == NVML_SUCCESS)
		u->mem_used_mb = mem[2] >> 20;
	return 0;
}

const struct spur_gpu_backend spur_gpu_nvml = { "nvml", nvml_discover, nvml_health, nvml_usage };
