/* SPDX-License-Identifier: GPL-2.0 */
/*
 * DOC: the engine's API
 *
 * The engine moves a QP's data over its TCP stream in MPA Full Operation:
 * the stream's life cycle and socket callbacks (rdmap/stream.c), the
 * transmitter (rdmap/tx.c) and the receiver (rdmap/rx.c). Its state,
 * struct swi_stream, is private to those three files (rdmap/stream.h);
 * everyone else holds an opaque pointer and uses the calls below.
 *
 * The QP (rdmap/qp.c) creates a stream when the connection manager
 * attaches a socket, starts it when the QP enters RTS, and, following its
 * state table, asks it to close, to abort, to flush or whether it is busy.
 * The engine calls back into the QP for work requests
 * (swi_qp_take_sqe()/swi_qp_take_rqe()), completions and state events
 * (swi_qp_raise()).
 */
#ifndef SOFTIWARP_ENGINE_H
#define SOFTIWARP_ENGINE_H

#include <linux/net.h>
#include <linux/types.h>

#include "mpa/mpa_frame.h"

struct rdmap_term_cause;
struct rdmap_term_offender;
struct swi_qp;
struct swi_stream;

/**
 * struct swi_stream_cfg - how a stream in Full Operation was negotiated
 * @tx: our sending direction: stream position, Markers, CRC
 * @rx: the peer's sending direction
 * @rdmac: the peer speaks RDMAC (MPA revision 0, DDP/RDMAP version 0)
 * @hold: we are the MPA responder: send nothing before the first FPDU
 *	from the initiator arrived (RFC 5044 section 7.1.2)
 * @rtr: we are the initiator in RFC 6581 peer-to-peer mode: send a
 *	zero-length RDMA Write as Ready-To-Receive before anything else
 * @rev: the MPA revision negotiated (0, 1 or 2); shown, not acted upon
 * @p2p: RFC 6581 peer-to-peer mode was negotiated (either role); shown,
 *	not acted upon (@rtr is what the transmitter follows)
 * @ird: the IRD negotiated, which sizes the stream's IRQ; 0: the QP's
 * @ord: the ORD negotiated, which sizes its ORQ and bounds the Reads it
 *	has outstanding; 0: the QP's. Given here, not read back from the QP,
 *	so that a modify_qp() racing the accept cannot change them
 */
struct swi_stream_cfg {
	struct mpa_fo_cfg tx;
	struct mpa_fo_cfg rx;
	bool rdmac;
	bool hold;
	bool rtr;
	u8 rev;
	bool p2p;
	u32 ird;
	u32 ord;
};

/**
 * struct swi_stream_info - a snapshot of a stream, for ``rdma resource``
 * @cfg: how it was negotiated (positions not kept up to date)
 * @mulpdu: the MULPDU the transmitter uses now, from the current MSS
 * @orq_used: our RDMA Read Requests awaiting their Response
 * @irq_used: the peer's Read Requests not yet answered
 */
struct swi_stream_info {
	struct swi_stream_cfg cfg;
	u32 mulpdu;
	u32 orq_used;
	u32 irq_used;
};

/* rdmap/stream.c */
int swi_engine_init(void);
void swi_engine_exit(void);
struct swi_stream *swi_stream_create(struct swi_qp *qp, struct socket *sock,
				     const struct swi_stream_cfg *cfg);
void swi_stream_start(struct swi_stream *s);
void swi_stream_close(struct swi_stream *s);
void swi_stream_stop(struct swi_stream *s, bool abort);
void swi_stream_free(struct swi_stream *s);
void swi_stream_abandon(struct swi_stream *s);
bool swi_stream_busy(struct swi_stream *s);
void swi_stream_get_info(struct swi_stream *s, struct swi_stream_info *info);
void swi_stream_rd_limits(const struct swi_stream *s, u32 *ird, u32 *ord);

/* rdmap/tx.c */
void swi_tx_kick(struct swi_stream *s, bool inline_ok);
void swi_tx_queue_term(struct swi_stream *s,
		       const struct rdmap_term_cause *cause,
		       const struct rdmap_term_offender *seg, bool kick);
void swi_stream_flush_tx(struct swi_stream *s);

/* rdmap/rx.c */
void swi_stream_flush_rx(struct swi_stream *s);

#endif /* SOFTIWARP_ENGINE_H */
