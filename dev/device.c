// SPDX-License-Identifier: GPL-2.0
/*
 * DOC: device registration, netdev events, device-level verbs
 *
 * "rdma link add NAME type softiwarp netdev DEV" creates one struct
 * swi_device per netdev (a second one on the same netdev is refused with
 * -EEXIST); "rdma link delete NAME", the netdev going away and module
 * unload remove it. The module's device list (swi_dev_list) is protected by
 * swi_dev_mutex. That mutex is never held across ib_register_device() or an
 * unregistration, which take locks of their own (and the netdev notifier
 * runs under RTNL): a device is looked up under the mutex, pinned with
 * ib_device_try_get(), and acted upon after the mutex is dropped.
 *
 * Unregistration after NETDEV_UNREGISTER runs on the module's own
 * workqueue, so that module unload can wait for it without touching the
 * devices of other drivers that share RDMA_DRIVER_SIW (the in-tree siw).
 * A netdev moving to another network namespace is unregistered from the
 * old one first, and its device goes with it: the device's sockets are in
 * the old namespace. In exclusive netns mode a new device is registered in
 * its netdev's namespace (swi_dev_home()); Documentation/admin-guide.rst,
 * "Containers".
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/etherdevice.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/rtnetlink.h>
#include <linux/seq_file.h>
#include <linux/sysfs.h>
#include <linux/vmalloc.h>
#include <net/addrconf.h>
#include <net/net_namespace.h>
#include <rdma/ib_mad.h>
#include <rdma/rdma_netlink.h>
#include <rdma/uverbs_ioctl.h>

#include "cm/cm.h"
#include "dev/softiwarp.h"

static LIST_HEAD(swi_dev_list);
static DEFINE_MUTEX(swi_dev_mutex);
static struct workqueue_struct *swi_unreg_wq;
/* softiwarp/ in debugfs: the module's files, a directory per device */
static struct dentry *swi_debugfs_root;

/**
 * struct swi_unreg_work - unregister one device after its netdev left
 * @work: on swi_unreg_wq
 * @dev: the device, pinned with ib_device_try_get()
 */
struct swi_unreg_work {
	struct work_struct work;
	struct swi_device *dev;
};

/* Find the device bound to @netdev and pin it. */
static struct swi_device *swi_dev_get_by_netdev(struct net_device *netdev)
{
	struct swi_device *dev, *found = NULL;

	mutex_lock(&swi_dev_mutex);
	list_for_each_entry(dev, &swi_dev_list, list) {
		if (dev->netdev == netdev && ib_device_try_get(&dev->ibdev)) {
			found = dev;
			break;
		}
	}
	mutex_unlock(&swi_dev_mutex);
	return found;
}

static bool swi_port_active(struct net_device *netdev)
{
	return netif_running(netdev) && netif_carrier_ok(netdev);
}

/* Device-level verbs */

/*
 * SWI_VERSION (the release, "MAJOR.MINOR.PATCH") as
 * the raw firmware version libsiw prints: 16 bits each, from bit 32 down.
 */
static u64 swi_fw_ver(void)
{
	unsigned int v[3] = {};

	if (sscanf(SWI_VERSION, "%u.%u.%u", &v[0], &v[1], &v[2]) < 1)
		return 0;
	return (u64)(v[0] & 0xffff) << 32 | (v[1] & 0xffff) << 16 |
	       (v[2] & 0xffff);
}

static void swi_get_dev_fw_str(struct ib_device *ibdev, char *str)
{
	snprintf(str, IB_FW_VERSION_NAME_MAX, "%s", SWI_VERSION);
}

