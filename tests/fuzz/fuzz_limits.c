/* SPDX-License-Identifier: Apache-2.0 */
/* Fuzz target: the limits text an administrator's sacctmgr sends on the
 * wire (TRES lists, as GrpTRES=...), parsed by the scheduling core; a
 * parsed list printed and parsed again gives the same values. The same
 * text as any user's -C (--constraint), which the core parses into its
 * AND list, counts and alternatives: taken or refused, never a crash. */
#include "fuzz.h"

#include "core/sched.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct sched *s;
	int64_t t[SCHED_TRES_MAX], t2[SCHED_TRES_MAX];
	char *text = fuzz_cstr(data, size), out[1024];

	if (!text)
		return 0;
	if (!s) {
		struct sched_node_spec n = { .name = "n1", .cpus = 8, .mem_mb = 1024,
					     .features = "a,b" };
		struct sched_part_spec p = { .name = "p", .nodes = "ALL", .is_default = true,
					     .max_time = SCHED_INFINITE,
					     .default_time = SCHED_INFINITE };

		sched_node_spec_preset(&n, SCHED_TOPO_MI300X);
		n.gpu_type = "mi300x";
		s = sched_create(NULL, NULL);
		if (!s || sched_add_node(s, &n, NULL) || sched_add_partition(s, &p, NULL))
			abort();
	}
	{
		struct sched_job_spec j = { .id = 1, .name = "f", .user = "u", .account = "a",
					    .nodes = 1, .time_limit = 60, .constraint = text };
		struct sched_will_run w;
		uint32_t nodes[4];

		sched_will_run(s, &j, nodes, &w, NULL);
	}
	for (int i = 0; i < SCHED_TRES_MAX; i++)
		t[i] = t2[i] = SCHED_NO_LIMIT;
	if (sched_tres_parse(s, text, t, NULL) == 0) {
		sched_tres_format(s, t, out, sizeof(out));
		if (sched_tres_parse(s, out, t2, NULL) != 0 || memcmp(t, t2, sizeof(t)) != 0)
			abort();
	}
	free(text);
	return 0;
}
