// SPDX-License-Identifier: GPL-2.0
/*
 * DOC: the device's statistics
 *
 * Per-device counters of what the data path and the connection manager
 * did (enum swi_counter), kept per CPU (struct swi_counters says why) and
 * handed to the IB core as the port's hardware counters: "rdma statistic
 * show link DEV/1" and /sys/class/infiniband/DEV/ports/1/hw_counters/
 * show them. Documentation/counters.rst says when each one moves.
 */
#include <rdma/ib_verbs.h>

#include "dev/softiwarp.h"

/* Names as rdma statistic and sysfs show them, by enum swi_counter */
static const struct rdma_stat_desc swi_stat_descs[] = {
	[SWI_CNT_TX_FPDUS] = { .name = "tx_fpdus" },
	[SWI_CNT_RX_FPDUS] = { .name = "rx_fpdus" },
	[SWI_CNT_TX_OCTETS] = { .name = "tx_octets" },
	[SWI_CNT_RX_OCTETS] = { .name = "rx_octets" },
	[SWI_CNT_RX_CRC_ERRORS] = { .name = "rx_crc_errors" },
	[SWI_CNT_TX_MARKERS] = { .name = "tx_markers" },
	[SWI_CNT_RX_MARKERS] = { .name = "rx_markers" },
	[SWI_CNT_TX_TERM_RDMAP] = { .name = "tx_terminate_rdmap" },
	[SWI_CNT_TX_TERM_DDP] = { .name = "tx_terminate_ddp" },
	[SWI_CNT_TX_TERM_LLP] = { .name = "tx_terminate_llp" },
	[SWI_CNT_RX_TERM_RDMAP] = { .name = "rx_terminate_rdmap" },
	[SWI_CNT_RX_TERM_DDP] = { .name = "rx_terminate_ddp" },
	[SWI_CNT_RX_TERM_LLP] = { .name = "rx_terminate_llp" },
	[SWI_CNT_TX_MPA_REJECTS] = { .name = "tx_mpa_rejects" },
	[SWI_CNT_RX_MPA_REJECTS] = { .name = "rx_mpa_rejects" },
	[SWI_CNT_MPA_TIMEOUTS] = { .name = "mpa_timeouts" },
	[SWI_CNT_CONN_ESTABLISHED] = { .name = "conn_established" },
	[SWI_CNT_CONN_FAILED] = { .name = "conn_failed" },
	[SWI_CNT_WR_FLUSHED] = { .name = "wr_flushed" },
	[SWI_CNT_CQ_OVERFLOWS] = { .name = "cq_overflows" },
};

static_assert(ARRAY_SIZE(swi_stat_descs) == SWI_CNT_MAX);

/* The Terminate counters, by direction (received, sent) and Layer field */
static const u8 swi_term_counters[2][TERM_LAYER_LLP + 1] = {
	{
		[TERM_LAYER_RDMAP] = SWI_CNT_RX_TERM_RDMAP,
		[TERM_LAYER_DDP] = SWI_CNT_RX_TERM_DDP,
		[TERM_LAYER_LLP] = SWI_CNT_RX_TERM_LLP,
	}, {
		[TERM_LAYER_RDMAP] = SWI_CNT_TX_TERM_RDMAP,
		[TERM_LAYER_DDP] = SWI_CNT_TX_TERM_DDP,
		[TERM_LAYER_LLP] = SWI_CNT_TX_TERM_LLP,
	},
};

/**
 * swi_counters_alloc() - give a new device its counters, all zero
 * @dev: the device, not yet registered
 *
 * Context: process context; may sleep.
 * Return: 0 or -ENOMEM.
 */
int swi_counters_alloc(struct swi_device *dev)
{
	dev->counters = alloc_percpu(struct swi_counters);
	return dev->counters ? 0 : -ENOMEM;
}

/**
 * swi_counters_free() - free a device's counters
 * @dev: the device, unregistered (nothing counts any more)
 *
 * Context: process context.
 * Return: nothing.
 */
void swi_counters_free(struct swi_device *dev)
{
	free_percpu(dev->counters);
	dev->counters = NULL;
}

/**
 * swi_counter_read() - the current value of one counter
 * @dev: the device
 * @c: which counter
 *
 * Context: any context; a snapshot (see struct swi_counters).
 * Return: the sum over every possible CPU.
 */