static void swi_fill_device_attr(struct swi_device *dev,
				 struct ib_device_attr *a)
{
	memset(a, 0, sizeof(*a));
	a->fw_ver = swi_fw_ver();
	a->vendor_id = SWI_VENDOR_ID;
	a->vendor_part_id = SWI_VENDOR_PART_ID;
	a->sys_image_guid = dev->ibdev.node_guid;
	a->max_mr_size = U64_MAX;	/* the DMA MR spans all addresses */
	a->page_size_cap = SWI_PAGE_SIZE_CAP;
	a->max_qp = SWI_MAX_QP;
	a->max_qp_wr = SWI_MAX_QP_WR;
	a->device_cap_flags = IB_DEVICE_MEM_MGT_EXTENSIONS;
	a->kernel_cap_flags = IBK_ALLOW_USER_UNREG;
	a->max_send_sge = SWI_MAX_SGE;
	a->max_recv_sge = SWI_MAX_SGE;
	a->max_sge_rd = SWI_MAX_SGE_RD;
	a->max_cq = SWI_MAX_CQ;
	a->max_cqe = SWI_MAX_CQE;
	a->max_mr = SWI_MAX_MR;
	a->max_pd = SWI_MAX_PD;
	/* as responder: the IRD; as initiator: the ORD */
	a->max_qp_rd_atom = SWI_MAX_IRD;
	a->max_qp_init_rd_atom = SWI_MAX_ORD;
	a->max_res_rd_atom = SWI_MAX_IRD * SWI_MAX_QP;
	a->max_srq = SWI_MAX_SRQ;
	a->max_srq_wr = SWI_MAX_SRQ_WR;
	a->max_srq_sge = SWI_MAX_SGE;
	a->max_fast_reg_page_list_len = SWI_MAX_FRMR_PAGES;
	a->max_pkeys = 1;
	/*
	 * RFC 7306 atomics, for kernel QPs: atomic with respect to every
	 * other atomic of the device (section 5.3), which is IB_ATOMIC_HCA.
	 * They share the ORD and IRD with the Reads (max_qp_rd_atom). The
	 * core reads these attributes once, at registration (then
	 * swi_dev_set_ext() keeps its copy true), and user space sees them
	 * too (the core's own query and uverbs' cannot be told apart),
	 * although libsiw refuses to post an atomic.
	 */
	if (READ_ONCE(dev->ext)) {
		a->atomic_cap = IB_ATOMIC_HCA;
		a->masked_atomic_cap = IB_ATOMIC_HCA;
	}
}

/*
 * debugfs softiwarp/DEV/limits: the limits the verbs enforce, named and
 * formatted as ibv_devinfo -v prints them, written from the constants and
 * not from swi_fill_device_attr(), so that a test can compare the two.
 */
