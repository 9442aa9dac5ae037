/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hostile-user: what its cases share (hostile-user.c: the options, the
 * output, the connection helpers, the sink server, main; the cases by
 * area: mem.c, ring.c, owner.c, teardown.c, random.c).
 */
#ifndef HOSTILE_USER_H
#define HOSTILE_USER_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

#define PAGE		4096
#define RMR_LEN		(64 * 1024)	/* the sink's remote region */
#define SLOT_LEN	(16 * 1024)	/* one receive buffer */
#define NSLOTS		16		/* receives kept posted */
#define GO_LEN		(8 * 1024)	/* the answer to "GO8K" */
#define PD_MAGIC	0x48555352U	/* "HUSR" */
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

/* wr_id kinds: the upper 32 bits */
enum {
	WR_RECV = 1, WR_ECHO, WR_GO, WR_DATA, WR_READ, WR_WRITE, WR_DONE,
};

#define WRID(kind, n)	((uint64_t)(kind) << 32 | (uint32_t)(n))
#define WRKIND(id)	((unsigned int)((id) >> 32))
#define WRN(id)		((uint32_t)(id))

/* what one side tells the other in the MPA private data */
struct pdata {
	uint32_t magic;
	uint32_t rkey;
	uint64_t addr;
	uint32_t len;
	uint32_t qpn;
};

struct conn {
	struct rdma_event_channel *ec;
	struct rdma_cm_id *id;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct ibv_mr *mr;	/* buf: the receive slots and the GO area */
	char *buf;
	size_t buflen;
	struct ibv_mr *rmr;	/* rbuf: remote Read/Write region */
	char *rbuf;
	struct pdata peer;	/* what the peer exposed */
	struct ibv_qp_cap cap;
	bool established;
	bool dead;
	unsigned int slot_busy[NSLOTS];
};

struct opts {
	const char *cname;
	bool server;
	bool peer;
	const char *addr;
	const char *port;
	const char *laddr;
	const char *lport;
	const char *dir;
	int rounds;
	int limit;
	int index_max;
	unsigned long long seed;	/* verbs-random: -S */
	int procs;			/* verbs-random: -j */
};

extern struct opts o;
extern double slow;

void verdict(bool ok, const char *fmt, ...);
bool expect(bool ok, const char *fmt, ...);
void say(const char *fmt, ...);
double now(void);
double tmo(double secs);

struct qp_want {
	int send_wr, recv_wr, send_sge, recv_sge, inline_data;
	int prepost;	/* receives a client posts before connecting */
};

extern const struct qp_want qp_default;

int client_connect(struct conn *c, const struct qp_want *w,
		   struct rdma_conn_param *param);
void client_close(struct conn *c);
int post_recv_slot(struct conn *c, int slot);
int post_send(struct conn *c, uint64_t id, void *addr, uint32_t len,
	      uint32_t lkey, int flags);
int post_rdma(struct conn *c, enum ibv_wr_opcode op, uint64_t id,
	      void *addr, uint32_t len, uint32_t lkey, uint64_t raddr,
	      uint32_t rkey);

/* one connection manager event, its private data copied */
struct cm_ev {
	enum rdma_cm_event_type type;
	int status;
	struct rdma_cm_id *id;
	struct rdma_cm_id *listen_id;
	struct pdata pd;
	bool has_pd;
};

extern atomic_int terminated;	/* set by SIGTERM, SIGINT */

void sleep_s(double s);
const char *evname(int e);
int cm_next(struct rdma_event_channel *ec, struct cm_ev *ev, double secs);
int cm_wait(struct rdma_event_channel *ec, enum rdma_cm_event_type want,
	    struct cm_ev *ev, double secs);
int resolve(struct rdma_cm_id *id, struct rdma_event_channel *ec,
	    const char *addr, const char *port);
int cm_listen(struct rdma_event_channel **ecp, struct rdma_cm_id **idp,
	      const char *addr, const char *port);
void *page_alloc(size_t len);
int conn_res(struct conn *c, const struct qp_want *w);
struct pdata conn_pdata(struct conn *c);
void conn_free(struct conn *c);
int poll_one(struct ibv_cq *cq, struct ibv_wc *wc, double secs);
int poll_kind(struct ibv_cq *cq, unsigned int kind, struct ibv_wc *wc,
	      double secs, int *other);
bool status_valid(enum ibv_wc_status s);
void on_term(int sig);

int uverbs_cmd(int fd, uint32_t command, void *cmd, size_t len,
	       size_t out_len);

/* the cases: mem.c, ring.c, owner.c, teardown.c, random.c */
int dereg_reuse_read(void);
int dereg_reuse_send(void);
int odd_sge(void);
int mr_not_mine(void);
int sqe_rewrite(void);
int sq_refill_error(void);
int cq_not_mine(void);
int foreign_qpn(void);
int kernel_qpn(void);
int destroy_under_traffic(void);
int mar_client(void);
int mar_server(void);
int verbs_random(void);

#endif /* HOSTILE_USER_H */