u64 swi_counter_read(struct swi_device *dev, enum swi_counter c)
{
	u64 sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += READ_ONCE(per_cpu_ptr(dev->counters, cpu)->v[c]);
	return sum;
}
EXPORT_SYMBOL_IF_KUNIT(swi_counter_read);

/**
 * swi_qp_count_term() - count a Terminate by the layer it names
 * @qp: the QP whose stream sent or received it
 * @sent: we sent it (else we received it)
 * @layer: the Layer field of its Terminate Control (TERM_LAYER_*)
 *
 * A Layer value RFC 5040 does not define (only a peer can send one) is
 * counted as RDMAP, the layer whose header carries it.
 *
 * Context: any context.
 * Return: nothing.
 */
void swi_qp_count_term(struct swi_qp *qp, bool sent, u8 layer)
{
	if (layer > TERM_LAYER_LLP)
		layer = TERM_LAYER_RDMAP;
	swi_count(qp->dev, swi_term_counters[sent][layer]);
}

/**
 * swi_qp_count_tx() - count a batch of FPDUs the socket took
 * @qp: the QP whose stream sent them
 * @fpdus: FPDUs in the batch
 * @octets: their octets on the wire, MPA framing included
 * @markers: Markers among those octets
 *
 * Context: any context; does not sleep.
 * Return: nothing.
 */
void swi_qp_count_tx(struct swi_qp *qp, u32 fpdus, u32 octets, u32 markers)
{
	struct swi_device *dev = qp->dev;

	swi_count_add(dev, SWI_CNT_TX_FPDUS, fpdus);
	swi_count_add(dev, SWI_CNT_TX_OCTETS, octets);
	if (markers)
		swi_count_add(dev, SWI_CNT_TX_MARKERS, markers);
}

/**
 * swi_qp_count_rx() - count one FPDU received
 * @qp: the QP whose stream received it
 * @crc_error: its CRC was wrong
 * @octets: its octets, MPA framing included; 0 when the checker stopped
 *	it and it was never read
 * @markers: Markers among them
 *
 * Context: any context; does not sleep.
 * Return: nothing.
 */
void swi_qp_count_rx(struct swi_qp *qp, bool crc_error, u32 octets,
		     u32 markers)
{
	struct swi_device *dev = qp->dev;

	swi_count(dev, SWI_CNT_RX_FPDUS);
	if (crc_error)
		swi_count(dev, SWI_CNT_RX_CRC_ERRORS);
	if (octets)
		swi_count_add(dev, SWI_CNT_RX_OCTETS, octets);
	if (markers)
		swi_count_add(dev, SWI_CNT_RX_MARKERS, markers);
}

/**
 * swi_alloc_hw_port_stats() - the device op that describes the counters
 * @ibdev: the device
 * @port: its port (there is one)
 *
 * The IB core frees the result when the device goes away.
 *
 * Context: process context.
 * Return: the counters' descriptions with room for their values, or NULL.
 */
struct rdma_hw_stats *swi_alloc_hw_port_stats(struct ib_device *ibdev,
					      u32 port)
{
	/* KUnit: inside the registration, where the device is not pinnable */
	swi_newlink_step(to_swi_dev(ibdev)->netdev, false);
	return rdma_alloc_hw_stats_struct(swi_stat_descs, SWI_CNT_MAX,
					  RDMA_HW_STATS_DEFAULT_LIFESPAN);
}

/**
 * swi_get_hw_stats() - the device op that reads the counters
 * @ibdev: the device
 * @stats: from swi_alloc_hw_port_stats()
 * @port: the port
 * @index: the counter asked for; every one is filled in anyway
 *
 * Context: process context, under @stats->lock (the IB core's).
 * Return: the number of counters, all of them updated.
 */
int swi_get_hw_stats(struct ib_device *ibdev, struct rdma_hw_stats *stats,
		     u32 port, int index)
{
	struct swi_device *dev = to_swi_dev(ibdev);
	int i;

	for (i = 0; i < stats->num_counters && i < SWI_CNT_MAX; i++)
		stats->value[i] = swi_counter_read(dev, i);
	return stats->num_counters;
}
