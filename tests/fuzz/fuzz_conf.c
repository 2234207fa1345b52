/* SPDX-License-Identifier: Apache-2.0 */
/* Fuzz target: the config loader. The input is slurm.conf, optionally
 * followed by "\n%%gres\n" + gres.conf and "\n%%topo\n" + topology.conf. */
#include "fuzz.h"

#include "common/conf.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fuzz_cstr(data, size);
	char *gres, *topo;
	struct spur_conf *c;

	if (!s)
		return 0;
	gres = strstr(s, "\n%%gres\n");
	topo = strstr(s, "\n%%topo\n");
	if (gres) {
		*gres = '\0';
		gres += 8;
	}
	if (topo) {
		*topo = '\0';
		topo += 8;
	}
	c = spur_conf_load_text("slurm.conf", s, gres, topo, SPUR_CONF_LOAD_NO_INCLUDE, NULL);
	spur_conf_destroy(c);
	free(s);
	return 0;
}
