// SPDX-License-Identifier: GPL-2.0
/*
 * DOC: KUnit suite softiwarp_mpa_socket
 *
 * mpa/mpa_frame.c and mpa/mpa_deframe.c together over a real loopback TCP
 * connection: 1 MiB of ULPDUs framed with Markers and CRCs, sent with
 * kernel_sendmsg() and deframed with tcp_read_sock() and
 * swi_mpa_rx_tcp_actor().
 */
#include <kunit/test.h>
#include <linux/delay.h>
#include <linux/jiffies.h>
#include <linux/net.h>
#include <linux/prandom.h>
#include <linux/sched.h>
#include <linux/sizes.h>
#include <net/sock.h>
#include <net/tcp.h>

#include "kunit/helpers.h"
#include "kunit/mpa_vectors.h"

/* The sender: one FPDU in flight as kvecs over framing and payload. */
struct sock_tx {
	struct mpa_tx tx;
	struct mpa_fpdu *f;
	struct kvec *iov;	/* MPA_FPDU_MAX_PIECES */
	struct kvec *cur;	/* first unsent piece */
	unsigned int nr;	/* unsent pieces */
	unsigned int left;	/* unsent octets of the FPDU */
	unsigned int idx;	/* ULPDU being sent */
	unsigned int off;	/* its offset in src */
};

static int sock_tx_frame(struct sock_tx *t, const u8 *src, unsigned int len)
{
	struct kvec kv = { .iov_base = (void *)(src + t->off), .iov_len = len };
	struct iov_iter it;
	unsigned int i;
	int err;

	err = swi_mpa_fpdu_layout(&t->tx, t->f, len);
	if (err)
		return err;
	iov_iter_kvec(&it, ITER_SOURCE, &kv, 1, len);
	err = swi_mpa_fpdu_set_crc(t->f, &it);
	for (i = 0; i < t->f->nr_pieces; i++) {
		const struct mpa_piece *p = &t->f->piece[i];

		t->iov[i].iov_base = p->type == MPA_PIECE_FRAMING ?
			t->f->bytes + p->off : (u8 *)kv.iov_base + p->off;
		t->iov[i].iov_len = p->len;
	}
	t->cur = t->iov;
	t->nr = t->f->nr_pieces;
	t->left = t->f->len;
	return err;
}

/* Send what the socket takes without blocking; return octets sent. */
static int sock_tx_push(struct sock_tx *t, struct socket *sock, const u8 *src,
			const unsigned int *lens, unsigned int count)
{
	struct msghdr msg = { .msg_flags = MSG_DONTWAIT | MSG_NOSIGNAL };
	int sent = 0, ret;

	while (t->idx < count) {
		if (!t->left) {
			ret = sock_tx_frame(t, src, lens[t->idx]);
			if (ret)
				return ret;
		}
		ret = kernel_sendmsg(sock, &msg, t->cur, t->nr, t->left);
		if (ret == -EAGAIN)
			break;
		if (ret <= 0)
			return ret ?: -EIO;
		sent += ret;
		t->left -= ret;
		while (ret) {
			unsigned int k = min_t(unsigned int, ret, t->cur->iov_len);

			t->cur->iov_base += k;
			t->cur->iov_len -= k;
			ret -= k;
			if (!t->cur->iov_len) {
				t->cur++;
				t->nr--;
			}
		}
		if (t->left)
			continue;
		ret = swi_mpa_tx_commit(&t->tx, t->f);
		if (ret)
			return ret;
		t->off += lens[t->idx++];
	}
	return sent;
}

static int sock_rx_pull(struct mpa_rx *rx, struct socket *sock)
{
	read_descriptor_t desc = { .arg.data = rx, .count = 1 };
	int ret;

	lock_sock(sock->sk);
	ret = tcp_read_sock(sock->sk, &desc, swi_mpa_rx_tcp_actor);
	release_sock(sock->sk);
	return ret;
}

#define SOCK_MAX_ULPDUS	8192

