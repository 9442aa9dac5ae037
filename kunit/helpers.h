/* SPDX-License-Identifier: GPL-2.0 */
/*
 * DOC: helpers shared by the KUnit suites
 *
 * The loopback device, up; TCP sockets, and a loopback TCP connection, that
 * the test releases by itself when it ends, however it ends (an assertion
 * included); and the expectation of a Terminate cause (struct
 * rdmap_term_cause), which on failure reports the layer, error type and
 * code found and expected, each triple with its name from
 * swi_rdmap_term_name().
 */
#ifndef SOFTIWARP_KUNIT_HELPERS_H
#define SOFTIWARP_KUNIT_HELPERS_H

#include <kunit/test.h>
#include <linux/net.h>
#include <linux/netdevice.h>

#include "rdmap/terminate.h"

struct net_device *swi_kunit_lo(struct kunit *test);
struct socket *swi_kunit_sock(struct kunit *test);
void swi_kunit_sock_adopt(struct kunit *test, struct socket *sock);
void swi_kunit_sock_pair(struct kunit *test, struct socket **cli,
			 struct socket **srv);
void swi_kunit_sock_keep(struct kunit *test, struct socket *sock);

/* How SWI_EXPECT_TERM_CAUSE_EQ() prints a cause: its fields, its name */
#define SWI_TERM_CAUSE_FMT	"layer %u, etype %u, code 0x%02x (%s)"

/**
 * SWI_EXPECT_TERM_CAUSE_EQ() - expect a Terminate cause equal to another
 * @test: the test case
 * @cause: the struct rdmap_term_cause under test
 * @want: the struct rdmap_term_cause expected
 *
 * One expectation over the three fields: it fails when any of layer,
 * etype and code differs, and then reports both triples, field by field
 * and by name, where the macro is used. Each argument is evaluated once.
 *
 * Context: process context (a KUnit case).
 * Return: nothing.
 */
#define SWI_EXPECT_TERM_CAUSE_EQ(test, cause, want)			\
do {									\
	const struct rdmap_term_cause swi_got_ = (cause);		\
	const struct rdmap_term_cause swi_want_ = (want);		\
									\
	if (swi_got_.layer != swi_want_.layer ||			\
	    swi_got_.etype != swi_want_.etype ||			\
	    swi_got_.code != swi_want_.code)				\
		KUNIT_FAIL(test, "%s: " SWI_TERM_CAUSE_FMT		\
			   ", expected " SWI_TERM_CAUSE_FMT, #cause,	\
			   swi_got_.layer, swi_got_.etype, swi_got_.code, \
			   swi_rdmap_term_name(swi_got_.layer,		\
					       swi_got_.etype,		\
					       swi_got_.code),		\
			   swi_want_.layer, swi_want_.etype,		\
			   swi_want_.code,				\
			   swi_rdmap_term_name(swi_want_.layer,		\
					       swi_want_.etype,		\
					       swi_want_.code));		\
} while (0)

/**
 * SWI_EXPECT_TERM_CAUSE() - expect a Terminate cause of given fields
 * @test: the test case
 * @cause: the struct rdmap_term_cause under test
 * @exp_layer: the layer expected (RFC 5040: 0 RDMAP, 1 DDP, 2 LLP)
 * @exp_etype: the error type expected
 * @exp_code: the error code expected
 *
 * SWI_EXPECT_TERM_CAUSE_EQ() against the triple @exp_layer, @exp_etype,
 * @exp_code.
 *
 * Context: process context (a KUnit case).
 * Return: nothing.
 */
#define SWI_EXPECT_TERM_CAUSE(test, cause, exp_layer, exp_etype, exp_code) \
	SWI_EXPECT_TERM_CAUSE_EQ(test, cause,				\
				 ((struct rdmap_term_cause){		\
					.layer = (exp_layer),		\
					.etype = (exp_etype),		\
					.code = (exp_code),		\
				 }))

#endif /* SOFTIWARP_KUNIT_HELPERS_H */
