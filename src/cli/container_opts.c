/* SPDX-License-Identifier: Apache-2.0 */
/* Container options (container_opts.h). */
#include "container_opts.h"

#include "common/wire.h"
#include "container/ocispec.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int bad(const char *prog, const char *what, const char *arg, const char *why)
{
	fprintf(stderr, "%s: error: --%s=%s: %s\n", prog, what, arg, why);
	return 1;
}

/* An image: an absolute path; a relative one that is there, made
 * absolute; a name in the nodes' stores (letters, digits, ._:+-@). */
static int image(const char *prog, json_t *c, const char *arg)
{
	char abs[PATH_MAX];

	if (!*arg)
		return bad(prog, "container-image", arg, "no image named");
	if (*arg == '/') {
		json_object_set_new(c, "image", json_string(arg));
		return 0;
	}
	if (!access(arg, F_OK) && realpath(arg, abs)) {
		json_object_set_new(c, "image", json_string(abs));
		return 0;
	}
	if (strchr(arg, '/') || strchr(arg, '#'))
		return bad(prog, "container-image", arg,
			   "pulling from a registry is not supported by Spur at job start: "
			   "import it on the nodes first (spur image import docker://REF)");
	if (strspn(arg, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._:+-@") !=
	    strlen(arg))
		return bad(prog, "container-image", arg, "not a path or an image name");
	json_object_set_new(c, "image", json_string(arg));
	return 0;
}

static int names_ok(const char *s)
{
	return *s && strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_,") ==
			     strlen(s);
}

int cli_container_opt(const char *prog, json_t *obj, int opt, const char *arg)
{
	json_t *c = json_object_get(obj, "container");
	char why[512], abs[PATH_MAX];

	if (!c) {
		c = json_object();
		json_object_set_new(obj, "container", c);
	}
	switch (opt) {
	case CLI_CTR_IMAGE:
		return image(prog, c, arg);
	case CLI_CTR_MOUNTS:
		if (spur_oci_mounts_check(arg, why, sizeof(why)))
			return fprintf(stderr, "%s: error: %s\n", prog, why), 1;
		json_object_set_new(c, "mounts", json_string(arg));
		return 0;
	case CLI_CTR_WORKDIR:
		if (*arg != '/')
			return bad(prog, "container-workdir", arg, "not an absolute path");
		json_object_set_new(c, "workdir", json_string(arg));
		return 0;
	case CLI_CTR_ENV:
		if (!names_ok(arg))
			return bad(prog, "container-env", arg, "not a comma list of variable names");
		json_object_set_new(c, "env", json_string(arg));
		return 0;
	case CLI_CTR_NAME:
		if (strchr(arg, ':'))
			return bad(prog, "container-name", arg,
				   "name flags (:create, :exec, :no_create) are not supported by Spur");
		if (!*arg || strspn(arg, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-") !=
				     strlen(arg) || *arg == '.')
			return bad(prog, "container-name", arg, "letters, digits and _.- only");
		json_object_set_new(c, "name", json_string(arg));
		return 0;
	case CLI_CTR_REMAP:
	case CLI_CTR_NO_REMAP:
		json_object_set_new(c, "remap_root", json_boolean(opt == CLI_CTR_REMAP));
		return 0;
	case CLI_CTR_HOME:
	case CLI_CTR_NO_HOME:
		json_object_set_new(c, "mount_home", json_boolean(opt == CLI_CTR_HOME));
		return 0;
	case CLI_CTR_BUNDLE:
		if (!realpath(arg, abs) || access(abs, F_OK))
			return bad(prog, "container", arg, "no such OCI bundle folder");
		json_object_set_new(c, "bundle", json_string(abs));
		return 0;
	default:
		return 1;
	}
}

int cli_container_check(const char *prog, const json_t *obj)
{
	const json_t *c = json_object_get(obj, "container");

	if (!c)
		return 0;
	if (json_object_get(c, "image") && json_object_get(c, "bundle")) {
		fprintf(stderr, "%s: error: --container and --container-image do not go together\n",
			prog);
		return 1;
	}
	if (!json_object_get(c, "image") && !json_object_get(c, "bundle") &&
	    !json_object_get(c, "name")) {
		fprintf(stderr, "%s: error: container options without --container-image, "
				"--container-name or --container\n",
			prog);
		return 1;
	}
	return 0;
}
