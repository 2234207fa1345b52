/* SPDX-License-Identifier: Apache-2.0 */
/* spurctld: the controller daemon. */
#include "ctld.h"
#include "assoc.h"
#include "report.h"
#include "reconf.h"

#include "common/alloc.h"
#include "common/log.h"

#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

static void usage(FILE *out)
{
	fprintf(out, "Usage: spurctld [-f slurm.conf] [-N NAME] [-j] [-s STATE_DIR] [-p PORT]\n"
		     "                [-a LISTEN_ADDR] [-r RAFT_HOST:PORT] [-n SNAPSHOT_EVERY]\n"
		     "                [-L LOGFILE] [-v]\n"
		     "  -N NAME  this controller's SlurmctldHost name (default: the host name)\n"
		     "  -j       join a running cluster (added with 'spur controller add NAME')\n");
}

/* PreemptMode "REQUEUE", "CANCEL,GANG", "OFF": *requeue, *off; SUSPEND
 * (gang scheduling's suspend and resume) is not supported. */
static int preempt_mode(const char *v, const char *what, bool *requeue, bool *off,
			struct spur_error *err)
{
	char buf[128], *save = NULL;

	if (!v)
		return 0;
	snprintf(buf, sizeof(buf), "%s", v);
	for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		if (!strcasecmp(t, "REQUEUE"))
			*requeue = true, *off = false;
		else if (!strcasecmp(t, "CANCEL"))
			*requeue = false, *off = false;
		else if (!strcasecmp(t, "OFF"))
			*off = true;
		else if (strcasecmp(t, "GANG") && strcasecmp(t, "WITHIN"))
			return spur_error_set(err, SPUR_EINVAL,
					      "%s: PreemptMode=%s is not supported (use REQUEUE, "
					      "CANCEL or OFF)",
					      what, v);
	}
	return 0;
}

/* slurm.conf Licenses=NAME[:COUNT],... into the core. */
static int add_licenses(struct ctld *c, const char *text, struct spur_error *err)
{
	for (const char *p = text ? text : ""; *p;) {
		size_t len = strcspn(p, ",");
		char term[256], *colon, *end;
		unsigned long n = 1;

		snprintf(term, sizeof(term), "%.*s", (int)len, p);
		p += len + (p[len] == ',');
		if ((colon = strchr(term, ':'))) {
			*colon = '\0';
			n = strtoul(colon + 1, &end, 10);
			if (*end || end == colon + 1 || n > UINT32_MAX)
				return spur_error_set(err, SPUR_EINVAL,
						      "Licenses=%s: bad count for license %s", text, term);
		}
		if (sched_add_license(c->sched, term, (uint32_t)n, err))
			return spur_error_wrap(err, "Licenses=%s", text);
	}
	return 0;
}

int ctld_add_partition(struct ctld *c, const struct spur_conf_partition *pt,
		       struct spur_error *err)
{
	struct sched_part_spec ps = { 0 };
	bool requeue = false, off = true;

	/* the cluster's PreemptMode, then the partition's own */
	if (preempt_mode(c->conf->preempt_mode, "slurm.conf", &requeue, &off, err))
		return err->code;
	ps.name = pt->name;
	ps.nodes = pt->nodes_expr ? pt->nodes_expr : "";
	ps.is_default = pt->is_default;
	ps.max_time = pt->max_time < 0 ? SCHED_INFINITE : pt->max_time;
	ps.default_time = pt->default_unlimited ? SCHED_INFINITE
			  : pt->default_time < 0  ? ps.max_time
						  : pt->default_time;
	ps.max_nodes = pt->max_nodes == SPUR_CONF_UNLIMITED ? 0 : pt->max_nodes;
	ps.priority_tier = pt->priority_tier;
	ps.priority_job_factor = pt->priority_job_factor;
	ps.state = (enum sched_part_state)pt->state;
	ps.preempt_requeue = requeue;
	ps.preempt_off = false;
	ps.exclusive_user = pt->exclusive_user;
	/* OverSubscribe=YES|FORCE[:N]: CPUs shared N ways (NO, EXCLUSIVE: 1) */
	if (pt->oversubscribe)
		(void)spur_conf_oversubscribe(pt->oversubscribe, &ps.share_max, &ps.share_force);
	if (pt->preempt_mode) {
		char what[160];

		snprintf(what, sizeof(what), "partition %s", pt->name);
		if (preempt_mode(pt->preempt_mode, what, &ps.preempt_requeue, &ps.preempt_off, err))
			return err->code;
	}
	return sched_add_partition(c->sched, &ps, err);
}

