/* SPDX-License-Identifier: Apache-2.0 */
/* The image store (image.h): libarchive unpacks tars and their layers,
 * OpenSSL's libcrypto names them by sha256, squashfs-tools' unsquashfs
 * unpacks squashfs files. */
#define _GNU_SOURCE
#include "container/image.h"

#include <archive.h>
#include <archive_entry.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <grp.h>
#include <jansson.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/fsuid.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define IMG_PATH 4096

/* Open path (relative to dirfd) with the user's file-system identity, so
 * what the user may not read the store does not read for them. */
static int open_user(int dirfd, const char *path, int flags, const struct spur_image_user *who)
{
	int fd, e;

	if (!who || !who->uid || geteuid())
		return openat(dirfd, path, flags | O_CLOEXEC);
	if (setgroups((size_t)who->ngroups, who->groups))
		return -1;
	setfsgid(who->gid);
	setfsuid(who->uid);
	fd = openat(dirfd, path, flags | O_CLOEXEC);
	e = errno;
	setfsuid(0);
	setfsgid(0);
	setgroups(0, NULL);
	errno = e;
	return fd;
}

static void hex(const unsigned char *d, unsigned n, char *out)
{
	for (unsigned i = 0; i < n; i++)
		sprintf(out + 2 * i, "%02x", d[i]);
}

/* sha256 of what fd holds from its start, as 64 hex digits. */
static int sha256_fd(int fd, char out[65])
{
	EVP_MD_CTX *ctx = EVP_MD_CTX_new();
	unsigned char buf[65536], md[EVP_MAX_MD_SIZE];
	unsigned n = 0;
	ssize_t r;
	int rc = -1;

	if (!ctx || !EVP_DigestInit_ex(ctx, EVP_sha256(), NULL))
		goto out;
	if (lseek(fd, 0, SEEK_SET) < 0)
		goto out;
	while ((r = read(fd, buf, sizeof(buf))) > 0)
		if (!EVP_DigestUpdate(ctx, buf, (size_t)r))
			goto out;
	if (r < 0 || !EVP_DigestFinal_ex(ctx, md, &n) || lseek(fd, 0, SEEK_SET) < 0)
		goto out;
	hex(md, n, out);
	rc = 0;
out:
	EVP_MD_CTX_free(ctx);
	return rc;
}

static int rm_one(const char *p, const struct stat *st, int flag, struct FTW *f)
{
	(void)st;
	(void)f;
	return flag == FTW_DP ? rmdir(p) : unlink(p);
}

static void rm_rf(const char *path)
{
	nftw(path, rm_one, 32, FTW_DEPTH | FTW_PHYS);
}

static int mkdir_p(const char *path, mode_t mode)
{
	char p[IMG_PATH];

	snprintf(p, sizeof(p), "%s", path);
	for (char *s = p + 1; *s; s++)
		if (*s == '/') {
			*s = '\0';
			if (mkdir(p, mode) && errno != EEXIST)
				return -1;
			*s = '/';
		}
	return mkdir(p, mode) && errno != EEXIST ? -1 : 0;
}

/* An entry's path made relative ("./a/b", "/a/b" -> "a/b"). */
static const char *rel(const char *p)
{
	while (*p == '/' || (p[0] == '.' && p[1] == '/'))
		p += *p == '/' ? 1 : 2;
	return p;
}

/* The whiteouts of a layer (OCI image spec): ".wh.NAME" removes NAME of
 * the layers below, ".wh..wh..opq" empties its folder. */
static void whiteouts(struct archive *ar)
{
	struct archive_entry *e;
	char path[IMG_PATH];

	while (archive_read_next_header(ar, &e) == ARCHIVE_OK) {
		const char *p = rel(archive_entry_pathname(e)), *base = strrchr(p, '/');
		size_t dlen = base ? (size_t)(base - p) : 0;

		base = base ? base + 1 : p;
		if (strncmp(base, ".wh.", 4) || strstr(p, ".."))
			continue;
		if (!strcmp(base, ".wh..wh..opq")) {
			DIR *d;
			struct dirent *de;

			snprintf(path, sizeof(path), "/%.*s", (int)dlen, p);
			if (!(d = opendir(path)))
				continue;
			while ((de = readdir(d)))
				if (strcmp(de->d_name, ".") && strcmp(de->d_name, "..")) {
					char c[IMG_PATH + 256];

					snprintf(c, sizeof(c), "%s/%s", path, de->d_name);
					rm_rf(c);
				}
			closedir(d);
		} else {
			snprintf(path, sizeof(path), "/%.*s%s%s", (int)dlen, p, dlen ? "/" : "",
				 base + 4);
			rm_rf(path);
		}
	}
}

