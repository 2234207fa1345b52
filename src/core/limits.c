/* SPDX-License-Identifier: Apache-2.0 */
/* Associations (account tree, users), QOS limits and what each holds now:
 * Slurm's AccountingStorageEnforce=associations,limits,qos, in the core.
 * Owns struct core_uassoc and struct core_quser; the limits and use of
 * struct core_account and struct core_qos. */
#include "internal.h"

#include "common/alloc.h"

#include <ctype.h>
#include <errno.h>
#include <stddef.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static int oom(struct spur_error *err)
{
	return spur_error_set(err, SPUR_ENOMEM, "sched: out of memory");
}

void sched_limits_none(struct sched_limits *l)
{
	for (int t = 0; t < SCHED_TRES_MAX; t++)
		l->grp_tres[t] = l->max_tres_per_job[t] = l->max_tres_per_node[t] =
			l->max_tres_per_user[t] = l->grp_tres_mins[t] = SCHED_NO_LIMIT;
	l->grp_jobs = l->grp_submit = l->max_jobs = l->max_submit = l->max_wall = SCHED_NO_LIMIT;
}

/* ---------------------------------------------------------------- TRES text */

static int tres_index(const struct sched *s, const char *name, size_t len)
{
	static const char *const base[] = { "cpu", "mem", "node", "gres/gpu" };

	for (int t = 0; t < SCHED_TRES_GPU_TYPE; t++)
		if (strlen(base[t]) == len && !strncasecmp(base[t], name, len))
			return t;
	if (len > 9 && !strncasecmp(name, "gres/gpu:", 9))
		for (size_t g = 0; g < s->ngpu_types && g + SCHED_TRES_GPU_TYPE < SCHED_TRES_MAX;
		     g++)
			if (strlen(s->gpu_types[g]) == len - 9 &&
			    !strncasecmp(s->gpu_types[g], name + 9, len - 9))
				return SCHED_TRES_GPU_TYPE + (int)g;
	return -1;
}

static int tres_value(const char *v, size_t len, bool mem, int64_t *out)
{
	char *end;
	long long n;

	if (len == 2 && !strncmp(v, "-1", 2)) {
		*out = SCHED_NO_LIMIT;
		return 0;
	}
	if (!len || !isdigit((unsigned char)*v))
		return -1;
	errno = 0;
	n = strtoll(v, &end, 10);
	if (errno == ERANGE)
		return -1;
	if (mem && end < v + len) {
		static const char units[] = "KMGT";
		const char *u = strchr(units, toupper((unsigned char)*end));
		int shift;

		if (!u || !*u)
			return -1;
		shift = u == units ? 0 : 10 * (int)(u - units - 1);
		if (n > (INT64_MAX >> shift))
			return -1; /* more than the 64 bits of MB hold */
		n = u == units ? n / 1024 : n << shift;
		end++;
	}
	if (end != v + len || n < 0)
		return -1;
	*out = n;
	return 0;
}

int sched_tres_parse(const struct sched *s, const char *text, int64_t tres[SCHED_TRES_MAX],
		     struct spur_error *err)
{
	int64_t v[SCHED_TRES_MAX];

	memcpy(v, tres, sizeof(v));
	while (text && *text) {
		size_t len = strcspn(text, ","), klen = strcspn(text, "=");
		int t;

		if (klen >= len || (t = tres_index(s, text, klen)) < 0)
			return spur_error_set(err, SPUR_EINVAL, "Invalid TRES: '%.*s'", (int)len,
					      text);
		if (tres_value(text + klen + 1, len - klen - 1, t == SCHED_TRES_MEM, &v[t]))
			return spur_error_set(err, SPUR_EINVAL, "Invalid TRES value: '%.*s'",
					      (int)len, text);
		text += len + (text[len] == ',');
	}
	memcpy(tres, v, sizeof(v));
	return 0;
}

void sched_tres_format(const struct sched *s, const int64_t tres[SCHED_TRES_MAX], char *buf,
		       size_t len)
{
	static const char *const base[] = { "cpu", "mem", "node", "gres/gpu" };
	size_t at = 0;

	buf[0] = 0;
	for (int t = 0; t < SCHED_TRES_MAX && at < len; t++) {
		const char *sep = at ? "," : "";
		int n;

		if (tres[t] == SCHED_NO_LIMIT)
			continue;
		if (t == SCHED_TRES_MEM && tres[t] && tres[t] % 1024 == 0)
			n = snprintf(buf + at, len - at, "%smem=%" PRId64 "G", sep, tres[t] / 1024);
		else if (t == SCHED_TRES_MEM)
			n = snprintf(buf + at, len - at, "%smem=%" PRId64 "M", sep, tres[t]);
		else if (t < SCHED_TRES_GPU_TYPE)
			n = snprintf(buf + at, len - at, "%s%s=%" PRId64, sep, base[t], tres[t]);
		else if ((size_t)(t - SCHED_TRES_GPU_TYPE) < s->ngpu_types)
			n = snprintf(buf + at, len - at, "%sgres/gpu:%s=%" PRId64, sep,
				     s->gpu_types[t - SCHED_TRES_GPU_TYPE], tres[t]);
		else
			continue;
		at = n < 0 ? len : at + (size_t)n;
	}
}

