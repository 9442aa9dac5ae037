/* SPDX-License-Identifier: GPL-2.0 */
/*
 * DOC: the softiwarp RDMA device and its verbs objects
 *
 * One struct swi_device per netdev, created by "rdma link add NAME type
 * softiwarp netdev DEV". Its verbs objects wrap the IB core's: the core
 * allocates them (INIT_RDMA_OBJ_SIZE) and calls the swi_* verbs below. User
 * space is rdma-core's unmodified libsiw: the queues it polls and fills
 * are the siw ABI's (include/uapi/rdma/siw-abi.h) rings, allocated with
 * vmalloc_user() and mapped through rdma_user_mmap_entry keys.
 *
 * Limits live here; private prototypes are grouped by defining file.
 */
#ifndef SOFTIWARP_H
#define SOFTIWARP_H

#include <linux/netdevice.h>
#include <linux/percpu.h>
#include <linux/spinlock.h>
#include <linux/xarray.h>
#include <rdma/ib_umem.h>
#include <rdma/ib_verbs.h>
#include <rdma/siw-abi.h>

#include "compat.h"
#include "dev/ring.h"
#include "dev/verbs_compat.h"
#include "engine/engine.h"
#include "mpa/mpa_frame.h"
#include "rdmap/rdmap.h"

/*
 * Identity. The vendor id is ASCII "swi" (0x73 0x77 0x69): the project has
 * no IEEE OUI, and read as one this value can never be assigned, since its
 * first octet has the group bit (0x01) set, which no OUI or CID has. No
 * kernel driver and no rdma-core provider uses it (siw reports 0x626d74,
 * "bmt"). libsiw binds to the device by its driver id, RDMA_DRIVER_SIW,
 * and reads neither id. The part id names the user ABI spoken: siw's.
 */
#define SWI_VENDOR_ID		0x737769
#define SWI_VENDOR_PART_ID	RDMA_DRIVER_SIW

/*
 * Device limits, reported by query_device (and, for comparison, in
 * debugfs softiwarp/DEV/limits) and enforced by the verbs.
 */
#define SWI_MAX_QP		4096
#define SWI_MAX_QP_WR		4096	/* per SQ or RQ, power of two */
#define SWI_MAX_CQ		4096
#define SWI_MAX_CQE		(SWI_MAX_QP_WR * 16)	/* 64 full QPs, one CQ */
#define SWI_MAX_PD		4096
#define SWI_MAX_MR		(256 * 1024)
#define SWI_MAX_SRQ		1024
#define SWI_MAX_SRQ_WR		(SWI_MAX_QP_WR * 4)
#define SWI_MAX_SGE		SIW_MAX_SGE
#define SWI_MAX_SGE_RD		1	/* a Read Request names one sink */
#define SWI_MAX_INLINE		SIW_MAX_INLINE	/* 80 octets */
#define SWI_MAX_ORD		ENG_MAX_ORD
#define SWI_MAX_IRD		ENG_MAX_IRD
#define SWI_MAX_FRMR_PAGES	2048
/*
 * The page sizes of a fast-register MR (page_size_cap): every power of two
 * from PAGE_SIZE to 2 GiB, each page physically contiguous (RTRS maps its
 * 128 KiB chunks so)
 */
#define SWI_PAGE_SIZE_CAP	GENMASK_ULL(31, PAGE_SHIFT)
#define SWI_MAX_CONTEXT		1024

/*
 * The first page offset of a queue mapping. libsiw takes the key (the mmap
 * offset) SIW_INVAL_UOBJ_KEY, 0x90000, for "no mapping" and fails the
 * verb: keys start above it, or the 145th queue mapped at once in one user
 * context (4 KiB pages) would be refused.
 */
#define SWI_MMAP_MIN_PGOFF	((SIW_INVAL_UOBJ_KEY >> PAGE_SHIFT) + 1)

/* A per-device knob not set: the module parameter applies */
#define SWI_KNOB_DEFAULT	(-1)

/* The connection endpoint of cm/: a QP holds it, opaque, while connected */
struct swi_cep;