static int swi_limits_show(struct seq_file *m, void *unused)
{
	static const struct {
		const char *name;
		u64 val;
		bool hex;
	} l[] = {
		{ "max_mr_size", U64_MAX, true },
		{ "page_size_cap", SWI_PAGE_SIZE_CAP, true },
		{ "max_qp", SWI_MAX_QP }, { "max_qp_wr", SWI_MAX_QP_WR },
		{ "max_sge", SWI_MAX_SGE }, { "max_sge_rd", SWI_MAX_SGE_RD },
		{ "max_cq", SWI_MAX_CQ }, { "max_cqe", SWI_MAX_CQE },
		{ "max_mr", SWI_MAX_MR }, { "max_pd", SWI_MAX_PD },
		{ "max_qp_rd_atom", SWI_MAX_IRD },
		{ "max_res_rd_atom", SWI_MAX_IRD * SWI_MAX_QP },
		{ "max_qp_init_rd_atom", SWI_MAX_ORD },
		{ "max_srq", SWI_MAX_SRQ }, { "max_srq_wr", SWI_MAX_SRQ_WR },
		{ "max_srq_sge", SWI_MAX_SGE }, { "max_pkeys", 1 },
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(l); i++)
		seq_printf(m, l[i].hex ? "%s 0x%llx\n" : "%s %llu\n",
			   l[i].name, l[i].val);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(swi_limits);

/**
 * swi_dev_set_ext() - switch RFC 7306's extensions of a device
 * @dev: the device
 * @on: the new value of its switch
 *
 * For the kernel QPs created from now on (a QP keeps what it was created
 * with) and for the attributes: the core's copy of atomic_cap and
 * masked_atomic_cap, which it took at registration and ULPs and uverbs
 * read, changes with it, so that the device never advertises what its
 * new QPs refuse. A ULP that read them before keeps what it read; its
 * QPs created after the switch refuse atomics at post time (-EOPNOTSUPP).
 *
 * Context: process context (sysfs store, KUnit).
 * Return: nothing.
 */
void swi_dev_set_ext(struct swi_device *dev, bool on)
{
	enum ib_atomic_cap cap = on ? IB_ATOMIC_HCA : IB_ATOMIC_NONE;

	WRITE_ONCE(dev->ext, on);
	WRITE_ONCE(dev->ibdev.attrs.atomic_cap, cap);
	WRITE_ONCE(dev->ibdev.attrs.masked_atomic_cap, cap);
}
EXPORT_SYMBOL_IF_KUNIT(swi_dev_set_ext);

static ssize_t rfc7306_show(struct device *d, struct device_attribute *a,
			    char *buf)
{
	struct swi_device *dev =
		rdma_device_to_drv_device(d, struct swi_device, ibdev);

	return sysfs_emit(buf, "%d\n", READ_ONCE(dev->ext));
}

static ssize_t rfc7306_store(struct device *d, struct device_attribute *a,
			     const char *buf, size_t len)
{
	struct swi_device *dev =
		rdma_device_to_drv_device(d, struct swi_device, ibdev);
	bool on;
	int err = kstrtobool(buf, &on);

	if (err)
		return err;
	swi_dev_set_ext(dev, on);
	return len;
}

/* sysfs rfc7306 of a device, in the device's group (cm/policy.c) */
struct device_attribute swi_dev_attr_rfc7306 = __ATTR_RW(rfc7306);

static int swi_query_device(struct ib_device *ibdev,
			    struct ib_device_attr *attr,
			    struct ib_udata *udata)
{
	if (udata && (udata->inlen || udata->outlen))
		return -EINVAL;
	swi_fill_device_attr(to_swi_dev(ibdev), attr);
	return 0;
}

static int swi_query_port(struct ib_device *ibdev, u32 port,
			  struct ib_port_attr *attr)
{
	struct net_device *netdev = to_swi_dev(ibdev)->netdev;
	bool up = swi_port_active(netdev);
	int err;

	/* The core zeroed @attr. */
	err = ib_get_eth_speed(ibdev, port, &attr->active_speed,
			       &attr->active_width);
	if (err)
		return err;
	attr->state = up ? IB_PORT_ACTIVE : IB_PORT_DOWN;
	attr->phys_state = up ? IB_PORT_PHYS_STATE_LINK_UP :
				IB_PORT_PHYS_STATE_DISABLED;
	attr->max_mtu = ib_mtu_int_to_enum(READ_ONCE(netdev->mtu));
	attr->active_mtu = attr->max_mtu;
	attr->gid_tbl_len = 1;
	attr->pkey_tbl_len = 1;
	attr->max_msg_sz = U32_MAX;
	attr->port_cap_flags = IB_PORT_CM_SUP | IB_PORT_DEVICE_MGMT_SUP;
	return 0;
}

static int swi_get_port_immutable(struct ib_device *ibdev, u32 port,
				  struct ib_port_immutable *imm)
{
	imm->gid_tbl_len = 1;
	imm->pkey_tbl_len = 1;
	imm->core_cap_flags = RDMA_CORE_PORT_IWARP;
	return 0;
}

/* iWARP has no GID table: the one GID carries the netdev's MAC address. */
static int swi_query_gid(struct ib_device *ibdev, u32 port, int index,
			 union ib_gid *gid)
{
	struct net_device *netdev = to_swi_dev(ibdev)->netdev;

	if (index)
		return -EINVAL;
	memset(gid, 0, sizeof(*gid));
	memcpy(gid->raw, netdev->dev_addr,
	       min_t(unsigned int, netdev->addr_len, ETH_ALEN));
	return 0;
}

static int swi_query_pkey(struct ib_device *ibdev, u32 port, u16 index,
			  u16 *pkey)
{
	*pkey = 0xffff;
	return 0;
}

/* Contexts, PDs and queue mappings */

static int swi_alloc_ucontext(struct ib_ucontext *uctx, struct ib_udata *udata)
{
	struct swi_device *dev = to_swi_dev(uctx->device);
	struct siw_uresp_alloc_ctx resp = { .dev_id = dev->ibdev.index };
	int err;

	if (atomic_inc_return(&dev->num_ctx) > SWI_MAX_CONTEXT) {
		err = -ENOMEM;
		goto out_dec;
	}
	if (udata->outlen < sizeof(resp)) {
		err = -EINVAL;
		goto out_dec;
	}
	err = ib_copy_to_udata(udata, &resp, sizeof(resp));
	if (err)
		goto out_dec;
	return 0;

out_dec:
	atomic_dec(&dev->num_ctx);
	return err;
}

static void swi_dealloc_ucontext(struct ib_ucontext *uctx)
{
	atomic_dec(&to_swi_dev(uctx->device)->num_ctx);
}

static int swi_alloc_pd(struct ib_pd *pd, struct ib_udata *udata)
{
	struct swi_device *dev = to_swi_dev(pd->device);

	if (atomic_inc_return(&dev->num_pd) > SWI_MAX_PD) {
		atomic_dec(&dev->num_pd);
		return -ENOMEM;
	}
	return 0;
}

static int swi_dealloc_pd(struct ib_pd *pd, struct ib_udata *udata)
{
	atomic_dec(&to_swi_dev(pd->device)->num_pd);
	return 0;
}

/*
 * The device goes away (rdma link delete, rmmod, netdev removal) while a
 * process holds a user context. Offering this op lets the core destroy
 * the context's objects through the ordinary destroy verbs right away,
 * instead of waiting until every process has closed the device. Nothing
 * is left to do here: the rings stay mapped in the processes (their pages
 * are pinned by the mappings, and nothing in the kernel reads them once
 * the QPs and CQs are destroyed), and every later verb call fails with
 * EIO in the core.
 */
static void swi_disassociate_ucontext(struct ib_ucontext *uctx)
{
}

static void swi_dealloc_driver(struct ib_device *ibdev)
{
	struct swi_device *dev = to_swi_dev(ibdev);

	debugfs_remove(dev->debugfs);
	dev->debugfs = NULL;
	swi_cm_orphans_release(dev);	/* unregistered: no iw_cm_id is left */
	mutex_lock(&swi_dev_mutex);
	list_del_init(&dev->list);
	mutex_unlock(&swi_dev_mutex);
	swi_rdmap_mem_table_destroy(&dev->mem);
	xa_destroy(&dev->qp_xa);
	swi_counters_free(dev);
	netdev_put(dev->netdev, &dev->netdev_tracker);
}

static const struct ib_device_ops swi_device_ops = {
	.owner = THIS_MODULE,
	.driver_id = RDMA_DRIVER_SIW,
	.uverbs_abi_ver = SIW_ABI_VERSION,

	.alloc_hw_port_stats = swi_alloc_hw_port_stats,
	.alloc_pd = swi_alloc_pd,
	.alloc_ucontext = swi_alloc_ucontext,
	.alloc_mr = swi_alloc_mr,
	.create_cq = swi_create_cq,
	.create_qp = swi_create_qp,
	.create_srq = swi_create_srq,
	.dealloc_driver = swi_dealloc_driver,
	.dealloc_pd = swi_dealloc_pd,
	.dealloc_ucontext = swi_dealloc_ucontext,
	.disassociate_ucontext = swi_disassociate_ucontext,
	.device_group = &swi_cm_attr_group,
	.dereg_mr = swi_dereg_mr,
	.destroy_cq = swi_destroy_cq,
	.destroy_qp = swi_destroy_qp,
	.destroy_srq = swi_destroy_srq,
	.fill_res_cq_entry = swi_fill_res_cq_entry,
	.fill_res_mr_entry = swi_fill_res_mr_entry,
	.fill_res_qp_entry = swi_fill_res_qp_entry,
	.get_dev_fw_str = swi_get_dev_fw_str,
	.get_dma_mr = swi_get_dma_mr,
	.get_hw_stats = swi_get_hw_stats,
	.get_port_immutable = swi_get_port_immutable,
	.iw_accept = swi_cm_accept,
	.iw_add_ref = swi_qp_iw_add_ref,
	.iw_connect = swi_cm_connect,
	.iw_create_listen = swi_cm_create_listen,
	.iw_destroy_listen = swi_cm_destroy_listen,
	.iw_get_qp = swi_get_qp,
	.iw_reject = swi_cm_reject,
	.iw_rem_ref = swi_qp_put,
	.map_mr_sg = swi_map_mr_sg,
	.mmap = swi_mmap,
	.mmap_free = swi_mmap_free,
	.modify_qp = swi_modify_qp,
	.modify_srq = swi_modify_srq,
	.poll_cq = swi_poll_cq,
	.post_recv = swi_post_recv,
	.post_send = swi_post_send,
	.post_srq_recv = swi_post_srq_recv,
	.query_device = swi_query_device,
	.query_gid = swi_query_gid,
	.query_pkey = swi_query_pkey,
	.query_port = swi_query_port,
	.query_qp = swi_query_qp,
	.query_srq = swi_query_srq,
	.reg_user_mr = SWI_REG_USER_MR,
	.req_notify_cq = swi_req_notify_cq,

	INIT_RDMA_OBJ_SIZE(ib_cq, swi_cq, base),
	INIT_RDMA_OBJ_SIZE(ib_pd, swi_pd, base),
	INIT_RDMA_OBJ_SIZE(ib_qp, swi_qp, base),
	INIT_RDMA_OBJ_SIZE(ib_srq, swi_srq, base),
	INIT_RDMA_OBJ_SIZE(ib_ucontext, swi_ucontext, base),
};

/* Registration */

static void swi_port_event(struct swi_device *dev, enum ib_event_type type)
{
	struct ib_event ev = {
		.device = &dev->ibdev,
		.element.port_num = 1,
		.event = type,
	};

	ib_dispatch_event(&ev);
}

static struct swi_device *swi_dev_alloc(struct net_device *netdev)
{
	struct swi_device *dev = ib_alloc_device(swi_device, ibdev);
	struct ib_device *ibdev;

	if (!dev)
		return NULL;
	ibdev = &dev->ibdev;
	INIT_LIST_HEAD(&dev->list);
	dev->netdev = netdev;
	netdev_hold(netdev, &dev->netdev_tracker, GFP_KERNEL);
	swi_rdmap_mem_table_init(&dev->mem);
	swi_cm_knobs_init(&dev->knobs);
	dev->ext = swi_qp_rfc7306();
	xa_init_flags(&dev->qp_xa, XA_FLAGS_ALLOC1);
	ib_set_device_ops(ibdev, &swi_device_ops);
	ibdev->node_type = RDMA_NODE_RNIC;
	/*
	 * The iWARP port mapper (iwpmd) must leave our ports alone: the
	 * connection manager binds kernel TCP sockets on the consumer's
	 * address and port itself, as TCP's own port space is shared.
	 */
	ibdev->iw_driver_flags = IW_F_NO_PORT_MAP;
	strscpy(ibdev->iw_ifname, netdev->name, sizeof(ibdev->iw_ifname));
	/* libsiw's doorbell is the legacy POST_SEND write, off by default */
	ibdev->uverbs_cmd_mask |= BIT_ULL(IB_USER_VERBS_CMD_POST_SEND);
	ibdev->phys_port_cnt = 1;
	ibdev->num_comp_vectors = num_possible_cpus();
	strscpy(ibdev->node_desc, "softiwarp", sizeof(ibdev->node_desc));
	if (netdev->addr_len == ETH_ALEN)
		addrconf_addr_eui48((u8 *)&ibdev->node_guid, netdev->dev_addr);
	return dev;
}

/* Put @dev on the list unless @netdev already has a device. */
static int swi_dev_list_add(struct swi_device *dev)
{
	struct swi_device *other;
	int err = 0;

	mutex_lock(&swi_dev_mutex);
	list_for_each_entry(other, &swi_dev_list, list) {
		if (other->netdev == dev->netdev) {
			err = -EEXIST;
			break;
		}
	}
	if (!err)
		list_add_tail(&dev->list, &swi_dev_list);
	mutex_unlock(&swi_dev_mutex);
	return err;
}

/*
 * In exclusive mode (ib_core netns_mode=0, "rdma system set netns
 * exclusive") a device lives in one network namespace, and the core puts a
 * new one in init_net. Put it in its netdev's namespace instead, where
 * "rdma link add" found the netdev: there its processes can use it and
 * its connections' sockets are. (In shared mode every namespace sees the
 * device and it stays in init_net.) The namespace is held across the
 * registration, so that it cannot be dismantled before the device is on
 * the core's list; its dismantling then moves the device to init_net,
 * and the netdev's unregistration removes it (swi_netdev_event()).
 * Return: the namespace, referenced, or NULL when it is being dismantled.
 */
static struct net *swi_dev_home(struct swi_device *dev)
{
	struct net *net = maybe_get_net(dev_net(dev->netdev));

	/* a new device is in init_net: not reachable from @net, exclusive */
	if (net && !rdma_dev_access_netns(&dev->ibdev, net))
		write_pnet(&dev->ibdev.coredev.rdma_net, net);
	return net;
}

/*
 * A registered device's debugfs files and first port event. Called with a
 * reference on the device: its dealloc_driver, which removes the files,
 * cannot run before it is dropped.
 */
static void swi_newlink_finish(struct swi_device *dev)
{
	dev->debugfs = debugfs_create_dir(dev_name(&dev->ibdev.dev),
					  swi_debugfs_root);
	debugfs_create_file("limits", 0444, dev->debugfs, NULL,
			    &swi_limits_fops);
	swi_cm_debugfs_add(dev);
	swi_port_event(dev, swi_port_active(dev->netdev) ?
			    IB_EVENT_PORT_ACTIVE : IB_EVENT_PORT_ERR);
}

/**
 * swi_newlink_step() - a point of newlink where a KUnit case may act
 * @netdev: the device's netdev
 * @registered: false from inside ib_register_device() (the port counters'
 *	allocation, after the core's port queries, while the device cannot
 *	be pinned yet), true once it returned
 *
 * Does nothing. A KUnit case replaces it (kunit_activate_static_stub(),
 * the kernel's static stubs: without CONFIG_KUNIT the redirection is
 * compiled out) to act while the device cannot be pinned yet, and in the
 * window between registration and the device's debugfs files and first
 * port event.
 *
 * Context: process context.
 * Return: nothing.
 */
void swi_newlink_step(struct net_device *netdev, bool registered)
{
	KUNIT_STATIC_STUB_REDIRECT(swi_newlink_step, netdev, registered);
}
EXPORT_SYMBOL_IF_KUNIT(swi_newlink_step);

static void swi_netdev_unregister(struct swi_device *dev);

/*
 * Whether @dev's netdev was unregistered, or moved out of @net, while the
 * device was being registered: its NETDEV_UNREGISTER came while the
 * device could not be pinned (swi_dev_get_by_netdev()) and was ignored.
 * Both run under RTNL: after this look, a later one finds the device.
 */
static bool swi_netdev_left(struct swi_device *dev, struct net *net)
{
	struct net_device *netdev = dev->netdev;
	bool left;

	rtnl_lock();
	left = netdev->reg_state != NETREG_REGISTERED ||
	       !net_eq(dev_net(netdev), net);
	rtnl_unlock();
	return left;
}

static int swi_newlink(const char *name, struct net_device *netdev)
{
	struct swi_device *dev;
	struct net *net;
	int err;

	dev = swi_dev_alloc(netdev);
	if (!dev)
		return -ENOMEM;
	err = swi_counters_alloc(dev);
	if (err)
		goto out_free;
	err = swi_dev_list_add(dev);
	if (err) {
		pr_info_ratelimited("%s already has a softiwarp device\n",
				    netdev_name(netdev));
		goto out_free;
	}
	err = ib_device_set_netdev(&dev->ibdev, netdev, 1);
	if (err)
		goto out_free;
	net = swi_dev_home(dev);
	if (!net) {
		err = -ENODEV;
		goto out_free;
	}
	/*
	 * Once registered, the netdev's NETDEV_UNREGISTER may unregister and
	 * free the device at any time (swi_netdev_event()): its memory is
	 * held across the call, and what follows runs only under a
	 * reference that makes such an unregistration wait for it.
	 */
	get_device(&dev->ibdev.dev);
	err = ib_register_device(&dev->ibdev, name, NULL);
	if (err) {
		put_net(net);
		put_device(&dev->ibdev.dev);
		goto out_free;
	}
	if (swi_netdev_left(dev, net))
		err = -ENODEV;
	put_net(net);
	swi_newlink_step(netdev, true);
	if (ib_device_try_get(&dev->ibdev)) {
		if (err) {
			/* as the missed NETDEV_UNREGISTER would have */
			swi_netdev_unregister(dev);
		} else {
			swi_newlink_finish(dev);
			ib_device_put(&dev->ibdev);
		}
	}
	put_device(&dev->ibdev.dev);
	return err;

out_free:
	/* Not registered: dealloc_driver undoes swi_dev_alloc(). */
	ib_dealloc_device(&dev->ibdev);
	return err;
}

/**
 * swi_device_add() - create a device the way "rdma link add" does
 * @name: the device name
 * @netdev: the netdev it runs over
 *
 * For in-kernel tests; users go through the rdma link type. The caller
 * removes the device with ib_unregister_device_and_put().
 *
 * Context: process context.
 * Return: the registered device, referenced, or an error pointer.
 */
struct ib_device *swi_device_add(const char *name, struct net_device *netdev)
{
	struct ib_device *ibdev;
	int err = swi_newlink(name, netdev);

	if (err)
		return ERR_PTR(err);
	/* the one softiwarp device of @netdev; siw's there has another name */
	ibdev = ib_device_get_by_netdev(netdev, RDMA_DRIVER_SIW);
	if (ibdev && strcmp(dev_name(&ibdev->dev), name)) {
		ib_device_put(ibdev);
		ibdev = NULL;
	}
	return ibdev ? ibdev : ERR_PTR(-ENODEV);
}
EXPORT_SYMBOL_IF_KUNIT(swi_device_add);

static struct rdma_link_ops swi_link_ops = {
	.type = "softiwarp",
	.newlink = swi_newlink,
};

/* Netdev events */

static void swi_unreg_work_fn(struct work_struct *work)
{
	struct swi_unreg_work *uw = container_of(work, struct swi_unreg_work,
						 work);

	ib_unregister_device_and_put(&uw->dev->ibdev);
	kfree(uw);
}

static void swi_netdev_unregister(struct swi_device *dev)
{
	struct swi_unreg_work *uw = kzalloc(sizeof(*uw), GFP_KERNEL);

	if (!uw) {
		/* Cannot defer: the device stays until module unload. */
		ib_device_put(&dev->ibdev);
		return;
	}
	INIT_WORK(&uw->work, swi_unreg_work_fn);
	uw->dev = dev;
	queue_work(swi_unreg_wq, &uw->work);
}

static int swi_netdev_event(struct notifier_block *nb, unsigned long event,
			    void *arg)
{
	struct net_device *netdev = netdev_notifier_info_to_dev(arg);
	struct swi_device *dev = swi_dev_get_by_netdev(netdev);

	if (!dev)
		return NOTIFY_DONE;
	switch (event) {
	case NETDEV_UNREGISTER:
		swi_netdev_unregister(dev);
		return NOTIFY_OK;	/* the work owns the reference */
	case NETDEV_UP:
	case NETDEV_DOWN:
	case NETDEV_CHANGE:
		swi_port_event(dev, swi_port_active(netdev) ?
				    IB_EVENT_PORT_ACTIVE : IB_EVENT_PORT_ERR);
		break;
	case NETDEV_CHANGEADDR:
		swi_port_event(dev, IB_EVENT_GID_CHANGE);
		break;
	}
	ib_device_put(&dev->ibdev);
	return NOTIFY_OK;
}

/*
 * A network namespace is dismantled. Our sockets (connections, listens,
 * startups) live in the namespace of their device's netdev and hold no
 * reference on it. By now every netdev has left it (the device exits run
 * before the subsystems'), and each one's NETDEV_UNREGISTER queued the
 * unregistration of its device; a netdev that was deleted waited for it,
 * one moved back to init_net (a physical netdev or VF) did not. Wait for
 * them all here: they close every socket the devices had, before TCP's
 * own exit and before the namespace is freed.
 */
static void __net_exit swi_net_exit(struct net *net)
{
	flush_workqueue(swi_unreg_wq);
}

/*
 * A subsystem's: it exits after the netdevs left, and before TCP's, which
 * was registered earlier
 */
static struct pernet_operations swi_net_ops = {
	.exit = swi_net_exit,
};

#if IS_ENABLED(CONFIG_KUNIT)
/**
 * swi_device_netdev_gone() - what NETDEV_UNREGISTER of @netdev does
 * @netdev: the netdev
 *
 * KUnit only: queues the unregistration of @netdev's device, as the
 * netdev notifier does, without unregistering the netdev.
 *
 * Context: process context.
 * Return: true when a device was found and its unregistration queued.
 */
bool swi_device_netdev_gone(struct net_device *netdev)
{
	struct swi_device *dev = swi_dev_get_by_netdev(netdev);

	if (dev)
		swi_netdev_unregister(dev);
	return dev;
}
EXPORT_SYMBOL_IF_KUNIT(swi_device_netdev_gone);

/**
 * swi_device_net_exit() - what a namespace's dismantling runs of ours
 * @net: the namespace
 *
 * KUnit only: the pernet exit (swi_net_exit()).
 *
 * Context: process context; not from inside an unregistration's wait.
 * Return: nothing.
 */
void swi_device_net_exit(struct net *net)
{
	swi_net_exit(net);
}
EXPORT_SYMBOL_IF_KUNIT(swi_device_net_exit);

/**
 * swi_device_flush_unreg() - wait for the queued unregistrations
 *
 * KUnit only.
 *
 * Context: process context; not from inside an unregistration's wait.
 * Return: nothing.
 */
void swi_device_flush_unreg(void)
{
	flush_workqueue(swi_unreg_wq);
}
EXPORT_SYMBOL_IF_KUNIT(swi_device_flush_unreg);
#endif

static struct notifier_block swi_netdev_nb = {
	.notifier_call = swi_netdev_event,
};

/**
 * swi_device_init() - accept "rdma link add ... type softiwarp"
 *
 * Also makes the debugfs tree's root, softiwarp/, with the module's
 * files (dev/fault.c); each device adds its directory under it.
 *
 * Context: process context, module load.
 * Return: 0, or a negative errno.
 */
int swi_device_init(void)
{
	int err;

	swi_unreg_wq = alloc_workqueue("softiwarp_unreg", WQ_UNBOUND, 0);
	if (!swi_unreg_wq)
		return -ENOMEM;
	swi_debugfs_root = debugfs_create_dir("softiwarp", NULL);
	swi_fault_debugfs_add(swi_debugfs_root);
	err = register_pernet_subsys(&swi_net_ops);
	if (err)
		goto out_debugfs;
	err = register_netdevice_notifier(&swi_netdev_nb);
	if (err)
		goto out_pernet;
	rdma_link_register(&swi_link_ops);
	return 0;

out_pernet:
	unregister_pernet_subsys(&swi_net_ops);
out_debugfs:
	debugfs_remove(swi_debugfs_root);
	destroy_workqueue(swi_unreg_wq);
	return err;
}

/* Unregister one device of ours, if any is left; false when none is. */
static bool swi_unregister_one(void)
{
	struct swi_device *dev;
	bool pinned = false;

	mutex_lock(&swi_dev_mutex);
	dev = list_first_entry_or_null(&swi_dev_list, struct swi_device, list);
	if (dev)
		pinned = ib_device_try_get(&dev->ibdev);
	mutex_unlock(&swi_dev_mutex);
	if (!dev)
		return false;
	if (pinned)
		ib_unregister_device_and_put(&dev->ibdev);
	else
		msleep(20);	/* being unregistered elsewhere: wait for it */
	return true;
}

/**
 * swi_device_exit() - remove every softiwarp device
 *
 * Only our own devices: other drivers registering RDMA_DRIVER_SIW (the
 * in-tree siw) are left alone.
 *
 * Context: process context, module unload.
 * Return: nothing.
 */
void swi_device_exit(void)
{
	rdma_link_unregister(&swi_link_ops);
	unregister_netdevice_notifier(&swi_netdev_nb);
	unregister_pernet_subsys(&swi_net_ops);
	destroy_workqueue(swi_unreg_wq);
	while (swi_unregister_one())
		;
	debugfs_remove(swi_debugfs_root);
}
MODULE_ALIAS_RDMA_LINK("softiwarp");
