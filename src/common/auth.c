/* SPDX-License-Identifier: Apache-2.0 */
/* The cluster key, HS256 tokens (libjwt) and identities. */
#include "auth.h"

#include "common/conf.h"

#include <errno.h>
#include <fcntl.h>
#include "jwtlib.h"
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

void spur_auth_key_path(const struct spur_conf *conf, char *buf, size_t len)
{
	const char *main_file = conf && conf->nfiles ? conf->files[0] : NULL;
	const char *slash;

	for (size_t i = 0; conf && i < conf->nextra; i++) {
		const char *v = conf->extra[i].value, *p;

		if (strcasecmp(conf->extra[i].key, "AuthAltParameters") || !v)
			continue;
		/* comma list of key=value; jwt_key=PATH is Slurm's */
		for (p = v; p && *p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL) {
			if (!strncmp(p, "jwt_key=", 8)) {
				size_t n = strcspn(p + 8, ",");

				snprintf(buf, len, "%.*s", (int)n, p + 8);
				return;
			}
		}
	}
	slash = main_file ? strrchr(main_file, '/') : NULL;
	if (slash)
		snprintf(buf, len, "%.*s/jwt_hs256.key", (int)(slash - main_file), main_file);
	else if (main_file)
		snprintf(buf, len, "jwt_hs256.key"); /* beside a slurm.conf named relatively */
	else
		snprintf(buf, len, "/etc/spur/jwt_hs256.key");
}

/* A new random key at path, or the one another process made first. */
static int key_create(const char *path, struct spur_error *err)
{
	unsigned char bytes[48];
	char tmp[4200];
	int fd;
	ssize_t w;

	if (getrandom(bytes, sizeof(bytes), 0) != (ssize_t)sizeof(bytes))
		return spur_error_set(err, SPUR_EIO, "getrandom: %s", strerror(errno));
	snprintf(tmp, sizeof(tmp), "%s.%ld.tmp", path, (long)getpid());
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0)
		return spur_error_set(err, SPUR_EIO, "cannot create the key %s: %s", tmp,
				      strerror(errno));
	w = write(fd, bytes, sizeof(bytes));
	if (w != (ssize_t)sizeof(bytes) || fsync(fd)) {
		close(fd);
		unlink(tmp);
		return spur_error_set(err, SPUR_EIO, "cannot write the key %s", tmp);
	}
	close(fd);
	/* link() fails if it exists: the first one wins */
	if (link(tmp, path) && errno != EEXIST) {
		int e = errno;

		unlink(tmp);
		return spur_error_set(err, SPUR_EIO, "cannot create the key %s: %s", path,
				      strerror(e));
	}
	unlink(tmp);
	return 0;
}

int spur_auth_key_load(const char *path, bool create, struct spur_auth_key *key,
		       struct spur_error *err)
{
	struct spur_auth_key k = { .len = 0 };
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	ssize_t n;
	int rc;

	if (fd < 0 && errno == ENOENT && create) {
		if ((rc = key_create(path, err)))
			return rc;
		fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	}
	if (fd < 0)
		return spur_error_set(err, errno == ENOENT ? SPUR_ENOENT : SPUR_EPERM,
				      "cannot read the cluster key %s: %s", path, strerror(errno));
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		close(fd);
		return spur_error_set(err, SPUR_EINVAL, "the cluster key %s is not a file", path);
	}
	if (st.st_mode & 077) {
		close(fd);
		return spur_error_set(err, SPUR_EPERM,
				      "the cluster key %s is readable by others (mode %03o; "
				      "chmod 600 it)",
				      path, (unsigned)(st.st_mode & 0777));
	}
	n = read(fd, k.bytes, sizeof(k.bytes));
	close(fd);
	if (n < SPUR_AUTH_KEY_MIN)
		return spur_error_set(err, SPUR_EINVAL,
				      "the cluster key %s is too short (%zd bytes, %d at least)",
				      path, n < 0 ? (ssize_t)0 : n, SPUR_AUTH_KEY_MIN);
	k.len = (size_t)n;
	*key = k;
	return 0;
}

static const char *const role_names[] = { "user", "agent", "controller" };

