// SPDX-License-Identifier: GPL-2.0
/*
 * DOC: the stream's life cycle
 *
 * A stream is created when the connection manager hands a socket in MPA
 * Full Operation to an IDLE QP (swi_qp_stream_new(), then
 * swi_qp_attach_stream()), started when the QP
 * enters RTS: it then takes over the socket's data_ready, write_space and
 * state_change callbacks. Data arriving runs the receiver (engine/rx.c);
 * write space and every post run the transmitter (engine/tx.c); a FIN or a
 * reset becomes a QP event (swi_qp_raise()), which the QP's state table
 * turns into a close, an abort, flushes. The stream is stopped (callbacks
 * given back, transmitter quiet, socket shut down) by the QP's abort or
 * destroy, and freed with the QP.
 */
#include <linux/atomic.h>
#include <linux/net.h>
#include <linux/slab.h>
#include <net/sock.h>
#include <net/tcp.h>

#include "engine/stream.h"

static void eng_sk_write_space(struct sock *sk)
{
	struct eng_stream *s;

	read_lock_bh(&sk->sk_callback_lock);
	s = sk->sk_user_data;
	if (s && sk_stream_is_writeable(sk)) {
		clear_bit(SOCK_NOSPACE, &sk->sk_socket->flags);
		swi_eng_tx_kick(s, false);
	}
	read_unlock_bh(&sk->sk_callback_lock);
}

static void eng_sk_state_change(struct sock *sk)
{
	struct eng_stream *s;

	read_lock_bh(&sk->sk_callback_lock);
	s = sk->sk_user_data;
	if (s) {
		switch (sk->sk_state) {
		case TCP_CLOSE_WAIT:
			swi_eng_rx_peer_closed(s, sk);
			swi_qp_raise(s->link.qp, RDMAP_QPE_LLP_FIN,
				     RDMAP_QP_ERR_FATAL);
			break;
		case TCP_CLOSE:
			swi_eng_rx_peer_closed(s, sk);
			swi_qp_raise(s->link.qp, sk->sk_err ? RDMAP_QPE_LLP_RESET :
					    RDMAP_QPE_CLOSE_DONE,
				     RDMAP_QP_ERR_FATAL);
			break;
		default:
			break;
		}
	}
	read_unlock_bh(&sk->sk_callback_lock);
}

/*
 * Receive buffer a stream's socket has at least: eight of the largest
 * FPDUs (ULPDU, header, pad, CRC and Markers: under 66 KiB), so that one
 * held back whole fits whatever the skbs' overhead
 */
#define ENG_RCVBUF_MIN	(8 * 66 * 1024)

/*
 * Make the receive buffer, and the window it gives, hold ENG_RCVBUF_MIN.
 * The window clamp was set from the buffer of the handshake: it follows
 * the buffer, as autotuning makes it (tcp_rcv_space_adjust()), within
 * what the window scale agreed can advertise.
 */
static void eng_stream_rcvbuf(struct sock *sk)
{
	struct tcp_sock *tp = tcp_sk(sk);
	u32 clamp;

	sock_owned_by_me(sk);
	if (READ_ONCE(sk->sk_rcvbuf) >= ENG_RCVBUF_MIN)
		return;
	WRITE_ONCE(sk->sk_rcvbuf, ENG_RCVBUF_MIN);
	clamp = min_t(u32, tcp_win_from_space(sk, ENG_RCVBUF_MIN),
		      U16_MAX << tp->rx_opt.rcv_wscale);
	if (clamp > tp->window_clamp)
		WRITE_ONCE(tp->window_clamp, clamp);
}

/* The last stream identity handed out (&eng_stream.id) */
static atomic64_t eng_stream_ids = ATOMIC64_INIT(0);

/* Everything but the socket; also for a stream half set up */
static void eng_stream_release(struct eng_stream *s)
{
	cancel_delayed_work_sync(&s->tx_idle);
	WARN_ON_ONCE(s->tx_src);	/* the transmitter drops it before it returns */
	if (s->job.kind == ENG_TX_RRESP && s->job.rr_released)
		swi_rdmap_mem_unhold(s->job.rr.src);
	while (s->irq && s->irq_get != s->irq_put)
		swi_rdmap_mem_unhold(s->irq[s->irq_get++ % s->ird].src);
	while (s->orq && s->orq_get != s->orq_put)
		swi_rdmap_mem_unhold(s->orq[s->orq_get++ % s->ord].sink);
	swi_rdmap_mem_unhold(s->job.sink);
	swi_eng_rx_release(s);
	kvfree(s->txb);
	kfree(s->irq);
	kfree(s->orq);
	kfree(s->cq);
	kfree(s);
}

