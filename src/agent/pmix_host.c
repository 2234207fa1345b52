/* SPDX-License-Identifier: Apache-2.0 */
/* PMIx for a step's tasks (see pmix_host.h). */
#define _GNU_SOURCE
#include "agent/pmix_host.h"

#include <stdio.h>
#include <string.h>

#ifndef SPUR_HAVE_PMIX

int spurd_pmix_init(uv_loop_t *loop, const char *tmpdir, char *why, size_t wlen)
{
	(void)loop;
	(void)tmpdir;
	snprintf(why, wlen, "this spurd was built without OpenPMIx (libpmix-dev)");
	return -1;
}

void spurd_pmix_fini(void)
{
}

struct spurd_pmix_step *spurd_pmix_step_new(uint32_t job, uint32_t step,
					    const struct spurd_pmix_layout *l, uid_t uid,
					    gid_t gid, spurd_pmix_fence_fn fence, void *ctx,
					    char *why, size_t wlen)
{
	snprintf(why, wlen, "this spurd was built without OpenPMIx (libpmix-dev)");
	return NULL;
}

char **spurd_pmix_task_env(struct spurd_pmix_step *s, uint32_t rank)
{
	return NULL;
}

void spurd_pmix_fence_done(struct spurd_pmix_step *s, unsigned seq, const char *data,
			   size_t len)
{
}

void spurd_pmix_step_free(struct spurd_pmix_step *s)
{
}

#else

#include <pmix.h>
#include <pmix_server.h>
#include <pthread.h>
#include <stdlib.h>

/* A fence this node's ranks entered, on its way to srun and back. */
struct fence {
	struct spurd_pmix_step *step;
	unsigned seq;
	char *data;
	size_t len;
	pmix_modex_cbfunc_t cb;
	void *cbdata;
	struct fence *next;
};

struct spurd_pmix_step {
	pmix_nspace_t nspace;
	uint32_t first, count; /* this node's ranks */
	unsigned seq;	       /* fences sent to srun so far */
	spurd_pmix_fence_fn fence;
	void *ctx;
	struct fence *waiting; /* sent, awaiting srun's answer */
	struct spurd_pmix_step *next;
};

static struct {
	bool up;
	uv_async_t wake;
	pthread_mutex_t lock; /* steps and queue: the PMIx thread reads them too */
	struct spurd_pmix_step *steps;
	struct fence *queue; /* from the PMIx thread, for the loop */
} px = { .lock = PTHREAD_MUTEX_INITIALIZER };

/* ------------------------------------------------------ blocking calls */

struct wait {
	pthread_mutex_t m;
	pthread_cond_t c;
	bool done;
	pmix_status_t st;
};

static void op_done(pmix_status_t st, void *cbdata)
{
	struct wait *w = cbdata;

	pthread_mutex_lock(&w->m);
	w->st = st;
	w->done = true;
	pthread_cond_signal(&w->c);
	pthread_mutex_unlock(&w->m);
}

/* A PMIx call that answers through op_done: its final status. */
static pmix_status_t await(pmix_status_t rc, struct wait *w)
{
	if (rc == PMIX_OPERATION_SUCCEEDED)
		return PMIX_SUCCESS;
	if (rc != PMIX_SUCCESS)
		return rc;
	pthread_mutex_lock(&w->m);
	while (!w->done)
		pthread_cond_wait(&w->c, &w->m);
	pthread_mutex_unlock(&w->m);
	return w->st;
}

#define WAIT_INIT { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, false, PMIX_SUCCESS }

/* ------------------------------------------------------ fences */

static struct spurd_pmix_step *find_step(const char *nspace)
{
	for (struct spurd_pmix_step *s = px.steps; s; s = s->next)
		if (PMIX_CHECK_NSPACE(s->nspace, nspace))
			return s;
	return NULL;
}

/* The PMIx thread: every local rank entered the fence. */
static pmix_status_t fence_nb(const pmix_proc_t procs[], size_t nprocs, const pmix_info_t info[],
			      size_t ninfo, char *data, size_t ndata, pmix_modex_cbfunc_t cb,
			      void *cbdata)
{
	struct fence *f = calloc(1, sizeof(*f));

	(void)info;
	(void)ninfo;
	if (!f || !nprocs || (ndata && !(f->data = malloc(ndata)))) {
		free(f);
		return PMIX_ERR_NOMEM;
	}
	if (ndata)
		memcpy(f->data, data, ndata);
	f->len = ndata;
	f->cb = cb;
	f->cbdata = cbdata;
	pthread_mutex_lock(&px.lock);
	f->step = find_step(procs[0].nspace);
	if (!f->step) {
		pthread_mutex_unlock(&px.lock);
		free(f->data);
		free(f);
		return PMIX_ERR_NOT_FOUND;
	}
	f->next = px.queue;
	px.queue = f;
	pthread_mutex_unlock(&px.lock);
	uv_async_send(&px.wake);
	return PMIX_SUCCESS;
}

