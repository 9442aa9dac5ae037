/* SPDX-License-Identifier: GPL-2.0 */
/*
 * DOC: the protocol's door
 *
 * rdmap/ is RFC 5040, RDMAP, as pure logic over DDP (ddp/): the wire
 * format (rdmap/rdmap_proto.h), the Read Request codec and the receive
 * checks (rdmap/codec.c), RFC 7306's extensions: their codec, the atomic
 * arithmetic and the responder's checks (rdmap/ext.c), the Terminate
 * message (rdmap/terminate.c), the iWARP QP state table
 * (rdmap/qp_state.c) and the STag table with the memory objects behind
 * it (rdmap/mem.c). It keeps no connection and no
 * device: the engine (engine/) and the verbs device (dev/) above it hold
 * the state and call in.
 *
 * Other folders include this header and, for the trace events, which the
 * kernel's trace system wants in a header of their own,
 * rdmap/rdmap_trace.h; nothing else of rdmap/ (tools/check-layers.sh).
 */
#ifndef SOFTIWARP_RDMAP_H
#define SOFTIWARP_RDMAP_H

#include "rdmap/codec.h"
#include "rdmap/ext.h"
#include "rdmap/mem.h"
#include "rdmap/qp_state.h"
#include "rdmap/rdmap_proto.h"
#include "rdmap/terminate.h"

#endif /* SOFTIWARP_RDMAP_H */
