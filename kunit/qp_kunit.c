// SPDX-License-Identifier: GPL-2.0
/*
 * DOC: softiwarp_qp_loopback - two kernel QPs over a loopback TCP pair
 *
 * A softiwarp device on "lo", one PD, two CQs and two RC QPs, each handed
 * one end of a loopback TCP connection in MPA Full Operation (no connection
 * manager). The cases run Sends, RDMA Writes and RDMA Reads through the
 * verbs API and check every octet placed and every completion; an RDMA
 * Write to an unknown STag must end in a Terminate that takes both QPs to
 * ERROR, and so must a Send with a local error (an unknown lkey), an FPDU
 * whose CRC is wrong and a receive completion lost to a full CQ; the
 * device's counters (rdma statistic) must account for every FPDU, octet,
 * Marker and Terminate of the exchange; an orderly close must still answer
 * the peer's RDMA Read; IRD and ORD of 1 must carry Reads back to back; a
 * Send with Invalidate must invalidate the peer's STag. With one QP facing
 * a raw socket: an RDMA Write cut in its payload by the peer's FIN must
 * let its MR go while the QP lives on (ib_dereg_mr() waits for it); an
 * MPA responder that has received no valid FPDU sends none, not even the
 * Terminate for a first FPDU whose CRC fails (it resets instead), while a
 * first FPDU that passed MPA's checks lets it send its Terminates.
 *
 * The kernel's own consumer code is run against the device as well: the
 * rdma_rw API (drivers/infiniband/core/rw.c), which every kernel ULP uses
 * for RDMA Reads and Writes and which on iWARP reads through a REG_MR and
 * an IB_WR_RDMA_READ_WITH_INV, and ib_drain_qp(). Work requests iWARP
 * cannot carry (Send with Immediate) are refused at post time; RFC 7306's
 * Write with Immediate and atomics are carried between kernel QPs and
 * checked on the wire against a raw peer (qpt_write_imm*, qpt_atomic*).
 *
 * The limits the device reports are checked from both sides: a QP, CQ,
 * SRQ, FRMR and IRD/ORD at each maximum are accepted, one past it refused
 * with -EINVAL. The driver attributes of "rdma resource show" are read
 * back from the netlink message the fill callbacks write. A netdev that
 * goes away while its device is being set up must not free the device
 * under that setup, nor leave its debugfs directory behind; one that goes
 * while the device is being registered, before it can be pinned, must
 * not be kept by it (qpt_netdev_gone_before_register). MRs registered in
 * a row get STags that are hard to predict (qpt_stags_unpredictable).
 */
#include <kunit/static_stub.h>
#include <kunit/test.h>
#include <linux/completion.h>
#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/etherdevice.h>
#include <linux/netdevice.h>
#include <linux/prandom.h>
#include <linux/rtnetlink.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>
#include <linux/workqueue.h>
#include <net/net_namespace.h>
#include <net/sock.h>
#include <net/tcp.h>
#include <net/netlink.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_netlink.h>
#include <rdma/rw.h>

#include "ddp/ddp.h"
#include "dev/softiwarp.h"
#include "kunit/helpers.h"
#include "mpa/mpa_proto.h"
#include "rdmap/codec.h"
#include "rdmap/rdmap_proto.h"
#include "rdmap/terminate.h"

#define QPT_LEN		(96 * 1024 + 123)	/* several FPDUs, odd tail */
#define QPT_BUF		(128 * 1024)
#define QPT_WAIT_MS	5000
#define QPT_RW_CTXS	4

/* qpt_up_pair() turns RFC 7306 off on its device (qpt_imm_ext_off()) */
static bool qpt_ext_off;

struct qpt {
	struct ib_device *dev;
	struct ib_pd *pd;
	struct ib_cq *cq[2];
	struct ib_qp *qp[2];
	u8 *buf[2];
	struct socket *raw;	/* the socket of a QP left unattached */
};

static void qpt_down(struct qpt *t)
{
	int i;

	for (i = 0; i < 2; i++) {
		if (!IS_ERR_OR_NULL(t->qp[i]))
			ib_destroy_qp(t->qp[i]);
		if (!IS_ERR_OR_NULL(t->cq[i]))
			ib_free_cq(t->cq[i]);
		kfree(t->buf[i]);
	}
	if (!IS_ERR_OR_NULL(t->pd))
		ib_dealloc_pd(t->pd);
	if (!IS_ERR_OR_NULL(t->dev))
		ib_unregister_device_and_put(t->dev);
}

static void qpt_down_action(void *t)
{
	qpt_down(t);
}

/*
 * Device, PD, CQs, QPs and buffers; QP i connected with @cfg[i], each
 * with IRD and ORD @rd (0: the device maximum). A NULL @cfg[i] leaves QP
 * i IDLE and its end of the connection to the test (t->raw), to play a
 * peer with.
 */
static struct qpt *qpt_up_pair(struct kunit *test,
			       const struct eng_stream_cfg *cfg[2], u32 rd)
{
	struct ib_qp_init_attr qa = {
		.cap = { .max_send_wr = 16, .max_recv_wr = 16,
			 .max_send_sge = 2, .max_recv_sge = 2,
			 .max_rdma_ctxs = QPT_RW_CTXS },
		.port_num = 1,
		.qp_type = IB_QPT_RC,
		.sq_sig_type = IB_SIGNAL_REQ_WR,
	};
	struct socket *sock[2];
	struct net_device *lo;
	struct qpt *t;
	int i;

	t = kunit_kzalloc(test, sizeof(*t), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, t);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, qpt_down_action,
							t), 0);
	lo = swi_kunit_lo(test);
	KUNIT_ASSERT_NOT_NULL(test, lo);
	t->dev = swi_device_add("swkunit0", lo);
	dev_put(lo);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, t->dev);
	t->pd = ib_alloc_pd(t->dev, 0);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, t->pd);
	/* as sysfs rfc7306 (or the module parameter rfc7306=N) makes it */
	if (qpt_ext_off)
		swi_dev_set_ext(to_swi_dev(t->dev), false);
	for (i = 0; i < 2; i++) {
		/* polled by the test; ib_drain_qp() polls it itself */
		t->cq[i] = ib_alloc_cq(t->dev, NULL, 64, 0, IB_POLL_DIRECT);
		KUNIT_ASSERT_NOT_ERR_OR_NULL(test, t->cq[i]);
		qa.send_cq = t->cq[i];
		qa.recv_cq = t->cq[i];
		t->qp[i] = ib_create_qp(t->pd, &qa);
		KUNIT_ASSERT_NOT_ERR_OR_NULL(test, t->qp[i]);
		t->buf[i] = kzalloc(QPT_BUF, GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, t->buf[i]);
		if (rd)
			swi_qp_set_rd_limits(to_swi_qp(t->qp[i]), rd, rd);
	}
	swi_kunit_sock_pair(test, &sock[0], &sock[1]);
	for (i = 0; i < 2; i++) {
		if (!cfg[i]) {
			t->raw = sock[i];
			continue;
		}
		KUNIT_ASSERT_EQ(test, swi_qp_attach(to_swi_qp(t->qp[i]),
						    sock[i], cfg[i], NULL), 0);
		swi_kunit_sock_keep(test, sock[i]);	/* the QP's now */
	}
	return t;
}

/* The same, both QPs connected with @cfg */
static struct qpt *qpt_up_rd(struct kunit *test,
			     const struct eng_stream_cfg *cfg, u32 rd)
{
	const struct eng_stream_cfg *both[2] = { cfg, cfg };

	return qpt_up_pair(test, both, rd);
}

static struct qpt *qpt_up(struct kunit *test, const struct eng_stream_cfg *cfg)
{
	return qpt_up_rd(test, cfg, 0);
}

/* Wait for one completion on @cq */
static int qpt_wait(struct ib_cq *cq, struct ib_wc *wc)
{
	int ms;

	for (ms = 0; ms < QPT_WAIT_MS; ms++) {
		int n = ib_poll_cq(cq, 1, wc);

		if (n)
			return n;
		usleep_range(500, 1000);
	}
	return 0;
}

static void qpt_expect_wc(struct kunit *test, struct ib_cq *cq,
			  enum ib_wc_opcode op, u64 id, u32 len)
{
	struct ib_wc wc;

	KUNIT_ASSERT_EQ(test, qpt_wait(cq, &wc), 1);
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, wc.opcode, op);
	KUNIT_EXPECT_EQ(test, wc.wr_id, id);
	if (op == IB_WC_RECV || op == IB_WC_RDMA_READ)
		KUNIT_EXPECT_EQ(test, wc.byte_len, len);
}

static void qpt_fill(u8 *buf, size_t len, u32 seed)
{
	struct rnd_state rnd;

	prandom_seed_state(&rnd, seed);
	prandom_bytes_state(&rnd, buf, len);
}

static void qpt_post_recv(struct kunit *test, struct qpt *t, int i, u64 id,
			  u32 len)
{
	struct ib_sge sge = {
		.addr = (uintptr_t)t->buf[i], .length = len,
		.lkey = t->pd->local_dma_lkey,
	};
	struct ib_recv_wr wr = { .wr_id = id, .sg_list = &sge, .num_sge = 1 };

	KUNIT_ASSERT_EQ(test, ib_post_recv(t->qp[i], &wr, NULL), 0);
}

static void qpt_post(struct kunit *test, struct qpt *t, int i,
		     struct ib_send_wr *wr, u32 len)
{
	struct ib_sge sge = {
		.addr = (uintptr_t)t->buf[i], .length = len,
		.lkey = t->pd->local_dma_lkey,
	};

	wr->sg_list = &sge;
	wr->num_sge = 1;
	wr->send_flags |= IB_SEND_SIGNALED;
	KUNIT_ASSERT_EQ(test, ib_post_send(t->qp[i], wr, NULL), 0);
}

/* Fast-register @t->buf[@i] for the peer; return the MR */
static struct ib_mr *qpt_reg(struct kunit *test, struct qpt *t, int i,
			     int access)
{
	struct ib_reg_wr wr = {
		.wr = { .opcode = IB_WR_REG_MR, .wr_id = 77,
			.send_flags = IB_SEND_SIGNALED },
		.access = access,
	};
	struct scatterlist sg;
	struct ib_mr *mr;

	mr = ib_alloc_mr(t->pd, IB_MR_TYPE_MEM_REG, QPT_BUF / PAGE_SIZE);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, mr);
	sg_init_one(&sg, t->buf[i], QPT_BUF);
	KUNIT_ASSERT_EQ(test, ib_dma_map_sg(t->dev, &sg, 1,
					    DMA_BIDIRECTIONAL), 1);
	KUNIT_ASSERT_EQ(test, ib_map_mr_sg(mr, &sg, 1, NULL, PAGE_SIZE), 1);
	ib_update_fast_reg_key(mr, 0x5a);
	wr.mr = mr;
	wr.key = mr->rkey;
	KUNIT_ASSERT_EQ(test, ib_post_send(t->qp[i], &wr.wr, NULL), 0);
	qpt_expect_wc(test, t->cq[i], IB_WC_REG_MR, 77, 0);
	return mr;
}

/*
 * The device's counters, read the way rdma statistic reads them: through
 * the device's alloc_hw_port_stats and get_hw_stats operations
 */
static void qpt_counters(struct kunit *test, struct qpt *t,
			 u64 v[SWI_CNT_MAX])
{
	const struct ib_device_ops *ops = &t->dev->ops;
	struct rdma_hw_stats *st;
	int n, i;

	KUNIT_ASSERT_NOT_NULL(test, ops->alloc_hw_port_stats);
	KUNIT_ASSERT_NOT_NULL(test, ops->get_hw_stats);
	st = ops->alloc_hw_port_stats(t->dev, 1);
	KUNIT_ASSERT_NOT_NULL(test, st);
	n = ops->get_hw_stats(t->dev, st, 1, 0);
	if (n == SWI_CNT_MAX && st->num_counters == SWI_CNT_MAX)
		for (i = 0; i < SWI_CNT_MAX; i++)
			v[i] = st->value[i];
	rdma_free_hw_stats_struct(st);
	KUNIT_ASSERT_EQ(test, n, SWI_CNT_MAX);
}

/*
 * Wait until at least @min_tx FPDUs were sent and every FPDU sent has been
 * received (the sender counts a batch once sendmsg() returned, which may
 * be after the peer completed it; a Terminate may leave after the error
 * it follows completed); both QPs are on the one device. Return the
 * counters.
 */
static void qpt_counters_settled_at(struct kunit *test, struct qpt *t,
				    u64 v[SWI_CNT_MAX], u64 min_tx)
{
	int ms;

	for (ms = 0; ms < QPT_WAIT_MS; ms++) {
		qpt_counters(test, t, v);
		if (v[SWI_CNT_TX_FPDUS] >= min_tx &&
		    v[SWI_CNT_TX_FPDUS] == v[SWI_CNT_RX_FPDUS] &&
		    v[SWI_CNT_TX_OCTETS] == v[SWI_CNT_RX_OCTETS])
			return;
		usleep_range(500, 1000);
	}
}

static void qpt_counters_settled(struct kunit *test, struct qpt *t,
				 u64 v[SWI_CNT_MAX])
{
	qpt_counters_settled_at(test, t, v, 0);
}

/* The counters after a clean exchange of at least @octets payload */
static void qpt_expect_clean_counters(struct kunit *test, struct qpt *t,
				      const struct eng_stream_cfg *cfg,
				      u64 octets)
{
	u64 v[SWI_CNT_MAX] = {};
	int i;

	qpt_counters_settled(test, t, v);
	KUNIT_EXPECT_EQ(test, v[SWI_CNT_TX_FPDUS], v[SWI_CNT_RX_FPDUS]);
	KUNIT_EXPECT_EQ(test, v[SWI_CNT_TX_OCTETS], v[SWI_CNT_RX_OCTETS]);
	KUNIT_EXPECT_EQ(test, v[SWI_CNT_TX_MARKERS], v[SWI_CNT_RX_MARKERS]);
	/* at least the payload, and one header and CRC per FPDU */
	KUNIT_EXPECT_GE(test, v[SWI_CNT_TX_OCTETS],
			octets + 6 * v[SWI_CNT_TX_FPDUS]);
	KUNIT_EXPECT_GE(test, v[SWI_CNT_TX_FPDUS],
			octets / MPA_MULPDU_MAX + 1);
	if (cfg->tx.markers)
		/* one every 512 octets of each of the two streams */
		KUNIT_EXPECT_GE(test, v[SWI_CNT_TX_MARKERS] + 2,
				v[SWI_CNT_TX_OCTETS] / 512);
	else
		KUNIT_EXPECT_EQ(test, v[SWI_CNT_TX_MARKERS], 0);
	KUNIT_EXPECT_EQ(test, v[SWI_CNT_RX_CRC_ERRORS], 0);
	for (i = SWI_CNT_TX_TERM_RDMAP; i <= SWI_CNT_RX_TERM_LLP; i++)
		KUNIT_EXPECT_EQ_MSG(test, v[i], 0, "counter %d", i);
	KUNIT_EXPECT_EQ(test, v[SWI_CNT_WR_FLUSHED], 0);
	KUNIT_EXPECT_EQ(test, v[SWI_CNT_CQ_OVERFLOWS], 0);
}

/* Send, RDMA Write (fenced by a Send) and RDMA Read, all checked */
static void qpt_ops(struct kunit *test, const struct eng_stream_cfg *cfg)
{
	struct qpt *t = qpt_up(test, cfg);
	struct ib_rdma_wr rw = {};
	struct ib_send_wr sw = {};
	struct ib_mr *mr;

	/* Send A -> B */
	qpt_fill(t->buf[0], QPT_LEN, 1);
	qpt_post_recv(test, t, 1, 11, QPT_BUF);
	sw.opcode = IB_WR_SEND;
	sw.wr_id = 12;
	qpt_post(test, t, 0, &sw, QPT_LEN);
	qpt_expect_wc(test, t->cq[0], IB_WC_SEND, 12, 0);
	qpt_expect_wc(test, t->cq[1], IB_WC_RECV, 11, QPT_LEN);
	KUNIT_EXPECT_EQ(test, memcmp(t->buf[0], t->buf[1], QPT_LEN), 0);

	/* RDMA Write A -> B's MR, then a Send to know it was placed */
	mr = qpt_reg(test, t, 1, IB_ACCESS_LOCAL_WRITE |
			      IB_ACCESS_REMOTE_WRITE | IB_ACCESS_REMOTE_READ);
	qpt_fill(t->buf[0], QPT_LEN, 2);
	memset(t->buf[1], 0, QPT_BUF);
	rw.wr.opcode = IB_WR_RDMA_WRITE;
	rw.wr.wr_id = 13;
	rw.remote_addr = mr->iova + 100;
	rw.rkey = mr->rkey;
	qpt_post(test, t, 0, &rw.wr, QPT_LEN);
	qpt_expect_wc(test, t->cq[0], IB_WC_RDMA_WRITE, 13, 0);
	qpt_post_recv(test, t, 1, 14, 0);
	memset(&sw, 0, sizeof(sw));
	sw.opcode = IB_WR_SEND;
	sw.wr_id = 15;
	qpt_post(test, t, 0, &sw, 0);
	qpt_expect_wc(test, t->cq[0], IB_WC_SEND, 15, 0);
	qpt_expect_wc(test, t->cq[1], IB_WC_RECV, 14, 0);
	KUNIT_EXPECT_EQ(test, memcmp(t->buf[0], t->buf[1] + 100, QPT_LEN), 0);

	/* RDMA Read of B's MR into A's buffer */
	qpt_fill(t->buf[1], QPT_BUF, 3);
	memset(t->buf[0], 0, QPT_BUF);
	memset(&rw, 0, sizeof(rw));
	rw.wr.opcode = IB_WR_RDMA_READ;
	rw.wr.wr_id = 16;
	rw.remote_addr = mr->iova + 7;
	rw.rkey = mr->rkey;
	qpt_post(test, t, 0, &rw.wr, QPT_LEN);
	qpt_expect_wc(test, t->cq[0], IB_WC_RDMA_READ, 16, QPT_LEN);
	KUNIT_EXPECT_EQ(test, memcmp(t->buf[0], t->buf[1] + 7, QPT_LEN), 0);
	KUNIT_EXPECT_EQ(test, ib_dereg_mr(mr), 0);
	qpt_expect_clean_counters(test, t, cfg, 3ULL * QPT_LEN);
}

static void qpt_ops_crc(struct kunit *test)
{
	const struct eng_stream_cfg cfg = {
		.tx = { .crc = true }, .rx = { .crc = true },
	};

	qpt_ops(test, &cfg);
}

static void qpt_ops_plain(struct kunit *test)
{
	const struct eng_stream_cfg cfg = {};

	qpt_ops(test, &cfg);
}

static void qpt_ops_markers(struct kunit *test)
{
	/* Full Operation starting mid-stream, as after a Request/Reply */
	const struct eng_stream_cfg cfg = {
		.tx = { .pos = 44, .markers = true, .crc = true },
		.rx = { .pos = 44, .markers = true, .crc = true },
	};

	qpt_ops(test, &cfg);
}

/* Octets of transmit buffers the stream of QP @i holds now */
static u32 qpt_tx_buf(struct qpt *t, int i)
{
	struct eng_stream_info si;

	swi_eng_stream_get_info(to_swi_qp(t->qp[i])->stream, &si);
	return si.tx_buf;
}

/*
 * A connected QP that sends nothing holds no transmit buffers; its first
 * message allocates them, and they go once the transmitter has been idle
 * ENG_TX_IDLE_MS; the next message allocates them again
 */
static void qpt_tx_buffers_on_demand(struct kunit *test)
{
	const struct eng_stream_cfg cfg = {};
	struct qpt *t = qpt_up(test, &cfg);
	struct ib_send_wr sw = { .opcode = IB_WR_SEND };
	int round, ms;

	KUNIT_EXPECT_EQ(test, qpt_tx_buf(t, 0), 0);
	KUNIT_EXPECT_EQ(test, qpt_tx_buf(t, 1), 0);
	for (round = 0; round < 2; round++) {
		qpt_post_recv(test, t, 1, 20 + round, QPT_BUF);
		sw.wr_id = 30 + round;
		qpt_post(test, t, 0, &sw, QPT_LEN);
		qpt_expect_wc(test, t->cq[0], IB_WC_SEND, 30 + round, 0);
		qpt_expect_wc(test, t->cq[1], IB_WC_RECV, 20 + round, QPT_LEN);
		KUNIT_EXPECT_GT(test, qpt_tx_buf(t, 0), 0);
		KUNIT_EXPECT_EQ(test, qpt_tx_buf(t, 1), 0);	/* sent nothing */
		for (ms = 0; ms < 4 * ENG_TX_IDLE_MS && qpt_tx_buf(t, 0);
		     ms += 20)
			msleep(20);
		KUNIT_EXPECT_EQ(test, qpt_tx_buf(t, 0), 0);
	}
}

static enum ib_qp_state qpt_state(struct qpt *t, int i)
{
	struct ib_qp_init_attr init;
	struct ib_qp_attr attr;

	ib_query_qp(t->qp[i], &attr, IB_QP_STATE, &init);
	return attr.qp_state;
}

static bool qpt_wait_state(struct qpt *t, int i, enum ib_qp_state s)
{
	int ms;

	for (ms = 0; ms < QPT_WAIT_MS; ms++) {
		if (qpt_state(t, i) == s)
			return true;
		usleep_range(500, 1000);
	}
	return false;
}

/*
 * One Terminate went out, counted as @tx, and came in, counted as @rx;
 * no other Terminate counter moved
 */
static void qpt_expect_terms(struct kunit *test, struct qpt *t,
			     enum swi_counter tx, enum swi_counter rx)
{
	u64 v[SWI_CNT_MAX] = {};
	int i, ms;

	for (ms = 0; ms < QPT_WAIT_MS; ms++) {
		qpt_counters(test, t, v);
		if (v[tx] && v[rx])
			break;
		usleep_range(500, 1000);
	}
	for (i = SWI_CNT_TX_TERM_RDMAP; i <= SWI_CNT_RX_TERM_LLP; i++)
		KUNIT_EXPECT_EQ_MSG(test, v[i], i == tx || i == rx ? 1 : 0,
				    "counter %d", i);
}

/* An RDMA Write to an STag that does not exist: Terminate, both ERROR */
static void qpt_bad_stag_terminates(struct kunit *test)
{
	const struct eng_stream_cfg cfg = {
		.tx = { .crc = true }, .rx = { .crc = true },
	};
	struct qpt *t = qpt_up(test, &cfg);
	struct ib_rdma_wr rw = {
		.wr = { .opcode = IB_WR_RDMA_WRITE, .wr_id = 21 },
		.remote_addr = 0x1000,
		.rkey = 0xabcdef01,
	};
	struct ib_wc wc;

	qpt_post_recv(test, t, 0, 22, 64);
	qpt_post(test, t, 0, &rw.wr, 64);
	KUNIT_EXPECT_TRUE(test, qpt_wait_state(t, 1, IB_QPS_ERR));
	KUNIT_EXPECT_TRUE(test, qpt_wait_state(t, 0, IB_QPS_ERR));
	/* A's posted receive is flushed */
	while (qpt_wait(t->cq[0], &wc) && wc.wr_id != 22)
		;
	KUNIT_EXPECT_EQ(test, wc.wr_id, 22);
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_WR_FLUSH_ERR);
	/* B sent a DDP Terminate (invalid STag), A received it */
	qpt_expect_terms(test, t, SWI_CNT_TX_TERM_DDP, SWI_CNT_RX_TERM_DDP);
}

/*
 * A's FPDUs carry no CRC while B checks them (as if the wire had changed
 * them): B counts a CRC error and answers with an LLP Terminate, which A,
 * not checking CRCs, receives
 */
static void qpt_crc_error_terminates(struct kunit *test)
{
	const struct eng_stream_cfg a = {};
	const struct eng_stream_cfg b = { .rx = { .crc = true } };
	const struct eng_stream_cfg *cfg[2] = { &a, &b };
	struct qpt *t = qpt_up_pair(test, cfg, 0);
	struct ib_send_wr sw = { .opcode = IB_WR_SEND, .wr_id = 31 };
	u64 *v = kunit_kcalloc(test, SWI_CNT_MAX, sizeof(*v), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, v);
	qpt_post_recv(test, t, 1, 32, QPT_BUF);
	qpt_post(test, t, 0, &sw, 64);
	KUNIT_EXPECT_TRUE(test, qpt_wait_state(t, 1, IB_QPS_ERR));
	KUNIT_EXPECT_TRUE(test, qpt_wait_state(t, 0, IB_QPS_ERR));
	qpt_expect_terms(test, t, SWI_CNT_TX_TERM_LLP, SWI_CNT_RX_TERM_LLP);
	qpt_counters(test, t, v);
	KUNIT_EXPECT_EQ(test, v[SWI_CNT_RX_CRC_ERRORS], 1);
	/* B's receive was flushed, so was A's Send if still unfinished */
	KUNIT_EXPECT_GE(test, v[SWI_CNT_WR_FLUSHED], 1);
}

/*
 * A Send whose first SGE is good and whose second names no object fails
 * its check: the first SGE's MR, which the transmitter keeps for the
 * gather once checked, must be let go at once, so that the consumer can
 * deregister it while the QP lives on (swi_rdmap_mem_dereg() waits for the
 * last reference).
 */
static void qpt_failed_check_releases_mr(struct kunit *test)
{
	const struct eng_stream_cfg cfg = {};
	struct qpt *t = qpt_up(test, &cfg);
	struct ib_mr *mr = qpt_reg(test, t, 0, IB_ACCESS_LOCAL_WRITE);
	struct ib_sge sge[2] = {
		{ .addr = mr->iova, .length = 64, .lkey = mr->lkey },
		{ .addr = (uintptr_t)t->buf[0], .length = 64,
		  .lkey = 0x00bad0a5 },
	};
	struct ib_send_wr wr = { .opcode = IB_WR_SEND, .wr_id = 27,
				 .send_flags = IB_SEND_SIGNALED,
				 .sg_list = sge, .num_sge = 2 };
	struct ib_wc wc;

	KUNIT_ASSERT_EQ(test, ib_post_send(t->qp[0], &wr, NULL), 0);
	KUNIT_ASSERT_EQ(test, qpt_wait(t->cq[0], &wc), 1);
	KUNIT_EXPECT_EQ(test, wc.wr_id, 27);
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_LOC_PROT_ERR);
	KUNIT_EXPECT_TRUE(test, qpt_wait_state(t, 0, IB_QPS_ERR));
	KUNIT_EXPECT_EQ(test, ib_dereg_mr(mr), 0);
}

/*
 * A local error on the send side (a Send whose lkey does not exist): the
 * work request completes with a local protection error, and the peer is
 * told with a Terminate (RFC 5040 section 7) that takes it to ERROR well
 * before the teardown timer could; then both QPs are in ERROR.
 */
static void qpt_local_error_terminates(struct kunit *test)
{
	const struct eng_stream_cfg cfg = {};
	struct qpt *t = qpt_up(test, &cfg);
	struct ib_send_wr wr = { .opcode = IB_WR_SEND, .wr_id = 25,
				 .send_flags = IB_SEND_SIGNALED };
	struct ib_sge sge = { .addr = (uintptr_t)t->buf[0], .length = 64,
			      .lkey = 0x00bad0a5 };
	struct ib_wc wc;

	qpt_post_recv(test, t, 1, 26, 64);
	wr.sg_list = &sge;
	wr.num_sge = 1;
	KUNIT_ASSERT_EQ(test, ib_post_send(t->qp[0], &wr, NULL), 0);
	KUNIT_ASSERT_EQ(test, qpt_wait(t->cq[0], &wc), 1);
	KUNIT_EXPECT_EQ(test, wc.wr_id, 25);
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_LOC_PROT_ERR);
	KUNIT_EXPECT_TRUE(test, qpt_wait_state(t, 1, IB_QPS_ERR));
	KUNIT_EXPECT_TRUE(test, qpt_wait_state(t, 0, IB_QPS_ERR));
	/* B's receive is flushed, never filled */
	KUNIT_ASSERT_EQ(test, qpt_wait(t->cq[1], &wc), 1);
	KUNIT_EXPECT_EQ(test, wc.wr_id, 26);
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_WR_FLUSH_ERR);
}

static void qpt_tx_faults_off(void *unused)
{
	swi_eng_tx_fail_allocs(0);
}

