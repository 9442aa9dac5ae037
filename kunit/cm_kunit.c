// SPDX-License-Identifier: GPL-2.0
/*
 * DOC: KUnit suite softiwarp_cm
 *
 * The connection manager of cm/cm.c driven the way iw_cm drives it, over
 * loopback on a device bound to "lo": the test plays iw_cm with iw_cm_ids
 * of its own, whose event handler records every event and whose
 * add_ref/rem_ref count references, so each case also proves that the
 * connection manager gives back every reference it took.
 *
 * Cases: Request/Reply with private data both ways and MPA revision 1 or
 * 2 (parameterised), then a graceful disconnect from either side; a reject
 * with private data; a connect where nobody listens; a listen that fails
 * on a port already taken and leaves the first listener working; the QP of
 * an established connection destroyed (abrupt teardown).
 */
#include <kunit/test.h>
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/in.h>
#include <linux/netdevice.h>
#include <linux/spinlock.h>
#include <net/net_namespace.h>
#include <rdma/ib_verbs.h>
#include <rdma/iw_cm.h>

#include "cm/cm.h"
#include "rdmap/softiwarp.h"

#define CMT_EVENTS	8
#define CMT_WAIT	(10 * HZ)
#define CMT_PORT_BASE	47100

/* One recorded event */
struct cmt_event {
	enum iw_cm_event_type type;
	int status;
	u8 pdata[32];
	u8 pdata_len;
	void *provider_data;
};

/* An iw_cm_id the test owns, as iw_cm would */
struct cmt_id {
	struct iw_cm_id id;
	spinlock_t lock;		/* @ev, @nev */
	struct cmt_event ev[CMT_EVENTS];
	int nev;
	int refs;			/* add_ref minus rem_ref, under @lock */
	struct completion more;		/* completed once per event */
};

struct cmt {
	struct ib_device *dev;
	struct ib_pd *pd;
	struct ib_cq *cq;
	struct ib_qp *qp[2];		/* [0] initiator, [1] responder */
	struct cmt_id lst, act, pas;	/* listener, active, passive */
};

static int cmt_event(struct iw_cm_id *id, struct iw_cm_event *e)
{
	struct cmt_id *c = container_of(id, struct cmt_id, id);
	struct cmt_event *r;

	spin_lock(&c->lock);
	if (c->nev < CMT_EVENTS) {
		r = &c->ev[c->nev++];
		r->type = e->event;
		r->status = e->status;
		r->pdata_len = min_t(u8, e->private_data_len,
				     sizeof(r->pdata));
		if (e->private_data)
			memcpy(r->pdata, e->private_data, r->pdata_len);
		r->provider_data = e->provider_data;
	}
	spin_unlock(&c->lock);
	complete(&c->more);
	return 0;
}

static void cmt_add_ref(struct iw_cm_id *id)
{
	struct cmt_id *c = container_of(id, struct cmt_id, id);

	spin_lock(&c->lock);
	c->refs++;
	spin_unlock(&c->lock);
}

static void cmt_rem_ref(struct iw_cm_id *id)
{
	struct cmt_id *c = container_of(id, struct cmt_id, id);

	spin_lock(&c->lock);
	c->refs--;
	spin_unlock(&c->lock);
}

static void cmt_id_init(struct cmt *t, struct cmt_id *c, u16 port)
{
	struct sockaddr_in *sin = (struct sockaddr_in *)&c->id.m_local_addr;

	memset(c, 0, sizeof(*c));
	spin_lock_init(&c->lock);
	init_completion(&c->more);
	c->id.device = t->dev;
	c->id.event_handler = cmt_event;
	c->id.add_ref = cmt_add_ref;
	c->id.rem_ref = cmt_rem_ref;
	sin->sin_family = AF_INET;
	sin->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	sin->sin_port = htons(port);
	c->id.m_remote_addr = c->id.m_local_addr;
}

/* The @n-th event of @c (0 based), waiting for it; NULL on timeout */
static struct cmt_event *cmt_wait(struct cmt_id *c, int n)
{
	unsigned long end = jiffies + CMT_WAIT;

	while (READ_ONCE(c->nev) <= n) {
		long left = end - jiffies;

		if (left <= 0 || !wait_for_completion_timeout(&c->more, left))
			return READ_ONCE(c->nev) > n ? &c->ev[n] : NULL;
	}
	return &c->ev[n];
}

