/* SPDX-License-Identifier: Apache-2.0 */
/* srun's signals while its step runs: caught here (a flag each), acted on by
 * the relay loop (srun.c) as Slurm's srun does: SIGINT reports or, twice
 * within a second (or with --quit-on-interrupt), stops the step; SIGTERM,
 * SIGHUP and SIGQUIT end it; SIGUSR1/SIGUSR2 go to the tasks. */
#include "srunsig.h"

#include <signal.h>
#include <string.h>

static const int caught[] = { SIGINT, SIGQUIT, SIGCONT, SIGTERM, SIGHUP,
			      SIGALRM, SIGUSR1, SIGUSR2, SIGPIPE };
#define NCAUGHT (sizeof(caught) / sizeof(caught[0]))

/* got: counted by the handler only; seen: by srun_sig_take only (so two
 * quick SIGINTs are two) */
static volatile sig_atomic_t got[NCAUGHT];
static sig_atomic_t seen[NCAUGHT];

static void on_signal(int sig)
{
	for (size_t i = 0; i < NCAUGHT; i++)
		if (caught[i] == sig)
			got[i]++;
}

void srun_sig_install(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal; /* no SA_RESTART: poll() wakes up */
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < NCAUGHT; i++)
		sigaction(caught[i], &sa, NULL);
}

void srun_sig_restore(void)
{
	for (size_t i = 0; i < NCAUGHT; i++)
		signal(caught[i], SIG_DFL);
}

int srun_sig_take(void)
{
	for (size_t i = 0; i < NCAUGHT; i++)
		if (got[i] != seen[i]) {
			seen[i]++;
			return caught[i];
		}
	return 0;
}
