/* SPDX-License-Identifier: GPL-2.0 */
/* tools/fuzz: see shim.h; the C library includes this one too */
#include_next <linux/limits.h>
#include "../shim.h"