/*
 * The transmitter finds no memory for what a work request needs, with
 * the first of @fails allocations failing: for a Send its buffers, for a
 * Read, once a Send has given it buffers, the ORQ. The work request
 * completes with LOC_QP_OP_ERR and both QPs end in ERROR, B's receive
 * flushed: told by a Terminate (RDMAP) when only that one allocation
 * fails, by a reset when the Terminate's fails too.
 */
static void qpt_tx_nomem(struct kunit *test, bool read, unsigned int fails)
{
	const struct eng_stream_cfg cfg = {};
	struct qpt *t = qpt_up(test, &cfg);
	struct ib_send_wr sw = { .opcode = IB_WR_SEND, .wr_id = 41 };
	struct ib_rdma_wr rw = {
		.wr = { .opcode = IB_WR_RDMA_READ, .wr_id = 42 },
	};
	u64 *v = kunit_kcalloc(test, SWI_CNT_MAX, sizeof(*v), GFP_KERNEL);
	struct ib_mr *mr = NULL;
	struct ib_wc wc;
	int i;

	KUNIT_ASSERT_NOT_NULL(test, v);
	qpt_post_recv(test, t, 1, 43, QPT_BUF);
	if (read) {
		qpt_post(test, t, 0, &sw, 64);
		qpt_expect_wc(test, t->cq[0], IB_WC_SEND, 41, 0);
		qpt_expect_wc(test, t->cq[1], IB_WC_RECV, 43, 64);
		qpt_post_recv(test, t, 1, 43, QPT_BUF);
		mr = qpt_reg(test, t, 1, IB_ACCESS_LOCAL_WRITE |
				      IB_ACCESS_REMOTE_READ);
		rw.remote_addr = mr->iova;
		rw.rkey = mr->rkey;
	}
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, qpt_tx_faults_off,
							NULL), 0);
	swi_eng_tx_fail_allocs(fails);
	qpt_post(test, t, 0, read ? &rw.wr : &sw, 64);
	KUNIT_ASSERT_EQ(test, qpt_wait(t->cq[0], &wc), 1);
	KUNIT_EXPECT_EQ(test, wc.wr_id, read ? 42 : 41);
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_LOC_QP_OP_ERR);
	KUNIT_EXPECT_TRUE(test, qpt_wait_state(t, 1, IB_QPS_ERR));
	KUNIT_EXPECT_TRUE(test, qpt_wait_state(t, 0, IB_QPS_ERR));
	KUNIT_ASSERT_EQ(test, qpt_wait(t->cq[1], &wc), 1);
	KUNIT_EXPECT_EQ(test, wc.wr_id, 43);
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_WR_FLUSH_ERR);
	if (fails == 1) {
		qpt_expect_terms(test, t, SWI_CNT_TX_TERM_RDMAP,
				 SWI_CNT_RX_TERM_RDMAP);
	} else {
		qpt_counters(test, t, v);
		for (i = SWI_CNT_TX_TERM_RDMAP; i <= SWI_CNT_RX_TERM_LLP; i++)
			KUNIT_EXPECT_EQ_MSG(test, v[i], 0, "counter %d", i);
	}
	if (mr)
		KUNIT_EXPECT_EQ(test, ib_dereg_mr(mr), 0);
}

static void qpt_tx_nomem_send_terminates(struct kunit *test)
{
	qpt_tx_nomem(test, false, 1);
}

static void qpt_tx_nomem_read_terminates(struct kunit *test)
{
	qpt_tx_nomem(test, true, 1);
}

static void qpt_tx_nomem_term_resets(struct kunit *test)
{
	qpt_tx_nomem(test, false, 2);
}

/*
 * B's CQ (64 entries) is never polled while A sends it five rounds of 16
 * Sends: the 65th receive completion finds it full. The CQ overflows, so
 * B's QP fails (local error, a Terminate to A) and both end in ERROR;
 * without that, B would go on placing data it can no longer report.
 */
static void qpt_cq_overflow_fails_qp(struct kunit *test)
{
	const struct eng_stream_cfg cfg = {};
	struct qpt *t = qpt_up(test, &cfg);
	/* on the heap: the frame outgrew 1024 octets on the KASAN kernel */
	u64 *v = kunit_kcalloc(test, SWI_CNT_MAX, sizeof(*v), GFP_KERNEL);
	struct ib_wc wc;
	int round, i;

	KUNIT_ASSERT_NOT_NULL(test, v);
	for (round = 0; round < 5; round++) {
		for (i = 0; i < 16; i++)
			qpt_post_recv(test, t, 1, 1000 + i, 64);
		for (i = 0; i < 16; i++) {
			struct ib_send_wr wr = { .opcode = IB_WR_SEND,
						 .wr_id = i };

			qpt_post(test, t, 0, &wr, 64);
		}
		for (i = 0; i < 16; i++) {
			KUNIT_ASSERT_EQ(test, qpt_wait(t->cq[0], &wc), 1);
			if (wc.status != IB_WC_SUCCESS)
				break;
		}
		if (i < 16)	/* A was told already */
			break;
	}
	KUNIT_EXPECT_TRUE(test, qpt_wait_state(t, 1, IB_QPS_ERR));
	KUNIT_EXPECT_TRUE(test, qpt_wait_state(t, 0, IB_QPS_ERR));
	qpt_counters(test, t, v);
	KUNIT_EXPECT_GE(test, v[SWI_CNT_CQ_OVERFLOWS], 1);
}

/*
 * B closes in order (SQD) while it owes A the Response to an RDMA Read:
 * the Response still goes out before B's FIN, A's Read completes with
 * its data, and the close stays orderly. A Send behind the Read tells B
 * that the Read Request has arrived (TCP keeps them in order).
 */
static void qpt_close_answers_read(struct kunit *test)
{
	const struct eng_stream_cfg cfg = {
		.tx = { .crc = true }, .rx = { .crc = true },
	};
	struct qpt *t = qpt_up(test, &cfg);
	struct ib_mr *mr = qpt_reg(test, t, 1, IB_ACCESS_LOCAL_WRITE |
					       IB_ACCESS_REMOTE_READ);
	/* a and wc on the heap: a frame over 1024 octets on the KASAN kernel */
	struct ib_qp_attr *a = kunit_kzalloc(test, sizeof(*a), GFP_KERNEL);
	struct ib_rdma_wr rw = {
		.wr = { .opcode = IB_WR_RDMA_READ, .wr_id = 81 },
		.rkey = mr->rkey,
	};
	struct ib_send_wr sw = { .opcode = IB_WR_SEND, .wr_id = 82 };
	struct ib_wc *wc = kunit_kzalloc(test, sizeof(*wc), GFP_KERNEL);
	int i;

	qpt_fill(t->buf[1], QPT_BUF, 8);
	qpt_post_recv(test, t, 1, 83, 0);
	rw.remote_addr = mr->iova;
	qpt_post(test, t, 0, &rw.wr, QPT_BUF);
	qpt_post(test, t, 0, &sw, 0);
	qpt_expect_wc(test, t->cq[1], IB_WC_RECV, 83, 0);
	KUNIT_ASSERT_NOT_NULL(test, a);
	KUNIT_ASSERT_NOT_NULL(test, wc);
	a->qp_state = IB_QPS_SQD;
	KUNIT_ASSERT_EQ(test, ib_modify_qp(t->qp[1], a, IB_QP_STATE), 0);
	/* in either order: loopback may deliver the Send inside sendmsg() */
	for (i = 0; i < 2; i++) {
		KUNIT_ASSERT_EQ(test, qpt_wait(t->cq[0], wc), 1);
		KUNIT_EXPECT_EQ(test, wc->status, IB_WC_SUCCESS);
		KUNIT_EXPECT_EQ(test, wc->opcode, wc->wr_id == 81 ?
				IB_WC_RDMA_READ : IB_WC_SEND);
		if (wc->wr_id == 81)
			KUNIT_EXPECT_EQ(test, wc->byte_len, QPT_BUF);
	}
	KUNIT_EXPECT_EQ(test, memcmp(t->buf[0], t->buf[1], QPT_BUF), 0);
	/* both sides closed in order: IDLE, shown as ERR to the IB verbs */
	KUNIT_EXPECT_TRUE(test, qpt_wait_state(t, 0, IB_QPS_ERR));
	KUNIT_EXPECT_TRUE(test, qpt_wait_state(t, 1, IB_QPS_ERR));
	KUNIT_EXPECT_EQ(test, ib_dereg_mr(mr), 0);
}

/*
 * A close requested while a Send still waits on the SQ (QP 0 holds its
 * transmitter, as a responder before the peer's first FPDU): that is work
 * outstanding, so the QP goes to ERROR and aborts the stream instead of
 * closing in order with the Send flushed unsent behind a clean FIN.
 */
static void qpt_close_with_queued_send_aborts(struct kunit *test)
{
	const struct eng_stream_cfg held = { .hold = true }, plain = { };
	const struct eng_stream_cfg *cfg[2] = { &held, &plain };
	struct qpt *t = qpt_up_pair(test, cfg, 0);
	/* on the heap: a frame over 1024 octets on the KASAN kernel */
	struct ib_qp_attr *a = kunit_kzalloc(test, sizeof(*a), GFP_KERNEL);
	struct ib_send_wr sw = { .opcode = IB_WR_SEND, .wr_id = 91 };
	struct ib_wc wc;
	int state;

	KUNIT_ASSERT_NOT_NULL(test, a);
	a->qp_state = IB_QPS_SQD;
	qpt_post(test, t, 0, &sw, 8);
	KUNIT_ASSERT_EQ(test, ib_modify_qp(t->qp[0], a, IB_QP_STATE), 0);
	state = READ_ONCE(to_swi_qp(t->qp[0])->state);
	KUNIT_EXPECT_EQ(test, state, RDMAP_QPS_ERROR);
	KUNIT_ASSERT_EQ(test, qpt_wait(t->cq[0], &wc), 1);
	KUNIT_EXPECT_EQ(test, wc.wr_id, 91);
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_WR_FLUSH_ERR);
	KUNIT_EXPECT_TRUE(test, qpt_wait_state(t, 1, IB_QPS_ERR));
}

/*
 * RFC 5041 section 6.2.1: once the graceful close began, a data transfer
 * request gets an error. QP 0 closes (SQD: CLOSING) towards a raw peer
 * that does not close, so it stays in CLOSING; a Send posted then
 * completes with a flush error and nothing of it leaves.
 */
static void qpt_post_in_closing_flushed(struct kunit *test)
{
	const struct eng_stream_cfg cfg = {};
	const struct eng_stream_cfg *both[2] = { &cfg, NULL };
	struct qpt *t = qpt_up_pair(test, both, 0);
	struct ib_qp_attr *a = kunit_kzalloc(test, sizeof(*a), GFP_KERNEL);
	struct ib_send_wr sw = { .opcode = IB_WR_SEND, .wr_id = 95 };
	u64 v[SWI_CNT_MAX] = {};
	struct ib_wc wc;

	KUNIT_ASSERT_NOT_NULL(test, a);
	a->qp_state = IB_QPS_SQD;
	KUNIT_ASSERT_EQ(test, ib_modify_qp(t->qp[0], a, IB_QP_STATE), 0);
	KUNIT_ASSERT_EQ(test, READ_ONCE(to_swi_qp(t->qp[0])->state),
			RDMAP_QPS_CLOSING);
	qpt_post(test, t, 0, &sw, 8);
	KUNIT_ASSERT_EQ(test, qpt_wait(t->cq[0], &wc), 1);
	KUNIT_EXPECT_EQ(test, wc.wr_id, 95);
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_WR_FLUSH_ERR);
	qpt_counters(test, t, v);
	KUNIT_EXPECT_EQ(test, v[SWI_CNT_TX_FPDUS], 0);
}

/*
 * RFC 5040 section 6.2 (cm.rst, "Teardown"): a consumer that destroys its
 * QP right after rdma_disconnect() (SQD, CLOSING; cmtime does) still ends
 * the close in order: the peer reads our FIN, and no RST follows. QP 0
 * closes towards a raw peer that does not close, so it is still CLOSING
 * when destroyed. Before, destroy_qp reset the stream in any state.
 */
static void qpt_destroy_in_closing_sends_fin(struct kunit *test)
{
	const struct eng_stream_cfg cfg = {};
	const struct eng_stream_cfg *both[2] = { &cfg, NULL };
	struct qpt *t = qpt_up_pair(test, both, 0);
	struct ib_qp_attr *a = kunit_kzalloc(test, sizeof(*a), GFP_KERNEL);
	struct msghdr msg = {};
	struct kvec kv;
	int err;
	u8 c;

	KUNIT_ASSERT_NOT_NULL(test, a);
	t->raw->sk->sk_rcvtimeo = msecs_to_jiffies(QPT_WAIT_MS);
	a->qp_state = IB_QPS_SQD;
	KUNIT_ASSERT_EQ(test, ib_modify_qp(t->qp[0], a, IB_QP_STATE), 0);
	KUNIT_ASSERT_EQ(test, ib_destroy_qp(t->qp[0]), 0);
	t->qp[0] = NULL;
	kv = (struct kvec){ .iov_base = &c, .iov_len = 1 };
	KUNIT_EXPECT_EQ_MSG(test, kernel_recvmsg(t->raw, &msg, &kv, 1, 1, 0),
			    0, "no FIN from the destroyed QP");
	msleep(200);	/* an RST would follow the FIN at once */
	err = READ_ONCE(t->raw->sk->sk_err);
	KUNIT_EXPECT_EQ_MSG(test, err, 0, "the stream was reset, state %u",
			    READ_ONCE(t->raw->sk->sk_state));
}

/*
 * swi_qp_take_sqe() checks its hold on the copy it hands out, never on a
 * second read of the slot: with the transmitter held, an RDMA Read stays
 * on the SQ under ENG_SQ_HOLD_READ (-EAGAIN, the copy showing the Read),
 * a fenced Send under ENG_SQ_HOLD_FENCE, and a hold on Reads lets a plain
 * Send through; each is then taken whole, in order, once released.
 */
static void qpt_take_sqe_hold(struct kunit *test)
{
	const struct eng_stream_cfg held = { .hold = true }, plain = { };
	const struct eng_stream_cfg *cfg[2] = { &held, &plain };
	struct qpt *t = qpt_up_pair(test, cfg, 1);
	struct swi_qp *qp = to_swi_qp(t->qp[0]);
	struct ib_rdma_wr rd = {
		.wr = { .opcode = IB_WR_RDMA_READ, .wr_id = 31 },
		.remote_addr = 4096, .rkey = 0x1234,
	};
	struct ib_send_wr fenced = {
		.opcode = IB_WR_SEND, .wr_id = 32, .send_flags = IB_SEND_FENCE,
	};
	struct ib_send_wr send = { .opcode = IB_WR_SEND, .wr_id = 33 };
	struct siw_sqe sqe;

	qpt_post(test, t, 0, &rd.wr, 64);
	qpt_post(test, t, 0, &fenced, 8);
	qpt_post(test, t, 0, &send, 8);
	KUNIT_EXPECT_EQ(test, swi_qp_take_sqe(qp, &sqe, NULL, ENG_SQ_HOLD_READ),
			-EAGAIN);
	KUNIT_EXPECT_EQ(test, sqe.id, 31);
	KUNIT_EXPECT_EQ(test, swi_qp_take_sqe(qp, &sqe, NULL, ENG_SQ_HOLD_FENCE), 0);
	KUNIT_EXPECT_EQ(test, sqe.id, 31);
	KUNIT_EXPECT_EQ(test, sqe.opcode, SIW_OP_READ);
	KUNIT_EXPECT_EQ(test, swi_qp_take_sqe(qp, &sqe, NULL, ENG_SQ_HOLD_FENCE),
			-EAGAIN);
	KUNIT_EXPECT_EQ(test, swi_qp_take_sqe(qp, &sqe, NULL, ENG_SQ_HOLD_READ), 0);
	KUNIT_EXPECT_EQ(test, sqe.id, 32);
	KUNIT_EXPECT_TRUE(test, sqe.flags & SIW_WQE_READ_FENCE);
	KUNIT_EXPECT_EQ(test, swi_qp_take_sqe(qp, &sqe, NULL, ENG_SQ_HOLD_READ |
					      ENG_SQ_HOLD_FENCE), 0);
	KUNIT_EXPECT_EQ(test, sqe.id, 33);
	KUNIT_EXPECT_EQ(test, swi_qp_take_sqe(qp, &sqe, NULL, 0), -ENOENT);
}

/*
 * Busy-poll @cq for one completion, for at most QPT_WAIT_MS, as a kernel
 * poller must: giving the CPU up when the scheduler asks for it
 * (cond_resched()), as blk-mq's polling stops at need_resched(). The
 * transmitter's worker runs on the CPU that queued it, here this one: a
 * poller that never yields would keep it from running.
 */
static int qpt_spin(struct ib_cq *cq, struct ib_wc *wc)
{
	unsigned long end = jiffies + msecs_to_jiffies(QPT_WAIT_MS);

	do {
		int n = ib_poll_cq(cq, 1, wc);

		if (n)
			return n;
		cpu_relax();
		cond_resched();
	} while (time_before(jiffies, end));
	return 0;
}

/*
 * IRD and ORD of 1, one RDMA Read after the other, each posted the moment
 * the previous one completes: the requester must never have two Read
 * Requests outstanding, and the responder must free its one IRD entry in
 * time for the next; a second Request would be one beyond the IRD and end
 * in a Terminate. (The race of a Request arriving while the Response is
 * still in sendmsg() shows under perftest -D, tools/e2e/04, not here.)
 */
static void qpt_read_ird_one(struct kunit *test)
{
	const struct eng_stream_cfg cfg = { };
	struct qpt *t = qpt_up_rd(test, &cfg, 1);
	struct ib_mr *mr = qpt_reg(test, t, 1, IB_ACCESS_LOCAL_WRITE |
					       IB_ACCESS_REMOTE_READ);
	struct ib_rdma_wr rw = {
		.wr = { .opcode = IB_WR_RDMA_READ },
		.rkey = mr->rkey,
	};
	struct ib_wc wc;
	int i;

	qpt_fill(t->buf[1], QPT_BUF, 9);
	for (i = 0; i < 2000; i++) {
		rw.wr.wr_id = i;
		rw.remote_addr = mr->iova + (i % 16) * 64;
		qpt_post(test, t, 0, &rw.wr, 64);
		KUNIT_ASSERT_EQ(test, qpt_spin(t->cq[0], &wc), 1);
		KUNIT_ASSERT_EQ_MSG(test, wc.status, IB_WC_SUCCESS,
				    "Read %d", i);
		KUNIT_EXPECT_EQ(test, wc.wr_id, i);
	}
	KUNIT_EXPECT_EQ(test, memcmp(t->buf[0], t->buf[1] + 15 * 64, 64), 0);
	KUNIT_EXPECT_EQ(test, ib_dereg_mr(mr), 0);
}

/*
 * An ORD of 0 (the peer announced IRD 0, RFC 6581 section 9.1): a Read
 * posted anyway fails locally and no Read Request leaves (RFC 5040
 * section 6.1); the responder answered none, having received none.
 */
static void qpt_read_with_ord_0_refused(struct kunit *test)
{
	const struct eng_stream_cfg no_reads = { .rd_limits = true, .ird = 1 };
	const struct eng_stream_cfg plain = { .rd_limits = true, .ird = 1,
					      .ord = 1 };
	const struct eng_stream_cfg *cfg[2] = { &no_reads, &plain };
	struct qpt *t = qpt_up_pair(test, cfg, 0);
	struct ib_mr *mr = qpt_reg(test, t, 1, IB_ACCESS_LOCAL_WRITE |
					       IB_ACCESS_REMOTE_READ);
	struct ib_rdma_wr rw = {
		.wr = { .opcode = IB_WR_RDMA_READ, .wr_id = 5 },
		.rkey = mr->rkey, .remote_addr = mr->iova,
	};
	u64 v[SWI_CNT_MAX] = {};
	struct ib_wc wc;

	qpt_post(test, t, 0, &rw.wr, 64);
	KUNIT_ASSERT_EQ(test, qpt_wait(t->cq[0], &wc), 1);
	KUNIT_EXPECT_EQ(test, wc.wr_id, 5);
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_LOC_QP_OP_ERR);
	/*
	 * the one FPDU of the pair: the Terminate of QP 0, no Read Request
	 * (the local error completes before the Terminate leaves: wait for
	 * it)
	 */
	qpt_counters_settled_at(test, t, v, 1);
	KUNIT_EXPECT_EQ(test, v[SWI_CNT_TX_FPDUS], 1);
	KUNIT_EXPECT_EQ(test, v[SWI_CNT_TX_TERM_RDMAP] +
			v[SWI_CNT_TX_TERM_DDP] + v[SWI_CNT_TX_TERM_LLP], 1);
	KUNIT_EXPECT_EQ(test, ib_dereg_mr(mr), 0);
}

/*
 * An IRD of 0 (the ULP set no responder resources, RFC 5040 section 6.1):
 * the first Read Request finds no buffer on queue 1, DDP Terminate
 * 1/2/0x02, and the requester's Read completes in error. Before, the IRD
 * was raised to 1 and the Read was answered.
 */
static void qpt_ird_0_refuses_read(struct kunit *test)
{
	const struct eng_stream_cfg reader = { .rd_limits = true, .ird = 1,
					       .ord = 1 };
	const struct eng_stream_cfg no_ird = { .rd_limits = true, .ord = 1 };
	const struct eng_stream_cfg *cfg[2] = { &reader, &no_ird };
	struct qpt *t = qpt_up_pair(test, cfg, 0);
	struct ib_mr *mr = qpt_reg(test, t, 1, IB_ACCESS_LOCAL_WRITE |
					       IB_ACCESS_REMOTE_READ);
	struct ib_rdma_wr rw = {
		.wr = { .opcode = IB_WR_RDMA_READ, .wr_id = 6 },
		.rkey = mr->rkey, .remote_addr = mr->iova,
	};
	u64 v[SWI_CNT_MAX] = {};
	struct ib_wc wc;

	qpt_post(test, t, 0, &rw.wr, 64);
	KUNIT_ASSERT_EQ(test, qpt_wait(t->cq[0], &wc), 1);
	KUNIT_EXPECT_EQ(test, wc.wr_id, 6);
	KUNIT_EXPECT_NE(test, wc.status, IB_WC_SUCCESS);
	KUNIT_EXPECT_TRUE(test, qpt_wait_state(t, 1, IB_QPS_ERR));
	qpt_counters_settled_at(test, t, v, 2);	/* Read Request, Terminate */
	KUNIT_EXPECT_EQ(test, v[SWI_CNT_TX_TERM_DDP], 1);
	KUNIT_EXPECT_EQ(test, ib_dereg_mr(mr), 0);
}

/* Send with Invalidate: B's STag is invalid afterwards */
static void qpt_send_invalidate(struct kunit *test)
{
	const struct eng_stream_cfg cfg = {
		.tx = { .crc = true }, .rx = { .crc = true },
	};
	struct qpt *t = qpt_up(test, &cfg);
	struct ib_send_wr sw = { .opcode = IB_WR_SEND_WITH_INV, .wr_id = 31 };
	struct ib_mr *mr = qpt_reg(test, t, 1, IB_ACCESS_LOCAL_WRITE |
					       IB_ACCESS_REMOTE_WRITE);
	struct rdmap_mem *mem;
	struct ib_wc wc;

	qpt_post_recv(test, t, 1, 32, 64);
	sw.ex.invalidate_rkey = mr->rkey;
	qpt_post(test, t, 0, &sw, 16);
	qpt_expect_wc(test, t->cq[0], IB_WC_SEND, 31, 0);
	KUNIT_ASSERT_EQ(test, qpt_wait(t->cq[1], &wc), 1);
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_SUCCESS);
	KUNIT_EXPECT_TRUE(test, wc.wc_flags & IB_WC_WITH_INVALIDATE);
	KUNIT_EXPECT_EQ(test, wc.ex.invalidate_rkey, mr->rkey);
	mem = swi_rdmap_mem_lookup(&to_swi_dev(t->dev)->mem, mr->rkey);
	KUNIT_ASSERT_FALSE(test, IS_ERR(mem));
	KUNIT_EXPECT_FALSE(test, mem->valid);
	swi_rdmap_mem_put(mem);
	KUNIT_EXPECT_EQ(test, ib_dereg_mr(mr), 0);
}

/* One rdma_rw context (REG_MR + Read with Invalidate on iWARP), polled */
static void qpt_rw_one(struct kunit *test, struct qpt *t, struct ib_mr *mr,
		       u32 off, enum dma_data_direction dir)
{
	struct rdma_rw_ctx ctx;
	struct scatterlist sg;
	struct ib_cqe cqe = {};
	struct ib_wc wc;
	int n;

	sg_init_one(&sg, t->buf[0] + off, QPT_LEN);
	n = rdma_rw_ctx_init(&ctx, t->qp[0], 1, &sg, 1, 0, mr->iova + off,
			     mr->rkey, dir);
	KUNIT_ASSERT_GT(test, n, 0);
	KUNIT_ASSERT_EQ(test, rdma_rw_ctx_post(&ctx, t->qp[0], 1, &cqe, NULL),
			0);
	/* unsignalled REG_MR, signalled Read/Write: one completion */
	KUNIT_ASSERT_EQ(test, qpt_wait(t->cq[0], &wc), 1);
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_SUCCESS);
	KUNIT_EXPECT_PTR_EQ(test, wc.wr_cqe, &cqe);
	KUNIT_EXPECT_EQ(test, wc.opcode, dir == DMA_FROM_DEVICE ?
			IB_WC_RDMA_READ : IB_WC_RDMA_WRITE);
	rdma_rw_ctx_destroy(&ctx, t->qp[0], 1, &sg, 1, dir);
}

/* Is the STag of the MR the rdma_rw API used last still valid? */
static bool qpt_stag_valid(struct qpt *t, u32 stag)
{
	struct rdmap_mem *mem = swi_rdmap_mem_lookup(&to_swi_dev(t->dev)->mem,
						     stag);
	bool valid;

	if (IS_ERR(mem))
		return false;
	valid = mem->valid && mem->key == rdmap_stag_key(stag);
	swi_rdmap_mem_put(mem);
	return valid;
}

/* Wait up to QPT_WAIT_MS for @stag to be valid */
static bool qpt_wait_stag(struct qpt *t, u32 stag)
{
	int ms;

	for (ms = 0; ms < QPT_WAIT_MS && !qpt_stag_valid(t, stag); ms++)
		usleep_range(500, 1000);
	return qpt_stag_valid(t, stag);
}

/*
 * The kernel's rdma_rw API, as nvmet-rdma, svcrdma and isert use it: on
 * iWARP a Read registers the sink with REG_MR and reads with
 * IB_WR_RDMA_READ_WITH_INV; the sink STag is invalid once the Read
 * completed. Several rounds reuse the MR pool (new key each time).
 */
static void qpt_rdma_rw(struct kunit *test)
{
	const struct eng_stream_cfg cfg = {
		.tx = { .crc = true }, .rx = { .crc = true },
	};
	struct qpt *t = qpt_up(test, &cfg);
	struct ib_mr *mr = qpt_reg(test, t, 1, IB_ACCESS_LOCAL_WRITE |
					       IB_ACCESS_REMOTE_WRITE |
					       IB_ACCESS_REMOTE_READ);
	struct ib_mr *pmr;
	int round;

	KUNIT_EXPECT_EQ(test, t->dev->attrs.max_sge_rd, 1);
	for (round = 0; round < 2 * QPT_RW_CTXS; round++) {
		u32 off = 13 * round;

		qpt_fill(t->buf[1], QPT_BUF, 40 + round);
		memset(t->buf[0], 0, QPT_BUF);
		qpt_rw_one(test, t, mr, off, DMA_FROM_DEVICE);
		KUNIT_EXPECT_EQ(test, memcmp(t->buf[0] + off, t->buf[1] + off,
					     QPT_LEN), 0);
		/* every pool MR was used and invalidated by its Read */
		list_for_each_entry(pmr, &t->qp[0]->rdma_mrs, qp_entry)
			KUNIT_EXPECT_FALSE(test, qpt_stag_valid(t, pmr->lkey));
	}
	qpt_fill(t->buf[0], QPT_BUF, 50);
	qpt_rw_one(test, t, mr, 5, DMA_TO_DEVICE);
	/* a Send after the Write: the Write was placed when it arrives */
	qpt_post_recv(test, t, 1, 51, 0);
	{
		struct ib_send_wr sw = { .opcode = IB_WR_SEND, .wr_id = 52 };

		qpt_post(test, t, 0, &sw, 0);
	}
	qpt_expect_wc(test, t->cq[0], IB_WC_SEND, 52, 0);
	qpt_expect_wc(test, t->cq[1], IB_WC_RECV, 51, 0);
	KUNIT_EXPECT_EQ(test, memcmp(t->buf[0] + 5, t->buf[1] + 5, QPT_LEN), 0);
	KUNIT_EXPECT_EQ(test, ib_dereg_mr(mr), 0);
}

