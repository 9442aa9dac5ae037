/* SPDX-License-Identifier: GPL-2.0 */
/*
 * DOC: helpers shared by the KUnit suites
 *
 * TCP sockets, and a loopback TCP connection, that the test releases by
 * itself when it ends, however it ends (an assertion included).
 */
#ifndef SOFTIWARP_KUNIT_HELPERS_H
#define SOFTIWARP_KUNIT_HELPERS_H

#include <kunit/test.h>
#include <linux/net.h>

struct socket *swi_kunit_sock(struct kunit *test);
void swi_kunit_sock_adopt(struct kunit *test, struct socket *sock);
void swi_kunit_sock_pair(struct kunit *test, struct socket **cli,
			 struct socket **srv);
void swi_kunit_sock_keep(struct kunit *test, struct socket *sock);

#endif /* SOFTIWARP_KUNIT_HELPERS_H */
