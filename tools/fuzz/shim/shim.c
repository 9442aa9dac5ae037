// SPDX-License-Identifier: GPL-2.0
/*
 * The kernel functions the fuzzed sources call, in user space
 * (shim/include/shim.h): CRC32c from a table in place of mpa/mpa_crc.c,
 * sk_buff copies, and tcp_read_sock() over a socket that is a receive
 * queue, as net/ipv4/tcp.c's reads one: in sequence order from
 * copied_seq, each skb handed to the actor until it takes all of it or
 * returns 0, an skb read to its end taken off the queue, the read ending
 * when the actor clears desc->count.
 */
#include <linux/skbuff.h>
#include <net/tcp.h>

#include "mpa/mpa.h"

bool swi_mpa_crc_direct = true;

void shim_warn(const char *what, const char *file, int line)
{
	fprintf(stderr, "WARN_ON(%s) at %s:%d\n", what, file, line);
	abort();
}

static u32 crc32c_table[256];

u32 __crc32c_le(u32 crc, const void *p, size_t len)
{
	const u8 *b = p;

	if (!crc32c_table[1]) {
		for (u32 i = 0; i < 256; i++) {
			u32 c = i;

			for (int k = 0; k < 8; k++)
				c = c & 1 ? (c >> 1) ^ 0x82f63b78 : c >> 1;
			crc32c_table[i] = c;
		}
	}
	while (len--)
		crc = crc32c_table[(crc ^ *b++) & 0xff] ^ (crc >> 8);
	return crc;
}

void swi_mpa_crc_begin(struct mpa_crc *crc)
{
	crc->state = ~0U;
}

void swi_mpa_crc_update_shash(struct mpa_crc *crc, const void *data,
			      unsigned int len)
{
	crc->state = __crc32c_le(crc->state, data, len);
}

void swi_mpa_crc_update_page(struct mpa_crc *crc, struct page *page,
			     unsigned int off, unsigned int len)
{
	mpa_crc_update(crc, page->addr + off, len);
}

void swi_mpa_crc_update_skb(struct mpa_crc *crc, struct sk_buff *skb,
			    unsigned int off, unsigned int len)
{
	u8 buf[512];

	while (len) {
		unsigned int n = min_t(unsigned int, len, sizeof(buf));

		if (skb_copy_bits(skb, off, buf, n))
			shim_warn("a CRC range outside the skb", __FILE__,
				  __LINE__);
		mpa_crc_update(crc, buf, n);
		off += n;
		len -= n;
	}
}

__le32 swi_mpa_crc_final(struct mpa_crc *crc)
{
	return cpu_to_le32(~crc->state);
}

int skb_copy_bits(const struct sk_buff *skb, int off, void *to, int len)
{
	const struct skb_shared_info *sh = &skb->shinfo;
	unsigned int head = skb_headlen(skb), at, n;
	u8 *dst = to;

	if (off < 0 || len < 0 || (unsigned int)off > skb->len ||
	    (unsigned int)len > skb->len - off)
		return -EFAULT;
	if ((unsigned int)off < head) {
		n = min((unsigned int)len, head - off);
		memcpy(dst, skb->data + off, n);
		dst += n;
		off += n;
		len -= n;
	}
	at = head;
	for (int i = 0; len && i < sh->nr_frags; i++) {
		const skb_frag_t *f = &sh->frags[i];

		if ((unsigned int)off < at + f->size) {
			unsigned int o = off - at;

			n = min((unsigned int)len, f->size - o);
			memcpy(dst, f->page->addr + f->off + o, n);
			dst += n;
			off += n;
			len -= n;
		}
		at += f->size;
	}
	return len ? -EFAULT : 0;
}

void kfree_skb(struct sk_buff *skb)
{
	skb->next->prev = skb->prev;
	skb->prev->next = skb->next;
	skb->next = NULL;
	skb->prev = NULL;
}

int tcp_read_sock(struct sock *sk, read_descriptor_t *desc,
		  sk_read_actor_t recv_actor)
{
	struct sk_buff_head *q = &sk->sk_receive_queue;
	u32 seq = sk->tcp.copied_seq;
	int copied = 0;

	while (q->next != (struct sk_buff *)q) {
		struct sk_buff *skb = q->next;
		u32 offset = seq - TCP_SKB_CB(skb)->seq;
		int used;

		if (offset < skb->len) {
			size_t len = skb->len - offset;

			used = recv_actor(desc, skb, offset, len);
			if (used <= 0) {
				if (!copied)
					copied = used;
				break;
			}
			if ((size_t)used > len)
				shim_warn("actor used more than offered",
					  __FILE__, __LINE__);
			seq += used;
			copied += used;
			offset += used;
			if (offset != skb->len)
				continue;
		}
		kfree_skb(skb);
		q->qlen--;
		if (!desc->count)
			break;
	}
	sk->tcp.copied_seq = seq;
	return copied;
}
