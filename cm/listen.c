// SPDX-License-Identifier: GPL-2.0
/*
 * DOC: the listener
 *
 * iw_cm's listen and destroy_listen: the listening sockets (one per local
 * address of a wildcard listen, cm/addr.c), the accept of each new
 * connection into an endpoint (cm/passive.c goes on with it), and the
 * teardown that ends every connection still in startup before
 * destroy_listen returns.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/net.h>
#include <linux/slab.h>
#include <linux/workqueue.h>
#include <net/ipv6.h>
#include <net/sock.h>
#include <net/tcp.h>
#include <rdma/rdma_cm.h>

#include "cm/cep.h"
#include "cm/cm_trace.h"

/* A new connection on a listening socket: child callbacks back to TCP's */
static void swi_cm_accept_one(struct swi_listener *lst, struct socket *ns)
{
	struct sock *sk = ns->sk;
	struct swi_cep *cep;

	write_lock_bh(&sk->sk_callback_lock);
	sk->sk_user_data = NULL;
	sk->sk_data_ready = lst->saved_data_ready;
	write_unlock_bh(&sk->sk_callback_lock);
	cep = swi_cep_alloc(lst->dev, false);
	if (!cep) {
		sock_release(ns);
		return;
	}
	cep->sock = ns;
	kernel_getsockname(ns, (struct sockaddr *)&cep->laddr);
	kernel_getpeername(ns, (struct sockaddr *)&cep->raddr);
	kref_get(&lst->ref);
	cep->lst = lst;
	swi_cm_sock_timeouts(ns);
	if (swi_cm_frame_begin(cep)) {
		swi_count(cep->dev, SWI_CNT_CONN_FAILED);
		swi_cep_put(cep);
		return;
	}
	INIT_DELAYED_WORK(&cep->work, swi_cm_passive_work);
	kref_get(&cep->ref);	/* the order's entry */
	mutex_lock(&lst->order_lock);
	list_add_tail(&cep->order_entry, &lst->order);
	mutex_unlock(&lst->order_lock);
	kref_get(&cep->ref);	/* until the first run is queued */
	swi_cm_hook(cep);	/* the Request may be there: look at once */
	swi_cm_kick(cep);
}

static void swi_cm_listen_work(struct work_struct *work)
{
	struct swi_listener *lst = container_of(work, struct swi_listener,
						work);
	struct socket *ns;
	int i;

	/* acquire: the sockets the count covers are in place */
	for (i = 0; i < smp_load_acquire(&lst->nsock); i++)
		while (!READ_ONCE(lst->dying) &&
		       !kernel_accept(lst->sock[i], &ns, O_NONBLOCK))
			swi_cm_accept_one(lst, ns);
	kref_put(&lst->ref, swi_lst_free);
}

static void swi_cm_listen_ready(struct sock *sk)
{
	struct swi_listener *lst;

	read_lock_bh(&sk->sk_callback_lock);
	lst = sk->sk_user_data;
	if (lst && sk->sk_state == TCP_LISTEN) {
		kref_get(&lst->ref);
		if (!queue_work(swi_cm_wq, &lst->work))
			kref_put(&lst->ref, swi_lst_free);
	}
	read_unlock_bh(&sk->sk_callback_lock);
}

/*
 * One listening socket on @addr in the device's namespace. IPv6 sockets
 * are IPv6-only, so that the IPv4 and IPv6 wildcards of one port can be
 * listened on at once (as nfsd does). @freebind: the address was read off
 * the netdev and may still be tentative (IPv6 duplicate address
 * detection running).
 */
static int swi_cm_listen_on(struct swi_listener *lst,
			    struct sockaddr_storage *addr, bool freebind,
			    int backlog)
{
	struct sockaddr *sa = (struct sockaddr *)addr;
	struct socket *sock;
	struct sock *sk;
	int err;

	if (lst->nsock == SWI_LISTEN_MAX)
		return -ENOSPC;
	if (swi_fault_setup_alloc())
		return -ENOMEM;
	err = sock_create_kern(swi_cm_net(lst->dev), sa->sa_family,
			       SOCK_STREAM, IPPROTO_TCP, &sock);
	if (err)
		return err;
	sk = sock->sk;
	sock_set_reuseaddr(sk);
	if (freebind)
		ip_sock_set_freebind(sk);
	if (IS_ENABLED(CONFIG_IPV6) && sa->sa_family == AF_INET6)
		err = ip6_sock_set_v6only(sk);
	if (!err)
		err = kernel_bind(sock, swi_sockaddr_arg(sa),
				  rdma_addr_size(sa));
	if (err) {
		sock_release(sock);
		return err;
	}
	/*
	 * The callback and the socket's place in the listener come before
	 * the listen: a connection completing at once must find both, or
	 * it would wait in the accept queue for the next one to arrive.
	 */
	write_lock_bh(&sk->sk_callback_lock);
	lst->saved_data_ready = sk->sk_data_ready;
	sk->sk_user_data = lst;
	sk->sk_data_ready = swi_cm_listen_ready;
	write_unlock_bh(&sk->sk_callback_lock);
	lst->sock[lst->nsock] = sock;
	smp_store_release(&lst->nsock, lst->nsock + 1);	/* pairs: listen work */
	return kernel_listen(sock, backlog);
}

