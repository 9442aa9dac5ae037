// SPDX-License-Identifier: GPL-2.0
/*
 * DOC: MPA startup policy
 *
 * Module parameters give the defaults, RFC 5044 and RFC 6581 ones: CRCs
 * requested (RFC 5044 section 4.4), Markers not requested but sent
 * whenever the peer asks, revision 2 with IRD/ORD, RFC 6581 peer-to-peer
 * mode offered as initiator (so that a consumer whose responder sends
 * first does not wait forever on the responder's hold of RFC 5044 section
 * 7.1.2, as iw_cxgb4's peer2peer default does), revision 0 peers refused
 * unless permissive. The same knobs
 * exist per device in sysfs (/sys/class/infiniband/DEV/mpa_*): a value
 * written there overrides the module default for new connections of that
 * device; -1 returns to the default. The device's group also holds
 * rfc7306 (dev/device.c), RFC 7306's switch, which is not an MPA policy.
 */
#include <linux/device.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/sysfs.h>

#include "cm/cm.h"
#include "dev/softiwarp.h"

static bool mpa_crc = true;
module_param(mpa_crc, bool, 0644);
MODULE_PARM_DESC(mpa_crc, "Request MPA CRCs (RFC 5044 section 4.4; default: on)");

static bool mpa_markers;
module_param(mpa_markers, bool, 0644);
MODULE_PARM_DESC(mpa_markers,
		 "Request MPA Markers from the peer (default: off; sent whenever the peer asks)");

static uint mpa_rev = MPA_REV_2;
module_param(mpa_rev, uint, 0644);
MODULE_PARM_DESC(mpa_rev, "MPA revision to initiate with: 1 (RFC 5044) or 2 (RFC 6581, default); a responder answers either in kind");

static bool mpa_p2p = true;
module_param(mpa_p2p, bool, 0644);
MODULE_PARM_DESC(mpa_p2p,
		 "RFC 6581 peer-to-peer mode: initiator offers it and sends a Ready-To-Receive message (default: on)");

static bool mpa_permissive;
module_param(mpa_permissive, bool, 0644);
MODULE_PARM_DESC(mpa_permissive,
		 "Accept revision 0 (RDMAC) peers per RFC 5044 Appendix C (default: off)");

static uint mpa_timeout_ms = 10000;
module_param(mpa_timeout_ms, uint, 0644);
MODULE_PARM_DESC(mpa_timeout_ms,
		 "Time to wait for the TCP connection and the MPA Request or Reply, in ms (default: 10000)");

/**
 * swi_cm_timeout_ms() - the MPA startup timeout
 *
 * Context: any context.
 * Return: milliseconds, at least 100.
 */
unsigned int swi_cm_timeout_ms(void)
{
	return max(READ_ONCE(mpa_timeout_ms), 100U);
}

#if IS_ENABLED(CONFIG_KUNIT)
/**
 * swi_cm_set_timeout_ms() - set the MPA startup timeout (KUnit only)
 * @ms: the new value of the mpa_timeout_ms module parameter
 *
 * Lets a test shorten the timeout for its connections and put the old
 * value back when it ends; the rest of the module reads the parameter
 * through swi_cm_timeout_ms() only.
 *
 * Context: any context.
 * Return: the previous value.
 */
unsigned int swi_cm_set_timeout_ms(unsigned int ms)
{
	return xchg(&mpa_timeout_ms, ms);
}
EXPORT_SYMBOL_IF_KUNIT(swi_cm_set_timeout_ms);
#endif

/**
 * swi_cm_knobs_init() - a device's knobs, all at the module defaults
 * @k: the knobs
 *
 * Context: any context.
 * Return: nothing.
 */
void swi_cm_knobs_init(struct swi_cm_knobs *k)
{
	k->crc = SWI_KNOB_DEFAULT;
	k->markers = SWI_KNOB_DEFAULT;
	k->rev = SWI_KNOB_DEFAULT;
	k->p2p = SWI_KNOB_DEFAULT;
	k->permissive = SWI_KNOB_DEFAULT;
}

static int swi_knob(const int *knob, int dflt)
{
	int v = READ_ONCE(*knob);

	return v == SWI_KNOB_DEFAULT ? dflt : v;
}

