/* SPDX-License-Identifier: Apache-2.0 */
/* Fuzz target: a CDI spec file (JSON or YAML) as any vendor or user with
 * write access to a CDI folder could leave it for the agent (root) to
 * read: parsed into a set; every device it gives has a vendor/class kind,
 * a name and containerEdits, and is found again by its name. */
#include "fuzz.h"

#include "devices/cdi.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct spur_cdi_set set = { 0 };
	char why[256];

	if (size > 1 << 16)
		return 0;
	if (spur_cdi_parse((const char *)data, size, "fuzz.yaml", &set, why, sizeof(why)) == 0)
		for (size_t i = 0; i < set.n; i++) {
			const struct spur_cdi_device *d = &set.dev[i];

			if (!strchr(d->kind, '/') || !*d->name || !d->edits ||
			    spur_cdi_find(&set, d->kind, d->name) != d)
				abort();
		}
	else if (!*why)
		abort(); /* a refusal says why */
	spur_cdi_free(&set);
	return 0;
}
