/* SPDX-License-Identifier: Apache-2.0 */
/* Parsing and printing of Slurm durations and dates. */
#include "timefmt.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define MAX_DURATION (INT64_C(10) * 366 * 86400)

/* Read up to 9 digits; returns digits read (0 on none). */
static int read_uint(const char **p, long *out)
{
	long v = 0;
	int n = 0;

	while (isdigit((unsigned char)**p) && n < 10) {
		v = v * 10 + (**p - '0');
		(*p)++;
		n++;
	}
	*out = v;
	return n;
}

int spur_duration_parse(const char *s, int64_t *secs, struct spur_error *err)
{
	const char *p = s;
	long f[4] = { 0 }, days = 0;
	int nf = 0;
	bool has_days = false;
	int64_t total;

	if (!s || !*s)
		return spur_error_set(err, SPUR_EPARSE, "empty time value");
	if (!strcasecmp(s, "UNLIMITED") || !strcasecmp(s, "INFINITE") || !strcmp(s, "-1")) {
		*secs = SPUR_TIME_INFINITE;
		return 0;
	}
	if (!read_uint(&p, &f[0]))
		goto bad;
	nf = 1;
	if (*p == '-') {
		has_days = true;
		days = f[0];
		p++;
		if (!read_uint(&p, &f[0]))
			goto bad;
	}
	while (*p == ':' && nf < 3) {
		p++;
		if (!read_uint(&p, &f[nf]))
			goto bad;
		nf++;
	}
	if (*p)
		goto bad;
	if (has_days) {
		/* D-HH[:MM[:SS]] */
		if (f[0] > 23 || (nf > 1 && f[1] > 59) || (nf > 2 && f[2] > 59))
			goto range;
		total = (int64_t)days * 86400 + f[0] * 3600 + f[1] * 60 + f[2];
	} else if (nf == 1) {
		total = (int64_t)f[0] * 60; /* MM */
	} else if (nf == 2) {
		if (f[1] > 59)
			goto range;
		total = (int64_t)f[0] * 60 + f[1]; /* MM:SS */
	} else {
		if (f[1] > 59 || f[2] > 59)
			goto range;
		total = (int64_t)f[0] * 3600 + f[1] * 60 + f[2]; /* HH:MM:SS */
	}
	if (total > MAX_DURATION)
		goto range;
	*secs = total;
	return 0;
range:
	return spur_error_set(err, SPUR_ERANGE,
			      "invalid time '%s': a field is out of range (minutes and seconds "
			      "0-59, hours 0-23 after days, at most 10 years)",
			      s);
bad:
	return spur_error_set(err, SPUR_EPARSE,
			      "invalid time '%s' (expected MM, MM:SS, HH:MM:SS, D-HH, D-HH:MM, "
			      "D-HH:MM:SS or UNLIMITED)",
			      s);
}

int64_t spur_duration_minutes_ceil(int64_t secs)
{
	if (secs == SPUR_TIME_INFINITE)
		return SPUR_TIME_INFINITE;
	return (secs + 59) / 60;
}

void spur_duration_format(int64_t secs, char *buf, size_t len)
{
	int64_t d, h, m, s;

	if (secs == SPUR_TIME_INFINITE) {
		snprintf(buf, len, "UNLIMITED");
		return;
	}
	if (secs < 0) {
		snprintf(buf, len, "INVALID");
		return;
	}
	s = secs % 60;
	m = (secs / 60) % 60;
	h = (secs / 3600) % 24;
	d = secs / 86400;
	if (d)
		snprintf(buf, len, "%" PRId64 "-%02" PRId64 ":%02" PRId64 ":%02" PRId64, d, h, m, s);
	else if (h)
		snprintf(buf, len, "%" PRId64 ":%02" PRId64 ":%02" PRId64, h, m, s);
	else
		snprintf(buf, len, "%" PRId64 ":%02" PRId64, m, s);
}

void spur_duration_format_hms(int64_t secs, char *buf, size_t len)
{
	if (secs < 0)
		secs = 0;
	if (secs >= 86400)
		snprintf(buf, len, "%" PRId64 "-%02" PRId64 ":%02" PRId64 ":%02" PRId64, secs / 86400,
			 secs / 3600 % 24, secs / 60 % 60, secs % 60);
	else
		snprintf(buf, len, "%02" PRId64 ":%02" PRId64 ":%02" PRId64, secs / 3600,
			 secs / 60 % 60, secs % 60);
}

