/* SPDX-License-Identifier: Apache-2.0 */
/* Spur-Cloud's web terminal: a WebSocket (RFC 6455) to a shell in a
 * session's job, started by srun inside the job (docs/cloud.md
 * "Terminal"). Binary frames carry the terminal's bytes both ways; a
 * text frame {"rows":R,"cols":C} resizes it. */
#ifndef SPUR_CLOUD_TERMINAL_H
#define SPUR_CLOUD_TERMINAL_H

#include <microhttpd.h>
#include <stdbool.h>
#include <stddef.h>

/* Bridge a WebSocket to fd (a connection to the session's SSH server):
 * binary frames carry its bytes both ways, as the terminal's carry the
 * PTY's, on a thread of its own; takes fd. */
void cloud_term_tunnel(long long job, int fd, const char *extra, size_t nextra,
		       MHD_socket sock, struct MHD_UpgradeResponseHandle *urh);

/* Run the terminal for job on an upgraded connection (MHD's upgrade
 * handler; extra: bytes MHD read past the request), on its own thread. */
void cloud_term_start(long long job, const char *extra, size_t nextra, MHD_socket sock,
		      struct MHD_UpgradeResponseHandle *urh);

/* All of buf sent on socket fd (non-blocking or not; 10 s at most
 * waiting for room): 0, or -1. */
int cloud_send_all(int fd, const void *buf, size_t n);

/* job's terminal (or a WebSocket through its port proxy) opened or
 * closed: it counts as used while one is open. */
void cloud_term_mark(long long job, bool open);

/* The jobs with a terminal open now, into jobs (at most max): how many. */
size_t cloud_term_open(long long *jobs, size_t max);

/* The bridge threads (terminals, SSH tunnels, proxied WebSockets) use the
 * HTTP daemon's upgraded connections: each is counted while it runs, and
 * the daemon stops only once they have ended (at most secs seconds; the
 * count still running is returned). */
void cloud_thread_begin(void);
void cloud_thread_end(void);
int cloud_threads_wait(int secs);

#endif