/*
 * What every stream needs from the start: its receive state and its IRQ.
 * The receiver fills the IRQ, maybe in softirq, where an allocation could
 * only be atomic and its failure would cost the peer a Terminate for a
 * Read Request within the IRD it was granted; it is small, sized by the
 * negotiated IRD. The transmitter's buffers and the ORQ come when the
 * transmitter first needs them (engine/tx.c).
 */
static int eng_stream_setup(struct eng_stream *s,
			    const struct eng_stream_cfg *cfg)
{
	unsigned int i;
	int err;

	spin_lock_init(&s->qlock);
	mutex_init(&s->tx_mutex);
	INIT_WORK(&s->tx_work, swi_eng_tx_work);
	INIT_DELAYED_WORK(&s->tx_idle, swi_eng_tx_idle_work);
	for (i = 0; i < RDMAP_QN_COUNT; i++)
		s->msn[i] = DDP_MSN_FIRST;
	if (cfg->hold)
		set_bit(ENG_TX_HOLD, &s->flags);
	if (cfg->rtr)
		set_bit(ENG_TX_RTR, &s->flags);
	err = swi_mpa_tx_init(&s->mtx, &cfg->tx);
	if (!err)
		err = swi_eng_rx_init(s);
	if (!err && swi_fault_setup_alloc())
		err = -ENOMEM;
	if (err)
		return err;
	/* an IRD of 0 takes no Request: the one entry stays unused */
	s->irq = kcalloc(max(s->ird, 1U), sizeof(*s->irq), GFP_KERNEL);
	return s->irq ? 0 : -ENOMEM;
}

/**
 * swi_eng_stream_create() - set up a stream for a QP
 * @link: its QP, as the engine sees it; the QP's IRD and ORD size the
 *	read queues unless @cfg names them
 * @sock: the connected socket in MPA Full Operation; the stream owns it
 *	from now on, unless it is given back with swi_eng_stream_abandon()
 * @cfg: what MPA negotiated
 *
 * Nothing runs until swi_eng_stream_start(). Only what an idle connection
 * needs is allocated here (the stream and its IRQ); the transmitter
 * allocates its buffers and the ORQ when it first needs them.
 *
 * Context: process context, sleeps.
 * Return: the stream, or ERR_PTR(-EINVAL) for a bad @cfg, or
 * ERR_PTR(-ENOMEM); on error @sock is still the caller's.
 */
struct eng_stream *swi_eng_stream_create(const struct eng_qp_link *link,
					 struct socket *sock,
					 const struct eng_stream_cfg *cfg)
{
	struct eng_stream *s;
	int err;

	if (swi_fault_setup_alloc())
		return ERR_PTR(-ENOMEM);
	s = kzalloc(sizeof(*s), GFP_KERNEL);
	if (!s)
		return ERR_PTR(-ENOMEM);
	s->link = *link;
	s->id = atomic64_inc_return(&eng_stream_ids);
	s->cfg = *cfg;
	/*
	 * Negotiated (or read once from the QP): the read queues are sized
	 * and indexed by these alone, whatever the QP's attributes become
	 * until it is attached
	 */
	s->ird = min_t(u32, cfg->rd_limits ? cfg->ird : link->ird, ENG_MAX_IRD);
	s->ord = min_t(u32, cfg->rd_limits ? cfg->ord : link->ord, ENG_MAX_ORD);
	err = eng_stream_setup(s, cfg);
	if (err) {
		eng_stream_release(s);
		return ERR_PTR(err);
	}
	s->sock = sock;
	return s;
}

/**
 * swi_eng_stream_start() - take over the socket and start moving data
 * @s: the stream
 *
 * Installs the socket callbacks, reads what already arrived and runs the
 * transmitter.
 *
 * Context: process context; called under the QP's state_lock.
 * Return: nothing.
 */
void swi_eng_stream_start(struct eng_stream *s)
{
	struct sock *sk = s->sock->sk;

	lockdep_assert_held(s->link.state_lock);
	tcp_sock_set_nodelay(sk);
	write_lock_bh(&sk->sk_callback_lock);
	s->saved_data_ready = sk->sk_data_ready;
	s->saved_write_space = sk->sk_write_space;
	s->saved_state_change = sk->sk_state_change;
	sk->sk_user_data = s;
	sk->sk_data_ready = swi_eng_rx_data_ready;
	sk->sk_write_space = eng_sk_write_space;
	sk->sk_state_change = eng_sk_state_change;
	write_unlock_bh(&sk->sk_callback_lock);
	lock_sock(sk);
	/*
	 * An FPDU stays in the socket until all of it arrived and its CRC is
	 * checked (engine/rx.c): the receive buffer must hold the largest
	 * with room to spare, or the window would close on a partial one.
	 * Autotuning still grows it from there.
	 */
	eng_stream_rcvbuf(sk);
	swi_eng_rx_data_ready(sk);
	/*
	 * A FIN or RST that came before the callbacks were ours (right
	 * behind the MPA Reply) changed the state without telling us
	 */
	eng_sk_state_change(sk);
	release_sock(sk);
	swi_eng_tx_kick(s, false);
}

