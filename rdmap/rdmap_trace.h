/* SPDX-License-Identifier: GPL-2.0 */
/*
 * DOC: trace events of the RDMA device (system "softiwarp")
 *
 * QP state changes as dev/qp.c applies them, Terminate messages sent
 * and received, and received segments the receiver refuses (the cause of
 * the Terminate it sends). The connection manager's events (MPA startup)
 * are in cm/cm_trace.h, in the same system: cm/ may not include this
 * layer's headers, and these events need nothing of cm/. The tracepoints
 * are created in rdmap/rdmap_trace.c. Documentation/tracing.rst lists
 * every event with its fields.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM softiwarp

#if !defined(SOFTIWARP_RDMAP_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define SOFTIWARP_RDMAP_TRACE_H

#include <linux/tracepoint.h>

#include "ddp/ddp_proto.h"
#include "rdmap/qp_state.h"
#include "rdmap/rdmap_proto.h"
#include "rdmap/terminate.h"

TRACE_DEFINE_ENUM(RDMAP_QPS_IDLE);
TRACE_DEFINE_ENUM(RDMAP_QPS_RTS);
TRACE_DEFINE_ENUM(RDMAP_QPS_CLOSING);
TRACE_DEFINE_ENUM(RDMAP_QPS_TERMINATE);
TRACE_DEFINE_ENUM(RDMAP_QPS_ERROR);

#define show_rdmap_qps(s)						\
	__print_symbolic(s,					\
		{ RDMAP_QPS_IDLE, "IDLE" },			\
		{ RDMAP_QPS_RTS, "RTS" },			\
		{ RDMAP_QPS_CLOSING, "CLOSING" },		\
		{ RDMAP_QPS_TERMINATE, "TERMINATE" },		\
		{ RDMAP_QPS_ERROR, "ERROR" })

TRACE_DEFINE_ENUM(RDMAP_QPE_LLP_UP);
TRACE_DEFINE_ENUM(RDMAP_QPE_LLP_FIN);
TRACE_DEFINE_ENUM(RDMAP_QPE_LLP_RESET);
TRACE_DEFINE_ENUM(RDMAP_QPE_LOCAL_ERROR);
TRACE_DEFINE_ENUM(RDMAP_QPE_TERM_RCVD);
TRACE_DEFINE_ENUM(RDMAP_QPE_TERM_SENT);
TRACE_DEFINE_ENUM(RDMAP_QPE_CLOSE_DONE);
TRACE_DEFINE_ENUM(RDMAP_QPE_TIMEOUT);

/* The modify events have the values of their states (qp_state.h) */
#define show_rdmap_qpe(e)						\
	__print_symbolic(e,					\
		{ RDMAP_QPS_IDLE, "MOD_IDLE" },			\
		{ RDMAP_QPS_RTS, "MOD_RTS" },			\
		{ RDMAP_QPS_CLOSING, "MOD_CLOSING" },		\
		{ RDMAP_QPS_TERMINATE, "MOD_TERMINATE" },	\
		{ RDMAP_QPS_ERROR, "MOD_ERROR" },		\
		{ RDMAP_QPE_LLP_UP, "LLP_UP" },			\
		{ RDMAP_QPE_LLP_FIN, "LLP_FIN" },		\
		{ RDMAP_QPE_LLP_RESET, "LLP_RESET" },		\
		{ RDMAP_QPE_LOCAL_ERROR, "LOCAL_ERROR" },	\
		{ RDMAP_QPE_TERM_RCVD, "TERM_RCVD" },		\
		{ RDMAP_QPE_TERM_SENT, "TERM_SENT" },		\
		{ RDMAP_QPE_CLOSE_DONE, "CLOSE_DONE" },		\
		{ RDMAP_QPE_TIMEOUT, "TIMEOUT" })

TRACE_DEFINE_ENUM(TERM_LAYER_RDMAP);
TRACE_DEFINE_ENUM(TERM_LAYER_DDP);
TRACE_DEFINE_ENUM(TERM_LAYER_LLP);

#define show_rdmap_term_layer(l)					\
	__print_symbolic(l,					\
		{ TERM_LAYER_RDMAP, "RDMAP" },			\
		{ TERM_LAYER_DDP, "DDP" },			\
		{ TERM_LAYER_LLP, "LLP" })

TRACE_DEFINE_ENUM(TERM_ETYPE_RDMAP_CATASTROPHIC);
TRACE_DEFINE_ENUM(TERM_ETYPE_RDMAP_PROTECTION);
TRACE_DEFINE_ENUM(TERM_ETYPE_RDMAP_OPERATION);
TRACE_DEFINE_ENUM(TERM_ETYPE_DDP_CATASTROPHIC);
TRACE_DEFINE_ENUM(TERM_ETYPE_DDP_TAGGED);
TRACE_DEFINE_ENUM(TERM_ETYPE_DDP_UNTAGGED);
TRACE_DEFINE_ENUM(TERM_ETYPE_LLP);

