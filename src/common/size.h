/* SPDX-License-Identifier: Apache-2.0 */
/* Memory sizes as Slurm writes them (--mem=16G, RealMemory=512000). */
#ifndef SPUR_COMMON_SIZE_H
#define SPUR_COMMON_SIZE_H

#include "error.h"

#include <stddef.h>
#include <stdint.h>

/* Parse N[K|M|G|T|P] (binary units, case-insensitive; no suffix means
 * megabytes, as --mem, --mem-per-cpu and --mem-per-gpu) into MiB, rounding
 * KiB up to whole MiB. At most 2^40 MiB. */
int spur_mem_parse_mb(const char *s, uint64_t *mb, struct spur_error *err);

/* Print MiB with the largest unit that divides it exactly: "16G", "512M",
 * "1000M", "2T". */
void spur_mem_format_mb(uint64_t mb, char *buf, size_t len);

/* Parse a plain count with an optional K/M/G suffix (x1024, as Slurm's GRES
 * counts). Rejects signs, spaces and values above `max`. */
int spur_count_parse(const char *s, uint64_t max, uint64_t *out, struct spur_error *err);

#endif
