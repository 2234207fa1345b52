/* SPDX-License-Identifier: Apache-2.0 */
/* GPU link classes and the preset topologies of common GPU nodes, shared by
 * the scheduling core, the fake GPU backend and the controller's guess. */
#ifndef SPUR_COMMON_GPUTOPO_H
#define SPUR_COMMON_GPUTOPO_H

/* Link classes between two GPUs of a node, best first. The core's
 * enum sched_link and the devices' enum spur_gpu_link take these values. */
enum spur_link_class {
	SPUR_LINK_SELF = 0,
	SPUR_LINK_XGMI,	       /* AMD Infinity Fabric */
	SPUR_LINK_NVLINK,      /* NVLink / NVSwitch */
	SPUR_LINK_PCIE_SWITCH, /* same PCIe switch (or a longer XGMI hop) */
	SPUR_LINK_NUMA,	       /* same socket, through the host bridge */
	SPUR_LINK_SYS,	       /* across sockets */
};

/* "self", "xgmi", "nvlink", "pcie-switch", "numa", "sys" ("?" otherwise). */
const char *spur_topo_link_name(int l);
/* The class of such a name (any case), or -1. */
int spur_topo_link_parse(const char *name);

/* The class between GPUs a and b (< 16) of a preset node: "mi300x" (one
 * XGMI hive), "mi250" (XGMI pairs, packages of 4), "nvlink-islands" (two
 * islands of 4), "nvswitch" (all NVLink), "pcie-pairs" (pairs on a switch,
 * 4 per socket). -1 for an unknown preset. */
int spur_topo_link(const char *preset, unsigned a, unsigned b);

/* The preset to assume for a GRES type until a node reports its links:
 * mi300* -> mi300x, mi250* -> mi250, h100/h200/a100/b200 -> nvswitch,
 * v100 -> nvlink-islands, anything else -> pcie-pairs. */
const char *spur_topo_preset_for_type(const char *type);

#endif