/* Error types are per layer: the key is layer * 16 + type */
#define show_rdmap_term_etype(l, e)					\
	__print_symbolic((l) * 16 + (e),				\
		{ TERM_LAYER_RDMAP * 16 + TERM_ETYPE_RDMAP_CATASTROPHIC,	\
		  "local catastrophic" },				\
		{ TERM_LAYER_RDMAP * 16 + TERM_ETYPE_RDMAP_PROTECTION,	\
		  "remote protection" },				\
		{ TERM_LAYER_RDMAP * 16 + TERM_ETYPE_RDMAP_OPERATION,	\
		  "remote operation" },					\
		{ TERM_LAYER_DDP * 16 + TERM_ETYPE_DDP_CATASTROPHIC,	\
		  "local catastrophic" },				\
		{ TERM_LAYER_DDP * 16 + TERM_ETYPE_DDP_TAGGED,		\
		  "tagged buffer" },					\
		{ TERM_LAYER_DDP * 16 + TERM_ETYPE_DDP_UNTAGGED,	\
		  "untagged buffer" },					\
		{ TERM_LAYER_LLP * 16 + TERM_ETYPE_LLP, "MPA" })

/*
 * qp_state: a transition swi_rdmap_qp_next() allowed, as it is applied under
 * the QP's state_lock; @old may equal @new (an event that only acts).
 */
TRACE_EVENT(qp_state,
	TP_PROTO(u32 qpn, int old, int new, int event),
	TP_ARGS(qpn, old, new, event),
	TP_STRUCT__entry(
		__field(u32, qpn)
		__field(u8, old)
		__field(u8, new)
		__field(u8, event)
	),
	TP_fast_assign(
		__entry->qpn = qpn;
		__entry->old = old;
		__entry->new = new;
		__entry->event = event;
	),
	TP_printk("qp=%u %s -> %s event=%s", __entry->qpn,
		  show_rdmap_qps(__entry->old), show_rdmap_qps(__entry->new),
		  show_rdmap_qpe(__entry->event))
);

DECLARE_EVENT_CLASS(rdmap_term_class,
	TP_PROTO(u32 qpn, const struct rdmap_term_cause *c),
	TP_ARGS(qpn, c),
	TP_STRUCT__entry(
		__field(u32, qpn)
		__field(u8, layer)
		__field(u8, etype)
		__field(u8, code)
	),
	TP_fast_assign(
		__entry->qpn = qpn;
		__entry->layer = c->layer;
		__entry->etype = c->etype;
		__entry->code = c->code;
	),
	TP_printk("qp=%u layer=%s type=%s code=0x%02x", __entry->qpn,
		  show_rdmap_term_layer(__entry->layer),
		  show_rdmap_term_etype(__entry->layer, __entry->etype),
		  __entry->code)
);

/* term_sent: the transmitter starts sending the stream's Terminate */
DEFINE_EVENT(rdmap_term_class, term_sent,
	TP_PROTO(u32 qpn, const struct rdmap_term_cause *c),
	TP_ARGS(qpn, c));

/* term_recv: a Terminate from the peer (unparsable: RDMAP unspecified) */
DEFINE_EVENT(rdmap_term_class, term_recv,
	TP_PROTO(u32 qpn, const struct rdmap_term_cause *c),
	TP_ARGS(qpn, c));

/*
 * rx_refused: the receiver refuses a segment and answers with a
 * Terminate for @c. @hdr holds @hdr_got octets of the segment's headers
 * (from its DDP control field); @ulpdu_len is the MPA ULPDU length.
 */
TRACE_EVENT(rx_refused,
	TP_PROTO(u32 qpn, const struct rdmap_term_cause *c, const u8 *hdr,
		 unsigned int hdr_got, unsigned int ulpdu_len),
	TP_ARGS(qpn, c, hdr, hdr_got, ulpdu_len),
	TP_STRUCT__entry(
		__field(u32, qpn)
		__field(u8, layer)
		__field(u8, etype)
		__field(u8, code)
		__field(u8, ctrl)
		__field(u8, opcode)
		__field(u16, ulpdu_len)
		__field(u16, hdr_got)
	),
	TP_fast_assign(
		__entry->qpn = qpn;
		__entry->layer = c->layer;
		__entry->etype = c->etype;
		__entry->code = c->code;
		__entry->ctrl = hdr_got >= DDP_CTRL_SIZE ? hdr[0] : 0;
		__entry->opcode = hdr_got >= DDP_CTRL_SIZE ?
				  hdr[1] & RDMAP_CTRL_OPCODE : 0;
		__entry->ulpdu_len = ulpdu_len;
		__entry->hdr_got = hdr_got;
	),
	TP_printk("qp=%u layer=%s type=%s code=0x%02x ddp_ctrl=0x%02x opcode=%u ulpdu_len=%u hdr_got=%u",
		  __entry->qpn, show_rdmap_term_layer(__entry->layer),
		  show_rdmap_term_etype(__entry->layer, __entry->etype),
		  __entry->code, __entry->ctrl, __entry->opcode,
		  __entry->ulpdu_len, __entry->hdr_got)
);

#endif /* SOFTIWARP_RDMAP_TRACE_H */

/* Found through the module's -I$(src), see Kbuild */
#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH rdmap
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE rdmap_trace
#include <trace/define_trace.h>
