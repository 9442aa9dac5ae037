// SPDX-License-Identifier: GPL-2.0
/*
 * DOC: helpers shared by the KUnit suites
 *
 * The loopback socket pair of the MPA socket test and of the QP loopback
 * suite, and single sockets for the connection manager's suite to play a
 * peer with: every socket is released by a KUnit deferred action, so that a
 * failed assertion leaks nothing; a socket handed over to the code under
 * test is taken out of the test's care with swi_kunit_sock_keep(). The
 * loopback device is brought up first where it is down: when the suites
 * are built in, tools/testing/kunit/kunit.py runs them at boot, before
 * any user space could.
 */
#include <linux/in.h>
#include <linux/netdevice.h>
#include <linux/rtnetlink.h>
#include <net/net_namespace.h>
#include <net/sock.h>

#include "kunit/helpers.h"

static void swi_kunit_sock_release(void *sock)
{
	sock_release(sock);
}

/**
 * swi_kunit_sock_adopt() - the test releases @sock when it ends
 * @test: the test case
 * @sock: a socket the test made or accepted
 *
 * Context: process context (a KUnit case). Fails the test with an
 * assertion (and releases @sock at once) when the action cannot be added.
 * Return: nothing.
 */
void swi_kunit_sock_adopt(struct kunit *test, struct socket *sock)
{
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test,
							swi_kunit_sock_release,
							sock), 0);
}

/**
 * swi_kunit_lo() - init_net's loopback device, up
 * @test: the test case
 *
 * Context: process context (a KUnit case), takes the RTNL. Fails the
 * test with an assertion when the device cannot be brought up.
 * Return: the device, with a reference the caller puts (dev_put()).
 */
struct net_device *swi_kunit_lo(struct kunit *test)
{
	struct net_device *lo = init_net.loopback_dev;
	int err = 0;

	rtnl_lock();
	if (!(lo->flags & IFF_UP))
		err = dev_change_flags(lo, lo->flags | IFF_UP, NULL);
	rtnl_unlock();
	KUNIT_ASSERT_EQ(test, err, 0);
	dev_hold(lo);
	return lo;
}

/**
 * swi_kunit_sock() - a new IPv4 TCP socket, released when the test ends
 * @test: the test case
 *
 * Context: process context (a KUnit case). Fails the test with an
 * assertion when the socket cannot be made.
 * Return: the socket.
 */
struct socket *swi_kunit_sock(struct kunit *test)
{
	struct socket *sock;

	dev_put(swi_kunit_lo(test));
	KUNIT_ASSERT_EQ(test, sock_create_kern(&init_net, PF_INET, SOCK_STREAM,
					       IPPROTO_TCP, &sock), 0);
	swi_kunit_sock_adopt(test, sock);
	return sock;
}

/**
 * swi_kunit_sock_pair() - the two ends of a loopback TCP connection
 * @test: the test case; it releases both sockets when it ends
 * @cli: the connecting end
 * @srv: the accepted end
 *
 * Context: process context (a KUnit case), sleeps. Fails the test with
 * an assertion when a step fails.
 * Return: nothing.
 */
void swi_kunit_sock_pair(struct kunit *test, struct socket **cli,
			 struct socket **srv)
{
	struct sockaddr_in sin = {
		.sin_family = AF_INET,
		.sin_addr.s_addr = htonl(INADDR_LOOPBACK),
	};
	struct socket *lsock = swi_kunit_sock(test);

	KUNIT_ASSERT_EQ(test, kernel_bind(lsock, swi_sockaddr_arg(&sin),
					  sizeof(sin)), 0);
	KUNIT_ASSERT_EQ(test, kernel_listen(lsock, 1), 0);
	KUNIT_ASSERT_EQ(test, kernel_getsockname(lsock,
						 (struct sockaddr *)&sin),
			sizeof(sin));
	*cli = swi_kunit_sock(test);
	KUNIT_ASSERT_EQ(test, kernel_connect(*cli, swi_sockaddr_arg(&sin),
					     sizeof(sin), 0), 0);
	KUNIT_ASSERT_EQ(test, kernel_accept(lsock, srv, 0), 0);
	swi_kunit_sock_adopt(test, *srv);
	kunit_release_action(test, swi_kunit_sock_release, lsock);
}

/**
 * swi_kunit_sock_keep() - the test no longer releases @sock
 * @test: the test case
 * @sock: a socket of swi_kunit_sock_pair() that now belongs to the code
 *	under test (a QP that took it over, say)
 *
 * Context: process context (a KUnit case).
 * Return: nothing.
 */
void swi_kunit_sock_keep(struct kunit *test, struct socket *sock)
{
	kunit_remove_action(test, swi_kunit_sock_release, sock);
}
