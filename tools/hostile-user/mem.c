// SPDX-License-Identifier: GPL-2.0
/*
 * hostile-user: memory: MRs whose STag index is reused under an operation
 * (dereg-reuse-read, dereg-reuse-send), malformed SGE lists (odd-sge), MRs
 * over memory the process does not own (mr-not-mine).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <netdb.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/verbs.h>
#include <rdma/ib_user_verbs.h>
#include <rdma/rdma_cma.h>
#include <rdma/siw-abi.h>

#include "hostile-user.h"

/* --- dereg-reuse-read, dereg-reuse-send ------------------------------------ */

struct zfile {
	int fd;
	char path[256];
	void *map;
};

/* a file of one page of zeros, mapped read-only and shared */
static int zfile_open(struct zfile *z)
{
	const char *dir = o.dir ? o.dir : getenv("TMPDIR");

	snprintf(z->path, sizeof(z->path), "%s/hostile-user-XXXXXX",
		 dir ? dir : "/tmp");
	z->fd = mkstemp(z->path);
	if (z->fd < 0 || ftruncate(z->fd, PAGE)) {
		say("file in %s: %s", dir ? dir : "/tmp", strerror(errno));
		return -1;
	}
	z->map = mmap(NULL, PAGE, PROT_READ, MAP_SHARED, z->fd, 0);
	if (z->map == MAP_FAILED) {
		say("mmap: %s", strerror(errno));
		return -1;
	}
	return 0;
}

/* nonzero octets in the file, read back with pread(2); -1 on error */
static long zfile_dirty(struct zfile *z)
{
	unsigned char b[PAGE];
	long n = 0;

	if (pread(z->fd, b, PAGE, 0) != PAGE)
		return -1;
	for (int i = 0; i < PAGE; i++)
		n += b[i] != 0;
	return n;
}

static void zfile_close(struct zfile *z)
{
	if (z->map && z->map != MAP_FAILED)
		munmap(z->map, PAGE);
	if (z->fd >= 0) {
		close(z->fd);
		unlink(z->path);
	}
}

/*
 * Register the read-only file mapping (access 0) until an MR gets STag
 * index @index; the others are kept until then, so that an allocator
 * that hands out the lowest free index moves on too. With @cq, stop
 * early when a completion arrives there (in @wc, @done set): the
 * operation ended before the index came back. Returns the MR on the
 * index (the others deregistered) or NULL; @maxidx is the largest index
 * seen, which shows whether stag_index_max is in effect.
 */
static struct ibv_mr *reuse_index(struct ibv_pd *pd, struct zfile *z,
				  uint32_t index, int *tries, uint32_t *maxidx,
				  struct ibv_cq *cq, struct ibv_wc *wc,
				  bool *done)
{
	static struct ibv_mr *held[4096];
	struct ibv_mr *hit = NULL;
	int n = 0, i;

	*maxidx = 0;
	for (*tries = 0; *tries < 4096; (*tries)++) {
		struct ibv_mr *mr;

		if (cq && ibv_poll_cq(cq, 1, wc) > 0) {
			*done = true;
			break;
		}
		mr = ibv_reg_mr(pd, z->map, PAGE, 0);
		if (!mr) {
			say("ibv_reg_mr of the read-only file (try %d): %s",
			    *tries + 1, strerror(errno));
			if (!cq || errno != ENOMEM)
				break;
			/* indexes exhausted: wait for the operation */
			if (poll_one(cq, wc, 15) > 0)
				*done = true;
			break;
		}
		if (mr->lkey >> 8 > *maxidx)
			*maxidx = mr->lkey >> 8;
		if (mr->lkey >> 8 == index) {
			hit = mr;
			(*tries)++;
			break;
		}
		held[n++] = mr;
	}
	for (i = 0; i < n; i++)
		ibv_dereg_mr(held[i]);
	return hit;
}