/* ---------------------------------------------------------------- tables */

static uint64_t hash_key(const char *user, int other)
{
	uint64_t h = 1469598103934665603ull ^ (uint64_t)(uint32_t)other;

	for (; *user; user++)
		h = (h ^ (unsigned char)*user) * 1099511628211ull;
	return h;
}

/* Open addressing over *slots (index + 1); key(i) gives entry i's key. */
static long slot_find(const uint32_t *slots, size_t cap, uint64_t h, const char *user, int other,
		      const char *(*user_of)(const struct sched *, size_t),
		      int (*other_of)(const struct sched *, size_t), const struct sched *s)
{
	if (!cap)
		return -1;
	for (size_t i = h & (cap - 1);; i = (i + 1) & (cap - 1)) {
		uint32_t v = slots[i];

		if (!v)
			return -1;
		if (other_of(s, v - 1) == other && !strcmp(user_of(s, v - 1), user))
			return (long)(v - 1);
	}
}

static const char *ua_user(const struct sched *s, size_t i)
{
	return s->uassocs[i].user;
}

static int ua_account(const struct sched *s, size_t i)
{
	return s->uassocs[i].account;
}

static const char *qu_user(const struct sched *s, size_t i)
{
	return s->qusers[i].user;
}

static int qu_qos(const struct sched *s, size_t i)
{
	return s->qusers[i].qos;
}

/* Room for n + 1 entries at most half full, the n there re-placed. */
static int slots_fit(uint32_t **slots, size_t *cap, size_t n, const struct sched *s,
		     const char *(*user_of)(const struct sched *, size_t),
		     int (*other_of)(const struct sched *, size_t))
{
	size_t want = 16;
	uint32_t *v;

	while (want < 2 * (n + 1))
		want *= 2;
	if (want <= *cap)
		return 0;
	v = spur_calloc(want, sizeof(*v));
	if (!v)
		return SPUR_ENOMEM;
	for (size_t e = 0; e < n; e++) {
		size_t i = hash_key(user_of(s, e), other_of(s, e)) & (want - 1);

		while (v[i])
			i = (i + 1) & (want - 1);
		v[i] = (uint32_t)e + 1;
	}
	spur_free(*slots);
	*slots = v;
	*cap = want;
	return 0;
}

static void slot_add(uint32_t *slots, size_t cap, uint64_t h, size_t e)
{
	size_t i = h & (cap - 1);

	while (slots[i])
		i = (i + 1) & (cap - 1);
	slots[i] = (uint32_t)e + 1;
}

static long uassoc_find(const struct sched *s, const char *user, int account)
{
	return slot_find(s->assoc_slots, s->assoc_slots_cap, hash_key(user, account), user, account,
			 ua_user, ua_account, s);
}

int core_account_index(struct sched *s, const char *name, bool create)
{
	struct core_account a = { 0 };

	name = name && *name ? name : "(null)";
	for (size_t i = 0; i < s->naccounts; i++)
		if (!strcmp(s->accounts[i].name, name))
			return (int)i;
	if (!create)
		return -1;
	if (spur_grow((void **)&s->accounts, &s->accounts_cap, s->naccounts + 1, sizeof(a)) ||
	    !(a.name = spur_strdup(name)))
		return SPUR_ENOMEM;
	a.shares = 1;
	a.parent = -1;
	sched_limits_none(&a.lim);
	s->accounts[s->naccounts] = a;
	return (int)s->naccounts++;
}

static int live_account(const struct sched *s, const char *name)
{
	for (size_t i = 0; i < s->naccounts; i++)
		if (!strcmp(s->accounts[i].name, name) && !s->accounts[i].deleted &&
		    s->accounts[i].declared)
			return (int)i;
	return -1;
}

int sched_set_account(struct sched *s, const struct sched_account_spec *spec,
		      struct spur_error *err)
{
	int a, p = -1;

