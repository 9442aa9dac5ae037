// SPDX-License-Identifier: GPL-2.0
/*
 * DOC: the connection manager's trace events
 *
 * The one place that creates the tracepoints of cm/cm_trace.h.
 */
#include <linux/string.h>

#define CREATE_TRACE_POINTS
#include "cm/cm_trace.h"
