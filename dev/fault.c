// SPDX-License-Identifier: GPL-2.0
/*
 * DOC: allocation failures on demand during connection setup
 *
 * debugfs softiwarp/fail_setup_alloc makes one allocation of connection
 * setup fail, so that tests can walk every error path of a connect, a
 * listen and an accept under memory pressure, deterministically:
 *
 *   echo N > /sys/kernel/debug/softiwarp/fail_setup_alloc
 *
 * arms a countdown: the N-th setup allocation from then on (counted over
 * all devices) fails as if the allocator had returned NULL, once. Reading
 * the file gives the countdown left (0: disarmed) and how many failures
 * were injected since the module was loaded. Writing 0 disarms it.
 *
 * The allocations counted are the endpoint, the MPA frame buffers, the
 * private data copy, the listener, the TCP socket and the stream with its
 * queues; swi_fault_setup_alloc() is called at each of them. Data-path
 * allocations are not counted.
 *
 * Why not <linux/fault-inject.h>: its struct fault_attr would give the
 * kernel's standard attributes (probability, interval, times, verbose)
 * and failslab's conventions, but without CONFIG_FAULT_INJECTION it is a
 * stub that never fails, and Debian builds its kernels without it
 * (bookworm's 6.1 and 6.12, trixie's 6.12 and 7.x: "# CONFIG_FAULT_INJECTION
 * is not set"). The error paths must be walkable on the kernels users run
 * (tools/e2e/17-setup-alloc-faults.sh runs on Debian's images), so this
 * countdown needs no kernel option and hits only softiwarp's setup.
 *
 * debugfs softiwarp/stag_index_max makes STag indexes come back soon, so
 * that tests can reach what production reaches after 2^24 registrations:
 * an index reused by a new memory object while an operation checked
 * against the old one is still in flight (the hostile-user test):
 *
 *   echo 64 > /sys/kernel/debug/softiwarp/stag_index_max
 *
 * hands out indexes 1 to 64 only, to registrations from then on (over all
 * devices); 0, the default, is the full range (swi_rdmap_mem_set_index_max()).
 * Both files are for root only (0600), like all of debugfs' writers.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/kernel.h>

#include "dev/softiwarp.h"

static atomic_t swi_fault_countdown = ATOMIC_INIT(0);
static atomic_t swi_fault_injected = ATOMIC_INIT(0);

/**
 * swi_fault_setup_alloc() - should this setup allocation fail?
 *
 * Called just before each allocation counted by fail_setup_alloc; the
 * caller treats true as the allocation's failure (-ENOMEM).
 *
 * Context: any context; lock-free.
 * Return: true for the one allocation the armed countdown reaches.
 */
bool swi_fault_setup_alloc(void)
{
	if (likely(!atomic_read(&swi_fault_countdown)))
		return false;
	if (atomic_dec_if_positive(&swi_fault_countdown) != 0)
		return false;
	atomic_inc(&swi_fault_injected);
	pr_info_ratelimited("fail_setup_alloc: injected an allocation failure\n");
	return true;
}

static ssize_t swi_fault_read(struct file *f, char __user *ubuf,
			      size_t len, loff_t *pos)
{
	char buf[32];
	int n;

	n = scnprintf(buf, sizeof(buf), "%d %d\n",
		      atomic_read(&swi_fault_countdown),
		      atomic_read(&swi_fault_injected));
	return simple_read_from_buffer(ubuf, len, pos, buf, n);
}

static ssize_t swi_fault_write(struct file *f, const char __user *ubuf,
			       size_t len, loff_t *pos)
{
	unsigned int n;
	int err;

	err = kstrtouint_from_user(ubuf, len, 0, &n);
	if (err)
		return err;
	if (n > INT_MAX)
		return -EINVAL;
	atomic_set(&swi_fault_countdown, n);
	return len;
}

static ssize_t swi_stag_max_read(struct file *f, char __user *ubuf,
				 size_t len, loff_t *pos)
{
	char buf[16];
	u32 max = swi_rdmap_mem_index_max();
	int n;

	n = scnprintf(buf, sizeof(buf), "%u\n",
		      max == RDMAP_STAG_INDEX_MAX ? 0 : max);
	return simple_read_from_buffer(ubuf, len, pos, buf, n);
}

static ssize_t swi_stag_max_write(struct file *f, const char __user *ubuf,
				  size_t len, loff_t *pos)
{
	u32 n;
	int err;

	err = kstrtou32_from_user(ubuf, len, 0, &n);
	if (err)
		return err;
	swi_rdmap_mem_set_index_max(n);
	return len;
}

static const struct file_operations swi_stag_max_fops = {
	.owner = THIS_MODULE,
	.read = swi_stag_max_read,
	.write = swi_stag_max_write,
	.llseek = default_llseek,
};

static const struct file_operations swi_fault_fops = {
	.owner = THIS_MODULE,
	.read = swi_fault_read,
	.write = swi_fault_write,
	.llseek = default_llseek,
};

/**
 * swi_fault_debugfs_add() - create softiwarp/fail_setup_alloc, stag_index_max
 * @root: the module's debugfs directory
 *
 * Context: module init, process context.
 * Return: nothing (debugfs failures are not errors).
 */
void swi_fault_debugfs_add(struct dentry *root)
{
	debugfs_create_file("fail_setup_alloc", 0600, root, NULL,
			    &swi_fault_fops);
	debugfs_create_file("stag_index_max", 0600, root, NULL,
			    &swi_stag_max_fops);
}
