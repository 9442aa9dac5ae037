/* SPDX-License-Identifier: GPL-2.0 */
/*
 * DOC: trace events of the connection manager (system "softiwarp")
 *
 * MPA startup: the Request and Reply frames sent and received with what
 * they carry, startup input refused, and the outcome of each connection
 * with what was negotiated. The QP and receive events of the same system
 * are in rdmap/rdmap_trace.h: cm/ may not include that layer's headers,
 * so each layer owns the events of its own code. The tracepoints are
 * created in cm/cm_trace.c. Documentation/tracing.rst lists every event
 * with its fields.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM softiwarp

#ifndef SOFTIWARP_CM_TRACE_TYPES
#define SOFTIWARP_CM_TRACE_TYPES

/**
 * enum swi_cm_outcome - how a connection's startup ended
 * @SWI_CM_ESTABLISHED: in MPA Full Operation, the QP has the socket
 * @SWI_CM_REJECTED: a Reply with R set was sent or received
 * @SWI_CM_TIMED_OUT: the TCP connection or the peer's frame took longer
 *	than mpa_timeout_ms
 * @SWI_CM_FAILED: any other error (the errno says which)
 */
enum swi_cm_outcome {
	SWI_CM_ESTABLISHED,
	SWI_CM_REJECTED,
	SWI_CM_TIMED_OUT,
	SWI_CM_FAILED,
};

/**
 * enum swi_cm_bad_input - why the peer's Request or Reply was refused
 * @SWI_CM_BAD_KEY: the key is not the one of the frame expected
 * @SWI_CM_BAD_REV: a revision we cannot talk to
 * @SWI_CM_PD_TOO_LONG: PD_Length above the limit of the revision
 * @SWI_CM_BAD_LENGTH: PD_Length disagrees with the octets (or is too short
 *	for the RFC 6581 data the header announces)
 * @SWI_CM_BAD_P2P: a Reply in peer-to-peer mode we did not ask for
 * @SWI_CM_NO_IRD: RFC 6581 insufficient IRD
 * @SWI_CM_NO_RTR: RFC 6581 no matching RTR model
 */
enum swi_cm_bad_input {
	SWI_CM_BAD_KEY,
	SWI_CM_BAD_REV,
	SWI_CM_PD_TOO_LONG,
	SWI_CM_BAD_LENGTH,
	SWI_CM_BAD_P2P,
	SWI_CM_NO_IRD,
	SWI_CM_NO_RTR,
};

#endif /* SOFTIWARP_CM_TRACE_TYPES */

#if !defined(SOFTIWARP_CM_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define SOFTIWARP_CM_TRACE_H

#include <linux/in6.h>
#include <linux/socket.h>
#include <linux/tracepoint.h>

#include "mpa/mpa_startup.h"

/* Room for an IPv4 or IPv6 address, printed with %pISpc */
#define SWI_TRACE_SA_SIZE	sizeof(struct sockaddr_in6)

TRACE_DEFINE_ENUM(SWI_CM_ESTABLISHED);
TRACE_DEFINE_ENUM(SWI_CM_REJECTED);
TRACE_DEFINE_ENUM(SWI_CM_TIMED_OUT);
TRACE_DEFINE_ENUM(SWI_CM_FAILED);

#define show_swi_cm_outcome(o)					\
	__print_symbolic(o,					\
		{ SWI_CM_ESTABLISHED, "established" },		\
		{ SWI_CM_REJECTED, "rejected" },		\
		{ SWI_CM_TIMED_OUT, "timed out" },		\
		{ SWI_CM_FAILED, "failed" })

TRACE_DEFINE_ENUM(SWI_CM_BAD_KEY);
TRACE_DEFINE_ENUM(SWI_CM_BAD_REV);
TRACE_DEFINE_ENUM(SWI_CM_PD_TOO_LONG);
TRACE_DEFINE_ENUM(SWI_CM_BAD_LENGTH);
TRACE_DEFINE_ENUM(SWI_CM_BAD_P2P);
TRACE_DEFINE_ENUM(SWI_CM_NO_IRD);
TRACE_DEFINE_ENUM(SWI_CM_NO_RTR);

#define show_swi_cm_bad_input(r)				\
	__print_symbolic(r,					\
		{ SWI_CM_BAD_KEY, "bad key" },			\
		{ SWI_CM_BAD_REV, "bad revision" },		\
		{ SWI_CM_PD_TOO_LONG, "private data too long" },	\
		{ SWI_CM_BAD_LENGTH, "PD_Length disagrees" },	\
		{ SWI_CM_BAD_P2P, "unrequested peer-to-peer" },	\
		{ SWI_CM_NO_IRD, "insufficient IRD" },		\
		{ SWI_CM_NO_RTR, "no matching RTR" })