/* In the extracting child: fd's archive into the current root. */
static int extract_here(int fd, int layer, int secure)
{
	struct archive *ar = archive_read_new(), *w = archive_write_disk_new();
	struct archive_entry *e;
	int r, flags = ARCHIVE_EXTRACT_TIME | ARCHIVE_EXTRACT_PERM | ARCHIVE_EXTRACT_OWNER |
		       ARCHIVE_EXTRACT_SECURE_NODOTDOT | ARCHIVE_EXTRACT_SECURE_NOABSOLUTEPATHS |
		       ARCHIVE_EXTRACT_UNLINK | secure;

	archive_read_support_filter_all(ar);
	archive_read_support_format_all(ar);
	if (layer) {
		if (archive_read_open_fd(ar, fd, 65536) != ARCHIVE_OK)
			goto bad;
		whiteouts(ar);
		archive_read_free(ar);
		if (lseek(fd, 0, SEEK_SET) < 0)
			return 3;
		ar = archive_read_new();
		archive_read_support_filter_all(ar);
		archive_read_support_format_all(ar);
	}
	if (archive_read_open_fd(ar, fd, 65536) != ARCHIVE_OK)
		goto bad;
	archive_write_disk_set_options(w, flags);
	while ((r = archive_read_next_header(ar, &e)) == ARCHIVE_OK) {
		const char *p = rel(archive_entry_pathname(e)), *base = strrchr(p, '/');
		const char *hl = archive_entry_hardlink(e);

		base = base ? base + 1 : p;
		if (!*p || (layer && !strncmp(base, ".wh.", 4)))
			continue;
		archive_entry_set_pathname(e, p);
		if (hl)
			archive_entry_set_hardlink(e, rel(hl));
		if (archive_write_header(w, e) < ARCHIVE_WARN)
			goto bad;
		if (archive_entry_size(e) > 0) {
			const void *buf;
			size_t len;
			la_int64_t off;

			while ((r = archive_read_data_block(ar, &buf, &len, &off)) == ARCHIVE_OK)
				if (archive_write_data_block(w, buf, len, off) < ARCHIVE_WARN)
					goto bad;
			if (r != ARCHIVE_EOF)
				goto bad;
		}
		if (archive_write_finish_entry(w) < ARCHIVE_WARN)
			goto bad;
	}
	if (r != ARCHIVE_EOF)
		goto bad;
	archive_read_free(ar);
	archive_write_free(w);
	return 0;
bad:
	fprintf(stderr, "%s\n", archive_error_string(archive_errno(w) ? w : ar)
					? archive_error_string(archive_errno(w) ? w : ar)
					: "not an archive");
	archive_read_free(ar);
	archive_write_free(w);
	return 2;
}

/* Extract fd's tar (a layer: whiteouts applied) into dest, in a child
 * chrooted there where it may (root), so no link in the archive leads out. */
static int extract(int fd, const char *dest, int layer, struct spur_error *err, const char *what)
{
	int pfd[2], st = 0;
	char msg[512] = "";
	ssize_t n;
	pid_t pid;

	if (pipe2(pfd, O_CLOEXEC))
		return spur_error_set(err, SPUR_EIO, "%s: pipe: %s", what, strerror(errno));
	pid = fork();
	if (pid < 0) {
		close(pfd[0]);
		close(pfd[1]);
		return spur_error_set(err, SPUR_EIO, "%s: fork: %s", what, strerror(errno));
	}
	if (!pid) {
		int secure = 0;

		dup2(pfd[1], 2);
		if (chdir(dest))
			_exit(3);
		if (geteuid() || chroot(".") || chdir("/"))
			secure = ARCHIVE_EXTRACT_SECURE_SYMLINKS; /* no chroot: refuse links */
		umask(022);
		_exit(extract_here(fd, layer, secure));
	}
	close(pfd[1]);
	n = read(pfd[0], msg, sizeof(msg) - 1);
	msg[n > 0 ? n : 0] = '\0';
	msg[strcspn(msg, "\n")] = '\0';
	close(pfd[0]);
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	if (WIFEXITED(st) && !WEXITSTATUS(st))
		return 0;
	return spur_error_set(err, SPUR_EPARSE, "%s: cannot unpack: %s", what,
			      *msg ? msg : "the unpacker failed");
}

