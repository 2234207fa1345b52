/* SPDX-License-Identifier: Apache-2.0 */
/* OpenID Connect sign-in (docs/cloud.md "OpenID Connect"), the
 * authorization code flow: /v1/oidc/login sends the browser to the
 * provider with a state and a nonce kept in the database (single use, ten
 * minutes); /v1/oidc/callback trades the code at the provider's token
 * endpoint (libcurl, client_secret_basic), checks the ID token (RS256 only,
 * by the key of the provider's JWKS that its kid names; issuer, audience,
 * expiry, nonce, a verified email) and signs the user in: a login token,
 * handed to the console in the URL's fragment. A user is found by email,
 * or made (in no organisation; never an administrator). */
#include "cloud/api_int.h"
#include "cloud/oidc.h"
#include "common/log.h"

#include <curl/curl.h>
#include <jwt.h>
#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/param_build.h>
#include <openssl/pem.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* A string member of o, "" when absent. */
static const char *str(const json_t *o, const char *k)
{
	const char *v = json_string_value(json_object_get(o, k));

	return v ? v : "";
}

struct body {
	char *buf;
	size_t len;
};

static size_t on_body(char *p, size_t size, size_t n, void *arg)
{
	struct body *b = arg;
	size_t add = size * n;
	char *nb;

	if (b->len + add > 1024 * 1024 || !(nb = realloc(b->buf, b->len + add + 1)))
		return 0;
	b->buf = nb;
	memcpy(b->buf + b->len, p, add);
	b->len += add;
	b->buf[b->len] = '\0';
	return add;
}

/* GET url (form: POST it, with the client's basic credentials): the JSON
 * answer, or NULL with why. */
static json_t *fetch(const struct cloud_oidc *o, const char *url, const char *form, char *why,
		     size_t wlen)
{
	CURL *c = curl_easy_init();
	struct body b = { 0 };
	long status = 0;
	json_t *j = NULL;

	if (!c)
		return snprintf(why, wlen, "no memory"), NULL;
	curl_easy_setopt(c, CURLOPT_URL, url);
	curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "https,http");
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(c, CURLOPT_TIMEOUT, 15L);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, &b);
	if (form) {
		curl_easy_setopt(c, CURLOPT_POSTFIELDS, form);
		curl_easy_setopt(c, CURLOPT_HTTPAUTH, CURLAUTH_BASIC);
		curl_easy_setopt(c, CURLOPT_USERNAME, o->client_id);
		curl_easy_setopt(c, CURLOPT_PASSWORD, o->client_secret);
	}
	if (curl_easy_perform(c) != CURLE_OK)
		snprintf(why, wlen, "the provider (%s) cannot be reached", url);
	else if (curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status), status != 200)
		snprintf(why, wlen, "the provider answered %ld at %s", status, url);
	else if (!(j = json_loads(b.buf ? b.buf : "", 0, NULL)) || !json_is_object(j))
		snprintf(why, wlen, "the provider's answer at %s is not a JSON object", url);
	if (j && !json_is_object(j)) {
		json_decref(j);
		j = NULL;
	}
	free(b.buf);
	curl_easy_cleanup(c);
	return j;
}

/* The issuer's discovery document: NULL with why. */
static json_t *discover(const struct cloud_oidc *o, char *why, size_t wlen)
{
	char url[1200];

	snprintf(url, sizeof(url), "%s%s.well-known/openid-configuration", o->issuer,
		 o->issuer[strlen(o->issuer) - 1] == '/' ? "" : "/");
	return fetch(o, url, NULL, why, wlen);
}

static unsigned char *b64url(const char *s, size_t *n)
{
	size_t cap = strlen(s) + 4;
	unsigned char *out = malloc(cap);

	if (out && sodium_base642bin(out, cap, s, strlen(s), NULL, n, NULL,
				     sodium_base64_VARIANT_URLSAFE_NO_PADDING)) {
		free(out);
		out = NULL;
	}
	return out;
}

/* An RSA JWK (n, e) as a PEM public key (malloc'd), or NULL. */
static char *jwk_pem(const json_t *k)
{
	size_t nn = 0, en = 0;
	unsigned char *n = b64url(str(k, "n"), &nn), *e = b64url(str(k, "e"), &en);
	OSSL_PARAM_BLD *bld = OSSL_PARAM_BLD_new();
	BIGNUM *bn = n ? BN_bin2bn(n, (int)nn, NULL) : NULL, *be = e ? BN_bin2bn(e, (int)en, NULL) : NULL;
	OSSL_PARAM *params = NULL;
	EVP_PKEY_CTX *ctx = EVP_PKEY_CTX_new_from_name(NULL, "RSA", NULL);
	EVP_PKEY *key = NULL;
	BIO *bio = NULL;
	char *pem = NULL, *data;
	long len;

	if (!bld || !bn || !be || !ctx || !OSSL_PARAM_BLD_push_BN(bld, OSSL_PKEY_PARAM_RSA_N, bn) ||
	    !OSSL_PARAM_BLD_push_BN(bld, OSSL_PKEY_PARAM_RSA_E, be) ||
	    !(params = OSSL_PARAM_BLD_to_param(bld)) || EVP_PKEY_fromdata_init(ctx) <= 0 ||
	    EVP_PKEY_fromdata(ctx, &key, EVP_PKEY_PUBLIC_KEY, params) <= 0 ||
	    !(bio = BIO_new(BIO_s_mem())) || !PEM_write_bio_PUBKEY(bio, key))
		goto out;
	len = BIO_get_mem_data(bio, &data);
	if (len > 0 && (pem = malloc((size_t)len + 1))) {
		memcpy(pem, data, (size_t)len);
		pem[len] = '\0';
	}
out:
	BIO_free(bio);
	EVP_PKEY_free(key);
	EVP_PKEY_CTX_free(ctx);
	OSSL_PARAM_free(params);
	OSSL_PARAM_BLD_free(bld);
	BN_free(bn);
	BN_free(be);
	free(n);
	free(e);
	return pem;
}