/**
 * struct swi_cm_knobs - per-device overrides of the startup policy
 * @crc: request CRCs (0/1) or SWI_KNOB_DEFAULT
 * @markers: request Markers
 * @rev: MPA revision to initiate with (1 or 2)
 * @p2p: peer-to-peer mode (RFC 6581)
 * @permissive: accept revision 0 (RDMAC) peers (RFC 5044 Appendix C)
 *
 * Written through sysfs, read when a connection starts; each is a plain
 * int read with READ_ONCE(). The device holds them; the connection
 * manager (cm/policy.c) gives them their meaning.
 */
struct swi_cm_knobs {
	int crc;
	int markers;
	int rev;
	int p2p;
	int permissive;
};

/**
 * enum swi_counter - the device's statistics (Documentation/counters.rst)
 * @SWI_CNT_TX_FPDUS: FPDUs the socket took
 * @SWI_CNT_RX_FPDUS: FPDUs received whole (CRC and Markers checked)
 * @SWI_CNT_TX_OCTETS: their octets on the wire, MPA framing included
 * @SWI_CNT_RX_OCTETS: see @SWI_CNT_TX_OCTETS
 * @SWI_CNT_RX_CRC_ERRORS: received FPDUs whose CRC was wrong
 * @SWI_CNT_TX_MARKERS: Markers sent
 * @SWI_CNT_RX_MARKERS: Markers received and checked
 * @SWI_CNT_TX_TERM_RDMAP: Terminates sent, RDMAP layer error
 * @SWI_CNT_TX_TERM_DDP: Terminates sent, DDP layer error
 * @SWI_CNT_TX_TERM_LLP: Terminates sent, MPA (LLP) layer error
 * @SWI_CNT_RX_TERM_RDMAP: Terminates received, RDMAP layer error
 * @SWI_CNT_RX_TERM_DDP: Terminates received, DDP layer error
 * @SWI_CNT_RX_TERM_LLP: Terminates received, MPA (LLP) layer error
 * @SWI_CNT_TX_MPA_REJECTS: rejecting MPA Replies sent
 * @SWI_CNT_RX_MPA_REJECTS: rejecting MPA Replies received
 * @SWI_CNT_MPA_TIMEOUTS: MPA Requests or Replies not received in time
 * @SWI_CNT_CONN_ESTABLISHED: connections that reached Full Operation
 * @SWI_CNT_CONN_FAILED: connection attempts that did not
 * @SWI_CNT_WR_FLUSHED: work requests completed with a flush error
 * @SWI_CNT_CQ_OVERFLOWS: completions lost to a full CQ
 * @SWI_CNT_MAX: the number of counters
 *
 * The Terminate counters of one direction follow the order of the
 * TERM_LAYER_* values (rdmap/rdmap_proto.h).
 */
enum swi_counter {
	SWI_CNT_TX_FPDUS,
	SWI_CNT_RX_FPDUS,
	SWI_CNT_TX_OCTETS,
	SWI_CNT_RX_OCTETS,
	SWI_CNT_RX_CRC_ERRORS,
	SWI_CNT_TX_MARKERS,
	SWI_CNT_RX_MARKERS,
	SWI_CNT_TX_TERM_RDMAP,
	SWI_CNT_TX_TERM_DDP,
	SWI_CNT_TX_TERM_LLP,
	SWI_CNT_RX_TERM_RDMAP,
	SWI_CNT_RX_TERM_DDP,
	SWI_CNT_RX_TERM_LLP,
	SWI_CNT_TX_MPA_REJECTS,
	SWI_CNT_RX_MPA_REJECTS,
	SWI_CNT_MPA_TIMEOUTS,
	SWI_CNT_CONN_ESTABLISHED,
	SWI_CNT_CONN_FAILED,
	SWI_CNT_WR_FLUSHED,
	SWI_CNT_CQ_OVERFLOWS,
	SWI_CNT_MAX
};