static json_t *load_json_at(int dirfd, const char *path, const struct spur_image_user *who,
			    const char *what, struct spur_error *err)
{
	int fd = open_user(dirfd, path, O_RDONLY, who);
	json_error_t je;
	json_t *j;
	FILE *f;

	if (fd < 0) {
		spur_error_set(err, SPUR_EPARSE, "%s: %s: %s", what, path, strerror(errno));
		return NULL;
	}
	f = fdopen(fd, "r");
	j = f ? json_loadf(f, 0, &je) : NULL;
	if (f)
		fclose(f);
	else
		close(fd);
	if (!j)
		spur_error_set(err, SPUR_EPARSE, "%s: %s: %s", what, path, je.text);
	return j;
}

/* A path named in an image's manifest: inside its folder, or NULL. */
static const char *inside(const char *p)
{
	if (!p || !*p || *p == '/' || strstr(p, ".."))
		return NULL;
	return p;
}

/* "sha256:HEX" -> "blobs/sha256/HEX" */
static int blob_path(const json_t *desc, char *out, size_t len)
{
	const char *d = json_string_value(json_object_get(desc, "digest"));

	if (!d || strncmp(d, "sha256:", 7) || strspn(d + 7, "0123456789abcdef") != 64 || d[71])
		return -1;
	snprintf(out, len, "blobs/sha256/%s", d + 7);
	return 0;
}

/* Apply one layer file (relative to dirfd) onto rootfs. */
static int apply_layer(int dirfd, const char *path, const char *rootfs,
		       const struct spur_image_user *who, const char *what, struct spur_error *err)
{
	int fd = path && inside(path) ? open_user(dirfd, path, O_RDONLY, who) : -1, rc;

	if (fd < 0)
		return spur_error_set(err, SPUR_EPARSE, "%s: layer %s: %s", what,
				      path ? path : "(none)", path ? strerror(errno) : "no path");
	rc = extract(fd, rootfs, 1, err, what);
	close(fd);
	return rc;
}

/* An OCI image layout in dirfd: its layers onto rootfs, its config out. */
static int from_oci_layout(int dirfd, const char *rootfs, const struct spur_image_user *who,
			   const char *what, json_t **config, struct spur_error *err)
{
	json_t *idx = load_json_at(dirfd, "index.json", who, what, err), *man = NULL, *cfg;
	const json_t *desc, *layers, *l;
	char p[256];
	size_t i;
	int rc = SPUR_EPARSE;

	if (!idx)
		return err->code;
	desc = json_array_get(json_object_get(idx, "manifests"), 0);
	for (int depth = 0; depth < 2; depth++) {
		if (!desc || blob_path(desc, p, sizeof(p))) {
			spur_error_set(err, rc, "%s: index.json: no manifest (manifests[0].digest)",
				       what);
			goto out;
		}
		json_decref(man);
		if (!(man = load_json_at(dirfd, p, who, what, err)))
			goto out;
		if (!json_object_get(man, "manifests"))
			break;
		desc = json_array_get(json_object_get(man, "manifests"), 0); /* a nested index */
	}
	layers = json_object_get(man, "layers");
	if (!json_is_array(layers)) {
		spur_error_set(err, rc, "%s: manifest %s: no \"layers\"", what, p);
		goto out;
	}
	if (!blob_path(json_object_get(man, "config"), p, sizeof(p)) &&
	    (cfg = load_json_at(dirfd, p, who, what, err))) {
		*config = json_incref(json_object_get(cfg, "config"));
		json_decref(cfg);
	}
	json_array_foreach(layers, i, l) {
		if (blob_path(l, p, sizeof(p))) {
			spur_error_set(err, rc, "%s: manifest: layer %zu has no sha256 digest", what, i);
			goto out;
		}
		if ((rc = apply_layer(dirfd, p, rootfs, who, what, err)))
			goto out;
	}
	rc = 0;
out:
	json_decref(idx);
	json_decref(man);
	return rc;
}

/* A `docker save` folder in dirfd (manifest.json): layers onto rootfs. */
static int from_docker(int dirfd, const char *rootfs, const char *what, json_t **config,
		       struct spur_error *err)
{
	json_t *man = load_json_at(dirfd, "manifest.json", NULL, what, err), *cfg;
	const json_t *m, *l;
	size_t i;
	int rc = SPUR_EPARSE;

