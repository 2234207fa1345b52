/* SPDX-License-Identifier: Apache-2.0 */
/* Fuzz target: an image's index.json, manifest or docker manifest.json as
 * the submitting user wrote it, read by the agent (root) to find the
 * layers it unpacks: each path it gives stays inside the image's folder
 * (a blob path is blobs/sha256/ and 64 hex digits; a docker one relative
 * with no ".."). */
#include "fuzz.h"

#include "container/manifest.h"

#include <stdlib.h>
#include <string.h>

static void inside(const char *p, enum spur_image_doc kind)
{
	if (!*p)
		return;
	if (*p == '/' || strstr(p, ".."))
		abort();
	if (kind == SPUR_IMAGE_OCI &&
	    (strncmp(p, "blobs/sha256/", 13) || strspn(p + 13, "0123456789abcdef") != 64 || p[77]))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct spur_image_manifest m;
	char why[256];

	for (int k = 0; k < 2; k++) {
		enum spur_image_doc kind = k ? SPUR_IMAGE_DOCKER : SPUR_IMAGE_OCI;

		memset(&m, 0, sizeof(m));
		if (spur_image_manifest_parse((const char *)data, size, kind, &m, why, sizeof(why)))
			continue;
		if (m.nlayers > SPUR_IMAGE_MAX_LAYERS || (kind == SPUR_IMAGE_DOCKER && *m.next))
			abort();
		inside(m.next, kind);
		inside(m.config, kind);
		for (size_t i = 0; i < m.nlayers; i++) {
			if (!*m.layers[i])
				abort();
			inside(m.layers[i], kind);
		}
	}
	return 0;
}
