/* SPDX-License-Identifier: Apache-2.0 */
/* A stand-in for libnvidia-ml.so: 8 "NVIDIA H100 80GB HBM3" GPUs in two
 * NVLink islands (0-3, 4-7); in an island pairs 0-1, 2-3... share a PCIe
 * switch; islands are on NUMA nodes 0 and 1 (across: SYSTEM).
 * FAKE_NVML_COUNT=N gives N GPUs; FAKE_NVML_FAIL=1 makes init fail;
 * FAKE_NVML_LOST=I makes GPU I lost (queries answer GPU_IS_LOST). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct pci {
	char legacy[16];
	unsigned domain, bus, device, pci_device_id, subsys;
	char bus_id[32];
};

static unsigned count(void)
{
	const char *c = getenv("FAKE_NVML_COUNT");

	return c ? (unsigned)atoi(c) : 8;
}

int nvmlInit_v2(void);
int nvmlShutdown(void);
const char *nvmlErrorString(int rc);
int nvmlDeviceGetCount_v2(unsigned *n);
int nvmlDeviceGetHandleByIndex_v2(unsigned i, void **d);
int nvmlDeviceGetName(void *d, char *buf, unsigned len);
int nvmlDeviceGetMinorNumber(void *d, unsigned *m);
int nvmlDeviceGetPciInfo_v3(void *d, struct pci *p);
int nvmlDeviceGetTopologyCommonAncestor(void *a, void *b, int *level);
int nvmlDeviceGetP2PStatus(void *a, void *b, int index, int *status);
int nvmlDeviceGetMemoryInfo(void *d, unsigned long long mem[3]);

int nvmlInit_v2(void)
{
	return getenv("FAKE_NVML_FAIL") ? 9 /* NVML_ERROR_DRIVER_NOT_LOADED */ : 0;
}
int nvmlShutdown(void) { return 0; }
const char *nvmlErrorString(int rc)
{
	return rc == 9 ? "Driver Not Loaded" : rc == 15 ? "GPU is lost" : "Unknown Error";
}
int nvmlDeviceGetCount_v2(unsigned *n)
{
	*n = count();
	return 0;
}
int nvmlDeviceGetHandleByIndex_v2(unsigned i, void **d)
{
	if (i >= count())
		return 2;
	*d = (void *)(size_t)(i + 1);
	return 0;
}
#define IDX(d) ((unsigned)(size_t)(d) - 1)
int nvmlDeviceGetName(void *d, char *buf, unsigned len)
{
	snprintf(buf, len, "NVIDIA H100 80GB HBM3");
	return 0;
}
int nvmlDeviceGetMinorNumber(void *d, unsigned *m)
{
	*m = IDX(d);
	return 0;
}
int nvmlDeviceGetPciInfo_v3(void *d, struct pci *p)
{
	memset(p, 0, sizeof(*p));
	p->pci_device_id = 0x233010de;
	snprintf(p->bus_id, sizeof(p->bus_id), "00000000:%02X:00.0", 0x18 + IDX(d));
	return 0;
}
int nvmlDeviceGetTopologyCommonAncestor(void *a, void *b, int *level)
{
	unsigned x = IDX(a), y = IDX(b);

	*level = x / 2 == y / 2 ? 10 : x / 4 == y / 4 ? 40 : 50;
	return 0;
}
int nvmlDeviceGetP2PStatus(void *a, void *b, int index, int *status)
{
	*status = index == 2 && IDX(a) / 4 == IDX(b) / 4 ? 0 : 4;
	return 0;
}
int nvmlDeviceGetMemoryInfo(void *d, unsigned long long mem[3])
{
	const char *lost = getenv("FAKE_NVML_LOST");

	if (lost && (unsigned)atoi(lost) == IDX(d))
		return 15; /* NVML_ERROR_GPU_IS_LOST */
	mem[0] = 80ull << 30;
	mem[1] = mem[0];
	mem[2] = 0;
	return 0;
}
int nvmlDeviceGetUtilizationRates(void *d, unsigned util[2]);
int nvmlDeviceGetUUID(void *d, char *buf, unsigned len);
/* GPU i is 10 * i percent busy (and its memory as busy) */
int nvmlDeviceGetUtilizationRates(void *d, unsigned util[2])
{
	util[0] = util[1] = 10 * IDX(d);
	return 0;
}
/* the form real NVML gives: GPU-8 hex-4-4-4-12 */
int nvmlDeviceGetUUID(void *d, char *buf, unsigned len)
{
	snprintf(buf, len, "GPU-fa4e0000-0000-4000-8000-%012x", IDX(d));
	return 0;
}
