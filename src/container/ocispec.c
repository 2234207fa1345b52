/* SPDX-License-Identifier: Apache-2.0 */
/* config.json for a container task (ocispec.h). */
#define _GNU_SOURCE
#include "container/ocispec.h"

#include "common/wire.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

/* What a remapped root may do in its own user namespace (Docker's and
 * runc's default set); a task as its user gets none. */
static const char *const root_caps[] = { "CAP_CHOWN",	  "CAP_DAC_OVERRIDE", "CAP_FSETID",
					 "CAP_FOWNER",	  "CAP_MKNOD",	      "CAP_NET_RAW",
					 "CAP_SETGID",	  "CAP_SETUID",	      "CAP_SETFCAP",
					 "CAP_SETPCAP",	  "CAP_NET_BIND_SERVICE", "CAP_SYS_CHROOT",
					 "CAP_KILL",	  "CAP_AUDIT_WRITE" };

static json_t *mount(const char *dst, const char *type, const char *src, const char *opts)
{
	json_t *o = json_array();
	char buf[256], *save = NULL;

	snprintf(buf, sizeof(buf), "%s", opts);
	for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save))
		json_array_append_new(o, json_string(t));
	return json_pack("{s:s,s:s,s:s,s:o}", "destination", dst, "type", type, "source", src,
			 "options", o);
}

/* One SRC[:DST[:FLAGS]] of --container-mounts; 0 or -1 with why. */
static int mount_item(const char *item, char *src, char *dst, bool *ro, char *why, size_t wlen)
{
	char buf[4096], *c1, *c2;

	snprintf(buf, sizeof(buf), "%s", item);
	c1 = strchr(buf, ':');
	c2 = c1 ? strchr(c1 + 1, ':') : NULL;
	if (c1)
		*c1 = '\0';
	if (c2)
		*c2 = '\0';
	snprintf(src, 4096, "%s", buf);
	snprintf(dst, 4096, "%s", c1 && c1[1] ? c1 + 1 : buf);
	*ro = false;
	if (c2 && strcmp(c2 + 1, "ro") && strcmp(c2 + 1, "rw") && strcmp(c2 + 1, "rbind") &&
	    strcmp(c2 + 1, "bind")) {
		snprintf(why, wlen, "--container-mounts: %s: flags '%s' (ro or rw)", item, c2 + 1);
		return -1;
	}
	*ro = c2 && !strcmp(c2 + 1, "ro");
	if (*src != '/' || *dst != '/' || strstr(src, "/../") || strstr(dst, "/../")) {
		snprintf(why, wlen, "--container-mounts: %s: SRC and DST must be absolute paths",
			 item);
		return -1;
	}
	return 0;
}

int spur_oci_mounts_check(const char *text, char *why, size_t wlen)
{
	char buf[8192], *save = NULL, src[4096], dst[4096];
	bool ro;

	snprintf(buf, sizeof(buf), "%s", text);
	for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save))
		if (mount_item(t, src, dst, &ro, why, wlen))
			return -1;
	return 0;
}

/* Is path at or under one of the container's mount destinations? */
static bool under(const json_t *mounts, const char *path)
{
	const json_t *m;
	size_t i;

	json_array_foreach(mounts, i, m) {
		const char *d = spur_json_str(m, "destination", "");
		size_t l = strlen(d);

		if (!strcmp(spur_json_str(m, "type", ""), "bind") && l > 1 && !strncmp(path, d, l) &&
		    (path[l] == '\0' || path[l] == '/'))
			return true;
	}
	return false;
}

static json_t *base_mounts(const struct spur_oci_req *r, bool userns)
{
	json_t *m = json_array();

	/* a user namespace without its own pid and network namespaces may not
	 * mount proc and sysfs: the host's are bound */
	json_array_append_new(m, userns ? mount("/proc", "bind", "/proc", "rbind,nosuid,noexec,nodev")
					: mount("/proc", "proc", "proc", "nosuid,noexec,nodev"));
	json_array_append_new(m, mount("/dev", "tmpfs", "tmpfs", "nosuid,strictatime,mode=755,size=65536k"));
	json_array_append_new(m, mount("/dev/pts", "devpts", "devpts",
				       "nosuid,noexec,newinstance,ptmxmode=0666,mode=0620"));
	json_array_append_new(m, mount("/dev/shm", "tmpfs", "shm", "nosuid,noexec,nodev,mode=1777"));
	json_array_append_new(m, mount("/sys", "bind", "/sys", "rbind,nosuid,noexec,nodev,ro"));
	if (r->rootfs_ro)
		json_array_append_new(m, mount("/tmp", "tmpfs", "tmpfs", "nosuid,nodev,mode=1777"));
	return m;
}

/* The site's and the user's binds: home, --container-mounts, CDI mounts,
 * the agent's own (the batch script). 0 or -1 with why. */