int dereg_reuse_read(void)
{
	struct conn c;
	struct zfile z = { .fd = -1 };
	struct ibv_mr *a, *hit = NULL;
	struct ibv_wc wc;
	char *abuf = page_alloc(PAGE);
	uint32_t index, maxidx;
	double t0, t1;
	int tries = 0, n;
	long dirty;
	bool ok = true, done = false;

	if (!abuf || zfile_open(&z) || client_connect(&c, &qp_default, NULL)) {
		verdict(false, "setup");
		return 1;
	}
	a = ibv_reg_mr(c.pd, abuf, PAGE, IBV_ACCESS_LOCAL_WRITE);
	if (!a) {
		verdict(false, "ibv_reg_mr of A: %s", strerror(errno));
		return 1;
	}
	index = a->lkey >> 8;
	say("MR A lkey 0x%08x (index %u key %u)", a->lkey, index,
	    a->lkey & 0xff);
	t0 = now();
	if (post_rdma(&c, IBV_WR_RDMA_READ, WRID(WR_READ, 0), abuf, PAGE,
		      a->lkey, c.peer.addr, c.peer.rkey)) {
		verdict(false, "post RDMA Read: %s", strerror(errno));
		return 1;
	}
	/* the Read must still be outstanding, or the case proves nothing */
	n = ibv_poll_cq(c.cq, 1, &wc);
	if (n) {
		verdict(false, "the Read completed (status %d) %s",
			wc.status, "before the deregistration: no delay on the link?");
		return 1;
	}
	t1 = now();
	if (ibv_dereg_mr(a))
		ok = expect(false, "ibv_dereg_mr(A) with the Read outstanding: %s",
			    strerror(errno));
	else
		ok = expect(now() - t1 <= tmo(2),
			    "ibv_dereg_mr(A) returned after %.3f s (limit %.1f)",
			   now() - t1, tmo(2)) && ok;
	hit = reuse_index(c.pd, &z, index, &tries, &maxidx, c.cq, &wc, &done);
	if (!hit && !done) {
		verdict(false, "index %u not handed out again in %d registrations, %s %u",
			index, tries, "(stag_index_max set in debugfs?), largest seen",
			maxidx);
		return 1;
	}
	if (hit) {
		say("read-only file MR lkey 0x%08x on A's index after %d %s %.3f s after the post",
		    hit->lkey, tries, "registrations,", now() - t0);
		n = poll_one(c.cq, &wc, 15);
	} else {
		/*
		 * a kernel may keep the index while the Read holds A; or the
		 * Read ended (in error, A gone) before the first registration
		 * (seen on the debug kernel): no reuse to look for then
		 */
		ok = expect(tries == 0 ||
			    (maxidx <= (uint32_t)o.index_max && maxidx > 0),
			    "A's index not handed out again before the Read ended (%d registrations, largest index %u: stag_index_max in effect)",
			   tries, maxidx) && ok;
		n = 1;
	}
	if (n <= 0) {
		ok = expect(false, "no completion of the Read within %.0f s",
			    tmo(15));
	} else {
		/* unless A's index stayed A's, success would be a lie */
		ok = expect(hit ? wc.status != IBV_WC_SUCCESS :
			   status_valid(wc.status),
			   "the Read completed with status %d (%s) after %.3f s",
			   wc.status, ibv_wc_status_str(wc.status),
			   now() - t0) && ok;
	}
	dirty = zfile_dirty(&z);
	ok = expect(dirty == 0, "the read-only file has %ld nonzero octets",
		    dirty) && ok;
	if (hit)
		ibv_dereg_mr(hit);
	client_close(&c);
	zfile_close(&z);
	free(abuf);
	verdict(ok, ok ? "the Read into a deregistered MR failed, %s"
		       : "see the checks above%s",
		ok ? "the file whose MR took its STag stayed zero" : "");
	return !ok;
}

