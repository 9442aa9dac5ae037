/* SPDX-License-Identifier: GPL-2.0 */
/* tools/fuzz: see shim.h */
#include "../shim.h"