/* Read with Invalidate of an STag that cannot be: local protection error */
static void qpt_read_inv_bad_stag(struct kunit *test)
{
	const struct eng_stream_cfg cfg = {
		.tx = { .crc = true }, .rx = { .crc = true },
	};
	struct qpt *t = qpt_up(test, &cfg);
	struct ib_mr *mr = qpt_reg(test, t, 1, IB_ACCESS_LOCAL_WRITE |
					       IB_ACCESS_REMOTE_READ);
	struct ib_rdma_wr rw = {
		.wr = { .opcode = IB_WR_RDMA_READ_WITH_INV, .wr_id = 61 },
		.rkey = mr->rkey,
	};
	struct ib_sge sge = { .addr = (uintptr_t)t->buf[0], .length = 64,
			      .lkey = t->pd->local_dma_lkey };
	const struct ib_send_wr *bad;
	struct ib_wc wc;

	rw.remote_addr = mr->iova;
	/* invalidate_rkey must name the sink's MR: refused at post time */
	rw.wr.sg_list = &sge;
	rw.wr.num_sge = 1;
	rw.wr.ex.invalidate_rkey = mr->rkey;
	KUNIT_EXPECT_EQ(test, ib_post_send(t->qp[0], &rw.wr, &bad), -EINVAL);
	/* the local DMA lkey cannot be invalidated: fails at completion */
	rw.wr.ex.invalidate_rkey = t->pd->local_dma_lkey;
	qpt_post(test, t, 0, &rw.wr, 64);
	KUNIT_ASSERT_EQ(test, qpt_wait(t->cq[0], &wc), 1);
	KUNIT_EXPECT_EQ(test, wc.wr_id, 61);
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_LOC_PROT_ERR);
	KUNIT_EXPECT_EQ(test, ib_dereg_mr(mr), 0);
}

/*
 * A fast-register MR of 64 KiB pages (RTRS maps its 128 KiB chunks as
 * pages of their size): an RDMA Write lands across its pages at the right
 * offsets, a Read takes them back, and the region ends where it is mapped
 */
static void qpt_big_page_mr(struct kunit *test)
{
	const struct eng_stream_cfg cfg = {};
	struct qpt *t = qpt_up(test, &cfg);
	struct ib_reg_wr wr = {
		.wr = { .opcode = IB_WR_REG_MR, .wr_id = 78,
			.send_flags = IB_SEND_SIGNALED },
		.access = IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE |
			  IB_ACCESS_REMOTE_READ,
	};
	struct scatterlist sg;
	struct ib_mr *mr;

	mr = ib_alloc_mr(t->pd, IB_MR_TYPE_MEM_REG, 2);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, mr);
	sg_init_one(&sg, t->buf[1], QPT_BUF);
	KUNIT_ASSERT_EQ(test, ib_dma_map_sg(t->dev, &sg, 1,
					    DMA_BIDIRECTIONAL), 1);
	KUNIT_ASSERT_EQ(test, ib_map_mr_sg(mr, &sg, 1, NULL, SZ_64K), 1);
	KUNIT_EXPECT_EQ(test, mr->length, QPT_BUF);
	ib_update_fast_reg_key(mr, 0x5b);
	wr.mr = mr;
	wr.key = mr->rkey;
	KUNIT_ASSERT_EQ(test, ib_post_send(t->qp[1], &wr.wr, NULL), 0);
	qpt_expect_wc(test, t->cq[1], IB_WC_REG_MR, 78, 0);
	qpt_fill(t->buf[0], QPT_BUF, 79);
	qpt_rw_one(test, t, mr, 13, DMA_TO_DEVICE);
	KUNIT_EXPECT_EQ(test, memcmp(t->buf[1] + 13, t->buf[0] + 13, QPT_LEN),
			0);
	memset(t->buf[0], 0, QPT_BUF);
	qpt_rw_one(test, t, mr, 13, DMA_FROM_DEVICE);
	KUNIT_EXPECT_EQ(test, memcmp(t->buf[1] + 13, t->buf[0] + 13, QPT_LEN),
			0);
	KUNIT_EXPECT_EQ(test, ib_dereg_mr(mr), 0);
}

/*
 * Send with Immediate (RFC 7306 has none), atomics (not carried yet), LSO:
 * refused at post time, nothing sent
 */
static void qpt_unsupported_wr(struct kunit *test)
{
	static const enum ib_wr_opcode ops[] = {
		IB_WR_SEND_WITH_IMM, IB_WR_LSO,
	};
	const struct eng_stream_cfg cfg = {};
	struct qpt *t = qpt_up(test, &cfg);
	struct ib_send_wr ok = { .opcode = IB_WR_SEND, .wr_id = 71,
				 .send_flags = IB_SEND_SIGNALED };
	struct ib_atomic_wr aw = {};
	const struct ib_send_wr *bad;
	struct ib_wc wc;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(ops); i++) {
		aw.wr.opcode = ops[i];
		aw.wr.next = NULL;
		bad = NULL;
		KUNIT_EXPECT_EQ(test, ib_post_send(t->qp[0], &aw.wr, &bad),
				-EOPNOTSUPP);
		KUNIT_EXPECT_PTR_EQ(test, bad, &aw.wr);
	}
	/* an unknown send flag is refused too; the good one before it posts */
	aw.wr.opcode = IB_WR_SEND;
	aw.wr.send_flags = IB_SEND_IP_CSUM;
	ok.next = &aw.wr;
	qpt_post_recv(test, t, 1, 72, 0);
	KUNIT_EXPECT_EQ(test, ib_post_send(t->qp[0], &ok, &bad), -EINVAL);
	KUNIT_EXPECT_PTR_EQ(test, bad, &aw.wr);
	qpt_expect_wc(test, t->cq[0], IB_WC_SEND, 71, 0);
	qpt_expect_wc(test, t->cq[1], IB_WC_RECV, 72, 0);
	KUNIT_EXPECT_EQ(test, ib_poll_cq(t->cq[1], 1, &wc), 0);
}

struct qpt_count {
	struct ib_cqe cqe;
	int flushed;
};

static void qpt_count_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct qpt_count *c = container_of(wc->wr_cqe, struct qpt_count, cqe);

	c->flushed += wc->status == IB_WC_WR_FLUSH_ERR;
}

/* ib_drain_qp() as ULPs call it on teardown: returns, all flushed */
static void qpt_drain(struct kunit *test)
{
	const struct eng_stream_cfg cfg = { .tx = { .crc = true },
					    .rx = { .crc = true } };
	struct qpt *t = qpt_up(test, &cfg);
	struct qpt_count c = { .cqe.done = qpt_count_done };
	struct ib_sge sge = { .addr = (uintptr_t)t->buf[0], .length = 64,
			      .lkey = t->pd->local_dma_lkey };
	struct ib_recv_wr rw[2] = {
		{ .wr_cqe = &c.cqe, .sg_list = &sge, .num_sge = 1,
		  .next = &rw[1] },
		{ .wr_cqe = &c.cqe, .sg_list = &sge, .num_sge = 1 },
	};
	struct ib_wc wc;

	KUNIT_ASSERT_EQ(test, ib_post_recv(t->qp[0], rw, NULL), 0);
	/* polls the CQ itself (IB_POLL_DIRECT) until its markers came */
	ib_drain_qp(t->qp[0]);
	KUNIT_EXPECT_EQ(test, qpt_state(t, 0), IB_QPS_ERR);
	KUNIT_EXPECT_EQ(test, c.flushed, 2);
	KUNIT_EXPECT_EQ(test, ib_poll_cq(t->cq[0], 1, &wc), 0);
	/* the peer learns of it: its QP leaves RTS */
	KUNIT_EXPECT_TRUE(test, qpt_wait_state(t, 1, IB_QPS_ERR));
}

/*
 * The limits the device reports are the ones it enforces: one past each is
 * refused (ULPs size their work requests and MR pools by them).
 */
static void qpt_limits(struct kunit *test)
{
	const struct eng_stream_cfg cfg = {};
	struct qpt *t = qpt_up(test, &cfg);
	const struct ib_device_attr *a = &t->dev->attrs;
	struct ib_qp_init_attr qa = {
		.send_cq = t->cq[0], .recv_cq = t->cq[0],
		.cap = { .max_send_wr = 4, .max_recv_wr = 4,
			 .max_send_sge = a->max_send_sge + 1, .max_recv_sge = 1 },
		.qp_type = IB_QPT_RC,
	};
	struct ib_sge sge[2] = {
		{ .addr = (uintptr_t)t->buf[0], .length = 8,
		  .lkey = t->pd->local_dma_lkey },
		{ .addr = (uintptr_t)t->buf[0] + 8, .length = 8,
		  .lkey = t->pd->local_dma_lkey },
	};
	struct ib_rdma_wr rw = {
		.wr = { .opcode = IB_WR_RDMA_READ, .sg_list = sge,
			.num_sge = a->max_sge_rd + 1 },
	};
	const struct ib_send_wr *bad;
	struct scatterlist sg;
	struct ib_mr *mr;

	KUNIT_EXPECT_EQ(test, PTR_ERR(ib_create_qp(t->pd, &qa)), -EINVAL);
	qa.cap.max_send_sge = 1;
	qa.cap.max_recv_sge = a->max_recv_sge + 1;
	KUNIT_EXPECT_EQ(test, PTR_ERR(ib_create_qp(t->pd, &qa)), -EINVAL);
	qa.cap.max_recv_sge = 1;
	qa.cap.max_send_wr = a->max_qp_wr + 1;
	KUNIT_EXPECT_EQ(test, PTR_ERR(ib_create_qp(t->pd, &qa)), -EINVAL);
	qa.cap.max_send_wr = 4;
	qa.cap.max_recv_wr = a->max_qp_wr + 1;
	KUNIT_EXPECT_EQ(test, PTR_ERR(ib_create_qp(t->pd, &qa)), -EINVAL);
	KUNIT_EXPECT_EQ(test, ib_post_send(t->qp[0], &rw.wr, &bad), -EINVAL);

	mr = ib_alloc_mr(t->pd, IB_MR_TYPE_MEM_REG,
			 a->max_fast_reg_page_list_len + 1);
	KUNIT_EXPECT_EQ(test, PTR_ERR(mr), -EINVAL);
	mr = ib_alloc_mr(t->pd, IB_MR_TYPE_MEM_REG, a->max_fast_reg_page_list_len);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, mr);
	sg_init_one(&sg, t->buf[0], 4 * PAGE_SIZE);
	/* page sizes: the powers of two of page_size_cap, nothing else */
	KUNIT_EXPECT_EQ(test, a->page_size_cap, GENMASK_ULL(31, PAGE_SHIFT));
	KUNIT_EXPECT_LT(test, ib_map_mr_sg(mr, &sg, 1, NULL, 3 * PAGE_SIZE), 0);
	KUNIT_EXPECT_LT(test, ib_map_mr_sg(mr, &sg, 1, NULL, PAGE_SIZE / 2), 0);
	KUNIT_EXPECT_EQ(test, ib_map_mr_sg(mr, &sg, 1, NULL, PAGE_SIZE), 1);
	KUNIT_EXPECT_EQ(test, ib_dereg_mr(mr), 0);
}

/* A QP of every per-QP maximum is created; its IRD and ORD go to theirs */
static void qpt_limits_qp_at(struct kunit *test)
{
	const struct eng_stream_cfg cfg = {};
	struct qpt *t = qpt_up(test, &cfg);
	const struct ib_device_attr *a = &t->dev->attrs;
	struct ib_qp_init_attr qa = {
		.send_cq = t->cq[0], .recv_cq = t->cq[0],
		.cap = { .max_send_wr = a->max_qp_wr,
			 .max_recv_wr = a->max_qp_wr,
			 .max_send_sge = a->max_send_sge,
			 .max_recv_sge = a->max_recv_sge },
		.qp_type = IB_QPT_RC,
	};
	struct ib_qp_attr qpa = {
		.max_rd_atomic = a->max_qp_init_rd_atom,
		.max_dest_rd_atomic = a->max_qp_rd_atom,
	};
	struct ib_qp_init_attr init;
	struct ib_qp *qp;

	KUNIT_EXPECT_EQ(test, a->max_qp_init_rd_atom, SWI_MAX_ORD);
	KUNIT_EXPECT_EQ(test, a->max_qp_rd_atom, SWI_MAX_IRD);
	/* RFC 7306 atomics, atomic among the device's own (section 5.3) */
	KUNIT_EXPECT_EQ(test, a->atomic_cap, IB_ATOMIC_HCA);
	KUNIT_EXPECT_EQ(test, a->masked_atomic_cap, IB_ATOMIC_HCA);
	qp = ib_create_qp(t->pd, &qa);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, qp);
	KUNIT_EXPECT_EQ(test, ib_modify_qp(qp, &qpa, IB_QP_MAX_QP_RD_ATOMIC |
					   IB_QP_MAX_DEST_RD_ATOMIC), 0);
	KUNIT_EXPECT_EQ(test, ib_query_qp(qp, &qpa, IB_QP_MAX_QP_RD_ATOMIC |
					  IB_QP_MAX_DEST_RD_ATOMIC, &init), 0);
	KUNIT_EXPECT_EQ(test, qpa.max_rd_atomic, a->max_qp_init_rd_atom);
	KUNIT_EXPECT_EQ(test, qpa.max_dest_rd_atomic, a->max_qp_rd_atom);
	KUNIT_EXPECT_GE(test, init.cap.max_send_wr, a->max_qp_wr);
	KUNIT_EXPECT_GE(test, init.cap.max_recv_wr, a->max_qp_wr);
	qpa.max_rd_atomic = a->max_qp_init_rd_atom + 1;
	KUNIT_EXPECT_EQ(test, ib_modify_qp(qp, &qpa, IB_QP_MAX_QP_RD_ATOMIC),
			-EINVAL);
	qpa.max_dest_rd_atomic = a->max_qp_rd_atom + 1;
	KUNIT_EXPECT_EQ(test, ib_modify_qp(qp, &qpa, IB_QP_MAX_DEST_RD_ATOMIC),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, ib_destroy_qp(qp), 0);
}

/* CQ and SRQ: the largest is created, one entry or SGE more is refused */
static void qpt_limits_cq_srq(struct kunit *test)
{
	const struct eng_stream_cfg cfg = {};
	struct qpt *t = qpt_up(test, &cfg);
	const struct ib_device_attr *a = &t->dev->attrs;
	struct ib_srq_init_attr sa = {
		.attr = { .max_wr = a->max_srq_wr, .max_sge = a->max_srq_sge },
	};
	struct ib_srq *srq;
	struct ib_cq *cq;

	cq = ib_alloc_cq(t->dev, NULL, a->max_cqe, 0, IB_POLL_DIRECT);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, cq);
	KUNIT_EXPECT_GE(test, cq->cqe, a->max_cqe);
	ib_free_cq(cq);
	cq = ib_alloc_cq(t->dev, NULL, a->max_cqe + 1, 0, IB_POLL_DIRECT);
	KUNIT_EXPECT_EQ(test, PTR_ERR(cq), -EINVAL);

	srq = ib_create_srq(t->pd, &sa);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, srq);
	ib_destroy_srq(srq);
	sa.attr.max_wr = a->max_srq_wr + 1;
	KUNIT_EXPECT_EQ(test, PTR_ERR(ib_create_srq(t->pd, &sa)), -EINVAL);
	sa.attr.max_wr = 1;
	sa.attr.max_sge = a->max_srq_sge + 1;
	KUNIT_EXPECT_EQ(test, PTR_ERR(ib_create_srq(t->pd, &sa)), -EINVAL);
}

/* The value of driver attribute @name in the table at the start of @skb */
static struct nlattr *qpt_res_attr(struct sk_buff *skb, const char *name)
{
	struct nlattr *table = (struct nlattr *)skb->data, *a;
	bool want_name = true, hit = false;
	int rem;

	nla_for_each_nested(a, table, rem) {
		if (nla_type(a) == RDMA_NLDEV_ATTR_DRIVER_STRING && want_name) {
			hit = !strcmp(nla_data(a), name);
			want_name = false;
		} else if (nla_type(a) == RDMA_NLDEV_ATTR_DRIVER_STRING ||
			   nla_type(a) == RDMA_NLDEV_ATTR_DRIVER_U32) {
			if (hit)
				return a;
			want_name = true;
		}
	}
	return NULL;
}

static u32 qpt_res_u32(struct kunit *test, struct sk_buff *skb,
		       const char *name)
{
	struct nlattr *a = qpt_res_attr(skb, name);

	KUNIT_ASSERT_NOT_NULL_MSG(test, a, "no attribute %s", name);
	KUNIT_ASSERT_EQ(test, nla_type(a), RDMA_NLDEV_ATTR_DRIVER_U32);
	return nla_get_u32(a);
}

static const char *qpt_res_str(struct kunit *test, struct sk_buff *skb,
			       const char *name)
{
	struct nlattr *a = qpt_res_attr(skb, name);

	KUNIT_ASSERT_NOT_NULL_MSG(test, a, "no attribute %s", name);
	KUNIT_ASSERT_EQ(test, nla_type(a), RDMA_NLDEV_ATTR_DRIVER_STRING);
	return nla_data(a);
}

static void qpt_kfree_skb(void *skb)
{
	kfree_skb(skb);
}

static struct sk_buff *qpt_res_skb(struct kunit *test, unsigned int size)
{
	struct sk_buff *skb = alloc_skb(size, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, skb);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, qpt_kfree_skb,
							skb), 0);
	return skb;
}

static void qpt_destroy_srq(void *srq)
{
	ib_destroy_srq(srq);
}

static void qpt_destroy_qp(void *qp)
{
	ib_destroy_qp(qp);
}

/*
 * RFC 5041 section 8.3.2, item 5: with receive buffers shared across
 * streams, a peer consuming more than its share can be told. Two QPs on
 * one SRQ; the receiver takes two entries for the first, one for the
 * second; rdma resource show gives each QP's srq_taken.
 */
static void qpt_srq_share_shown(struct kunit *test)
{
	const struct eng_stream_cfg cfg = {};
	const struct eng_stream_cfg *both[2] = { NULL, &cfg };
	struct qpt *t = qpt_up_pair(test, both, 0);
	const struct ib_device_ops *ops = &t->dev->ops;
	struct ib_srq_init_attr sa = { .attr = { .max_wr = 8, .max_sge = 1 } };
	struct ib_qp_init_attr qa = {
		.cap = { .max_send_wr = 4, .max_send_sge = 1 },
		.qp_type = IB_QPT_RC, .sq_sig_type = IB_SIGNAL_REQ_WR,
		.send_cq = t->cq[0], .recv_cq = t->cq[0],
	};
	struct ib_recv_wr wr = {};
	struct sk_buff *skb;
	struct siw_rqe rqe;
	struct ib_qp *qp[2];
	int i, err;

	qa.srq = ib_create_srq(t->pd, &sa);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, qa.srq);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, qpt_destroy_srq,
							qa.srq), 0);
	for (i = 0; i < 2; i++) {
		qp[i] = ib_create_qp(t->pd, &qa);
		KUNIT_ASSERT_NOT_ERR_OR_NULL(test, qp[i]);
		err = kunit_add_action_or_reset(test, qpt_destroy_qp, qp[i]);
		KUNIT_ASSERT_EQ(test, err, 0);
	}
	for (i = 0; i < 3; i++) {
		wr.wr_id = 90 + i;
		KUNIT_ASSERT_EQ(test, ib_post_srq_recv(qa.srq, &wr, NULL), 0);
	}
	KUNIT_EXPECT_EQ(test, swi_qp_take_rqe(to_swi_qp(qp[0]), &rqe), 0);
	KUNIT_EXPECT_EQ(test, swi_qp_take_rqe(to_swi_qp(qp[1]), &rqe), 0);
	KUNIT_EXPECT_EQ(test, swi_qp_take_rqe(to_swi_qp(qp[0]), &rqe), 0);
	KUNIT_EXPECT_EQ(test, swi_qp_take_rqe(to_swi_qp(qp[1]), &rqe),
			-ENOENT);	/* an empty SRQ gives nothing to count */
	for (i = 0; i < 2; i++) {
		skb = qpt_res_skb(test, NLMSG_GOODSIZE);
		KUNIT_ASSERT_EQ(test, ops->fill_res_qp_entry(skb, qp[i]), 0);
		KUNIT_EXPECT_EQ(test, qpt_res_u32(test, skb, "srq"), 1);
		KUNIT_EXPECT_EQ(test, qpt_res_u32(test, skb, "srq_taken"),
				i ? 1 : 2);
		KUNIT_EXPECT_NULL(test, qpt_res_attr(skb, "rq_taken"));
	}
}

/* rdma resource show: the driver attributes of a connected QP, CQ and MR */
static void qpt_restrack(struct kunit *test)
{
	const struct eng_stream_cfg cfg = {
		.tx = { .crc = true, .markers = true },
		.rx = { .crc = true, .markers = true },
		.rev = 2, .p2p = true,
	};
	struct qpt *t = qpt_up_rd(test, &cfg, 3);
	const struct ib_device_ops *ops = &t->dev->ops;
	struct ib_qp_init_attr init;
	struct ib_qp_attr qpa;
	struct sk_buff *skb = qpt_res_skb(test, NLMSG_GOODSIZE);
	struct ib_mr *mr;

	KUNIT_ASSERT_EQ(test, ops->fill_res_qp_entry(skb, t->qp[0]), 0);
	KUNIT_EXPECT_STREQ(test, qpt_res_str(test, skb, "iwarp_state"), "RTS");
	KUNIT_EXPECT_STREQ(test, qpt_res_str(test, skb, "role"), "initiator");
	KUNIT_EXPECT_EQ(test, qpt_res_u32(test, skb, "mpa_rev"), 2);
	KUNIT_EXPECT_EQ(test, qpt_res_u32(test, skb, "crc_tx"), 1);
	KUNIT_EXPECT_EQ(test, qpt_res_u32(test, skb, "markers_rx"), 1);
	KUNIT_EXPECT_EQ(test, qpt_res_u32(test, skb, "p2p"), 1);
	KUNIT_EXPECT_EQ(test, qpt_res_u32(test, skb, "rtr"), 0);
	KUNIT_EXPECT_EQ(test, qpt_res_u32(test, skb, "ird"), 3);
	KUNIT_EXPECT_EQ(test, qpt_res_u32(test, skb, "ord"), 3);
	/* rdma_rw's contexts enlarge the SQ: the size query_qp reports */
	KUNIT_ASSERT_EQ(test, ib_query_qp(t->qp[0], &qpa, 0, &init), 0);
	KUNIT_EXPECT_EQ(test, qpt_res_u32(test, skb, "sq_size"),
			init.cap.max_send_wr);
	KUNIT_EXPECT_EQ(test, qpt_res_u32(test, skb, "rq_size"),
			init.cap.max_recv_wr);
	KUNIT_EXPECT_EQ(test, qpt_res_u32(test, skb, "sq_posted"), 0);
	KUNIT_EXPECT_GE(test, qpt_res_u32(test, skb, "mulpdu"), 128);

	skb = qpt_res_skb(test, NLMSG_GOODSIZE);
	KUNIT_ASSERT_EQ(test, ops->fill_res_cq_entry(skb, t->cq[0]), 0);
	KUNIT_EXPECT_EQ(test, qpt_res_u32(test, skb, "ring_size"), 64);
	KUNIT_EXPECT_STREQ(test, qpt_res_str(test, skb, "owner"), "kernel");

	mr = ib_alloc_mr(t->pd, IB_MR_TYPE_MEM_REG, 8);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, mr);
	skb = qpt_res_skb(test, NLMSG_GOODSIZE);
	KUNIT_EXPECT_EQ(test, ops->fill_res_mr_entry(skb, mr), 0);
	KUNIT_EXPECT_STREQ(test, qpt_res_str(test, skb, "kind"), "frmr");
	KUNIT_EXPECT_EQ(test, qpt_res_u32(test, skb, "valid"), 0);
	KUNIT_EXPECT_EQ(test, qpt_res_u32(test, skb, "max_pages"), 8);
	KUNIT_EXPECT_EQ(test, ib_dereg_mr(mr), 0);
}

/* An unconnected QP has no MPA attributes; a full message is reported */
static void qpt_restrack_idle(struct kunit *test)
{
	const struct eng_stream_cfg cfg = {};
	struct qpt *t = qpt_up(test, &cfg);
	struct ib_qp_init_attr qa = {
		.send_cq = t->cq[0], .recv_cq = t->cq[0],
		.cap = { .max_send_wr = 4, .max_recv_wr = 4,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.qp_type = IB_QPT_RC,
	};
	struct sk_buff *skb = qpt_res_skb(test, NLMSG_GOODSIZE);
	struct ib_qp *qp = ib_create_qp(t->pd, &qa);

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, qp);
	KUNIT_EXPECT_EQ(test, t->dev->ops.fill_res_qp_entry(skb, qp), 0);
	KUNIT_EXPECT_STREQ(test, qpt_res_str(test, skb, "iwarp_state"), "IDLE");
	KUNIT_EXPECT_NULL(test, qpt_res_attr(skb, "mpa_rev"));
	skb = qpt_res_skb(test, 64);
	skb_put(skb, skb_tailroom(skb) - 32);	/* room for 32 octets */
	KUNIT_EXPECT_EQ(test, t->dev->ops.fill_res_qp_entry(skb, qp), -EMSGSIZE);
	KUNIT_EXPECT_EQ(test, skb_tailroom(skb), 32);	/* nest cancelled */
	KUNIT_EXPECT_EQ(test, ib_destroy_qp(qp), 0);
}

/* Wait up to QPT_WAIT_MS for octet @at of @buf to be @v */
static bool qpt_wait_byte(const u8 *buf, size_t at, u8 v)
{
	int ms;

	for (ms = 0; ms < QPT_WAIT_MS; ms++) {
		if (READ_ONCE(buf[at]) == v)
			return true;
		usleep_range(500, 1000);
	}
	return false;
}

/* The references on the MR of @stag: one is the caller's, from the lookup */
static unsigned int qpt_mem_refs(struct kunit *test, struct qpt *t, u32 stag)
{
	struct rdmap_mem *mem = swi_rdmap_mem_lookup(&to_swi_dev(t->dev)->mem,
						     stag);
	unsigned int refs;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, mem);
	refs = kref_read(&mem->ref);
	swi_rdmap_mem_put(mem);
	return refs;
}

/*
 * The peer (a raw socket) sends the header and 16 of the 64 payload
 * octets of an RDMA Write into B's MR, without CRCs (so nothing is held
 * back for a check), and stops. B places what came; the segment never
 * completes, but B's receiver only holds the MR (swi_rdmap_mem_hold()): no
 * reference is left between two reads of the socket, and the consumer
 * can deregister the MR at once while the QP lives on (rping hung in D
 * state when swi_rdmap_mem_dereg() waited for a cut segment's reference).
 */
static void qpt_cut_write_releases_mr(struct kunit *test)
{
	const struct eng_stream_cfg cfg = {};
	const struct eng_stream_cfg *both[2] = { NULL, &cfg };
	struct qpt *t = qpt_up_pair(test, both, 0);
	struct ib_mr *mr = qpt_reg(test, t, 1, IB_ACCESS_LOCAL_WRITE |
					       IB_ACCESS_REMOTE_WRITE);
	struct ddp_hdr_info h = {
		.tagged = 1, .last = 1, .dv = DDP_VERSION, .rv = RDMAP_VERSION,
		.opcode = RDMAP_WRITE, .stag = mr->rkey, .to = mr->iova,
	};
	struct msghdr msg = { .msg_flags = MSG_NOSIGNAL };
	u8 buf[MPA_HDR_SIZE + DDP_TAGGED_HDR_SIZE + 16] = {};
	struct kvec kv = { .iov_base = buf, .iov_len = sizeof(buf) };
	__be16 ulen = cpu_to_be16(DDP_TAGGED_HDR_SIZE + 64);
	unsigned int base = qpt_mem_refs(test, t, mr->rkey);

	memcpy(buf, &ulen, sizeof(ulen));
	KUNIT_ASSERT_EQ(test, swi_ddp_hdr_build(buf + MPA_HDR_SIZE,
						DDP_TAGGED_HDR_SIZE, &h),
			DDP_TAGGED_HDR_SIZE);
	memset(buf + MPA_HDR_SIZE + DDP_TAGGED_HDR_SIZE, 0x5a, 16);
	KUNIT_ASSERT_EQ(test, kernel_sendmsg(t->raw, &msg, &kv, 1,
					     sizeof(buf)), sizeof(buf));
	/* what came of the payload was placed */
	KUNIT_ASSERT_TRUE(test, qpt_wait_byte(t->buf[1], 15, 0x5a));
	KUNIT_EXPECT_EQ_MSG(test, qpt_mem_refs(test, t, mr->rkey), base,
			    "the cut segment keeps a reference to the MR");
	KUNIT_EXPECT_EQ(test, qpt_state(t, 1), IB_QPS_RTS);
	if (qpt_mem_refs(test, t, mr->rkey) != base) {
		ib_destroy_qp(t->qp[1]);	/* the dereg would wait */
		t->qp[1] = NULL;
	}
	KUNIT_EXPECT_EQ(test, ib_dereg_mr(mr), 0);
}

