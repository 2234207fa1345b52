/* SPDX-License-Identifier: Apache-2.0 */
/* The JSON documents of an image, as found in a file a user gives
 * (untrusted): an OCI image layout's index.json and manifests, and a
 * `docker save` tarball's manifest.json. Pure: text in, the paths inside
 * the image's folder that the store reads next out, each checked to stay
 * inside the folder (an OCI blob is named only by its sha256 digest; a
 * docker path is relative and has no ".."). */
#ifndef SPUR_CONTAINER_MANIFEST_H
#define SPUR_CONTAINER_MANIFEST_H

#include <stddef.h>

#define SPUR_IMAGE_MAX_LAYERS 128
#define SPUR_IMAGE_PATH 256

enum spur_image_doc {
	SPUR_IMAGE_OCI,	   /* index.json, or a manifest (which may be a nested index) */
	SPUR_IMAGE_DOCKER, /* manifest.json of `docker save` */
};

struct spur_image_manifest {
	char next[SPUR_IMAGE_PATH];   /* an index's first manifest: read it next; "" none */
	char config[SPUR_IMAGE_PATH]; /* the image config's path; "" none */
	char layers[SPUR_IMAGE_MAX_LAYERS][SPUR_IMAGE_PATH]; /* in order, lowest first */
	size_t nlayers;
};

/* Parse one document (len bytes of text) of kind into m: 0, or -1 with why
 * ("no \"layers\"", "layer 2 has no sha256 digest"). An index gives next
 * and no layers; a manifest gives its layers (at least the array) and
 * config. */
int spur_image_manifest_parse(const char *text, size_t len, enum spur_image_doc kind,
			      struct spur_image_manifest *m, char *why, size_t wlen);

#endif
