// SPDX-License-Identifier: GPL-2.0
/*
 * DOC: the RDMA device's trace events
 *
 * The one place that creates the tracepoints of rdmap/rdmap_trace.h.
 */
#define CREATE_TRACE_POINTS
#include "rdmap/rdmap_trace.h"