/*
 * The peer side of a raw socket: one whole FPDU around @ulpdu, its CRC
 * field @crc (what a stream without CRCs ignores)
 */
static void qpt_raw_fpdu(struct kunit *test, struct qpt *t, const void *ulpdu,
			 u16 len, __le32 crc)
{
	unsigned int pad = mpa_pad_len(len);
	size_t n = MPA_HDR_SIZE + len + pad + MPA_CRC_SIZE;
	struct msghdr msg = { .msg_flags = MSG_NOSIGNAL };
	__be16 ulen = cpu_to_be16(len);
	struct kvec kv;
	u8 *buf;

	buf = kunit_kzalloc(test, n, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, buf);
	memcpy(buf, &ulen, MPA_HDR_SIZE);
	memcpy(buf + MPA_HDR_SIZE, ulpdu, len);
	memcpy(buf + MPA_HDR_SIZE + len + pad, &crc, MPA_CRC_SIZE);
	kv = (struct kvec){ .iov_base = buf, .iov_len = n };
	KUNIT_ASSERT_EQ(test, kernel_sendmsg(t->raw, &msg, &kv, 1, n), n);
}

/* A tagged segment from the raw peer: @opcode, @stag, @to, @len of @fill */
static void qpt_raw_tagged(struct kunit *test, struct qpt *t, u8 opcode,
			   u32 stag, u64 to, u16 len, u8 fill, __le32 crc)
{
	struct ddp_hdr_info h = {
		.tagged = 1, .last = 1, .dv = DDP_VERSION, .rv = RDMAP_VERSION,
		.opcode = opcode, .stag = stag, .to = to,
	};
	u8 *u = kunit_kzalloc(test, DDP_TAGGED_HDR_SIZE + len, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, u);
	KUNIT_ASSERT_EQ(test, swi_ddp_hdr_build(u, DDP_TAGGED_HDR_SIZE, &h),
			DDP_TAGGED_HDR_SIZE);
	memset(u + DDP_TAGGED_HDR_SIZE, fill, len);
	qpt_raw_fpdu(test, t, u, DDP_TAGGED_HDR_SIZE + len, crc);
}

/* An untagged segment from the raw peer on queue @qn */
static void qpt_raw_untagged(struct kunit *test, struct qpt *t, u8 opcode,
			     u32 qn, u32 msn, u32 mo, bool last,
			     const void *payload, u16 len)
{
	struct ddp_hdr_info h = {
		.last = last, .dv = DDP_VERSION, .rv = RDMAP_VERSION,
		.opcode = opcode, .qn = qn, .msn = msn, .mo = mo,
	};
	u8 *u = kunit_kzalloc(test, DDP_UNTAGGED_HDR_SIZE + len, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, u);
	KUNIT_ASSERT_EQ(test, swi_ddp_hdr_build(u, DDP_UNTAGGED_HDR_SIZE, &h),
			DDP_UNTAGGED_HDR_SIZE);
	memcpy(u + DDP_UNTAGGED_HDR_SIZE, payload, len);
	qpt_raw_fpdu(test, t, u, DDP_UNTAGGED_HDR_SIZE + len, 0);
}

static void qpt_index_max_restore(void *unused)
{
	swi_rdmap_mem_set_index_max(0);
}

/* STag indexes the index-reuse cases draw from: a range they can fill */
#define QPT_LOW_INDEXES	32

/*
 * Register an MR on QP @i's side whose index another registration can
 * take back once it is deregistered: from here on indexes come from
 * 1..QPT_LOW_INDEXES (they are drawn at random from the whole range
 * otherwise), as 2^24 registrations would do.
 */
static struct ib_mr *qpt_reg_low(struct kunit *test, struct qpt *t, int i,
				 int access)
{
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test,
							qpt_index_max_restore,
							NULL), 0);
	swi_rdmap_mem_set_index_max(QPT_LOW_INDEXES);
	return qpt_reg(test, t, i, access);
}

/*
 * Deregister @mr (from qpt_reg_low()) and register fast-register MRs,
 * holding them, until one gets its STag index back, as an attacker
 * filling the range would; map it over a new buffer of @len zero octets
 * (*@buf) at @mr's iova, with @mr's key and @access, on QP @i: the same
 * STag for the same addresses, other memory. Return it. @behind_read: an
 * RDMA Read of QP @i is outstanding, so the fast-register completes after
 * it (RFC 5040 section 5.5, rule 15): wait for the STag to be valid
 * instead of for the completion, which the caller is left to take.
 */
static struct ib_mr *qpt_take_index(struct kunit *test, struct qpt *t, int i,
				    struct ib_mr *mr, int access, u8 **buf,
				    u32 len, bool behind_read)
{
	u32 stag = mr->lkey, index = rdmap_stag_index(stag), n, held = 0;
	struct ib_reg_wr wr = {
		.wr = { .opcode = IB_WR_REG_MR, .wr_id = 78,
			.send_flags = IB_SEND_SIGNALED },
		.access = access,
	};
	struct ib_mr **others;
	struct ib_mr *mine = NULL, *other;
	u64 iova = mr->iova;
	struct scatterlist sg;

	KUNIT_ASSERT_LE(test, index, QPT_LOW_INDEXES);
	others = kunit_kcalloc(test, QPT_LOW_INDEXES, sizeof(*others),
			       GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, others);
	KUNIT_ASSERT_EQ(test, ib_dereg_mr(mr), 0);
	for (n = 0; n < QPT_LOW_INDEXES && !mine; n++) {
		other = ib_alloc_mr(t->pd, IB_MR_TYPE_MEM_REG, 4);
		if (IS_ERR(other))
			break;
		if (rdmap_stag_index(other->lkey) == index)
			mine = other;
		else
			others[held++] = other;
	}
	while (held)
		KUNIT_EXPECT_EQ(test, ib_dereg_mr(others[--held]), 0);
	KUNIT_ASSERT_NOT_NULL_MSG(test, mine, "index %u never came back",
				  index);
	*buf = kunit_kzalloc(test, len, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, *buf);
	KUNIT_ASSERT_TRUE(test, PAGE_ALIGNED(*buf));
	sg_init_one(&sg, *buf, len);
	KUNIT_ASSERT_EQ(test, ib_dma_map_sg(t->dev, &sg, 1,
					    DMA_BIDIRECTIONAL), 1);
	KUNIT_ASSERT_EQ(test, ib_map_mr_sg(mine, &sg, 1, NULL, PAGE_SIZE), 1);
	mine->iova = iova;
	ib_update_fast_reg_key(mine, rdmap_stag_key(stag));
	wr.mr = mine;
	wr.key = mine->rkey;
	KUNIT_ASSERT_EQ(test, ib_post_send(t->qp[i], &wr.wr, NULL), 0);
	if (behind_read)
		KUNIT_ASSERT_TRUE(test, qpt_wait_stag(t, stag));
	else
		qpt_expect_wc(test, t->cq[i], IB_WC_REG_MR, 78, 0);
	KUNIT_ASSERT_EQ(test, mine->lkey, stag);	/* the same STag */
	return mine;
}

/* Wait up to QPT_WAIT_MS for counter @c to reach @v; return it */
static u64 qpt_wait_counter(struct kunit *test, struct qpt *t,
			    enum swi_counter c, u64 v)
{
	u64 *cnt = kunit_kcalloc(test, SWI_CNT_MAX, sizeof(*cnt), GFP_KERNEL);
	int ms;

	KUNIT_ASSERT_NOT_NULL(test, cnt);
	for (ms = 0; ms < QPT_WAIT_MS; ms++) {
		qpt_counters(test, t, cnt);
		if (cnt[c] >= v)
			break;
		usleep_range(500, 1000);
	}
	return cnt[c];
}

/* The raw peer reads @len octets the QP sent (an RDMA Read Request) */
static void qpt_raw_recv(struct kunit *test, struct qpt *t, size_t len)
{
	struct msghdr msg = {};
	struct kvec kv;
	u8 *buf = kunit_kzalloc(test, len, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, buf);
	kv = (struct kvec){ .iov_base = buf, .iov_len = len };
	t->raw->sk->sk_rcvtimeo = msecs_to_jiffies(QPT_WAIT_MS);
	KUNIT_ASSERT_EQ(test, kernel_recvmsg(t->raw, &msg, &kv, 1, len,
					     MSG_WAITALL), len);
}

/* Octets of an RDMA Read Request FPDU without Markers */
#define QPT_READ_REQ_FPDU	(MPA_HDR_SIZE + DDP_UNTAGGED_HDR_SIZE + \
				 RDMAP_READ_REQ_SIZE + MPA_CRC_SIZE)

/* No octet of @buf's @len is other than @v */
static bool qpt_all(const u8 *buf, size_t len, u8 v)
{
	return !memchr_inv(buf, v, len);
}

/*
 * Placement after the memory is gone (security.rst): B posts an RDMA
 * Read into MR A, deregisters A while the Read is outstanding and
 * registers another MR, with A's STag index and key, over a buffer of
 * zeros; then the raw peer answers with A's STag. The Response must land
 * nowhere: the Read completes in error and the new MR's buffer is
 * unchanged. Before the Read was bound to the object checked at post
 * time, its sink was looked up again by index and the data landed in the
 * new MR.
 */
static void qpt_rresp_after_dereg(struct kunit *test)
{
	const struct eng_stream_cfg cfg = {};
	const struct eng_stream_cfg *both[2] = { NULL, &cfg };
	struct qpt *t = qpt_up_pair(test, both, 0);
	struct ib_mr *a = qpt_reg_low(test, t, 1, IB_ACCESS_LOCAL_WRITE);
	struct ib_sge sge = { .addr = a->iova, .length = 64, .lkey = a->lkey };
	struct ib_rdma_wr rd = {
		.wr = { .opcode = IB_WR_RDMA_READ, .wr_id = 41,
			.send_flags = IB_SEND_SIGNALED,
			.sg_list = &sge, .num_sge = 1 },
		.remote_addr = 0x10000, .rkey = 0x4242,
	};
	struct ib_mr *b;
	struct ib_wc wc;
	u64 iova = a->iova;
	u32 stag = a->lkey;
	u8 *buf;

	KUNIT_ASSERT_EQ(test, ib_post_send(t->qp[1], &rd.wr, NULL), 0);
	qpt_raw_recv(test, t, QPT_READ_REQ_FPDU);	/* the Read is out */
	b = qpt_take_index(test, t, 1, a, IB_ACCESS_LOCAL_WRITE, &buf,
			   PAGE_SIZE, true);
	qpt_raw_tagged(test, t, RDMAP_READ_RESP, stag, iova, 64, 0x77, 0);
	KUNIT_ASSERT_EQ(test, qpt_wait(t->cq[1], &wc), 1);
	KUNIT_EXPECT_EQ(test, wc.wr_id, 41);
	KUNIT_EXPECT_NE(test, wc.status, IB_WC_SUCCESS);
	KUNIT_EXPECT_TRUE(test, qpt_wait_state(t, 1, IB_QPS_ERR));
	KUNIT_EXPECT_TRUE_MSG(test, qpt_all(buf, PAGE_SIZE, 0),
			      "the Response landed in the new MR");
	KUNIT_EXPECT_EQ(test, ib_dereg_mr(b), 0);
}

/* The raw peer reads one FPDU (no Markers) into @u; Return: ULPDU octets */
static u16 qpt_raw_read_fpdu(struct kunit *test, struct qpt *t, u8 *u)
{
	struct msghdr msg = {};
	__be16 ulen;
	struct kvec kv = { .iov_base = &ulen, .iov_len = MPA_HDR_SIZE };
	size_t n;

	t->raw->sk->sk_rcvtimeo = msecs_to_jiffies(QPT_WAIT_MS);
	KUNIT_ASSERT_EQ(test, kernel_recvmsg(t->raw, &msg, &kv, 1, MPA_HDR_SIZE,
					     MSG_WAITALL), MPA_HDR_SIZE);
	n = be16_to_cpu(ulen);
	KUNIT_ASSERT_LE(test, n, MPA_MULPDU_MAX);
	kv = (struct kvec){ .iov_base = u,
			    .iov_len = n + mpa_pad_len(n) + MPA_CRC_SIZE };
	KUNIT_ASSERT_EQ(test, kernel_recvmsg(t->raw, &msg, &kv, 1, kv.iov_len,
					     MSG_WAITALL), kv.iov_len);
	return n;
}

/*
 * The raw peer's RDMA Write of @len octets (0x5a) to @stag, TO 0, its CRC
 * computed, and off by one bit when @bad_crc
 */
static void qpt_raw_write_crc(struct kunit *test, struct qpt *t, u32 stag,
			      u16 len, bool bad_crc)
{
	struct ddp_hdr_info h = {
		.tagged = 1, .last = 1, .dv = DDP_VERSION, .rv = RDMAP_VERSION,
		.opcode = RDMAP_WRITE, .stag = stag,
	};
	u16 ulen = DDP_TAGGED_HDR_SIZE + len;
	size_t n = MPA_HDR_SIZE + ulen + mpa_pad_len(ulen);
	__be16 wire_len = cpu_to_be16(ulen);
	struct mpa_crc crc;
	__le32 sum;
	u8 *f;

	f = kunit_kzalloc(test, n, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, f);
	memcpy(f, &wire_len, MPA_HDR_SIZE);
	KUNIT_ASSERT_EQ(test, swi_ddp_hdr_build(f + MPA_HDR_SIZE,
						DDP_TAGGED_HDR_SIZE, &h),
			DDP_TAGGED_HDR_SIZE);
	memset(f + MPA_HDR_SIZE + DDP_TAGGED_HDR_SIZE, 0x5a, len);
	swi_mpa_crc_begin(&crc);
	mpa_crc_update(&crc, f, n);
	sum = swi_mpa_crc_final(&crc);
	if (bad_crc)
		sum ^= cpu_to_le32(1);
	qpt_raw_fpdu(test, t, f + MPA_HDR_SIZE, ulen, sum);
}

/* The MPA responder B, held, checking CRCs; the raw peer initiates */
static const struct eng_stream_cfg qpt_held = {
	.rx = { .crc = true }, .hold = true,
};

/* The raw peer reads B's first FPDU, which must be a Terminate, into @ti */
static void qpt_raw_read_term(struct kunit *test, struct qpt *t,
			      struct rdmap_term_info *ti)
{
	u8 *u = kunit_kzalloc(test, MPA_MULPDU_MAX + 8, GFP_KERNEL);
	struct ddp_hdr_info h;
	int n, hl;

	KUNIT_ASSERT_NOT_NULL(test, u);
	n = qpt_raw_read_fpdu(test, t, u);
	hl = swi_ddp_hdr_parse(u, n, &h);
	KUNIT_ASSERT_EQ(test, hl, DDP_UNTAGGED_HDR_SIZE);
	KUNIT_EXPECT_FALSE(test, h.tagged);
	KUNIT_EXPECT_EQ(test, h.opcode, RDMAP_TERMINATE);
	KUNIT_EXPECT_EQ(test, h.qn, RDMAP_QN_TERMINATE);
	KUNIT_ASSERT_GE(test, swi_rdmap_term_parse(u + hl, n - hl, ti), 0);
}

/*
 * The raw peer reads B's first FPDU, which must be a Terminate of
 * @layer/@etype/@code
 */
static void qpt_raw_expect_term(struct kunit *test, struct qpt *t, u8 layer,
				u8 etype, u8 code)
{
	struct rdmap_term_info ti;

	qpt_raw_read_term(test, t, &ti);
	SWI_EXPECT_TERM_CAUSE(test, ti.cause, layer, etype, code);
}

/*
 * RFC 5044 section 7.1.2 rule 4: the responder sends no FPDU before it
 * received and validated one. B's first FPDU from the raw peer fails its
 * CRC: B sends nothing, its Terminate neither, and resets the connection;
 * its QP goes to ERROR, its receive flushed. Before, B's first FPDU was
 * that Terminate (2/0/0x02).
 */
static void qpt_held_bad_first_fpdu_resets(struct kunit *test)
{
	const struct eng_stream_cfg *both[2] = { NULL, &qpt_held };
	struct qpt *t = qpt_up_pair(test, both, 0);
	struct msghdr msg = {};
	u64 v[SWI_CNT_MAX] = {};
	struct ib_wc wc;
	struct kvec kv;
	u8 octet;
	int i;

	qpt_post_recv(test, t, 1, 61, 64);
	qpt_raw_write_crc(test, t, 0, 0, true);
	KUNIT_ASSERT_EQ(test, qpt_wait(t->cq[1], &wc), 1);
	KUNIT_EXPECT_EQ(test, wc.wr_id, 61);
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_WR_FLUSH_ERR);
	/* not one octet, then the reset */
	kv = (struct kvec){ .iov_base = &octet, .iov_len = 1 };
	t->raw->sk->sk_rcvtimeo = msecs_to_jiffies(QPT_WAIT_MS);
	KUNIT_EXPECT_EQ(test, kernel_recvmsg(t->raw, &msg, &kv, 1, 1, 0),
			-ECONNRESET);
	KUNIT_EXPECT_TRUE(test, qpt_wait_state(t, 1, IB_QPS_ERR));
	qpt_counters(test, t, v);
	KUNIT_EXPECT_EQ(test, v[SWI_CNT_TX_FPDUS], 0);
	KUNIT_EXPECT_EQ(test, v[SWI_CNT_RX_CRC_ERRORS], 1);
	for (i = SWI_CNT_TX_TERM_RDMAP; i <= SWI_CNT_RX_TERM_LLP; i++)
		KUNIT_EXPECT_EQ_MSG(test, v[i], 0, "counter %d", i);
}

/*
 * A first FPDU that passes MPA's checks ends the hold, whatever DDP
 * makes of it: B's Terminate for a Write to an invalid STag (1/1/0x00)
 * is its first FPDU.
 */
static void qpt_held_valid_first_fpdu_terminates(struct kunit *test)
{
	const struct eng_stream_cfg *both[2] = { NULL, &qpt_held };
	struct qpt *t = qpt_up_pair(test, both, 0);

	qpt_raw_write_crc(test, t, 0x00bad000, 8, false);
	qpt_raw_expect_term(test, t, 1, 1, 0x00);
	KUNIT_EXPECT_TRUE(test, qpt_wait_state(t, 1, IB_QPS_ERR));
}

/*
 * After the peer's first valid FPDU (the zero-length Write of an RTR), a
 * bad one still gets its Terminate: 2/0/0x02, B's first FPDU.
 */
static void qpt_held_terminates_after_first_fpdu(struct kunit *test)
{
	const struct eng_stream_cfg *both[2] = { NULL, &qpt_held };
	struct qpt *t = qpt_up_pair(test, both, 0);

	qpt_raw_write_crc(test, t, 0, 0, false);
	qpt_raw_write_crc(test, t, 0, 0, true);
	qpt_raw_expect_term(test, t, 2, 0, 0x02);
	KUNIT_EXPECT_TRUE(test, qpt_wait_state(t, 1, IB_QPS_ERR));
}

static void qpt_rresp_src_restore(void *unused)
{
	swi_eng_tx_lose_rresp_src(-1);
}

/*
 * A Read Response whose Data Source goes away mid-Response (the KUnit
 * knob swi_eng_tx_lose_rresp_src() stands for an invalidation or a
 * deregistration, after one FPDU): B sends the Response segments it
 * could, then a Terminate, a remote protection error (invalid STag) with
 * R and the Read Request updated to the progress made, RFC 5040 sections
 * 4.8 and 7.1. Before, the connection was reset without a Terminate.
 */
static void qpt_rresp_source_lost_terminates(struct kunit *test)
{
	const struct eng_stream_cfg cfg = {};
	const struct eng_stream_cfg *both[2] = { NULL, &cfg };
	struct qpt *t = qpt_up_pair(test, both, 0);
	struct ib_mr *mr = qpt_reg(test, t, 1, IB_ACCESS_LOCAL_WRITE |
					       IB_ACCESS_REMOTE_READ);
	struct rdmap_read_req_info r = {
		.sink_stag = 0x5500, .sink_to = 0x100000, .size = QPT_BUF,
		.src_stag = mr->rkey, .src_to = mr->iova,
	};
	u8 *u = kunit_kzalloc(test, MPA_MULPDU_MAX + 8, GFP_KERNEL);
	struct rdmap_term_info ti = {};
	struct rdmap_read_req rr;
	struct ddp_hdr_info h;
	unsigned int fpdus = 0;
	u32 got = 0;
	int hl, err;
	u16 n;

	KUNIT_ASSERT_NOT_NULL(test, u);
	err = kunit_add_action_or_reset(test, qpt_rresp_src_restore, NULL);
	KUNIT_ASSERT_EQ(test, err, 0);
	swi_rdmap_read_req_build(&rr, &r);
	swi_eng_tx_lose_rresp_src(1);
	qpt_raw_untagged(test, t, RDMAP_READ_REQ, RDMAP_QN_READ_REQ,
			 DDP_MSN_FIRST, 0, true, &rr, sizeof(rr));
	for (;;) {
		n = qpt_raw_read_fpdu(test, t, u);
		hl = swi_ddp_hdr_parse(u, n, &h);
		KUNIT_ASSERT_GT(test, hl, 0);
		if (h.tagged) {
			KUNIT_ASSERT_EQ(test, h.opcode, RDMAP_READ_RESP);
			KUNIT_EXPECT_EQ(test, h.to, r.sink_to + got);
			got += n - hl;
			fpdus++;
			continue;
		}
		KUNIT_ASSERT_EQ(test, h.opcode, RDMAP_TERMINATE);
		KUNIT_ASSERT_GT(test, swi_rdmap_term_parse(u + hl, n - hl, &ti), 0);
		break;
	}
	KUNIT_EXPECT_EQ(test, fpdus, 1);
	KUNIT_EXPECT_GT(test, got, 0);
	SWI_EXPECT_TERM_CAUSE(test, ti.cause, 0, 1, 0x00);
	KUNIT_EXPECT_EQ(test, ti.flags, RDMAP_TERM_M | RDMAP_TERM_D |
			RDMAP_TERM_R);
	KUNIT_EXPECT_EQ(test, ti.ddp.qn, RDMAP_QN_READ_REQ);
	KUNIT_EXPECT_EQ(test, ti.ddp.msn, DDP_MSN_FIRST);
	KUNIT_EXPECT_EQ(test, ti.rreq.sink_stag, r.sink_stag);
	KUNIT_EXPECT_EQ(test, ti.rreq.sink_to, r.sink_to + got);
	KUNIT_EXPECT_EQ(test, ti.rreq.size, r.size - got);
	KUNIT_EXPECT_EQ(test, ti.rreq.src_stag, r.src_stag);
	KUNIT_EXPECT_EQ(test, ti.rreq.src_to, r.src_to + got);
	KUNIT_EXPECT_TRUE(test, qpt_wait_state(t, 1, IB_QPS_ERR));
	KUNIT_EXPECT_EQ(test, ib_dereg_mr(mr), 0);
}

/*
 * What the Data Source puts in every segment of one message (RFC 5041
 * sections 4.2 and 4.3, RFC 5040 sections 5.1 and 5.2.1): a Send with
 * Invalidate of QPT_BUF octets reaches the raw peer in several segments
 * with the same opcode and Invalidate STag (the RsvdULP), queue and MSN,
 * the MO counting up; an RDMA Write of QPT_BUF in several segments naming
 * its one STag, the TO counting up; a Read as one Read Request naming one
 * Data Source. No segment is larger than MULPDU allows (RFC 5044 section
 * 3, RFC 5041 section 5.2). (The EMSS the sender sized them by is its
 * socket's and moves with the window: not checked here.)
 */
static void qpt_segments_of_one_message(struct kunit *test)
{
	const struct eng_stream_cfg cfg = {};
	const struct eng_stream_cfg *both[2] = { NULL, &cfg };
	struct qpt *t = qpt_up_pair(test, both, 0);
	struct ib_send_wr sw = { .opcode = IB_WR_SEND_WITH_INV, .wr_id = 1,
				 .ex.invalidate_rkey = 0x4477 };
	struct ib_rdma_wr ww = {
		.wr = { .opcode = IB_WR_RDMA_WRITE, .wr_id = 2 },
		.rkey = 0x5588, .remote_addr = 0x10000,
	};
	struct ib_rdma_wr rw = {
		.wr = { .opcode = IB_WR_RDMA_READ, .wr_id = 3 },
		.rkey = 0x6699, .remote_addr = 0x20000,
	};
	u8 *u = kunit_kzalloc(test, MPA_MULPDU_MAX + 8, GFP_KERNEL);
	struct rdmap_read_req_info r;
	struct ddp_hdr_info h;
	unsigned int segs;
	u32 got;
	int hl;
	u16 n;

	KUNIT_ASSERT_NOT_NULL(test, u);
	qpt_post(test, t, 1, &sw, QPT_BUF);
	for (got = 0, segs = 0; got < QPT_BUF; segs++) {
		n = qpt_raw_read_fpdu(test, t, u);
		KUNIT_EXPECT_LE(test, n, MPA_MULPDU_MAX);
		hl = swi_ddp_hdr_parse(u, n, &h);
		KUNIT_ASSERT_EQ(test, hl, DDP_UNTAGGED_HDR_SIZE);
		KUNIT_EXPECT_EQ(test, h.opcode, RDMAP_SEND_INVAL);
		KUNIT_EXPECT_EQ(test, h.stag, 0x4477);
		KUNIT_EXPECT_EQ(test, h.qn, RDMAP_QN_SEND);
		KUNIT_EXPECT_EQ(test, h.msn, DDP_MSN_FIRST);
		KUNIT_EXPECT_EQ(test, h.mo, got);
		got += n - hl;
		KUNIT_EXPECT_EQ(test, h.last, got == QPT_BUF);
	}
	KUNIT_EXPECT_GT(test, segs, 1);
	qpt_post(test, t, 1, &ww.wr, QPT_BUF);
	for (got = 0, segs = 0; got < QPT_BUF; segs++) {
		n = qpt_raw_read_fpdu(test, t, u);
		hl = swi_ddp_hdr_parse(u, n, &h);
		KUNIT_ASSERT_EQ(test, hl, DDP_TAGGED_HDR_SIZE);
		KUNIT_EXPECT_EQ(test, h.opcode, RDMAP_WRITE);
		KUNIT_EXPECT_EQ(test, h.stag, 0x5588);
		KUNIT_EXPECT_EQ(test, h.to, 0x10000 + got);
		got += n - hl;
		KUNIT_EXPECT_EQ(test, h.last, got == QPT_BUF);
	}
	KUNIT_EXPECT_GT(test, segs, 1);
	qpt_post(test, t, 1, &rw.wr, 64);
	n = qpt_raw_read_fpdu(test, t, u);
	hl = swi_ddp_hdr_parse(u, n, &h);
	KUNIT_ASSERT_EQ(test, hl, DDP_UNTAGGED_HDR_SIZE);
	KUNIT_EXPECT_EQ(test, h.opcode, RDMAP_READ_REQ);
	KUNIT_EXPECT_EQ(test, h.qn, RDMAP_QN_READ_REQ);
	KUNIT_EXPECT_TRUE(test, h.last);
	KUNIT_ASSERT_EQ(test, swi_rdmap_read_req_parse(u + hl, n - hl, &r),
			RDMAP_READ_REQ_SIZE);
	KUNIT_EXPECT_EQ(test, r.src_stag, 0x6699);
	KUNIT_EXPECT_EQ(test, r.src_to, 0x20000);
	KUNIT_EXPECT_EQ(test, r.size, 64);
}