/**
 * struct swi_counters - one CPU's share of a device's counters
 * @v: indexed by enum swi_counter
 *
 * Per CPU, not atomic64_t: every QP of the device adds to them on its data
 * path (the transmitter per batch of FPDUs, the receiver per FPDU in
 * softirq, on any CPU), and a per-CPU add needs neither a locked
 * instruction nor a cache line shared between CPUs; the rare reader
 * (rdma statistic, sysfs) sums the CPUs instead. this_cpu_add() is safe
 * against preemption and interrupts; a sum is a snapshot, not taken
 * atomically across counters or CPUs (and on 32-bit kernels a value may
 * be read between the two halves of an add).
 */
struct swi_counters {
	u64 v[SWI_CNT_MAX];
};

/**
 * struct swi_device - one softiwarp RDMA device, bound to one netdev
 * @ibdev: the IB core's device; must stay first (ib_alloc_device())
 * @netdev: the netdev it runs over, held with @netdev_tracker
 * @netdev_tracker: reference tracker for @netdev
 * @list: entry in the module's device list (swi_dev_mutex)
 * @mem: the STag table (its own locking, see rdmap/mem.h)
 * @qp_xa: QP number -> struct swi_qp, for iw_get_qp(); the xarray's lock
 *	serialises changes. swi_qp_find() takes a reference under it, and
 *	finds a user QP for its owner only; swi_get_qp() (the core's
 *	iw_get_qp) is swi_qp_find() and hands its reference to iw_cm;
 *	the debugfs walk takes one under the lock
 * @qp_next: cyclic QP number allocation hint, under the @qp_xa lock
 * @num_ctx: user contexts, against SWI_MAX_CONTEXT
 * @num_pd: PDs, against SWI_MAX_PD
 * @num_cq: CQs, against SWI_MAX_CQ
 * @num_qp: QPs, against SWI_MAX_QP
 * @num_mr: MRs, against SWI_MAX_MR
 * @num_srq: SRQs, against SWI_MAX_SRQ
 * @knobs: per-device MPA startup policy (sysfs), see cm/policy.c
 * @ext: RFC 7306's extensions for the kernel QPs created from now on,
 *	and atomic_cap reported: the module parameter rfc7306 when the
 *	device was added, then sysfs rfc7306 (swi_dev_set_ext()); read
 *	with READ_ONCE()
 * @debugfs: the device's debugfs directory (cm/debugfs.c)
 * @counters: the statistics, per CPU (swi_count(), dev/counters.c)
 *
 * Lifetime: from swi_newlink() to ib_unregister_device() (dealloc_driver
 * frees the rest). The num_* counts are atomics, @counters per CPU;
 * nothing else here changes after registration except through the
 * objects' own locks.
 */
struct swi_device {
	struct ib_device ibdev;
	struct net_device *netdev;
	netdevice_tracker netdev_tracker;
	struct list_head list;
	struct rdmap_mem_table mem;
	struct xarray qp_xa;
	u32 qp_next;
	atomic_t num_ctx;
	atomic_t num_pd;
	atomic_t num_cq;
	atomic_t num_qp;
	atomic_t num_mr;
	atomic_t num_srq;
	struct swi_cm_knobs knobs;
	bool ext;
	struct dentry *debugfs;
	struct swi_counters __percpu *counters;
};

/**
 * struct swi_ucontext - a user context (one per opened verbs device)
 * @base: the IB core's context
 */
struct swi_ucontext {
	struct ib_ucontext base;
};

/**
 * struct swi_pd - a protection domain
 * @base: the IB core's PD
 */
struct swi_pd {
	struct ib_pd base;
};

/**
 * struct swi_mmap_entry - a kernel queue that user space maps
 * @base: the IB core's entry; its offset is the key handed to libsiw
 * @vaddr: vmalloc_user() memory of the queue
 * @len: its length in octets
 */
struct swi_mmap_entry {
	struct rdma_user_mmap_entry base;
	void *vaddr;
	size_t len;
};