	if (!spec->name || !*spec->name || !strcmp(spec->name, "root"))
		return spur_error_set(err, SPUR_EINVAL, "an account needs a name other than root");
	if (spec->parent && *spec->parent && strcmp(spec->parent, "root") &&
	    (p = live_account(s, spec->parent)) < 0)
		return spur_error_set(err, SPUR_ENOENT, "Parent account %s doesn't exist",
				      spec->parent);
	if ((a = core_account_index(s, spec->name, true)) < 0)
		return oom(err);
	for (int up = p; up >= 0; up = s->accounts[up].parent)
		if (up == a)
			return spur_error_set(err, SPUR_EINVAL,
					      "account %s cannot be under its own sub-account %s",
					      spec->name, spec->parent);
	s->accounts[a].parent = p;
	s->accounts[a].shares = spec->shares ? spec->shares : 1;
	s->accounts[a].lim = spec->lim;
	s->accounts[a].deleted = false;
	s->accounts[a].declared = true;
	return 0;
}

int sched_del_account(struct sched *s, const char *name, struct spur_error *err)
{
	int a = live_account(s, name);

	if (a < 0)
		return spur_error_set(err, SPUR_ENOENT, "account %s doesn't exist", name);
	for (size_t i = 0; i < s->naccounts; i++)
		if (s->accounts[i].parent == a && !s->accounts[i].deleted &&
		    s->accounts[i].declared)
			return spur_error_set(err, SPUR_ESTATE, "account %s has sub-account %s",
					      name, s->accounts[i].name);
	for (size_t i = 0; i < s->nuassocs; i++)
		if (s->uassocs[i].account == a && !s->uassocs[i].deleted)
			return spur_error_set(err, SPUR_ESTATE, "account %s has user %s", name,
					      s->uassocs[i].user);
	if (s->accounts[a].use.submitted)
		return spur_error_set(err, SPUR_ESTATE,
				      "Job(s) active, cancel job(s) before remove (account %s)",
				      name);
	s->accounts[a].deleted = true;
	return 0;
}

void sched_set_root_limits(struct sched *s, const struct sched_limits *lim)
{
	s->root_lim = *lim;
}

int sched_set_user_assoc(struct sched *s, const struct sched_user_spec *spec,
			 struct spur_error *err)
{
	int a = spec->account ? live_account(s, spec->account) : -1;
	long u;

	if (!spec->user || !*spec->user)
		return spur_error_set(err, SPUR_EINVAL, "a user association needs a user");
	if (a < 0)
		return spur_error_set(err, SPUR_ENOENT, "account %s doesn't exist",
				      spec->account ? spec->account : "(none)");
	u = uassoc_find(s, spec->user, a);
	if (u < 0) {
		struct core_uassoc ua = { 0 };

		if (spur_grow((void **)&s->uassocs, &s->uassocs_cap, s->nuassocs + 1, sizeof(ua)) ||
		    slots_fit(&s->assoc_slots, &s->assoc_slots_cap, s->nuassocs, s, ua_user,
			      ua_account) ||
		    !(ua.user = spur_strdup(spec->user)))
			return oom(err);
		ua.account = a;
		u = (long)s->nuassocs++;
		s->uassocs[u] = ua;
		slot_add(s->assoc_slots, s->assoc_slots_cap, hash_key(spec->user, a), (size_t)u);
	}
	s->uassocs[u].shares = spec->shares ? spec->shares : 1;
	s->uassocs[u].lim = spec->lim;
	s->uassocs[u].deleted = false;
	return 0;
}

int sched_del_user_assoc(struct sched *s, const char *user, const char *account,
			 struct spur_error *err)
{
	int a = live_account(s, account);
	long u = a < 0 ? -1 : uassoc_find(s, user, a);

	if (u < 0 || s->uassocs[u].deleted)
		return spur_error_set(err, SPUR_ENOENT, "user %s has no association with %s", user,
				      account);
	if (s->uassocs[u].use.submitted)
		return spur_error_set(err, SPUR_ESTATE,
				      "Job(s) active, cancel job(s) before remove (user %s, account %s)",
				      user, account);
	s->uassocs[u].deleted = true;
	return 0;
}

bool sched_user_assoc_exists(const struct sched *s, const char *user, const char *account)
{
	int a = live_account(s, account);
	long u = a < 0 ? -1 : uassoc_find(s, user, a);

	return u >= 0 && !s->uassocs[u].deleted;
}

