/* SPDX-License-Identifier: Apache-2.0 */
/* Commands run on a node itself: `spur cdi generate|list` (CDI specs of its
 * GPUs, as nvidia-ctk cdi generate writes them) and `spur image
 * import|list|remove` (its container image store). */
#include "cli.h"

#include "common/conf.h"
#include "container/image.h"
#include "devices/cdi.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* A key of spur.conf (NULL when unset or no config): copied into buf. */
static const char *conf_key(int which, char *buf, size_t len)
{
	const char *path = cli_conf_path(NULL);
	struct spur_error err;
	struct spur_conf *c = path ? spur_conf_load(path, 0, &err) : NULL;
	const char *v = !c ? NULL : which ? c->cdi_spec_dirs : c->image_store;

	if (v)
		snprintf(buf, len, "%s", v);
	spur_conf_destroy(c);
	return v ? buf : NULL;
}

static int cdi_generate(int argc, char **argv)
{
	static const struct option o[] = { { "output", required_argument, NULL, 'o' },
					   { "gpus", required_argument, NULL, 'g' },
					   { NULL, 0, NULL, 0 } };
	const char *out = NULL, *spec = "auto", *arg;
	struct spur_gpu_set set;
	struct spur_error err;
	json_t *specs, *s;
	size_t i;
	int opt;

	optind = 1;
	while ((opt = getopt_long(argc, argv, "o:g:", o, NULL)) != -1) {
		if (opt == 'o')
			out = optarg;
		else if (opt == 'g')
			spec = optarg;
		else
			return 1;
	}
	if (spur_gpu_discover(spec, &set, &arg, &err)) {
		cli_error("spur cdi generate", "GPUs: %s", err.msg);
		return 1;
	}
	specs = spur_cdi_generate(&set);
	if (!json_array_size(specs))
		fprintf(stderr, "spur cdi generate: no GPUs found (%s)\n",
			set.backend ? set.backend : "none");
	if (out && mkdir(out, 0755) && errno != EEXIST) {
		cli_error("spur cdi generate", "%s: %s", out, strerror(errno));
		json_decref(specs);
		return 1;
	}
	json_array_foreach(specs, i, s) {
		char path[4096], kind[128];

		if (!out) {
			json_dumpf(s, stdout, JSON_INDENT(2));
			putchar('\n');
			continue;
		}
		/* "nvidia.com/gpu" -> DIR/spur-nvidia.com-gpu.json */
		snprintf(kind, sizeof(kind), "%s", json_string_value(json_object_get(s, "kind")));
		*strchr(kind, '/') = '-';
		snprintf(path, sizeof(path), "%s/spur-%s.json", out, kind);
		if (json_dump_file(s, path, JSON_INDENT(2))) {
			cli_error("spur cdi generate", "%s: cannot write", path);
			json_decref(specs);
			return 1;
		}
		printf("%s\n", path);
	}
	json_decref(specs);
	return 0;
}

static void said_bad(const char *file, const char *why, void *arg)
{
	*(int *)arg = 1;
	fprintf(stderr, "spur cdi list: %s: %s\n", file, why);
}

static int cdi_list(int argc, char **argv)
{
	char dirs[4096], extra[2048];
	struct spur_cdi_set set = { 0 };
	int bad = 0;

	snprintf(dirs, sizeof(dirs), "%s", argc > 1 ? argv[1] : SPUR_CDI_DIRS);
	if (argc <= 1 && conf_key(1, extra, sizeof(extra)))
		snprintf(dirs + strlen(dirs), sizeof(dirs) - strlen(dirs), ",%s", extra);
	if (spur_cdi_load(dirs, &set, said_bad, &bad)) {
		cli_error("spur cdi list", "out of memory");
		return 1;
	}
	for (size_t i = 0; i < set.n; i++)
		printf("%s=%s\n", set.dev[i].kind, set.dev[i].name);
	if (!set.n)
		fprintf(stderr, "spur cdi list: no CDI devices in %s\n", dirs);
	spur_cdi_free(&set);
	return bad;
}

