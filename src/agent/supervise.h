/* SPDX-License-Identifier: Apache-2.0 */
/* The job supervisor (spurd --supervise) and the files it leaves in a job's
 * spool folder for the agent. */
#ifndef SPUR_AGENT_SUPERVISE_H
#define SPUR_AGENT_SUPERVISE_H

#include <stdbool.h>

/* main() of `spurd --supervise DIR LIMIT KILL_WAIT UID GID` */
int spurd_supervise(int argc, char **argv);
/* A number in DIR/name (pid, pgid), or 0 when there is none yet. */
long spurd_supervise_read(const char *dir, const char *name);
/* The job's result from DIR/status: 1 when there, 0 when not yet. */
int spurd_supervise_status(const char *dir, int *code, bool *timed_out);

#endif