void core_limits_free(struct sched *s)
{
	for (size_t i = 0; i < s->nuassocs; i++)
		spur_free(s->uassocs[i].user);
	for (size_t i = 0; i < s->nqusers; i++)
		spur_free(s->qusers[i].user);
	spur_free(s->uassocs);
	spur_free(s->qusers);
	spur_free(s->assoc_slots);
	spur_free(s->quser_slots);
}

/* ---------------------------------------------------------------- QOS */

static int qos_find(const struct sched *s, const char *name)
{
	for (size_t i = 0; i < s->nqos; i++)
		if (!strcmp(s->qos[i].name, name))
			return (int)i;
	return -1;
}

int sched_set_qos(struct sched *s, const struct sched_qos_limits_spec *spec,
		  struct spur_error *err)
{
	int q = qos_find(s, spec->name);
	uint64_t preempts = 0;
	const char *p = spec->preempt;

	while (p && *p) {
		size_t len = strcspn(p, ",");
		char name[128];
		int k;

		snprintf(name, sizeof(name), "%.*s", (int)len, p);
		k = len ? qos_find(s, name) : -1;
		if (len && (k < 0 || s->qos[k].deleted))
			return spur_error_set(err, SPUR_ENOENT, "qos %s: preempts unknown qos %s",
					      spec->name, name);
		if (len)
			preempts |= UINT64_C(1) << k;
		p += len + (p[len] == ',');
	}
	if (q < 0) {
		struct sched_qos_spec add = { .name = spec->name };

		if (sched_add_qos(s, &add, err))
			return err->code;
		q = (int)s->nqos - 1;
	}
	s->qos[q].priority = spec->priority;
	s->qos[q].preempts = preempts;
	s->qos[q].preempt_requeue = spec->preempt_requeue;
	s->qos[q].usage_factor = spec->usage_factor > 0 ? spec->usage_factor : 1.0;
	s->qos[q].deny_on_limit = spec->deny_on_limit;
	s->qos[q].lim = spec->lim;
	s->qos[q].deleted = false;
	return 0;
}

int sched_del_qos(struct sched *s, const char *name, struct spur_error *err)
{
	int q = qos_find(s, name);

	if (q < 0 || s->qos[q].deleted)
		return spur_error_set(err, SPUR_ENOENT, "qos %s doesn't exist", name);
	if (s->qos[q].use.submitted)
		return spur_error_set(err, SPUR_ESTATE,
				      "Job(s) active, cancel job(s) before remove (qos %s)", name);
	s->qos[q].deleted = true;
	return 0;
}

static long quser_get(struct sched *s, int qos, const char *user)
{
	uint64_t h = hash_key(user, qos);
	long u = slot_find(s->quser_slots, s->quser_slots_cap, h, user, qos, qu_user, qu_qos, s);
	struct core_quser qu = { 0 };

	if (u >= 0)
		return u;
	if (spur_grow((void **)&s->qusers, &s->qusers_cap, s->nqusers + 1, sizeof(qu)) ||
	    slots_fit(&s->quser_slots, &s->quser_slots_cap, s->nqusers, s, qu_user, qu_qos) ||
	    !(qu.user = spur_strdup(user)))
		return SPUR_ENOMEM;
	qu.qos = qos;
	s->qusers[s->nqusers] = qu;
	slot_add(s->quser_slots, s->quser_slots_cap, h, s->nqusers);
	return (long)s->nqusers++;
}

/* ---------------------------------------------------------------- use */

/* What j asks for (pending) or holds (running), as TRES. */
static void job_tres(const struct sched *s, const struct core_job *j, int64_t t[SCHED_TRES_MAX])
{
	memset(t, 0, sizeof(int64_t) * SCHED_TRES_MAX);
	if (j->state == SCHED_JOB_RUNNING && j->nalloc) {
		for (size_t i = 0; i < j->nalloc; i++) {
			const struct core_node *n = &s->nodes[j->alloc[i].node];
			int g = __builtin_popcount(j->alloc[i].gpu_mask);

			t[SCHED_TRES_CPU] += j->alloc[i].cpus;
			t[SCHED_TRES_MEM] += (int64_t)j->alloc[i].mem_mb;
			t[SCHED_TRES_GPU] += g;
			if (n->gpu_type >= 0 && SCHED_TRES_GPU_TYPE + n->gpu_type < SCHED_TRES_MAX)
				t[SCHED_TRES_GPU_TYPE + n->gpu_type] += g;
		}
		t[SCHED_TRES_NODE] = (int64_t)j->nalloc;
		return;
	}
	t[SCHED_TRES_NODE] = j->nodes;
	t[SCHED_TRES_CPU] = (int64_t)j->nodes * core_job_cpus_per_node(j);
	t[SCHED_TRES_MEM] = (int64_t)j->nodes * (int64_t)core_job_mem_per_node(j);
	t[SCHED_TRES_GPU] = j->gpu_total && !j->gpn ? j->gpu_total
						    : (int64_t)j->nodes * core_job_gpus_per_node(j);
	if (j->gpu_type >= 0 && SCHED_TRES_GPU_TYPE + j->gpu_type < SCHED_TRES_MAX)
		t[SCHED_TRES_GPU_TYPE + j->gpu_type] = t[SCHED_TRES_GPU];
}