/**
 * struct swi_cq - a completion queue, a ring of struct siw_cqe
 * @base: the IB core's CQ
 * @lock: protects @ring's indexes and the notify state; taken from any
 *	context, so always with spin_lock_irqsave()
 * @ring: the entries, followed in the same memory by @ctrl; @ring.get
 *	is used for a kernel CQ only (libsiw consumes a user CQ by clearing
 *	SIW_WQE_VALID in each entry)
 * @ctrl: the notify word libsiw arms (SIW_NOTIFY_*)
 * @id: CQ number reported to libsiw
 * @overflowed: a completion was lost and no push succeeded since, under
 *	@lock: one IB_EVENT_CQ_ERR per overflow, not one per lost completion
 *	(each event is an allocation in the uverbs event queue)
 */
struct swi_cq {
	struct ib_cq base;
	spinlock_t lock;		/* ring indexes, notify state */
	struct swi_ring ring;
	struct siw_cq_ctrl *ctrl;
	u32 id;
	bool overflowed;
};

/**
 * struct swi_srq - a shared receive queue
 * @base: the IB core's SRQ
 * @lock: protects @rq indexes, @limit and @armed (irqsave)
 * @rq: ring of struct siw_rqe
 * @limit: SRQ limit for IB_EVENT_SRQ_LIMIT_REACHED
 * @armed: the limit event is armed
 * @user: @rq is mapped by user space
 */
struct swi_srq {
	struct ib_srq base;
	spinlock_t lock;		/* ring indexes, limit, armed */
	struct swi_ring rq;
	u32 limit;
	bool armed;
	bool user;
};

/**
 * struct swi_mr - a memory region
 * @base: the IB core's MR (lkey == rkey == the STag)
 * @mem: the STag table entry the data path looks up
 * @umem: pinned user memory of a user MR, else NULL
 * @pages: page array the STag table entry walks (a user MR's pinned
 *	pages, a fast-register MR's current mapping), else NULL
 * @npages: used entries of @pages
 * @spare: a fast-register MR's second array, which ib_map_mr_sg() fills
 *	and then trades for @pages (never the array a walk in flight may
 *	read, swi_rdmap_mem_set_pages()), else NULL
 * @nspare: used entries of @spare
 * @max_pages: size of @pages and of @spare
 */
struct swi_mr {
	struct ib_mr base;
	struct rdmap_mem *mem;
	struct ib_umem *umem;
	struct page **pages;
	u32 npages;
	struct page **spare;
	u32 nspare;
	u32 max_pages;
};

/* The SQE flags of the siw user ABI: all a user SQE may carry */
#define SWI_USER_SQE_FLAGS	(SIW_WQE_VALID | SIW_WQE_INLINE | \
				 SIW_WQE_SIGNALLED | SIW_WQE_SOLICITED | \
				 SIW_WQE_READ_FENCE | SIW_WQE_REM_INVAL | \
				 SIW_WQE_COMPLETED)

/**
 * struct swi_qp - a reliable connected queue pair
 * @base: the IB core's QP
 * @dev: the device
 * @ref: held by iw_cm (iw_add_ref/iw_rem_ref), by the connection and by
 *	the debugfs walk of @dev->qp_xa; the last put completes @freed
 * @freed: destroy_qp waits for it before the core frees the QP
 * @state_lock: serialises state changes (modify_qp, stream events)
 * @state: iWARP QP state, under @state_lock
 * @sq_lock: protects the indexes of @sq, both the kernel producer and
 *	the consumers (data path, flush); irqsave. The post verbs read
 *	@state with READ_ONCE(), not under it
 * @rq_lock: the same for @rq
 * @sq: send queue ring of struct siw_sqe
 * @sq_ext: what a kernel work request carries beyond its SQE, one entry
 *	per slot of @sq, under @sq_lock with it; NULL unless @ext
 * @rq: receive queue ring of struct siw_rqe (unused with an SRQ)
 * @scq: send CQ
 * @rcq: receive CQ
 * @srq: the SRQ, or NULL
 * @srq_taken: receive work requests this QP took from @srq (its peer's
 *	Sends), for the administrator to see each stream's share (RFC 5041
 *	section 8.3.2, item 5); written by the receiver only
 * @ird: inbound RDMA Read queue depth
 * @ord: outbound RDMA Read queue depth
 * @access: IB_ACCESS_* remote access rights granted to the peer
 * @send_sge: SGEs per send WR, as granted
 * @recv_sge: SGEs per receive WR, as granted (0 with an SRQ)
 * @sig_all: every send WR completes (IB_SIGNAL_ALL_WR)
 * @user: the rings are mapped by user space (libsiw)
 * @ext: RFC 7306's extensions are sent and accepted (a kernel QP
 *	created while its device's @ext was on); fixed
 * @owner: the thread group that created a user QP (NULL for a kernel
 *	QP): connect and accept find a user QP by number for it only
 * @conn: the connection endpoint (cm/), NULL while IDLE
 * @stream: the TCP stream, set by swi_qp_attach_stream() under
 *	@state_lock and freed by destroy_qp
 * @err_work: runs the state change the receiver or transmitter asked for
 * @close_work: the teardown timer of CLOSING and TERMINATE (ARM_TIMER);
 *	armed and cancelled under @state_lock, its expiry is the TIMEOUT event
 * @sweep_work: a user QP in ERROR: flushes what libsiw posts after the
 *	flush of the transition (its receive queue has no doorbell)
 * @sweep_ms: the sweep's next interval, under @state_lock
 * @sweep_off: set by destroy_qp under @state_lock before it cancels the
 *	sweep and frees the rings: no sweep is armed or runs after it
 * @err_event: bit mask of the raised events not yet applied
 * @err_class: enum rdmap_qp_err of @err_event
 */
