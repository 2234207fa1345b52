/* SPDX-License-Identifier: Apache-2.0 */
/* Entry points of the multi-call CLI's commands. */
#ifndef SPUR_CLI_CLI_H
#define SPUR_CLI_CLI_H

#include <stdbool.h>
#include <stdio.h>

/* Each returns the process exit status. `prog` is the name used in
 * messages ("scontrol", "spur control"). */
int cli_scontrol_main(const char *prog, int argc, char **argv);
int cli_conf_main(const char *prog, int argc, char **argv);
int cli_cdi_main(const char *prog, int argc, char **argv);
int cli_image_main(const char *prog, int argc, char **argv);
int cli_sbatch_main(const char *prog, int argc, char **argv);
int cli_squeue_main(const char *prog, int argc, char **argv);
int cli_scancel_main(const char *prog, int argc, char **argv);
int cli_sinfo_main(const char *prog, int argc, char **argv);
int cli_sacct_main(const char *prog, int argc, char **argv);
int cli_srun_main(const char *prog, int argc, char **argv);
int cli_salloc_main(const char *prog, int argc, char **argv);
int cli_sattach_main(const char *prog, int argc, char **argv);
int cli_sacctmgr_main(const char *prog, int argc, char **argv);
int cli_sshare_main(const char *prog, int argc, char **argv);
int cli_sprio_main(const char *prog, int argc, char **argv);
int cli_sdiag_main(const char *prog, int argc, char **argv);
int cli_sreport_main(const char *prog, int argc, char **argv);
int cli_sstat_main(const char *prog, int argc, char **argv);
int cli_controller_main(const char *prog, int argc, char **argv);
/* scontrol ping: each SlurmctldHost UP or DOWN; 0 when one is up. */
int cli_scontrol_ping(const char *prog);

/* The slurm.conf to read: -f/--config, else $SPUR_CONF, $SLURM_CONF,
 * /etc/spur/slurm.conf, /etc/slurm/slurm.conf. NULL when none exists. */
const char *cli_conf_path(const char *given);

/* argv for getopt: name, then argv[0..argc-1] (at most max - 1 entries,
 * NULL-terminated in out[max]); returns the new count and resets optind. */
int cli_getopt_argv(const char *name, int argc, char **argv, char **out, int max);

/* --version, -V: "slurm 22.05.8 (Spur VERSION)" */
void cli_version(void);

/* A step's output frame ("io": rank, fd 1 or 2, data) to stdout or stderr;
 * label (-l): "rank: " before each line, st[rank] keeping where lines
 * start (st: ntasks of them, at_line_start true at first). */
struct cli_out_state {
	bool at_line_start[2];
};
struct json_t;
void cli_print_io(const struct json_t *m, bool label, struct cli_out_state *st, int ntasks,
		  FILE *to);

/* "prog: error: message" on stderr, as Slurm's commands print it. */
void cli_error(const char *prog, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* scontrol listpids (listpids.c) */
int cli_listpids(const char *prog, int argc, char **argv);
/* squeue -s/--steps (sqsteps.c): filters jobs, users, partitions (each
 * a comma list or NULL). */
int cli_squeue_steps(const char *prog, const char *fmt, const char *steps,
		     const char *const *filters, bool header, bool stamped);
/* scontrol write config [FILE] (writeconf.c). */
int cli_write_config(const char *prog, const char *arg);
/* scontrol pidinfo PID: the job of a process of this host, and its end */
int cli_pidinfo(const char *prog, const char *pid);

#endif