/*
 * RFC 5041 section 3, LLP requirement 3: what the LLP took is delivered
 * reliably, or an error is returned. The raw peer resets the connection
 * (tcp_abort()) and QP 1 posts a Write at once: whether its sendmsg()
 * fails or the receiver saw the RST first, the Write completes in error
 * and the QP goes to ERROR; nothing completes as sent.
 */
static void qpt_llp_reset_fails_work(struct kunit *test)
{
	const struct eng_stream_cfg cfg = {};
	const struct eng_stream_cfg *both[2] = { NULL, &cfg };
	struct qpt *t = qpt_up_pair(test, both, 0);
	struct ib_rdma_wr wr = {
		.wr = { .opcode = IB_WR_RDMA_WRITE, .wr_id = 98 },
		.rkey = 0x4343, .remote_addr = 0x20000,
	};
	struct ib_wc wc;

	KUNIT_ASSERT_EQ(test, tcp_abort(t->raw->sk, ECONNABORTED), 0);
	qpt_post(test, t, 1, &wr.wr, QPT_LEN);
	KUNIT_ASSERT_EQ(test, qpt_wait(t->cq[1], &wc), 1);
	KUNIT_EXPECT_EQ(test, wc.wr_id, 98);
	KUNIT_EXPECT_NE(test, wc.status, IB_WC_SUCCESS);
	KUNIT_EXPECT_TRUE(test, qpt_wait_state(t, 1, IB_QPS_ERR));
}

/* Octets each Read Request of qpt_rresps_in_request_order() asks for */
#define QPT_RREQ_LEN	40000

/*
 * Read Requests are answered in the order they came, one Response after
 * the other (RFC 5040 sections 5.2.1, 5.2.2 and 5.5 rule 20): three
 * Requests from the raw peer at once, each for its own part of QP 1's MR
 * and its own sink STag; the Responses come back whole, in the Requests'
 * order, each ending with L.
 */
static void qpt_rresps_in_request_order(struct kunit *test)
{
	const struct eng_stream_cfg cfg = { .rd_limits = true, .ird = 4,
					    .ord = 4 };
	const struct eng_stream_cfg *both[2] = { NULL, &cfg };
	struct qpt *t = qpt_up_pair(test, both, 0);
	struct ib_mr *mr = qpt_reg(test, t, 1, IB_ACCESS_LOCAL_WRITE |
					       IB_ACCESS_REMOTE_READ);
	u8 *u = kunit_kzalloc(test, MPA_MULPDU_MAX + 8, GFP_KERNEL);
	struct rdmap_read_req_info r = { .size = QPT_RREQ_LEN };
	struct rdmap_read_req rr;
	struct ddp_hdr_info h;
	u32 i, got;
	int hl;
	u16 n;

	KUNIT_ASSERT_NOT_NULL(test, u);
	for (i = 0; i < 3; i++) {
		r.sink_stag = 0x100 * (i + 1);
		r.src_stag = mr->rkey;
		r.src_to = mr->iova + i * QPT_RREQ_LEN;
		swi_rdmap_read_req_build(&rr, &r);
		qpt_raw_untagged(test, t, RDMAP_READ_REQ, RDMAP_QN_READ_REQ,
				 DDP_MSN_FIRST + i, 0, true, &rr, sizeof(rr));
	}
	for (i = 0; i < 3; i++) {
		got = 0;
		do {
			n = qpt_raw_read_fpdu(test, t, u);
			hl = swi_ddp_hdr_parse(u, n, &h);
			KUNIT_ASSERT_EQ(test, hl, DDP_TAGGED_HDR_SIZE);
			KUNIT_ASSERT_EQ(test, h.opcode, RDMAP_READ_RESP);
			KUNIT_ASSERT_EQ_MSG(test, h.stag, 0x100 * (i + 1),
					    "Response %u", i);
			KUNIT_EXPECT_EQ(test, h.to, got);
			got += n - hl;
		} while (!h.last);
		KUNIT_EXPECT_EQ(test, got, QPT_RREQ_LEN);
	}
	KUNIT_EXPECT_EQ(test, ib_dereg_mr(mr), 0);
}

/* QP 1 posts a signalled RDMA Read of 64 octets to the raw peer, @id */
static void qpt_post_read(struct kunit *test, struct qpt *t, u64 id)
{
	struct ib_rdma_wr rw = {
		.wr = { .opcode = IB_WR_RDMA_READ, .wr_id = id },
		.rkey = 0x4242, .remote_addr = 0x10000,
	};

	qpt_post(test, t, 1, &rw.wr, 64);
}

/* The raw peer reads one FPDU and expects @opcode in it */
static void qpt_raw_expect(struct kunit *test, struct qpt *t, u8 *u,
			   u8 opcode)
{
	struct ddp_hdr_info h;
	u16 n = qpt_raw_read_fpdu(test, t, u);

	KUNIT_ASSERT_GT(test, swi_ddp_hdr_parse(u, n, &h), 0);
	KUNIT_ASSERT_EQ(test, h.opcode, opcode);
}

/* The next completion of QP 1 is @id with @status */
static void qpt_expect_next(struct kunit *test, struct qpt *t, u64 id,
			    enum ib_wc_status status)
{
	struct ib_wc wc;

	KUNIT_ASSERT_EQ(test, qpt_wait(t->cq[1], &wc), 1);
	KUNIT_EXPECT_EQ(test, wc.wr_id, id);
	KUNIT_EXPECT_EQ(test, wc.status, status);
}

/*
 * RFC 5040 section 5.5, rule 15: work requests complete in the order they
 * were posted. QP 1 posts an RDMA Read, then a Write, a Send and a local
 * invalidate; the raw peer takes the Read Request, the Write and the Send
 * and answers the Read only then. Nothing completes before the Read, and
 * the four complete in the order posted. Before, the Write, the Send and
 * the invalidate completed first, the Read when its Response came.
 */
static void qpt_completions_in_order(struct kunit *test)
{
	const struct eng_stream_cfg cfg = {};
	const struct eng_stream_cfg *both[2] = { NULL, &cfg };
	struct qpt *t = qpt_up_pair(test, both, 0);
	struct ib_mr *mr = qpt_reg(test, t, 1, IB_ACCESS_LOCAL_WRITE);
	struct ib_rdma_wr wr = {
		.wr = { .opcode = IB_WR_RDMA_WRITE, .wr_id = 82 },
		.rkey = 0x4343, .remote_addr = 0x20000,
	};
	struct ib_send_wr send = { .opcode = IB_WR_SEND, .wr_id = 83 };
	struct ib_send_wr inv = {
		.opcode = IB_WR_LOCAL_INV, .wr_id = 84,
		.send_flags = IB_SEND_SIGNALED, .ex.invalidate_rkey = mr->rkey,
	};
	u8 *u = kunit_kzalloc(test, MPA_MULPDU_MAX + 8, GFP_KERNEL);
	struct rdmap_read_req_info r;
	struct ib_wc wc;

	KUNIT_ASSERT_NOT_NULL(test, u);
	qpt_post_read(test, t, 81);
	qpt_post(test, t, 1, &wr.wr, 100);
	qpt_post(test, t, 1, &send, 50);
	KUNIT_ASSERT_EQ(test, ib_post_send(t->qp[1], &inv, NULL), 0);

	qpt_raw_expect(test, t, u, RDMAP_READ_REQ);
	swi_rdmap_read_req_parse(u + DDP_UNTAGGED_HDR_SIZE, RDMAP_READ_REQ_SIZE, &r);
	qpt_raw_expect(test, t, u, RDMAP_WRITE);
	qpt_raw_expect(test, t, u, RDMAP_SEND);
	msleep(50);
	KUNIT_EXPECT_EQ_MSG(test, ib_poll_cq(t->cq[1], 1, &wc), 0,
			    "work request %llu completed before the Read",
			    wc.wr_id);
	KUNIT_EXPECT_FALSE(test, qpt_stag_valid(t, mr->rkey));

	qpt_raw_tagged(test, t, RDMAP_READ_RESP, r.sink_stag, r.sink_to, 64,
		       0x5a, 0);
	qpt_expect_next(test, t, 81, IB_WC_SUCCESS);
	qpt_expect_next(test, t, 82, IB_WC_SUCCESS);
	qpt_expect_next(test, t, 83, IB_WC_SUCCESS);
	qpt_expect_next(test, t, 84, IB_WC_SUCCESS);
	KUNIT_EXPECT_TRUE(test, qpt_all(t->buf[1], 64, 0x5a));
	KUNIT_EXPECT_EQ(test, qpt_state(t, 1), IB_QPS_RTS);
	KUNIT_EXPECT_EQ(test, ib_dereg_mr(mr), 0);
}

/*
 * The same order when the QP fails with a Read outstanding: the Read and
 * the Write behind it both complete with a flush error, the Read first
 * (the Write, on the wire already, was not completed when the QP entered
 * ERROR). Before, the Write completed successfully ahead of the Read.
 */
static void qpt_completions_flushed_in_order(struct kunit *test)
{
	const struct eng_stream_cfg cfg = {};
	const struct eng_stream_cfg *both[2] = { NULL, &cfg };
	struct qpt *t = qpt_up_pair(test, both, 0);
	struct ib_rdma_wr wr = {
		.wr = { .opcode = IB_WR_RDMA_WRITE, .wr_id = 86 },
		.rkey = 0x4343, .remote_addr = 0x20000,
	};
	struct ib_qp_attr qa = { .qp_state = IB_QPS_ERR };
	u8 *u = kunit_kzalloc(test, MPA_MULPDU_MAX + 8, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, u);
	qpt_post_read(test, t, 85);
	qpt_post(test, t, 1, &wr.wr, 100);
	qpt_raw_expect(test, t, u, RDMAP_READ_REQ);
	qpt_raw_expect(test, t, u, RDMAP_WRITE);
	msleep(50);
	KUNIT_ASSERT_EQ(test, ib_modify_qp(t->qp[1], &qa, IB_QP_STATE), 0);
	qpt_expect_next(test, t, 85, IB_WC_WR_FLUSH_ERR);
	qpt_expect_next(test, t, 86, IB_WC_WR_FLUSH_ERR);
}

/* Read Requests of the raw peer that fill the sockets with Responses */
#define QPT_CLOSING_READS	ENG_MAX_IRD

/*
 * The raw peer, its receive buffer made small, asks QP 1 for
 * QPT_CLOSING_READS Reads of @mr (QPT_BUF octets each, 16 MiB in all),
 * which it does not read yet: the Responses back up in the sockets
 */
static void qpt_raw_fill_reads(struct kunit *test, struct qpt *t,
			       struct ib_mr *mr)
{
	struct rdmap_read_req_info r = { .size = QPT_BUF };
	struct rdmap_read_req rr;
	u32 i;

	sock_set_rcvbuf(t->raw->sk, SZ_256K);
	for (i = 0; i < QPT_CLOSING_READS; i++) {
		r.sink_stag = 0x100 + i;
		r.src_stag = mr->rkey;
		r.src_to = mr->iova;
		swi_rdmap_read_req_build(&rr, &r);
		qpt_raw_untagged(test, t, RDMAP_READ_REQ, RDMAP_QN_READ_REQ,
				 DDP_MSN_FIRST + i, 0, true, &rr, sizeof(rr));
	}
}

/*
 * RFC 5040 section 7.1: an error detected in CLOSING while our FIN is
 * still due gets its Terminate, before the FIN. The raw peer, with a
 * small receive buffer, asks for 128 Reads of QP 1's whole buffer, 16 MiB
 * it does not read yet, so the Responses back up in the sockets. Once
 * QP 1 has every Request, its consumer closes (SQD: the Responses owed go
 * out before the FIN); once the first Response is there, the peer sends
 * a Send QP 1 has no buffer for (waiting for that Response makes the
 * error one of CLOSING with work owed, however the transmitter is
 * scheduled: kunit.py's kernel had not sent one before the Send came).
 * Reading on, the peer finds the Terminate, 1/2/0x02, and then the FIN,
 * and no RST. Before, the QP went to ERROR and aborted:
 * the Terminate, if the transmitter took it before the stop, then an RST.
 */
static void qpt_closing_error_terminates_before_fin(struct kunit *test)
{
	const struct eng_stream_cfg cfg = {};
	const struct eng_stream_cfg *both[2] = { NULL, &cfg };
	struct qpt *t = qpt_up_pair(test, both, QPT_CLOSING_READS);
	struct ib_mr *mr = qpt_reg(test, t, 1, IB_ACCESS_LOCAL_WRITE |
					       IB_ACCESS_REMOTE_READ);
	u8 *u = kunit_kzalloc(test, MPA_MULPDU_MAX + 8, GFP_KERNEL);
	struct ib_qp_attr qa = { .qp_state = IB_QPS_SQD };
	struct rdmap_term_info ti;
	struct msghdr msg = {};
	struct ddp_hdr_info h;
	struct kvec kv;
	u8 payload[8] = {};
	u32 fpdus = 0;
	int n, hl, err;

	KUNIT_ASSERT_NOT_NULL(test, u);
	qpt_raw_fill_reads(test, t, mr);
	/* every Request in QP 1's IRQ first: the close must not overtake */
	KUNIT_ASSERT_EQ(test, qpt_wait_counter(test, t, SWI_CNT_RX_FPDUS,
					       QPT_CLOSING_READS),
			QPT_CLOSING_READS);
	KUNIT_ASSERT_EQ(test, ib_modify_qp(t->qp[1], &qa, IB_QP_STATE), 0);
	/* a Response arrives first: CLOSING owes the rest, the FIN is due */
	n = qpt_raw_read_fpdu(test, t, u);
	hl = swi_ddp_hdr_parse(u, n, &h);
	KUNIT_ASSERT_GT(test, hl, 0);
	KUNIT_ASSERT_TRUE(test, h.tagged && h.opcode == RDMAP_READ_RESP);
	qpt_raw_untagged(test, t, RDMAP_SEND, RDMAP_QN_SEND, DDP_MSN_FIRST, 0,
			 true, payload, sizeof(payload));
	do {
		fpdus++;
		n = qpt_raw_read_fpdu(test, t, u);
		hl = swi_ddp_hdr_parse(u, n, &h);
		KUNIT_ASSERT_GT(test, hl, 0);
	} while (h.tagged && h.opcode == RDMAP_READ_RESP);
	KUNIT_ASSERT_EQ_MSG(test, h.opcode, RDMAP_TERMINATE,
			    "FPDU %u after the Responses is no Terminate",
			    fpdus);
	KUNIT_ASSERT_GE(test, swi_rdmap_term_parse(u + hl, n - hl, &ti), 0);
	SWI_EXPECT_TERM_CAUSE(test, ti.cause, TERM_LAYER_DDP,
			      TERM_ETYPE_DDP_UNTAGGED, TERM_DDP_U_MSN_NO_BUF);
	kv = (struct kvec){ .iov_base = u, .iov_len = 1 };
	KUNIT_EXPECT_EQ_MSG(test, kernel_recvmsg(t->raw, &msg, &kv, 1, 1, 0),
			    0, "no FIN after the Terminate");
	KUNIT_EXPECT_TRUE(test, qpt_wait_state(t, 1, IB_QPS_ERR));
	/* an orderly end: no RST follows, not even after an abort's linger */
	msleep(1500);
	err = READ_ONCE(t->raw->sk->sk_err);
	KUNIT_EXPECT_EQ_MSG(test, err, 0, "the stream was reset, state %u",
			    READ_ONCE(t->raw->sk->sk_state));
	KUNIT_EXPECT_EQ(test, ib_dereg_mr(mr), 0);
}

/*
 * RFC 5040 section 5.5, rule 18, softiwarp's choice: a Send completes at
 * the Data Sink on arrival, before Read Requests that came ahead of it
 * are answered. The raw peer, with a small receive buffer, asks for 128
 * Reads of QP 1's whole buffer (16 MiB it does not read yet, so the
 * Responses wait for the sockets),
 * then sends a Send: QP 1's receive completes while Responses are still
 * owed (irq_used), and all of them follow once the peer reads.
 */
static void qpt_send_completes_before_read_answered(struct kunit *test)
{
	const struct eng_stream_cfg cfg = {};
	const struct eng_stream_cfg *both[2] = { NULL, &cfg };
	struct qpt *t = qpt_up_pair(test, both, QPT_CLOSING_READS);
	struct ib_mr *mr = qpt_reg(test, t, 1, IB_ACCESS_LOCAL_WRITE |
					       IB_ACCESS_REMOTE_READ);
	u8 *u = kunit_kzalloc(test, MPA_MULPDU_MAX + 8, GFP_KERNEL);
	const struct ib_device_ops *ops = &t->dev->ops;
	struct ddp_hdr_info h;
	struct sk_buff *skb;
	u8 payload[8] = {};
	u32 last = 0;
	struct ib_wc wc;
	int n, hl;

	KUNIT_ASSERT_NOT_NULL(test, u);
	qpt_post_recv(test, t, 1, 95, 64);
	qpt_raw_fill_reads(test, t, mr);
	qpt_raw_untagged(test, t, RDMAP_SEND, RDMAP_QN_SEND, DDP_MSN_FIRST, 0,
			 true, payload, sizeof(payload));
	KUNIT_ASSERT_EQ(test, qpt_wait(t->cq[1], &wc), 1);
	KUNIT_EXPECT_EQ(test, wc.wr_id, 95);
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_SUCCESS);
	skb = qpt_res_skb(test, NLMSG_GOODSIZE);
	KUNIT_ASSERT_EQ(test, ops->fill_res_qp_entry(skb, t->qp[1]), 0);
	KUNIT_EXPECT_GT_MSG(test, qpt_res_u32(test, skb, "irq_used"), 0,
			    "every Read Request was answered already");
	while (last < QPT_CLOSING_READS) {
		n = qpt_raw_read_fpdu(test, t, u);
		hl = swi_ddp_hdr_parse(u, n, &h);
		KUNIT_ASSERT_EQ(test, hl, DDP_TAGGED_HDR_SIZE);
		KUNIT_ASSERT_EQ(test, h.opcode, RDMAP_READ_RESP);
		last += h.last;
	}
	KUNIT_EXPECT_EQ(test, qpt_state(t, 1), IB_QPS_RTS);
	KUNIT_EXPECT_EQ(test, ib_dereg_mr(mr), 0);
}

/*
 * The same for a Send: B's receive buffer has two SGEs in MRs A and C;
 * the first segment of a two-segment Send takes the buffer (and checks
 * both SGEs), then C is deregistered and its index and key go to another
 * MR before the second segment arrives. The second segment must not land
 * there (before the fix, every segment looked its SGE up again by index).
 */
static void qpt_send_after_dereg(struct kunit *test)
{
	const struct eng_stream_cfg cfg = {};
	const struct eng_stream_cfg *both[2] = { NULL, &cfg };
	struct qpt *t = qpt_up_pair(test, both, 0);
	struct ib_mr *a = qpt_reg(test, t, 1, IB_ACCESS_LOCAL_WRITE);
	struct ib_mr *c = qpt_reg_low(test, t, 1, IB_ACCESS_LOCAL_WRITE);
	struct ib_sge sge[2] = {
		{ .addr = a->iova, .length = 32, .lkey = a->lkey },
		{ .addr = c->iova + 4096, .length = 32, .lkey = c->lkey },
	};
	struct ib_recv_wr rwr = { .wr_id = 51, .sg_list = sge, .num_sge = 2 };
	u8 payload[32];
	struct ib_mr *d;
	struct ib_wc wc;
	u8 *buf;

	memset(payload, 0x66, sizeof(payload));
	KUNIT_ASSERT_EQ(test, ib_post_recv(t->qp[1], &rwr, NULL), 0);
	qpt_raw_untagged(test, t, RDMAP_SEND, RDMAP_QN_SEND, DDP_MSN_FIRST, 0,
			 false, payload, sizeof(payload));
	/* the first segment is placed: the buffer is taken, both SGEs checked */
	KUNIT_ASSERT_TRUE(test, qpt_wait_byte(t->buf[1], 31, 0x66));
	d = qpt_take_index(test, t, 1, c, IB_ACCESS_LOCAL_WRITE, &buf,
			   2 * PAGE_SIZE, false);
	qpt_raw_untagged(test, t, RDMAP_SEND, RDMAP_QN_SEND, DDP_MSN_FIRST, 32,
			 true, payload, sizeof(payload));
	KUNIT_ASSERT_EQ(test, qpt_wait(t->cq[1], &wc), 1);
	KUNIT_EXPECT_EQ(test, wc.wr_id, 51);
	KUNIT_EXPECT_NE(test, wc.status, IB_WC_SUCCESS);
	KUNIT_EXPECT_TRUE(test, qpt_wait_state(t, 1, IB_QPS_ERR));
	KUNIT_EXPECT_TRUE_MSG(test, qpt_all(buf, 2 * PAGE_SIZE, 0),
			      "the second segment landed in the new MR");
	KUNIT_EXPECT_EQ(test, ib_dereg_mr(d), 0);
	KUNIT_EXPECT_EQ(test, ib_dereg_mr(a), 0);
}

/*
 * A zero-length Read Response whose STag is not the sink's, TO 0: DDP
 * lets zero-length tagged segments pass, RDMAP must not. The Read must
 * not complete successfully, and B answers with a DDP Terminate (invalid
 * STag). Before the fix it completed with success and the sink's length,
 * nothing read.
 */
static void qpt_rresp_zero_len_wrong_stag(struct kunit *test)
{
	const struct eng_stream_cfg cfg = {};
	const struct eng_stream_cfg *both[2] = { NULL, &cfg };
	struct qpt *t = qpt_up_pair(test, both, 0);
	struct ib_mr *a = qpt_reg(test, t, 1, IB_ACCESS_LOCAL_WRITE);
	struct ib_sge sge = { .addr = a->iova, .length = 64, .lkey = a->lkey };
	struct ib_rdma_wr rd = {
		.wr = { .opcode = IB_WR_RDMA_READ, .wr_id = 61,
			.send_flags = IB_SEND_SIGNALED,
			.sg_list = &sge, .num_sge = 1 },
		.remote_addr = 0x10000, .rkey = 0x4242,
	};
	struct ib_wc wc;

	KUNIT_ASSERT_EQ(test, ib_post_send(t->qp[1], &rd.wr, NULL), 0);
	qpt_raw_recv(test, t, QPT_READ_REQ_FPDU);
	qpt_raw_tagged(test, t, RDMAP_READ_RESP, a->lkey ^ 0x100, 0, 0, 0, 0);
	KUNIT_ASSERT_EQ(test, qpt_wait(t->cq[1], &wc), 1);
	KUNIT_EXPECT_EQ(test, wc.wr_id, 61);
	KUNIT_EXPECT_NE(test, wc.status, IB_WC_SUCCESS);
	KUNIT_EXPECT_TRUE(test, qpt_wait_state(t, 1, IB_QPS_ERR));
	KUNIT_EXPECT_EQ(test, qpt_wait_counter(test, t, SWI_CNT_TX_TERM_DDP,
					       1), 1);
	KUNIT_EXPECT_EQ(test, ib_dereg_mr(a), 0);
}

static void qpt_flush_races_off(void *unused)
{
	swi_eng_rx_race_flush(0);
}

/* The work requests of qpt_rresp_after_flush(), off the stack */
struct qpt_two_reads {
	struct ib_reg_wr reg;
	struct ib_rdma_wr rd[2];
	struct ib_sge sge[2];
	struct ib_wc wc;
	struct scatterlist sg;
};

/*
 * A flush takes the Read whose Response is arriving off the ORQ between
 * the receiver's check and its completion (security.rst): B has two
 * Reads out, the first into MR A, the second a Read with Invalidate into
 * a fast-register MR F. The last segment of the first Response arrives
 * and a flush (swi_eng_rx_race_flush()) completes the first Read first. The
 * second must not complete with the first's Response, nor F be
 * invalidated: it completes, and F goes, when its own Response arrived,
 * with its data. Before the receiver remembered its Read, it completed
 * the ORQ's head, the second Read, with success and no data, invalidated
 * F, and the second Response then found no Read (a Terminate).
 */
static void qpt_rresp_after_flush(struct kunit *test)
{
	const struct eng_stream_cfg cfg = {};
	const struct eng_stream_cfg *both[2] = { NULL, &cfg };
	struct qpt *t = qpt_up_pair(test, both, 0);
	struct ib_mr *a = qpt_reg(test, t, 1, IB_ACCESS_LOCAL_WRITE);
	struct qpt_two_reads *w = kunit_kzalloc(test, sizeof(*w), GFP_KERNEL);
	struct ib_mr *f = ib_alloc_mr(t->pd, IB_MR_TYPE_MEM_REG, 1);
	u8 *buf = kunit_kzalloc(test, PAGE_SIZE, GFP_KERNEL);
	int i;

	KUNIT_ASSERT_NOT_NULL(test, w);
	KUNIT_ASSERT_NOT_NULL(test, buf);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, f);
	sg_init_one(&w->sg, buf, PAGE_SIZE);
	KUNIT_ASSERT_EQ(test, ib_dma_map_sg(t->dev, &w->sg, 1,
					    DMA_BIDIRECTIONAL), 1);
	KUNIT_ASSERT_EQ(test, ib_map_mr_sg(f, &w->sg, 1, NULL, PAGE_SIZE), 1);
	w->reg = (struct ib_reg_wr){
		.wr = { .opcode = IB_WR_REG_MR, .wr_id = 70,
			.send_flags = IB_SEND_SIGNALED },
		.mr = f, .key = f->rkey, .access = IB_ACCESS_LOCAL_WRITE,
	};
	KUNIT_ASSERT_EQ(test, ib_post_send(t->qp[1], &w->reg.wr, NULL), 0);
	qpt_expect_wc(test, t->cq[1], IB_WC_REG_MR, 70, 0);

	w->sge[0] = (struct ib_sge){ a->iova, 64, a->lkey };
	w->sge[1] = (struct ib_sge){ f->iova, 64, f->lkey };
	for (i = 0; i < 2; i++)
		w->rd[i] = (struct ib_rdma_wr){
			.wr = { .opcode = i ? IB_WR_RDMA_READ_WITH_INV :
					      IB_WR_RDMA_READ,
				.wr_id = 71 + i, .send_flags = IB_SEND_SIGNALED,
				.sg_list = &w->sge[i], .num_sge = 1,
				.ex.invalidate_rkey = i ? f->rkey : 0 },
			.remote_addr = 0x10000, .rkey = 0x4242,
		};
	w->rd[0].wr.next = &w->rd[1].wr;
	KUNIT_ASSERT_EQ(test, ib_post_send(t->qp[1], &w->rd[0].wr, NULL), 0);
	qpt_raw_recv(test, t, 2 * QPT_READ_REQ_FPDU);	/* both are out */

	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test,
							qpt_flush_races_off,
							NULL), 0);
	swi_eng_rx_race_flush(1);
	qpt_raw_tagged(test, t, RDMAP_READ_RESP, a->lkey, a->iova, 64, 0x11, 0);
	KUNIT_ASSERT_EQ(test, qpt_wait(t->cq[1], &w->wc), 1);
	KUNIT_EXPECT_EQ(test, w->wc.wr_id, 71);
	KUNIT_EXPECT_EQ(test, w->wc.status, IB_WC_WR_FLUSH_ERR);
	KUNIT_EXPECT_TRUE_MSG(test, qpt_stag_valid(t, f->lkey),
			      "the next Read's sink was invalidated");

	qpt_raw_tagged(test, t, RDMAP_READ_RESP, f->lkey, f->iova, 64, 0x22, 0);
	KUNIT_ASSERT_EQ(test, qpt_wait(t->cq[1], &w->wc), 1);
	KUNIT_EXPECT_EQ(test, w->wc.wr_id, 72);
	KUNIT_EXPECT_EQ(test, w->wc.status, IB_WC_SUCCESS);
	KUNIT_EXPECT_TRUE_MSG(test, qpt_all(buf, 64, 0x22),
			      "the next Read completed without its data");
	KUNIT_EXPECT_FALSE(test, qpt_stag_valid(t, f->lkey));
	KUNIT_EXPECT_EQ(test, qpt_state(t, 1), IB_QPS_RTS);
	ib_dma_unmap_sg(t->dev, &w->sg, 1, DMA_BIDIRECTIONAL);
	KUNIT_EXPECT_EQ(test, ib_dereg_mr(f), 0);
	KUNIT_EXPECT_EQ(test, ib_dereg_mr(a), 0);
}

/*
 * Verify, then place (RFC 5044 section 6): an RDMA Write whose CRC is
 * wrong (a payload octet changed on the way) must not reach the MR. B
 * counts a CRC error, answers with an LLP Terminate and goes to ERROR;
 * before the fix the payload was placed before the CRC was checked.
 */