int ctld_build_core(struct ctld *c, struct spur_error *err)
{
	struct sched_config cfg;
	const struct spur_conf *cf = c->conf;

	sched_config_default(&cfg);
	cfg.trace = spur_log_enabled(SPUR_LOG_DEBUG);
	cfg.w_age = cf->priority_weight_age;
	cfg.w_fairshare = cf->priority_weight_fairshare;
	cfg.w_job_size = cf->priority_weight_job_size;
	cfg.w_partition = cf->priority_weight_partition;
	cfg.w_qos = cf->priority_weight_qos;
	cfg.decay_half_life = cf->priority_decay_half_life;
	cfg.max_age = cf->priority_max_age;
	cfg.favor_small = cf->priority_favor_small;
	for (size_t i = 0; i < cf->nextra; i++) {
		if (!strcasecmp(cf->extra[i].key, "DependencyParameters") &&
		    strstr(cf->extra[i].value, "kill_invalid_depend"))
			cfg.kill_invalid_depend = true;
		if (!strcasecmp(cf->extra[i].key, "AccountingStorageEnforce") &&
		    ctld_assoc_enforce(cf->extra[i].value, &cfg, err))
			return err->code;
		c->enforce_qos = cfg.enforce_qos;
	}
	/* SchedulerParameters: one pass here, bounded by the larger bound */
	cfg.max_job_test = cf->bf_max_job_test > cf->default_queue_depth ? cf->bf_max_job_test
									  : cf->default_queue_depth;
	/* PreemptType=preempt/partition_prio with a PreemptMode other than OFF:
	 * a job of a higher PriorityTier partition stops lower-tier jobs */
	bool requeue = false, off = true;

	if (preempt_mode(cf->preempt_mode, "slurm.conf", &requeue, &off, err))
		return err->code;
	if (cf->preempt_type && !strcmp(cf->preempt_type, "preempt/partition_prio"))
		cfg.preempt_partition_prio = !off;
	else if (cf->preempt_type && !strcmp(cf->preempt_type, "preempt/qos"))
		cfg.preempt_qos = !off; /* sacctmgr's QOS Preempt= lists */
	else if (cf->preempt_type && strcmp(cf->preempt_type, "preempt/none"))
		return spur_error_set(err, SPUR_EINVAL,
				      "PreemptType=%s is not supported (use preempt/partition_prio, "
				      "preempt/qos or preempt/none)",
				      cf->preempt_type);
	c->sched = sched_create(&cfg, err);
	if (!c->sched)
		return err->code;
	for (size_t i = 0; i < cf->nswitches; i++)
		if (cf->switches[i].parent < 0 && sched_add_switch(c->sched, cf->switches[i].name,
								    NULL, err))
			return err->code;
	for (size_t i = 0; i < cf->nnodes; i++) {
		const struct spur_conf_node *n = &cf->nodes[i];
		struct sched_node_spec sp;
		const char *type = NULL;
		uint32_t gpus = 0;

		memset(&sp, 0, sizeof(sp));
		for (size_t g = 0; g < n->gres.n; g++) {
			if (!strcmp(n->gres.items[g].name, "gpu")) {
				gpus += (uint32_t)n->gres.items[g].count;
				type = n->gres.items[g].type[0] ? n->gres.items[g].type : "gpu";
			} else if (!strcmp(n->gres.items[g].name, "shard")) {
				sp.shards = (uint32_t)n->gres.items[g].count;
			}
		}
		sp.name = n->name;
		sp.cpus = n->cpus;
		sp.mem_mb = n->real_memory_mb;
		sp.tmp_mb = n->tmp_disk_mb;
		sp.features = n->features;
		sp.weight = n->weight;
		if (gpus) {
			/* until the node's agent reports its real links */
			const char *preset = spur_topo_preset_for_type(type);

			for (unsigned a = 0; a < SCHED_MAX_GPUS; a++)
				for (unsigned b = 0; b < SCHED_MAX_GPUS; b++)
					sp.links[a][b] = (enum sched_link)spur_topo_link(preset, a, b);
			sp.ngpus = gpus;
			sp.gpu_type = type;
		}
		for (size_t s = 0; s < cf->nswitches; s++)
			for (size_t k = 0; k < cf->switches[s].nnodes; k++)
				if (cf->switches[s].nodes[k] == i)
					sp.switch_name = cf->switches[s].name;
		if (sched_add_node(c->sched, &sp, err))
			return spur_error_wrap(err, "node %s", n->name);
	}
	for (size_t p = 0; p < cf->nparts; p++)
		if (ctld_add_partition(c, &cf->parts[p], err))
			return err->code;
	if (add_licenses(c, cf->licenses, err))
		return err->code;
	/* every cluster has the QOS "normal" (sacctmgr may change it) */
	if (sched_add_qos(c->sched, &(struct sched_qos_spec){ .name = "normal" }, err))
		return err->code;
	/* no node takes work before its agent registers */
	for (size_t i = 0; i < cf->nnodes; i++) {
		struct sched_event ev = { .type = SCHED_EV_NODE_DRAIN, .time = 0,
					  .node = cf->nodes[i].name, .reason = "not registered",
					  .defer_cycle = true };
		struct sched_actions acts;

		if (sched_step(c->sched, &ev, &acts, err))
			return err->code;
	}
	if (!c->agents)
		c->agents = calloc(cf->nnodes + 1, sizeof(*c->agents));
	if (!c->node_reason)
		c->node_reason = calloc(cf->nnodes + 1, sizeof(*c->node_reason));
	if (!c->node_admin)
		c->node_admin = calloc(cf->nnodes + 1, sizeof(*c->node_admin));
	if (!c->node_reason_user)
		c->node_reason_user = calloc(cf->nnodes + 1, sizeof(*c->node_reason_user));
	if (!c->node_reason_time)
		c->node_reason_time = calloc(cf->nnodes + 1, sizeof(*c->node_reason_time));
	if (!c->node_load && (c->node_load = malloc((cf->nnodes + 1) * sizeof(int64_t))))
		for (size_t i = 0; i <= cf->nnodes; i++)
			c->node_load[i] = -1;
	if (!c->node_free_mb && (c->node_free_mb = malloc((cf->nnodes + 1) * sizeof(int64_t))))
		for (size_t i = 0; i <= cf->nnodes; i++)
			c->node_free_mb[i] = -1;
	return c->agents && c->node_reason && c->node_admin && c->node_reason_time &&
			       c->node_reason_user && c->node_load && c->node_free_mb
		       ? 0
										   : SPUR_ENOMEM;
}