/* Fence data travels as hex in JSON (srun only joins the strings). */
static char *to_hex(const char *data, size_t len)
{
	static const char digits[] = "0123456789abcdef";
	char *hex = malloc(2 * len + 1);

	for (size_t i = 0; hex && i < len; i++) {
		hex[2 * i] = digits[(unsigned char)data[i] >> 4];
		hex[2 * i + 1] = digits[(unsigned char)data[i] & 15];
	}
	if (hex)
		hex[2 * len] = '\0';
	return hex;
}

static int nibble(char c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* The loop: fences from the PMIx thread go to srun. */
static void on_wake(uv_async_t *h)
{
	struct fence *q, *rev = NULL;

	(void)h;
	pthread_mutex_lock(&px.lock);
	q = px.queue;
	px.queue = NULL;
	pthread_mutex_unlock(&px.lock);
	while (q) { /* oldest first */
		struct fence *n = q->next;

		q->next = rev;
		rev = q;
		q = n;
	}
	while (rev) {
		struct fence *f = rev;

		rev = f->next;
		f->seq = ++f->step->seq;
		f->next = f->step->waiting;
		f->step->waiting = f;
		{
			char *hex = to_hex(f->data ? f->data : "", f->len);

			f->step->fence(f->step->ctx, f->seq, hex ? hex : "", hex ? 2 * f->len : 0);
			free(hex);
		}
		free(f->data);
		f->data = NULL;
	}
}

static void release(void *p)
{
	free(p);
}

void spurd_pmix_fence_done(struct spurd_pmix_step *s, unsigned seq, const char *data,
			   size_t len)
{
	for (struct fence **pp = &s->waiting; *pp; pp = &(*pp)->next) {
		struct fence *f = *pp;
		char *copy;

		if (f->seq != seq)
			continue;
		*pp = f->next;
		copy = malloc(len / 2 + 1);
		for (size_t i = 0; copy && i + 1 < len; i += 2) {
			int hi = nibble(data[i]), lo = nibble(data[i + 1]);

			if (hi < 0 || lo < 0) {
				free(copy);
				copy = NULL;
				break;
			}
			copy[i / 2] = (char)(hi << 4 | lo);
		}
		len /= 2;
		if (f->cb)
			f->cb(copy ? PMIX_SUCCESS : PMIX_ERR_NOMEM, copy, copy ? len : 0, f->cbdata,
			      release, copy);
		else
			free(copy);
		free(f);
		return;
	}
}

/* ------------------------------------------------------ server */

static pmix_status_t client_connected(const pmix_proc_t *proc, void *obj, pmix_op_cbfunc_t cb,
				      void *cbdata)
{
	(void)proc;
	(void)obj;
	(void)cb;
	(void)cbdata;
	return PMIX_OPERATION_SUCCEEDED;
}

static pmix_status_t client_finalized(const pmix_proc_t *proc, void *obj, pmix_op_cbfunc_t cb,
				      void *cbdata)
{
	(void)proc;
	(void)obj;
	(void)cb;
	(void)cbdata;
	return PMIX_OPERATION_SUCCEEDED;
}

static pmix_status_t abort_fn(const pmix_proc_t *proc, void *obj, int status, const char msg[],
			      pmix_proc_t procs[], size_t nprocs, pmix_op_cbfunc_t cb,
			      void *cbdata)
{
	(void)obj;
	(void)procs;
	(void)nprocs;
	(void)cb;
	(void)cbdata;
	fprintf(stderr, "spurd: pmix: %s rank %u called abort (%d): %s\n", proc->nspace,
		proc->rank, status, msg ? msg : "");
	return PMIX_OPERATION_SUCCEEDED;
}

static pmix_server_module_t module = {
	.client_connected = client_connected,
	.client_finalized = client_finalized,
	.abort = abort_fn,
	.fence_nb = fence_nb,
};

int spurd_pmix_init(uv_loop_t *loop, const char *tmpdir, char *why, size_t wlen)
{
	pmix_info_t info[2];
	pmix_status_t rc;

	if (px.up)
		return 0;
	PMIx_Info_load(&info[0], PMIX_SERVER_TMPDIR, tmpdir, PMIX_STRING);
	PMIx_Info_load(&info[1], PMIX_SYSTEM_TMPDIR, tmpdir, PMIX_STRING);
	rc = PMIx_server_init(&module, info, 2);
	PMIX_INFO_DESTRUCT(&info[0]);
	PMIX_INFO_DESTRUCT(&info[1]);
	if (rc != PMIX_SUCCESS) {
		snprintf(why, wlen, "PMIx_server_init: %s", PMIx_Error_string(rc));
		return -1;
	}
	uv_async_init(loop, &px.wake, on_wake);
	uv_unref((uv_handle_t *)&px.wake);
	px.up = true;
	return 0;
}

void spurd_pmix_fini(void)
{
	if (!px.up)
		return;
	if (!uv_is_closing((uv_handle_t *)&px.wake))
		uv_close((uv_handle_t *)&px.wake, NULL);
	PMIx_server_finalize();
	px.up = false;
}

/* "a,b,c" of the step's node names, and "0-3;4-7" of its ranks per node,
 * as PMIx_generate_regex and PMIx_generate_ppn take them. */
static void maps(const struct spurd_pmix_layout *l, char **nodes, char **ppn)
{
	size_t nlen = 1, plen = 1;

	for (size_t k = 0; k < l->nnodes; k++) {
		nlen += strlen(l->names[k]) + 1;
		plen += (size_t)l->count[k] * 11 + 1;
	}
	*nodes = calloc(1, nlen);
	*ppn = calloc(1, plen);
	for (size_t k = 0; *nodes && *ppn && k < l->nnodes; k++) {
		strcat(strcat(*nodes, k ? "," : ""), l->names[k]);
		if (k)
			strcat(*ppn, ";");
		for (uint32_t r = 0; r < l->count[k]; r++)
			sprintf(*ppn + strlen(*ppn), "%s%u", r ? "," : "", l->first[k] + r);
	}
}

/* One rank's PMIX_PROC_DATA. */
static void proc_data(pmix_info_t *out, const struct spurd_pmix_layout *l, size_t node,
		      uint32_t rank)
{
	pmix_data_array_t *d;
	pmix_info_t *in;
	uint16_t local = (uint16_t)(rank - l->first[node]);
	uint32_t appnum = 0, nodeid = (uint32_t)node;

	PMIX_DATA_ARRAY_CREATE(d, 6, PMIX_INFO);
	in = d->array;
	PMIx_Info_load(&in[0], PMIX_RANK, &rank, PMIX_PROC_RANK);
	PMIx_Info_load(&in[1], PMIX_APPNUM, &appnum, PMIX_UINT32);
	PMIx_Info_load(&in[2], PMIX_LOCAL_RANK, &local, PMIX_UINT16);
	PMIx_Info_load(&in[3], PMIX_NODE_RANK, &local, PMIX_UINT16);
	PMIx_Info_load(&in[4], PMIX_HOSTNAME, l->names[node], PMIX_STRING);
	PMIx_Info_load(&in[5], PMIX_NODEID, &nodeid, PMIX_UINT32);
	PMIx_Info_load(out, PMIX_PROC_DATA, d, PMIX_DATA_ARRAY);
	PMIX_DATA_ARRAY_FREE(d);
}

/* The namespace's job-level and per-rank information. */
static pmix_info_t *job_info(const struct spurd_pmix_layout *l, const char *jobid, size_t *n,
			     size_t *alloc)
{
	size_t fixed = 11, k = 0;
	pmix_info_t *info;
	char *nodes = NULL, *ppn = NULL, *nregex = NULL, *pregex = NULL, peers[8192] = "";
	uint32_t here = l->count[l->here], ldr = l->first[l->here], nn = (uint32_t)l->nnodes,
		 napps = 1, nodeid = (uint32_t)l->here;

	PMIX_INFO_CREATE(info, fixed + l->ntasks);
	maps(l, &nodes, &ppn);
	if (!info || !nodes || !ppn || PMIx_generate_regex(nodes, &nregex) != PMIX_SUCCESS ||
	    PMIx_generate_ppn(ppn, &pregex) != PMIX_SUCCESS) {
		free(nodes);
		free(ppn);
		if (info)
			PMIX_INFO_FREE(info, fixed + l->ntasks);
		return NULL;
	}
	for (uint32_t r = 0; r < here; r++)
		snprintf(peers + strlen(peers), sizeof(peers) - strlen(peers), "%s%u", r ? "," : "",
			 ldr + r);
	PMIx_Info_load(&info[k++], PMIX_UNIV_SIZE, &l->ntasks, PMIX_UINT32);
	PMIx_Info_load(&info[k++], PMIX_JOB_SIZE, &l->ntasks, PMIX_UINT32);
	PMIx_Info_load(&info[k++], PMIX_MAX_PROCS, &l->ntasks, PMIX_UINT32);
	PMIx_Info_load(&info[k++], PMIX_LOCAL_SIZE, &here, PMIX_UINT32);
	PMIx_Info_load(&info[k++], PMIX_LOCAL_PEERS, peers, PMIX_STRING);
	PMIx_Info_load(&info[k++], PMIX_LOCALLDR, &ldr, PMIX_PROC_RANK);
	PMIx_Info_load(&info[k++], PMIX_NUM_NODES, &nn, PMIX_UINT32);
	PMIx_Info_load(&info[k++], PMIX_JOB_NUM_APPS, &napps, PMIX_UINT32);
	PMIx_Info_load(&info[k++], PMIX_JOBID, jobid, PMIX_STRING);
	PMIx_Info_load(&info[k++], PMIX_NODE_MAP, nregex, PMIX_REGEX);
	PMIx_Info_load(&info[k++], PMIX_PROC_MAP, pregex, PMIX_REGEX);
	(void)nodeid;
	for (size_t node = 0; node < l->nnodes; node++)
		for (uint32_t r = 0; r < l->count[node]; r++)
			proc_data(&info[k++], l, node, l->first[node] + r);
	free(nodes);
	free(ppn);
	free(nregex);
	free(pregex);
	*n = k;
	*alloc = fixed + l->ntasks;
	return info;
}

struct spurd_pmix_step *spurd_pmix_step_new(uint32_t job, uint32_t step,
					    const struct spurd_pmix_layout *l, uid_t uid,
					    gid_t gid, spurd_pmix_fence_fn fence, void *ctx,
					    char *why, size_t wlen)
{
	struct spurd_pmix_step *s = calloc(1, sizeof(*s));
	struct wait w = WAIT_INIT;
	char jobid[32], name[64];
	pmix_info_t *info;
	pmix_status_t rc;
	size_t n = 0, fixed_n = 0;

	if (!s) {
		snprintf(why, wlen, "out of memory");
		return NULL;
	}
	snprintf(name, sizeof(name), "spur.%u.%u", job, step);
	snprintf(jobid, sizeof(jobid), "%u.%u", job, step);
	PMIX_LOAD_NSPACE(s->nspace, name);
	s->first = l->first[l->here];
	s->count = l->count[l->here];
	s->fence = fence;
	s->ctx = ctx;
	info = job_info(l, jobid, &n, &fixed_n);
	if (!info) {
		snprintf(why, wlen, "out of memory");
		free(s);
		return NULL;
	}
	rc = await(PMIx_server_register_nspace(s->nspace, (int)s->count, info, n, op_done, &w), &w);
	PMIX_INFO_FREE(info, fixed_n);
	for (uint32_t r = 0; rc == PMIX_SUCCESS && r < s->count; r++) {
		struct wait wc = WAIT_INIT;
		pmix_proc_t proc;

		PMIX_LOAD_PROCID(&proc, s->nspace, s->first + r);
		rc = await(PMIx_server_register_client(&proc, uid, gid, NULL, op_done, &wc), &wc);
	}
	if (rc != PMIX_SUCCESS) {
		snprintf(why, wlen, "PMIx namespace %s: %s", name, PMIx_Error_string(rc));
		PMIx_server_deregister_nspace(s->nspace, NULL, NULL);
		free(s);
		return NULL;
	}
	pthread_mutex_lock(&px.lock);
	s->next = px.steps;
	px.steps = s;
	pthread_mutex_unlock(&px.lock);
	return s;
}

char **spurd_pmix_task_env(struct spurd_pmix_step *s, uint32_t rank)
{
	pmix_proc_t proc;
	char **env = calloc(1, sizeof(char *));

	PMIX_LOAD_PROCID(&proc, s->nspace, rank);
	if (env && PMIx_server_setup_fork(&proc, &env) != PMIX_SUCCESS) {
		for (size_t i = 0; env[i]; i++)
			free(env[i]);
		free(env);
		return NULL;
	}
	return env;
}

void spurd_pmix_step_free(struct spurd_pmix_step *s)
{
	struct wait w = WAIT_INIT;

	if (!s)
		return;
	pthread_mutex_lock(&px.lock);
	for (struct spurd_pmix_step **pp = &px.steps; *pp; pp = &(*pp)->next)
		if (*pp == s) {
			*pp = s->next;
			break;
		}
	pthread_mutex_unlock(&px.lock);
	while (s->waiting) {
		struct fence *f = s->waiting;

		s->waiting = f->next;
		if (f->cb)
			f->cb(PMIX_ERR_LOST_CONNECTION, NULL, 0, f->cbdata, NULL, NULL);
		free(f);
	}
	PMIx_server_deregister_nspace(s->nspace, op_done, &w);
	await(PMIX_SUCCESS, &w);
	free(s);
}

#endif