	if (!man)
		return err->code;
	m = json_array_get(man, 0);
	if (!json_is_array(json_object_get(m, "Layers"))) {
		spur_error_set(err, rc, "%s: manifest.json: no \"Layers\"", what);
		goto out;
	}
	if (inside(json_string_value(json_object_get(m, "Config"))) &&
	    (cfg = load_json_at(dirfd, json_string_value(json_object_get(m, "Config")), NULL, what,
				err))) {
		*config = json_incref(json_object_get(cfg, "config"));
		json_decref(cfg);
	}
	json_array_foreach(json_object_get(m, "Layers"), i, l)
		if ((rc = apply_layer(dirfd, json_string_value(l), rootfs, NULL, what, err)))
			goto out;
	rc = 0;
out:
	json_decref(man);
	return rc;
}

static int unsquash(int fd, const char *rootfs, const char *what, struct spur_error *err)
{
	char src[64];
	int st = 0;
	pid_t pid;

	snprintf(src, sizeof(src), "/proc/self/fd/%d", fd);
	if (rmdir(rootfs) && errno != ENOENT)
		return spur_error_set(err, SPUR_EIO, "%s: %s: %s", what, rootfs, strerror(errno));
	pid = fork();
	if (pid < 0)
		return spur_error_set(err, SPUR_EIO, "%s: fork: %s", what, strerror(errno));
	if (!pid) {
		int null = open("/dev/null", O_WRONLY);

		fcntl(fd, F_SETFD, 0);
		dup2(null, 1);
		execlp("unsquashfs", "unsquashfs", "-no-progress", "-no-xattrs", "-d", rootfs, src,
		       (char *)NULL);
		fprintf(stderr, "unsquashfs: %s\n", strerror(errno));
		_exit(127);
	}
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	if (WIFEXITED(st) && WEXITSTATUS(st) == 127)
		return spur_error_set(err, SPUR_EUNSUPP,
				      "%s: a squashfs image needs unsquashfs (squashfs-tools)", what);
	if (!WIFEXITED(st) || WEXITSTATUS(st))
		return spur_error_set(err, SPUR_EPARSE, "%s: unsquashfs failed (a corrupt image?)",
				      what);
	return 0;
}

/* Unpack the image in fd (a file or a folder) into tmp/rootfs and
 * tmp/config.json. */
static int unpack(int fd, const char *tmp, const struct spur_image_user *who, const char *what,
		  struct spur_error *err)
{
	char rootfs[IMG_PATH], arc[IMG_PATH], magic[264] = "";
	struct stat st;
	json_t *config = NULL;
	int rc, dfd = -1;

