/* SPDX-License-Identifier: GPL-2.0 */
/*
 * DOC: the connection manager behind iw_cm
 *
 * cm/cm.c implements the iw_cm provider operations on kernel TCP sockets:
 * MPA startup (RFC 5044 section 7.1, RFC 6581), then the QP takes the
 * socket over in Full Operation (swi_qp_attach()). cm/policy.c holds the
 * startup policy: module parameters with the RFC defaults and the same
 * knobs per device in sysfs. See Documentation/cm.rst.
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
bool swi_cm_qp_changed(struct swi_cep *cep, enum rdmap_qps old,
		       enum rdmap_qps new);
void swi_cm_debugfs_add(struct swi_device *dev);
int swi_cm_init(void);
void swi_cm_exit(void);

#endif /* SOFTIWARP_CM_H */