static void use_add(struct core_use *u, const struct core_job *j, const int64_t *t, int sign)
{
	bool running = j->state == SCHED_JOB_RUNNING;

	u->submitted += (uint32_t)sign;
	if (!running)
		return;
	u->jobs += (uint32_t)sign;
	for (int k = 0; k < SCHED_TRES_MAX; k++)
		u->tres[k] += sign * t[k];
}

void core_limits_charge(struct sched *s, struct core_job *j, int sign)
{
	int64_t now[SCHED_TRES_MAX];
	const int64_t *t = now;

	if (j->state == SCHED_JOB_RUNNING) {
		if (sign > 0 && !j->ctres)
			j->ctres = spur_malloc(sizeof(int64_t) * SCHED_TRES_MAX);
		if (sign > 0 && j->ctres)
			job_tres(s, j, j->ctres);
		if (!j->ctres) /* out of memory: no TRES counted for it */
			memset(now, 0, sizeof(now));
		else
			t = j->ctres;
	}
	for (int a = j->account; a >= 0; a = s->accounts[a].parent)
		use_add(&s->accounts[a].use, j, t, sign);
	use_add(&s->root_use, j, t, sign);
	if (j->uassoc >= 0)
		use_add(&s->uassocs[j->uassoc].use, j, t, sign);
	if (j->qos >= 0)
		use_add(&s->qos[j->qos].use, j, t, sign);
	if (j->quser >= 0)
		use_add(&s->qusers[j->quser].use, j, t, sign);
}

static void decay(struct core_use *u, double f)
{
	for (int t = 0; t < SCHED_TRES_MAX; t++)
		u->tres_secs[t] *= f;
}

static void add_secs(struct core_use *u, const int64_t *t, double secs)
{
	for (int k = 0; k < SCHED_TRES_MAX; k++)
		u->tres_secs[k] += (double)t[k] * secs;
}

void core_limits_usage(struct sched *s, double f, int64_t now)
{
	for (size_t a = 0; f != 1.0 && a < s->naccounts; a++)
		decay(&s->accounts[a].use, f);
	for (size_t u = 0; f != 1.0 && u < s->nuassocs; u++)
		decay(&s->uassocs[u].use, f);
	for (size_t q = 0; f != 1.0 && q < s->nqos; q++)
		decay(&s->qos[q].use, f);
	if (f != 1.0)
		decay(&s->root_use, f);
	for (size_t i = 0; i < s->running.n; i++) {
		struct core_job *j = s->running.v[i];
		int64_t since = j->last_charge > j->start ? j->last_charge : j->start;
		double secs = now > since ? (double)(now - since) : 0;

		if (!j->ctres || secs <= 0)
			continue;
		for (int a = j->account; a >= 0; a = s->accounts[a].parent)
			add_secs(&s->accounts[a].use, j->ctres, secs);
		add_secs(&s->root_use, j->ctres, secs);
		if (j->uassoc >= 0)
			add_secs(&s->uassocs[j->uassoc].use, j->ctres, secs);
		if (j->qos >= 0)
			add_secs(&s->qos[j->qos].use, j->ctres, secs);
	}
}

int sched_usage(const struct sched *s, const char *account, const char *user, const char *qos,
		struct sched_usage *out)
{
	const struct core_use *u = NULL;
	int a = account ? live_account(s, account) : -1;

	memset(out, 0, sizeof(*out));
	if (qos && qos_find(s, qos) >= 0)
		u = &s->qos[qos_find(s, qos)].use;
	else if (account && !user && !strcmp(account, "root"))
		u = &s->root_use;
	else if (account && user && a >= 0 && uassoc_find(s, user, a) >= 0) {
		u = &s->uassocs[uassoc_find(s, user, a)].use;
		out->raw_usage = s->uassocs[uassoc_find(s, user, a)].usage;
		out->fairshare = s->fairtree ? s->uassocs[uassoc_find(s, user, a)].fs
					     : core_fairshare_factor(s, a);
	}
	else if (account && !user && a >= 0) {
		u = &s->accounts[a].use;
		out->raw_usage = s->accounts[a].usage;
		out->fairshare = core_fairshare_factor(s, a);
	}
	if (!u)
		return SPUR_ENOENT;
	memcpy(out->tres, u->tres, sizeof(out->tres));
	out->jobs = u->jobs;
	out->submitted = u->submitted;
	return 0;
}