void spur_time_format(time_t t, char *buf, size_t len)
{
	struct tm tm;

	if (t == 0 || !localtime_r(&t, &tm)) {
		snprintf(buf, len, "Unknown");
		return;
	}
	strftime(buf, len, "%Y-%m-%dT%H:%M:%S", &tm);
}

/* ---------------------------------------------------------------- --begin */

static const struct {
	const char *names[6];
	long secs;
} units[] = {
	{ { "s", "sec", "secs", "second", "seconds", NULL }, 1 },
	{ { "m", "min", "mins", "minute", "minutes", NULL }, 60 },
	{ { "h", "hour", "hours", NULL }, 3600 },
	{ { "d", "day", "days", NULL }, 86400 },
	{ { "w", "week", "weeks", NULL }, 7 * 86400 },
};

static long unit_secs(const char *u)
{
	if (!*u)
		return 1;
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		for (size_t j = 0; units[i].names[j]; j++)
			if (!strcasecmp(u, units[i].names[j]))
				return units[i].secs;
	return -1;
}

/* Local midnight of the day containing `now`, plus `day_offset` days. */
static time_t local_day(time_t now, int day_offset, int hour, int min, int sec)
{
	struct tm tm;

	localtime_r(&now, &tm);
	tm.tm_mday += day_offset;
	tm.tm_hour = hour;
	tm.tm_min = min;
	tm.tm_sec = sec;
	tm.tm_isdst = -1;
	return mktime(&tm);
}

/* Next occurrence of HH:MM:SS: today if still ahead, else tomorrow. */
static time_t next_clock(time_t now, int h, int m, int s)
{
	time_t t = local_day(now, 0, h, m, s);

	return t > now ? t : local_day(now, 1, h, m, s);
}

static int parse_now(const char *s, time_t now, time_t *out)
{
	const char *p = s + 3;
	long n, mult;
	int sign;

	if (!*p) {
		*out = now;
		return 0;
	}
	if (*p != '+' && *p != '-')
		return -1;
	sign = *p == '-' ? -1 : 1;
	p++;
	if (!read_uint(&p, &n))
		return -1;
	mult = unit_secs(p);
	if (mult < 0 || n > MAX_DURATION / mult)
		return -1;
	*out = now + sign * n * mult;
	return 0;
}

/* HH:MM[:SS] with an optional AM/PM; -1 when not that form. */
static int parse_clock(const char *s, int *h, int *m, int *sec)
{
	const char *p = s;
	long v[3] = { 0 };
	int n = 0;

	for (;;) {
		int d = read_uint(&p, &v[n]);

		if (d < 1 || d > 2)
			return -1;
		n++;
		if (*p != ':' || n == 3)
			break;
		p++;
	}
	if (n < 2)
		return -1;
	while (*p == ' ')
		p++;
	if (*p) {
		bool pm;

		if (!strcasecmp(p, "PM"))
			pm = true;
		else if (!strcasecmp(p, "AM"))
			pm = false;
		else
			return -1;
		if (v[0] < 1 || v[0] > 12)
			return -1;
		v[0] = (v[0] % 12) + (pm ? 12 : 0);
	}
	if (v[0] > 23 || v[1] > 59 || v[2] > 59)
		return -1;
	*h = (int)v[0];
	*m = (int)v[1];
	*sec = (int)v[2];
	return 0;
}

static int valid_date(int y, int mon, int d)
{
	static const int mdays[] = { 31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };

	if (y < 1970 || y > 9999 || mon < 1 || mon > 12 || d < 1 || d > mdays[mon - 1])
		return 0;
	if (mon == 2 && d == 29 && !((y % 4 == 0 && y % 100 != 0) || y % 400 == 0))
		return 0;
	return 1;
}

static time_t make_local(int y, int mon, int d, int h, int m, int s)
{
	struct tm tm = { 0 };

	tm.tm_year = y - 1900;
	tm.tm_mon = mon - 1;
	tm.tm_mday = d;
	tm.tm_hour = h;
	tm.tm_min = m;
	tm.tm_sec = s;
	tm.tm_isdst = -1;
	return mktime(&tm);
}

/* YYYY-MM-DD[THH:MM[:SS]] */
static int parse_iso(const char *s, time_t *out)
{
	int y, mon, d, h = 0, m = 0, sec = 0, used = 0;
	const char *p;

	if (sscanf(s, "%4d-%2d-%2d%n", &y, &mon, &d, &used) != 3 || used != 10)
		return -1;
	p = s + used;
	if (*p == 'T') {
		if (parse_clock(p + 1, &h, &m, &sec) != 0 || strpbrk(p + 1, "aApP"))
			return -1;
	} else if (*p) {
		return -1;
	}
	if (!valid_date(y, mon, d))
		return -1;
	*out = make_local(y, mon, d, h, m, sec);
	return 0;
}