/*
 * A wildcard listen: one socket per address of the netdev in @family. A
 * netdev without such an address listens on nothing and succeeds: rdma_cm
 * listens on the wildcard through every device, and one device without,
 * say, IPv6 must not fail the listen of all of them.
 */
static int swi_cm_listen_any(struct swi_listener *lst, sa_family_t family,
			     __be16 port, int backlog)
{
	struct sockaddr_storage *addrs;
	int n, i, err = 0;

	addrs = kcalloc(SWI_LISTEN_MAX, sizeof(*addrs), GFP_KERNEL);
	if (!addrs)
		return -ENOMEM;
	n = swi_cm_addrs(lst->dev->netdev, family, addrs, SWI_LISTEN_MAX);
	for (i = 0; i < n && !err; i++) {
		/* port is at the same offset in sockaddr_in and _in6 */
		((struct sockaddr_in *)&addrs[i])->sin_port = port;
		err = swi_cm_listen_on(lst, &addrs[i], true, backlog);
	}
	kfree(addrs);
	return err;
}

static void swi_cm_listen_close(struct swi_listener *lst)
{
	int i;

	WRITE_ONCE(lst->dying, true);
	for (i = 0; i < lst->nsock; i++) {
		struct sock *sk = lst->sock[i]->sk;

		write_lock_bh(&sk->sk_callback_lock);
		sk->sk_user_data = NULL;
		sk->sk_data_ready = lst->saved_data_ready;
		write_unlock_bh(&sk->sk_callback_lock);
	}
	if (cancel_work_sync(&lst->work))
		kref_put(&lst->ref, swi_lst_free);	/* the work's */
	for (i = 0; i < lst->nsock; i++)
		sock_release(lst->sock[i]);
	lst->nsock = 0;
}

/*
 * The sockets of a listen on @addr: one for an address, one per address
 * of the netdev for a wildcard. The IPv6 wildcard of an id that is not
 * IPv6-only (rdma_cm's afonly, from net.ipv6.bindv6only, 0 by default)
 * takes the IPv4 addresses too, as a dual-stack socket would: siw's does,
 * and RTRS's server listens so.
 */
static int swi_cm_listen_sockets(struct swi_listener *lst,
				 const struct iw_cm_id *id,
				 struct sockaddr_storage *addr, int backlog)
{
	/* the port is at the same offset in sockaddr_in and _in6 */
	__be16 port = ((struct sockaddr_in *)addr)->sin_port;
	int err;

	if (!swi_cm_addr_any(addr))
		return swi_cm_listen_on(lst, addr, false, backlog);
	err = swi_cm_listen_any(lst, addr->ss_family, port, backlog);
	if (!err && addr->ss_family == AF_INET6 && !id->afonly)
		err = swi_cm_listen_any(lst, AF_INET, port, backlog);
	return err;
}

/**
 * swi_cm_create_listen() - iw_cm's listen
 * @id: the listening iw_cm_id (m_local_addr: address and port)
 * @backlog: the TCP backlog
 *
 * A wildcard address, IPv4 or IPv6, listens on each address of that family
 * the device's netdev has when the listen begins (IPv6 link-local ones
 * with the netdev's scope), so that another iWARP device on the same host
 * can listen on the same port; another address gets one socket. IPv6
 * sockets take IPv6 only; the IPv6 wildcard of an id that is not
 * IPv6-only (@id->afonly clear) listens on the IPv4 addresses too, as a
 * dual-stack socket takes both (swi_cm_listen_sockets()). Each listen
 * has its own sockets; failing or ending one leaves every other as it
 * was. A wildcard listen made in another network namespace than the
 * netdev's gets no socket (swi_cm_listen_here()).
 *
 * Context: process context.
 * Return: 0 or a negative errno (-EADDRINUSE: an address of the listen is
 * taken by another socket on that port).
 */