struct swi_qp {
	struct ib_qp base;
	struct swi_device *dev;
	struct kref ref;
	struct completion freed;
	struct mutex state_lock;	/* state changes */
	enum rdmap_qps state;
	spinlock_t sq_lock;		/* @sq indexes: producer, consumers */
	spinlock_t rq_lock;		/* @rq indexes: producer, consumers */
	struct swi_ring sq;
	struct eng_sqe_ext *sq_ext;
	struct swi_ring rq;
	struct swi_cq *scq;
	struct swi_cq *rcq;
	struct swi_srq *srq;
	u32 srq_taken;
	u32 ird;
	u32 ord;
	int access;
	u32 send_sge;
	u32 recv_sge;
	bool sig_all;
	bool user;
	bool ext;
	struct pid *owner;
	struct swi_cep *conn;
	struct eng_stream *stream;
	struct work_struct err_work;
	struct delayed_work close_work;
	struct delayed_work sweep_work;
	unsigned int sweep_ms;
	bool sweep_off;
	atomic_t err_event;
	u8 err_class;
};

static inline struct swi_device *to_swi_dev(struct ib_device *ibdev)
{
	return container_of(ibdev, struct swi_device, ibdev);
}

/**
 * swi_count_add() - add to one of the device's counters
 * @dev: the device
 * @c: which counter
 * @n: how much
 *
 * Context: any context; does not sleep.
 * Return: nothing.
 */
static inline void swi_count_add(struct swi_device *dev, enum swi_counter c,
				 u64 n)
{
	this_cpu_add(dev->counters->v[c], n);
}

/**
 * swi_count() - count one event in the device's counters
 * @dev: the device
 * @c: which counter
 *
 * Context: any context; does not sleep.
 * Return: nothing.
 */
static inline void swi_count(struct swi_device *dev, enum swi_counter c)
{
	swi_count_add(dev, c, 1);
}

static inline struct swi_pd *to_swi_pd(struct ib_pd *pd)
{
	return container_of(pd, struct swi_pd, base);
}

static inline struct swi_cq *to_swi_cq(struct ib_cq *cq)
{
	return container_of(cq, struct swi_cq, base);
}

static inline struct swi_qp *to_swi_qp(struct ib_qp *qp)
{
	return container_of(qp, struct swi_qp, base);
}

/*
 * The door of a QP's state, for the connection manager (cm/), which
 * reads it and takes its lock but leaves struct swi_qp's fields alone
 */

/**
 * swi_qp_state() - a QP's state
 * @qp: the QP
 *
 * Context: any context; a snapshot (READ_ONCE()) unless the caller holds
 * the QP's state lock.
 * Return: its enum rdmap_qps state.
 */
static inline enum rdmap_qps swi_qp_state(const struct swi_qp *qp)
{
	return READ_ONCE(qp->state);
}

