/* SPDX-License-Identifier: Apache-2.0 */
/* JobSubmitPlugins=lua (see jobsubmit.h). */
#include "ctld/jobsubmit.h"

#include "common/alloc.h"
#include "common/log.h"
#include "common/timefmt.h"

#include <errno.h>
#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#define NO_VAL 0xfffffffeULL
#define INFINITE 0xffffffffULL

struct ctld_jobsubmit {
	lua_State *L;
	char path[4096];
	struct timespec mtime;
	char user_msg[1024]; /* slurm.user_msg / log_user, this call's */
};

/* job_desc's fields as Slurm names them, and where the job spec keeps
 * them. Numbers unset read NO_VAL, strings nil. */
enum field_kind { F_STR, F_INT, F_MINUTES, F_RO_STR, F_RO_INT };
static const struct field {
	const char *lua, *spec;
	enum field_kind kind;
} fields[] = {
	{ "account", "account", F_STR },
	{ "partition", "partition", F_STR },
	{ "name", "name", F_STR },
	{ "qos", "qos", F_STR },
	{ "reservation", "reservation", F_STR },
	{ "dependency", "dependency", F_STR },
	{ "features", "constraint", F_STR },
	{ "work_dir", "workdir", F_STR },
	{ "std_out", "output", F_STR },
	{ "std_err", "error", F_STR },
	{ "array_inx", "array", F_STR },
	{ "req_nodes", "nodelist", F_STR },
	{ "exc_nodes", "exclude", F_STR },
	{ "gres", "gres", F_STR },
	{ "time_limit", "time_limit", F_MINUTES },
	{ "min_nodes", "nodes", F_INT },
	{ "num_tasks", "ntasks", F_INT },
	{ "cpus_per_task", "cpus_per_task", F_INT },
	{ "pn_min_memory", "mem_per_node", F_INT },
	{ "nice", "nice", F_INT },
	{ "user_id", "uid", F_RO_INT },
	{ "group_id", "gid", F_RO_INT },
	{ "user_name", "user", F_RO_STR },
	{ "script", "script", F_RO_STR },
};

static const struct field *field(const char *name)
{
	for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++)
		if (!strcmp(fields[i].lua, name))
			return &fields[i];
	return NULL;
}

/* Slurm's codes a script returns, and the messages sbatch prints. */
static const struct {
	const char *name;
	int code;
	const char *msg;
} codes[] = {
	{ "SUCCESS", 0, "Success" },
	{ "ERROR", -1, "Unspecified error" },
	{ "FAILURE", -1, "Unspecified error" },
	{ "ESLURM_INVALID_PARTITION_NAME", 2000, "Invalid partition name specified" },
	{ "ESLURM_ACCESS_DENIED", 2002, "Access/permission denied" },
	{ "ESLURM_INVALID_NODE_COUNT", 2006, "Node count specification invalid" },
	{ "ESLURM_JOB_MISSING_SIZE_SPECIFICATION", 2008,
	  "Job size specification needs to be provided" },
	{ "ESLURM_INVALID_ACCOUNT", 2045,
	  "Invalid account or account/partition combination specified" },
	{ "ESLURM_INVALID_TIME_LIMIT", 2051,
	  "Requested time limit is invalid (missing or exceeds some limit)" },
	{ "ESLURM_INVALID_QOS", 2066, "Invalid qos specification" },
};

static struct ctld_jobsubmit *self(lua_State *L)
{
	struct ctld_jobsubmit *js;

	lua_getfield(L, LUA_REGISTRYINDEX, "spur_jobsubmit");
	js = lua_touserdata(L, -1);
	lua_pop(L, 1);
	return js;
}

/* slurm.log_*(fmt, ...): string.format, then the controller's log. */
static const char *formatted(lua_State *L)
{
	int n = lua_gettop(L);

	lua_getglobal(L, "string");
	lua_getfield(L, -1, "format");
	for (int i = 1; i <= n; i++)
		lua_pushvalue(L, i);
	lua_call(L, n, 1);
	return lua_tostring(L, -1);
}

static int l_log(lua_State *L)
{
	int level = (int)lua_tointeger(L, lua_upvalueindex(1));
	const char *text = formatted(L);

	if (level == 0)
		spur_error_log("job_submit.lua: %s", text ? text : "");
	else if (level == 1)
		spur_info("job_submit.lua: %s", text ? text : "");
	else
		spur_debug("job_submit.lua: %s", text ? text : "");
	return 0;
}

static int l_user_msg(lua_State *L)
{
	struct ctld_jobsubmit *js = self(L);
	const char *text = formatted(L);
	size_t used = strlen(js->user_msg);

	snprintf(js->user_msg + used, sizeof(js->user_msg) - used, "%s%s", used ? "; " : "",
		 text ? text : "");
	return 0;
}