int swi_cm_create_listen(struct iw_cm_id *id, int backlog)
{
	struct sockaddr_storage addr = id->m_local_addr;
	struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)&addr;
	struct swi_listener *lst;
	int err;

	if (addr.ss_family != AF_INET && addr.ss_family != AF_INET6)
		return -EAFNOSUPPORT;
	if (swi_cm_addr_any(&addr) &&
	    !swi_cm_listen_here(to_swi_dev(id->device), id))
		return 0;	/* another namespace's: no listener, no socket */
	lst = swi_fault_setup_alloc() ? NULL : kzalloc(sizeof(*lst), GFP_KERNEL);
	if (!lst)
		return -ENOMEM;
	kref_init(&lst->ref);
	lst->dev = to_swi_dev(id->device);
	lst->cm_id = id;
	INIT_WORK(&lst->work, swi_cm_listen_work);
	mutex_init(&lst->order_lock);
	INIT_LIST_HEAD(&lst->order);
	INIT_LIST_HEAD(&lst->pending);
	INIT_DELAYED_WORK(&lst->order_work, swi_cm_order_work);
	id->add_ref(id);
	if (addr.ss_family == AF_INET6 && !sin6->sin6_scope_id &&
	    (ipv6_addr_type(&sin6->sin6_addr) & IPV6_ADDR_LINKLOCAL))
		sin6->sin6_scope_id = lst->dev->netdev->ifindex;
	err = swi_cm_listen_sockets(lst, id, &addr, backlog);
	if (err) {
		ibdev_info_ratelimited(&lst->dev->ibdev,
				       "listen on %pISpc failed: %d\n",
				       &id->m_local_addr, err);
		swi_cm_listen_close(lst);
		kref_put(&lst->ref, swi_lst_free);
		return err;
	}
	id->provider_data = lst;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(swi_cm_create_listen);

/*
 * End @cep's startup for its listener's teardown, if it is still waiting
 * for its Request: the work item no longer runs (a run already under way
 * sees SWI_CEP_DEAD and leaves), the socket's callbacks are TCP's again,
 * and the work item's reference and the order's entry are given back
 * here. One that has its Request, or has failed, finishes on its own.
 */
static void swi_cm_reap(struct swi_listener *lst, struct swi_cep *cep)
{
	bool waiting;

	mutex_lock(&cep->lock);
	waiting = cep->state == SWI_CEP_NEW && !cep->ready;
	if (waiting) {
		swi_cm_work_end(cep);
		swi_cm_passive_failed(cep, -ECONNABORTED, false);
	}
	mutex_unlock(&cep->lock);
	if (!waiting)
		return;
	cancel_delayed_work_sync(&cep->work);
	swi_cm_order_drop(lst, cep);
	swi_cep_put(cep);	/* the work item's */
}

/* The next endpoint of a dying listener to reap, referenced, or NULL */
static struct swi_cep *swi_cm_next_reap(struct swi_listener *lst)
{
	struct swi_cep *cep, *found = NULL;

	mutex_lock(&lst->order_lock);
	list_for_each_entry(cep, &lst->order, order_entry) {
		if (!cep->reaped) {
			cep->reaped = true;
			kref_get(&cep->ref);
			found = cep;
			break;
		}
	}
	mutex_unlock(&lst->order_lock);
	return found;
}

/*
 * A listener's teardown: every endpoint it accepted that is still in
 * startup ends now, before destroy_listen returns, so that none outlives
 * the device (the core frees it once its listens and connections are
 * gone) or its namespace. Endpoints whose CONNECT_REQUEST was delivered
 * belong to iw_cm, which rejects them when it destroys their ids, but for
 * those whose event it drops: swi_cm_orphan_pending() keeps them until
 * their device goes (cm/passive.c).
 */
static void swi_cm_listen_reap(struct swi_listener *lst)
{
	struct swi_cep *cep;

	while ((cep = swi_cm_next_reap(lst))) {
		swi_cm_reap(lst, cep);
		swi_cep_put(cep);
	}
	swi_cm_order_run(lst);	/* refuses the Requests that wait their turn */
	if (cancel_delayed_work_sync(&lst->order_work))
		kref_put(&lst->ref, swi_lst_free);	/* the queued run's */
}

/**
 * swi_cm_destroy_listen() - iw_cm's destroy_listen
 * @id: the listening iw_cm_id
 *
 * The listening sockets close, and every connection still in MPA startup
 * ends before it returns: one waiting for its Request is closed, one
 * whose Request waits its turn is refused (swi_cm_listen_reap()).
 *
 * Context: process context.
 * Return: 0.
 */
int swi_cm_destroy_listen(struct iw_cm_id *id)
{
	struct swi_listener *lst = id->provider_data;

	if (!lst)
		return 0;
	id->provider_data = NULL;
	swi_cm_listen_close(lst);
	swi_cm_listen_reap(lst);
	swi_cm_orphan_pending(lst);
	kref_put(&lst->ref, swi_lst_free);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(swi_cm_destroy_listen);