int dereg_reuse_send(void)
{
	struct qp_want w = qp_default;
	struct conn c;
	struct zfile z = { .fd = -1 };
	struct ibv_mr *a, *b, *hit;
	struct ibv_wc wc;
	char *abuf = page_alloc(PAGE), *bbuf = page_alloc(PAGE);
	struct ibv_sge sge[2];
	struct ibv_recv_wr wr = { .wr_id = WRID(WR_DATA, 0), .sg_list = sge,
				  .num_sge = 2 }, *bad;
	uint32_t index, maxidx;
	int tries = 0, n, other = 0;
	long dirty;
	double t1;
	bool ok = true;

	w.prepost = 0;	/* the receive with two SGEs is the first */
	if (!abuf || !bbuf || zfile_open(&z) || client_connect(&c, &w, NULL)) {
		verdict(false, "setup");
		return 1;
	}
	a = ibv_reg_mr(c.pd, abuf, PAGE, IBV_ACCESS_LOCAL_WRITE);
	b = ibv_reg_mr(c.pd, bbuf, PAGE, IBV_ACCESS_LOCAL_WRITE);
	if (!a || !b) {
		verdict(false, "ibv_reg_mr: %s", strerror(errno));
		return 1;
	}
	sge[0] = (struct ibv_sge){ (uintptr_t)abuf, PAGE, a->lkey };
	sge[1] = (struct ibv_sge){ (uintptr_t)bbuf, PAGE, b->lkey };
	if (ibv_post_recv(c.qp, &wr, &bad)) {
		verdict(false, "ibv_post_recv with two SGEs: %s", strerror(errno));
		return 1;
	}
	index = b->lkey >> 8;
	say("MR B lkey 0x%08x (index %u), a receive of A then B posted",
	    b->lkey, index);
	t1 = now();
	if (ibv_dereg_mr(b))
		ok = expect(false, "ibv_dereg_mr(B) with the receive posted: %s",
			    strerror(errno));
	else
		ok = expect(now() - t1 <= tmo(2),
			    "ibv_dereg_mr(B) returned after %.3f s", now() - t1);
	hit = reuse_index(c.pd, &z, index, &tries, &maxidx, NULL, NULL, NULL);
	if (!hit) {
		verdict(false, "index %u not handed out again in %d registrations, %s %u",
			index, tries, "(stag_index_max set in debugfs?), largest seen",
			maxidx);
		return 1;
	}
	say("read-only file MR lkey 0x%08x on B's index after %d registrations",
	    hit->lkey, tries);
	/* now the peer sends 8 KiB: the first 4 KiB to A, the rest to B */
	memcpy(c.buf + NSLOTS * SLOT_LEN, "GO8K", 4);
	if (post_send(&c, WRID(WR_GO, 0), c.buf + NSLOTS * SLOT_LEN, 4,
		      c.mr->lkey, 0)) {
		verdict(false, "post the GO8K send: %s", strerror(errno));
		return 1;
	}
	n = poll_kind(c.cq, WR_DATA, &wc, 15, &other);
	if (n <= 0)
		ok = expect(false, "no completion of the receive within %.0f s",
			    tmo(15));
	else
		ok = expect(wc.status != IBV_WC_SUCCESS,
			    "the receive completed with status %d (%s), %u octets",
			   wc.status, ibv_wc_status_str(wc.status),
			   wc.status ? 0 : wc.byte_len) && ok;
	dirty = zfile_dirty(&z);
	ok = expect(dirty == 0, "the read-only file has %ld nonzero octets",
		    dirty) && ok;
	ibv_dereg_mr(hit);
	ibv_dereg_mr(a);
	client_close(&c);
	zfile_close(&z);
	free(abuf);
	free(bbuf);
	verdict(ok, ok ? "the receive into a deregistered MR failed, %s"
		       : "see the checks above%s",
		ok ? "the file whose MR took its STag stayed zero" : "");
	return !ok;
}

/* --- odd-sge ---------------------------------------------------------------- */

enum odd_kind {
	ODD_NSGE0, ODD_NSGE_MAX, ODD_NSGE_OVER, ODD_LEN0, ODD_LEN_MAX,
	ODD_LEN_SUM, ODD_BELOW, ODD_ABOVE, ODD_FAR, ODD_OTHER_PD, ODD_DEREG,
	ODD_INLINE, ODD_READ_SINK, ODD_WRITE_REMOTE, ODD_READ_REMOTE,
	ODD_NUM,
};

static const struct {
	const char *name;
	bool ok;	/* must succeed; otherwise must fail */
} odd_cases[ODD_NUM] = {
	[ODD_NSGE0] = { "num_sge 0 (zero-length send)", true },
	[ODD_NSGE_MAX] = { "num_sge max_send_sge", true },
	[ODD_NSGE_OVER] = { "num_sge max_send_sge + 1", false },
	[ODD_LEN0] = { "SGE length 0", true },
	[ODD_LEN_MAX] = { "SGE length 0xffffffff", false },
	[ODD_LEN_SUM] = { "three SGEs of 0x60000000 (sum over 2^32)", false },
	[ODD_BELOW] = { "SGE starting below the MR", false },
	[ODD_ABOVE] = { "SGE running past the MR's end", false },
	[ODD_FAR] = { "SGE a page above the MR", false },
	[ODD_OTHER_PD] = { "lkey of another PD's MR", false },
	[ODD_DEREG] = { "lkey of a deregistered MR", false },
	[ODD_INLINE] = { "inline data above max_inline_data", false },
	[ODD_READ_SINK] = { "RDMA Read sink past the local MR", false },
	[ODD_WRITE_REMOTE] = { "RDMA Write past the remote MR (a Read behind it)",
			       false },
	[ODD_READ_REMOTE] = { "RDMA Read source past the remote MR", false },
};