/* A JWT's header (its first part) as JSON, or NULL. */
static json_t *header_of(const char *jwt)
{
	size_t n = strcspn(jwt, "."), len = 0;
	char *part = strndup(jwt, n);
	unsigned char *raw = part && n < 4096 ? b64url(part, &len) : NULL;
	json_t *h = raw ? json_loadb((const char *)raw, len, 0, NULL) : NULL;

	free(part);
	free(raw);
	if (h && !json_is_object(h)) {
		json_decref(h);
		h = NULL;
	}
	return h;
}

/* The ID token verified: its email (malloc'd), or NULL with why. */
static char *verify(const struct cloud_oidc *o, const json_t *disc, const char *idt,
		    const char *nonce, char *why, size_t wlen)
{
	jwt_t *ok = NULL;
	json_t *jwks = NULL, *claims = NULL, *head = NULL;
	const json_t *k, *aud;
	const char *kid;
	char *pem = NULL, *out = NULL, *grants;
	size_t i;

	/* the algorithm first, from the header read here: RS256 alone (never
	 * none, never an HMAC keyed with the public key) */
	if (!(head = header_of(idt)) || strcmp(str(head, "alg"), "RS256")) {
		snprintf(why, wlen, "the ID token is not an RS256 JWT");
		goto out;
	}
	kid = json_is_string(json_object_get(head, "kid")) ? str(head, "kid") : NULL;
	if (!(jwks = fetch(o, str(disc, "jwks_uri"), NULL, why, wlen)))
		goto out;
	json_array_foreach(json_object_get(jwks, "keys"), i, k)
		if (!strcmp(str(k, "kty"), "RSA") && (!kid || !strcmp(str(k, "kid"), kid)) &&
		    (pem = jwk_pem(k)))
			break;
	if (!pem || jwt_decode(&ok, idt, (const unsigned char *)pem, (int)strlen(pem))) {
		snprintf(why, wlen, "the ID token's signature is not the provider's");
		goto out;
	}
	grants = jwt_get_grants_json(ok, NULL);
	claims = grants ? json_loads(grants, 0, NULL) : NULL;
	free(grants);
	aud = json_object_get(claims, "aud");
	if (strcmp(str(claims, "iss"), o->issuer) ||
	    !(json_is_string(aud) ? !strcmp(json_string_value(aud), o->client_id)
				   : json_is_array(aud) && json_array_size(aud) == 1 &&
					     json_is_string(json_array_get(aud, 0)) &&
					     !strcmp(json_string_value(json_array_get(aud, 0)),
						     o->client_id)) ||
	    json_integer_value(json_object_get(claims, "exp")) <= (json_int_t)time(NULL) ||
	    strcmp(str(claims, "nonce"), nonce) ||
	    !json_is_string(json_object_get(claims, "email")) ||
	    json_is_false(json_object_get(claims, "email_verified"))) {
		snprintf(why, wlen, "the ID token's issuer, audience, expiry, nonce or email is not "
				    "right");
		goto out;
	}
	out = strdup(str(claims, "email"));
out:
	json_decref(head);
	jwt_free(ok);
	json_decref(jwks);
	json_decref(claims);
	free(pem);
	return out;
}

char *cloud_oidc_auth_url(const struct cloud_oidc *o, const char *state, const char *nonce,
			  char *why, size_t wlen)
{
	json_t *d = discover(o, why, wlen);
	char cid[600], redir[3200], *url = NULL;
	size_t n;

	if (!d)
		return NULL;
	if (strncmp(str(d, "authorization_endpoint"), "http", 4)) {
		snprintf(why, wlen, "the provider's discovery document has no authorization_endpoint");
	} else {
		cloud_url_encode(o->client_id, true, cid, sizeof(cid));
		cloud_url_encode(o->redirect_uri, true, redir, sizeof(redir));
		n = strlen(str(d, "authorization_endpoint")) + strlen(cid) + strlen(redir) + 256;
		if ((url = malloc(n)))
			snprintf(url, n,
				 "%s%sresponse_type=code&scope=openid%%20email&client_id=%s&"
				 "redirect_uri=%s&state=%s&nonce=%s",
				 str(d, "authorization_endpoint"),
				 strchr(str(d, "authorization_endpoint"), '?') ? "&" : "?", cid, redir,
				 state, nonce);
	}
	json_decref(d);
	return url;
}

char *cloud_oidc_email(const struct cloud_oidc *o, const char *code, const char *nonce,
		       char *why, size_t wlen)
{
	json_t *d = discover(o, why, wlen), *tok = NULL;
	char ecode[1600], redir[3200], form[5000], *email = NULL;

	if (!d)
		return NULL;
	cloud_url_encode(code, true, ecode, sizeof(ecode));
	cloud_url_encode(o->redirect_uri, true, redir, sizeof(redir));
	snprintf(form, sizeof(form), "grant_type=authorization_code&code=%s&redirect_uri=%s", ecode,
		 redir);
	if (!(tok = fetch(o, str(d, "token_endpoint"), form, why, wlen)))
		goto out;
	if (!*str(tok, "id_token")) {
		snprintf(why, wlen, "the provider's token answer has no id_token");
		goto out;
	}
	email = verify(o, d, str(tok, "id_token"), nonce, why, wlen);
out:
	json_decref(d);
	json_decref(tok);
	return email;
}