int cli_cdi_main(const char *prog, int argc, char **argv)
{
	(void)prog;
	if (argc >= 1 && !strcmp(argv[0], "generate"))
		return cdi_generate(argc, argv);
	if (argc >= 1 && !strcmp(argv[0], "list"))
		return cdi_list(argc, argv);
	fprintf(stderr, "usage: spur cdi generate [-o DIR] [--gpus auto|kfd|nvml|FILE|TYPE:N]\n"
			"       spur cdi list [DIR,DIR...]\n");
	return 1;
}

/* docker://REF (or oci:...) through skopeo into a temporary OCI layout. */
static int pull(const char *ref, char *dir, size_t len)
{
	char dst[4200];
	int st = 0;
	pid_t pid;

	snprintf(dir, len, "/tmp/spur-pull-XXXXXX");
	if (!mkdtemp(dir))
		return -1;
	snprintf(dst, sizeof(dst), "oci:%s:img", dir);
	if ((pid = fork()) == 0) {
		execlp("skopeo", "skopeo", "copy", ref, dst, (char *)NULL);
		fprintf(stderr, "spur image import: skopeo: %s (install skopeo to pull from a "
				"registry)\n",
			strerror(errno));
		_exit(127);
	}
	while (pid > 0 && waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	return pid > 0 && WIFEXITED(st) && !WEXITSTATUS(st) ? 0 : -1;
}

static void print_image(const char *name, const char *digest, unsigned long long kb, void *arg)
{
	(void)arg;
	printf("%-24s %.12s %10llu\n", name, digest, kb);
}

static int image_import(const char *store, int argc, char **argv)
{
	const char *name = NULL, *path = NULL;
	char digest[65], tmp[4096] = "";
	struct spur_error err;
	int rc;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--name") && i + 1 < argc)
			name = argv[++i];
		else if (!strncmp(argv[i], "--name=", 7))
			name = argv[i] + 7;
		else
			path = argv[i];
	}
	if (!path) {
		fprintf(stderr, "usage: spur image import [--name NAME] FILE|DIR|docker://REF\n");
		return 1;
	}
	if (strstr(path, "://")) {
		if (!name) {
			cli_error("spur image import", "--name NAME is needed for %s", path);
			return 1;
		}
		if (pull(path, tmp, sizeof(tmp))) {
			cli_error("spur image import", "%s: could not be pulled", path);
			return 1;
		}
		path = tmp;
	}
	rc = spur_image_import(store, path, name, digest, &err);
	if (*tmp) {
		char cmd[4200];

		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmp);
		if (system(cmd))
			fprintf(stderr, "spur image import: %s left behind\n", tmp);
	}
	if (rc) {
		cli_error("spur image import", "%s", err.msg);
		return 1;
	}
	printf("%s\n", digest);
	return 0;
}

int cli_image_main(const char *prog, int argc, char **argv)
{
	char store[4096];
	struct spur_error err;

	(void)prog;
	if (!getenv("SPUR_IMAGE_STORE") || !*getenv("SPUR_IMAGE_STORE")) {
		if (!conf_key(0, store, sizeof(store)))
			snprintf(store, sizeof(store), "%s", SPUR_IMAGE_STORE_DEFAULT);
	} else {
		snprintf(store, sizeof(store), "%s", getenv("SPUR_IMAGE_STORE"));
	}
	if (argc >= 1 && !strcmp(argv[0], "import"))
		return image_import(store, argc, argv);
	if (argc >= 1 && !strcmp(argv[0], "list")) {
		printf("%-24s %-12s %10s\n", "NAME", "DIGEST", "KB");
		if (spur_image_list(store, print_image, NULL, &err)) {
			cli_error("spur image list", "%s", err.msg);
			return 1;
		}
		return 0;
	}
	if (argc == 2 && !strcmp(argv[0], "remove")) {
		if (spur_image_remove(store, argv[1], &err)) {
			cli_error("spur image remove", "%s", err.msg);
			return 1;
		}
		return 0;
	}
	fprintf(stderr, "usage: spur image import [--name NAME] FILE|DIR|docker://REF\n"
			"       spur image list\n       spur image remove NAME\n"
			"(the store: $SPUR_IMAGE_STORE, else SpurImageStore, else %s)\n",
		SPUR_IMAGE_STORE_DEFAULT);
	return 1;
}