static void slurm_table(lua_State *L)
{
	static const struct {
		const char *name;
		int level;
	} logs[] = { { "log_error", 0 },  { "log_info", 1 },	{ "log_verbose", 2 },
		     { "log_debug", 2 },  { "log_debug2", 2 }, { "log_debug3", 2 },
		     { "log_debug4", 2 }, { "log_debug5", 2 } };

	lua_newtable(L);
	for (size_t i = 0; i < sizeof(logs) / sizeof(logs[0]); i++) {
		lua_pushinteger(L, logs[i].level);
		lua_pushcclosure(L, l_log, 1);
		lua_setfield(L, -2, logs[i].name);
	}
	lua_pushcfunction(L, l_user_msg);
	lua_setfield(L, -2, "user_msg");
	lua_pushcfunction(L, l_user_msg);
	lua_setfield(L, -2, "log_user");
	for (size_t i = 0; i < sizeof(codes) / sizeof(codes[0]); i++) {
		lua_pushinteger(L, codes[i].code);
		lua_setfield(L, -2, codes[i].name);
	}
	lua_pushinteger(L, (lua_Integer)NO_VAL);
	lua_setfield(L, -2, "NO_VAL");
	lua_pushinteger(L, (lua_Integer)INFINITE);
	lua_setfield(L, -2, "INFINITE");
	lua_pushinteger(L, (lua_Integer)0xfffffffffffffffeULL);
	lua_setfield(L, -2, "NO_VAL64");
	lua_pushinteger(L, (lua_Integer)0xffffffffffffffffULL);
	lua_setfield(L, -2, "INFINITE64");
	lua_setglobal(L, "slurm");
}

static int load(struct ctld_jobsubmit *js, struct spur_error *err)
{
	struct stat st;
	lua_State *L;

	if (stat(js->path, &st))
		return spur_error_set(err, SPUR_ENOENT, "JobSubmitPlugins=lua: %s: %s", js->path,
				      strerror(errno));
	L = luaL_newstate();
	if (!L)
		return spur_error_set(err, SPUR_ENOMEM, "out of memory");
	luaL_openlibs(L);
	lua_pushlightuserdata(L, js);
	lua_setfield(L, LUA_REGISTRYINDEX, "spur_jobsubmit");
	slurm_table(L);
	if (luaL_dofile(L, js->path) != LUA_OK) {
		spur_error_set(err, SPUR_EINVAL, "JobSubmitPlugins=lua: %s", lua_tostring(L, -1));
		lua_close(L);
		return err->code;
	}
	lua_getglobal(L, "slurm_job_submit");
	if (!lua_isfunction(L, -1)) {
		lua_close(L);
		return spur_error_set(err, SPUR_EINVAL,
				      "JobSubmitPlugins=lua: %s defines no slurm_job_submit", js->path);
	}
	lua_pop(L, 1);
	if (js->L)
		lua_close(js->L);
	js->L = L;
	js->mtime = st.st_mtim;
	return 0;
}

int ctld_jobsubmit_open(const struct spur_conf *conf, const char *conf_path,
			struct ctld_jobsubmit **out, struct spur_error *err)
{
	const char *plugins = NULL, *slash;
	struct ctld_jobsubmit *js;
	int rc;

	*out = NULL;
	for (size_t i = 0; i < conf->nextra; i++)
		if (!strcasecmp(conf->extra[i].key, "JobSubmitPlugins"))
			plugins = conf->extra[i].value;
	if (!plugins || !*plugins)
		return 0;
	if (strcasecmp(plugins, "lua") && strcasecmp(plugins, "job_submit/lua"))
		return spur_error_set(err, SPUR_EINVAL,
				      "JobSubmitPlugins=%s is not supported (only lua)", plugins);
	js = spur_calloc(1, sizeof(*js));
	if (!js)
		return spur_error_set(err, SPUR_ENOMEM, "out of memory");
	slash = conf_path ? strrchr(conf_path, '/') : NULL;
	snprintf(js->path, sizeof(js->path), "%.*sjob_submit.lua",
		 slash ? (int)(slash - conf_path + 1) : 0, conf_path ? conf_path : "");
	if ((rc = load(js, err))) {
		spur_free(js);
		return rc;
	}
	*out = js;
	return 0;
}

/* job_desc: a table of the spec's fields, behind a proxy that refuses
 * fields Spur does not carry and read-only ones. */
static int desc_newindex(lua_State *L)
{
	const char *key = luaL_checkstring(L, 2);
	const struct field *f = field(key);

	if (!f)
		return luaL_error(L, "job_desc.%s is not supported by Spur", key);
	if (f->kind == F_RO_STR || f->kind == F_RO_INT)
		return luaL_error(L, "job_desc.%s cannot be changed", key);
	lua_rawset(L, lua_upvalueindex(1));
	return 0;
}

