/* SPDX-License-Identifier: Apache-2.0 */
/* A job opens only its own GPUs on cgroup v2, as Slurm's
 * ConstrainDevices=yes: cgroup v2 has no devices controller; a BPF program
 * of type CGROUP_DEVICE attached to the job's cgroup denies the device
 * nodes of the node's other GPUs (EPERM at open) and lets every other
 * device through. Needs root (CAP_BPF or CAP_SYS_ADMIN) and libbpf. */
#ifndef SPURD_DEVFENCE_H
#define SPURD_DEVFENCE_H

#include <stdbool.h>
#include <stddef.h>

#define SPURD_DEVFENCE_MAX 64

struct spurd_devfence_dev {
	bool block; /* a block device; else a character one */
	unsigned major, minor;
};

/* The devices behind paths (NULL-terminated; those that are no device
 * node are skipped), at most max: how many. */
size_t spurd_devfence_devs(const char *const *paths, struct spurd_devfence_dev *out, size_t max);
/* Attach to the cgroup v2 folder cgroup a program denying the n devices.
 * 0, or a negative errno with why said. */
int spurd_devfence_attach(const char *cgroup, const struct spurd_devfence_dev *deny, size_t n,
			  char *why, size_t wlen);
/* Can this process load such a program (libbpf built in, the kernel's
 * support, the privilege)? When not, why says so. */
bool spurd_devfence_works(char *why, size_t wlen);

#endif
