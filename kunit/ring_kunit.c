// SPDX-License-Identifier: GPL-2.0
/*
 * DOC: KUnit suite softiwarp_ring
 *
 * The ring of dev/ring.h on its own: allocation limits and sizes, the
 * index wrap, the slot protocol (busy, fill, free) in one thread, and a
 * producer and a consumer in two kernel threads, bound to CPUs 1 and 0
 * when both are online, passing entries whose payload the consumer checks
 * after it saw the slot filled: a missing acquire/release pairing shows as
 * a torn or stale entry. (On x86 the pairing compiles to ordered plain
 * accesses, so this proves the protocol's logic more than the barriers.)
 */
#include <kunit/test.h>
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/cpumask.h>
#include <linux/jiffies.h>
#include <linux/kthread.h>
#include <linux/sched.h>

#include "dev/ring.h"
#include "dev/softiwarp.h"

#define RING_NUM	8
#define RING_PASSES	8192
#define RING_WAIT	(20 * HZ)

static void ring_free_action(void *r)
{
	swi_ring_free(r);
}

static struct swi_ring *ring_new(struct kunit *test, u32 num)
{
	struct swi_ring *r = kunit_kzalloc(test, sizeof(*r), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, r);
	KUNIT_ASSERT_EQ(test, swi_ring_alloc(r, num, sizeof(struct siw_cqe),
					     sizeof(struct siw_cq_ctrl), false),
			0);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, ring_free_action,
							r), 0);
	return r;
}

static void ring_alloc_sizes(struct kunit *test)
{
	struct swi_ring r;

	KUNIT_EXPECT_EQ(test, swi_ring_alloc(&r, 3, 32, 0, false), -EINVAL);
	KUNIT_EXPECT_EQ(test, swi_ring_alloc(&r, 0, 32, 0, false), 0);
	KUNIT_EXPECT_NULL(test, r.queue);
	KUNIT_EXPECT_EQ(test, swi_ring_bytes(&r), 0);
	swi_ring_free(&r);
	KUNIT_ASSERT_EQ(test, swi_ring_alloc(&r, 16, 32, 4, true), 0);
	KUNIT_EXPECT_NOT_NULL(test, r.queue);
	KUNIT_EXPECT_EQ(test, swi_ring_bytes(&r), 16 * 32 + 4);
	KUNIT_EXPECT_TRUE(test, r.user);
	KUNIT_EXPECT_EQ(test, r.put, 0U);
	KUNIT_EXPECT_EQ(test, r.get, 0U);
	swi_ring_free(&r);
	KUNIT_EXPECT_NULL(test, r.queue);
}

static void ring_slot_wraps(struct kunit *test)
{
	struct swi_ring *r = ring_new(test, RING_NUM);
	u32 i;

	for (i = 0; i < RING_NUM; i++) {
		KUNIT_EXPECT_PTR_EQ(test, swi_ring_slot(r, i),
				    r->queue + i * sizeof(struct siw_cqe));
		KUNIT_EXPECT_PTR_EQ(test, swi_ring_slot(r, i + RING_NUM),
				    swi_ring_slot(r, i));
		/* free-running indexes wrap at 2^32 onto the same slots */
		KUNIT_EXPECT_PTR_EQ(test, swi_ring_slot(r, U32_MAX - i),
				    swi_ring_slot(r, RING_NUM - 1 - i));
	}
}

static void ring_slot_protocol(struct kunit *test)
{
	struct swi_ring *r = ring_new(test, RING_NUM);
	struct siw_cqe *e = swi_ring_slot(r, 5);

	KUNIT_EXPECT_FALSE(test, swi_slot_busy(e));
	swi_slot_fill(e, SIW_WQE_SOLICITED);
	KUNIT_EXPECT_TRUE(test, swi_slot_busy(e));
	KUNIT_EXPECT_EQ(test, swi_slot_flags(e),
			SIW_WQE_SOLICITED | SIW_WQE_VALID);
	swi_slot_free(e);
	KUNIT_EXPECT_FALSE(test, swi_slot_busy(e));
	KUNIT_EXPECT_EQ(test, swi_slot_flags(e), 0);
	/* the notify word after the entries is not part of any slot */
	KUNIT_EXPECT_PTR_EQ(test, (void *)(e + RING_NUM - 5),
			    r->queue + swi_ring_bytes(r) -
			    sizeof(struct siw_cq_ctrl));
}

struct ring_pair {
	struct swi_ring *r;
	struct completion done[2];
	u32 bad;		/* entries the consumer found torn or stale */
	u32 got;		/* entries the consumer took */
	bool timeout;
};

