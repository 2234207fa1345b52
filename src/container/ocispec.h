/* SPDX-License-Identifier: Apache-2.0 */
/* An OCI runtime spec (config.json, runtime-spec 1.0) for one task of a
 * container job: pyxis's options (--container-mounts, -workdir, -env,
 * -remap-root, --no-container-mount-home) and the CDI containerEdits of the
 * job's own GPUs, those and no others. Containers share the host's
 * network, IPC and process ids (as pyxis/enroot's: MPI, signals and
 * scancel work as for bare tasks) and have their own mounts (and a user
 * namespace with --container-remap-root). */
#ifndef SPUR_CONTAINER_OCISPEC_H
#define SPUR_CONTAINER_OCISPEC_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct spur_oci_req {
	const json_t *ctr;	    /* the job's container options (docs/containers.md) */
	const char *rootfs;	    /* the container's root folder */
	bool rootfs_ro;		    /* read-only (no overlay here): /tmp is a tmpfs */
	const json_t *image_config; /* the image's config (Env, WorkingDir); NULL: none */
	char *const *argv;	    /* what runs */
	char *const *env;	    /* the task's environment on the host */
	const char *host_cwd;	    /* the job's folder on the host */
	const char *home;	    /* the user's home, mounted unless mount_home is false */
	uid_t uid;
	gid_t gid;
	const gid_t *groups;
	int ngroups;
	const char *cgroups_path; /* linux.cgroupsPath; NULL: the runtime's default */
	const json_t *edits;	  /* CDI containerEdits of its devices (an array) */
	const char *const *binds; /* more read-only binds: SRC, DST pairs, NULL-ended */
	bool rootless;		  /* the runtime runs as uid (not root): as with remap_root,
				   * the container's root is uid, the only id mapped */
};

/* config.json for r, or NULL with why ("--container-mounts: ..."). */
json_t *spur_oci_config(const struct spur_oci_req *r, char *why, size_t wlen);

/* Check --container-mounts's text (SRC[:DST[:ro|rw]],...): 0, or -1 with why. */
int spur_oci_mounts_check(const char *text, char *why, size_t wlen);

#endif
