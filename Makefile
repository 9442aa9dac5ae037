# SPDX-License-Identifier: GPL-2.0
#
# softiwarp: build the module against a kernel, and drive the project's
# checks. `make help` lists the targets.

KDIR ?= /lib/modules/$(shell uname -r)/build
TOOLS := $(CURDIR)/tools

.PHONY: all modules kdir-exists install clean help kernel compat deb lint kunit e2e check check-full demo bench bench-scale trace trace-cm soak upstream

all: modules

modules: kdir-exists
	$(MAKE) -C $(KDIR) M=$(CURDIR) modules

kdir-exists:
	@test -d $(KDIR) || { echo "no kernel build tree at $(KDIR):" \
		"install the headers of your kernel (Debian: linux-headers-$$(uname -r))" \
		"or pass KDIR=/path/to/kernel/build"; exit 1; }

install: modules
	$(MAKE) -C $(KDIR) M=$(CURDIR) modules_install
	depmod -a $$(modinfo -F vermagic $(CURDIR)/softiwarp.ko | cut -d" " -f1)

clean:
	$(MAKE) -C $(KDIR) M=$(CURDIR) clean 2>/dev/null || true
	rm -rf build

kernel:
	$(TOOLS)/build-kernel.sh

compat:
	$(TOOLS)/compat.sh

deb:
	$(TOOLS)/deb.sh

lint:
	$(TOOLS)/lint.sh

kunit:
	$(TOOLS)/kunit.sh

e2e:
	$(TOOLS)/e2e.sh

check:
	$(TOOLS)/check.sh

check-full:
	CHECK_TIER=full $(TOOLS)/check.sh

demo:
	$(TOOLS)/demo.sh

fuzz:
	$(TOOLS)/fuzz.sh

bench:
	$(TOOLS)/bench.sh

bench-scale:
	$(TOOLS)/bench-scale.sh

trace:
	$(TOOLS)/trace.sh

trace-cm:
	$(TOOLS)/trace.sh cm

soak:
	$(TOOLS)/soak.sh

upstream:
	$(TOOLS)/upstream/check-series.sh

help:
	@echo "make [KDIR=...]     build softiwarp.ko against KDIR (default: running kernel)"
	@echo "make install        install it into /lib/modules and run depmod"
	@echo "make check          lint, compat, deb, kunit, e2e on Debian's 6.12 and 7.x and the test kernel, the debug kernel; ends with 'N passed, N failed'"
	@echo "make check-full     make check with every e2e test on every kernel (before a release)"
	@echo "make demo           boot Debian's 6.12 image in a VM and show softiwarp at work"
	@echo "make fuzz           the wire parsers under libFuzzer, FUZZ_SECS (300) per target: executions, coverage, crashes"
	@echo "make bench          softiwarp vs siw vs TCP in one VM boot: table + PNG"
	@echo "make bench-scale    the same at scale: 1-64 QPs, latency under load, 1000 connects, memory per connection (~20 min)"
	@echo "make soak           SOAK_MINUTES (10) of verified rping/rstream load, 132 QPs, in the VM"
	@echo "make trace          ib_send_lat under ftrace, softiwarp and siw: who waits how long"
	@echo "make trace-cm       cmtime 1-1000 connections under ftrace, softiwarp and siw: where setup and teardown spend their time"
	@echo "make kernel         build (or reuse) the cached test kernel"
	@echo "make compat         W=1 and DKMS builds against Debian's kernels, 6.1 to 7.3"
	@echo "make deb            Debian package softiwarp-dkms in build/deb/: lintian, install, purge"
	@echo "make upstream       the kernel patch series (tools/upstream/mkseries.py) for 6.12 and 7.3, applied and checked patch by patch"
	@echo "make lint           checkpatch --strict, kernel-doc -Wall, layers, doc names, sparse"
	@echo "make kunit          KUnit suites in the VM"
	@echo "make e2e            end-to-end tests in the VM"
	@echo "KFLAVOUR=debug      test kernel with KASAN, lockdep, KMEMLEAK"
	@echo ""
	@echo "One test (Documentation/testing.rst, \"Running one test, adding one\"):"
	@echo "E2E_TESTS=03-netns-rping E2E_PAIRS=none make e2e"
	@echo "                    one end-to-end test on the test kernel (its file name"
	@echo "                    without .sh; a list runs several; E2E_PAIRS=none: no"
	@echo "                    two-guest tests); logs in build/e2e/"
	@echo "tools/e2e.sh tools/e2e/03-netns-rping.sh"
	@echo "                    the same; also with KFLAVOUR=debug or"
	@echo "                    E2E_KERNEL=trixie-backports (Debian's 7.3 image)"
	@echo "KUNIT_FILTER=softiwarp_ring make kunit"
	@echo "                    one KUnit suite; 'softiwarp_ring.ring_slot_wraps' one"
	@echo "                    case ('suite.case', globs); results in build/kunit/"
	@echo "New tests: copy tools/e2e/TEMPLATE.sh or kunit/template_kunit.c.example"