	snprintf(rootfs, sizeof(rootfs), "%s/rootfs", tmp);
	snprintf(arc, sizeof(arc), "%s/archive", tmp);
	if (mkdir(rootfs, 0755) || fstat(fd, &st))
		return spur_error_set(err, SPUR_EIO, "%s: %s", tmp, strerror(errno));
	if (S_ISDIR(st.st_mode)) {
		rc = from_oci_layout(fd, rootfs, who, what, &config, err);
		goto done;
	}
	if (pread(fd, magic, sizeof(magic), 0) >= 4 && !memcmp(magic, "hsqs", 4)) {
		rc = unsquash(fd, rootfs, what, err);
		goto done;
	}
	/* a tar (maybe compressed): a docker save or an OCI layout */
	if (mkdir(arc, 0700))
		return spur_error_set(err, SPUR_EIO, "%s: %s", arc, strerror(errno));
	if ((rc = extract(fd, arc, 0, err, what)))
		goto done;
	if ((dfd = open(arc, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0) {
		rc = spur_error_set(err, SPUR_EIO, "%s: %s", arc, strerror(errno));
		goto done;
	}
	if (!faccessat(dfd, "manifest.json", F_OK, 0))
		rc = from_docker(dfd, rootfs, what, &config, err);
	else if (!faccessat(dfd, "index.json", F_OK, 0))
		rc = from_oci_layout(dfd, rootfs, NULL, what, &config, err);
	else
		rc = spur_error_set(err, SPUR_EPARSE,
				    "%s: not an image (no manifest.json or index.json in the tar)",
				    what);
	close(dfd);
	rm_rf(arc);
done:
	if (!rc) {
		char cp[IMG_PATH];

		snprintf(cp, sizeof(cp), "%s/config.json", tmp);
		if (json_dump_file(config ? config : json_object(), cp, 0))
			rc = spur_error_set(err, SPUR_EIO, "%s: cannot write", cp);
	}
	json_decref(config);
	return rc;
}

/* The digest naming fd's image: the file's sha256, or a folder's
 * index.json's (which names its content by digest). */
static int image_digest(int fd, const struct spur_image_user *who, char out[65])
{
	struct stat st;
	int ifd, rc;

	if (fstat(fd, &st))
		return -1;
	if (!S_ISDIR(st.st_mode))
		return sha256_fd(fd, out);
	if ((ifd = open_user(fd, "index.json", O_RDONLY, who)) < 0)
		return -1;
	rc = sha256_fd(ifd, out);
	close(ifd);
	return rc;
}

static int store_dirs(const char *store, struct spur_error *err)
{
	char p[IMG_PATH];
	const char *sub[] = { "images", "names", "locks" };

	for (size_t i = 0; i < 3; i++) {
		snprintf(p, sizeof(p), "%s/%s", store, sub[i]);
		if (mkdir_p(p, 0755))
			return spur_error_set(err, SPUR_EIO, "image store %s: %s", p,
					      strerror(errno));
	}
	return 0;
}

/* Unpack fd's image into the store once (under its lock); its digest out. */
static int store_put(const char *store, int fd, const struct spur_image_user *who,
		     const char *what, char digest[65], struct spur_error *err)
{
	char lock[IMG_PATH], fin[IMG_PATH], tmp[IMG_PATH];
	int lfd, rc = 0;

	if ((rc = store_dirs(store, err)))
		return rc;
	if (image_digest(fd, who, digest))
		return spur_error_set(err, SPUR_EPARSE, "%s: cannot read the image: %s", what,
				      strerror(errno));
	snprintf(lock, sizeof(lock), "%s/locks/%s", store, digest);
	snprintf(fin, sizeof(fin), "%s/images/%s", store, digest);
	snprintf(tmp, sizeof(tmp), "%s/images/.tmp-%s-%d", store, digest, (int)getpid());
	if ((lfd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC, 0600)) < 0 || flock(lfd, LOCK_EX)) {
		rc = spur_error_set(err, SPUR_EIO, "%s: %s", lock, strerror(errno));
		goto out;
	}
	if (!access(fin, F_OK))
		goto out; /* unpacked already, maybe by a job beside this one */
	rm_rf(tmp);
	if (mkdir(tmp, 0755)) {
		rc = spur_error_set(err, SPUR_EIO, "%s: %s", tmp, strerror(errno));
		goto out;
	}
	if ((rc = unpack(fd, tmp, who, what, err)) || rename(tmp, fin)) {
		if (!rc)
			rc = spur_error_set(err, SPUR_EIO, "%s: %s", fin, strerror(errno));
		rm_rf(tmp);
	}
out:
	if (lfd >= 0)
		close(lfd);
	return rc;
}

static int name_ok(const char *n)
{
	return n && *n && *n != '.' && strlen(n) < 200 &&
	       strspn(n, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._:+-@") ==
		       strlen(n);
}

int spur_image_get(const char *store, const char *ref, const struct spur_image_user *who,
		   char *dir, size_t len, struct spur_error *err)
{
	char digest[65], p[IMG_PATH], link[IMG_PATH];
	ssize_t n;
	int fd, rc;

	if (!ref || !*ref)
		return spur_error_set(err, SPUR_EINVAL, "no container image named");
	if (*ref != '/') {
		/* a name imported into this node's store */
		snprintf(p, sizeof(p), "%s/names/%s", store, ref);
		if (!name_ok(ref) || (n = readlink(p, link, sizeof(link) - 1)) < 0)
			return spur_error_set(err, SPUR_ENOENT,
					      "container image '%s': not a path, and not in this "
					      "node's image store (spur image import)",
					      ref);
		link[n] = '\0';
		snprintf(dir, len, "%s/names/%s", store, link);
		return access(dir, F_OK) ? spur_error_set(err, SPUR_ENOENT,
							  "container image '%s': %s is gone", ref,
							  dir)
					 : 0;
	}
	fd = open_user(AT_FDCWD, ref, O_RDONLY, who);
	if (fd < 0)
		return spur_error_set(err, errno == ENOENT ? SPUR_ENOENT : SPUR_EPERM,
				      "container image %s: %s", ref, strerror(errno));
	rc = store_put(store, fd, who, ref, digest, err);
	close(fd);
	if (!rc)
		snprintf(dir, len, "%s/images/%s", store, digest);
	return rc;
}

int spur_image_import(const char *store, const char *path, const char *name, char *digest,
		      struct spur_error *err)
{
	char nm[256], ln[IMG_PATH], tgt[128], tmp[IMG_PATH + 16];
	const char *base = strrchr(path, '/');
	int fd, rc;

	if (!name) {
		snprintf(nm, sizeof(nm), "%s", base && base[1] ? base + 1 : path);
		for (char *dot = strrchr(nm, '.'); dot && dot != nm; dot = NULL)
			*dot = '\0'; /* "barbox.tar" -> "barbox" */
		name = nm;
	}
	if (!name_ok(name))
		return spur_error_set(err, SPUR_EINVAL,
				      "invalid image name '%s' (letters, digits and ._:+-@)", name);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return spur_error_set(err, SPUR_ENOENT, "%s: %s", path, strerror(errno));
	rc = store_put(store, fd, NULL, path, digest, err);
	close(fd);
	if (rc)
		return rc;
	snprintf(ln, sizeof(ln), "%s/names/%s", store, name);
	snprintf(tmp, sizeof(tmp), "%s.new", ln);
	snprintf(tgt, sizeof(tgt), "../images/%s", digest);
	unlink(tmp);
	if (symlink(tgt, tmp) || rename(tmp, ln))
		return spur_error_set(err, SPUR_EIO, "%s: %s", ln, strerror(errno));
	return 0;
}

static unsigned long long du_kb;

static int du_one(const char *p, const struct stat *st, int flag, struct FTW *f)
{
	(void)p;
	(void)flag;
	(void)f;
	du_kb += (unsigned long long)st->st_blocks / 2;
	return 0;
}

int spur_image_list(const char *store,
		    void (*fn)(const char *name, const char *digest, unsigned long long kb, void *),
		    void *arg, struct spur_error *err)
{
	char p[IMG_PATH], link[IMG_PATH];
	struct dirent **ents = NULL;
	int n;

	snprintf(p, sizeof(p), "%s/names", store);
	if ((n = scandir(p, &ents, NULL, alphasort)) < 0)
		return errno == ENOENT ? 0
				       : spur_error_set(err, SPUR_EIO, "%s: %s", p, strerror(errno));
	for (int i = 0; i < n; i++) {
		char lp[IMG_PATH + 256];
		ssize_t l;

		snprintf(lp, sizeof(lp), "%s/%s", p, ents[i]->d_name);
		if (ents[i]->d_name[0] != '.' && (l = readlink(lp, link, sizeof(link) - 1)) > 0) {
			const char *d = strrchr((link[l] = '\0', link), '/');

			du_kb = 0;
			nftw(lp, du_one, 16, FTW_PHYS);
			snprintf(lp, sizeof(lp), "%s/images/%s", store, d ? d + 1 : link);
			nftw(lp, du_one, 16, FTW_PHYS);
			fn(ents[i]->d_name, d ? d + 1 : link, du_kb, arg);
		}
		free(ents[i]);
	}
	free(ents);
	return 0;
}

int spur_image_remove(const char *store, const char *name, struct spur_error *err)
{
	char ln[IMG_PATH], link[IMG_PATH], p[IMG_PATH], other[IMG_PATH];
	struct dirent *de;
	ssize_t l;
	DIR *d;

	snprintf(ln, sizeof(ln), "%s/names/%s", store, name);
	if (!name_ok(name) || (l = readlink(ln, link, sizeof(link) - 1)) < 0)
		return spur_error_set(err, SPUR_ENOENT, "no image named '%s' in %s", name, store);
	link[l] = '\0';
	if (unlink(ln))
		return spur_error_set(err, SPUR_EIO, "%s: %s", ln, strerror(errno));
	/* the unpacked image goes too when no other name points at it */
	snprintf(p, sizeof(p), "%s/names", store);
	if ((d = opendir(p))) {
		while ((de = readdir(d))) {
			char lp[IMG_PATH + 256];

			snprintf(lp, sizeof(lp), "%s/%s", p, de->d_name);
			if ((l = readlink(lp, other, sizeof(other) - 1)) > 0 &&
			    (other[l] = '\0', !strcmp(other, link))) {
				closedir(d);
				return 0;
			}
		}
		closedir(d);
	}
	snprintf(p, sizeof(p), "%s/names/%s", store, link);
	rm_rf(p);
	return 0;
}