/* Random ULPDU sizes up to @mulpdu, @total octets in all: return count. */
static unsigned int sock_plan(struct kunit *test, struct rnd_state *rnd,
			      unsigned int *lens, unsigned int total,
			      unsigned int mulpdu)
{
	unsigned int count = 0, sum = 0;

	while (sum < total) {
		KUNIT_ASSERT_LT(test, count, SOCK_MAX_ULPDUS);
		lens[count] = min(total - sum,
				  1 + prandom_u32_state(rnd) % mulpdu);
		sum += lens[count++];
	}
	return count;
}

/*
 * The test thread alternates non-blocking sends and reads until every
 * ULPDU arrived, an error occurred, or 60 s passed.
 */
static void sock_transfer(struct kunit *test, struct sock_tx *t,
			  struct mpa_rx *rx, const struct swi_mpa_test_sink *s,
			  const u8 *src, const unsigned int *lens,
			  unsigned int count)
{
	unsigned long deadline = jiffies + 60 * HZ;
	struct socket *cli, *srv;
	int sent = 0, got = 0;

	swi_kunit_sock_pair(test, &cli, &srv);
	while (s->nr < count && !swi_mpa_rx_stopped(rx) &&
	       time_before(jiffies, deadline)) {
		sent = sock_tx_push(t, cli, src, lens, count);
		got = sock_rx_pull(rx, srv);
		if (sent < 0 || got < 0)
			break;
		if (!sent && !got)
			usleep_range(200, 500);
		cond_resched();
	}
	KUNIT_EXPECT_GE(test, sent, 0);
	KUNIT_EXPECT_GE(test, got, 0);
}

/*
 * 1 MiB of ULPDUs of random sizes up to the MULPDU of a 1500-octet MTU
 * peer, framed with Markers and CRCs, sent over loopback TCP with
 * kernel_sendmsg() and deframed with tcp_read_sock().
 */
static void mpa_socket_loopback_1mib(struct kunit *test)
{
	const unsigned int total = SZ_1M;
	struct rnd_state rnd = { 11, 22, 33, 44 };
	unsigned int *lens, count;
	struct swi_mpa_test_sink *s;
	struct sock_tx *t;
	struct mpa_rx *rx;
	u8 *src;

	lens = kunit_kcalloc(test, SOCK_MAX_ULPDUS, sizeof(*lens), GFP_KERNEL);
	t = kunit_kzalloc(test, sizeof(*t), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, lens);
	KUNIT_ASSERT_NOT_NULL(test, t);
	t->f = swi_mpa_test_fpdu(test);
	t->iov = kunit_kcalloc(test, MPA_FPDU_MAX_PIECES, sizeof(*t->iov),
			       GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, t->iov);
	count = sock_plan(test, &rnd, lens, total, swi_mpa_mulpdu(1460, true));
	src = swi_mpa_test_vmalloc(test, total);
	prandom_bytes_state(&rnd, src, total);
	s = swi_mpa_test_sink(test, 1, count);
	s->buf = swi_mpa_test_vmalloc(test, total);
	s->cap = total;
	swi_mpa_test_tx_init(test, &t->tx, 0, true, true);
	rx = swi_mpa_test_rx(test, s, 0, true, true, MPA_MULPDU_MAX);

	sock_transfer(test, t, rx, s, src, lens, count);
	KUNIT_EXPECT_EQ(test, t->idx, count);
	KUNIT_EXPECT_EQ(test, s->nr, count);
	KUNIT_EXPECT_EQ(test, swi_mpa_rx_error(rx), MPA_ERR_NONE);
	KUNIT_EXPECT_FALSE(test, s->misordered);
	KUNIT_EXPECT_EQ(test, s->used, total);
	KUNIT_EXPECT_EQ(test, memcmp(s->buf, src, total), 0);
	KUNIT_EXPECT_EQ(test, rx->pos, t->tx.pos);
	KUNIT_EXPECT_EQ(test, memcmp(s->lens, lens, count * sizeof(*lens)), 0);
	kunit_info(test, "%u ULPDUs, %u stream octets\n", count, t->tx.pos);
}

static struct kunit_case mpa_socket_cases[] = {
	KUNIT_CASE(mpa_socket_loopback_1mib),
	{}
};

static struct kunit_suite mpa_socket_suite = {
	.name = "softiwarp_mpa_socket",
	.test_cases = mpa_socket_cases,
};

kunit_test_suites(&mpa_socket_suite);
