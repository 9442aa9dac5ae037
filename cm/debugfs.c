// SPDX-License-Identifier: GPL-2.0
/*
 * DOC: the connections file
 *
 * softiwarp/DEV/connections in debugfs: one line per connected QP of the
 * device, with the negotiated MPA parameters and the RFC 8797 private data
 * of either side.
 */
#include <linux/debugfs.h>
#include <linux/seq_file.h>

#include "cm/cep.h"

static void swi_cm_show_rpc(struct seq_file *m, const char *who,
			    const struct swi_cm_rpc *r)
{
	if (!r->present) {
		seq_printf(m, " rpcrdma_%s=none", who);
		return;
	}
	seq_printf(m, " rpcrdma_%s=v1,send=%u,recv=%u,remote_inv=%d", who,
		   r->p.send_size, r->p.recv_size, r->p.remote_inv);
}

static void swi_cm_show_cep(struct swi_qp *qp, struct swi_cep *cep,
			    void *arg)
{
	const struct mpa_startup_result *r = &cep->res;
	struct seq_file *m = arg;

	seq_printf(m, "qp %u %s rev %u crc tx/rx %d/%d markers tx/rx %d/%d ird %u ord %u p2p %d",
		   qp->base.qp_num, cep->initiator ? "initiator" : "responder",
		   r->rev, r->crc_tx, r->crc_rx, r->markers_tx, r->markers_rx,
		   r->ird, r->ord, r->p2p);
	swi_cm_show_rpc(m, "peer", &cep->rpc_peer);
	swi_cm_show_rpc(m, "ours", &cep->rpc_ours);
	seq_putc(m, '\n');
}

/* One line per connected QP of the device */
static int swi_cm_conn_show(struct seq_file *m, void *unused)
{
	swi_qp_walk_conns(m->private, swi_cm_show_cep, m);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(swi_cm_conn);

/**
 * swi_cm_debugfs_add() - the connection manager's file in a device's directory
 * @dev: the registered device, its debugfs directory made (dev/device.c)
 *
 * softiwarp/DEV/connections lists every connected QP: the negotiated MPA
 * parameters and the RFC 8797 private data of either side, if any.
 *
 * Context: process context.
 * Return: nothing (debugfs failures are not errors).
 */
void swi_cm_debugfs_add(struct swi_device *dev)
{
	debugfs_create_file("connections", 0400, dev->debugfs, dev,
			    &swi_cm_conn_fops);
}
