/* SPDX-License-Identifier: Apache-2.0 */
/* The Container Device Interface (CDI 0.6): specs that describe a node's
 * devices to container runtimes. Spur writes them for the GPUs it
 * discovers (spur cdi generate), reads any vendor's (JSON or YAML, from
 * /etc/cdi, /var/run/cdi and spur.conf's CdiSpecDirs), lists them (spur cdi
 * list), schedules the GPUs they define (the "cdi" discovery backend), and
 * hands a container exactly its devices' containerEdits. */
#ifndef SPUR_DEVICES_CDI_H
#define SPUR_DEVICES_CDI_H

#include "devices/gpu.h"

#include <jansson.h>
#include <stddef.h>

#define SPUR_CDI_VERSION "0.6.0"
/* the folders read when none are given */
#define SPUR_CDI_DIRS "/etc/cdi,/var/run/cdi"

/* One device a spec defines: KIND=NAME ("nvidia.com/gpu=0"). */
struct spur_cdi_device {
	char kind[128]; /* "nvidia.com/gpu" */
	char name[128]; /* "0", "GPU-8f6b...", "all" */
	char file[256]; /* the spec it came from */
	json_t *edits;	/* its containerEdits with the spec's own appended */
};

struct spur_cdi_set {
	struct spur_cdi_device *dev;
	size_t n;
};

/* Called for a spec that is not valid: its file and what is wrong (the
 * field, "devices[1].name: missing"); the others are still read. */
typedef void (*spur_cdi_bad_f)(const char *file, const char *why, void *arg);

/* Read the specs (*.json, *.yaml, *.yml) of each folder of dirs (a comma
 * list; NULL: SPUR_CDI_DIRS) into set, in order; a later spec's device of
 * the same KIND=NAME replaces an earlier one's. 0, or a negative code for
 * no memory. */
int spur_cdi_load(const char *dirs, struct spur_cdi_set *set, spur_cdi_bad_f bad, void *arg);
/* One spec's text (JSON or YAML) into set: 0, or SPUR_EPARSE with why. */
int spur_cdi_parse(const char *text, size_t len, const char *file, struct spur_cdi_set *set,
		   char *why, size_t wlen);
void spur_cdi_free(struct spur_cdi_set *set);
/* The device KIND=NAME, or NULL. */
const struct spur_cdi_device *spur_cdi_find(const struct spur_cdi_set *set, const char *kind,
					    const char *name);

/* The CDI kind of a discovered GPU: "amd.com/gpu", "nvidia.com/gpu". */
const char *spur_cdi_gpu_kind(const struct spur_gpu_set *g, size_t i);
/* The specs for set's GPUs, one per kind (an array of spec objects): each
 * GPU a device named by its index and one by its UUID (when known), with
 * its device nodes (the render and card nodes for AMD, /dev/nvidiaN for
 * NVIDIA); the kind's shared nodes (/dev/kfd; /dev/nvidiactl,
 * /dev/nvidia-uvm...) that exist here go in the spec's containerEdits;
 * "all" names every GPU. */
json_t *spur_cdi_generate(const struct spur_gpu_set *set);

/* The "cdi" discovery backend: arg is a comma list of folders (NULL:
 * SPUR_CDI_DIRS). Every device of a spec of class gpu (KIND ".../gpu")
 * named by an index ("0", "1"...) is a GPU: its type the spec's
 * "spur.type" annotation, or the vendor's first label ("intel"); its path
 * its first device node. Specs of other classes are said not to be
 * schedulable (only GPUs are GRES here) and left for containers. */
extern const struct spur_gpu_backend spur_gpu_cdi;

#endif
