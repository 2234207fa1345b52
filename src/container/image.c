/* SPDX-License-Identifier: Apache-2.0 */
/* The image store (image.h): libarchive unpacks tars and their layers,
 * OpenSSL's libcrypto names them by sha256, squashfs-tools' unsquashfs
 * unpacks squashfs files. */
#define _GNU_SOURCE
#include "container/image.h"
#include "container/manifest.h"

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

/* One of the image's JSON documents (at most 4 MiB), read as who, parsed
 * as kind into m (container/manifest.h: every path it names stays inside
 * the image's folder). */
static int read_doc(int dirfd, const char *path, enum spur_image_doc kind,
		    const struct spur_image_user *who, const char *what,
		    struct spur_image_manifest *m, struct spur_error *err)
{
	enum { MAX_DOC = 4 << 20 };
	int fd = open_user(dirfd, path, O_RDONLY, who);
	char why[256], *text = NULL;
	ssize_t n = 0, r;
	int rc = SPUR_EPARSE;

	if (fd < 0)
		return spur_error_set(err, SPUR_EPARSE, "%s: %s: %s", what, path, strerror(errno));
	if (!(text = malloc(MAX_DOC))) {
		rc = spur_error_set(err, SPUR_ENOMEM, "%s: %s: no memory", what, path);
		goto out;
	}
	while (n < MAX_DOC && (r = read(fd, text + n, MAX_DOC - (size_t)n)) > 0)
		n += r;
	if (n == MAX_DOC)
		spur_error_set(err, rc, "%s: %s: larger than 4 MiB", what, path);
	else if (spur_image_manifest_parse(text, (size_t)n, kind, m, why, sizeof(why)))
		spur_error_set(err, rc, "%s: %s: %s", what, path, why);
	else
		rc = 0;
out:
	free(text);
	close(fd);
	return rc;
}

/* The image config's "config" object (Env, WorkingDir) into *config. */
static void read_config(int dirfd, const char *path, const struct spur_image_user *who,
			const char *what, json_t **config, struct spur_error *err)
{
	json_t *cfg = *path ? load_json_at(dirfd, path, who, what, err) : NULL;

	if (cfg)
		*config = json_incref(json_object_get(cfg, "config"));
	json_decref(cfg);
}

/* Apply one layer file (relative to dirfd) onto rootfs. */
static int apply_layer(int dirfd, const char *path, const char *rootfs,
		       const struct spur_image_user *who, const char *what, struct spur_error *err)
{
	int fd = open_user(dirfd, path, O_RDONLY, who), rc;

	if (fd < 0)
		return spur_error_set(err, SPUR_EPARSE, "%s: layer %s: %s", what, path,
				      strerror(errno));
	rc = extract(fd, rootfs, 1, err, what);
	close(fd);
	return rc;
}

/* An image's layers onto rootfs (dirfd its folder), its config out: an OCI
 * image layout (index.json, a manifest maybe behind one more index) or a
 * `docker save` folder (manifest.json). */
static int from_folder(int dirfd, enum spur_image_doc kind, const char *rootfs,
		       const struct spur_image_user *who, const char *what, json_t **config,
		       struct spur_error *err)
{
	static struct spur_image_manifest m; /* large: the agent's task child is single-threaded */
	char path[SPUR_IMAGE_PATH];
	int rc;

	snprintf(path, sizeof(path), "%s", kind == SPUR_IMAGE_DOCKER ? "manifest.json" : "index.json");
	for (int depth = 0; depth < 3; depth++) {
		if ((rc = read_doc(dirfd, path, kind, who, what, &m, err)))
			return rc;
		if (!*m.next)
			break;
		if (depth == 2)
			return spur_error_set(err, SPUR_EPARSE, "%s: indexes nested too deep", what);
		snprintf(path, sizeof(path), "%s", m.next);
	}
	read_config(dirfd, m.config, who, what, config, err);
	for (size_t i = 0; i < m.nlayers; i++)
		if ((rc = apply_layer(dirfd, m.layers[i], rootfs, who, what, err)))
			return rc;
	return 0;
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
		rc = from_folder(fd, SPUR_IMAGE_OCI, rootfs, who, what, &config, err);
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
		rc = from_folder(dfd, SPUR_IMAGE_DOCKER, rootfs, NULL, what, &config, err);
	else if (!faccessat(dfd, "index.json", F_OK, 0))
		rc = from_folder(dfd, SPUR_IMAGE_OCI, rootfs, NULL, what, &config, err);
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
