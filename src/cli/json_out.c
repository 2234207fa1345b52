/* SPDX-License-Identifier: Apache-2.0 */
/* squeue, sinfo and sacct --json and --yaml: the shapes of slurmrestd's
 * data_parser (src/rest), made from the same answers, in the caller's own
 * name; --yaml writes the same document as block YAML (scalars as JSON
 * writes them, which YAML reads the same). */
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

static void yaml_scalar(const json_t *v)
{
	char *s = json_dumps(v, JSON_ENCODE_ANY);

	printf("%s\n", s ? s : "null");
	free(s);
}

static bool is_container(const json_t *v)
{
	return (json_is_object(v) && json_object_size(v)) || (json_is_array(v) && json_array_size(v));
}

/* v at indent; inline: its first line follows a "- " already written. */
static void yaml_emit(const json_t *v, int indent, bool inline_first)
{
	const char *key;
	const json_t *c;
	size_t i;
	bool first = true;

	if (json_is_object(v)) {
		json_object_foreach((json_t *)v, key, c) {
			json_t *ks = json_string(key);
			char *k = ks ? json_dumps(ks, JSON_ENCODE_ANY) : NULL;

			json_decref(ks);
			printf("%*s%s:", first && inline_first ? 0 : indent, "", k ? k : "\"\"");
			free(k);
			first = false;
			if (is_container(c)) {
				putchar('\n');
				yaml_emit(c, indent + 2, false);
			} else { /* a scalar, or {} or [] as JSON writes them */
				putchar(' ');
				yaml_scalar(c);
			}
		}
		return;
	}
	json_array_foreach(v, i, c) {
		printf("%*s- ", first && inline_first ? 0 : indent, "");
		first = false;
		if (is_container(c))
			yaml_emit(c, indent + 2, true);
		else
			yaml_scalar(c);
	}
}

int cli_doc_print(const char *prog, const char *path, bool yaml)
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
	else if (!yaml)
		fwrite(rs.body, 1, rs.len, stdout);
	if (!rc && !yaml && rs.len && rs.body[rs.len - 1] != '\n')
		putchar('\n');
	if (!rc && yaml) {
		json_t *doc = json_loadb(rs.body, rs.len, 0, NULL);

		printf("---\n");
		if (doc)
			yaml_emit(doc, 0, false);
		json_decref(doc);
	}
	free(rs.body);
	return rc;
}
