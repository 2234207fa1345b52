/* SPDX-License-Identifier: Apache-2.0 */
/* A node's container image store: images unpacked once into
 *   STORE/images/DIGEST/rootfs      the image's files, its layers applied
 *   STORE/images/DIGEST/config.json the image's "config" (Env, WorkingDir...)
 *   STORE/names/NAME -> ../images/DIGEST   (spur image import --name)
 * DIGEST is the sha256 of the image file (of index.json and its manifest
 * for an OCI layout folder). An image is an OCI image layout (a folder or a
 * tar of one), a `docker save` tarball or a squashfs file (unsquashfs).
 * Unpacking takes STORE/locks/DIGEST (flock), so jobs starting the same
 * image at once unpack it once; layers are extracted in a chroot of the
 * rootfs (as root), so no link in an image reaches the host's files. */
#ifndef SPUR_CONTAINER_IMAGE_H
#define SPUR_CONTAINER_IMAGE_H

#include "common/error.h"

#include <stddef.h>
#include <sys/types.h>

#define SPUR_IMAGE_STORE_DEFAULT "/var/lib/spur/images"

/* Who opens the image file: the job's user (the agent is root and must not
 * read for a user what the user cannot). uid 0 / NULL: the caller. */
struct spur_image_user {
	uid_t uid;
	gid_t gid;
	const gid_t *groups;
	int ngroups;
};

/* The unpacked image of ref (an absolute path to an image, or a NAME
 * imported into the store): its folder STORE/images/DIGEST into dir
 * (rootfs and config.json under it), unpacking it first when not there.
 * 0, or a negative code with err naming the image and what is wrong. */
int spur_image_get(const char *store, const char *ref, const struct spur_image_user *who,
		   char *dir, size_t len, struct spur_error *err);
/* Unpack path into the store under name (NULL: the file's base name
 * without its extension): 0, its digest into digest (65 bytes). */
int spur_image_import(const char *store, const char *path, const char *name, char *digest,
		      struct spur_error *err);
/* Each named image: fn(name, digest, bytes of its rootfs, arg). */
int spur_image_list(const char *store,
		    void (*fn)(const char *name, const char *digest, unsigned long long kb, void *),
		    void *arg, struct spur_error *err);
/* Remove name (and its unpacked image when no other name points there). */
int spur_image_remove(const char *store, const char *name, struct spur_error *err);

#endif
