/* SPDX-License-Identifier: Apache-2.0 */
/* The port proxy's WebSockets (docs/cloud.md "Port proxy"): a client's
 * upgrade request is made again to the session's port (its handshake
 * answered there, as Jupyter's kernel channels need), then the bytes of
 * both connections are passed on unchanged, one thread a connection. */
#ifndef SPUR_CLOUD_WSPROXY_H
#define SPUR_CLOUD_WSPROXY_H

#include "cloud/api.h"

#include <microhttpd.h>
#include <stddef.h>

/* The upgrade of rq to ws://addr:port/target (target: the path and query,
 * encoded), with Authorization: token SECRET when secret is not "": on
 * 101, rs->status 101 with rs->upstream_fd the connection, rs->body the
 * bytes that came after the answer's head (rs->len), and rs->ws_protocol
 * the protocol it chose (NULL: none); else rs is an error (502, or the
 * port's own status when it refused the upgrade). */
void cloud_wsp_connect(const struct cloud_req *rq, const char *addr, unsigned port,
		       const char *target, const char *secret, struct cloud_resp *rs);

/* A blocking connection to addr:port (10 s to make it): its descriptor,
 * or -1 with why. */
int cloud_wsp_dial(const char *addr, unsigned port, char *why, size_t wlen);

/* Pass bytes between the client's upgraded connection (sock; extra: what
 * MHD read past its request) and upstream (up_extra: what came after the
 * upstream's answer), on a thread of its own, until one side closes; job
 * counts as used meanwhile (the idle stop). Takes upstream and up_extra. */
void cloud_wsp_start(int upstream, char *up_extra, size_t up_n, const char *extra,
		     size_t nextra, MHD_socket sock, struct MHD_UpgradeResponseHandle *urh,
		     long long job);

#endif