static void close_handle(uv_handle_t *h, void *arg)
{
	if (uv_is_closing(h))
		return;
	if ((h->type == UV_TCP || h->type == UV_NAMED_PIPE) && h->data && h->data != arg)
		ctld_tcp_close(h); /* a client's connection, or a forwarding pipe */
	else
		uv_close(h, NULL);
}

/* Start this program again at once, under its own name (an exec of
 * /proc/self/exe would be called "exe" by ps and pkill); every descriptor is
 * close-on-exec. Returns only if the exec failed. */
static void restart(char **argv)
{
	char self[4096];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

	if (n > 0)
		self[n] = '\0';
	execv(n > 0 ? self : "/proc/self/exe", argv);
	fprintf(stderr, "spurctld: error: restart: %s\n", strerror(errno));
}

void ctld_restart_now(struct ctld *c)
{
	restart(c->argv);
}

/* Release everything, so that leak checkers see a clean exit. */
static void teardown(struct ctld *c)
{
	uv_walk(c->loop, close_handle, c);
	uv_run(c->loop, UV_RUN_DEFAULT);
	uv_loop_close(c->loop);
	ctld_jobs_free(c);
	json_decref(c->resv_ops);
	json_decref(c->part_over);
	json_decref(c->part_log);
	json_decref(c->node_feat_orig);
	spur_conf_partitions_free(c->part_saved);
	json_decref(c->reconf_base);
	json_decref(c->reconf_op);
	free(c->conf_path);
	ctld_assoc_clear(c);
	ctld_stats_free(c);
	free(c->jobs);
	free(c->agents);
	free(c->node_reason);
	free(c->node_admin);
	free(c->node_reason_user);
	free(c->node_reason_time);
	free(c->node_load);
	free(c->limit_mail_ids);
	free(c->node_free_mb);
	free(c->peers);
	ctld_acct_close(c);
	ctld_jobsubmit_close(c->jobsubmit);
	sched_destroy(c->sched);
	spur_conf_destroy(c->conf);
	spur_log_close();
}