/**
 * swi_cm_policy() - the startup policy for a new connection
 * @k: the device's knobs
 * @initiator: we connect (else we accept)
 * @pol: filled in; IRD and ORD at the device maxima (the caller lowers them
 *	to what the consumer asks)
 *
 * As initiator we offer a zero-length RDMA Write as RTR; as responder we
 * take a Write or a Read RTR (a Send RTR would consume a receive the
 * consumer posted).
 *
 * Context: any context.
 * Return: nothing.
 */
void swi_cm_policy(const struct swi_cm_knobs *k, bool initiator,
		   struct mpa_startup_policy *pol)
{
	int rev = swi_knob(&k->rev, READ_ONCE(mpa_rev));

	memset(pol, 0, sizeof(*pol));
	pol->rev = clamp(rev, MPA_REV_1, MPA_REV_2);
	pol->crc = swi_knob(&k->crc, READ_ONCE(mpa_crc));
	pol->markers_rx = swi_knob(&k->markers, READ_ONCE(mpa_markers));
	pol->permissive = swi_knob(&k->permissive, READ_ONCE(mpa_permissive));
	pol->p2p = swi_knob(&k->p2p, READ_ONCE(mpa_p2p));
	pol->rtr = initiator ? MPA_RTR_WRITE : MPA_RTR_WRITE | MPA_RTR_READ;
	pol->ird = SWI_MAX_IRD;
	pol->ord = SWI_MAX_ORD;
}

static struct swi_cm_knobs *swi_dev_knobs(struct device *d)
{
	return &rdma_device_to_drv_device(d, struct swi_device, ibdev)->knobs;
}

/* The knob an attribute stands for, and its largest value */
static int *swi_knob_of(struct device *d, struct device_attribute *a,
			int *max);

static ssize_t swi_knob_show(struct device *d, struct device_attribute *a,
			     char *buf)
{
	int max;

	return sysfs_emit(buf, "%d\n", READ_ONCE(*swi_knob_of(d, a, &max)));
}

static ssize_t swi_knob_store(struct device *d, struct device_attribute *a,
			      const char *buf, size_t len)
{
	int max, v, err = kstrtoint(buf, 0, &v);
	int *knob = swi_knob_of(d, a, &max);

	if (err)
		return err;
	if (v != SWI_KNOB_DEFAULT && (v < 0 || v > max ||
				      (knob == &swi_dev_knobs(d)->rev && !v)))
		return -EINVAL;
	WRITE_ONCE(*knob, v);
	return len;
}

static struct device_attribute dev_attr_mpa_crc =
	__ATTR(mpa_crc, 0644, swi_knob_show, swi_knob_store);
static struct device_attribute dev_attr_mpa_markers =
	__ATTR(mpa_markers, 0644, swi_knob_show, swi_knob_store);
static struct device_attribute dev_attr_mpa_rev =
	__ATTR(mpa_rev, 0644, swi_knob_show, swi_knob_store);
static struct device_attribute dev_attr_mpa_p2p =
	__ATTR(mpa_p2p, 0644, swi_knob_show, swi_knob_store);
static struct device_attribute dev_attr_mpa_permissive =
	__ATTR(mpa_permissive, 0644, swi_knob_show, swi_knob_store);

static int *swi_knob_of(struct device *d, struct device_attribute *a,
			int *max)
{
	struct swi_cm_knobs *k = swi_dev_knobs(d);

	*max = 1;
	if (a == &dev_attr_mpa_markers)
		return &k->markers;
	if (a == &dev_attr_mpa_p2p)
		return &k->p2p;
	if (a == &dev_attr_mpa_permissive)
		return &k->permissive;
	if (a == &dev_attr_mpa_rev) {
		*max = MPA_REV_2;
		return &k->rev;
	}
	return &k->crc;
}

static struct attribute *swi_cm_attrs[] = {
	&dev_attr_mpa_crc.attr,
	&dev_attr_mpa_markers.attr,
	&dev_attr_mpa_rev.attr,
	&dev_attr_mpa_p2p.attr,
	&dev_attr_mpa_permissive.attr,
	&swi_dev_attr_rfc7306.attr,	/* dev/device.c: RFC 7306 */
	NULL
};

const struct attribute_group swi_cm_attr_group = {
	.attrs = swi_cm_attrs,
};