static int cmt_refs(struct cmt_id *c)
{
	int refs;

	spin_lock(&c->lock);
	refs = c->refs;
	spin_unlock(&c->lock);
	return refs;
}

/* Wait (bounded) until every reference to @c is given back */
static int cmt_refs_settle(struct cmt_id *c)
{
	int i;

	for (i = 0; i < 200 && cmt_refs(c); i++)
		msleep(20);
	return cmt_refs(c);
}

static void cmt_down(void *arg)
{
	struct cmt *t = arg;
	int i;

	if (t->lst.id.provider_data)
		swi_cm_destroy_listen(&t->lst.id);
	for (i = 0; i < 2; i++)
		if (!IS_ERR_OR_NULL(t->qp[i]))
			ib_destroy_qp(t->qp[i]);
	if (!IS_ERR_OR_NULL(t->cq))
		ib_free_cq(t->cq);
	if (!IS_ERR_OR_NULL(t->pd))
		ib_dealloc_pd(t->pd);
	if (!IS_ERR_OR_NULL(t->dev))
		ib_unregister_device_and_put(t->dev);
}

/* A device on lo with two kernel QPs, and the three ids on @port */
static struct cmt *cmt_up(struct kunit *test, u16 port)
{
	struct ib_qp_init_attr qa = {
		.cap = { .max_send_wr = 8, .max_recv_wr = 8,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.qp_type = IB_QPT_RC,
		.sq_sig_type = IB_SIGNAL_REQ_WR,
		.port_num = 1,
	};
	struct net_device *lo;
	struct cmt *t;
	int i;

	t = kunit_kzalloc(test, sizeof(*t), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, t);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, cmt_down, t), 0);
	lo = dev_get_by_name(&init_net, "lo");
	KUNIT_ASSERT_NOT_NULL(test, lo);
	t->dev = swi_device_add("swkcm0", lo);
	dev_put(lo);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, t->dev);
	t->pd = ib_alloc_pd(t->dev, 0);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, t->pd);
	t->cq = ib_alloc_cq(t->dev, NULL, 64, 0, IB_POLL_DIRECT);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, t->cq);
	qa.send_cq = t->cq;
	qa.recv_cq = t->cq;
	for (i = 0; i < 2; i++) {
		t->qp[i] = ib_create_qp(t->pd, &qa);
		KUNIT_ASSERT_NOT_ERR_OR_NULL(test, t->qp[i]);
	}
	cmt_id_init(t, &t->lst, port);
	cmt_id_init(t, &t->act, 0);
	((struct sockaddr_in *)&t->act.id.m_remote_addr)->sin_port =
		htons(port);
	cmt_id_init(t, &t->pas, port);
	return t;
}

static int cmt_connect(struct cmt *t, const char *pdata)
{
	struct iw_cm_conn_param p = {
		.private_data = pdata,
		.private_data_len = strlen(pdata),
		.ird = 1, .ord = 1,
		.qpn = t->qp[0]->qp_num,
	};

	return swi_cm_connect(&t->act.id, &p);
}

/* Listen, connect with "hello", see the Request; the passive id set up */
static void cmt_request(struct kunit *test, struct cmt *t)
{
	struct cmt_event *e;

	KUNIT_ASSERT_EQ(test, swi_cm_create_listen(&t->lst.id, 4), 0);
	KUNIT_ASSERT_EQ(test, cmt_connect(t, "hello"), 0);
	e = cmt_wait(&t->lst, 0);
	KUNIT_ASSERT_NOT_NULL(test, e);
	KUNIT_EXPECT_EQ(test, e->type, IW_CM_EVENT_CONNECT_REQUEST);
	KUNIT_EXPECT_EQ(test, e->status, 0);
	KUNIT_EXPECT_EQ(test, e->pdata_len, 5);
	KUNIT_EXPECT_MEMEQ(test, e->pdata, "hello", 5);
	KUNIT_ASSERT_NOT_NULL(test, e->provider_data);
	t->pas.id.provider_data = e->provider_data;
}

static void cmt_expect(struct kunit *test, struct cmt_id *c, int n,
		       enum iw_cm_event_type type, int status)
{
	struct cmt_event *e = cmt_wait(c, n);