/* ---------------------------------------------------------------- checks */

/* A limit's reason: SCHED_REASON_LIMIT + scope * 32 + code; code is
 * kind * 4 + TRES class (cpu, mem, node, gres) for the TRES kinds, then
 * the job counts and the wall time. */
enum { K_GRP, K_JOB, K_NODE, K_USER, K_MINS };
enum { C_GRP_JOBS = 20, C_MAX_JOBS, C_MAX_WALL, C_N };
enum { S_ASSOC, S_QOS };

static const char *const limit_names[2][C_N] = {
	{ "AssocGrpCpuLimit", "AssocGrpMemLimit", "AssocGrpNodeLimit", "AssocGrpGRES",
	  "AssocMaxCpuPerJobLimit", "AssocMaxMemPerJob", "AssocMaxNodePerJobLimit",
	  "AssocMaxGRESPerJob", "AssocMaxCpuPerNode", "AssocMaxMemPerNode",
	  "AssocMaxNodePerJobLimit", "AssocMaxGRESPerNode", "AssocGrpCpuLimit",
	  "AssocGrpMemLimit", "AssocGrpNodeLimit", "AssocGrpGRES", "AssocGrpCPUMinutesLimit",
	  "AssocGrpMemMinutes", "AssocGrpNodeMinutes", "AssocGrpGRESMinutes",
	  "AssocGrpJobsLimit", "AssocMaxJobsLimit", "AssocMaxWallDurationPerJobLimit" },
	{ "QOSGrpCpuLimit", "QOSGrpMemLimit", "QOSGrpNodeLimit", "QOSGrpGRES",
	  "QOSMaxCpuPerJobLimit", "QOSMaxMemoryPerJob", "QOSMaxNodePerJobLimit",
	  "QOSMaxGRESPerJob", "QOSMaxCpuPerNode", "QOSMaxMemoryPerNode",
	  "QOSMaxNodePerJobLimit", "QOSMaxGRESPerNode", "QOSMaxCpuPerUserLimit",
	  "QOSMaxMemPerUser", "QOSMaxNodePerUserLimit", "QOSMaxGRESPerUser",
	  "QOSGrpCPUMinutesLimit", "QOSGrpMemoryMinutes", "QOSGrpNodeMinutes",
	  "QOSGrpGRESMinutes", "QOSGrpJobsLimit", "QOSMaxJobsPerUserLimit",
	  "QOSMaxWallDurationPerJobLimit" },
};

const char *core_limit_reason_name(unsigned code)
{
	unsigned scope = code / 32, c = code % 32;

	return scope < 2 && c < C_N ? limit_names[scope][c] : "?";
}

static enum sched_reason reason(int scope, int code)
{
	return (enum sched_reason)(SCHED_REASON_LIMIT + scope * 32 + code);
}

static int tres_class(int t)
{
	return t < SCHED_TRES_GPU ? t : 3;
}

static int64_t field(const struct sched_limits *l, size_t off)
{
	int64_t v;

	memcpy(&v, (const char *)l + off, sizeof(v));
	return v;
}

/* An association's Max* at off: the user's, else the nearest account's up
 * the tree. */
static int64_t assoc_max(const struct sched *s, const struct core_job *j, size_t off)
{
	int64_t v = j->uassoc >= 0 ? field(&s->uassocs[j->uassoc].lim, off) : SCHED_NO_LIMIT;

	for (int a = j->account; v == SCHED_NO_LIMIT && a >= 0; a = s->accounts[a].parent)
		v = field(&s->accounts[a].lim, off);
	return v == SCHED_NO_LIMIT ? field(&s->root_lim, off) : v;
}

static const struct sched_limits *qos_lim(const struct sched *s, const struct core_job *j)
{
	static struct sched_limits none;

	if (j->qos >= 0)
		return &s->qos[j->qos].lim;
	if (none.max_wall == 0)
		sched_limits_none(&none);
	return &none;
}

/* Over the limit at off (QOS first, then the associations' unless the QOS
 * sets it)? The reason, or NONE. */
static enum sched_reason over_max(const struct sched *s, const struct core_job *j, size_t off,
				  int64_t want, int code)
{
	int64_t q = field(qos_lim(s, j), off), a;

	if (q != SCHED_NO_LIMIT)
		return want > q ? reason(S_QOS, code) : SCHED_REASON_NONE;
	a = assoc_max(s, j, off);
	return a != SCHED_NO_LIMIT && want > a ? reason(S_ASSOC, code) : SCHED_REASON_NONE;
}

