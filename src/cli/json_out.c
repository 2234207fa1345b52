/* SPDX-License-Identifier: Apache-2.0 */
/* squeue, sinfo and sacct --json: the shapes of slurmrestd's data_parser
 * (src/rest), made from the same answers, in the caller's own name. */
#include "client.h"

#include "rest/rest.h"

#include <stdio.h>
#include <stdlib.h>

/* The router's calls go to the controller as this command's own: the
 * socket's credentials say who asks, not a token. */
static json_t *own_call(void *ctx, json_t *req, struct spur_error *err)
{
	(void)ctx;
	json_object_del(req, "auth");
	json_object_del(req, "as_user");
	return cli_call(req, err);
}

int cli_json_print(const char *prog, const char *path)
{
	const struct rest_backend be = { own_call, NULL };
	char url[256];
	struct rest_request rq = { .method = "GET", .url = url, .user_token = "-" };
	struct rest_response rs = { 0 };
	int rc;

	snprintf(url, sizeof(url), "%s", path);
	rest_handle(&be, &rq, &rs);
	rc = rs.status == 200 ? 0 : 1;
	if (rc)
		fprintf(stderr, "%s: error: %.*s\n", prog, (int)rs.len, rs.body);
	else
		fwrite(rs.body, 1, rs.len, stdout);
	if (!rc && rs.len && rs.body[rs.len - 1] != '\n')
		putchar('\n');
	free(rs.body);
	return rc;
}
