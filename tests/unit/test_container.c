/* SPDX-License-Identifier: Apache-2.0 */
/* Containers' pure parts: CDI specs read (JSON, YAML) and generated, an
 * image's manifests, the OCI runtime config a task gets (mounts, env,
 * folder, user, exactly its devices). The GPUs are a fake set: no GPU here;
 * the device nodes named are /dev/null and /dev/zero, real character
 * devices, so the config's majors and minors are the host's. */
#include "container/manifest.h"
#include "container/ocispec.h"
#include "devices/cdi.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HEX "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

static void test_cdi_json_yaml(void **state)
{
	static const char js[] =
		"{\"cdiVersion\":\"0.6.0\",\"kind\":\"nvidia.com/gpu\",\"devices\":["
		"{\"name\":\"0\",\"containerEdits\":{\"deviceNodes\":[{\"path\":\"/dev/null\"}]}},"
		"{\"name\":\"1\",\"containerEdits\":{\"deviceNodes\":[{\"path\":\"/dev/zero\"}]}}],"
		"\"containerEdits\":{\"env\":[\"SHARED=1\"]}}";
	static const char ym[] = "cdiVersion: 0.6.0\n"
				 "kind: amd.com/gpu\n"
				 "devices:\n"
				 "  - name: \"0\"\n"
				 "    containerEdits:\n"
				 "      deviceNodes:\n"
				 "        - path: /dev/null\n";
	struct spur_cdi_set set = { 0 };
	const struct spur_cdi_device *d;
	char why[256];

	(void)state;
	assert_int_equal(spur_cdi_parse(js, strlen(js), "a.json", &set, why, sizeof(why)), 0);
	assert_int_equal(spur_cdi_parse(ym, strlen(ym), "b.yaml", &set, why, sizeof(why)), 0);
	assert_int_equal(set.n, 3);
	d = spur_cdi_find(&set, "nvidia.com/gpu", "1");
	assert_non_null(d);
	assert_string_equal(d->file, "a.json");
	/* the device's edits with the spec's own merged in */
	assert_int_equal(json_array_size(json_object_get(d->edits, "deviceNodes")), 1);
	assert_string_equal(json_string_value(json_array_get(json_object_get(d->edits, "env"), 0)),
			    "SHARED=1");
	assert_non_null(spur_cdi_find(&set, "amd.com/gpu", "0"));
	assert_null(spur_cdi_find(&set, "amd.com/gpu", "1"));
	spur_cdi_free(&set);
}