/* SIGHUP: slurm.conf read again, as scontrol reconfigure (the leader's) */
static void on_hup(uv_signal_t *h, int sig)
{
	struct ctld *c = h->data;
	struct spur_error err;

	(void)sig;
	if (!ctld_raft_ready(c)) {
		spur_info("SIGHUP: not the leader; run scontrol reconfigure (or signal the leader)");
		return;
	}
	if (ctld_reconfigure(c, NULL, &err))
		spur_warn("SIGHUP: %s", err.msg);
}

static void on_signal(uv_signal_t *h, int sig);

/* SIGTERM and SIGINT stop the controller; SIGHUP reads slurm.conf again. */
static void start_signals(struct ctld *c, uv_signal_t sigs[3])
{
	static const int nums[3] = { SIGTERM, SIGINT, SIGHUP };

	for (int i = 0; i < 3; i++) {
		uv_signal_init(c->loop, &sigs[i]);
		sigs[i].data = c;
		uv_signal_start(&sigs[i], nums[i] == SIGHUP ? on_hup : on_signal, nums[i]);
	}
}

static void on_signal(uv_signal_t *h, int sig)
{
	struct ctld *c = h->data;

	spur_info("signal %d: stopping", sig);
	c->signaled = true; /* a stop asked for wins over a restart */
	uv_stop(h->loop);
}

static struct {
	const char *addr;
	uint16_t port;
} listen_at;

/* Every second, to every agent: an agent that hears nothing from its
 * controller for a while (a leader paused or cut off) looks for the new one. */
static void on_agent_ping(uv_timer_t *t)
{
	struct ctld *c = t->data;

	for (size_t i = 0; i < c->conf->nnodes; i++)
		if (c->agents[i])
			ctld_conn_send(c->agents[i], json_pack("{s:s}", "type", "ping"));
}

/* The log is applied and this server leads: serve clients and agents. */
static void on_ready(struct ctld *c)
{
	c->replaying = false;
	ctld_acct_flush(c);
	/* allocations held by connections to the previous process are gone */
	for (size_t i = 1; i < c->jobs_cap; i++)
		if (c->jobs[i] && ctld_job_interactive(c->jobs[i]))
			ctld_owner_gone(c, c->jobs[i]);
	spur_info("leading: listening on %s:%u, %zu nodes, %zu partitions, %u jobs, state in %s",
		  listen_at.addr, listen_at.port, c->conf->nnodes, c->conf->nparts,
		  c->next_id - (c->conf->first_job_id ? c->conf->first_job_id : 1), c->state_dir);
	ctld_purge_start(c);
	ctld_reconf_on_lead(c);
	uv_timer_init(c->loop, &c->agent_ping);
	c->agent_ping.data = c;
	uv_timer_start(&c->agent_ping, on_agent_ping, 1000, 1000);
	ctld_run_cycle(c);
}