static void qpt_bad_crc_not_placed(struct kunit *test)
{
	const struct eng_stream_cfg cfg = {
		.tx = { .crc = true }, .rx = { .crc = true },
	};
	const struct eng_stream_cfg *both[2] = { NULL, &cfg };
	struct qpt *t = qpt_up_pair(test, both, 0);
	struct ib_mr *mr = qpt_reg(test, t, 1, IB_ACCESS_LOCAL_WRITE |
					       IB_ACCESS_REMOTE_WRITE);

	qpt_raw_tagged(test, t, RDMAP_WRITE, mr->rkey, mr->iova, 256, 0x5a,
		       cpu_to_le32(0x12345678));
	KUNIT_EXPECT_TRUE(test, qpt_wait_state(t, 1, IB_QPS_ERR));
	KUNIT_EXPECT_EQ(test, qpt_wait_counter(test, t, SWI_CNT_TX_TERM_LLP,
					       1), 1);
	KUNIT_EXPECT_EQ(test, qpt_wait_counter(test, t, SWI_CNT_RX_CRC_ERRORS,
					       1), 1);
	KUNIT_EXPECT_TRUE_MSG(test, qpt_all(t->buf[1], 256, 0),
			      "a Write with a bad CRC was placed");
	KUNIT_EXPECT_EQ(test, ib_dereg_mr(mr), 0);
}

/*
 * With CRC on, an FPDU that has not arrived whole is not placed at all:
 * the peer sends the header and half the payload of a Write and stops.
 * Nothing lands, and the MR can be deregistered at once.
 */
static void qpt_partial_fpdu_not_placed(struct kunit *test)
{
	const struct eng_stream_cfg cfg = { .rx = { .crc = true } };
	const struct eng_stream_cfg *both[2] = { NULL, &cfg };
	struct qpt *t = qpt_up_pair(test, both, 0);
	struct ib_mr *mr = qpt_reg(test, t, 1, IB_ACCESS_LOCAL_WRITE |
					       IB_ACCESS_REMOTE_WRITE);
	struct ddp_hdr_info h = {
		.tagged = 1, .last = 1, .dv = DDP_VERSION, .rv = RDMAP_VERSION,
		.opcode = RDMAP_WRITE, .stag = mr->rkey, .to = mr->iova,
	};
	struct msghdr msg = { .msg_flags = MSG_NOSIGNAL };
	u8 buf[MPA_HDR_SIZE + DDP_TAGGED_HDR_SIZE + 32] = {};
	struct kvec kv = { .iov_base = buf, .iov_len = sizeof(buf) };
	__be16 ulen = cpu_to_be16(DDP_TAGGED_HDR_SIZE + 64);

	memcpy(buf, &ulen, sizeof(ulen));
	KUNIT_ASSERT_EQ(test, swi_ddp_hdr_build(buf + MPA_HDR_SIZE,
						DDP_TAGGED_HDR_SIZE, &h),
			DDP_TAGGED_HDR_SIZE);
	memset(buf + MPA_HDR_SIZE + DDP_TAGGED_HDR_SIZE, 0x5a, 32);
	KUNIT_ASSERT_EQ(test, kernel_sendmsg(t->raw, &msg, &kv, 1,
					     sizeof(buf)), sizeof(buf));
	msleep(100);
	KUNIT_EXPECT_TRUE_MSG(test, qpt_all(t->buf[1], 64, 0),
			      "half an FPDU was placed before its CRC");
	KUNIT_EXPECT_EQ(test, qpt_state(t, 1), IB_QPS_RTS);
	KUNIT_EXPECT_EQ(test, ib_dereg_mr(mr), 0);
}

/*
 * The stream owns the IRD its IRQ was sized by: B's stream is created
 * with IRD 1, then the QP's attributes say 128 before the stream is
 * attached (a consumer's modify_qp racing the accept). The peer sends two
 * Read Requests at once: the second is one beyond the IRD the IRQ holds
 * and must end in a Terminate, and query_qp must report IRD 1. Before
 * the fix the IRQ of one entry was indexed modulo 128.
 */
static void qpt_ird_fixed_by_stream(struct kunit *test)
{
	const struct eng_stream_cfg *both[2] = { NULL, NULL };
	const struct eng_stream_cfg cfg = {};
	struct qpt *t = qpt_up_pair(test, both, 1);
	struct rdmap_read_req_info r = {
		.sink_stag = 0x1100, .sink_to = 0, .size = 16,
	};
	struct ib_mr *mr;
	struct swi_qp *qp = to_swi_qp(t->qp[1]);
	u8 two[2 * QPT_READ_REQ_FPDU] = {};
	struct kvec kv = { .iov_base = two, .iov_len = sizeof(two) };
	struct msghdr msg = { .msg_flags = MSG_NOSIGNAL };
	struct ib_qp_init_attr init;
	struct ib_qp_attr attr = { .max_dest_rd_atomic = 128,
				   .max_rd_atomic = 128 };
	struct rdmap_read_req rr;
	struct eng_stream *s;
	struct socket *sock[2];
	int i;

	swi_kunit_sock_pair(test, &sock[0], &sock[1]);
	t->raw = sock[0];
	s = swi_qp_stream_new(qp, sock[1], &cfg);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, s);
	KUNIT_ASSERT_EQ(test, ib_modify_qp(t->qp[1], &attr,
					   IB_QP_MAX_DEST_RD_ATOMIC |
					   IB_QP_MAX_QP_RD_ATOMIC), 0);
	KUNIT_ASSERT_EQ(test, swi_qp_attach_stream(qp, s, NULL), 0);
	swi_kunit_sock_keep(test, sock[1]);
	KUNIT_ASSERT_EQ(test, ib_query_qp(t->qp[1], &attr, 0, &init), 0);
	KUNIT_EXPECT_EQ(test, attr.max_dest_rd_atomic, 1);
	mr = qpt_reg(test, t, 1, IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_READ);
	r.src_stag = mr->rkey;
	r.src_to = mr->iova;
	swi_rdmap_read_req_build(&rr, &r);
	/* both in one sendmsg(): B reads them in one go, answering neither */
	for (i = 0; i < 2; i++) {
		struct ddp_hdr_info h = {
			.last = 1, .dv = DDP_VERSION, .rv = RDMAP_VERSION,
			.opcode = RDMAP_READ_REQ, .qn = RDMAP_QN_READ_REQ,
			.msn = DDP_MSN_FIRST + i,
		};
		u8 *f = two + i * QPT_READ_REQ_FPDU;
		__be16 ulen = cpu_to_be16(DDP_UNTAGGED_HDR_SIZE +
					  RDMAP_READ_REQ_SIZE);

		memcpy(f, &ulen, MPA_HDR_SIZE);
		KUNIT_ASSERT_EQ(test, swi_ddp_hdr_build(f + MPA_HDR_SIZE,
							DDP_UNTAGGED_HDR_SIZE, &h),
				DDP_UNTAGGED_HDR_SIZE);
		memcpy(f + MPA_HDR_SIZE + DDP_UNTAGGED_HDR_SIZE, &rr,
		       sizeof(rr));
	}
	KUNIT_ASSERT_EQ(test, kernel_sendmsg(t->raw, &msg, &kv, 1,
					     sizeof(two)), sizeof(two));
	KUNIT_EXPECT_TRUE(test, qpt_wait_state(t, 1, IB_QPS_ERR));
	KUNIT_EXPECT_EQ(test, qpt_wait_counter(test, t, SWI_CNT_TX_TERM_DDP,
					       1), 1);
	KUNIT_EXPECT_EQ(test, ib_dereg_mr(mr), 0);
}

/*
 * A user SQE carries the siw ABI's flags only: one that sets the driver's
 * internal flag (a work request that never completes and that the busy
 * check does not see) has it masked off when the transmitter copies it.
 */
static void qpt_user_flags_masked(struct kunit *test)
{
	const struct eng_stream_cfg cfg = {};
	const struct eng_stream_cfg *both[2] = { NULL, &cfg };
	struct qpt *t = qpt_up_pair(test, both, 0);
	struct swi_qp *qp = to_swi_qp(t->qp[1]);
	struct siw_sqe *slot = qp->sq.queue, sqe;

	memset(slot, 0, sizeof(*slot));
	slot->opcode = SIW_OP_SEND;
	slot->id = 71;
	WRITE_ONCE(slot->flags, SIW_WQE_VALID | SIW_WQE_SIGNALLED |
				ENG_WQE_INTERNAL | BIT(12));
	qp->user = true;
	KUNIT_EXPECT_EQ(test, swi_qp_take_sqe(qp, &sqe, NULL, 0), 0);
	qp->user = false;
	KUNIT_EXPECT_EQ(test, sqe.id, 71);
	KUNIT_EXPECT_FALSE(test, sqe.flags & ENG_WQE_INTERNAL);
	KUNIT_EXPECT_FALSE(test, sqe.flags & BIT(12));
	KUNIT_EXPECT_TRUE(test, sqe.flags & SIW_WQE_SIGNALLED);
}

/*
 * The largest FPDU (ULPDU_Length 65535, more than one loopback segment)
 * is held back in the socket whole until its CRC is checked: the
 * receive buffer and the window it advertises must hold it, or the
 * connection would stall with a partial FPDU never read. Two of them
 * back to back, each placed.
 */
static void qpt_largest_fpdu_placed(struct kunit *test)
{
	const struct eng_stream_cfg cfg = { .rx = { .crc = true } };
	const struct eng_stream_cfg *both[2] = { NULL, &cfg };
	struct qpt *t = qpt_up_pair(test, both, 0);
	struct ib_mr *mr = qpt_reg(test, t, 1, IB_ACCESS_LOCAL_WRITE |
					       IB_ACCESS_REMOTE_WRITE);
	const u16 len = U16_MAX, plen = len - DDP_TAGGED_HDR_SIZE;
	size_t n = MPA_HDR_SIZE + len + mpa_pad_len(len) + MPA_CRC_SIZE;
	struct msghdr msg = { .msg_flags = MSG_NOSIGNAL };
	__be16 ulen = cpu_to_be16(len);
	struct ddp_hdr_info h = {
		.tagged = 1, .last = 1, .dv = DDP_VERSION, .rv = RDMAP_VERSION,
		.opcode = RDMAP_WRITE, .stag = mr->rkey,
	};
	struct mpa_crc crc;
	struct kvec kv;
	__le32 sum;
	u8 *f;
	int i;

	f = kunit_kzalloc(test, n, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, f);
	for (i = 0; i < 2; i++) {
		h.to = mr->iova + i;
		memcpy(f, &ulen, MPA_HDR_SIZE);
		KUNIT_ASSERT_EQ(test, swi_ddp_hdr_build(f + MPA_HDR_SIZE,
							DDP_TAGGED_HDR_SIZE, &h),
				DDP_TAGGED_HDR_SIZE);
		memset(f + MPA_HDR_SIZE + DDP_TAGGED_HDR_SIZE, 0x31 + i, plen);
		swi_mpa_crc_begin(&crc);
		mpa_crc_update(&crc, f, n - MPA_CRC_SIZE);
		sum = swi_mpa_crc_final(&crc);
		memcpy(f + n - MPA_CRC_SIZE, &sum, MPA_CRC_SIZE);
		kv = (struct kvec){ .iov_base = f, .iov_len = n };
		KUNIT_ASSERT_EQ(test, kernel_sendmsg(t->raw, &msg, &kv, 1, n),
				n);
		KUNIT_EXPECT_TRUE_MSG(test, qpt_wait_byte(t->buf[1], i + plen - 1,
							  0x31 + i),
				      "FPDU %d of 65535 octets not placed", i);
	}
	KUNIT_EXPECT_EQ(test, qpt_state(t, 1), IB_QPS_RTS);
	KUNIT_EXPECT_EQ(test, ib_dereg_mr(mr), 0);
}

/*
 * ib_map_mr_sg() on a fast-register MR that is valid is refused before
 * its page array changes: a walk in flight through the MR must never
 * follow pages it was not checked against. Once invalidated, it maps.
 */
static void qpt_map_valid_mr_refused(struct kunit *test)
{
	const struct eng_stream_cfg cfg = {};
	struct qpt *t = qpt_up(test, &cfg);
	struct ib_mr *mr = qpt_reg(test, t, 1, IB_ACCESS_LOCAL_WRITE);
	struct swi_mr *smr = to_swi_mr(mr);
	struct page *first = smr->pages[0];
	struct ib_send_wr inv = {
		.opcode = IB_WR_LOCAL_INV, .wr_id = 79,
		.send_flags = IB_SEND_SIGNALED,
		.ex.invalidate_rkey = mr->rkey,
	};
	struct scatterlist sg;

	sg_init_one(&sg, t->buf[0], PAGE_SIZE);
	KUNIT_ASSERT_EQ(test, ib_dma_map_sg(t->dev, &sg, 1,
					    DMA_BIDIRECTIONAL), 1);
	KUNIT_EXPECT_EQ(test, ib_map_mr_sg(mr, &sg, 1, NULL, PAGE_SIZE),
			-EBUSY);
	KUNIT_EXPECT_PTR_EQ(test, smr->pages[0], first);
	KUNIT_ASSERT_EQ(test, ib_post_send(t->qp[1], &inv, NULL), 0);
	qpt_expect_wc(test, t->cq[1], IB_WC_LOCAL_INV, 79, 0);
	KUNIT_EXPECT_EQ(test, ib_map_mr_sg(mr, &sg, 1, NULL, PAGE_SIZE), 1);
	KUNIT_EXPECT_PTR_EQ(test, smr->pages[0], virt_to_page(t->buf[0]));
	KUNIT_EXPECT_EQ(test, ib_dereg_mr(mr), 0);
}

#define QPT_STAGS	16

/*
 * STags are hard to predict (RFC 5040 section 8.1.1, requirement 8):
 * MRs registered in a row, as a peer would count on, get neither
 * consecutive indexes nor one key. Before, indexes ran 1, 2, 3... and
 * every key was 0 (STags 0x100, 0x200, ...). The chance that random
 * draws fail this is below 2^-40.
 */
static void qpt_stags_unpredictable(struct kunit *test)
{
	const struct eng_stream_cfg cfg = {};
	const struct eng_stream_cfg *both[2] = { NULL, &cfg };
	struct qpt *t = qpt_up_pair(test, both, 0);
	struct ib_mr *mr[QPT_STAGS];
	unsigned int i, next = 0, same_key = 0;

	for (i = 0; i < QPT_STAGS; i++) {
		mr[i] = ib_alloc_mr(t->pd, IB_MR_TYPE_MEM_REG, 4);
		KUNIT_ASSERT_NOT_ERR_OR_NULL(test, mr[i]);
		KUNIT_EXPECT_EQ(test, mr[i]->lkey, mr[i]->rkey);
		if (!i)
			continue;
		next += rdmap_stag_index(mr[i]->lkey) ==
			rdmap_stag_index(mr[i - 1]->lkey) + 1;
		same_key += rdmap_stag_key(mr[i]->lkey) ==
			    rdmap_stag_key(mr[0]->lkey);
	}
	KUNIT_EXPECT_LE_MSG(test, next, 2, "consecutive indexes");
	KUNIT_EXPECT_LE_MSG(test, same_key, 8, "keys equal to the first");
	for (i = 0; i < QPT_STAGS; i++)
		KUNIT_EXPECT_EQ(test, ib_dereg_mr(mr[i]), 0);
}

/*
 * A QP is found by number with a reference, and not while it is being
 * destroyed; a user QP only by the process that created it (here: a
 * kernel QP made to look like another process's user QP). iw_get_qp
 * hands its reference to iw_cm, whose iw_add_ref right after takes none:
 * a destroy cannot free the QP between the two.
 */
static void qpt_find_owner(struct kunit *test)
{
	const struct eng_stream_cfg cfg = {};
	const struct eng_stream_cfg *both[2] = { NULL, &cfg };
	struct qpt *t = qpt_up_pair(test, both, 0);
	struct swi_qp *qp = to_swi_qp(t->qp[1]);
	struct swi_device *dev = to_swi_dev(t->dev);
	unsigned int refs = kref_read(&qp->ref);
	struct swi_qp *found;

	found = swi_qp_find(dev, t->qp[1]->qp_num);
	KUNIT_EXPECT_PTR_EQ(test, found, qp);
	KUNIT_EXPECT_EQ(test, kref_read(&qp->ref), refs + 1);
	if (found)
		swi_qp_put(&found->base);
	found = swi_qp_find(dev, t->qp[1]->qp_num + 1000);
	KUNIT_EXPECT_NULL(test, found);
	if (found)
		swi_qp_put(&found->base);
	qp->user = true;
	qp->owner = get_pid(task_tgid(current));
	/* iw_get_qp: the reference goes to iw_cm (iw_add_ref takes none) */
	KUNIT_EXPECT_PTR_EQ(test, swi_get_qp(t->dev, t->qp[1]->qp_num),
			    t->qp[1]);
	KUNIT_EXPECT_EQ(test, kref_read(&qp->ref), refs + 1);
	swi_qp_iw_add_ref(t->qp[1]);
	KUNIT_EXPECT_EQ(test, kref_read(&qp->ref), refs + 1);
	swi_qp_put(t->qp[1]);	/* iw_rem_ref */
	put_pid(qp->owner);
	qp->owner = find_get_pid(1);	/* init's, not ours */
	found = swi_qp_find(dev, t->qp[1]->qp_num);
	KUNIT_EXPECT_NULL(test, found);
	if (found)
		swi_qp_put(&found->base);
	KUNIT_EXPECT_NULL(test, swi_get_qp(t->dev, t->qp[1]->qp_num));
	put_pid(qp->owner);
	qp->owner = NULL;
	qp->user = false;
	KUNIT_EXPECT_EQ(test, kref_read(&qp->ref), refs);
}

static atomic_t qpt_gone_queued;

/*
 * In the window after registration: the netdev's NETDEV_UNREGISTER, and
 * time for that unregistration to finish if nothing holds it back
 */
static void qpt_netdev_gone_hook(struct net_device *netdev, bool registered)
{
	if (!registered)
		return;
	if (swi_device_netdev_gone(netdev))
		atomic_inc(&qpt_gone_queued);
	msleep(1000);
}

/*
 * A netdev unregistered while "rdma link add" is still setting its device
 * up: the device is unregistered once newlink is done with it, not freed
 * under it (KASAN: use-after-free in the debugfs and port-event steps),
 * and leaves no debugfs directory behind.
 */
static void qpt_netdev_gone_in_newlink(struct kunit *test)
{
	struct dentry *root, *d = NULL;
	struct net_device *lo;
	struct ib_device *ibdev;

	lo = swi_kunit_lo(test);
	KUNIT_ASSERT_NOT_NULL(test, lo);
	atomic_set(&qpt_gone_queued, 0);
	kunit_activate_static_stub(test, swi_newlink_step,
				   qpt_netdev_gone_hook);
	ibdev = swi_device_add("swkgone0", lo);
	kunit_deactivate_static_stub(test, swi_newlink_step);
	if (!IS_ERR(ibdev))
		ib_device_put(ibdev);	/* the queued unregistration's */
	swi_device_flush_unreg();
	KUNIT_EXPECT_EQ(test, atomic_read(&qpt_gone_queued), 1);
	ibdev = ib_device_get_by_netdev(lo, RDMA_DRIVER_SIW);
	KUNIT_EXPECT_NULL(test, ibdev);
	if (ibdev)
		ib_unregister_device_and_put(ibdev);
	dev_put(lo);
	root = debugfs_lookup("softiwarp", NULL);
	if (!IS_ERR_OR_NULL(root))
		d = debugfs_lookup("swkgone0", root);
	KUNIT_EXPECT_TRUE_MSG(test, IS_ERR_OR_NULL(d),
			      "the gone device's debugfs directory is left");
	if (!IS_ERR_OR_NULL(d)) {
		debugfs_remove(d);	/* points at a freed device */
		dput(d);
	}
	if (!IS_ERR_OR_NULL(root))
		dput(root);
}

/* A netdev of the test's own, which it can unregister */
static netdev_tx_t qpt_dummy_xmit(struct sk_buff *skb, struct net_device *nd)
{
	dev_kfree_skb(skb);
	return NETDEV_TX_OK;
}

static const struct net_device_ops qpt_dummy_ops = {
	.ndo_start_xmit = qpt_dummy_xmit,
};

/* The unregistration of the dummy netdev, from a work item */
struct qpt_unreg {
	struct work_struct work;
	struct net_device *nd;
	atomic_t started;
	struct completion done;
};

static struct qpt_unreg qpt_unreg;

static void qpt_unreg_fn(struct work_struct *work)
{
	unregister_netdev(qpt_unreg.nd);	/* waits for its references */
	complete(&qpt_unreg.done);
}

/*
 * Inside the registration, before the device can be pinned: the netdev is
 * unregistered, its NETDEV_UNREGISTER runs (and finds no device to act
 * on); its wait for the netdev's references goes on in the work item. The
 * hook runs where the core allocates the port counters: first for the
 * counters (rdma_counter_init()), then for sysfs (ib_setup_port_attrs()),
 * once the device is in the driver model, after which nothing in the
 * registration fails for a netdev gone. It acts on the second.
 */
static void qpt_unreg_before_hook(struct net_device *netdev, bool registered)
{
	int i;

	if (registered || netdev != qpt_unreg.nd ||
	    atomic_inc_return(&qpt_unreg.started) != 2)
		return;
	queue_work(system_unbound_wq, &qpt_unreg.work);
	for (i = 0; i < 250 && READ_ONCE(netdev->reg_state) == NETREG_REGISTERED;
	     i++)
		msleep(20);
	rtnl_lock();	/* the notifiers have run */
	rtnl_unlock();
}

/*
 * The other order than qpt_netdev_gone_in_newlink: the netdev goes while
 * "rdma link add" registers its device, before the device can be pinned,
 * so its NETDEV_UNREGISTER is ignored. newlink sees that the netdev left,
 * fails with -ENODEV and removes the device, so that the netdev's
 * unregistration, which waits for the device's reference, completes.
 * Before, the device kept the netdev and unregister_netdevice() waited
 * forever (cleanup_net stalled for every namespace).
 */
static void qpt_netdev_gone_before_register(struct kunit *test)
{
	struct net_device *nd;
	struct ib_device *ibdev;
	bool done;

	nd = alloc_netdev(0, "swkdum%d", NET_NAME_ENUM, ether_setup);
	KUNIT_ASSERT_NOT_NULL(test, nd);
	nd->netdev_ops = &qpt_dummy_ops;
	eth_hw_addr_random(nd);
	if (register_netdev(nd)) {
		free_netdev(nd);
		KUNIT_FAIL(test, "register_netdev failed");
		return;
	}
	qpt_unreg.nd = nd;
	atomic_set(&qpt_unreg.started, 0);
	INIT_WORK(&qpt_unreg.work, qpt_unreg_fn);
	init_completion(&qpt_unreg.done);
	kunit_activate_static_stub(test, swi_newlink_step,
				   qpt_unreg_before_hook);
	ibdev = swi_device_add("swkgone1", nd);
	kunit_deactivate_static_stub(test, swi_newlink_step);
	KUNIT_EXPECT_EQ(test, atomic_read(&qpt_unreg.started), 2);
	KUNIT_EXPECT_EQ(test, PTR_ERR_OR_ZERO(ibdev), -ENODEV);
	if (!IS_ERR(ibdev))
		ib_unregister_device_and_put(ibdev);
	done = wait_for_completion_timeout(&qpt_unreg.done, 10 * HZ);
	KUNIT_EXPECT_TRUE_MSG(test, done,
			      "the netdev's unregistration waits for the device");
	if (done)
		free_netdev(nd);	/* else leaked: something still holds it */
}

/*
 * A namespace being dismantled waits, in our pernet exit, for the
 * unregistrations its netdevs' NETDEV_UNREGISTER queued (a netdev moved
 * back to init_net does not wait for them itself): once it returns, the
 * device is gone, and with it every socket it had in the namespace.
 */
static void qpt_net_exit_waits(struct kunit *test)
{
	struct net_device *lo = swi_kunit_lo(test);
	struct ib_device *ibdev;

	KUNIT_ASSERT_NOT_NULL(test, lo);
	ibdev = swi_device_add("swkexit0", lo);
	if (IS_ERR(ibdev)) {
		dev_put(lo);
		KUNIT_FAIL(test, "swi_device_add: %ld", PTR_ERR(ibdev));
		return;
	}
	ib_device_put(ibdev);
	KUNIT_EXPECT_TRUE(test, swi_device_netdev_gone(lo));	/* queued */
	swi_device_net_exit(&init_net);
	ibdev = ib_device_get_by_netdev(lo, RDMA_DRIVER_SIW);
	KUNIT_EXPECT_NULL(test, ibdev);
	if (ibdev)
		ib_unregister_device_and_put(ibdev);
	dev_put(lo);
}

/* The immediate of the tests, in network order as ib_send_wr has it */
#define QPT_IMM		cpu_to_be32(0x8badf00d)

/* A receive with no SGE, as RTRS posts for Immediate Data */
static void qpt_post_recv_empty(struct kunit *test, struct qpt *t, int i,
				u64 id)
{
	struct ib_recv_wr wr = { .wr_id = id };

	KUNIT_ASSERT_EQ(test, ib_post_recv(t->qp[i], &wr, NULL), 0);
}

/* Post an RDMA Write with Immediate of @len octets to @mr at @off */
static void qpt_post_write_imm(struct kunit *test, struct qpt *t,
			       struct ib_mr *mr, u64 id, u32 off, u32 len,
			       int flags)
{
	struct ib_rdma_wr w = {
		.wr = { .opcode = IB_WR_RDMA_WRITE_WITH_IMM, .wr_id = id,
			.send_flags = flags, .ex.imm_data = QPT_IMM },
		.remote_addr = mr->iova + off, .rkey = mr->rkey,
	};

	qpt_post(test, t, 0, &w.wr, len);
}

/* Expect a receive completed by Immediate Data after @len octets */
static void qpt_expect_imm(struct kunit *test, struct qpt *t, u64 id,
			   u32 len)
{
	struct ib_wc wc;

	KUNIT_ASSERT_EQ(test, qpt_wait(t->cq[1], &wc), 1);
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, wc.opcode, IB_WC_RECV_RDMA_WITH_IMM);
	KUNIT_EXPECT_EQ(test, wc.wr_id, id);
	KUNIT_EXPECT_EQ(test, wc.byte_len, len);
	KUNIT_EXPECT_TRUE(test, wc.wc_flags & IB_WC_WITH_IMM);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(wc.ex.imm_data),
			be32_to_cpu(QPT_IMM));
}

/*
 * RFC 7306 section 6: an RDMA Write with Immediate places its data, then
 * completes a receive with no SGE as IB_WC_RECV_RDMA_WITH_IMM, its
 * immediate and the Write's length; the data is there when it completes.
 * With no data, the Immediate Data alone completes one. The receives and
 * a Send after them keep their order on queue 0.
 */
static void qpt_write_imm(struct kunit *test)
{
	const struct eng_stream_cfg cfg = {
		.tx = { .crc = true }, .rx = { .crc = true },
	};
	struct qpt *t = qpt_up(test, &cfg);
	struct ib_mr *mr = qpt_reg(test, t, 1, IB_ACCESS_LOCAL_WRITE |
					       IB_ACCESS_REMOTE_WRITE);
	struct ib_send_wr sw = { .opcode = IB_WR_SEND, .wr_id = 95 };

	qpt_fill(t->buf[0], QPT_BUF, 90);
	qpt_post_recv_empty(test, t, 1, 91);
	qpt_post_recv_empty(test, t, 1, 92);
	qpt_post_recv(test, t, 1, 96, 64);
	qpt_post_write_imm(test, t, mr, 93, 7, QPT_LEN, 0);
	qpt_expect_wc(test, t->cq[0], IB_WC_RDMA_WRITE, 93, 0);
	qpt_expect_imm(test, t, 91, QPT_LEN);
	KUNIT_EXPECT_EQ(test, memcmp(t->buf[1] + 7, t->buf[0], QPT_LEN), 0);
	qpt_post_write_imm(test, t, mr, 94, 0, 0, IB_SEND_SOLICITED);
	qpt_expect_wc(test, t->cq[0], IB_WC_RDMA_WRITE, 94, 0);
	qpt_expect_imm(test, t, 92, 0);
	qpt_post(test, t, 0, &sw, 64);
	qpt_expect_wc(test, t->cq[0], IB_WC_SEND, 95, 0);
	qpt_expect_wc(test, t->cq[1], IB_WC_RECV, 96, 64);
	KUNIT_EXPECT_EQ(test, ib_dereg_mr(mr), 0);
}

