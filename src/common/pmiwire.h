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

/* The PMI-2 wire protocol (MPICH's PMI-2, Slurm's libpmi2): after a PMI-1
 * "cmd=init pmi_version=2" line, each message is a 6-character decimal
 * length then "cmd=NAME;key=value;...;", a ';' inside a value written
 * ";;". */
#define SPUR_PMI2_LEN_FIELD 6
#define SPUR_PMI2_MAX_BODY 4096 /* requests are at most 1024-byte values */

/* Split a message body (len bytes, changed in place; at least len + 1
 * bytes writable) into its fields, ";;" made ';', the first of them cmd:
 * 0, or -1 when it is not a request (a NUL byte in it included). */
int spur_pmi2_parse(char *body, size_t len, struct spur_pmi_msg *m);
/* One message, length field included, into buf: the command, then n
 * key/value pairs (kv[2i], kv[2i+1]). Returns its length, or 0 when it
 * does not fit. */
size_t spur_pmi2_format(char *buf, size_t cap, const char *cmd, const char *const *kv, size_t n);

#endif
