/* SPDX-License-Identifier: Apache-2.0 */
/* CDI specs (cdi.h): jansson for JSON, libyaml for YAML (read into the
 * same JSON values), checked as the CDI 0.6 specification asks. */
#define _GNU_SOURCE
#include "devices/cdi.h"

#include "common/conf_lex.h"
#include "common/log.h"
#include "common/wire.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include <yaml.h>

/* ---- YAML into JSON values ---- */

static json_t *yaml_node_json(yaml_document_t *doc, yaml_node_t *n, int depth, size_t *left);

static json_t *yaml_scalar(const yaml_node_t *n)
{
	const char *s = (const char *)n->data.scalar.value;
	char *end;
	long long v;

	if (n->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
		return json_string(s);
	if (!strcmp(s, "true") || !strcmp(s, "false"))
		return json_boolean(!strcmp(s, "true"));
	if (!strcmp(s, "null") || !strcmp(s, "~"))
		return json_null();
	errno = 0;
	v = strtoll(s, &end, 0);
	if (*s && !*end && !errno)
		return json_integer(v);
	return json_string(s);
}

/* n as JSON: at most 32 deep and *left nodes in all (an alias is copied
 * where it is used: a few lines of aliases of aliases would be billions). */
static json_t *yaml_node_json(yaml_document_t *doc, yaml_node_t *n, int depth, size_t *left)
{
	json_t *o;

	if (!n || depth > 32 || !*left)
		return NULL;
	--*left;
	if (n->type == YAML_SCALAR_NODE)
		return yaml_scalar(n);
	if (n->type == YAML_SEQUENCE_NODE) {
		o = json_array();
		for (yaml_node_item_t *it = n->data.sequence.items.start;
		     it < n->data.sequence.items.top; it++)
			json_array_append_new(o, yaml_node_json(doc, yaml_document_get_node(doc, *it),
								depth + 1, left));
		return o;
	}
	o = json_object();
	for (yaml_node_pair_t *p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; p++) {
		yaml_node_t *k = yaml_document_get_node(doc, p->key);
		json_t *v = yaml_node_json(doc, yaml_document_get_node(doc, p->value), depth + 1,
					   left);

		if (k && k->type == YAML_SCALAR_NODE && v)
			json_object_set_new(o, (const char *)k->data.scalar.value, v);
		else
			json_decref(v);
	}
	return o;
}

static json_t *yaml_load(const char *text, size_t len, char *why, size_t wlen)
{
	yaml_parser_t p;
	yaml_document_t doc;
	json_t *o = NULL;
	size_t left = 100001;

	if (!yaml_parser_initialize(&p))
		return NULL;
	yaml_parser_set_input_string(&p, (const unsigned char *)text, len);
	if (!yaml_parser_load(&p, &doc)) {
		snprintf(why, wlen, "line %zu: %s", p.problem_mark.line + 1,
			 p.problem ? p.problem : "not YAML");
		yaml_parser_delete(&p);
		return NULL;
	}
	o = yaml_node_json(&doc, yaml_document_get_root_node(&doc), 0, &left);
	if (!left) {
		json_decref(o);
		o = NULL;
		snprintf(why, wlen, "more than 100000 values (aliases?)");
	} else if (!o) {
		snprintf(why, wlen, "empty");
	}
	yaml_document_delete(&doc);
	yaml_parser_delete(&p);
	return o;
}

/* ---- checking a spec ---- */

/* "vendor.com/class": a domain-like vendor and a class name */
static int kind_ok(const char *k)
{
	const char *slash = k ? strchr(k, '/') : NULL;

	if (!slash || slash == k || !slash[1] || strchr(slash + 1, '/') || strlen(k) >= 128)
		return 0;
	for (const char *c = k; *c; c++)
		if (!isalnum((unsigned char)*c) && !strchr("-_./", *c))
			return 0;
	return 1;
}

static int name_ok(const char *n)
{
	if (!n || !*n || !isalnum((unsigned char)*n) || strlen(n) >= 128)
		return 0;
	return strspn(n, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.:-") ==
	       strlen(n);
}

/* containerEdits: deviceNodes with absolute paths, env as "NAME=VALUE",
 * mounts with hostPath and containerPath. */
static int edits_ok(const json_t *e, const char *where, char *why, size_t wlen)
{
	const json_t *v;
	size_t i;

	if (!e)
		return 1;
	if (!json_is_object(e))
		return snprintf(why, wlen, "%s: not an object", where), 0;
	json_array_foreach(json_object_get(e, "deviceNodes"), i, v) {
		const char *p = json_string_value(json_object_get(v, "path"));

		if (!p || *p != '/')
			return snprintf(why, wlen, "%s.deviceNodes[%zu].path: %s", where, i,
					p ? "not absolute" : "missing"),
			       0;
	}
	json_array_foreach(json_object_get(e, "env"), i, v)
		if (!json_is_string(v) || !strchr(json_string_value(v), '='))
			return snprintf(why, wlen, "%s.env[%zu]: not NAME=VALUE", where, i), 0;
	json_array_foreach(json_object_get(e, "mounts"), i, v)
		if (!json_is_string(json_object_get(v, "hostPath")) ||
		    !json_is_string(json_object_get(v, "containerPath")))
			return snprintf(why, wlen, "%s.mounts[%zu]: hostPath and containerPath needed",
					where, i),
			       0;
	return 1;
}

static int spec_ok(const json_t *s, char *why, size_t wlen)
{
	const json_t *devs = json_object_get(s, "devices"), *d;
	char where[64];
	size_t i;

	if (!json_is_object(s))
		return snprintf(why, wlen, "not a CDI spec (an object)"), 0;
	if (!json_is_string(json_object_get(s, "cdiVersion")))
		return snprintf(why, wlen, "cdiVersion: missing"), 0;
	if (!kind_ok(json_string_value(json_object_get(s, "kind"))))
		return snprintf(why, wlen, "kind: %s (want vendor.com/class)",
				json_is_string(json_object_get(s, "kind")) ? "invalid" : "missing"),
		       0;
	if (!json_is_array(devs) || !json_array_size(devs))
		return snprintf(why, wlen, "devices: %s", devs ? "empty" : "missing"), 0;
	if (!edits_ok(json_object_get(s, "containerEdits"), "containerEdits", why, wlen))
		return 0;
	json_array_foreach(devs, i, d) {
		if (!name_ok(json_string_value(json_object_get(d, "name"))))
			return snprintf(why, wlen, "devices[%zu].name: %s", i,
					json_object_get(d, "name") ? "invalid" : "missing"),
			       0;
		if (!json_is_object(json_object_get(d, "containerEdits")))
			return snprintf(why, wlen, "devices[%zu].containerEdits: missing", i), 0;
		snprintf(where, sizeof(where), "devices[%zu].containerEdits", i);
		if (!edits_ok(json_object_get(d, "containerEdits"), where, why, wlen))
			return 0;
	}
	return 1;
}

/* A device's edits followed by its spec's shared ones. */
static json_t *merged_edits(const json_t *dev, const json_t *common)
{
	json_t *m = json_deep_copy(dev);
	const char *key;
	json_t *v;

	json_object_foreach((json_t *)common, key, v) {
		json_t *have = json_object_get(m, key);

		if (json_is_array(have) && json_is_array(v))
			json_array_extend(have, v);
		else if (!have)
			json_object_set(m, key, v);
	}
	return m;
}

static int set_put(struct spur_cdi_set *set, const char *kind, const char *name, const char *file,
		   json_t *edits)
{
	struct spur_cdi_device *d = NULL, *nd;

	for (size_t i = 0; i < set->n && !d; i++)
		if (!strcmp(set->dev[i].kind, kind) && !strcmp(set->dev[i].name, name))
			d = &set->dev[i];
	if (!d) {
		if (!(nd = realloc(set->dev, (set->n + 1) * sizeof(*nd)))) {
			json_decref(edits);
			return SPUR_ENOMEM;
		}
		set->dev = nd;
		d = &set->dev[set->n++];
		memset(d, 0, sizeof(*d));
	}
	json_decref(d->edits);
	snprintf(d->kind, sizeof(d->kind), "%s", kind);
	snprintf(d->name, sizeof(d->name), "%s", name);
	snprintf(d->file, sizeof(d->file), "%s", file);
	d->edits = edits;
	return 0;
}

int spur_cdi_parse(const char *text, size_t len, const char *file, struct spur_cdi_set *set,
		   char *why, size_t wlen)
{
	json_error_t je;
	json_t *s = NULL, *d;
	size_t i;
	int rc = SPUR_EPARSE;

	*why = '\0';
	while (len && isspace((unsigned char)*text))
		text++, len--;
	if (len && *text == '{') {
		if (!(s = json_loadb(text, len, 0, &je)))
			snprintf(why, wlen, "line %d: %s", je.line, je.text);
	} else {
		s = yaml_load(text, len, why, wlen);
	}
	if (!s || !spec_ok(s, why, wlen))
		goto out;
	json_array_foreach(json_object_get(s, "devices"), i, d)
		if ((rc = set_put(set, json_string_value(json_object_get(s, "kind")),
				  json_string_value(json_object_get(d, "name")), file,
				  merged_edits(json_object_get(d, "containerEdits"),
					       json_object_get(s, "containerEdits")))))
			goto out;
	rc = 0;
out:
	json_decref(s);
	return rc;
}

static int spec_file(const char *name)
{
	const char *dot = strrchr(name, '.');

	return name[0] != '.' && dot &&
	       (!strcmp(dot, ".json") || !strcmp(dot, ".yaml") || !strcmp(dot, ".yml"));
}

static int load_dir(const char *dir, struct spur_cdi_set *set, spur_cdi_bad_f bad, void *arg)
{
	struct dirent **ents = NULL;
	int n = scandir(dir, &ents, NULL, alphasort), rc = 0;

	for (int i = 0; i < n; i++) {
		char path[4096], why[512];
		struct spur_error err;
		char *text = NULL;
		size_t len = 0;

		if (!rc && spec_file(ents[i]->d_name)) {
			snprintf(path, sizeof(path), "%s/%s", dir, ents[i]->d_name);
			if (spur_read_file(path, &text, &len, &err))
				snprintf(why, sizeof(why), "%s", err.msg);
			else if ((rc = spur_cdi_parse(text, len, path, set, why, sizeof(why))) ==
				 SPUR_EPARSE)
				rc = 0;
			else
				*why = '\0';
			if (*why && bad)
				bad(path, why, arg);
			free(text);
		}
		free(ents[i]);
	}
	free(ents);
	return rc;
}

int spur_cdi_load(const char *dirs, struct spur_cdi_set *set, spur_cdi_bad_f bad, void *arg)
{
	char list[4096], *save = NULL;
	int rc = 0;

	snprintf(list, sizeof(list), "%s", dirs && *dirs ? dirs : SPUR_CDI_DIRS);
	for (char *d = strtok_r(list, ",", &save); d && !rc; d = strtok_r(NULL, ",", &save))
		rc = load_dir(d, set, bad, arg);
	return rc;
}

void spur_cdi_free(struct spur_cdi_set *set)
{
	for (size_t i = 0; i < set->n; i++)
		json_decref(set->dev[i].edits);
	free(set->dev);
	set->dev = NULL;
	set->n = 0;
}

const struct spur_cdi_device *spur_cdi_find(const struct spur_cdi_set *set, const char *kind,
					    const char *name)
{
	for (size_t i = 0; i < set->n; i++)
		if (!strcmp(set->dev[i].kind, kind) && !strcmp(set->dev[i].name, name))
			return &set->dev[i];
	return NULL;
}

/* ---- writing specs for discovered GPUs ---- */

const char *spur_cdi_gpu_kind(const struct spur_gpu_set *g, size_t i)
{
	const struct spur_gpu *gpu = &g->gpus[i];

	if (gpu->vendor == 0x1002)
		return "amd.com/gpu";
	if (gpu->vendor == 0x10de)
		return "nvidia.com/gpu";
	/* fake GPUs: by their type's name */
	return !strncmp(gpu->type, "mi", 2) || strstr(gpu->type, "amd") ? "amd.com/gpu"
									 : "nvidia.com/gpu";
}

/* {"path","type","major","minor","permissions"} for a node that exists; a
 * path alone (the runtime looks) for one that does not. */
static json_t *dev_node(const char *path)
{
	struct stat st;
	json_t *o = json_pack("{s:s}", "path", path);

	if (!stat(path, &st) && (S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode))) {
		json_object_set_new(o, "type", json_string(S_ISCHR(st.st_mode) ? "c" : "b"));
		json_object_set_new(o, "major", json_integer(major(st.st_rdev)));
		json_object_set_new(o, "minor", json_integer(minor(st.st_rdev)));
		json_object_set_new(o, "permissions", json_string("rw"));
	}
	return o;
}

/* An AMD GPU's card node beside its render node (/dev/dri/cardN), from
 * sysfs; "" when none. */
static void amd_card(const char *render, char *out, size_t len)
{
	const char *base = strrchr(render, '/');
	char dir[512];
	struct dirent *de;
	DIR *d;

	*out = '\0';
	snprintf(dir, sizeof(dir), "/sys/class/drm/%s/device/drm", base ? base + 1 : render);
	if (!(d = opendir(dir)))
		return;
	while ((de = readdir(d)))
		if (!strncmp(de->d_name, "card", 4)) {
			snprintf(out, len, "/dev/dri/%s", de->d_name);
			break;
		}
	closedir(d);
}

static json_t *gpu_edits(const struct spur_gpu_set *g, size_t i, const char *kind)
{
	json_t *nodes = json_array();
	char card[300];

	json_array_append_new(nodes, dev_node(g->gpus[i].path));
	if (!strcmp(kind, "amd.com/gpu")) {
		amd_card(g->gpus[i].path, card, sizeof(card));
		if (*card)
			json_array_append_new(nodes, dev_node(card));
	}
	return json_pack("{s:o}", "deviceNodes", nodes);
}

/* The nodes every GPU of a kind needs, those that exist here. */
static json_t *common_edits(const char *kind)
{
	static const char *const amd[] = { "/dev/kfd", NULL };
	static const char *const nv[] = { "/dev/nvidiactl", "/dev/nvidia-uvm",
					  "/dev/nvidia-uvm-tools", "/dev/nvidia-modeset", NULL };
	const char *const *l = strcmp(kind, "amd.com/gpu") ? nv : amd;
	json_t *nodes = json_array(), *e = json_object();

	for (; *l; l++)
		if (!access(*l, F_OK))
			json_array_append_new(nodes, dev_node(*l));
	if (json_array_size(nodes))
		json_object_set_new(e, "deviceNodes", nodes);
	else
		json_decref(nodes);
	return e;
}

static json_t *spec_for(const struct spur_gpu_set *set, const char *kind)
{
	json_t *devs = json_array(), *all = json_array();
	char idx[16];

	for (size_t i = 0; i < set->n; i++) {
		if (strcmp(spur_cdi_gpu_kind(set, i), kind))
			continue;
		snprintf(idx, sizeof(idx), "%zu", i);
		json_array_append_new(devs, json_pack("{s:s,s:o}", "name", idx, "containerEdits",
						      gpu_edits(set, i, kind)));
		if (set->gpus[i].uuid[0] && name_ok(set->gpus[i].uuid))
			json_array_append_new(devs,
					      json_pack("{s:s,s:o}", "name", set->gpus[i].uuid,
							"containerEdits", gpu_edits(set, i, kind)));
		json_array_extend(all, json_object_get(json_object_get(json_array_get(
								       devs, json_array_size(devs) - 1),
								       "containerEdits"),
						       "deviceNodes"));
	}
	json_array_append_new(devs, json_pack("{s:s,s:{s:o}}", "name", "all", "containerEdits",
					      "deviceNodes", all));
	return json_pack("{s:s,s:s,s:o,s:o}", "cdiVersion", SPUR_CDI_VERSION, "kind", kind,
			 "devices", devs, "containerEdits", common_edits(kind));
}

json_t *spur_cdi_generate(const struct spur_gpu_set *set)
{
	json_t *specs = json_array();
	const char *kinds[] = { "amd.com/gpu", "nvidia.com/gpu" };

	for (size_t k = 0; k < 2; k++)
		for (size_t i = 0; i < set->n; i++)
			if (!strcmp(spur_cdi_gpu_kind(set, i), kinds[k])) {
				json_array_append_new(specs, spec_for(set, kinds[k]));
				break;
			}
	return specs;
}

/* ---- the discovery backend ---- */

static void said_bad(const char *file, const char *why, void *arg)
{
	(void)arg;
	spur_warn("CDI spec %s: %s (its devices are left out)", file, why);
}

/* A device of a gpu-class spec that is a schedulable GPU: named by index. */
static int add_gpu(struct spur_gpu_set *out, const struct spur_cdi_device *d)
{
	const json_t *node = json_array_get(json_object_get(d->edits, "deviceNodes"), 0);
	struct spur_gpu *g;
	char vendor[64];

	if (strspn(d->name, "0123456789") != strlen(d->name) || out->n >= SPUR_GPU_MAX || !node)
		return 0;
	g = &out->gpus[out->n++];
	memset(g, 0, sizeof(*g));
	snprintf(vendor, sizeof(vendor), "%.*s", (int)strcspn(d->kind, "./"), d->kind);
	snprintf(g->type, sizeof(g->type), "%s", vendor);
	snprintf(g->path, sizeof(g->path), "%s", spur_json_str(node, "path", ""));
	snprintf(g->uuid, sizeof(g->uuid), "%s=%s", d->kind, d->name);
	g->numa = -1;
	return 0;
}

static int cdi_discover(const char *arg, struct spur_gpu_set *out, struct spur_error *err)
{
	struct spur_cdi_set set = { 0 };
	int rc;

	memset(out, 0, sizeof(*out));
	out->backend = "cdi";
	if ((rc = spur_cdi_load(arg, &set, said_bad, NULL)))
		return spur_error_set(err, rc, "CDI specs: %s", spur_strerror(rc));
	for (size_t i = 0; i < set.n; i++) {
		const char *cls = strchr(set.dev[i].kind, '/') + 1;

		if (!strcmp(cls, "gpu"))
			add_gpu(out, &set.dev[i]);
		else if (!strcmp(set.dev[i].name, "all") || i == 0 ||
			 strcmp(set.dev[i - 1].kind, set.dev[i].kind))
			spur_warn("CDI kind %s (%s): only class gpu is schedulable here; its "
				  "devices are not GRES",
				  set.dev[i].kind, set.dev[i].file);
	}
	for (size_t a = 0; a < out->n; a++)
		for (size_t b = 0; b < out->n; b++)
			out->links[a][b] = a == b ? SPUR_GPU_LINK_SELF : SPUR_GPU_LINK_SYS;
	spur_cdi_free(&set);
	return out->n ? 0 : spur_error_set(err, SPUR_ENOENT, "no GPU in the CDI specs");
}

static uint32_t cdi_health(const char *arg, const struct spur_gpu_set *set, char *why, size_t len)
{
	uint32_t bad = 0;

	(void)arg;
	for (size_t i = 0; i < set->n; i++)
		if (access(set->gpus[i].path, F_OK)) {
			if (!bad)
				snprintf(why, len, "%s is gone", set->gpus[i].path);
			bad |= 1u << i;
		}
	return bad;
}

static int cdi_usage(const char *arg, const struct spur_gpu_set *set, size_t i,
		     struct spur_gpu_usage *u)
{
	(void)arg;
	(void)set;
	(void)i;
	(void)u;
	return SPUR_EUNSUPP;
}

const struct spur_gpu_backend spur_gpu_cdi = { "cdi", cdi_discover, cdi_health, cdi_usage };
