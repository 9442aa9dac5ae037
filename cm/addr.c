// SPDX-License-Identifier: GPL-2.0
/*
 * DOC: addresses and namespaces
 *
 * The namespace a device's sockets live in (its netdev's), the addresses
 * a wildcard listen takes (the netdev's own, IPv4 or IPv6), and whether a
 * wildcard listen of a consumer in some namespace belongs on a device.
 */
#include <linux/inetdevice.h>
#include <net/addrconf.h>
#include <net/ipv6.h>
#include <rdma/rdma_cm.h>

#include "cm/cep.h"

/**
 * swi_cm_net() - the network namespace of a device's sockets
 * @dev: the device
 *
 * Its netdev's.
 *
 * Context: any context.
 * Return: the namespace.
 */
struct net *swi_cm_net(struct swi_device *dev)
{
	return dev_net(dev->netdev);
}

/* The netdev's IPv4 addresses, port 0 */
static int swi_cm_addrs_ipv4(struct net_device *nd,
			     struct sockaddr_storage *out, int max)
{
	const struct in_ifaddr *ifa;
	struct in_device *in_dev;
	int n = 0;

	rcu_read_lock();
	in_dev = __in_dev_get_rcu(nd);
	if (in_dev)
		in_dev_for_each_ifa_rcu(ifa, in_dev) {
			struct sockaddr_in *sin = (void *)&out[n];

			if (n == max)
				break;
			sin->sin_family = AF_INET;
			sin->sin_addr.s_addr = ifa->ifa_local;
			n++;
		}
	rcu_read_unlock();
	return n;
}

/* The netdev's IPv6 addresses, port 0; link-local ones with their scope */
static int swi_cm_addrs_ipv6(struct net_device *nd,
			     struct sockaddr_storage *out, int max)
{
	int n = 0;
#if IS_ENABLED(CONFIG_IPV6)
	struct inet6_ifaddr *ifp;
	struct inet6_dev *idev = in6_dev_get(nd);

	if (!idev)
		return 0;
	read_lock_bh(&idev->lock);
	list_for_each_entry(ifp, &idev->addr_list, if_list) {
		struct sockaddr_in6 *sin6 = (void *)&out[n];

		if (n == max)
			break;
		sin6->sin6_family = AF_INET6;
		sin6->sin6_addr = ifp->addr;
		if (ipv6_addr_type(&ifp->addr) & IPV6_ADDR_LINKLOCAL)
			sin6->sin6_scope_id = nd->ifindex;
		n++;
	}
	read_unlock_bh(&idev->lock);
	in6_dev_put(idev);
#endif
	return n;
}

/**
 * swi_cm_addrs() - a netdev's addresses of one family, port 0
 * @nd: the netdev
 * @family: AF_INET or AF_INET6
 * @out: where they go
 * @max: room in @out
 *
 * IPv6 link-local ones with the netdev's scope.
 *
 * Context: process context.
 * Return: how many were written.
 */
int swi_cm_addrs(struct net_device *nd, sa_family_t family,
		 struct sockaddr_storage *out, int max)
{
	if (family == AF_INET)
		return swi_cm_addrs_ipv4(nd, out, max);
	return swi_cm_addrs_ipv6(nd, out, max);
}

/**
 * swi_cm_addr_any() - is an address the IPv4 or IPv6 wildcard?
 * @ss: the address
 *
 * Context: any context.
 * Return: true for INADDR_ANY and in6addr_any.
 */
bool swi_cm_addr_any(const struct sockaddr_storage *ss)
{
	const struct sockaddr_in6 *sin6 = (const void *)ss;
	const struct sockaddr_in *sin = (const void *)ss;

	if (ss->ss_family == AF_INET)
		return sin->sin_addr.s_addr == htonl(INADDR_ANY);
	return ss->ss_family == AF_INET6 && ipv6_addr_any(&sin6->sin6_addr);
}

/**
 * swi_cm_listen_here() - does a wildcard listen belong on a device?
 * @dev: the device
 * @id: the listening iw_cm_id
 *
 * rdma_cm passes a wildcard listen to every iWARP device, whatever
 * namespace the device and its netdev are in (cma_listen_on_all()), in
 * shared and in exclusive mode. Listening on a device whose netdev is in
 * another namespace would take the port there from that namespace's own
 * consumers (two containers with a server on one port), and rdma_cm
 * refuses the connections arriving there anyway (cma_validate_port()).
 * The consumer's namespace is that of its rdma_cm_id: rdma_cm, the one
 * user of iw_cm, makes the iw_cm_id's context its rdma_id_private
 * (cma_iw_listen()), which begins with that rdma_cm_id
 * (drivers/infiniband/core/cma_priv.h). In exclusive mode the device
 * itself must be that namespace's too (rdma_dev_access_netns()): one
 * moved away by "rdma dev set" while its netdev stayed takes no port
 * there either. An id without a context (the KUnit suites') listens.
 *
 * Context: process context.
 * Return: true when the listen gets sockets on @dev.
 */
bool swi_cm_listen_here(struct swi_device *dev, struct iw_cm_id *id)
{
	const struct rdma_cm_id *owner = id->context;
	struct net *net;

	if (!owner)
		return true;
	net = READ_ONCE(owner->route.addr.dev_addr.net);
	return net_eq(net, swi_cm_net(dev)) &&
	       rdma_dev_access_netns(&dev->ibdev, net);
}