/*
 * Immediate Data consumes a receive (RFC 7306 section 6.3): with none
 * posted the receiver sends DDP's "no buffer" Terminate, and both QPs
 * end in ERROR (the Write with Immediate completed when it was sent:
 * its status says nothing of the peer)
 */
static void qpt_write_imm_no_recv(struct kunit *test)
{
	const struct eng_stream_cfg cfg = {};
	struct qpt *t = qpt_up(test, &cfg);
	struct ib_mr *mr = qpt_reg(test, t, 1, IB_ACCESS_LOCAL_WRITE |
					       IB_ACCESS_REMOTE_WRITE);
	struct ib_wc wc;

	qpt_post_write_imm(test, t, mr, 97, 0, 100, 0);
	KUNIT_EXPECT_TRUE(test, qpt_wait_state(t, 1, IB_QPS_ERR));
	KUNIT_EXPECT_TRUE(test, qpt_wait_state(t, 0, IB_QPS_ERR));
	KUNIT_ASSERT_EQ(test, qpt_wait(t->cq[0], &wc), 1);
	KUNIT_EXPECT_EQ(test, wc.wr_id, 97);
	KUNIT_EXPECT_EQ(test, ib_dereg_mr(mr), 0);
}

/* The raw peer reads one untagged FPDU and checks its DDP header */
static void qpt_raw_expect_untagged(struct kunit *test, struct qpt *t,
				    u8 *u, u8 opcode, u32 msn, u16 len)
{
	struct ddp_hdr_info h;
	u16 n = qpt_raw_read_fpdu(test, t, u);

	KUNIT_ASSERT_EQ(test, n, DDP_UNTAGGED_HDR_SIZE + len);
	KUNIT_ASSERT_EQ(test, swi_ddp_hdr_parse(u, n, &h),
			DDP_UNTAGGED_HDR_SIZE);
	KUNIT_EXPECT_FALSE(test, h.tagged);
	KUNIT_EXPECT_TRUE(test, h.last);
	KUNIT_EXPECT_EQ(test, h.dv, DDP_VERSION);
	KUNIT_EXPECT_EQ(test, h.rv, RDMAP_VERSION);
	KUNIT_EXPECT_EQ(test, h.opcode, opcode);
	KUNIT_EXPECT_EQ(test, h.qn, RDMAP_QN_SEND);
	KUNIT_EXPECT_EQ(test, h.msn, msn);
	KUNIT_EXPECT_EQ(test, h.mo, 0);
	KUNIT_EXPECT_EQ(test, h.stag, 0);
}

/*
 * What a peer sees of a Write with Immediate (RFC 7306 sections 6.2, 6.3
 * and Appendix A.3): the Write, then Immediate Data with SE (solicited)
 * on queue 0 with the next MSN, exactly 8 octets, the 32-bit immediate
 * in octets 0 to 3 and zeros after; with no data, Immediate Data alone
 */
static void qpt_write_imm_on_the_wire(struct kunit *test)
{
	static const u8 imm[RDMAP_IMM_SIZE] = { 0x8b, 0xad, 0xf0, 0x0d };
	const struct eng_stream_cfg cfg = {};
	const struct eng_stream_cfg *both[2] = { &cfg, NULL };
	struct qpt *t = qpt_up_pair(test, both, 0);
	struct ib_mr mr = { .iova = 0x1000, .rkey = 0x4242 };
	u8 *u = kunit_kzalloc(test, MPA_MULPDU_MAX + 8, GFP_KERNEL);
	struct ddp_hdr_info h;
	u16 n;

	KUNIT_ASSERT_NOT_NULL(test, u);
	qpt_post_write_imm(test, t, &mr, 98, 0, 100, IB_SEND_SOLICITED);
	n = qpt_raw_read_fpdu(test, t, u);
	KUNIT_ASSERT_EQ(test, n, DDP_TAGGED_HDR_SIZE + 100);
	KUNIT_ASSERT_EQ(test, swi_ddp_hdr_parse(u, n, &h), DDP_TAGGED_HDR_SIZE);
	KUNIT_EXPECT_EQ(test, h.opcode, RDMAP_WRITE);
	KUNIT_EXPECT_EQ(test, h.stag, 0x4242);
	KUNIT_EXPECT_TRUE(test, h.last);
	qpt_raw_expect_untagged(test, t, u, RDMAP_IMM_SE, DDP_MSN_FIRST,
				RDMAP_IMM_SIZE);
	KUNIT_EXPECT_EQ(test, memcmp(u + DDP_UNTAGGED_HDR_SIZE, imm,
				     RDMAP_IMM_SIZE), 0);
	qpt_expect_wc(test, t->cq[0], IB_WC_RDMA_WRITE, 98, 0);
	qpt_post_write_imm(test, t, &mr, 99, 0, 0, 0);
	qpt_raw_expect_untagged(test, t, u, RDMAP_IMM, DDP_MSN_FIRST + 1,
				RDMAP_IMM_SIZE);
	KUNIT_EXPECT_EQ(test, memcmp(u + DDP_UNTAGGED_HDR_SIZE, imm,
				     RDMAP_IMM_SIZE), 0);
	qpt_expect_wc(test, t->cq[0], IB_WC_RDMA_WRITE, 99, 0);
}

/*
 * The raw peer's Immediate Data with SE on queue 0 with @msn, its
 * Invalidate STag not zero (which the receiver ignores, RFC 7306 section
 * 4.1)
 */
static void qpt_raw_imm_se(struct kunit *test, struct qpt *t, u32 msn,
			   const u8 *imm)
{
	struct ddp_hdr_info h = {
		.last = 1, .dv = DDP_VERSION, .rv = RDMAP_VERSION,
		.opcode = RDMAP_IMM_SE, .qn = RDMAP_QN_SEND, .msn = msn,
		.stag = 0x5a5a5a5a,
	};
	u8 u[DDP_UNTAGGED_HDR_SIZE + RDMAP_IMM_SIZE];

	KUNIT_ASSERT_EQ(test, swi_ddp_hdr_build(u, DDP_UNTAGGED_HDR_SIZE, &h),
			DDP_UNTAGGED_HDR_SIZE);
	memcpy(u + DDP_UNTAGGED_HDR_SIZE, imm, RDMAP_IMM_SIZE);
	qpt_raw_fpdu(test, t, u, sizeof(u), 0);
}

/*
 * Immediate Data from a peer: octets 0 to 3 are the immediate, 4 to 7
 * ignored; the receive reports the Write before it, 0 when a Send came
 * between. A Read Request behind Immediate Data is answered after the
 * Immediate Data completed (RFC 7306 section 7).
 */
static void qpt_imm_from_peer(struct kunit *test)
{
	static const u8 imm[RDMAP_IMM_SIZE] = { 0x8b, 0xad, 0xf0, 0x0d,
						0xff, 0xee, 0xdd, 0xcc };
	const struct eng_stream_cfg cfg = {};
	const struct eng_stream_cfg *both[2] = { NULL, &cfg };
	struct qpt *t = qpt_up_pair(test, both, 0);
	struct ib_mr *mr = qpt_reg(test, t, 1, IB_ACCESS_LOCAL_WRITE |
					       IB_ACCESS_REMOTE_WRITE |
					       IB_ACCESS_REMOTE_READ);
	struct rdmap_read_req_info r = {
		.sink_stag = 0x99, .size = 16, .src_stag = mr->rkey,
		.src_to = mr->iova,
	};
	u8 *u = kunit_kzalloc(test, MPA_MULPDU_MAX + 8, GFP_KERNEL);
	struct rdmap_read_req rr;
	struct ddp_hdr_info h;
	struct ib_wc wc;

	qpt_post_recv_empty(test, t, 1, 81);
	qpt_post_recv(test, t, 1, 82, 16);
	qpt_post_recv_empty(test, t, 1, 83);
	qpt_raw_tagged(test, t, RDMAP_WRITE, mr->rkey, mr->iova, 300, 0x3c, 0);
	qpt_raw_untagged(test, t, RDMAP_IMM, RDMAP_QN_SEND, DDP_MSN_FIRST, 0,
			 true, imm, sizeof(imm));
	qpt_expect_imm(test, t, 81, 300);
	KUNIT_EXPECT_TRUE(test, qpt_all(t->buf[1], 300, 0x3c));
	qpt_raw_tagged(test, t, RDMAP_WRITE, mr->rkey, mr->iova, 20, 0x3d, 0);
	qpt_raw_untagged(test, t, RDMAP_SEND, RDMAP_QN_SEND, DDP_MSN_FIRST + 1,
			 0, true, imm, sizeof(imm));
	qpt_expect_wc(test, t->cq[1], IB_WC_RECV, 82, sizeof(imm));
	KUNIT_ASSERT_NOT_NULL(test, u);
	qpt_raw_imm_se(test, t, DDP_MSN_FIRST + 2, imm);
	swi_rdmap_read_req_build(&rr, &r);
	qpt_raw_untagged(test, t, RDMAP_READ_REQ, RDMAP_QN_READ_REQ,
			 DDP_MSN_FIRST, 0, true, &rr, sizeof(rr));
	KUNIT_ASSERT_EQ(test, qpt_raw_read_fpdu(test, t, u),
			DDP_TAGGED_HDR_SIZE + 16);
	KUNIT_ASSERT_EQ(test, swi_ddp_hdr_parse(u, DDP_TAGGED_HDR_SIZE, &h),
			DDP_TAGGED_HDR_SIZE);
	KUNIT_EXPECT_EQ(test, h.opcode, RDMAP_READ_RESP);
	/* the Response is out: the Immediate Data completed before it */
	KUNIT_ASSERT_EQ(test, ib_poll_cq(t->cq[1], 1, &wc), 1);
	KUNIT_EXPECT_EQ(test, wc.wr_id, 83);
	KUNIT_EXPECT_EQ(test, wc.opcode, IB_WC_RECV_RDMA_WITH_IMM);
	KUNIT_EXPECT_EQ(test, wc.byte_len, 0);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(wc.ex.imm_data),
			be32_to_cpu(QPT_IMM));
	KUNIT_EXPECT_EQ(test, qpt_state(t, 1), IB_QPS_RTS);
	KUNIT_EXPECT_EQ(test, ib_dereg_mr(mr), 0);
}

/*
 * An Immediate Data message the receiver refuses, its Terminate, and
 * whether the Terminate carries the message's DDP header (those refused
 * for their length before it was read carry none)
 */
struct qpt_imm_case {
	const char *name;
	bool tagged;
	bool last;
	bool no_recv;
	bool rv0;
	u32 qn;
	u16 len;
	u8 layer, etype, code;
	bool ddp_hdr;
};

static const struct qpt_imm_case qpt_imm_cases[] = {
	{ "7 octets", false, true, false, false, 0, 7, 0, 2, 0xff, false },
	{ "9 octets", false, true, false, false, 0, 9, 1, 2, 0x05, true },
	{ "none", false, true, false, false, 0, 0, 0, 2, 0xff, false },
	{ "tagged", true, true, false, false, 0, 8, 0, 2, 0x06, true },
	{ "without L", false, false, false, false, 0, 8, 0, 2, 0xff, true },
	{ "queue 1", false, true, false, false, 1, 8, 1, 2, 0x01, true },
	{ "no receive", false, true, true, false, 0, 8, 1, 2, 0x02, true },
	{ "RDMAP version 0", false, true, false, true, 0, 8, 0, 2, 0x05,
	  true },
};

static void qpt_imm_case_desc(const struct qpt_imm_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(qpt_imm, qpt_imm_cases, qpt_imm_case_desc);

/*
 * RFC 7306 section 6.3 (exactly 8 octets, untagged, queue 0, one
 * untagged buffer) and section 8.2: each malformed Immediate Data gets
 * its Terminate, with the DDP header and no RDMA header (section 8.1
 * rule 2), and no receive completes with it
 */
static void qpt_imm_malformed(struct kunit *test)
{
	const struct qpt_imm_case *c = test->param_value;
	const struct eng_stream_cfg cfg = {};
	const struct eng_stream_cfg *both[2] = { NULL, &cfg };
	struct qpt *t = qpt_up_pair(test, both, 0);
	u8 u[DDP_UNTAGGED_HDR_SIZE + RDMAP_IMM_SIZE] = {};
	u8 pay[16] = { 1, 2, 3, 4 };
	struct rdmap_term_info ti;
	struct ib_wc wc;

	if (!c->no_recv)
		qpt_post_recv_empty(test, t, 1, 84);
	if (c->tagged) {
		qpt_raw_tagged(test, t, RDMAP_IMM, 0x4242, 0, c->len, 0, 0);
	} else if (c->rv0) {
		struct ddp_hdr_info h = {
			.last = 1, .dv = DDP_VERSION, .opcode = RDMAP_IMM,
			.msn = DDP_MSN_FIRST,
		};

		KUNIT_ASSERT_EQ(test, swi_ddp_hdr_build(u, sizeof(u), &h),
				DDP_UNTAGGED_HDR_SIZE);
		qpt_raw_fpdu(test, t, u, sizeof(u), 0);
	} else {
		qpt_raw_untagged(test, t, RDMAP_IMM, c->qn, DDP_MSN_FIRST, 0,
				 c->last, pay, c->len);
	}
	qpt_raw_read_term(test, t, &ti);
	SWI_EXPECT_TERM_CAUSE(test, ti.cause, c->layer, c->etype, c->code);
	KUNIT_EXPECT_EQ(test, !!(ti.has & RDMAP_TERM_HAS_DDP), c->ddp_hdr);
	KUNIT_EXPECT_FALSE(test, ti.has & RDMAP_TERM_HAS_RREQ);
	if (c->ddp_hdr)
		KUNIT_EXPECT_EQ(test, ti.ddp.opcode, RDMAP_IMM);
	KUNIT_EXPECT_TRUE(test, qpt_wait_state(t, 1, IB_QPS_ERR));
	if (!c->no_recv) {
		KUNIT_ASSERT_EQ(test, qpt_wait(t->cq[1], &wc), 1);
		KUNIT_EXPECT_EQ(test, wc.wr_id, 84);
		KUNIT_EXPECT_NE(test, wc.status, IB_WC_SUCCESS);
	}
}

static void qpt_ext_on(void *unused)
{
	qpt_ext_off = false;
}

/*
 * RFC 7306 switched off (the module parameter rfc7306=N): a Write with
 * Immediate is refused at post time, and a peer's Immediate Data gets
 * RFC 5040's Unexpected OpCode, as from a peer without the extensions
 * (section 1.1)
 */
static void qpt_imm_ext_off(struct kunit *test)
{
	const struct eng_stream_cfg cfg = {};
	const struct eng_stream_cfg *both[2] = { NULL, &cfg };
	struct ib_rdma_wr w = {
		.wr = { .opcode = IB_WR_RDMA_WRITE_WITH_IMM, .wr_id = 85 },
	};
	const struct ib_send_wr *bad = NULL;
	u8 pay[RDMAP_IMM_SIZE] = {};
	struct qpt *t;

	qpt_ext_off = true;
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, qpt_ext_on,
							NULL), 0);
	t = qpt_up_pair(test, both, 0);
	KUNIT_EXPECT_EQ(test, ib_post_send(t->qp[1], &w.wr, &bad), -EOPNOTSUPP);
	KUNIT_EXPECT_PTR_EQ(test, bad, &w.wr);
	qpt_post_recv_empty(test, t, 1, 86);
	qpt_raw_untagged(test, t, RDMAP_IMM, RDMAP_QN_SEND, DDP_MSN_FIRST, 0,
			 true, pay, sizeof(pay));
	qpt_raw_expect_term(test, t, TERM_LAYER_RDMAP,
			    TERM_ETYPE_RDMAP_OPERATION, TERM_RDMAP_OPCODE);
	KUNIT_EXPECT_TRUE(test, qpt_wait_state(t, 1, IB_QPS_ERR));
}

/* Post an atomic of @op on the word at @off of @mr; its result to buf[0] */
static void qpt_post_atomic(struct kunit *test, struct qpt *t, int i,
			    struct ib_mr *mr, enum ib_wr_opcode op, u64 id,
			    u32 off, u64 compare_add, u64 swap,
			    u64 compare_add_mask, u64 swap_mask)
{
	struct ib_atomic_wr a = {
		.wr = { .opcode = op, .wr_id = id },
		.remote_addr = mr->iova + off, .rkey = mr->rkey,
		.compare_add = compare_add, .swap = swap,
		.compare_add_mask = compare_add_mask, .swap_mask = swap_mask,
	};

	qpt_post(test, t, i, &a.wr, sizeof(u64));
}

/* Expect the atomic @id to complete as @op, having found @orig */
static void qpt_expect_atomic(struct kunit *test, struct qpt *t,
			      enum ib_wc_opcode op, u64 id, u64 orig)
{
	struct ib_wc wc;

	KUNIT_ASSERT_EQ(test, qpt_wait(t->cq[0], &wc), 1);
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, wc.opcode, op);
	KUNIT_EXPECT_EQ(test, wc.wr_id, id);
	KUNIT_EXPECT_EQ(test, wc.byte_len, sizeof(u64));
	KUNIT_EXPECT_EQ(test, *(u64 *)t->buf[0], orig);
}

/*
 * RFC 7306 section 5.1 through the kernel verbs, between two kernel QPs:
 * FetchAdd and CmpSwap, masked and not, each returning the word's
 * original value in the requester's buffer (host order, as the verbs
 * want it) and leaving the value the RFC's arithmetic gives; a CmpSwap
 * that does not match leaves the word alone; a Read between them sees
 * each result, and the completions come in order with the Reads'.
 */
static void qpt_atomics(struct kunit *test)
{
	const struct eng_stream_cfg cfg = {
		.tx = { .crc = true }, .rx = { .crc = true },
	};
	struct qpt *t = qpt_up(test, &cfg);
	struct ib_mr *mr = qpt_reg(test, t, 1, IB_ACCESS_LOCAL_WRITE |
					       IB_ACCESS_REMOTE_READ |
					       IB_ACCESS_REMOTE_ATOMIC);
	struct ib_rdma_wr rw = {
		.wr = { .opcode = IB_WR_RDMA_READ, .wr_id = 106 },
		.remote_addr = mr->iova + 8, .rkey = mr->rkey,
	};
	u64 *w = (u64 *)(t->buf[1] + 8);

	*w = 5;
	qpt_post_atomic(test, t, 0, mr, IB_WR_ATOMIC_FETCH_AND_ADD, 101, 8, 3,
			0, 0, 0);
	qpt_expect_atomic(test, t, IB_WC_FETCH_ADD, 101, 5);
	KUNIT_EXPECT_EQ(test, READ_ONCE(*w), 8);
	qpt_post_atomic(test, t, 0, mr, IB_WR_ATOMIC_CMP_AND_SWP, 102, 8, 8,
			100, 0, 0);
	qpt_expect_atomic(test, t, IB_WC_COMP_SWAP, 102, 8);
	KUNIT_EXPECT_EQ(test, READ_ONCE(*w), 100);
	qpt_post_atomic(test, t, 0, mr, IB_WR_ATOMIC_CMP_AND_SWP, 103, 8, 7,
			1, 0, 0);
	qpt_expect_atomic(test, t, IB_WC_COMP_SWAP, 103, 100);
	KUNIT_EXPECT_EQ(test, READ_ONCE(*w), 100);
	/* two 32-bit fields: the low one's carry is discarded (5.1.1) */
	*w = 0x00000001ffffffffULL;
	qpt_post_atomic(test, t, 0, mr, IB_WR_MASKED_ATOMIC_FETCH_AND_ADD,
			104, 8, 0x0000000100000001ULL, 0,
			0x8000000080000000ULL, 0);
	qpt_expect_atomic(test, t, IB_WC_MASKED_FETCH_ADD, 104,
			  0x00000001ffffffffULL);
	KUNIT_EXPECT_EQ(test, READ_ONCE(*w), 0x0000000200000000ULL);
	/* the low 16 bits compared, the high 32 swapped (5.1.2) */
	qpt_post_atomic(test, t, 0, mr, IB_WR_MASKED_ATOMIC_CMP_AND_SWP, 105,
			8, 0xffffffff00000000ULL, 0xabcdef0112345678ULL,
			0xffffULL, 0xffffffff00000000ULL);
	qpt_expect_atomic(test, t, IB_WC_MASKED_COMP_SWAP, 105,
			  0x0000000200000000ULL);
	KUNIT_EXPECT_EQ(test, READ_ONCE(*w), 0xabcdef0100000000ULL);
	/* Read, FetchAdd, Read: in the ORQ together, answered in order */
	qpt_post(test, t, 0, &rw.wr, 8);
	qpt_post_atomic(test, t, 0, mr, IB_WR_ATOMIC_FETCH_AND_ADD, 107, 8, 1,
			0, 0, 0);
	rw.wr.wr_id = 108;
	rw.wr.send_flags = 0;
	qpt_post(test, t, 0, &rw.wr, 8);
	qpt_expect_wc(test, t->cq[0], IB_WC_RDMA_READ, 106, 8);
	qpt_expect_wc(test, t->cq[0], IB_WC_FETCH_ADD, 107, 0);
	qpt_expect_wc(test, t->cq[0], IB_WC_RDMA_READ, 108, 8);
	KUNIT_EXPECT_EQ(test, *(u64 *)t->buf[0], 0xabcdef0100000001ULL);
	KUNIT_EXPECT_EQ(test, qpt_state(t, 0), IB_QPS_RTS);
	KUNIT_EXPECT_EQ(test, qpt_state(t, 1), IB_QPS_RTS);
	KUNIT_EXPECT_EQ(test, ib_dereg_mr(mr), 0);
}

#define QPT_RACE_OPS	1500	/* FetchAdds per requester */
#define QPT_RACE_BURST	8	/* outstanding per requester */

/* A second connected pair of kernel QPs in @t's PD, on its CQs */
static void qpt_second_pair(struct kunit *test, struct qpt *t,
			    struct ib_qp *qp[2])
{
	struct ib_qp_init_attr qa = {
		.cap = { .max_send_wr = 16, .max_recv_wr = 16,
			 .max_send_sge = 2, .max_recv_sge = 2 },
		.port_num = 1,
		.qp_type = IB_QPT_RC,
		.sq_sig_type = IB_SIGNAL_REQ_WR,
	};
	const struct eng_stream_cfg cfg = {};
	struct socket *sock[2];
	int i, err;

	swi_kunit_sock_pair(test, &sock[0], &sock[1]);
	for (i = 0; i < 2; i++) {
		qa.send_cq = t->cq[i];
		qa.recv_cq = t->cq[i];
		qp[i] = ib_create_qp(t->pd, &qa);
		KUNIT_ASSERT_NOT_ERR_OR_NULL(test, qp[i]);
		err = kunit_add_action_or_reset(test, qpt_destroy_qp, qp[i]);
		KUNIT_ASSERT_EQ(test, err, 0);
		KUNIT_ASSERT_EQ(test, swi_qp_attach(to_swi_qp(qp[i]), sock[i],
						    &cfg, NULL), 0);
		swi_kunit_sock_keep(test, sock[i]);
	}
}

/*
 * RFC 7306 section 5.3: atomic with respect to every other atomic of the
 * RNIC. Two requesters, each with its own responder QP on the device,
 * FetchAdd 1 on one word, QPT_RACE_BURST outstanding each, the
 * responders' transmitters running on whichever CPUs: every value from
 * 0 to 2 * QPT_RACE_OPS - 1 is found by exactly one FetchAdd, and the
 * word ends at 2 * QPT_RACE_OPS.
 */
static void qpt_atomic_race(struct kunit *test)
{
	const struct eng_stream_cfg cfg = {};
	struct qpt *t = qpt_up(test, &cfg);
	struct ib_mr *mr = qpt_reg(test, t, 1, IB_ACCESS_LOCAL_WRITE |
					       IB_ACCESS_REMOTE_ATOMIC);
	unsigned long *seen = kunit_kzalloc(test,
			BITS_TO_LONGS(2 * QPT_RACE_OPS) * sizeof(long),
			GFP_KERNEL);
	struct ib_sge sge = { .length = sizeof(u64),
			      .lkey = t->pd->local_dma_lkey };
	struct ib_atomic_wr a = {
		.wr = { .opcode = IB_WR_ATOMIC_FETCH_AND_ADD,
			.send_flags = IB_SEND_SIGNALED,
			.sg_list = &sge, .num_sge = 1 },
		.remote_addr = mr->iova + 64, .rkey = mr->rkey,
		.compare_add = 1,
	};
	u64 *res = (u64 *)t->buf[0];	/* a slot per work request id */
	struct ib_qp *qp[2], *req[2];
	int posted[2] = {}, done[2] = {}, i, dup = 0;
	struct ib_wc wc;

	KUNIT_ASSERT_NOT_NULL(test, seen);
	qpt_second_pair(test, t, qp);
	req[0] = t->qp[0];
	req[1] = qp[0];
	*(u64 *)(t->buf[1] + 64) = 0;
	while (done[0] + done[1] < 2 * QPT_RACE_OPS) {
		for (i = 0; i < 2; i++) {
			while (posted[i] < QPT_RACE_OPS &&
			       posted[i] - done[i] < QPT_RACE_BURST) {
				a.wr.wr_id = i * QPT_RACE_OPS + posted[i];
				sge.addr = (uintptr_t)&res[a.wr.wr_id];
				KUNIT_ASSERT_EQ(test, ib_post_send(req[i], &a.wr,
								   NULL), 0);
				posted[i]++;
			}
		}
		KUNIT_ASSERT_EQ(test, qpt_wait(t->cq[0], &wc), 1);
		KUNIT_ASSERT_EQ(test, wc.status, IB_WC_SUCCESS);
		KUNIT_ASSERT_LT(test, wc.wr_id, 2 * QPT_RACE_OPS);
		done[wc.wr_id >= QPT_RACE_OPS]++;
		if (res[wc.wr_id] >= 2 * QPT_RACE_OPS ||
		    test_and_set_bit(res[wc.wr_id], seen))
			dup++;
	}
	KUNIT_EXPECT_EQ(test, dup, 0);
	KUNIT_EXPECT_EQ(test, *(u64 *)(t->buf[1] + 64), 2 * QPT_RACE_OPS);
	KUNIT_EXPECT_EQ(test, bitmap_weight(seen, 2 * QPT_RACE_OPS),
			2 * QPT_RACE_OPS);
	KUNIT_EXPECT_EQ(test, ib_dereg_mr(mr), 0);
}

/* The raw peer reads an Atomic Request and checks its headers */
static void qpt_raw_expect_atomic_req(struct kunit *test, struct qpt *t,
				      u32 msn, struct rdmap_atomic_req_info *r)
{
	u8 *u = kunit_kzalloc(test, MPA_MULPDU_MAX + 8, GFP_KERNEL);
	struct ddp_hdr_info h;
	u16 n;

	KUNIT_ASSERT_NOT_NULL(test, u);
	n = qpt_raw_read_fpdu(test, t, u);
	KUNIT_ASSERT_EQ(test, n, DDP_UNTAGGED_HDR_SIZE + RDMAP_ATOMIC_REQ_SIZE);
	KUNIT_ASSERT_EQ(test, swi_ddp_hdr_parse(u, n, &h),
			DDP_UNTAGGED_HDR_SIZE);
	KUNIT_EXPECT_FALSE(test, h.tagged);
	KUNIT_EXPECT_TRUE(test, h.last);
	KUNIT_EXPECT_EQ(test, h.rv, RDMAP_VERSION);
	KUNIT_EXPECT_EQ(test, h.opcode, RDMAP_ATOMIC_REQ);
	KUNIT_EXPECT_EQ(test, h.qn, RDMAP_QN_READ_REQ);
	KUNIT_EXPECT_EQ(test, h.msn, msn);
	KUNIT_EXPECT_EQ(test, h.mo, 0);
	KUNIT_ASSERT_EQ(test, swi_rdmap_atomic_req_parse(u + n - RDMAP_ATOMIC_REQ_SIZE,
							 RDMAP_ATOMIC_REQ_SIZE, r),
			RDMAP_ATOMIC_REQ_SIZE);
}

/* The raw peer's Atomic Response on queue 3 with @msn */
static void qpt_raw_atomic_resp(struct kunit *test, struct qpt *t, u32 msn,
				u32 req_id, u64 orig)
{
	const struct rdmap_atomic_resp_info r = { .req_id = req_id,
						  .orig = orig };
	struct rdmap_atomic_resp w;

	swi_rdmap_atomic_resp_build(&w, &r);
	qpt_raw_untagged(test, t, RDMAP_ATOMIC_RESP, RDMAP_QN_ATOMIC_RESP, msn,
			 0, true, &w, sizeof(w));
}