static void push_desc(lua_State *L, const json_t *job)
{
	lua_newtable(L); /* the values */
	for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
		const struct field *f = &fields[i];
		const json_t *v = json_object_get(job, f->spec);

		if (f->kind == F_STR || f->kind == F_RO_STR) {
			if (!json_is_string(v))
				continue;
			lua_pushstring(L, json_string_value(v));
		} else if (!json_is_integer(v)) {
			lua_pushinteger(L, (lua_Integer)NO_VAL);
		} else if (f->kind == F_MINUTES) {
			json_int_t s = json_integer_value(v);

			lua_pushinteger(L, s <= 0 ? (lua_Integer)INFINITE : (lua_Integer)((s + 59) / 60));
		} else {
			lua_pushinteger(L, (lua_Integer)json_integer_value(v));
		}
		lua_setfield(L, -2, f->lua);
	}
	lua_newtable(L); /* the proxy */
	lua_newtable(L); /* its metatable */
	lua_pushvalue(L, -3);
	lua_setfield(L, -2, "__index");
	lua_pushvalue(L, -3);
	lua_pushcclosure(L, desc_newindex, 1);
	lua_setfield(L, -2, "__newindex");
	lua_setmetatable(L, -2);
	lua_remove(L, -2); /* the values stay as the proxy's upvalue and __index */
}

/* The script's values back into the spec. */
static void pull_desc(lua_State *L, int proxy, json_t *job)
{
	for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
		const struct field *f = &fields[i];

		if (f->kind == F_RO_STR || f->kind == F_RO_INT)
			continue;
		lua_getfield(L, proxy, f->lua);
		if (f->kind == F_STR) {
			if (lua_isstring(L, -1))
				json_object_set_new(job, f->spec, json_string(lua_tostring(L, -1)));
			else
				json_object_del(job, f->spec);
		} else if (lua_isinteger(L, -1) && (uint64_t)lua_tointeger(L, -1) != NO_VAL) {
			lua_Integer v = lua_tointeger(L, -1);

			if (f->kind == F_MINUTES)
				json_object_set_new(job, f->spec,
						    json_integer((uint64_t)v == INFINITE ? 0 : v * 60));
			else
				json_object_set_new(job, f->spec, json_integer(v));
		} else {
			json_object_del(job, f->spec);
		}
		lua_pop(L, 1);
	}
}

/* part_list: each partition, by name, with Slurm's fields. */
static void push_parts(lua_State *L, const struct spur_conf *conf)
{
	lua_newtable(L);
	for (size_t i = 0; i < conf->nparts; i++) {
		const struct spur_conf_partition *p = &conf->parts[i];

		if (p->deleted)
			continue;
		lua_newtable(L);
		lua_pushstring(L, p->name);
		lua_setfield(L, -2, "name");
		lua_pushstring(L, p->nodes_expr ? p->nodes_expr : "");
		lua_setfield(L, -2, "nodes");
		lua_pushinteger(L, p->max_time == SPUR_TIME_INFINITE ? (lua_Integer)INFINITE
								    : (lua_Integer)(p->max_time / 60));
		lua_setfield(L, -2, "max_time");
		lua_pushinteger(L, p->default_time == SPUR_TIME_INFINITE || !p->default_time
					   ? (lua_Integer)NO_VAL
					   : (lua_Integer)(p->default_time / 60));
		lua_setfield(L, -2, "default_time");
		lua_pushboolean(L, p->is_default);
		lua_setfield(L, -2, "flag_default");
		lua_setfield(L, -2, p->name);
	}
}

static const char *code_msg(int code)
{
	for (size_t i = 0; i < sizeof(codes) / sizeof(codes[0]); i++)
		if (codes[i].code == code)
			return codes[i].msg;
	return "Unspecified error";
}

int ctld_jobsubmit_run(struct ctld_jobsubmit *js, const struct spur_conf *conf, json_t *job,
		       uint32_t submit_uid, char *user_msg, size_t len, struct spur_error *err)
{
	struct stat st;
	lua_State *L;
	int top, rc;

	user_msg[0] = js->user_msg[0] = '\0';
	/* the site changed its script: the new one from now on */
	if (!stat(js->path, &st) && (st.st_mtim.tv_sec != js->mtime.tv_sec ||
				     st.st_mtim.tv_nsec != js->mtime.tv_nsec) &&
	    load(js, err))
		spur_error_log("%s (the previous script stays)", err->msg);
	L = js->L;
	top = lua_gettop(L);
	push_desc(L, job); /* kept at top + 1, to read back */
	lua_getglobal(L, "slurm_job_submit");
	lua_pushvalue(L, top + 1);
	push_parts(L, conf);
	lua_pushinteger(L, submit_uid);
	if (lua_pcall(L, 3, 1, 0) != LUA_OK) {
		spur_error_set(err, SPUR_EINVAL, "job_submit.lua: %s", lua_tostring(L, -1));
		spur_error_log("%s", err->msg);
		lua_settop(L, top);
		snprintf(user_msg, len, "%s", js->user_msg);
		return err->code;
	}
	rc = lua_isinteger(L, -1) ? (int)lua_tointeger(L, -1) : -1;
	if (rc == 0)
		pull_desc(L, top + 1, job);
	lua_settop(L, top);
	snprintf(user_msg, len, "%s", js->user_msg);
	if (rc != 0)
		return spur_error_set(err, rc > 0 ? SPUR_EINVAL : SPUR_EPERM, "%s", code_msg(rc));
	return 0;
}

void ctld_jobsubmit_close(struct ctld_jobsubmit *js)
{
	if (!js)
		return;
	if (js->L)
		lua_close(js->L);
	spur_free(js);
}
