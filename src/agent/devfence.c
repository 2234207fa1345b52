/* SPDX-License-Identifier: Apache-2.0 */
/* Device fencing on cgroup v2: a BPF_PROG_TYPE_CGROUP_DEVICE program
 * (see devfence.h). The program is a few instructions made here, as runc
 * and crun make theirs, not compiled BPF: it compares the device an open
 * asks for with each denied one and answers 0 (EPERM) on a match, 1 (let
 * through) otherwise. Loaded and attached through Debian's libbpf. */
#include "agent/devfence.h"

#include <errno.h>
#include <stddef.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#ifdef SPUR_HAVE_BPF
#include <bpf/bpf.h>
#include <linux/bpf.h>

/* 4 to load, 5 a device, 2 to let through: well under BPF's limits */
#define MAX_INSNS (4 + 5 * SPURD_DEVFENCE_MAX + 2)

static struct bpf_insn ldx_w(int dst, int src, short off)
{
	return (struct bpf_insn){ .code = BPF_LDX | BPF_MEM | BPF_W, .dst_reg = dst & 0xf,
				  .src_reg = src & 0xf, .off = off };
}

static struct bpf_insn and_k(int dst, int imm)
{
	return (struct bpf_insn){ .code = BPF_ALU | BPF_AND | BPF_K, .dst_reg = dst & 0xf, .imm = imm };
}

static struct bpf_insn jne_k(int dst, int imm, short off)
{
	return (struct bpf_insn){ .code = BPF_JMP | BPF_JNE | BPF_K, .dst_reg = dst & 0xf,
				  .off = off, .imm = imm };
}

static struct bpf_insn mov_k(int dst, int imm)
{
	return (struct bpf_insn){ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = dst & 0xf, .imm = imm };
}

static struct bpf_insn exit_insn(void)
{
	return (struct bpf_insn){ .code = BPF_JMP | BPF_EXIT };
}

/* r2 = type (BPF_DEVCG_DEV_CHAR/BLOCK: the low half of access_type), r3 =
 * major, r4 = minor; per denied device: three compares that skip to the
 * next device on a difference, then return 0; at the end return 1. */
static size_t build(const struct spurd_devfence_dev *deny, size_t n, struct bpf_insn *p)
{
	size_t k = 0;

	p[k++] = ldx_w(2, 1, offsetof(struct bpf_cgroup_dev_ctx, access_type));
	p[k++] = and_k(2, 0xffff);
	p[k++] = ldx_w(3, 1, offsetof(struct bpf_cgroup_dev_ctx, major));
	p[k++] = ldx_w(4, 1, offsetof(struct bpf_cgroup_dev_ctx, minor));
	for (size_t i = 0; i < n; i++) {
		p[k++] = jne_k(2, deny[i].block ? BPF_DEVCG_DEV_BLOCK : BPF_DEVCG_DEV_CHAR, 4);
		p[k++] = jne_k(3, (int)deny[i].major, 3);
		p[k++] = jne_k(4, (int)deny[i].minor, 2);
		p[k++] = mov_k(0, 0);
		p[k++] = exit_insn();
	}
	p[k++] = mov_k(0, 1);
	p[k++] = exit_insn();
	return k;
}

static int load(const struct spurd_devfence_dev *deny, size_t n, char *why, size_t wlen)
{
	struct bpf_insn insns[MAX_INSNS];
	char log[4096] = "";
	LIBBPF_OPTS(bpf_prog_load_opts, opts, .log_buf = log, .log_size = sizeof(log), .log_level = 0);
	size_t k = build(deny, n, insns);
	int fd = bpf_prog_load(BPF_PROG_TYPE_CGROUP_DEVICE, "spur_devices", "Apache-2.0", insns,
			       k, &opts);

	if (fd < 0)
		snprintf(why, wlen, "cannot load the BPF device program: %s%s%s", strerror(-fd),
			 *log ? ": " : "", log);
	return fd;
}

int spurd_devfence_attach(const char *cgroup, const struct spurd_devfence_dev *deny, size_t n,
			  char *why, size_t wlen)
{
	int prog, cg, rc;

	if (n > SPURD_DEVFENCE_MAX) {
		snprintf(why, wlen, "%zu devices to deny, more than %d", n, SPURD_DEVFENCE_MAX);
		return -E2BIG;
	}
	if ((prog = load(deny, n, why, wlen)) < 0)
		return prog;
	if ((cg = open(cgroup, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0) {
		rc = -errno;
		snprintf(why, wlen, "%s: %s", cgroup, strerror(errno));
		close(prog);
		return rc;
	}
	/* ALLOW_MULTI: under a manager's own device program (systemd's) */
	rc = bpf_prog_attach(prog, cg, BPF_CGROUP_DEVICE, BPF_F_ALLOW_MULTI);
	if (rc < 0)
		snprintf(why, wlen, "cannot attach the BPF device program to %s: %s", cgroup,
			 strerror(-rc));
	close(cg);
	close(prog); /* the attachment holds it; it goes with the cgroup */
	return rc < 0 ? rc : 0;
}

bool spurd_devfence_works(char *why, size_t wlen)
{
	int fd = load(NULL, 0, why, wlen);

	if (fd < 0)
		return false;
	close(fd);
	return true;
}

#else

int spurd_devfence_attach(const char *cgroup, const struct spurd_devfence_dev *deny, size_t n,
			  char *why, size_t wlen)
{
	snprintf(why, wlen, "built without libbpf");
	return -ENOSYS;
}

bool spurd_devfence_works(char *why, size_t wlen)
{
	snprintf(why, wlen, "built without libbpf (libbpf-dev)");
	return false;
}

#endif

size_t spurd_devfence_devs(const char *const *paths, struct spurd_devfence_dev *out, size_t max)
{
	size_t n = 0;

	for (size_t i = 0; paths && paths[i] && n < max; i++) {
		struct stat st;

		if (stat(paths[i], &st) || !(S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode)))
			continue; /* nothing there to open */
		out[n++] = (struct spurd_devfence_dev){ .block = S_ISBLK(st.st_mode),
							.major = major(st.st_rdev),
							.minor = minor(st.st_rdev) };
	}
	return n;
}