static void test_cdi_refused(void **state)
{
	static const char *const bad[][2] = {
		{ "{\"cdiVersion\":\"0.6.0\",\"kind\":\"gpu\",\"devices\":[]}", "kind" },
		{ "{\"kind\":\"a.com/gpu\",\"devices\":[]}", "cdiVersion" },
		{ "{\"cdiVersion\":\"0.6.0\",\"kind\":\"a.com/gpu\",\"devices\":[{\"containerEdits\":{}}]}",
		  "devices[0].name" },
		{ "cdiVersion: 0.6.0\nkind: [\n", "line" },
		{ "cdiVersion: 0.6.0\nkind: a.com/gpu\na: &a [1,1,1,1,1,1,1,1,1,1]\n"
		  "b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a,*a]\nc: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b,*b]\n"
		  "d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c,*c]\ne: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d,*d]\n"
		  "f: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e,*e]\ndevices: []\n",
		  "100000" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct spur_cdi_set set = { 0 };
		char why[256] = "";

		assert_int_not_equal(
			spur_cdi_parse(bad[i][0], strlen(bad[i][0]), "x", &set, why, sizeof(why)), 0);
		if (!strstr(why, bad[i][1]))
			fail_msg("case %zu: \"%s\" does not name %s", i, why, bad[i][1]);
		assert_int_equal(set.n, 0);
		spur_cdi_free(&set);
	}
}

static void test_cdi_generate(void **state)
{
	struct spur_gpu_set g = { .n = 2, .backend = "fake" };
	json_t *specs, *spec;
	struct spur_cdi_set set = { 0 };
	char why[256], *text;

	(void)state;
	for (size_t i = 0; i < g.n; i++) {
		snprintf(g.gpus[i].type, sizeof(g.gpus[i].type), "h100");
		snprintf(g.gpus[i].path, sizeof(g.gpus[i].path), "%s", i ? "/dev/zero" : "/dev/null");
		snprintf(g.gpus[i].uuid, sizeof(g.gpus[i].uuid), "GPU-test-%zu", i);
		g.gpus[i].vendor = 0x10de;
	}
	specs = spur_cdi_generate(&g);
	assert_int_equal(json_array_size(specs), 1);
	spec = json_array_get(specs, 0);
	assert_string_equal(json_string_value(json_object_get(spec, "kind")), "nvidia.com/gpu");
	/* what it writes reads back: by index, by UUID and "all" */
	text = json_dumps(spec, 0);
	assert_int_equal(spur_cdi_parse(text, strlen(text), "gen.json", &set, why, sizeof(why)), 0);
	assert_non_null(spur_cdi_find(&set, "nvidia.com/gpu", "1"));
	assert_non_null(spur_cdi_find(&set, "nvidia.com/gpu", "GPU-test-1"));
	assert_non_null(spur_cdi_find(&set, "nvidia.com/gpu", "all"));
	free(text);
	spur_cdi_free(&set);
	json_decref(specs);
}

static void test_manifest(void **state)
{
	static struct spur_image_manifest m;
	static const char idx[] = "{\"manifests\":[{\"digest\":\"sha256:" HEX "\"}]}";
	static const char man[] = "{\"config\":{\"digest\":\"sha256:" HEX "\"},"
				  "\"layers\":[{\"digest\":\"sha256:" HEX "\"}]}";
	static const char *const bad[][2] = {
		{ "{\"layers\":[{\"digest\":\"sha256:../../../etc/shadow\"}]}", "layer 0" },
		{ "{\"layers\":[{\"digest\":\"md5:abc\"}]}", "layer 0" },
		{ "{\"manifests\":[]}", "no manifest" },
		{ "{\"schemaVersion\":2}", "layers" },
		{ "{", "line 1" },
	};
	static const char dk[] = "[{\"Config\":\"c.json\",\"Layers\":[\"a/layer.tar\"]}]";
	char why[256];

	(void)state;
	assert_int_equal(spur_image_manifest_parse(idx, strlen(idx), SPUR_IMAGE_OCI, &m, why,
						   sizeof(why)),
			 0);
	assert_string_equal(m.next, "blobs/sha256/" HEX);
	assert_int_equal(m.nlayers, 0);
	assert_int_equal(spur_image_manifest_parse(man, strlen(man), SPUR_IMAGE_OCI, &m, why,
						   sizeof(why)),
			 0);
	assert_string_equal(m.next, "");
	assert_int_equal(m.nlayers, 1);
	assert_string_equal(m.config, "blobs/sha256/" HEX);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(spur_image_manifest_parse(bad[i][0], strlen(bad[i][0]),
							   SPUR_IMAGE_OCI, &m, why, sizeof(why)),
				 -1);
		if (!strstr(why, bad[i][1]))
			fail_msg("case %zu: \"%s\" does not name %s", i, why, bad[i][1]);
	}
	/* docker save: relative paths, no way out */
	assert_int_equal(spur_image_manifest_parse(dk, strlen(dk), SPUR_IMAGE_DOCKER, &m, why,
						   sizeof(why)),
			 0);
	assert_string_equal(m.layers[0], "a/layer.tar");
	assert_string_equal(m.config, "c.json");
	assert_int_equal(spur_image_manifest_parse("[{\"Layers\":[\"../../x\"]}]", 24,
						   SPUR_IMAGE_DOCKER, &m, why, sizeof(why)),
			 -1);
	assert_int_equal(spur_image_manifest_parse("[{\"Layers\":[\"/etc/x\"]}]", 23,
						   SPUR_IMAGE_DOCKER, &m, why, sizeof(why)),
			 -1);
}

static const char *env_of(const json_t *cfg, const char *name)
{
	const json_t *v;
	size_t i, nl = strlen(name);

	json_array_foreach(json_object_get(json_object_get(cfg, "process"), "env"), i, v)
		if (!strncmp(json_string_value(v), name, nl) && json_string_value(v)[nl] == '=')
			return json_string_value(v) + nl + 1;
	return NULL;
}

static bool has_mount(const json_t *cfg, const char *dst, const char *opt)
{
	const json_t *m, *o;
	size_t i, k;

	json_array_foreach(json_object_get(cfg, "mounts"), i, m) {
		if (strcmp(json_string_value(json_object_get(m, "destination")), dst))
			continue;
		if (!opt)
			return true;
		json_array_foreach(json_object_get(m, "options"), k, o)
			if (!strcmp(json_string_value(o), opt))
				return true;
	}
	return false;
}

