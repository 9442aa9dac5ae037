/* SPDX-License-Identifier: GPL-2.0 */
/*
 * DOC: MPA test vectors and helpers shared by the MPA KUnit suites
 *
 * What the suites of mpa_frame_kunit.c, mpa_deframe_kunit.c,
 * mpa_socket_kunit.c and mpa_bench_kunit.c have in common: the octets of
 * RFC 5044 Figures 5 and 6 and their ULPDUs, the table of Marker
 * placements (checked on transmit, read back on receive), and the helpers
 * that frame ULPDUs, build skbs, and collect what the receive parser
 * passes up (struct swi_mpa_test_sink). Memory comes from KUnit or is freed by
 * a KUnit deferred action, so a failed assertion leaks nothing.
 */
#ifndef SOFTIWARP_KUNIT_MPA_VECTORS_H
#define SOFTIWARP_KUNIT_MPA_VECTORS_H

#include <kunit/test.h>
#include <linux/skbuff.h>

#include "mpa/mpa_frame.h"

/* RFC 5044 Figures 5 and 6: both are 52 octets on the wire */
#define MPA_FIG_WIRE_LEN	52
#define MPA_FIG_ULPDU_LEN	42
#define MPA_FIG6_POS		0x1ec	/* stream offset of Figure 6 */
#define MPA_FIG6_FIRST_LEN	482	/* ULPDU of the 492-octet first FPDU */

extern const u8 swi_mpa_fig5_wire[MPA_FIG_WIRE_LEN];
extern const u8 swi_mpa_fig6_wire[MPA_FIG_WIRE_LEN];

void swi_mpa_fig5_ulpdu(u8 *ulpdu);
void swi_mpa_fig6_ulpdu(u8 *ulpdu);
void swi_mpa_fig6_first_ulpdu(u8 *ulpdu);

/**
 * struct mpa_layout_case - one Marker placement of an FPDU
 * @desc: the case's name
 * @pos: stream position the FPDU starts at
 * @ulpdu_len: its ULPDU length
 * @markers: Markers on
 * @fpdu_len: octets of the FPDU, Markers included
 * @nr_pieces: entries of @pieces
 * @pieces: the pieces swi_mpa_fpdu_layout() gives
 * @nr_bytes: octets of @bytes
 * @bytes: the framing octets, with CRCs off (CRC field zero)
 */
struct mpa_layout_case {
	const char *desc;
	u32 pos;
	u16 ulpdu_len;
	bool markers;
	u32 fpdu_len;
	u8 nr_pieces;
	struct mpa_piece pieces[5];
	u8 nr_bytes;
	u8 bytes[16];
};

#define MPA_NR_LAYOUT_CASES	11

extern const struct mpa_layout_case swi_mpa_layout_cases[MPA_NR_LAYOUT_CASES];

struct mpa_fpdu *swi_mpa_test_fpdu(struct kunit *test);
void *swi_mpa_test_vmalloc(struct kunit *test, unsigned long size);
void swi_mpa_test_vdone(struct kunit *test, void *p);
void swi_mpa_test_tx_init(struct kunit *test, struct mpa_tx *tx, u32 pos,
			  bool markers, bool crc);
unsigned int swi_mpa_test_linearise(const struct mpa_fpdu *f, const u8 *ulpdu,
				    u8 *out);
unsigned int swi_mpa_test_frame(struct kunit *test, struct mpa_tx *tx,
				struct mpa_fpdu *f, const u8 *ulpdu,
				unsigned int len, u8 *out);

/**
 * struct swi_mpa_test_sink - the receiving layer of the tests
 * @rx: the parser feeding it (set by swi_mpa_test_rx()); spans are read
 *	through it
 * @buf: good ULPDUs, concatenated
 * @cap: octets of @buf
 * @used: octets of good ULPDUs in @buf
 * @cur: octets of the ULPDU in progress
 * @want: its length, from the begin callback
 * @lens: lengths of good ULPDUs
 * @max_lens: entries of @lens
 * @nr: good ULPDUs
 * @begins: begin callbacks
 * @datas: data callbacks
 * @ends: end callbacks
 * @late: callbacks after an error
 * @stop_at: return -ECANCELED from this data call (counted from 1)
 * @misordered: a range came out of order or did not fit
 * @err: the error the end callback reported
 *
 * It collects the ULPDUs, checks that ranges come in order, and counts
 * every callback after an error (swi_mpa_test_sink_ops).
 */
struct swi_mpa_test_sink {
	struct mpa_rx *rx;
	u8 *buf;
	unsigned int cap;
	unsigned int used;
	unsigned int cur;
	unsigned int want;
	unsigned int *lens;
	unsigned int max_lens;
	unsigned int nr;
	unsigned int begins, datas, ends;
	unsigned int late;
	unsigned int stop_at;
	bool misordered;
	enum mpa_error err;
};

extern const struct mpa_rx_ops swi_mpa_test_sink_ops;

struct swi_mpa_test_sink *swi_mpa_test_sink(struct kunit *test, unsigned int cap,
					    unsigned int max_lens);
void swi_mpa_test_sink_reset(struct swi_mpa_test_sink *s);
struct mpa_rx *swi_mpa_test_rx(struct kunit *test, struct swi_mpa_test_sink *s,
			       u32 pos, bool markers, bool crc,
			       unsigned int max_ulpdu);
struct sk_buff *swi_mpa_test_skb(struct kunit *test, const u8 *data,
				 unsigned int len, unsigned int lead,
				 unsigned int head);

#endif /* SOFTIWARP_KUNIT_MPA_VECTORS_H */