int64_t core_limits_max_wall(const struct sched *s, const struct core_job *j)
{
	int64_t q = field(qos_lim(s, j), offsetof(struct sched_limits, max_wall));

	if (q == SCHED_NO_LIMIT)
		q = assoc_max(s, j, offsetof(struct sched_limits, max_wall));
	return q == SCHED_NO_LIMIT ? SCHED_INFINITE : q;
}

enum sched_reason core_limits_static(const struct sched *s, const struct core_job *j)
{
	int64_t want[SCHED_TRES_MAX], per_node[SCHED_TRES_MAX];
	enum sched_reason r = SCHED_REASON_NONE;

	if (!s->cfg.enforce_limits)
		return SCHED_REASON_NONE;
	if (j->time_limit > 0 && j->time_limit != SCHED_INFINITE)
		r = over_max(s, j, offsetof(struct sched_limits, max_wall), j->time_limit,
			     C_MAX_WALL);
	job_tres(s, j, want);
	for (int t = 0; t < SCHED_TRES_MAX; t++)
		per_node[t] = j->nodes ? want[t] / j->nodes : want[t];
	for (int t = 0; t < SCHED_TRES_MAX && r == SCHED_REASON_NONE; t++) {
		r = over_max(s, j, offsetof(struct sched_limits, max_tres_per_job) + 8 * (size_t)t,
			     want[t], K_JOB * 4 + tres_class(t));
		if (r == SCHED_REASON_NONE && t != SCHED_TRES_NODE)
			r = over_max(s, j,
				     offsetof(struct sched_limits, max_tres_per_node) + 8 * (size_t)t,
				     per_node[t], K_NODE * 4 + tres_class(t));
	}
	return r;
}

/* use + want over lim's Grp* (and per-user TRES when user)? */
static enum sched_reason grp_over(const struct sched_limits *lim, const struct sched_limits *q,
				  const struct core_use *use, const int64_t *want, int64_t wall,
				  int scope, bool per_user)
{
	const int64_t *tres = per_user ? lim->max_tres_per_user : lim->grp_tres;
	int64_t jobs = per_user ? lim->max_jobs : lim->grp_jobs;

	for (int t = 0; t < SCHED_TRES_MAX; t++)
		if (tres[t] != SCHED_NO_LIMIT && (!q || q->grp_tres[t] == SCHED_NO_LIMIT) &&
		    use->tres[t] + want[t] > tres[t])
			return reason(scope, (per_user ? K_USER : K_GRP) * 4 + tres_class(t));
	/* GrpTRESMins: used (decayed) plus the job's TRES over its time */
	for (int t = 0; !per_user && t < SCHED_TRES_MAX; t++)
		if (lim->grp_tres_mins[t] != SCHED_NO_LIMIT &&
		    (!q || q->grp_tres_mins[t] == SCHED_NO_LIMIT) &&
		    use->tres_secs[t] / 60 + (double)want[t] * (double)wall / 60 >
			    (double)lim->grp_tres_mins[t])
			return reason(scope, K_MINS * 4 + tres_class(t));
	if (jobs != SCHED_NO_LIMIT && (!q || q->grp_jobs == SCHED_NO_LIMIT) &&
	    (int64_t)use->jobs + 1 > jobs)
		return reason(scope, per_user ? C_MAX_JOBS : C_GRP_JOBS);
	return SCHED_REASON_NONE;
}

enum sched_reason core_limits_now(const struct sched *s, const struct core_job *j)
{
	const struct sched_limits *q = j->qos >= 0 ? &s->qos[j->qos].lim : NULL;
	int64_t want[SCHED_TRES_MAX], mj;
	enum sched_reason r = SCHED_REASON_NONE;
	/* the job's time for GrpTRESMins: its own, else its MaxWall (none: 0) */
	int64_t wall = j->time_limit > 0 && j->time_limit != SCHED_INFINITE ? j->time_limit
		       : core_limits_max_wall(s, j) != SCHED_INFINITE ? core_limits_max_wall(s, j)
								       : 0;