/**
 * swi_qp_lock_state() - take a QP's state lock (&swi_qp.state_lock)
 * @qp: the QP
 *
 * Its state changes, and what they report to the connection manager
 * (swi_cm_qp_changed()), run under it.
 *
 * Context: process context; sleeps.
 * Return: nothing.
 */
static inline void swi_qp_lock_state(struct swi_qp *qp)
{
	mutex_lock(&qp->state_lock);
}

/**
 * swi_qp_unlock_state() - let go of a QP's state lock
 * @qp: the QP, its state lock held
 *
 * Context: process context.
 * Return: nothing.
 */
static inline void swi_qp_unlock_state(struct swi_qp *qp)
{
	mutex_unlock(&qp->state_lock);
}

/**
 * swi_qp_assert_state_locked() - assert that a QP's state lock is held
 * @qp: the QP
 *
 * Context: any context.
 * Return: nothing.
 */
static inline void swi_qp_assert_state_locked(struct swi_qp *qp)
{
	lockdep_assert_held(&qp->state_lock);
}

/**
 * swi_qp_is_user() - was a QP created by user space (libsiw)?
 * @qp: the QP
 *
 * Context: any context.
 * Return: true for a user QP, false for a kernel consumer's.
 */
static inline bool swi_qp_is_user(const struct swi_qp *qp)
{
	return qp->user;
}

static inline struct swi_srq *to_swi_srq(struct ib_srq *srq)
{
	return container_of(srq, struct swi_srq, base);
}

static inline struct swi_mr *to_swi_mr(struct ib_mr *mr)
{
	return container_of(mr, struct swi_mr, base);
}

/* dev/device.c */
int swi_device_init(void);
void swi_device_exit(void);
struct ib_device *swi_device_add(const char *name, struct net_device *netdev);
void swi_newlink_step(struct net_device *netdev, bool registered);
bool swi_device_netdev_gone(struct net_device *netdev);
void swi_device_flush_unreg(void);
void swi_device_net_exit(struct net *net);

/* dev/ring.c */
int swi_mmap(struct ib_ucontext *uctx, struct vm_area_struct *vma);
void swi_mmap_free(struct rdma_user_mmap_entry *rentry);

/* dev/counters.c */
int swi_counters_alloc(struct swi_device *dev);
void swi_counters_free(struct swi_device *dev);
u64 swi_counter_read(struct swi_device *dev, enum swi_counter c);
struct rdma_hw_stats *swi_alloc_hw_port_stats(struct ib_device *ibdev,
					      u32 port);
int swi_get_hw_stats(struct ib_device *ibdev, struct rdma_hw_stats *stats,
		     u32 port, int index);

/* dev/fault.c (swi_fault_setup_alloc() is declared in engine/engine.h) */
void swi_fault_debugfs_add(struct dentry *root);

/* dev/restrack.c */
int swi_fill_res_qp_entry(struct sk_buff *msg, struct ib_qp *ibqp);
int swi_fill_res_cq_entry(struct sk_buff *msg, struct ib_cq *ibcq);
int swi_fill_res_mr_entry(struct sk_buff *msg, struct ib_mr *ibmr);

/* dev/cq.c */
int swi_create_cq(struct ib_cq *ibcq, const struct ib_cq_init_attr *attr,
		  SWI_CREATE_CQ_ARG *arg);
int swi_destroy_cq(struct ib_cq *ibcq, struct ib_udata *udata);
int swi_poll_cq(struct ib_cq *ibcq, int num_entries, struct ib_wc *wc);
int swi_req_notify_cq(struct ib_cq *ibcq, enum ib_cq_notify_flags flags);
int swi_cq_push(struct swi_cq *cq, const struct siw_cqe *cqe,
		bool solicited);
int swi_cq_init_ring(struct swi_cq *cq, u32 num, bool user);
void swi_cq_free_ring(struct swi_cq *cq);

/* dev/srq.c */
int swi_create_srq(struct ib_srq *ibsrq, struct ib_srq_init_attr *attr,
		   struct ib_udata *udata);