	KUNIT_ASSERT_NOT_NULL_MSG(test, e, "no event %d (want type %d)", n,
				  type);
	KUNIT_EXPECT_EQ(test, e->type, type);
	KUNIT_EXPECT_EQ(test, e->status, status);
}

static int cmt_qp_state(struct ib_qp *qp)
{
	struct ib_qp_init_attr init;
	struct ib_qp_attr a;

	if (ib_query_qp(qp, &a, IB_QP_STATE, &init))
		return -1;
	return a.qp_state;
}

static void cmt_all_refs_back(struct kunit *test, struct cmt *t)
{
	KUNIT_EXPECT_EQ(test, cmt_refs_settle(&t->act), 0);
	KUNIT_EXPECT_EQ(test, cmt_refs_settle(&t->pas), 0);
}

/* Connected with "hello"/"world"; both QPs in RTS */
static struct cmt *cmt_established(struct kunit *test, u16 port, int rev)
{
	struct cmt *t = cmt_up(test, port);
	struct iw_cm_conn_param p = {
		.private_data = "world", .private_data_len = 5,
		.ird = 1, .ord = 1,
	};
	struct cmt_event *e;

	to_swi_dev(t->dev)->knobs.rev = rev;
	cmt_request(test, t);
	p.qpn = t->qp[1]->qp_num;
	KUNIT_ASSERT_EQ(test, swi_cm_accept(&t->pas.id, &p), 0);
	cmt_expect(test, &t->pas, 0, IW_CM_EVENT_ESTABLISHED, 0);
	e = cmt_wait(&t->act, 0);
	KUNIT_ASSERT_NOT_NULL(test, e);
	KUNIT_EXPECT_EQ(test, e->type, IW_CM_EVENT_CONNECT_REPLY);
	KUNIT_EXPECT_EQ(test, e->status, 0);
	KUNIT_EXPECT_EQ(test, e->pdata_len, 5);
	KUNIT_EXPECT_MEMEQ(test, e->pdata, "world", 5);
	KUNIT_EXPECT_EQ(test, cmt_qp_state(t->qp[0]), IB_QPS_RTS);
	KUNIT_EXPECT_EQ(test, cmt_qp_state(t->qp[1]), IB_QPS_RTS);
	return t;
}

static const int cmt_revs[] = { 1, 2 };

static void cmt_rev_desc(const int *rev, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "MPA revision %d", *rev);
}

KUNIT_ARRAY_PARAM(cmt_rev, cmt_revs, cmt_rev_desc);

/* Graceful close by @closer (0 active, 1 passive): both sides see it */
static void cmt_graceful(struct kunit *test, int closer)
{
	const int *rev = test->param_value;
	struct cmt *t = cmt_established(test, CMT_PORT_BASE + 2 * closer +
					*rev, *rev);
	struct ib_qp_attr a = { .qp_state = IB_QPS_SQD };

	KUNIT_ASSERT_EQ(test, ib_modify_qp(t->qp[closer], &a, IB_QP_STATE), 0);
	cmt_expect(test, &t->act, 1, IW_CM_EVENT_DISCONNECT, 0);
	cmt_expect(test, &t->pas, 1, IW_CM_EVENT_DISCONNECT, 0);
	cmt_expect(test, &t->act, 2, IW_CM_EVENT_CLOSE, 0);
	cmt_expect(test, &t->pas, 2, IW_CM_EVENT_CLOSE, 0);
	/* rdma_disconnect() after the peer's close succeeds too */
	KUNIT_EXPECT_EQ(test, ib_modify_qp(t->qp[!closer], &a, IB_QP_STATE),
			0);
	cmt_all_refs_back(test, t);
}

static void cm_close_by_initiator(struct kunit *test)
{
	cmt_graceful(test, 0);
}

static void cm_close_by_responder(struct kunit *test)
{
	cmt_graceful(test, 1);
}