/* Wait until the slot's VALID bit is @want; false on timeout */
static bool ring_wait(struct ring_pair *p, struct siw_cqe *e, bool want,
		      unsigned long end)
{
	unsigned int spins = 0;

	while (!!swi_slot_busy(e) != want) {
		if (time_after(jiffies, end) || READ_ONCE(p->timeout)) {
			WRITE_ONCE(p->timeout, true);
			return false;
		}
		/*
		 * The other thread may share this CPU (a one-CPU guest):
		 * after a short spin, sleep so that it runs.
		 */
		if (++spins < 64)
			cond_resched();
		else
			usleep_range(10, 50);
	}
	return true;
}

static int ring_producer(void *arg)
{
	struct ring_pair *p = arg;
	unsigned long end = jiffies + RING_WAIT;
	u32 i;

	for (i = 0; i < RING_PASSES; i++) {
		struct siw_cqe *e = swi_ring_slot(p->r, i);

		if (!ring_wait(p, e, false, end))
			break;
		e->id = i;
		e->bytes = ~i;
		e->qp_id = i * 3;
		swi_slot_fill(e, 0);
	}
	complete(&p->done[0]);
	return 0;
}

static int ring_consumer(void *arg)
{
	struct ring_pair *p = arg;
	unsigned long end = jiffies + RING_WAIT;
	u32 i;

	for (i = 0; i < RING_PASSES; i++) {
		struct siw_cqe *e = swi_ring_slot(p->r, i);

		if (!ring_wait(p, e, true, end))
			break;
		if (e->id != i || e->bytes != ~i || e->qp_id != i * 3)
			p->bad++;
		e->id = U64_MAX;	/* a stale entry would show next lap */
		swi_slot_free(e);
		p->got++;
	}
	complete(&p->done[1]);
	return 0;
}

static struct task_struct *ring_thread(struct kunit *test,
				       int (*fn)(void *), void *arg,
				       unsigned int cpu, const char *name)
{
	struct task_struct *t = kthread_create(fn, arg, "%s", name);

	KUNIT_ASSERT_FALSE(test, IS_ERR(t));
	if (cpu < nr_cpu_ids && cpu_online(cpu))
		kthread_bind(t, cpu);
	return t;
}

static void ring_two_cpus(struct kunit *test)
{
	struct ring_pair *p = kunit_kzalloc(test, sizeof(*p), GFP_KERNEL);
	struct task_struct *prod, *cons;

	KUNIT_ASSERT_NOT_NULL(test, p);
	p->r = ring_new(test, RING_NUM);
	init_completion(&p->done[0]);
	init_completion(&p->done[1]);
	if (num_online_cpus() < 2)
		kunit_info(test, "one CPU online: both threads share it\n");
	prod = ring_thread(test, ring_producer, p, 1, "swi_ring_prod");
	cons = ring_thread(test, ring_consumer, p, 0, "swi_ring_cons");
	wake_up_process(cons);
	wake_up_process(prod);
	wait_for_completion(&p->done[0]);
	wait_for_completion(&p->done[1]);
	KUNIT_EXPECT_FALSE(test, p->timeout);
	KUNIT_EXPECT_EQ(test, p->got, RING_PASSES);
	KUNIT_EXPECT_EQ(test, p->bad, 0U);
}

/*
 * The mmap key of every queue (its page offset times PAGE_SIZE) is above
 * SIW_INVAL_UOBJ_KEY, which libsiw reads as "no mapping", and the first
 * one follows it directly.
 */
static void ring_mmap_keys(struct kunit *test)
{
	u64 first = (u64)SWI_MMAP_MIN_PGOFF << PAGE_SHIFT;

	KUNIT_EXPECT_GT(test, first, (u64)SIW_INVAL_UOBJ_KEY);
	KUNIT_EXPECT_LE(test, first - PAGE_SIZE, (u64)SIW_INVAL_UOBJ_KEY);
	/* 4 KiB pages: pgoff 144 would be the invalid key itself */
	if (PAGE_SHIFT == 12)
		KUNIT_EXPECT_EQ(test, (u64)SWI_MMAP_MIN_PGOFF, 145ULL);
}

static struct kunit_case ring_cases[] = {
	KUNIT_CASE(ring_alloc_sizes),
	KUNIT_CASE(ring_slot_wraps),
	KUNIT_CASE(ring_slot_protocol),
	KUNIT_CASE_SLOW(ring_two_cpus),
	KUNIT_CASE(ring_mmap_keys),
	{}
};

static struct kunit_suite ring_suite = {
	.name = "softiwarp_ring",
	.test_cases = ring_cases,
};

kunit_test_suite(ring_suite);
