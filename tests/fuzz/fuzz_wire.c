/* SPDX-License-Identifier: Apache-2.0 */
/* Fuzz target: the frame reader fed in two chunks, then every message's
 * fields read with the helpers, and any "format" run through the squeue
 * format engine as the controller does. */
#include "fuzz.h"

#include "common/jobfmt.h"
#include "common/wire.h"

static void try_format(const char *fmt)
{
	struct spur_jobfmt_job j = { 7, 5, 1, 0, 1, 9, 2, "p", "n", "u", "a", "RUNNING", "None",
				     "x[1-2]", "gpu:1", "/", "normal", "lic:2", 10, 0, 0, 60, NULL, 0 };
	char buf[8192];
	size_t len = 0;

	if (!spur_jobfmt_valid(fmt))
		return;
	spur_jobfmt_line(fmt, NULL, 0, buf, &len, sizeof(buf));
	len = 0;
	spur_jobfmt_line(fmt, &j, 100, buf, &len, sizeof(buf));
}

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
			try_format(spur_json_str(msg, "format", ""));
			json_decref(msg);
		}
		if (!pass)
			spur_wire_feed(&r, data + half, size - half);
	}
	spur_wire_reader_fini(&r);
	return 0;
}