static int user_mounts(const struct spur_oci_req *r, json_t *m, char *why, size_t wlen)
{
	const char *text = spur_json_str(r->ctr, "mounts", "");
	char buf[8192], *save = NULL, src[4096], dst[4096];
	const json_t *e, *cm;
	size_t i, k;
	bool ro;

	struct stat st;

	if (r->home && *r->home && spur_json_bool(r->ctr, "mount_home", 1) && !stat(r->home, &st) &&
	    S_ISDIR(st.st_mode))
		json_array_append_new(m, mount(r->home, "bind", r->home, "rbind,nosuid,nodev"));
	snprintf(buf, sizeof(buf), "%s", text);
	for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		if (mount_item(t, src, dst, &ro, why, wlen))
			return -1;
		json_array_append_new(m, mount(dst, "bind", src,
					       ro ? "rbind,nosuid,nodev,ro" : "rbind,nosuid,nodev"));
	}
	json_array_foreach(r->edits, i, e)
		json_array_foreach(json_object_get(e, "mounts"), k, cm)
			json_array_append_new(m, mount(spur_json_str(cm, "containerPath", ""),
						       "bind", spur_json_str(cm, "hostPath", ""),
						       "rbind,nosuid,ro"));
	for (size_t b = 0; r->binds && r->binds[b] && r->binds[b + 1]; b += 2)
		json_array_append_new(m, mount(r->binds[b + 1], "bind", r->binds[b], "bind,ro"));
	return 0;
}

static void env_put(json_t *env, const char *kv)
{
	size_t nl = strcspn(kv, "="), i;
	json_t *v;

	json_array_foreach(env, i, v)
		if (!strncmp(json_string_value(v), kv, nl) && json_string_value(v)[nl] == '=') {
			json_array_set_new(env, i, json_string(kv));
			return;
		}
	json_array_append_new(env, json_string(kv));
}

static bool in_list(const char *list, const char *name, size_t nl)
{
	for (const char *p = list; p && *p;) {
		size_t l = strcspn(p, ",");

		if (l == nl && !strncmp(p, name, nl))
			return true;
		p += l + (p[l] == ',');
	}
	return false;
}

/* Inside, the container's GPUs are all it sees: the visible-devices
 * variables count from 0 (as Slurm's with ConstrainDevices=yes). */
static void renumber(json_t *env)
{
	static const char *const vars[] = { "CUDA_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES",
					    "HIP_VISIBLE_DEVICES", "GPU_DEVICE_ORDINAL" };
	const json_t *v;
	size_t i;

	json_array_foreach(env, i, v) {
		const char *kv = json_string_value(v), *eq = kv ? strchr(kv, '=') : NULL, *val;
		char buf[512];
		size_t n = 0, o;

		if (!eq)
			continue;
		val = eq + 1;
		for (size_t k = 0; k < sizeof(vars) / sizeof(vars[0]); k++) {
			size_t nl = strlen(vars[k]);

			if (strncmp(kv, vars[k], nl) || kv[nl] != '=' || !*val)
				continue;
			o = (size_t)snprintf(buf, sizeof(buf), "%s=", vars[k]);
			for (const char *p = val; *p && o < sizeof(buf) - 8; n++) {
				o += (size_t)snprintf(buf + o, sizeof(buf) - o, "%s%zu", n ? "," : "", n);
				p += strcspn(p, ",");
				p += *p == ',';
			}
			json_array_set_new(env, i, json_string(buf)); /* kv is freed */
			break;
		}
	}
}

/* The task's environment, then the image's Env over it (its PATH and the
 * like), but for the names of --container-env, which keep the host's; then
 * the devices' CDI env. */
static json_t *task_env(const struct spur_oci_req *r)
{
	const char *keep = spur_json_str(r->ctr, "env", "");
	const json_t *v, *e, *ce;
	json_t *env = json_array();
	size_t i, k;

	for (size_t n = 0; r->env && r->env[n]; n++)
		json_array_append_new(env, json_string(r->env[n]));
	json_array_foreach(json_object_get(r->image_config, "Env"), i, v) {
		const char *kv = json_string_value(v);

		if (kv && strchr(kv, '=') && !in_list(keep, kv, strcspn(kv, "=")))
			env_put(env, kv);
	}
	json_array_foreach(r->edits, i, e)
		json_array_foreach(json_object_get(e, "env"), k, ce)
			if (json_is_string(ce))
				env_put(env, json_string_value(ce));
	renumber(env);
	return env;
}

/* A CDI device node as the runtime takes it, and the cgroup rule that lets
 * the container open it; 0, or -1 when its node is not on this host. */
static int device(const json_t *dn, json_t *devs, json_t *rules)
{
	const char *path = spur_json_str(dn, "path", "");
	const char *host = spur_json_str(dn, "hostPath", path);
	json_int_t maj = spur_json_int(dn, "major", -1), min = spur_json_int(dn, "minor", -1);
	const char *type = spur_json_str(dn, "type", "");
	struct stat st;

	if (maj < 0 || !*type) {
		if (stat(host, &st) || !(S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode)))
			return -1;
		maj = major(st.st_rdev);
		min = minor(st.st_rdev);
		type = S_ISCHR(st.st_mode) ? "c" : "b";
	}
	json_array_append_new(devs, json_pack("{s:s,s:s,s:I,s:I,s:i}", "path", path, "type", type,
					      "major", maj, "minor", min, "fileMode", 0666));
	json_array_append_new(rules, json_pack("{s:b,s:s,s:I,s:I,s:s}", "allow", 1, "type", type,
					       "major", maj, "minor", min, "access",
					       spur_json_str(dn, "permissions", "rwm")));
	return 0;
}