int swi_modify_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr,
		   enum ib_srq_attr_mask mask, struct ib_udata *udata);
int swi_query_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr);
int swi_destroy_srq(struct ib_srq *ibsrq, struct ib_udata *udata);
int swi_post_srq_recv(struct ib_srq *ibsrq, const struct ib_recv_wr *wr,
		      const struct ib_recv_wr **bad_wr);
int swi_srq_get(struct swi_srq *srq, struct siw_rqe *rqe);
int swi_srq_init_ring(struct swi_srq *srq, u32 num, bool user);
void swi_srq_free_ring(struct swi_srq *srq);

/* dev/mr.c */
struct ib_mr *swi_get_dma_mr(struct ib_pd *pd, int access);
struct ib_mr *swi_reg_user_mr(struct ib_pd *pd, u64 start, u64 len,
			      u64 iova, int access, struct ib_udata *udata);
#ifdef SWI_HAVE_REG_USER_MR_DMAH
struct ib_mr *swi_reg_user_mr_dmah(struct ib_pd *pd, u64 start, u64 len,
				   u64 iova, int access, struct ib_dmah *dmah,
				   struct ib_udata *udata);
#endif
struct ib_mr *swi_alloc_mr(struct ib_pd *pd, enum ib_mr_type type,
			   u32 max_sg);
int swi_map_mr_sg(struct ib_mr *ibmr, struct scatterlist *sg, int nents,
		  unsigned int *sg_offset);
int swi_dereg_mr(struct ib_mr *ibmr, struct ib_udata *udata);

/* dev/qp.c */
int swi_create_qp(struct ib_qp *ibqp, struct ib_qp_init_attr *attr,
		  struct ib_udata *udata);
int swi_modify_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		  struct ib_udata *udata);
int swi_query_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		 struct ib_qp_init_attr *init);
int swi_destroy_qp(struct ib_qp *ibqp, struct ib_udata *udata);
int swi_post_send(struct ib_qp *ibqp, const struct ib_send_wr *wr,
		  const struct ib_send_wr **bad_wr);
int swi_post_recv(struct ib_qp *ibqp, const struct ib_recv_wr *wr,
		  const struct ib_recv_wr **bad_wr);
void swi_qp_get(struct ib_qp *ibqp);
void swi_qp_iw_add_ref(struct ib_qp *ibqp);
void swi_qp_put(struct ib_qp *ibqp);
struct ib_qp *swi_get_qp(struct ib_device *ibdev, int qpn);
struct swi_qp *swi_qp_find(struct swi_device *dev, u32 qpn);
/* What swi_qp_walk_conns() calls per connected QP */
typedef void (*swi_qp_conn_fn)(struct swi_qp *qp, struct swi_cep *conn,
			       void *arg);
void swi_qp_walk_conns(struct swi_device *dev, swi_qp_conn_fn fn, void *arg);
int swi_qp_event(struct swi_qp *qp, enum rdmap_qp_event event,
		 enum rdmap_qp_err err);
void swi_qp_err_work(struct work_struct *work);
unsigned int swi_qp_set_close_timeout_ms(unsigned int ms);
bool swi_qp_rfc7306(void);
void swi_dev_set_ext(struct swi_device *dev, bool on);
extern struct device_attribute swi_dev_attr_rfc7306;
int swi_qp_init(void);
void swi_qp_exit(void);
void swi_qp_set_rd_limits(struct swi_qp *qp, u32 ird, u32 ord);
int swi_setup_term_fpdu(const struct mpa_fo_cfg *tx, bool rdmac, u8 code,
			u8 *buf, size_t size);
struct eng_stream *swi_qp_stream_new(struct swi_qp *qp, struct socket *sock,
				     const struct eng_stream_cfg *cfg);
void swi_qp_stream_drop(struct eng_stream *s);
int swi_qp_attach_stream(struct swi_qp *qp, struct eng_stream *s,
			 struct swi_cep *conn);
int swi_qp_attach(struct swi_qp *qp, struct socket *sock,
		  const struct eng_stream_cfg *cfg, struct swi_cep *conn);

#endif /* SOFTIWARP_H */
