/* SPDX-License-Identifier: Apache-2.0 */
/* Fuzz target: the frame reader fed in two chunks, then every message's
 * fields read with the helpers. */
#include "fuzz.h"

#include "common/wire.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct spur_wire_reader r;
	json_t *msg;
	size_t half = size / 2;

	spur_wire_reader_init(&r);
	spur_wire_feed(&r, data, half);
	for (int pass = 0; pass < 2; pass++) {
		while (spur_wire_next(&r, &msg, NULL) == 1) {
			spur_json_str(msg, "type", "");
			spur_json_int(msg, "job_id", 0);
			spur_json_bool(msg, "wait", 0);
			json_decref(msg);
		}
		if (!pass)
			spur_wire_feed(&r, data + half, size - half);
	}
	spur_wire_reader_fini(&r);
	return 0;
}
