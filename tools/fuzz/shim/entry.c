// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer's entry point, under the name it requires, for the target's
 * fuzz_one() (shim/include/shim.h).
 */
#include <linux/types.h>

int LLVMFuzzerTestOneInput(const u8 *data, size_t size);

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	return fuzz_one(data, size);
}
