/* SPDX-License-Identifier: GPL-2.0 */
/*
 * DOC: the connection manager behind iw_cm
 *
 * cm/ implements the iw_cm provider operations on kernel TCP sockets:
 * MPA startup (RFC 5044 section 7.1, RFC 6581), then Full Operation on the
 * QP's stream. The stream is allocated with swi_qp_stream_new() (by a
 * responder before its Reply, so that running out of memory still refuses
 * the connection) and handed to the IDLE QP with
 * swi_qp_attach_stream(); from then on the socket is the stream's, and the
 * QP holds the endpoint until it reports its close (swi_cm_qp_changed(),
 * under the QP's state_lock). cm/policy.c holds the startup policy: module
 * parameters with the RFC defaults and the same knobs per device in sysfs.
 *
 * This header is all of cm/ that dev/ sees; of dev/, only dev/device.c,
 * dev/qp.c and dev/main.c include it (tools/check-layers.sh). See
 * Documentation/cm.rst.
 */
#ifndef SOFTIWARP_CM_H
#define SOFTIWARP_CM_H

#include <rdma/iw_cm.h>

#include "mpa/mpa_startup.h"
#include "dev/softiwarp.h"

extern const struct attribute_group swi_cm_attr_group;

void swi_cm_knobs_init(struct swi_cm_knobs *k);
void swi_cm_policy(const struct swi_cm_knobs *k, bool initiator,
		   struct mpa_startup_policy *pol);
unsigned int swi_cm_timeout_ms(void);
unsigned int swi_cm_set_timeout_ms(unsigned int ms);

int swi_cm_connect(struct iw_cm_id *id, struct iw_cm_conn_param *p);
int swi_cm_accept(struct iw_cm_id *id, struct iw_cm_conn_param *p);
int swi_cm_reject(struct iw_cm_id *id, const void *pdata, u8 len);
int swi_cm_create_listen(struct iw_cm_id *id, int backlog);
int swi_cm_destroy_listen(struct iw_cm_id *id);
void swi_cm_orphans_release(struct swi_device *dev);
bool swi_cm_qp_changed(struct swi_cep *cep, enum rdmap_qps old,
		       enum rdmap_qps new);
void swi_cm_debugfs_add(struct swi_device *dev);
int swi_cm_init(void);
void swi_cm_exit(void);

#endif /* SOFTIWARP_CM_H */