	if (!s->cfg.enforce_limits)
		return SCHED_REASON_NONE;
	job_tres(s, j, want);
	if (q)
		r = grp_over(q, NULL, &s->qos[j->qos].use, want, wall, S_QOS, false);
	if (q && r == SCHED_REASON_NONE && j->quser >= 0)
		r = grp_over(q, NULL, &s->qusers[j->quser].use, want, wall, S_QOS, true);
	if (r == SCHED_REASON_NONE && j->uassoc >= 0)
		r = grp_over(&s->uassocs[j->uassoc].lim, q, &s->uassocs[j->uassoc].use, want,
			     wall, S_ASSOC, false);
	for (int a = j->account; r == SCHED_REASON_NONE && a >= 0; a = s->accounts[a].parent)
		r = grp_over(&s->accounts[a].lim, q, &s->accounts[a].use, want, wall, S_ASSOC,
			     false);
	if (r == SCHED_REASON_NONE)
		r = grp_over(&s->root_lim, q, &s->root_use, want, wall, S_ASSOC, false);
	mj = assoc_max(s, j, offsetof(struct sched_limits, max_jobs));
	if (r == SCHED_REASON_NONE && j->uassoc >= 0 && mj != SCHED_NO_LIMIT &&
	    (!q || q->max_jobs == SCHED_NO_LIMIT) && s->uassocs[j->uassoc].use.jobs + 1 > mj)
		r = reason(S_ASSOC, C_MAX_JOBS);
	return r;
}

/* Submit limits: GrpSubmitJobs up the tree, MaxSubmitJobs per user, the
 * QOS' own first. The limit broken, in Slurm's words, or NULL. */
static const char *submit_over(const struct sched *s, const struct core_job *j, uint32_t n)
{
	const struct sched_limits *q = qos_lim(s, j);
	int64_t ms = q->max_submit;

	if (q->grp_submit != SCHED_NO_LIMIT && s->qos[j->qos].use.submitted + n > q->grp_submit)
		return "QOSGrpSubmitJobsLimit";
	if (ms != SCHED_NO_LIMIT)
		return j->quser < 0 || s->qusers[j->quser].use.submitted + n <= ms
			       ? NULL
			       : "QOSMaxSubmitJobPerUserLimit";
	if (j->uassoc >= 0 && s->uassocs[j->uassoc].lim.grp_submit != SCHED_NO_LIMIT &&
	    s->uassocs[j->uassoc].use.submitted + n > s->uassocs[j->uassoc].lim.grp_submit)
		return "AssocGrpSubmitJobsLimit";
	for (int a = j->account; a >= 0; a = s->accounts[a].parent)
		if (s->accounts[a].lim.grp_submit != SCHED_NO_LIMIT &&
		    s->accounts[a].use.submitted + n > s->accounts[a].lim.grp_submit)
			return "AssocGrpSubmitJobsLimit";
	if (s->root_lim.grp_submit != SCHED_NO_LIMIT &&
	    s->root_use.submitted + n > s->root_lim.grp_submit)
		return "AssocGrpSubmitJobsLimit";
	ms = assoc_max(s, j, offsetof(struct sched_limits, max_submit));
	return ms == SCHED_NO_LIMIT || j->uassoc < 0 || s->uassocs[j->uassoc].use.submitted + n <= ms
		       ? NULL
		       : "AssocMaxSubmitJobLimit";
}

int core_limits_bind(struct sched *s, struct core_job *j, bool enforce, uint32_t n,
		     struct spur_error *err)
{
	long u = uassoc_find(s, j->user, j->account);
	enum sched_reason deny;
	const char *over;

	j->uassoc = u >= 0 && !s->uassocs[u].deleted ? (int)u : -1;
	j->quser = -1;
	if (enforce && s->cfg.enforce_assoc && (j->uassoc < 0 || s->accounts[j->account].deleted))
		return spur_error_set(err, SPUR_EPERM,
				      "Invalid account or account/partition combination specified");
	if (enforce && j->qos >= 0 && s->qos[j->qos].deleted)
		return spur_error_set(err, SPUR_EINVAL, "Invalid qos specification");
	if (j->qos >= 0 && (u = quser_get(s, j->qos, j->user)) < 0)
		return oom(err);
	j->quser = j->qos >= 0 ? (int)u : -1;
	if (!enforce || !s->cfg.enforce_limits)
		return 0;
	/* the limit's name after a tab: sbatch says it on a line of its own */
	over = submit_over(s, j, n);
	if (!over && j->qos >= 0 && s->qos[j->qos].deny_on_limit &&
	    (deny = core_limits_static(s, j)) != SCHED_REASON_NONE)
		over = sched_reason_name(deny);
	if (over)
		return spur_error_set(err, SPUR_ELIMIT,
				      "Job violates accounting/QOS policy (job submit limit, user's "
				      "size and/or time limits)\t%s",
				      over);
	return 0;
}