char *spur_token_sign(const struct spur_auth_key *key, const char *user, enum spur_auth_role role,
		      const char *node, int64_t now, int64_t lifespan, struct spur_error *err)
{
	const struct spur_jwt_api *j = spur_jwt(err);
	jwt_t *jwt = NULL;
	char *tok = NULL, *out = NULL;

	if (!j)
		return NULL;
	if (!user || !*user || strlen(user) >= sizeof(((struct spur_ident *)0)->user)) {
		spur_error_set(err, SPUR_EINVAL, "a token needs a user name");
		return NULL;
	}
	if (j->jwt_new(&jwt) || j->jwt_set_alg(jwt, JWT_ALG_HS256, key->bytes, (int)key->len) ||
	    j->jwt_add_grant(jwt, "sun", user) || j->jwt_add_grant_int(jwt, "iat", (long)now) ||
	    j->jwt_add_grant_int(jwt, "exp", (long)(now + lifespan)) ||
	    (role != SPUR_ROLE_USER && j->jwt_add_grant(jwt, "spur_role", role_names[role])) ||
	    (node && j->jwt_add_grant(jwt, "spur_node", node)) || !(tok = j->jwt_encode_str(jwt))) {
		spur_error_set(err, SPUR_ENOMEM, "cannot sign a token");
		goto free_jwt;
	}
	out = strdup(tok);
	if (!out)
		spur_error_set(err, SPUR_ENOMEM, "cannot sign a token");
	free(tok);
free_jwt:
	j->jwt_free(jwt);
	return out;
}

int spur_token_verify(const struct spur_auth_key *key, const char *token, int64_t now,
		      struct spur_ident *id, struct spur_error *err)
{
	struct spur_ident v = { .role = SPUR_ROLE_USER };
	const struct spur_jwt_api *j;
	jwt_t *jwt = NULL;
	const char *sun, *role, *node;
	long exp, iat;
	int rc = 0;

	if (!token || !*token || strlen(token) > 4096)
		return spur_error_set(err, SPUR_EPERM, "missing or oversized token");
	if (!(j = spur_jwt(err)))
		return err ? err->code : SPUR_EIO;
	if (j->jwt_decode(&jwt, token, key->bytes, (int)key->len) || !jwt)
		return spur_error_set(err, SPUR_EPERM, "invalid token (bad signature or form)");
	/* the key decides, never the token's header: HS256 only */
	if (j->jwt_get_alg(jwt) != JWT_ALG_HS256) {
		rc = spur_error_set(err, SPUR_EPERM, "invalid token (algorithm is not HS256)");
		goto free_jwt;
	}
	sun = j->jwt_get_grant(jwt, "sun");
	errno = 0;
	exp = j->jwt_get_grant_int(jwt, "exp");
	if (!sun || !*sun || strlen(sun) >= sizeof(v.user) || errno) {
		rc = spur_error_set(err, SPUR_EPERM, "invalid token (no sun or exp)");
		goto free_jwt;
	}
	errno = 0;
	iat = j->jwt_get_grant_int(jwt, "iat");
	if (!errno && iat > now + 60) {
		rc = spur_error_set(err, SPUR_EPERM, "invalid token (issued in the future)");
		goto free_jwt;
	}
	if (exp <= now) {
		rc = spur_error_set(err, SPUR_EPERM, "token expired");
		goto free_jwt;
	}
	role = j->jwt_get_grant(jwt, "spur_role");
	if (role && !strcmp(role, "agent"))
		v.role = SPUR_ROLE_AGENT;
	else if (role && !strcmp(role, "controller"))
		v.role = SPUR_ROLE_CONTROLLER;
	else if (role) {
		rc = spur_error_set(err, SPUR_EPERM, "invalid token (unknown role)");
		goto free_jwt;
	}
	node = j->jwt_get_grant(jwt, "spur_node");
	if (node)
		snprintf(v.node, sizeof(v.node), "%s", node);
	snprintf(v.user, sizeof(v.user), "%s", sun);
	v.exp = exp;
	*id = v;
free_jwt:
	j->jwt_free(jwt);
	return rc;
}

int spur_ident_by_name(struct spur_ident *id, struct spur_error *err)
{
	struct passwd pw, *res = NULL;
	char buf[4096];

	if (getpwnam_r(id->user, &pw, buf, sizeof(buf), &res) || !res)
		return spur_error_set(err, SPUR_ENOENT, "user %s is not known on this host",
				      id->user);
	id->uid = (uint32_t)pw.pw_uid;
	id->gid = (uint32_t)pw.pw_gid;
	return 0;
}

void spur_ident_by_uid(struct spur_ident *id, uint32_t uid, uint32_t gid)
{
	struct passwd pw, *res = NULL;
	char buf[4096];

	id->uid = uid;
	id->gid = gid;
	if (!getpwuid_r((uid_t)uid, &pw, buf, sizeof(buf), &res) && res)
		snprintf(id->user, sizeof(id->user), "%s", pw.pw_name);
	else
		snprintf(id->user, sizeof(id->user), "%u", uid);
}

void spur_ctld_socket_name(const char *host, unsigned port, char *buf, size_t cap, size_t *len)
{
	int n = snprintf(buf + 1, cap - 1, "spur/ctld/%s:%u", host, port);

	buf[0] = '\0';
	*len = 1 + (size_t)(n < 0 ? 0 : n >= (int)cap - 1 ? (int)cap - 2 : n);
}