/**
 * swi_eng_stream_close() - close the stream in order once it is idle
 * @s: the stream
 *
 * The transmitter shuts down the sending direction (a FIN) when the
 * message it is working on has gone out, or at once when it has none.
 *
 * Context: any context.
 * Return: nothing.
 */
void swi_eng_stream_close(struct eng_stream *s)
{
	set_bit(ENG_TX_CLOSE, &s->flags);
	swi_eng_tx_kick(s, false);
}

/**
 * swi_eng_stream_fin_due() - can a Terminate still precede our FIN?
 * @s: the stream, asked to close (swi_eng_stream_close())
 *
 * Until the transmitter shuts the sending direction down, a Terminate
 * queued now still goes out before the FIN; one the transmitter took
 * already (it takes a queued Terminate first, also before the QP left
 * CLOSING) went out before it. A snapshot.
 *
 * Context: any context.
 * Return: false once the close's FIN went out with no Terminate before
 * it, else true.
 */
bool swi_eng_stream_fin_due(struct eng_stream *s)
{
	return !test_bit(ENG_TX_FIN_OUT, &s->flags) || READ_ONCE(s->term_sent);
}

/**
 * swi_eng_stream_closing() - was the stream asked to close in order?
 * @s: the stream
 *
 * Context: any context; a snapshot.
 * Return: true once swi_eng_stream_close() was called (its FIN out or
 * still due), else false.
 */
bool swi_eng_stream_closing(struct eng_stream *s)
{
	return test_bit(ENG_TX_CLOSE, &s->flags) ||
	       test_bit(ENG_TX_FIN_OUT, &s->flags);
}

/* How long an abort waits for the peer to acknowledge the socket's data */
#define ENG_ABORT_LINGER_MS	1000

/*
 * Before an abortive close, give the peer's TCP up to ENG_ABORT_LINGER_MS
 * to acknowledge what the socket holds. A work request completes once its
 * last FPDU is in the socket, so that data belongs to messages the
 * consumer was told are sent, and a reset discards whatever is still
 * unacknowledged. A consumer that sends its last message, sees it
 * complete and destroys its QP (perftest's closing handshake does) would
 * lose it to a retransmission still pending. Only a connection that can
 * still be acknowledged is waited for: not one reset, closed or failed.
 */
static void eng_stream_linger(struct sock *sk)
{
	unsigned long end = jiffies + msecs_to_jiffies(ENG_ABORT_LINGER_MS);
	const struct tcp_sock *tp = tcp_sk(sk);

	while (!READ_ONCE(sk->sk_err) &&
	       ((1 << READ_ONCE(sk->sk_state)) &
		(TCPF_ESTABLISHED | TCPF_CLOSE_WAIT | TCPF_FIN_WAIT1 |
		 TCPF_CLOSING | TCPF_LAST_ACK)) &&
	       READ_ONCE(tp->snd_una) != READ_ONCE(tp->write_seq) &&
	       time_before(jiffies, end))
		usleep_range(500, 1000);
}

/*
 * Abortive close (RFC 5040 section 6.2): once the socket's data is
 * acknowledged (eng_stream_linger()), the peer sees a TCP RST, not a FIN
 * now and a RST only when the socket is released, which may be much
 * later and lets the peer take the FIN for an orderly close. A connect()
 * to AF_UNSPEC is the socket layer's disconnect: it resets a connected
 * TCP socket and leaves it closed. No-linger covers a socket whose
 * disconnect failed.
 */
static void eng_stream_reset(struct socket *sock)
{
	struct sockaddr unspec = { .sa_family = AF_UNSPEC };

	eng_stream_linger(sock->sk);
	sock_no_linger(sock->sk);
	if (kernel_connect(sock, swi_sockaddr_arg(&unspec), sizeof(unspec), 0))
		kernel_sock_shutdown(sock, SHUT_RDWR);
}

/**
 * swi_eng_stream_stop() - detach from the socket and stop sending
 * @s: the stream
 * @abort: reset the connection rather than closing it in order
 *
 * After it returns no socket callback and no transmitter run uses @s.
 *
 * Context: process context; not from the transmitter.
 * Return: nothing.
 */
