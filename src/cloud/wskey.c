/* SPDX-License-Identifier: Apache-2.0 */
/* The WebSocket handshake's key check (wskey.h): SHA-1 (OpenSSL), base64
 * (libsodium). */
#include "cloud/wskey.h"

#include <openssl/evp.h>
#include <sodium.h>
#include <stdio.h>
#include <string.h>

int ws_accept_key(const char *key, char out[29])
{
	static const char guid[] = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11";
	unsigned char md[EVP_MAX_MD_SIZE];
	char buf[128];
	unsigned n = 0;

	if (!key || strlen(key) != 24)
		return -1;
	snprintf(buf, sizeof(buf), "%s%s", key, guid);
	if (!EVP_Digest(buf, strlen(buf), md, &n, EVP_sha1(), NULL) || n != 20)
		return -1;
	sodium_bin2base64(out, 29, md, 20, sodium_base64_VARIANT_ORIGINAL);
	return 0;
}