static void test_oci_config(void **state)
{
	char *argv[] = { "hostname", NULL };
	char *env[] = { "PATH=/usr/bin", "FOO=host", "KEEP=host", "CUDA_VISIBLE_DEVICES=5,7",
			NULL };
	json_t *ctr = json_pack("{s:s,s:s,s:b}", "mounts", "/tmp:/scratch:ro,/var", "env", "KEEP",
				"mount_home", 0);
	json_t *image = json_pack("{s:[s,s,s],s:s}", "Env", "PATH=/bin", "FOO=image", "KEEP=image",
				  "WorkingDir", "/srv");
	json_t *edits = json_pack("[{s:[{s:s}],s:[s]},{s:[{s:s}]}]", "deviceNodes", "path",
				  "/dev/null", "env", "CDI_SAYS=yes", "deviceNodes", "path",
				  "/dev/zero");
	gid_t groups[] = { 100, 27 };
	struct spur_oci_req r = { .ctr = ctr, .rootfs = "/r", .image_config = image, .argv = argv,
				  .env = env, .host_cwd = "/home/u/work", .home = "/home/u",
				  .uid = 1000, .gid = 100, .groups = groups, .ngroups = 2,
				  .cgroups_path = "/spur/job_1/oci_x", .edits = edits };
	const json_t *linux, *user;
	char why[256];
	json_t *cfg = spur_oci_config(&r, why, sizeof(why));

	(void)state;
	assert_non_null(cfg);
	user = json_object_get(json_object_get(cfg, "process"), "user");
	assert_int_equal(json_integer_value(json_object_get(user, "uid")), 1000);
	assert_int_equal(json_array_size(json_object_get(user, "additionalGids")), 1);
	/* the image's Env over the job's, but --container-env's names */
	assert_string_equal(env_of(cfg, "PATH"), "/bin");
	assert_string_equal(env_of(cfg, "FOO"), "image");
	assert_string_equal(env_of(cfg, "KEEP"), "host");
	assert_string_equal(env_of(cfg, "CDI_SAYS"), "yes");
	assert_string_equal(env_of(cfg, "CUDA_VISIBLE_DEVICES"), "0,1");
	/* the job's folder is not mounted (no home): the image's WorkingDir */
	assert_string_equal(json_string_value(json_object_get(json_object_get(cfg, "process"), "cwd")),
			    "/srv");
	assert_true(has_mount(cfg, "/scratch", "ro"));
	assert_true(has_mount(cfg, "/var", "rw") || has_mount(cfg, "/var", NULL));
	assert_false(has_mount(cfg, "/home/u", NULL));
	linux = json_object_get(cfg, "linux");
	assert_string_equal(json_string_value(json_object_get(linux, "cgroupsPath")), "/spur/job_1/oci_x");
	/* exactly its two devices, each allowed in the devices cgroup */
	assert_int_equal(json_array_size(json_object_get(linux, "devices")), 2);
	assert_int_equal(json_integer_value(json_object_get(
				 json_array_get(json_object_get(linux, "devices"), 1), "minor")),
			 5); /* /dev/zero is 1:5 */
	assert_int_equal(json_array_size(json_object_get(json_object_get(linux, "resources"), "devices")),
			 2);
	json_decref(cfg);
	/* a device node this host lacks: refused, saying which */
	json_decref(edits);
	r.edits = edits = json_pack("[{s:[{s:s}]}]", "deviceNodes", "path", "/dev/nonexistent-gpu9");
	assert_null(spur_oci_config(&r, why, sizeof(why)));
	assert_non_null(strstr(why, "/dev/nonexistent-gpu9"));
	json_decref(edits);
	json_decref(ctr);
	json_decref(image);
}

static void test_oci_remap_mounts(void **state)
{
	char *argv[] = { "id", NULL };
	json_t *ctr = json_pack("{s:b,s:s}", "remap_root", 1, "mounts", "/data");
	struct spur_oci_req r = { .ctr = ctr, .rootfs = "/r", .argv = argv, .host_cwd = "/data/x",
				  .uid = 1000, .gid = 100 };
	const json_t *linux;
	char why[256];
	json_t *cfg = spur_oci_config(&r, why, sizeof(why));

	(void)state;
	assert_non_null(cfg);
	linux = json_object_get(cfg, "linux");
	assert_int_equal(json_integer_value(json_object_get(
				 json_object_get(json_object_get(cfg, "process"), "user"), "uid")),
			 0);
	assert_int_equal(json_integer_value(json_object_get(
				 json_array_get(json_object_get(linux, "uidMappings"), 0), "hostID")),
			 1000);
	/* the job's folder is under a mount: it is the folder inside */
	assert_string_equal(json_string_value(json_object_get(json_object_get(cfg, "process"), "cwd")),
			    "/data/x");
	json_decref(cfg);
	/* rootless: root inside is the user, and asking otherwise is refused */
	json_object_del(ctr, "remap_root");
	r.rootless = true;
	cfg = spur_oci_config(&r, why, sizeof(why));
	assert_non_null(json_object_get(json_object_get(cfg, "linux"), "uidMappings"));
	json_decref(cfg);
	json_object_set_new(ctr, "remap_root", json_false());
	assert_null(spur_oci_config(&r, why, sizeof(why)));
	assert_non_null(strstr(why, "--no-container-remap-root: not supported"));
	assert_int_equal(spur_oci_mounts_check("/a:/b:ro,/c", why, sizeof(why)), 0);
	assert_int_equal(spur_oci_mounts_check("relative:/b", why, sizeof(why)), -1);
	assert_int_equal(spur_oci_mounts_check("/a:/b:rx", why, sizeof(why)), -1);
	json_decref(ctr);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cdi_json_yaml),	 cmocka_unit_test(test_cdi_refused),
		cmocka_unit_test(test_cdi_generate),	 cmocka_unit_test(test_manifest),
		cmocka_unit_test(test_oci_config),	 cmocka_unit_test(test_oci_remap_mounts),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
