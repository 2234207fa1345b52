/* SPDX-License-Identifier: Apache-2.0 */
/* Fuzz target: spurrestd's request handling (routing, ids and names in
 * paths, the job submission body, the shapes built from the controller's
 * answers) with a fake controller. Input: "METHOD URL\nTOKEN\nUSER\nBODY". */
#include "fuzz.h"

#include "rest/rest.h"

#include <stdlib.h>
#include <string.h>

static const char *const replies[] = {
	("{\"type\":\"ok\",\"now\":100,\"jobs\":[{\"job_id\":1,\"name\":\"a\",\"user\":\"u\","
	"\"state\":\"RUNNING\",\"time_limit\":60,\"gpus\":\"0,1\",\"nodelist\":\"n1\","
	"\"output\":\"%x-%j.out\",\"workdir\":\"/nonexistent\"},{\"job_id\":2,\"state\":\"PENDING\"}],"
	"\"job\":{\"job_id\":1,\"output\":\"%A_%a-%u-%N-%%-%q\",\"workdir\":\"/nonexistent\",\"uid\":7}}"),
	("{\"type\":\"ok\",\"nodes\":[{\"name\":\"n1\",\"state\":\"MIXED\",\"gres\":\"gpu:mi300x:8\","
	"\"gpu_count\":8,\"free_gpu_mask\":12,\"cpus\":8,\"gpu_links\":[[0,1]],\"features\":\"a,,b\"}],"
	"\"partitions\":[{\"name\":\"p\",\"nodes\":[0,5,-1],\"max_time\":-1,\"state\":9}]}"),
	("{\"type\":\"ok\",\"members\":[{\"address\":\"x:1\",\"leader\":true}],\"cycles\":3,"
	"\"jobs\":[{\"state\":\"RUNNING\",\"partition\":\"p\",\"count\":2},{}]}"),
};

static unsigned pick;

static json_t *fake_call(void *ctx, json_t *req, struct spur_error *err)
{
	const char *type = json_string_value(json_object_get(req, "type"));
	json_t *r;

	(void)ctx;
	if (type && !strcmp(type, "submit") && pick % 3 == 1) {
		json_decref(req);
		spur_error_set(err, SPUR_ENOENT, "Invalid partition name specified");
		return NULL;
	}
	r = json_loads(replies[type && !strcmp(type, "nodes") ? 1
			       : type && (!strcmp(type, "members") || !strcmp(type, "stats")) ? 2
												 : 0],
		       0, NULL);
	json_decref(req);
	return r;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct rest_backend be = { fake_call, NULL };
	static struct rest_history hist;
	char *s = fuzz_cstr(data, size), *line[3] = { NULL }, *body, *sp;
	struct rest_request rq = { 0 };
	struct rest_response rs;

	if (!s)
		return 0;
	body = s;
	for (int i = 0; i < 3 && body; i++) {
		line[i] = body;
		body = strchr(body, '\n');
		if (body)
			*body++ = '\0';
	}
	sp = strchr(line[0], ' ');
	if (sp)
		*sp++ = '\0';
	rq.method = line[0];
	rq.url = sp ? sp : "/";
	rq.user_token = line[1];
	rq.user_name = line[2];
	rq.body = body;
	rq.body_len = body ? strlen(body) : 0;
	rq.history = &hist;
	pick++;
	rest_handle(&be, &rq, &rs);
	if (!rs.body || rs.status < 200 || rs.status > 599)
		abort(); /* every request gets an answer */
	free(rs.body);
	free(s);
	return 0;
}