static void cm_reject_with_pdata(struct kunit *test)
{
	struct cmt *t = cmt_up(test, CMT_PORT_BASE + 10);
	struct cmt_event *e;

	cmt_request(test, t);
	KUNIT_ASSERT_EQ(test, swi_cm_reject(&t->pas.id, "busy", 4), 0);
	e = cmt_wait(&t->act, 0);
	KUNIT_ASSERT_NOT_NULL(test, e);
	KUNIT_EXPECT_EQ(test, e->type, IW_CM_EVENT_CONNECT_REPLY);
	KUNIT_EXPECT_EQ(test, e->status, -ECONNREFUSED);
	KUNIT_EXPECT_EQ(test, e->pdata_len, 4);
	KUNIT_EXPECT_MEMEQ(test, e->pdata, "busy", 4);
	/* a second answer to the same Request is refused */
	KUNIT_EXPECT_EQ(test, swi_cm_reject(&t->pas.id, NULL, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, cmt_qp_state(t->qp[0]), IB_QPS_INIT);
	cmt_all_refs_back(test, t);
}

static void cm_connect_nobody_listens(struct kunit *test)
{
	struct cmt *t = cmt_up(test, CMT_PORT_BASE + 11);

	KUNIT_ASSERT_EQ(test, cmt_connect(t, ""), 0);
	cmt_expect(test, &t->act, 0, IW_CM_EVENT_CONNECT_REPLY,
		   -ECONNREFUSED);
	KUNIT_EXPECT_EQ(test, cmt_qp_state(t->qp[0]), IB_QPS_INIT);
	cmt_all_refs_back(test, t);
}

/* A second listen on the same address fails; the first one still works */
static void cm_listen_taken_leaves_first(struct kunit *test)
{
	struct cmt *t = cmt_up(test, CMT_PORT_BASE + 12);
	struct cmt_id *dup = kunit_kzalloc(test, sizeof(*dup), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, dup);
	cmt_id_init(t, dup, CMT_PORT_BASE + 12);
	KUNIT_ASSERT_EQ(test, swi_cm_create_listen(&t->lst.id, 4), 0);
	KUNIT_EXPECT_EQ(test, swi_cm_create_listen(&dup->id, 4), -EADDRINUSE);
	KUNIT_EXPECT_NULL(test, dup->id.provider_data);
	KUNIT_EXPECT_EQ(test, cmt_refs(dup), 0);
	KUNIT_ASSERT_EQ(test, cmt_connect(t, "x"), 0);
	cmt_expect(test, &t->lst, 0, IW_CM_EVENT_CONNECT_REQUEST, 0);
	t->pas.id.provider_data = t->lst.ev[0].provider_data;
	KUNIT_EXPECT_EQ(test, swi_cm_reject(&t->pas.id, NULL, 0), 0);
	cmt_expect(test, &t->act, 0, IW_CM_EVENT_CONNECT_REPLY,
		   -ECONNREFUSED);
	cmt_all_refs_back(test, t);
}

/* Destroying the responder's QP ends the connection on both sides */
static void cm_destroy_qp_established(struct kunit *test)
{
	struct cmt *t = cmt_established(test, CMT_PORT_BASE + 13, 2);

	ib_destroy_qp(t->qp[1]);
	t->qp[1] = NULL;
	cmt_expect(test, &t->act, 1, IW_CM_EVENT_DISCONNECT, 0);
	cmt_expect(test, &t->act, 2, IW_CM_EVENT_CLOSE, -ECONNRESET);
	/* the destroyed QP's own side: it left RTS, then went to ERROR */
	cmt_expect(test, &t->pas, 1, IW_CM_EVENT_DISCONNECT, 0);
	cmt_expect(test, &t->pas, 2, IW_CM_EVENT_CLOSE, -ECONNRESET);
	cmt_all_refs_back(test, t);
}

static struct kunit_case cm_cases[] = {
	KUNIT_CASE_PARAM_ATTR(cm_close_by_initiator, cmt_rev_gen_params,
			      { .speed = KUNIT_SPEED_SLOW }),
	KUNIT_CASE_PARAM_ATTR(cm_close_by_responder, cmt_rev_gen_params,
			      { .speed = KUNIT_SPEED_SLOW }),
	KUNIT_CASE_SLOW(cm_reject_with_pdata),
	KUNIT_CASE_SLOW(cm_connect_nobody_listens),
	KUNIT_CASE_SLOW(cm_listen_taken_leaves_first),
	KUNIT_CASE_SLOW(cm_destroy_qp_established),
	{}
};

static struct kunit_suite cm_suite = {
	.name = "softiwarp_cm",
	.test_cases = cm_cases,
};

kunit_test_suite(cm_suite);