TRACE_DEFINE_ENUM(MPA_ERR_NONE);
TRACE_DEFINE_ENUM(MPA_ERR_TCP_LOST);
TRACE_DEFINE_ENUM(MPA_ERR_CRC);
TRACE_DEFINE_ENUM(MPA_ERR_MARKER);
TRACE_DEFINE_ENUM(MPA_ERR_REQ_REP);
TRACE_DEFINE_ENUM(MPA_ERR_LOCAL_CATASTROPHIC);
TRACE_DEFINE_ENUM(MPA_ERR_INSUFFICIENT_IRD);
TRACE_DEFINE_ENUM(MPA_ERR_NO_MATCHING_RTR);

#define show_mpa_error(e)					\
	__print_symbolic(e,					\
		{ MPA_ERR_NONE, "none" },			\
		{ MPA_ERR_TCP_LOST, "TCP lost" },		\
		{ MPA_ERR_CRC, "CRC" },				\
		{ MPA_ERR_MARKER, "Marker" },			\
		{ MPA_ERR_REQ_REP, "invalid Request/Reply" },	\
		{ MPA_ERR_LOCAL_CATASTROPHIC, "local catastrophic" }, \
		{ MPA_ERR_INSUFFICIENT_IRD, "insufficient IRD" },	\
		{ MPA_ERR_NO_MATCHING_RTR, "no matching RTR" })

#define show_swi_rtr(t)						\
	__print_flags(t, "|",					\
		{ MPA_RTR_SEND, "send" },			\
		{ MPA_RTR_WRITE, "write" },			\
		{ MPA_RTR_READ, "read" })

DECLARE_EVENT_CLASS(swi_mpa_frame_class,
	TP_PROTO(const struct sockaddr_storage *laddr,
		 const struct sockaddr_storage *raddr,
		 const struct mpa_startup_frame *f),
	TP_ARGS(laddr, raddr, f),
	TP_STRUCT__entry(
		__array(u8, laddr, SWI_TRACE_SA_SIZE)
		__array(u8, raddr, SWI_TRACE_SA_SIZE)
		__field(u8, rev)
		__field(u8, crc)
		__field(u8, markers)
		__field(u8, rejected)
		__field(u8, enhanced)
		__field(u8, p2p)
		__field(u8, rtr)
		__field(u16, ird)
		__field(u16, ord)
		__field(u16, pdata_len)
	),
	TP_fast_assign(
		memcpy(__entry->laddr, laddr, SWI_TRACE_SA_SIZE);
		memcpy(__entry->raddr, raddr, SWI_TRACE_SA_SIZE);
		__entry->rev = f->rev;
		__entry->crc = f->crc;
		__entry->markers = f->markers;
		__entry->rejected = f->rejected;
		__entry->enhanced = f->enhanced;
		__entry->p2p = f->p2p;
		__entry->rtr = f->rtr;
		__entry->ird = f->ird;
		__entry->ord = f->ord;
		__entry->pdata_len = f->pdata_len;
	),
	TP_printk("%pISpc -> %pISpc rev=%u crc=%u markers=%u rejected=%u enhanced=%u p2p=%u rtr=%s ird=%u ord=%u pdata_len=%u",
		  __entry->laddr, __entry->raddr, __entry->rev, __entry->crc,
		  __entry->markers, __entry->rejected, __entry->enhanced,
		  __entry->p2p, show_swi_rtr(__entry->rtr), __entry->ird,
		  __entry->ord, __entry->pdata_len)
);

/* The four frames of MPA startup, as sent or as parsed */
DEFINE_EVENT(swi_mpa_frame_class, mpa_request_sent,
	TP_PROTO(const struct sockaddr_storage *laddr,
		 const struct sockaddr_storage *raddr,
		 const struct mpa_startup_frame *f),
	TP_ARGS(laddr, raddr, f));

DEFINE_EVENT(swi_mpa_frame_class, mpa_request_recv,
	TP_PROTO(const struct sockaddr_storage *laddr,
		 const struct sockaddr_storage *raddr,
		 const struct mpa_startup_frame *f),
	TP_ARGS(laddr, raddr, f));

DEFINE_EVENT(swi_mpa_frame_class, mpa_reply_sent,
	TP_PROTO(const struct sockaddr_storage *laddr,
		 const struct sockaddr_storage *raddr,
		 const struct mpa_startup_frame *f),
	TP_ARGS(laddr, raddr, f));