static int devices(const struct spur_oci_req *r, json_t *linux, char *why, size_t wlen)
{
	json_t *devs = json_array(), *rules = json_array();
	const json_t *e, *dn;
	size_t i, k;

	json_array_foreach(r->edits, i, e)
		json_array_foreach(json_object_get(e, "deviceNodes"), k, dn)
			if (device(dn, devs, rules)) {
				snprintf(why, wlen, "CDI device node %s: not a device on this host",
					 spur_json_str(dn, "path", "?"));
				json_decref(devs);
				json_decref(rules);
				return -1;
			}
	json_object_set_new(linux, "devices", devs);
	json_object_set_new(linux, "resources", json_pack("{s:o}", "devices", rules));
	return 0;
}

static json_t *process(const struct spur_oci_req *r, bool remap, const char *cwd)
{
	json_t *args = json_array(), *gids = json_array(), *caps = json_array(), *p;

	for (size_t i = 0; r->argv && r->argv[i]; i++)
		json_array_append_new(args, json_string(r->argv[i]));
	for (int i = 0; !remap && i < r->ngroups; i++)
		if (r->groups[i] != r->gid)
			json_array_append_new(gids, json_integer(r->groups[i]));
	for (size_t i = 0; remap && i < sizeof(root_caps) / sizeof(root_caps[0]); i++)
		json_array_append_new(caps, json_string(root_caps[i]));
	p = json_pack("{s:b,s:{s:i,s:i,s:o},s:o,s:o,s:s,s:b}", "terminal", 0, "user", "uid",
		      remap ? 0 : (int)r->uid, "gid", remap ? 0 : (int)r->gid, "additionalGids", gids,
		      "args", args, "env", task_env(r), "cwd", cwd, "noNewPrivileges", 1);
	json_object_set_new(p, "capabilities",
			    json_pack("{s:O,s:O,s:O,s:o}", "bounding", caps, "effective", caps,
				      "permitted", caps, "ambient", json_array()));
	json_decref(caps);
	return p;
}

json_t *spur_oci_config(const struct spur_oci_req *r, char *why, size_t wlen)
{
	bool remap = spur_json_bool(r->ctr, "remap_root", 0) || r->rootless;
	json_t *mounts, *linux, *cfg, *ns;
	const char *cwd = spur_json_str(r->ctr, "workdir", "");

	/* a rootless runtime (runc) maps the container's root and no other id */
	if (r->rootless && json_is_false(json_object_get(r->ctr, "remap_root"))) {
		snprintf(why, wlen, "--no-container-remap-root: not supported on a node whose agent "
				    "is not root (its runtime maps only the container's root to the user)");
		return NULL;
	}
	mounts = base_mounts(r, remap);
	ns = json_pack("[{s:s}]", "type", "mount");
	if (user_mounts(r, mounts, why, wlen)) {
		json_decref(mounts);
		json_decref(ns);
		return NULL;
	}
	/* the folder: --container-workdir; else the job's, when it is mounted
	 * (the home by default); else the image's; else / */
	if (!*cwd)
		cwd = r->host_cwd && under(mounts, r->host_cwd)
			      ? r->host_cwd
			      : spur_json_str(r->image_config, "WorkingDir", "");
	if (*cwd != '/')
		cwd = "/";
	linux = json_pack("{s:o,s:[s,s,s,s,s,s,s,s],s:[s,s,s,s,s,s]}", "namespaces", ns, "maskedPaths",
			  "/proc/acpi", "/proc/kcore", "/proc/keys", "/proc/latency_stats",
			  "/proc/timer_list", "/proc/timer_stats", "/proc/sched_debug", "/sys/firmware",
			  "readonlyPaths", "/proc/asound", "/proc/bus", "/proc/fs", "/proc/irq",
			  "/proc/sys", "/proc/sysrq-trigger");
	if (remap) {
		json_array_append_new(ns, json_pack("{s:s}", "type", "user"));
		json_object_set_new(linux, "uidMappings",
				    json_pack("[{s:i,s:i,s:i}]", "containerID", 0, "hostID",
					      (int)r->uid, "size", 1));
		json_object_set_new(linux, "gidMappings",
				    json_pack("[{s:i,s:i,s:i}]", "containerID", 0, "hostID",
					      (int)r->gid, "size", 1));
	}
	if (r->cgroups_path)
		json_object_set_new(linux, "cgroupsPath", json_string(r->cgroups_path));
	if (devices(r, linux, why, wlen)) {
		json_decref(mounts);
		json_decref(linux);
		return NULL;
	}
	cfg = json_pack("{s:s,s:o,s:{s:s,s:b},s:o,s:o}", "ociVersion", "1.0.2", "process",
			process(r, remap, cwd), "root", "path", r->rootfs, "readonly", r->rootfs_ro,
			"mounts", mounts, "linux", linux);
	return cfg;
}
