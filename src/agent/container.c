/* SPDX-License-Identifier: Apache-2.0 */
/* The agent's container set-up (container.h). */
#define _GNU_SOURCE
#include "agent/container.h"

#include "common/log.h"
#include "common/wire.h"
#include "container/image.h"

#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void said_bad(const char *file, const char *why, void *arg)
{
	(void)arg;
	spur_warn("CDI spec %s: %s", file, why);
}

void spurd_ctr_node_init(struct spurd_ctr_node *n, const struct spur_gpu_set *gpus,
			 const char *gpu_arg, const char *cdi_dirs)
{
	json_t *specs;
	const json_t *s;
	size_t i;

	n->gpus = gpus;
	if (gpus->backend && !strcmp(gpus->backend, "cdi")) {
		spur_cdi_load(gpu_arg, &n->cdi, said_bad, NULL);
		return;
	}
	specs = spur_cdi_generate(gpus);
	json_array_foreach(specs, i, s) {
		char *text = json_dumps(s, JSON_COMPACT), why[256];

		if (text && spur_cdi_parse(text, strlen(text), "(generated)", &n->cdi, why,
					   sizeof(why)))
			spur_warn("CDI spec for this node's GPUs: %s", why);
		free(text);
	}
	json_decref(specs);
	/* a site's own specs (another vendor's devices) beside them */
	if (cdi_dirs && *cdi_dirs)
		spur_cdi_load(cdi_dirs, &n->cdi, said_bad, NULL);
}

void spurd_ctr_node_fini(struct spurd_ctr_node *n)
{
	spur_cdi_free(&n->cdi);
}

/* The CDI device of GPU g: KIND=INDEX (or the cdi backend's own name). */
static const struct spur_cdi_device *gpu_device(const struct spurd_ctr_node *n, size_t g)
{
	const struct spur_gpu *gpu = &n->gpus->gpus[g];
	char kind[128], name[128];

	if (n->gpus->backend && !strcmp(n->gpus->backend, "cdi") && strchr(gpu->uuid, '=')) {
		snprintf(kind, sizeof(kind), "%.*s", (int)strcspn(gpu->uuid, "="), gpu->uuid);
		snprintf(name, sizeof(name), "%s", strchr(gpu->uuid, '=') + 1);
	} else {
		snprintf(kind, sizeof(kind), "%s", spur_cdi_gpu_kind(n->gpus, g));
		snprintf(name, sizeof(name), "%zu", g);
	}
	return spur_cdi_find(&n->cdi, kind, name);
}

static json_t *gpu_edits(const struct spurd_ctr_node *n, const char *list)
{
	json_t *edits = json_array();

	for (const char *p = list; p && *p; p += strcspn(p, ",") + (p[strcspn(p, ",")] == ',')) {
		long g = *p >= '0' && *p <= '9' ? atol(p) : -1;
		const struct spur_cdi_device *d =
			g >= 0 && (size_t)g < n->gpus->n ? gpu_device(n, (size_t)g) : NULL;

		if (d)
			json_array_append(edits, d->edits);
		else
			spur_warn("GPU %ld: no CDI device describes it; the container has no node "
				  "for it",
				  g);
	}
	return edits;
}

bool spurd_ctr_prepare(struct spurd_ctr *c, const struct spurd_ctr_node *n, const json_t *m,
		       uint32_t id, uint32_t run, const char *tag, const char *gpu_list,
		       const char *cgroup)
{
	const json_t *ctr = json_object_get(m, "container");
	uid_t uid = (uid_t)spur_json_int(m, "uid", 0);
	struct passwd *pw;

	memset(c, 0, sizeof(*c));
	if (!json_is_object(ctr))
		return false;
	spurd_oci_dir(n->spool, id, run, c->dir, sizeof(c->dir));
	snprintf(c->id, sizeof(c->id), "spur-%s-%u.%u-%s", n->node, id, run, tag);
	pw = getpwuid(uid);
	snprintf(c->home, sizeof(c->home), "%s", pw && pw->pw_dir ? pw->pw_dir : "");
	if (cgroup)
		snprintf(c->cgroup, sizeof(c->cgroup), "%s", cgroup);
	c->edits = gpu_edits(n, gpu_list);
	c->oci = (struct spurd_oci){ .ctr = ctr, .store = n->store ? n->store
								  : SPUR_IMAGE_STORE_DEFAULT,
				     .dir = c->dir, .id = c->id, .runtime = n->runtime,
				     .cgroup = cgroup ? c->cgroup : NULL, .edits = c->edits,
				     .home = c->home, .uid = uid,
				     .gid = (gid_t)spur_json_int(m, "gid", 0) };
	return true;
}

void spurd_ctr_release(struct spurd_ctr *c)
{
	json_decref(c->edits);
	c->edits = NULL;
}