DEFINE_EVENT(swi_mpa_frame_class, mpa_reply_recv,
	TP_PROTO(const struct sockaddr_storage *laddr,
		 const struct sockaddr_storage *raddr,
		 const struct mpa_startup_frame *f),
	TP_ARGS(laddr, raddr, f));

/*
 * mpa_input_rejected: the peer's Request (@request) or Reply is refused
 * for @reason; @rev and @pd_len are -1 when the header was incomplete.
 */
TRACE_EVENT(mpa_input_rejected,
	TP_PROTO(const struct sockaddr_storage *laddr,
		 const struct sockaddr_storage *raddr, bool request,
		 int reason, int err, int rev, int pd_len),
	TP_ARGS(laddr, raddr, request, reason, err, rev, pd_len),
	TP_STRUCT__entry(
		__array(u8, laddr, SWI_TRACE_SA_SIZE)
		__array(u8, raddr, SWI_TRACE_SA_SIZE)
		__field(bool, request)
		__field(u8, reason)
		__field(int, err)
		__field(int, rev)
		__field(int, pd_len)
	),
	TP_fast_assign(
		memcpy(__entry->laddr, laddr, SWI_TRACE_SA_SIZE);
		memcpy(__entry->raddr, raddr, SWI_TRACE_SA_SIZE);
		__entry->request = request;
		__entry->reason = reason;
		__entry->err = err;
		__entry->rev = rev;
		__entry->pd_len = pd_len;
	),
	TP_printk("%pISpc -> %pISpc %s refused: %s err=%d rev=%d pd_len=%d",
		  __entry->laddr, __entry->raddr,
		  __entry->request ? "Request" : "Reply",
		  show_swi_cm_bad_input(__entry->reason), __entry->err,
		  __entry->rev, __entry->pd_len)
);

/*
 * cm_outcome: how a connection's startup ended, with what MPA negotiated
 * (meaningful when established); @err is 0 or the negative errno.
 */
TRACE_EVENT(cm_outcome,
	TP_PROTO(const struct sockaddr_storage *laddr,
		 const struct sockaddr_storage *raddr, bool initiator,
		 int outcome, int err, const struct mpa_startup_result *res),
	TP_ARGS(laddr, raddr, initiator, outcome, err, res),
	TP_STRUCT__entry(
		__array(u8, laddr, SWI_TRACE_SA_SIZE)
		__array(u8, raddr, SWI_TRACE_SA_SIZE)
		__field(bool, initiator)
		__field(u8, outcome)
		__field(int, err)
		__field(u8, mpa_error)
		__field(u8, rev)
		__field(u8, crc_tx)
		__field(u8, crc_rx)
		__field(u8, markers_tx)
		__field(u8, markers_rx)
		__field(u8, p2p)
		__field(u8, rtr)
		__field(u16, ird)
		__field(u16, ord)
	),
	TP_fast_assign(
		memcpy(__entry->laddr, laddr, SWI_TRACE_SA_SIZE);
		memcpy(__entry->raddr, raddr, SWI_TRACE_SA_SIZE);
		__entry->initiator = initiator;
		__entry->outcome = outcome;
		__entry->err = err;
		__entry->mpa_error = res->error;
		__entry->rev = res->rev;
		__entry->crc_tx = res->crc_tx;
		__entry->crc_rx = res->crc_rx;
		__entry->markers_tx = res->markers_tx;
		__entry->markers_rx = res->markers_rx;
		__entry->p2p = res->p2p;
		__entry->rtr = res->rtr;
		__entry->ird = res->ird;
		__entry->ord = res->ord;
	),
	TP_printk("%pISpc -> %pISpc %s %s err=%d mpa_error=%s rev=%u crc=%u/%u markers=%u/%u p2p=%u rtr=%s ird=%u ord=%u",
		  __entry->laddr, __entry->raddr,
		  __entry->initiator ? "initiator" : "responder",
		  show_swi_cm_outcome(__entry->outcome), __entry->err,
		  show_mpa_error(__entry->mpa_error), __entry->rev, __entry->crc_tx,
		  __entry->crc_rx, __entry->markers_tx, __entry->markers_rx,
		  __entry->p2p, show_swi_rtr(__entry->rtr), __entry->ird,
		  __entry->ord)
);

#endif /* SOFTIWARP_CM_TRACE_H */

/* Found through the module's -I$(src), see Kbuild */
#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH cm
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE cm_trace
#include <trace/define_trace.h>
