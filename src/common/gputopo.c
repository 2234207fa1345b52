/* SPDX-License-Identifier: Apache-2.0 */
/* The preset GPU topologies. */
#include "gputopo.h"

#include <string.h>
#include <strings.h>

static const char *const link_names[] = { "self", "xgmi", "nvlink", "pcie-switch", "numa", "sys" };

const char *spur_topo_link_name(int l)
{
	return l >= 0 && l < 6 ? link_names[l] : "?";
}

int spur_topo_link_parse(const char *name)
{
	for (int i = 0; name && i < 6; i++)
		if (!strcasecmp(name, link_names[i]))
			return i;
	return -1;
}

int spur_topo_link(const char *p, unsigned a, unsigned b)
{
	if (a == b)
		return SPUR_LINK_SELF;
	if (!strcmp(p, "mi300x"))
		return SPUR_LINK_XGMI;
	if (!strcmp(p, "nvswitch"))
		return SPUR_LINK_NVLINK;
	if (!strcmp(p, "mi250"))
		return a / 2 == b / 2 ? SPUR_LINK_XGMI
		       : a / 4 == b / 4 ? SPUR_LINK_PCIE_SWITCH
					: SPUR_LINK_NUMA;
	if (!strcmp(p, "nvlink-islands"))
		return a / 4 == b / 4 ? SPUR_LINK_NVLINK : SPUR_LINK_SYS;
	if (!strcmp(p, "pcie-pairs"))
		return a / 2 == b / 2 ? SPUR_LINK_PCIE_SWITCH
		       : a / 4 == b / 4 ? SPUR_LINK_NUMA
					: SPUR_LINK_SYS;
	return -1;
}

const char *spur_topo_preset_for_type(const char *type)
{
	if (!strncmp(type, "mi300", 5))
		return "mi300x";
	if (!strncmp(type, "mi250", 5))
		return "mi250";
	if (!strncmp(type, "h100", 4) || !strncmp(type, "h200", 4) || !strncmp(type, "a100", 4) ||
	    !strncmp(type, "b200", 4))
		return "nvswitch";
	if (!strncmp(type, "v100", 4))
		return "nvlink-islands";
	return "pcie-pairs";
}