static bool odd_one(enum odd_kind k)
{
	struct qp_want w = qp_default;
	struct ibv_sge sge[SIW_MAX_SGE + 2];
	struct ibv_send_wr wr = { .wr_id = WRID(WR_DATA, k), .sg_list = sge,
				  .num_sge = 1, .opcode = IBV_WR_SEND,
				  .send_flags = IBV_SEND_SIGNALED }, *bad;
	struct ibv_device_attr da;
	struct ibv_pd *pd2 = NULL;
	struct ibv_mr *mr2 = NULL;
	char *go, *p2 = NULL;
	struct ibv_wc wc;
	struct conn c;
	uint32_t lk;
	int rc, n, i, other = 0;
	bool ok;

	if (client_connect(&c, &w, NULL))
		return expect(false, "%s: no connection", odd_cases[k].name);
	if (ibv_query_device(c.id->verbs, &da))
		return expect(false, "ibv_query_device: %s", strerror(errno));
	go = c.buf + NSLOTS * SLOT_LEN;
	lk = c.mr->lkey;
	for (i = 0; i < SIW_MAX_SGE + 2; i++)
		sge[i] = (struct ibv_sge){ (uintptr_t)go + 16 * i, 16, lk };
	switch (k) {
	case ODD_NSGE0:
		wr.num_sge = 0;
		break;
	case ODD_NSGE_MAX:
		wr.num_sge = c.cap.max_send_sge;
		break;
	case ODD_NSGE_OVER:
		wr.num_sge = c.cap.max_send_sge + 1;
		say("%d SGEs on a QP with max_send_sge %u", wr.num_sge,
		    c.cap.max_send_sge);
		break;
	case ODD_LEN0:
		sge[0].length = 0;
		break;
	case ODD_LEN_MAX:
		sge[0].length = 0xffffffff;
		break;
	case ODD_LEN_SUM:
		wr.num_sge = 3;
		for (i = 0; i < 3; i++)
			sge[i] = (struct ibv_sge){ (uintptr_t)c.buf,
						   0x60000000, lk };
		break;
	case ODD_BELOW:
		sge[0].addr = (uintptr_t)c.buf - 16;
		sge[0].length = 32;
		break;
	case ODD_ABOVE:
		sge[0].addr = (uintptr_t)c.buf + c.buflen - 16;
		sge[0].length = 32;
		break;
	case ODD_FAR:
		sge[0].addr = (uintptr_t)c.buf + c.buflen + PAGE;
		break;
	case ODD_OTHER_PD:
	case ODD_DEREG:
		p2 = page_alloc(PAGE);
		pd2 = k == ODD_OTHER_PD ? ibv_alloc_pd(c.id->verbs) : c.pd;
		mr2 = pd2 && p2 ? ibv_reg_mr(pd2, p2, PAGE,
					     IBV_ACCESS_LOCAL_WRITE) : NULL;
		if (!mr2) {
			client_close(&c);
			return expect(false, "%s: setup: %s",
				     odd_cases[k].name, strerror(errno));
		}
		sge[0] = (struct ibv_sge){ (uintptr_t)p2, 16, mr2->lkey };
		if (k == ODD_DEREG) {
			ibv_dereg_mr(mr2);
			mr2 = NULL;
			pd2 = NULL;
		}
		break;
	case ODD_INLINE:
		wr.send_flags |= IBV_SEND_INLINE;
		sge[0].length = (c.cap.max_inline_data > SIW_MAX_INLINE ?
				 c.cap.max_inline_data : SIW_MAX_INLINE) + 1;
		break;
	case ODD_READ_SINK:
		wr.opcode = IBV_WR_RDMA_READ;
		sge[0] = (struct ibv_sge){ (uintptr_t)c.buf + c.buflen - 100,
					   PAGE, lk };
		wr.wr.rdma.remote_addr = c.peer.addr;
		wr.wr.rdma.rkey = c.peer.rkey;
		break;
	case ODD_WRITE_REMOTE:
	case ODD_READ_REMOTE:
		wr.opcode = k == ODD_WRITE_REMOTE ? IBV_WR_RDMA_WRITE :
						    IBV_WR_RDMA_READ;
		sge[0] = (struct ibv_sge){ (uintptr_t)c.buf + SLOT_LEN, PAGE,
					   lk };
		wr.wr.rdma.remote_addr = c.peer.addr + c.peer.len - 100;
		wr.wr.rdma.rkey = c.peer.rkey;
		break;
	default:
		break;
	}
	if (k == ODD_WRITE_REMOTE) {
		/*
		 * A Write completes when it is sent: the peer's Terminate
		 * comes later. A Read of valid memory posted behind it must
		 * then not succeed.
		 */
		static struct ibv_sge rs;
		static struct ibv_send_wr rd;

		rs = (struct ibv_sge){ (uintptr_t)c.buf + 2 * SLOT_LEN, 64,
				       lk };
		rd = (struct ibv_send_wr){ .wr_id = WRID(WR_DATA, k),
					   .sg_list = &rs, .num_sge = 1,
					   .opcode = IBV_WR_RDMA_READ,
					   .send_flags = IBV_SEND_SIGNALED };
		rd.wr.rdma.remote_addr = c.peer.addr;
		rd.wr.rdma.rkey = c.peer.rkey;
		wr.wr_id = WRID(WR_WRITE, k);
		wr.next = &rd;
	}
	rc = ibv_post_send(c.qp, &wr, &bad);
	if (rc) {
		ok = expect(!odd_cases[k].ok, "%s: ibv_post_send refused it: %s",
			    odd_cases[k].name, strerror(abs(rc)));
	} else {
		n = poll_kind(c.cq, WR_DATA, &wc, 10, &other);
		if (n <= 0)
			ok = expect(false, "%s: posted, but no completion within %.0f s",
				    odd_cases[k].name, tmo(10));
		else
			ok = expect(status_valid(wc.status) &&
				    (wc.status == IBV_WC_SUCCESS) ==
				   odd_cases[k].ok,
				   "%s: completion status %d (%s)",
				   odd_cases[k].name, wc.status,
				   ibv_wc_status_str(wc.status));
	}
	if (mr2)
		ibv_dereg_mr(mr2);
	if (pd2 && pd2 != c.pd)
		ibv_dealloc_pd(pd2);
	free(p2);
	client_close(&c);
	return ok;
}