/*
 * What a peer sees of our atomics (RFC 7306 sections 5.2.1 and 5.2.2,
 * Figures 4 and 6, Appendix A.1): an Atomic Request on queue 1 with the
 * next MSN there (shared with the Read Requests), its Request Identifier
 * that MSN, the operands as posted, the unused fields as Figure 4 says;
 * the Response on queue 3 completes it with its Original Remote Data
 * Value. A Response that names another Request surfaces an error (rule
 * 7): the atomic completes with a bad response and the peer gets a
 * Terminate with the Response's DDP header and no RDMA header (8.1).
 */
static void qpt_atomic_on_the_wire(struct kunit *test)
{
	const struct eng_stream_cfg cfg = {};
	const struct eng_stream_cfg *both[2] = { &cfg, NULL };
	struct qpt *t = qpt_up_pair(test, both, 0);
	struct ib_mr mr = { .iova = 0x10000, .rkey = 0x4343 };
	struct rdmap_atomic_req_info r;
	struct rdmap_term_info ti;
	struct ib_wc wc;

	qpt_post_atomic(test, t, 0, &mr, IB_WR_ATOMIC_FETCH_AND_ADD, 111, 8,
			0x1122334455667788ULL, 0, 0, 0);
	qpt_raw_expect_atomic_req(test, t, DDP_MSN_FIRST, &r);
	KUNIT_EXPECT_EQ(test, r.aop, RDMAP_ATOMIC_FETCH_ADD);
	KUNIT_EXPECT_EQ(test, r.req_id, DDP_MSN_FIRST);
	KUNIT_EXPECT_EQ(test, r.stag, 0x4343);
	KUNIT_EXPECT_EQ(test, r.to, 0x10008);
	KUNIT_EXPECT_EQ(test, r.data, 0x1122334455667788ULL);
	KUNIT_EXPECT_EQ(test, r.data_mask, 0);
	KUNIT_EXPECT_EQ(test, r.compare, 0);
	KUNIT_EXPECT_EQ(test, r.compare_mask, U64_MAX);
	qpt_raw_atomic_resp(test, t, DDP_MSN_FIRST, DDP_MSN_FIRST, 0xfeedULL);
	qpt_expect_atomic(test, t, IB_WC_FETCH_ADD, 111, 0xfeedULL);
	qpt_post_atomic(test, t, 0, &mr, IB_WR_MASKED_ATOMIC_CMP_AND_SWP, 112,
			16, 1, 2, 3, 4);
	qpt_raw_expect_atomic_req(test, t, DDP_MSN_FIRST + 1, &r);
	KUNIT_EXPECT_EQ(test, r.aop, RDMAP_ATOMIC_CMP_SWAP);
	KUNIT_EXPECT_EQ(test, r.req_id, DDP_MSN_FIRST + 1);
	KUNIT_EXPECT_EQ(test, r.to, 0x10010);
	KUNIT_EXPECT_EQ(test, r.compare, 1);
	KUNIT_EXPECT_EQ(test, r.data, 2);
	KUNIT_EXPECT_EQ(test, r.compare_mask, 3);
	KUNIT_EXPECT_EQ(test, r.data_mask, 4);
	qpt_raw_atomic_resp(test, t, DDP_MSN_FIRST + 1, DDP_MSN_FIRST + 7, 9);
	KUNIT_ASSERT_EQ(test, qpt_wait(t->cq[0], &wc), 1);
	KUNIT_EXPECT_EQ(test, wc.wr_id, 112);
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_BAD_RESP_ERR);
	qpt_raw_read_term(test, t, &ti);
	SWI_EXPECT_TERM_CAUSE(test, ti.cause, TERM_LAYER_RDMAP,
			      TERM_ETYPE_RDMAP_OPERATION,
			      TERM_RDMAP_UNSPECIFIED);
	KUNIT_EXPECT_TRUE(test, ti.has & RDMAP_TERM_HAS_DDP);
	KUNIT_EXPECT_FALSE(test, ti.has & RDMAP_TERM_HAS_RREQ);
	KUNIT_EXPECT_EQ(test, ti.ddp.opcode, RDMAP_ATOMIC_RESP);
	KUNIT_EXPECT_TRUE(test, qpt_wait_state(t, 0, IB_QPS_ERR));
}

/* The raw peer's Atomic Request @r on queue 1 with @msn, @len octets */
static void qpt_raw_atomic_req(struct kunit *test, struct qpt *t, u32 msn,
			       const struct rdmap_atomic_req_info *r, u16 len)
{
	u8 w[RDMAP_ATOMIC_REQ_SIZE + 8] = {};

	swi_rdmap_atomic_req_build((struct rdmap_atomic_req *)w, r);
	qpt_raw_untagged(test, t, RDMAP_ATOMIC_REQ, RDMAP_QN_READ_REQ, msn, 0,
			 true, w, len);
}

/* The raw peer reads our Atomic Response and checks it */
static void qpt_raw_expect_atomic_resp(struct kunit *test, struct qpt *t,
				       u32 msn, u32 req_id, u64 orig)
{
	u8 *u = kunit_kzalloc(test, MPA_MULPDU_MAX + 8, GFP_KERNEL);
	struct rdmap_atomic_resp_info r;
	struct ddp_hdr_info h;
	u16 n;

	KUNIT_ASSERT_NOT_NULL(test, u);
	n = qpt_raw_read_fpdu(test, t, u);
	KUNIT_ASSERT_EQ(test, n,
			DDP_UNTAGGED_HDR_SIZE + RDMAP_ATOMIC_RESP_SIZE);
	KUNIT_ASSERT_EQ(test, swi_ddp_hdr_parse(u, n, &h),
			DDP_UNTAGGED_HDR_SIZE);
	KUNIT_EXPECT_FALSE(test, h.tagged);
	KUNIT_EXPECT_TRUE(test, h.last);
	KUNIT_EXPECT_EQ(test, h.opcode, RDMAP_ATOMIC_RESP);
	KUNIT_EXPECT_EQ(test, h.qn, RDMAP_QN_ATOMIC_RESP);
	KUNIT_EXPECT_EQ(test, h.msn, msn);
	KUNIT_ASSERT_EQ(test, swi_rdmap_atomic_resp_parse(u + DDP_UNTAGGED_HDR_SIZE,
							  RDMAP_ATOMIC_RESP_SIZE,
							  &r),
			RDMAP_ATOMIC_RESP_SIZE);
	KUNIT_EXPECT_EQ(test, r.req_id, req_id);
	KUNIT_EXPECT_EQ(test, r.orig, orig);
}

/*
 * The responder (RFC 7306 section 5.2.2 rule 8, section 7): a Read
 * Request, then an Atomic Request on the same word, then a Read Request
 * again: the first Read sees the word before the atomic, the Atomic
 * Response the same value with its Request Identifier, on queue 3 with
 * its own MSNs, and the second Read the result. Requests are processed in
 * their order, not when they arrive.
 */
static void qpt_atomic_from_peer(struct kunit *test)
{
	const struct eng_stream_cfg cfg = {};
	const struct eng_stream_cfg *both[2] = { NULL, &cfg };
	struct qpt *t = qpt_up_pair(test, both, 0);
	struct ib_mr *mr = qpt_reg(test, t, 1, IB_ACCESS_LOCAL_WRITE |
					       IB_ACCESS_REMOTE_READ |
					       IB_ACCESS_REMOTE_ATOMIC);
	struct rdmap_read_req_info rq = {
		.sink_stag = 0x99, .size = 8, .src_stag = mr->rkey,
		.src_to = mr->iova + 24,
	};
	struct rdmap_atomic_req_info r = {
		.aop = RDMAP_ATOMIC_CMP_SWAP, .req_id = 0xabcd,
		.stag = mr->rkey, .to = mr->iova + 24, .data = 77,
		.data_mask = U64_MAX, .compare = 42, .compare_mask = U64_MAX,
	};
	u8 *u = kunit_kzalloc(test, MPA_MULPDU_MAX + 8, GFP_KERNEL);
	struct rdmap_read_req rr;
	u64 *w = (u64 *)(t->buf[1] + 24);
	u64 v;

	KUNIT_ASSERT_NOT_NULL(test, u);
	*w = 42;
	swi_rdmap_read_req_build(&rr, &rq);
	qpt_raw_untagged(test, t, RDMAP_READ_REQ, RDMAP_QN_READ_REQ,
			 DDP_MSN_FIRST, 0, true, &rr, sizeof(rr));
	qpt_raw_atomic_req(test, t, DDP_MSN_FIRST + 1, &r,
			   RDMAP_ATOMIC_REQ_SIZE);
	qpt_raw_untagged(test, t, RDMAP_READ_REQ, RDMAP_QN_READ_REQ,
			 DDP_MSN_FIRST + 2, 0, true, &rr, sizeof(rr));
	KUNIT_ASSERT_EQ(test, qpt_raw_read_fpdu(test, t, u),
			DDP_TAGGED_HDR_SIZE + 8);
	memcpy(&v, u + DDP_TAGGED_HDR_SIZE, sizeof(v));
	KUNIT_EXPECT_EQ(test, v, 42);
	qpt_raw_expect_atomic_resp(test, t, DDP_MSN_FIRST, 0xabcd, 42);
	KUNIT_ASSERT_EQ(test, qpt_raw_read_fpdu(test, t, u),
			DDP_TAGGED_HDR_SIZE + 8);
	memcpy(&v, u + DDP_TAGGED_HDR_SIZE, sizeof(v));
	KUNIT_EXPECT_EQ(test, v, 77);
	/* the next one's Response takes the next MSN of queue 3 */
	r.aop = RDMAP_ATOMIC_FETCH_ADD;
	r.req_id = 1;
	r.data = 3;
	r.data_mask = 0;
	qpt_raw_atomic_req(test, t, DDP_MSN_FIRST + 3, &r,
			   RDMAP_ATOMIC_REQ_SIZE);
	qpt_raw_expect_atomic_resp(test, t, DDP_MSN_FIRST + 1, 1, 77);
	KUNIT_EXPECT_EQ(test, READ_ONCE(*w), 80);
	KUNIT_EXPECT_EQ(test, qpt_state(t, 1), IB_QPS_RTS);
	KUNIT_EXPECT_EQ(test, ib_dereg_mr(mr), 0);
}

/*
 * An atomic message the responder refuses, and its Terminate: the word
 * is not touched, and the Terminate carries the message's DDP header
 * (section 8.1 rule 2) but for one refused for its length before the
 * header was read
 */
struct qpt_atomic_case {
	const char *name;
	int access;	/* of the MR besides LOCAL_WRITE */
	u8 aop;
	u32 off;	/* of the target in the MR */
	u32 stag_xor;
	u16 len;
	u8 opcode;
	u32 qn;
	bool tagged;
	u8 layer, etype, code;
	bool ddp_hdr;
};

#define QPT_AT	IB_ACCESS_REMOTE_ATOMIC

static const struct qpt_atomic_case qpt_atomic_cases[] = {
	{ "misaligned", QPT_AT, 0, 12, 0, 52, RDMAP_ATOMIC_REQ, 1, false,
	  0, 2, 0x07, true },
	{ "invalid STag", QPT_AT, 0, 8, 0x100, 52, RDMAP_ATOMIC_REQ, 1,
	  false, 0, 1, 0x00, true },
	{ "no remote atomic right", IB_ACCESS_REMOTE_WRITE, 0, 8, 0, 52,
	  RDMAP_ATOMIC_REQ, 1, false, 0, 1, 0x02, true },
	{ "out of bounds", QPT_AT, 0, QPT_BUF, 0, 52, RDMAP_ATOMIC_REQ, 1,
	  false, 0, 1, 0x01, true },
	{ "AOpCode 1", QPT_AT, 1, 8, 0, 52, RDMAP_ATOMIC_REQ, 1, false,
	  0, 2, 0x06, true },
	{ "51 octets", QPT_AT, 0, 8, 0, 51, RDMAP_ATOMIC_REQ, 1, false,
	  0, 2, 0xff, false },
	{ "53 octets", QPT_AT, 0, 8, 0, 53, RDMAP_ATOMIC_REQ, 1, false,
	  1, 2, 0x05, true },
	{ "queue 0", QPT_AT, 0, 8, 0, 52, RDMAP_ATOMIC_REQ, 0, false,
	  1, 2, 0x01, true },
	{ "tagged", QPT_AT, 0, 8, 0, 52, RDMAP_ATOMIC_REQ, 1, true,
	  0, 2, 0x06, true },
	{ "Response unasked", QPT_AT, 0, 8, 0, 12, RDMAP_ATOMIC_RESP, 3,
	  false, 1, 2, 0x02, true },
};

static void qpt_atomic_case_desc(const struct qpt_atomic_case *c,
				 char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(qpt_atomic, qpt_atomic_cases, qpt_atomic_case_desc);

/*
 * RFC 7306 sections 5.2.1 (the target: STag, rights, bounds), 8.2 (64-bit
 * alignment: Catastrophic error localized to RDMAP Stream; DDP's fields,
 * the opcode) and 5.2.1 rule 4 (an AOpCode not implemented): each gets
 * its Terminate and leaves the word alone
 */
static void qpt_atomic_malformed(struct kunit *test)
{
	const struct qpt_atomic_case *c = test->param_value;
	const struct eng_stream_cfg cfg = {};
	const struct eng_stream_cfg *both[2] = { NULL, &cfg };
	struct qpt *t = qpt_up_pair(test, both, 0);
	struct ib_mr *mr = qpt_reg(test, t, 1, IB_ACCESS_LOCAL_WRITE |
					       c->access);
	struct rdmap_atomic_req_info r = {
		.aop = c->aop, .req_id = 5, .stag = mr->rkey ^ c->stag_xor,
		.to = mr->iova + c->off, .data = 1,
	};
	u8 w[RDMAP_ATOMIC_REQ_SIZE + 8] = {};
	struct rdmap_term_info ti;

	memset(t->buf[1], 0x11, QPT_BUF);
	swi_rdmap_atomic_req_build((struct rdmap_atomic_req *)w, &r);
	if (c->tagged)
		qpt_raw_tagged(test, t, c->opcode, mr->rkey, mr->iova, c->len,
			       0, 0);
	else
		qpt_raw_untagged(test, t, c->opcode, c->qn, DDP_MSN_FIRST, 0,
				 true, w, c->len);
	qpt_raw_read_term(test, t, &ti);
	SWI_EXPECT_TERM_CAUSE(test, ti.cause, c->layer, c->etype, c->code);
	KUNIT_EXPECT_EQ(test, !!(ti.has & RDMAP_TERM_HAS_DDP), c->ddp_hdr);
	KUNIT_EXPECT_FALSE(test, ti.has & RDMAP_TERM_HAS_RREQ);
	if (c->ddp_hdr)
		KUNIT_EXPECT_EQ(test, ti.ddp.opcode, c->opcode);
	KUNIT_EXPECT_TRUE(test, qpt_wait_state(t, 1, IB_QPS_ERR));
	KUNIT_EXPECT_TRUE(test, qpt_all(t->buf[1], QPT_BUF, 0x11));
	KUNIT_EXPECT_EQ(test, ib_dereg_mr(mr), 0);
}

/*
 * The target goes away between the Atomic Request's delivery and its
 * turn (invalidated or deregistered): the Terminate goes instead of the
 * Response, with neither header (section 8.1 rule 1), and the word is
 * not touched
 */
static void qpt_atomic_target_lost(struct kunit *test)
{
	const struct eng_stream_cfg cfg = {};
	const struct eng_stream_cfg *both[2] = { NULL, &cfg };
	struct qpt *t = qpt_up_pair(test, both, 0);
	struct ib_mr *mr = qpt_reg(test, t, 1, IB_ACCESS_LOCAL_WRITE |
					       IB_ACCESS_REMOTE_ATOMIC);
	struct rdmap_atomic_req_info r = {
		.aop = RDMAP_ATOMIC_FETCH_ADD, .stag = mr->rkey,
		.to = mr->iova + 8, .data = 1,
	};
	struct rdmap_term_info ti;

	int err = kunit_add_action_or_reset(test, qpt_rresp_src_restore, NULL);

	KUNIT_ASSERT_EQ(test, err, 0);
	*(u64 *)(t->buf[1] + 8) = 9;
	swi_eng_tx_lose_rresp_src(0);
	qpt_raw_atomic_req(test, t, DDP_MSN_FIRST, &r, RDMAP_ATOMIC_REQ_SIZE);
	qpt_raw_read_term(test, t, &ti);
	SWI_EXPECT_TERM_CAUSE(test, ti.cause, TERM_LAYER_RDMAP,
			      TERM_ETYPE_RDMAP_PROTECTION,
			      TERM_RDMAP_INVALID_STAG);
	KUNIT_EXPECT_FALSE(test, ti.has & RDMAP_TERM_HAS_DDP);
	KUNIT_EXPECT_FALSE(test, ti.has & RDMAP_TERM_HAS_RREQ);
	KUNIT_EXPECT_TRUE(test, qpt_wait_state(t, 1, IB_QPS_ERR));
	KUNIT_EXPECT_EQ(test, *(u64 *)(t->buf[1] + 8), 9);
	KUNIT_EXPECT_EQ(test, ib_dereg_mr(mr), 0);
}

/* @t's device reports @cap, in the core's copy and its own query */
static void qpt_expect_atomic_cap(struct kunit *test, struct qpt *t,
				  enum ib_atomic_cap cap)
{
	struct ib_device_attr *q = kunit_kzalloc(test, sizeof(*q), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, q);
	KUNIT_EXPECT_EQ(test, t->dev->attrs.atomic_cap, cap);
	KUNIT_EXPECT_EQ(test, t->dev->attrs.masked_atomic_cap, cap);
	KUNIT_EXPECT_EQ(test, t->dev->ops.query_device(t->dev, q, NULL), 0);
	KUNIT_EXPECT_EQ(test, q->atomic_cap, cap);
	KUNIT_EXPECT_EQ(test, q->masked_atomic_cap, cap);
}

/*
 * RFC 7306 switched off (rfc7306=N): atomics are refused at post time,
 * and a peer's Atomic Request gets Unexpected OpCode, as from a peer
 * without the extensions (section 1.1)
 */
static void qpt_atomic_ext_off(struct kunit *test)
{
	static const enum ib_wr_opcode ops[] = {
		IB_WR_ATOMIC_CMP_AND_SWP, IB_WR_ATOMIC_FETCH_AND_ADD,
		IB_WR_MASKED_ATOMIC_CMP_AND_SWP,
		IB_WR_MASKED_ATOMIC_FETCH_AND_ADD,
	};
	const struct eng_stream_cfg cfg = {};
	const struct eng_stream_cfg *both[2] = { NULL, &cfg };
	struct rdmap_atomic_req_info r = { .stag = 0x100 };
	const struct ib_send_wr *bad;
	struct ib_atomic_wr a = {};
	struct qpt *t;
	unsigned int i;

	qpt_ext_off = true;
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, qpt_ext_on,
							NULL), 0);
	t = qpt_up_pair(test, both, 0);
	qpt_expect_atomic_cap(test, t, IB_ATOMIC_NONE);
	for (i = 0; i < ARRAY_SIZE(ops); i++) {
		a.wr.opcode = ops[i];
		bad = NULL;
		KUNIT_EXPECT_EQ(test, ib_post_send(t->qp[1], &a.wr, &bad),
				-EOPNOTSUPP);
		KUNIT_EXPECT_PTR_EQ(test, bad, &a.wr);
	}
	qpt_raw_atomic_req(test, t, DDP_MSN_FIRST, &r, RDMAP_ATOMIC_REQ_SIZE);
	qpt_raw_expect_term(test, t, TERM_LAYER_RDMAP,
			    TERM_ETYPE_RDMAP_OPERATION, TERM_RDMAP_OPCODE);
	KUNIT_EXPECT_TRUE(test, qpt_wait_state(t, 1, IB_QPS_ERR));
}

/*
 * A device's RFC 7306 switch (sysfs rfc7306): the QPs created after it
 * follow it, those created before keep theirs; the attributes, the core's
 * copy that ULPs and uverbs read and the device's own query, follow it
 */
static void qpt_ext_switch(struct kunit *test)
{
	const struct eng_stream_cfg cfg = {};
	struct qpt *t = qpt_up(test, &cfg);
	struct swi_device *dev = to_swi_dev(t->dev);
	struct ib_qp_init_attr qa = {
		.send_cq = t->cq[0], .recv_cq = t->cq[0],
		.cap = { .max_send_wr = 4, .max_recv_wr = 4,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.qp_type = IB_QPT_RC,
	};
	struct ib_qp *off, *on;

	KUNIT_EXPECT_TRUE(test, READ_ONCE(dev->ext));
	qpt_expect_atomic_cap(test, t, IB_ATOMIC_HCA);
	swi_dev_set_ext(dev, false);
	qpt_expect_atomic_cap(test, t, IB_ATOMIC_NONE);
	off = ib_create_qp(t->pd, &qa);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, off);
	KUNIT_EXPECT_FALSE(test, to_swi_qp(off)->ext);
	KUNIT_EXPECT_TRUE(test, to_swi_qp(t->qp[0])->ext);
	swi_dev_set_ext(dev, true);
	qpt_expect_atomic_cap(test, t, IB_ATOMIC_HCA);
	on = ib_create_qp(t->pd, &qa);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, on);
	KUNIT_EXPECT_TRUE(test, to_swi_qp(on)->ext);
	KUNIT_EXPECT_FALSE(test, to_swi_qp(off)->ext);
	ib_destroy_qp(on);
	ib_destroy_qp(off);
}

/*
 * An atomic's result buffer must be one 8-octet SGE: another fails
 * locally with a length error, and no Atomic Request leaves
 */
static void qpt_atomic_bad_sge(struct kunit *test)
{
	const struct eng_stream_cfg cfg = {};
	struct qpt *t = qpt_up(test, &cfg);
	struct ib_atomic_wr a = {
		.wr = { .opcode = IB_WR_ATOMIC_FETCH_AND_ADD, .wr_id = 121 },
		.remote_addr = 0x1000, .rkey = 0x4242,
	};
	struct ib_wc wc;

	qpt_post(test, t, 0, &a.wr, 4);
	KUNIT_ASSERT_EQ(test, qpt_wait(t->cq[0], &wc), 1);
	KUNIT_EXPECT_EQ(test, wc.wr_id, 121);
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_LOC_LEN_ERR);
}

static struct kunit_case qp_loopback_cases[] = {
	KUNIT_CASE_SLOW(qpt_ops_crc),
	KUNIT_CASE_SLOW(qpt_ops_plain),
	KUNIT_CASE_SLOW(qpt_ops_markers),
	KUNIT_CASE_SLOW(qpt_tx_buffers_on_demand),
	KUNIT_CASE_SLOW(qpt_bad_stag_terminates),
	KUNIT_CASE_SLOW(qpt_crc_error_terminates),
	KUNIT_CASE_SLOW(qpt_held_bad_first_fpdu_resets),
	KUNIT_CASE_SLOW(qpt_held_valid_first_fpdu_terminates),
	KUNIT_CASE_SLOW(qpt_held_terminates_after_first_fpdu),
	KUNIT_CASE_SLOW(qpt_local_error_terminates),
	KUNIT_CASE_SLOW(qpt_tx_nomem_send_terminates),
	KUNIT_CASE_SLOW(qpt_tx_nomem_read_terminates),
	KUNIT_CASE_SLOW(qpt_tx_nomem_term_resets),
	KUNIT_CASE_SLOW(qpt_failed_check_releases_mr),
	KUNIT_CASE_SLOW(qpt_cq_overflow_fails_qp),
	KUNIT_CASE_SLOW(qpt_close_answers_read),
	KUNIT_CASE_SLOW(qpt_close_with_queued_send_aborts),
	KUNIT_CASE_SLOW(qpt_post_in_closing_flushed),
	KUNIT_CASE_SLOW(qpt_destroy_in_closing_sends_fin),
	KUNIT_CASE_SLOW(qpt_take_sqe_hold),
	KUNIT_CASE_SLOW(qpt_read_ird_one),
	KUNIT_CASE_SLOW(qpt_read_with_ord_0_refused),
	KUNIT_CASE_SLOW(qpt_ird_0_refuses_read),
	KUNIT_CASE_SLOW(qpt_send_invalidate),
	KUNIT_CASE_SLOW(qpt_rdma_rw),
	KUNIT_CASE_SLOW(qpt_cut_write_releases_mr),
	KUNIT_CASE_SLOW(qpt_read_inv_bad_stag),
	KUNIT_CASE_SLOW(qpt_big_page_mr),
	KUNIT_CASE_SLOW(qpt_unsupported_wr),
	KUNIT_CASE_SLOW(qpt_write_imm),
	KUNIT_CASE_SLOW(qpt_write_imm_no_recv),
	KUNIT_CASE_SLOW(qpt_write_imm_on_the_wire),
	KUNIT_CASE_SLOW(qpt_imm_from_peer),
	KUNIT_CASE_PARAM_ATTR(qpt_imm_malformed, qpt_imm_gen_params,
			      { .speed = KUNIT_SPEED_SLOW }),
	KUNIT_CASE_SLOW(qpt_imm_ext_off),
	KUNIT_CASE_SLOW(qpt_atomics),
	KUNIT_CASE_SLOW(qpt_atomic_race),
	KUNIT_CASE_SLOW(qpt_atomic_on_the_wire),
	KUNIT_CASE_SLOW(qpt_atomic_from_peer),
	KUNIT_CASE_PARAM_ATTR(qpt_atomic_malformed, qpt_atomic_gen_params,
			      { .speed = KUNIT_SPEED_SLOW }),
	KUNIT_CASE_SLOW(qpt_atomic_target_lost),
	KUNIT_CASE_SLOW(qpt_atomic_ext_off),
	KUNIT_CASE_SLOW(qpt_ext_switch),
	KUNIT_CASE_SLOW(qpt_atomic_bad_sge),
	KUNIT_CASE_SLOW(qpt_drain),
	KUNIT_CASE_SLOW(qpt_limits),
	KUNIT_CASE_SLOW(qpt_limits_qp_at),
	KUNIT_CASE_SLOW(qpt_limits_cq_srq),
	KUNIT_CASE_SLOW(qpt_restrack),
	KUNIT_CASE_SLOW(qpt_srq_share_shown),
	KUNIT_CASE_SLOW(qpt_restrack_idle),
	KUNIT_CASE_SLOW(qpt_rresp_after_dereg),
	KUNIT_CASE_SLOW(qpt_rresp_source_lost_terminates),
	KUNIT_CASE_SLOW(qpt_segments_of_one_message),
	KUNIT_CASE_SLOW(qpt_rresps_in_request_order),
	KUNIT_CASE_SLOW(qpt_llp_reset_fails_work),
	KUNIT_CASE_SLOW(qpt_completions_in_order),
	KUNIT_CASE_SLOW(qpt_completions_flushed_in_order),
	KUNIT_CASE_SLOW(qpt_closing_error_terminates_before_fin),
	KUNIT_CASE_SLOW(qpt_send_completes_before_read_answered),
	KUNIT_CASE_SLOW(qpt_send_after_dereg),
	KUNIT_CASE_SLOW(qpt_rresp_zero_len_wrong_stag),
	KUNIT_CASE_SLOW(qpt_rresp_after_flush),
	KUNIT_CASE_SLOW(qpt_bad_crc_not_placed),
	KUNIT_CASE_SLOW(qpt_partial_fpdu_not_placed),
	KUNIT_CASE_SLOW(qpt_ird_fixed_by_stream),
	KUNIT_CASE_SLOW(qpt_user_flags_masked),
	KUNIT_CASE_SLOW(qpt_find_owner),
	KUNIT_CASE_SLOW(qpt_stags_unpredictable),
	KUNIT_CASE_SLOW(qpt_netdev_gone_before_register),
	KUNIT_CASE_SLOW(qpt_net_exit_waits),
	KUNIT_CASE_SLOW(qpt_map_valid_mr_refused),
	KUNIT_CASE_SLOW(qpt_largest_fpdu_placed),
	KUNIT_CASE_SLOW(qpt_netdev_gone_in_newlink),
	{}
};

static struct kunit_suite qp_loopback_suite = {
	.name = "softiwarp_qp_loopback",
	.test_cases = qp_loopback_cases,
};

kunit_test_suites(&qp_loopback_suite);
