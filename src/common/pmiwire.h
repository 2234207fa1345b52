/* SPDX-License-Identifier: Apache-2.0 */
/* The PMI-1 wire protocol (MPICH's "simple" PMI, which Slurm's mpi/pmi2
 * serves too): one request per line, "cmd=NAME key=value ...", from a
 * task to its node's agent. Untrusted input: the agent runs as root. */
#ifndef SPUR_COMMON_PMIWIRE_H
#define SPUR_COMMON_PMIWIRE_H

#include <stddef.h>

#define SPUR_PMI_MAX_FIELDS 8
#define SPUR_PMI_MAX_LINE 1024 /* MPICH's PMIU_MAXLINE */

struct spur_pmi_msg {
	size_t n;
	const char *key[SPUR_PMI_MAX_FIELDS], *val[SPUR_PMI_MAX_FIELDS];
};

/* Split line (changed in place, without its newline) into its key=value
 * fields, the first of them cmd: 0, or -1 when it is not a request. */
int spur_pmi_parse(char *line, struct spur_pmi_msg *m);
/* A field's value, or NULL. */
const char *spur_pmi_get(const struct spur_pmi_msg *m, const char *key);

#endif