/* The peers ctld_peers() made (a lone controller's are on the stack). */
static void ctld_peers_free(struct ctld_raft_opts *o)
{
	struct ctld_raft_peer *p = (struct ctld_raft_peer *)o->peers;

	if (o->npeers > 1) {
		for (size_t i = 0; i < o->npeers; i++)
			spur_free((char *)p[i].address);
		free(p);
	}
	o->peers = NULL;
	o->npeers = 0;
}

static char *raft_address(const struct spur_conf *cf, size_t i)
{
	char buf[300];

	spur_conf_raft_address(cf, i, buf, sizeof(buf));
	return spur_strdup(buf);
}

/* The Raft cluster of the SlurmctldHost lines: controller i has id i+1;
 * this one is named, or has this host's name. */
static int ctld_peers(const struct spur_conf *cf, const char *name, struct ctld_raft_opts *o,
		      struct spur_error *err)
{
	char host[256] = "";
	struct ctld_raft_peer *peers = calloc(cf->nctlds, sizeof(*peers));
	size_t self = cf->nctlds;

	if (!peers)
		return spur_error_set(err, SPUR_ENOMEM, "out of memory");
	if (!name) {
		gethostname(host, sizeof(host) - 1);
		host[strcspn(host, ".")] = '\0';
		name = host;
	}
	for (size_t i = 0; i < cf->nctlds; i++) {
		peers[i].id = i + 1;
		peers[i].address = raft_address(cf, i);
		if (!strcmp(cf->ctlds[i].name, name))
			self = i;
	}
	o->peers = peers;
	o->npeers = cf->nctlds;
	/* several controllers on one address: their client and Raft ports
	 * must all differ */
	for (size_t i = 0; i < cf->nctlds; i++)
		for (size_t j = i + 1; j < cf->nctlds; j++) {
			unsigned ci = spur_conf_ctld_port(cf, i), cj = spur_conf_ctld_port(cf, j);
			unsigned ri = spur_conf_raft_port(cf, i), rj = spur_conf_raft_port(cf, j);

			if (strcmp(cf->ctlds[i].addr, cf->ctlds[j].addr) ||
			    (ci != cj && ci != rj && ri != cj && ri != rj))
				continue;
			ctld_peers_free(o);
			return spur_error_set(err, SPUR_EINVAL,
					      "SlurmctldHost %s and %s share a port on %s (the Raft "
					      "port is the client port + 4): space their ports by 5 "
					      "or more",
					      cf->ctlds[i].name, cf->ctlds[j].name, cf->ctlds[i].addr);
		}
	if (self == cf->nctlds) {
		ctld_peers_free(o);
		return spur_error_set(err, SPUR_EINVAL,
				      "%s is none of the %zu SlurmctldHost entries of the "
				      "configuration; name this controller with -N NAME",
				      name, cf->nctlds);
	}
	o->id = self + 1;
	o->address = peers[self].address;
	return 0;
}

/* spurctld's command line. */
struct ctld_args {
	const char *conf_path, *state, *logfile, *raft_addr, *self_name;
	int port, verbose;
	unsigned snapshot_every;
	bool join;
};

/* 0: go on; 1: done (help); -1: an error, said. */
static int parse_args(int argc, char **argv, struct ctld_args *a)
{
	int opt;

	*a = (struct ctld_args){ .snapshot_every = 8192 };
	listen_at.addr = "0.0.0.0";
	while ((opt = getopt(argc, argv, "f:s:p:L:a:r:n:N:jvh")) != -1) {
		switch (opt) {
		case 'f': a->conf_path = optarg; break;
		case 's': a->state = optarg; break;
		case 'p': a->port = atoi(optarg); break;
		case 'a': listen_at.addr = optarg; break;
		case 'r': a->raft_addr = optarg; break;
		case 'L': a->logfile = optarg; break;
		case 'N': a->self_name = optarg; break;
		case 'j': a->join = true; break;
		case 'v': a->verbose++; break;
		case 'n':
			a->snapshot_every = (unsigned)strtoul(optarg, NULL, 10);
			if (a->snapshot_every < 4) {
				fprintf(stderr, "spurctld: error: -n %s: expected 4 or more entries\n",
					optarg);
				return -1;
			}
			break;
		case 'h':
			usage(stdout);
			return 1;
		default:
			usage(stderr);
			return -1;
		}
	}
	if (a->port < 0 || a->port > 65535) {
		fprintf(stderr, "spurctld: error: -p %d: expected a port number 1-65535\n", a->port);
		return -1;
	}
	return 0;
}

