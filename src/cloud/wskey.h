/* SPDX-License-Identifier: Apache-2.0 */
/* The WebSocket handshake's key check (RFC 6455 section 4.2.2), for the
 * service's upgrades and its SSH client's. */
#ifndef SPUR_CLOUD_WSKEY_H
#define SPUR_CLOUD_WSKEY_H

/* Sec-WebSocket-Accept for a client's Sec-WebSocket-Key (24 characters):
 * 0 with out set (28 characters and a NUL), or -1. */
int ws_accept_key(const char *key, char out[29]);

#endif