/* MM/DD[/YY], MM.DD[.YY], MMDDYY */
static int parse_us_date(const char *s, time_t now, time_t *out)
{
	int mon, d, y = -1, used = 0;
	struct tm tm;
	char sep;

	if (strlen(s) == 6 && strspn(s, "0123456789") == 6) {
		if (sscanf(s, "%2d%2d%2d", &mon, &d, &y) != 3)
			return -1;
	} else if (sscanf(s, "%2d%c%2d%n", &mon, &sep, &d, &used) == 3 && (sep == '/' || sep == '.')) {
		if (s[used] == sep) {
			int used2 = 0;

			if (sscanf(s + used + 1, "%2d%n", &y, &used2) != 1 || s[used + 1 + used2])
				return -1;
		} else if (s[used]) {
			return -1;
		}
	} else {
		return -1;
	}
	localtime_r(&now, &tm);
	y = y < 0 ? tm.tm_year + 1900 : 2000 + y;
	if (!valid_date(y, mon, d))
		return -1;
	*out = make_local(y, mon, d, 0, 0, 0);
	return 0;
}

static const struct {
	const char *name;
	int h;
} named_times[] = { { "midnight", 0 }, { "noon", 12 }, { "elevenses", 11 },
		    { "fika", 15 },	   { "teatime", 16 } };

/* A time of day: a named one or HH:MM[:SS]. 0, or -1. */
static int clock_word(const char *w, int *h, int *m, int *sec)
{
	for (size_t i = 0; i < sizeof(named_times) / sizeof(named_times[0]); i++)
		if (!strcasecmp(w, named_times[i].name)) {
			*h = named_times[i].h;
			*m = *sec = 0;
			return 0;
		}
	return parse_clock(w, h, m, sec);
}

/* Slurm's "TIME DAY" and "DAY TIME" ("noon tomorrow", "noon-tomorrow",
 * "tomorrow-16:00"): the time on that day (today or tomorrow). 0, or -1. */
static int time_and_day(const char *s, time_t now, time_t *out)
{
	size_t n = strcspn(s, " -");
	char a[32], b[32];
	int h, m, sec, day;

	if (!s[n] || n >= sizeof(a) || strlen(s + n + 1) >= sizeof(b))
		return -1;
	snprintf(a, sizeof(a), "%.*s", (int)n, s);
	snprintf(b, sizeof(b), "%s", s + n + 1);
	for (int swap = 0; swap < 2; swap++) {
		const char *t = swap ? b : a, *d = swap ? a : b;

		day = !strcasecmp(d, "today") ? 0 : !strcasecmp(d, "tomorrow") ? 1 : -1;
		if (day >= 0 && clock_word(t, &h, &m, &sec) == 0) {
			*out = local_day(now, day, h, m, sec);
			return 0;
		}
	}
	return -1;
}

int spur_begin_parse(const char *s, time_t now, time_t *out, struct spur_error *err)
{
	int h, m, sec;

	if (!s || !*s)
		return spur_error_set(err, SPUR_EPARSE, "empty begin time");
	if (!strncasecmp(s, "now", 3)) {
		if (parse_now(s, now, out) == 0)
			return 0;
		return spur_error_set(err, SPUR_EPARSE,
				      "invalid begin time '%s' (expected now[+N[seconds|minutes|"
				      "hours|days|weeks]])",
				      s);
	}
	if (!strcasecmp(s, "today")) {
		*out = local_day(now, 0, 0, 0, 0);
		return 0;
	}
	if (!strcasecmp(s, "tomorrow")) {
		*out = local_day(now, 1, 0, 0, 0);
		return 0;
	}
	if (clock_word(s, &h, &m, &sec) == 0) {
		*out = next_clock(now, h, m, sec);
		return 0;
	}
	if (parse_iso(s, out) == 0 || parse_us_date(s, now, out) == 0 ||
	    time_and_day(s, now, out) == 0)
		return 0;
	return spur_error_set(err, SPUR_EPARSE,
			      "invalid begin time '%s' (expected now+N[units], today, tomorrow, "
			      "HH:MM[:SS], YYYY-MM-DD[THH:MM[:SS]] or MM/DD[/YY])",
			      s);
}