int odd_sge(void)
{
	int bad = 0;

	for (int k = 0; k < ODD_NUM; k++)
		bad += !odd_one(k);
	verdict(!bad, bad ? "%d of %d malformed work requests not handled as expected"
			  : "all %d malformed work requests refused or failed, valid ones passed",
		bad ? bad : ODD_NUM, ODD_NUM);
	return !!bad;
}

/* --- mr-not-mine -------------------------------------------------------------- */

/* Try to register [@p, @p + @len) with @access; true when it is refused */
static bool mr_refused(struct ibv_pd *pd, void *p, size_t len, int access,
		       const char *what)
{
	struct ibv_mr *mr = ibv_reg_mr(pd, p, len, access);
	int err = errno;

	if (mr)
		ibv_dereg_mr(mr);
	return expect(!mr, "%s: %s", what, mr ? "registered" : strerror(err));
}

/*
 * RFC 5040 section 8.1.2, requirement 4, and RFC 5041 section 8.3.2, item
 * 4: a non-privileged ULP's right to a buffer is verified before an STag
 * is tied to it. MRs over memory the process has not mapped, or over a
 * read-only mapping with write access, are refused; its own page, the
 * control, is registered.
 */
int mr_not_mine(void)
{
	int rw = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE;
	struct qp_want w = qp_default;
	struct ibv_mr *mr;
	struct conn c;
	char *own, *ro;
	bool ok = true;

	if (client_connect(&c, &w, NULL)) {
		verdict(false, "no connection");
		return 1;
	}
	own = mmap(NULL, 4 * PAGE, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ro = mmap(NULL, PAGE, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (own == MAP_FAILED || ro == MAP_FAILED) {
		client_close(&c);
		verdict(false, "setup: mmap: %s", strerror(errno));
		return 1;
	}
	munmap(own + PAGE, 3 * PAGE);	/* the first page stays ours */
	ok = mr_refused(c.pd, own + PAGE, 2 * PAGE, IBV_ACCESS_LOCAL_WRITE,
			"an MR over unmapped memory refused") && ok;
	ok = mr_refused(c.pd, own, 2 * PAGE, IBV_ACCESS_LOCAL_WRITE,
			"an MR running past the mapping refused") && ok;
	ok = mr_refused(c.pd, ro, PAGE, rw,
			"a writable MR over read-only memory refused") && ok;
	own[0] = 1;
	mr = ibv_reg_mr(c.pd, own, PAGE, rw);
	ok = expect(!!mr, "an MR over the process's own page: %s",
		    mr ? "registered" : strerror(errno)) && ok;
	if (mr)
		ibv_dereg_mr(mr);
	munmap(own, PAGE);
	munmap(ro, PAGE);
	client_close(&c);
	verdict(ok, ok ? "MRs of memory not its own to write refused, its own page taken"
		       : "see the checks above");
	return !ok;
}