void swi_eng_stream_stop(struct eng_stream *s, bool abort)
{
	struct sock *sk = s->sock->sk;

	set_bit(ENG_TX_STOPPED, &s->flags);
	write_lock_bh(&sk->sk_callback_lock);
	if (sk->sk_user_data == s) {
		sk->sk_user_data = NULL;
		sk->sk_data_ready = s->saved_data_ready;
		sk->sk_write_space = s->saved_write_space;
		sk->sk_state_change = s->saved_state_change;
	}
	write_unlock_bh(&sk->sk_callback_lock);
	cancel_work_sync(&s->tx_work);
	mutex_lock(&s->tx_mutex);	/* an inline run finishes */
	mutex_unlock(&s->tx_mutex);
	/* a run past its budget queued the work before it saw STOPPED */
	cancel_work_sync(&s->tx_work);
	if (abort)
		eng_stream_reset(s->sock);
	else
		kernel_sock_shutdown(s->sock, SHUT_RDWR);
	/* no receiver runs any more: a segment cut short lets its MR go */
	lock_sock(sk);
	swi_eng_rx_release(s);
	release_sock(sk);
}

/**
 * swi_eng_stream_free() - release a stopped stream and its socket
 * @s: the stream
 *
 * Context: process context.
 * Return: nothing.
 */
void swi_eng_stream_free(struct eng_stream *s)
{
	sock_release(s->sock);
	eng_stream_release(s);
}

/**
 * swi_eng_stream_abandon() - free a stream that never started
 * @s: the stream, from swi_eng_stream_create() and not started
 *
 * Its socket is given back: it is the caller's again.
 *
 * Context: process context.
 * Return: nothing.
 */
void swi_eng_stream_abandon(struct eng_stream *s)
{
	eng_stream_release(s);
}

/**
 * swi_eng_stream_busy() - is work outstanding on the stream?
 * @s: the stream
 *
 * Only what an orderly close would cut off counts. The RFC 6581 RTR
 * message is the connection's, not the consumer's (under load the peer's
 * FIN could otherwise meet it in progress and turn an orderly close into
 * an abort on both sides). Read Responses, queued or in progress, are
 * still sent in CLOSING, before the FIN.
 *
 * Context: any context; a snapshot.
 * Return: true while an RDMA Read of ours awaits its Response or the
 * transmitter is in the middle of a consumer's work request.
 */
bool swi_eng_stream_busy(struct eng_stream *s)
{
	switch (READ_ONCE(s->job.kind)) {
	case ENG_TX_SQE:
		if (!(READ_ONCE(s->job.sqe.flags) & ENG_WQE_INTERNAL))
			return true;
		break;
	case ENG_TX_TERM:
		return true;
	default:	/* none, or a Read Response */
		break;
	}
	return eng_orq_used(s);
}

/**
 * swi_eng_stream_get_info() - what the stream negotiated and has outstanding
 * @s: the stream, not yet freed
 * @info: filled in
 *
 * The read queue indexes are read under @s->qlock, so the counts are
 * consistent with each other; the MULPDU follows the socket's MSS. The
 * transmitter's state is read without its mutex (a transmitter stuck
 * holding it must still be visible): a snapshot, for diagnosis.
 *
 * Context: any context; the caller keeps @s alive (the QP's state_lock).
 * Return: nothing.
 */
void swi_eng_stream_get_info(struct eng_stream *s, struct eng_stream_info *info)
{
	unsigned long flags;

	info->cfg = s->cfg;
	info->mulpdu = swi_eng_tx_mulpdu(s);
	info->tx_buf = READ_ONCE(s->txb_size);
	spin_lock_irqsave(&s->qlock, flags);
	info->orq_used = s->orq_put - s->orq_get;
	info->irq_used = s->irq_put - s->irq_get;
	spin_unlock_irqrestore(&s->qlock, flags);
	/* racy by design: a snapshot, the transmitter's mutex not taken */
	info->tx_job = data_race(s->job.kind);
	/* racy by design, as above */
	info->tx_unsent = data_race(s->wire_len - s->wire_sent);
	info->tx_nospace = test_bit(SOCK_NOSPACE, &s->sock->flags);
}
EXPORT_SYMBOL_IF_KUNIT(swi_eng_stream_get_info);

/**
 * swi_eng_stream_rd_limits() - the IRD and ORD the stream's queues were sized by
 * @s: the stream
 * @ird: set to its IRD
 * @ord: set to its ORD
 *
 * Context: any context.
 * Return: nothing.
 */
void swi_eng_stream_rd_limits(const struct eng_stream *s, u32 *ird, u32 *ord)
{
	*ird = s->ird;
	*ord = s->ord;
}

/**
 * swi_eng_init() - set up what the engine shares between streams
 *
 * Context: module init.
 * Return: 0 or -ENOMEM.
 */
int swi_eng_init(void)
{
	return swi_eng_tx_init();
}

/**
 * swi_eng_exit() - tear down what swi_eng_init() set up
 *
 * Context: module exit, after every device is gone.
 * Return: nothing.
 */
void swi_eng_exit(void)
{
	swi_eng_tx_exit();
}