/* The config, the log it names, its warnings, and what it asks of the
 * controller that must be refused or prepared (job_submit.lua): 0, or -1
 * with the reason said (nothing left open). */
static int ctld_load_conf(struct ctld *cp, const char *conf_path, const char *logfile,
			  int verbose)
{
	struct spur_error err;

	if (!conf_path)
		conf_path = getenv("SPUR_CONF") ? getenv("SPUR_CONF") : getenv("SLURM_CONF");
	cp->conf = conf_path ? spur_conf_load(conf_path, 0, &err) : spur_conf_default(&err);
	if (!cp->conf) {
		fprintf(stderr, "spurctld: error: %s\n", err.msg);
		return -1;
	}
	if (spur_log_open("spurctld", (enum spur_log_level)(cp->conf->ctld_debug + verbose),
			  logfile ? logfile : cp->conf->ctld_log_file, &err)) {
		fprintf(stderr, "spurctld: error: %s\n", err.msg);
		spur_conf_destroy(cp->conf);
		return -1;
	}
	for (size_t i = 0; i < cp->conf->nwarnings; i++)
		spur_warn("%s", cp->conf->warnings[i]);
	for (size_t i = 0; i < cp->conf->nunacted; i++)
		spur_warn("%s", cp->conf->unacted[i]);
	if (spur_conf_daemon_check(cp->conf, &err) ||
	    ctld_jobsubmit_open(cp->conf, conf_path, &cp->jobsubmit, &err) ||
	    ctld_reconf_base(cp, conf_path, &err)) {
		fprintf(stderr, "spurctld: error: %s\n", err.msg);
		spur_error_log("%s", err.msg);
		spur_conf_destroy(cp->conf);
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	const char *conf_path, *state, *logfile, *raft_addr;
	int port, verbose;
	unsigned snapshot_every;
	struct ctld_args args;
	struct ctld c = { 0 };
	struct spur_error err;
	uv_signal_t sigs[3];
	char raft_default[96], key_path[4096];
	const char *self_name;
	bool join;
	struct ctld_raft_opts ropts = { 0 };
	struct ctld_raft_peer solo = { 0 };

	switch (parse_args(argc, argv, &args)) {
	case 1:
		return 0;
	case -1:
		return 1;
	}
	conf_path = args.conf_path;
	state = args.state;
	logfile = args.logfile;
	raft_addr = args.raft_addr;
	self_name = args.self_name;
	port = args.port;
	verbose = args.verbose;
	snapshot_every = args.snapshot_every;
	join = args.join;
	if (ctld_load_conf(&c, conf_path, logfile, verbose))
		return 1;
	if (c.conf->nctlds > 1) {
		/* several controllers: a Raft cluster of them all, this one the
		 * SlurmctldHost named by -N, else by this host's name */
		if (ctld_peers(c.conf, self_name, &ropts, &err)) {
			fprintf(stderr, "spurctld: error: %s\n", err.msg);
			spur_conf_destroy(c.conf);
			return 1;
		}
		c.self = ropts.id - 1;
		if (!port)
			port = spur_conf_ctld_port(c.conf, c.self);
	}
	if (!port && c.conf->nctlds == 1)
		port = spur_conf_ctld_port(c.conf, 0);
	listen_at.port = (uint16_t)(port ? port : c.conf->ctld_port);
	if (!raft_addr && c.conf->nctlds > 1) {
		raft_addr = ropts.address;
	} else if (!raft_addr) {
		/* the Raft port: SpurRaftPort, else four above the controller's */
		snprintf(raft_default, sizeof(raft_default), "127.0.0.1:%u",
			 c.conf->raft_port ? c.conf->raft_port : (unsigned)listen_at.port + 4);
		raft_addr = raft_default;
	}
	if (c.conf->nctlds <= 1) {
		solo.id = 1;
		solo.address = raft_addr;
		ropts.id = 1;
		ropts.peers = &solo;
		ropts.npeers = 1;
	}
	ropts.address = raft_addr;
	ropts.join = join;
	ropts.snapshot_every = snapshot_every;
	ropts.on_ready = on_ready;
	/* test knobs: a short election timeout, small log segments (a disk
	 * that fills up in a few hundred entries) */
	if (getenv("SPUR_RAFT_SEGMENT_KB"))
		ropts.segment_kb = (unsigned)strtoul(getenv("SPUR_RAFT_SEGMENT_KB"), NULL, 10);
	if (getenv("SPUR_ELECTION_MS"))
		ropts.election_ms = (unsigned)strtoul(getenv("SPUR_ELECTION_MS"), NULL, 10);
	c.loop = uv_default_loop();
	c.argv = argv;
	c.next_id = c.conf->first_job_id ? c.conf->first_job_id : 1;
	c.stats.started_at = (int64_t)time(NULL);
	c.state_dir = (char *)(state ? state : c.conf->state_dir);
	uv_timer_init(c.loop, &c.timer);
	if (mkdir(c.state_dir, 0700) && errno != EEXIST) {
		fprintf(stderr, "spurctld: error: state folder %s: %s\n", c.state_dir, strerror(errno));
		goto out_teardown;
	}
	ctld_raft_prepare(c.state_dir, ropts.segment_kb);
	/* listening from the start: a follower, or a controller replaying its
	 * log, answers pings and reads and sends the rest to the leader */
	spur_auth_key_path(c.conf, key_path, sizeof(key_path));
	if (ctld_build_core(&c, &err) || ctld_acct_open(&c, &err) ||
	    spur_auth_key_load(key_path, true, &c.key, &err) ||
	    ctld_listen(&c, listen_at.addr, listen_at.port, &err) ||
	    ctld_listen_unix(&c, c.conf->nctlds ? c.conf->ctlds[c.self].addr : "127.0.0.1",
			     listen_at.port, &err) ||
	    ctld_raft_open(&c, &ropts, &err)) {
		spur_error_log("%s", err.msg);
		if (ctld_raft_no_room(c.state_dir, ropts.segment_kb) ||
		    strstr(err.msg, "not enough space") || strstr(err.msg, "No space left")) {
			/* the folder filled up between the check for room and
			 * the opening of the log (or the accounting database),
			 * or says it has room but refuses writes (a quota): wait
			 * for room again, as a controller started on a full disk
			 * does, rather than exit. Nothing was written, so the log
			 * stays: entries this voter acknowledged never go */
			spur_warn("state folder %s: no room to open the log; starting again once "
				  "there is",
				  c.state_dir);
			sleep(1);
			restart(argv);
		}
		fprintf(stderr, "spurctld: error: %s\n", err.msg);
		goto out_raft;
	}
	ctld_conns_start(&c);
	{
		/* many clients at once: every descriptor the system allows */
		struct rlimit rl;

		if (!getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_cur < rl.rlim_max) {
			rl.rlim_cur = rl.rlim_max;
			setrlimit(RLIMIT_NOFILE, &rl);
		}
	}
	start_signals(&c, sigs);
	signal(SIGPIPE, SIG_IGN);
	uv_run(c.loop, UV_RUN_DEFAULT);
	if (c.restart && !c.signaled) {
		/* this process's state ran ahead of the log, or it lost the
		 * leadership: start again from the log at once, as after a kill
		 * -9 (what is on disk is all the log holds; libraft 0.15 can
		 * crash closing a deposed leader with requests in flight) */
		ctld_restart_now(&c);
		c.failed = true;
	}
	c.stopping = true;
	ctld_raft_close(&c);
	teardown(&c);
	ctld_peers_free(&ropts);
	return c.failed ? 1 : 0;
out_raft:
	c.stopping = true;
	ctld_raft_close(&c);
out_teardown:
	teardown(&c);
	ctld_peers_free(&ropts);
	return 1;
}
