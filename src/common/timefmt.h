/* SPDX-License-Identifier: Apache-2.0 */
/* Slurm's duration and date formats: --time, --begin, and their printing. */
#ifndef SPUR_COMMON_TIMEFMT_H
#define SPUR_COMMON_TIMEFMT_H

#include "error.h"

#include <stddef.h>
#include <stdint.h>
#include <time.h>

/* "UNLIMITED" / "INFINITE": no limit. */
#define SPUR_TIME_INFINITE INT64_C(-1)

/* Parse a duration into seconds: MM, MM:SS, HH:MM:SS, D-HH, D-HH:MM,
 * D-HH:MM:SS, UNLIMITED, INFINITE or -1 (both → SPUR_TIME_INFINITE), as
 * sbatch --time. Fields after the first must be below 60 (hours below 24
 * after "D-"); at most 10 years in all. */
int spur_duration_parse(const char *s, int64_t *secs, struct spur_error *err);

/* Slurm rounds a time limit up to whole minutes. INFINITE stays INFINITE. */
int64_t spur_duration_minutes_ceil(int64_t secs);

/* Slurm's secs2time_str: "D-HH:MM:SS", "H:MM:SS", "M:SS" or "UNLIMITED". */
void spur_duration_format(int64_t secs, char *buf, size_t len);

/* sacct's Elapsed and scontrol's RunTime: always HH:MM:SS, "D-HH:MM:SS"
 * past a day; negative counts as 0. */
void spur_duration_format_hms(int64_t secs, char *buf, size_t len);

/* Parse a --begin value against `now` in the local time zone:
 * now[{+|-}N[units]] (units: s[ec[ond]][s], m[in[ute]][s], h[our][s],
 * d[ay][s], w[eek][s]; seconds by default), today, tomorrow, midnight,
 * noon, elevenses, fika, teatime, HH:MM[:SS] [AM|PM] (today, or tomorrow
 * when already past), YYYY-MM-DD[THH:MM[:SS]], MM/DD[/YY], MM.DD[.YY],
 * MMDDYY. */
int spur_begin_parse(const char *s, time_t now, time_t *out, struct spur_error *err);

/* Local time as Slurm prints timestamps: "2026-12-02T13:40:25";
 * 0 prints "Unknown". */
void spur_time_format(time_t t, char *buf, size_t len);

#endif
