/* SPDX-License-Identifier: Apache-2.0 */
#include "container/manifest.h"

#include <jansson.h>
#include <stdio.h>
#include <string.h>

/* A path named in a docker manifest: relative, no "..", fits. */
static int inside(const char *p, char *out)
{
	if (!p || !*p || *p == '/' || strstr(p, "..") || strlen(p) >= SPUR_IMAGE_PATH)
		return -1;
	snprintf(out, SPUR_IMAGE_PATH, "%s", p);
	return 0;
}

/* An OCI descriptor's {"digest":"sha256:HEX"} -> "blobs/sha256/HEX" */
static int blob_path(const json_t *desc, char *out)
{
	const char *d = json_string_value(json_object_get(desc, "digest"));

	if (!d || strncmp(d, "sha256:", 7) || strspn(d + 7, "0123456789abcdef") != 64 || d[71])
		return -1;
	snprintf(out, SPUR_IMAGE_PATH, "blobs/sha256/%s", d + 7);
	return 0;
}

/* A document's layer list (key, its name there): an array of at most
 * SPUR_IMAGE_MAX_LAYERS, or -1 with why. */
static int layers_bad(const json_t *layers, const char *key, char *why, size_t wlen)
{
	if (!json_is_array(layers)) {
		snprintf(why, wlen, "no \"%s\"", key);
		return -1;
	}
	if (json_array_size(layers) > SPUR_IMAGE_MAX_LAYERS) {
		snprintf(why, wlen, "%zu layers (at most %d)", json_array_size(layers),
			 SPUR_IMAGE_MAX_LAYERS);
		return -1;
	}
	return 0;
}

static int oci_doc(const json_t *doc, struct spur_image_manifest *m, char *why, size_t wlen)
{
	const json_t *layers = json_object_get(doc, "layers"), *l;
	size_t i;

	if (json_object_get(doc, "manifests")) {
		if (blob_path(json_array_get(json_object_get(doc, "manifests"), 0), m->next)) {
			snprintf(why, wlen, "no manifest (manifests[0].digest)");
			return -1;
		}
		return 0;
	}
	if (layers_bad(layers, "layers", why, wlen))
		return -1;
	json_array_foreach(layers, i, l)
		if (blob_path(l, m->layers[m->nlayers++])) {
			snprintf(why, wlen, "layer %zu has no sha256 digest", i);
			return -1;
		}
	if (json_object_get(doc, "config") && blob_path(json_object_get(doc, "config"), m->config)) {
		snprintf(why, wlen, "config has no sha256 digest");
		return -1;
	}
	return 0;
}

static int docker_doc(const json_t *doc, struct spur_image_manifest *m, char *why, size_t wlen)
{
	const json_t *first = json_array_get(doc, 0), *layers = json_object_get(first, "Layers"), *l;
	const json_t *cfg = json_object_get(first, "Config");
	size_t i;

	if (layers_bad(layers, "Layers", why, wlen))
		return -1;
	json_array_foreach(layers, i, l)
		if (inside(json_string_value(l), m->layers[m->nlayers++])) {
			snprintf(why, wlen, "layer %zu: not a path inside the image", i);
			return -1;
		}
	if (cfg && inside(json_string_value(cfg), m->config)) {
		snprintf(why, wlen, "Config: not a path inside the image");
		return -1;
	}
	return 0;
}

int spur_image_manifest_parse(const char *text, size_t len, enum spur_image_doc kind,
			      struct spur_image_manifest *m, char *why, size_t wlen)
{
	struct spur_image_manifest out = { .nlayers = 0 };
	json_error_t je;
	json_t *doc = json_loadb(text, len, 0, &je);
	int rc;

	if (!doc) {
		snprintf(why, wlen, "%s (line %d)", je.text, je.line);
		return -1;
	}
	rc = kind == SPUR_IMAGE_DOCKER ? docker_doc(doc, &out, why, wlen)
				       : oci_doc(doc, &out, why, wlen);
	json_decref(doc);
	if (!rc)
		*m = out;
	return rc;
}
