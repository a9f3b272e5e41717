# xdt top-level build.  Everything built lands in $(XDT_CACHE), outside the
# repository, keyed so a warm run only checks what is there.
#
#   make            dependencies, kernels, guest userland for every ISA
#   make test       the above, then the test suites (host and booted guests)
#   make demo       boot each ISA and show what xdt sees of a kernel function
#   make study      the kgdb probe-insertion study, per ISA (docs/kgdb-study.md)
#   make ISAS=riscv64 test     restrict to some ISAs (or XDT_ISAS=... in env)
#   make test-debug the guest tests on the debug kernels (KASAN, UBSAN,
#                   KFENCE, lockdep, kmemleak...; docs/reliability.md)
#   make XDT_KVARIANT=debug kernels   any target, on a kernel variant
#                   (arch/variants/NAME.config: debug, kcsan)

SHELL := /bin/bash
XDT_CACHE ?= $(or $(XDG_CACHE_HOME),$(HOME)/.cache)/xdt
# A kernel variant's trees and everything built against them (xdt.ko, the
# test modules, the initramfs that carries them) live apart from the normal
# ones, so switching variants rebuilds nothing of the other's.
XDT_KVARIANT ?=
export XDT_KVARIANT
ifneq ($(XDT_KVARIANT),)
ifeq ($(wildcard arch/variants/$(XDT_KVARIANT).config),)
$(error unknown kernel variant '$(XDT_KVARIANT)'; valid: $(basename $(notdir $(wildcard arch/variants/*.config))))
endif
endif
BUILD := $(XDT_CACHE)/build$(if $(XDT_KVARIANT),-$(XDT_KVARIANT))
KCACHE := $(XDT_CACHE)/kernel$(if $(XDT_KVARIANT),/$(XDT_KVARIANT))
ALL_ISAS := $(shell awk '!/^\#/ && NF { print $$1 }' arch/isas)
# With no ISAS (XDT_ISAS), the default set: arch/isas' set column leaves a
# port under way out until it passes; every row is valid when named.
DEFAULT_ISAS := $(shell awk '!/^\#/ && NF && $$9 == "default" { print $$1 }' arch/isas)
ISAS ?= $(or $(XDT_ISAS),$(DEFAULT_ISAS))
comma := ,
space := $(subst ,, )
# ISAS may come from the command line, which no makefile assignment overrides.
isas := $(subst $(comma), ,$(ISAS))
PYTHON := /usr/bin/python3
export XDT_ISAS := $(isas)

bad_isas := $(filter-out $(ALL_ISAS),$(isas))
ifneq ($(bad_isas),)
$(error unknown ISA '$(firstword $(bad_isas))'; valid ISAs: $(ALL_ISAS))
endif

isa_field = $(shell awk -v i=$(1) '$$1 == i { print $$$(2) }' arch/isas)
cross = $(call isa_field,$(1),4)

.PHONY: test-debug all deps kernels busybox guest modules xdt-ko host-dtrace host-dlib libxdt host-libxdt host-xdt-lua test demo \
	bench bench-quick bench-bpftrace bench-consumer bench-lua study study-quick fuzz clean-cache
.NOTPARALLEL:
# init binaries are inputs of the initramfs, not intermediates to delete.
.SECONDARY:

all: deps kernels xdt-ko guest modules libxdt

deps:
	@tools/deps.sh

# The build scripts are the cache: each returns at once when its output for
# the current inputs exists.
kernels: deps
	@for i in $(isas); do tools/build-kernel.sh $$i || exit 1; done

busybox: deps
	@for i in $(isas); do tools/build-busybox.sh $$i || exit 1; done

include tools/mcpp.mk
include tools/lua.mk

$(BUILD)/%/init: guest/init.c guest/agent.h | deps
	@mkdir -p $(@D)
	$(call cross,$*)gcc -std=gnu11 -static -O2 -Wall -Wextra -Werror -o $@ $<

# The D compiler and consumer: libxdt (libxdt/libxdt.h), a static archive
# built for the host (fast compiler tests) and for every guest, and dtrace
# (cmd/dtrace), its thin CLI.  libxdt is two halves (docs/architecture.md):
# the D front end (compiler/) and the consumer (libxdt/), which sees the
# front end only through compiler/dt_program.h; each half is compiled with
# its own include path, so the consumer cannot include the front end's
# internal headers, and the CLI, the Lua bindings and the guest tools see
# only libxdt.h.  libxdt carries the host VM (core/host/hostvm.h): the
# portable core of xdt.ko built for user space, compiled as kernel C is
# (GNU C, without the warnings kernel style does not heed -- Linux builds
# without -Wformat-truncation too: an error message cut short is meant --
# and with the kernel's -fno-strict-overflow: DIF's arithmetic wraps, in
# the host VM too).
FE_SRCS := $(wildcard compiler/*.c)
CONSUMER_SRCS := $(wildcard libxdt/*.c)
DTRACE_SRCS := cmd/dtrace/main.c
LIBXDT_SRCS := $(FE_SRCS) $(CONSUMER_SRCS)
VM_SRCS := $(wildcard core/portable/*.c) core/host/machine.c
DTRACE_HDRS := $(wildcard compiler/*.h libxdt/*.h) core/uapi/xdt.h core/uapi/dif.h \
	core/uapi/xdt_pobj.h core/uapi/stable.h core/xdt_impl.h $(wildcard core/portable/*.h) \
	$(wildcard core/host/*.h)
# __SANE_USERSPACE_TYPES__: the uapi's __u64/__s64 as the kernel has them
# (long long) on every ISA.  64-bit powerpc's user-space <asm/types.h>
# gives `long` without it, and the host VM's u64 (core/host/kernel.h, long
# long as the kernel's) would then not be the uapi's __u64.
USER_TYPES := -D__SANE_USERSPACE_TYPES__
CFLAGS_C11 := -std=c11 -O2 -Wall -Wextra -Werror $(USER_TYPES)
# What a user of libxdt compiles with: libxdt.h and the uapi it includes.
DTRACE_CFLAGS := $(CFLAGS_C11) -Icore/uapi -Ilibxdt
FE_CFLAGS := $(CFLAGS_C11) -Icore/uapi -Icompiler -Ilibxdt
CONSUMER_CFLAGS := $(CFLAGS_C11) -Icore/uapi -Icore/host -Ilibxdt
VM_CFLAGS := -std=gnu11 -O2 -Wall -Wextra -Wno-unused-parameter $(USER_TYPES) \
	-Wno-sign-compare -Wno-format-truncation -Werror -fno-strict-overflow \
	-Icore -Icore/portable
abs_flags = $(patsubst -I%,-I$(CURDIR)/%,$(1))

# $(call build_libxdt,CROSS-PREFIX,ARCHIVE,ISA[,EXTRA-CFLAGS]).  The ISA's
# own C macros, which dtrace -C predefines, come from arch/<dir>/isa.toml [d];
# the instruction dtrace -c stops a dynamic command with, from [user].
define build_libxdt
	@mkdir -p $(dir $(2))libxdt-obj
	@cd $(dir $(2))libxdt-obj && rm -f *.o && \
	  $(1)gcc $(call abs_flags,$(FE_CFLAGS)) $(4) \
	    -DXDT_CPP_ISA='$(shell $(PYTHON) tools/xdtisa.py cpp-defines $(3))' -c \
	    $(addprefix $(CURDIR)/,$(FE_SRCS)) && \
	  $(1)gcc $(call abs_flags,$(CONSUMER_CFLAGS)) $(4) \
	    -DXDT_UHOLD='$(shell $(PYTHON) tools/xdtisa.py uhold $(3))' -c \
	    $(addprefix $(CURDIR)/,$(CONSUMER_SRCS)) && \
	  $(1)gcc $(call abs_flags,$(VM_CFLAGS)) $(4) -c $(addprefix $(CURDIR)/,$(VM_SRCS))
	@rm -f $(2) && $(1)ar rcs $(2) $(dir $(2))libxdt-obj/*.o
endef

# The archives depend on the list of their sources too: a source file
# added (older than an archive built without it) must rebuild them.  The
# list file changes only when the list does.
LIBXDT_LIST := $(BUILD)/libxdt.srcs
$(shell mkdir -p $(BUILD) && echo '$(sort $(LIBXDT_SRCS) $(VM_SRCS))' | \
  cmp -s - $(LIBXDT_LIST) 2>/dev/null || \
  echo '$(sort $(LIBXDT_SRCS) $(VM_SRCS))' > $(LIBXDT_LIST))

libxdt: $(BUILD)/host/libxdt.a $(foreach i,$(isas),$(BUILD)/$(i)/libxdt.a) \
	$(BUILD)/host/xdt-lua
host-libxdt: $(BUILD)/host/libxdt.a
$(BUILD)/host/libxdt.a: $(LIBXDT_SRCS) $(VM_SRCS) $(DTRACE_HDRS) $(wildcard arch/*/isa.toml) $(LIBXDT_LIST)
	$(call build_libxdt,,$@,$(shell uname -m))
$(BUILD)/%/libxdt.a: $(LIBXDT_SRCS) $(VM_SRCS) $(DTRACE_HDRS) $(wildcard arch/*/isa.toml) $(LIBXDT_LIST) | deps
	$(call build_libxdt,$(call cross,$*),$@,$*)

host-dtrace: $(BUILD)/host/dtrace
$(BUILD)/host/dtrace: cmd/dtrace/main.c libxdt/libxdt.h $(BUILD)/host/libxdt.a
	gcc $(DTRACE_CFLAGS) -o $@ $< $(BUILD)/host/libxdt.a

$(BUILD)/%/dtrace: cmd/dtrace/main.c libxdt/libxdt.h $(BUILD)/%/libxdt.a | deps
	$(call cross,$*)gcc $(DTRACE_CFLAGS) -static -o $@ $< $(BUILD)/$*/libxdt.a

guest_dtrace = $(if $(DTRACE_SRCS),$(BUILD)/$(1)/dtrace)
guest_xdtko = $(wildcard $(BUILD)/$(1)/xdt/xdt.ko)

$(BUILD)/%/xdt-rawprog: guest/xdt-rawprog.c core/uapi/xdt.h core/uapi/dif.h core/uapi/xdt_pobj.h | deps
	@mkdir -p $(@D)
	$(call cross,$*)gcc $(DTRACE_CFLAGS) -static -o $@ $<

# Runs a command as a uid with exactly some capabilities (test_privileges.py).
$(BUILD)/%/xdt-runas: guest/xdt-runas.c | deps
	@mkdir -p $(@D)
	$(call cross,$*)gcc $(DTRACE_CFLAGS) -static -o $@ $<

# uregs[]'s register names for D, from the one table that numbers them
# (arch/<dir>/user_isa.c: each UREG("R_NAME", field) row is index N).
.SECONDEXPANSION:
$(BUILD)/%/regs.d: arch/$$(call isa_field,$$*,2)/user_isa.c
	@mkdir -p $(@D)
	@awk 'BEGIN { print "/* uregs[] indices for $*: made from $< */" } \
	     match($$0, /UREG\("R_[A-Z0-9_]+"/) { \
	       n = substr($$0, RSTART + 6, RLENGTH - 7); \
	       print "inline int " n " = " i++ ";" }' $< > $@.tmp && mv $@.tmp $@

# The D library's constants for one ISA (signal.d: SIGHUP ... and si_code
# values, errno.d: EPERM ..., fcntl.d: O_RDONLY ...), from the uapi headers
# that ISA's compiler sees: DTrace's signal.d/errno.d, Linux's values.
# One run writes the three; "host" is the build machine's (host tests).
DLIB_GEN := signal.d errno.d fcntl.d
$(foreach f,$(DLIB_GEN),$(BUILD)/%/dlib/$(f)) &: tools/xdt-dconsts.py
	@$(PYTHON) tools/xdt-dconsts.py --cc "$(call cross,$*)gcc" \
	  --isa $* $(BUILD)/$*/dlib
host-dlib: $(foreach f,$(DLIB_GEN),$(BUILD)/host/dlib/$(f))

# The pid provider's target: known calls, frame pointers, nothing inlined.
$(BUILD)/%/xdt-utarget: guest/xdt-utarget.c | deps
	@mkdir -p $(@D)
	$(call cross,$*)gcc -std=gnu11 -O1 -fno-omit-frame-pointer -Wall -Wextra -Werror -static -o $@ $<

# The pid provider in shared libraries: xdt's own libxdtu.so.1 (DT_SONAME)
# and xdt-udyn, a PIE linked against it and Debian's libc, and libxdtu2.so.1,
# which xdt-udyn dlopen()s; same flags as xdt-utarget.  The guests carry
# Debian's loader and libc for them (tools/xdtisa.py guest-dynlibs: the
# paths are arch/<dir>/isa.toml [debian]'s); nothing else is dynamic.
# libxdtu.so.1 is installed as distributions install libraries, a link
# named by the soname to a file that is not (libxdtu.so.1.0), so the
# module's name (the soname) and its file's base name differ.
UDYN_CFLAGS := -std=gnu11 -O1 -fno-omit-frame-pointer -Wall -Wextra -Werror
$(BUILD)/%/libxdtu.so.1: guest/xdt-ulib.c | deps
	@mkdir -p $(@D)
	$(call cross,$*)gcc $(UDYN_CFLAGS) -fPIC -shared -Wl,-soname,$(@F) -o $@ $<
$(BUILD)/%/libxdtu2.so.1: guest/xdt-ulib2.c | deps
	@mkdir -p $(@D)
	$(call cross,$*)gcc $(UDYN_CFLAGS) -fPIC -shared -Wl,-soname,$(@F) -o $@ $<
$(BUILD)/%/xdt-udyn: guest/xdt-udyn.c $(BUILD)/%/libxdtu.so.1 | deps
	$(call cross,$*)gcc $(UDYN_CFLAGS) -o $@ $< -L$(@D) -l:libxdtu.so.1
guest_dynlibs = $(shell $(PYTHON) tools/xdtisa.py guest-dynlibs $(1))
guest_dynlib_srcs = $(foreach f,$(call guest_dynlibs,$(1)),$(firstword $(subst :, ,$(f))))

# The USDT demo (guest/xdt-usdt.c): provider xdt_usdt from a header that
# dtrace -h makes, as a user's would be; provider xdt_sdt from systemtap's
# own <sys/sdt.h> (Debian's systemtap-sdt-dev), which lives in the host's
# multiarch include directory that the cross compilers do not search: a
# copy under $(BUILD), never in the repository.
SDT_DIR := /usr/include/$(shell gcc -print-multiarch 2>/dev/null)/sys
$(BUILD)/host/xdt_usdt.h: guest/xdt_usdt.d $(BUILD)/host/dtrace
	@$(BUILD)/host/dtrace -h -s $< -o $@
$(BUILD)/sdt/sys/sdt.h: | deps
	@mkdir -p $(@D) && cp $(SDT_DIR)/sdt.h $(SDT_DIR)/sdt-config.h $(@D)/
$(BUILD)/%/xdt-usdt: guest/xdt-usdt.c $(BUILD)/host/xdt_usdt.h $(BUILD)/sdt/sys/sdt.h | deps
	@mkdir -p $(@D)
	$(call cross,$*)gcc -std=gnu11 -O2 -Wall -Wextra -Werror -static \
	  -I$(BUILD)/host -idirafter $(BUILD)/sdt -o $@ $<

# The eBPF baselines' loader: raw bpf(2)/perf_event_open(2), no libbpf.
$(BUILD)/%/xdt-bpfbench: guest/xdt-bpfbench.c core/uapi/xdt_pobj.h $(BUILD)/%/libxdt.a | deps
	@mkdir -p $(@D)
	$(call cross,$*)gcc $(DTRACE_CFLAGS) -static -o $@ $< $(BUILD)/$*/libxdt.a

# xdt-lua: Lua 5.4 with libxdt's bindings built in (lua/, docs/lua.md).
# The guests' is static on the Lua cross-built from Debian's source
# (tools/lua.mk); the host's links Debian's liblua5.4 and compiles D.
XDTLUA_SRCS := lua/lxdt.c lua/xdt-lua.c
XDTLUA_HDRS := lua/lxdt.h libxdt/libxdt.h
host-xdt-lua: $(BUILD)/host/xdt-lua
$(BUILD)/host/xdt-lua: $(XDTLUA_SRCS) $(XDTLUA_HDRS) $(BUILD)/host/libxdt.a
	gcc $(DTRACE_CFLAGS) -Ilua -I/usr/include/lua5.4 -o $@ $(XDTLUA_SRCS) \
	  $(BUILD)/host/libxdt.a -llua5.4 -lm

$(XDT_CACHE)/lua/%.current/liblua.a: tools/build-lua.sh | deps
	@tools/build-lua.sh $*

$(BUILD)/%/xdt-lua: $(XDTLUA_SRCS) $(XDTLUA_HDRS) $(BUILD)/%/libxdt.a \
		$(XDT_CACHE)/lua/%.current/liblua.a | deps
	$(call cross,$*)gcc $(DTRACE_CFLAGS) -Ilua -I$(call lua_dir,$*)/include -static \
	  -o $@ $(XDTLUA_SRCS) $(BUILD)/$*/libxdt.a $(call lua_dir,$*)/liblua.a -lm

# xdt-watch and its profiles, the examples: Lua, installed as they are.
WATCH_PROFILES := $(wildcard lua/watch/*.lua)
LUA_LIBS := $(wildcard lua/lib/*.lua)
LUA_EXAMPLES := $(wildcard examples/lua/*.lua)
guest_lua = --file $(BUILD)/$(1)/xdt-lua:/usr/bin/xdt-lua \
	--file lua/xdt-watch:/usr/bin/xdt-watch \
	$(foreach f,$(WATCH_PROFILES),--file $(f):/usr/share/xdt/watch/$(notdir $(f))) \
	$(foreach f,$(LUA_LIBS),--file $(f):/usr/share/xdt/lua/$(notdir $(f))) \
	$(foreach f,$(LUA_EXAMPLES),--file $(f):/usr/share/xdt/examples/$(notdir $(f)))

# The DIF verifier/VM fuzzer (make fuzz; a short run in make test).
$(BUILD)/%/xdt-fuzz: guest/xdt-fuzz.c core/uapi/xdt.h core/uapi/dif.h core/uapi/xdt_pobj.h | deps
	@mkdir -p $(@D)
	$(call cross,$*)gcc $(DTRACE_CFLAGS) -static -o $@ $<

# The D-level fuzzer (guest/xdt-dfuzz.c): random D programs through libxdt,
# in the host VM (-V) on the host and through xdt.ko in the guests.
.PHONY: host-dfuzz
host-dfuzz: $(BUILD)/host/xdt-dfuzz
$(BUILD)/host/xdt-dfuzz: guest/xdt-dfuzz.c libxdt/libxdt.h $(BUILD)/host/libxdt.a
	gcc $(DTRACE_CFLAGS) -o $@ $< $(BUILD)/host/libxdt.a

$(BUILD)/%/xdt-dfuzz: guest/xdt-dfuzz.c libxdt/libxdt.h $(BUILD)/%/libxdt.a | deps
	@mkdir -p $(@D)
	$(call cross,$*)gcc $(DTRACE_CFLAGS) -static -o $@ $< $(BUILD)/$*/libxdt.a

# Both fuzzers on the host VM under the compiler's sanitizers (make
# fuzz-san; a short run in make test-host): ASan and UBSan watch xdt.ko's
# portable core -- the very verifier and DIF machine the module is built
# from -- and all of libxdt, at thousands of programs a second, where the
# debug kernels' KASAN and UBSAN manage tens under TCG.  Not a substitute
# for those (the kernel's environment, its probes and its allocator are
# not here), the fast half of the same evidence.
SAN_FLAGS := -fsanitize=address,undefined -fno-sanitize-recover=all \
	-fno-omit-frame-pointer -g
SAN := $(XDT_CACHE)/build/host-san
$(SAN)/libxdt.a: $(LIBXDT_SRCS) $(VM_SRCS) $(DTRACE_HDRS) $(wildcard arch/*/isa.toml) $(LIBXDT_LIST)
	$(call build_libxdt,,$@,$(shell uname -m),$(SAN_FLAGS))
$(SAN)/xdt-fuzz: guest/xdt-fuzz.c core/host/hostvm.h $(SAN)/libxdt.a
	gcc $(DTRACE_CFLAGS) $(SAN_FLAGS) -DXDT_FUZZ_HOSTVM -Icore/host -o $@ $< $(SAN)/libxdt.a
$(SAN)/xdt-dfuzz: guest/xdt-dfuzz.c libxdt/libxdt.h $(SAN)/libxdt.a
	gcc $(DTRACE_CFLAGS) $(SAN_FLAGS) -o $@ $< $(SAN)/libxdt.a
.PHONY: host-san fuzz-san
host-san: $(SAN)/xdt-fuzz $(SAN)/xdt-dfuzz
# Their full-size run, the host half of make soak (minutes): 10^6 objects
# and 10^5 D programs from fixed seeds.
FUZZ_SAN_OBJECTS ?= 1000000
FUZZ_SAN_DPROGS ?= 100000
FUZZ_SAN_SEED ?= 20261128
fuzz-san: host-san
	$(SAN)/xdt-fuzz -V -n $(FUZZ_SAN_OBJECTS) -s $(FUZZ_SAN_SEED)
	$(SAN)/xdt-dfuzz -V -n $(FUZZ_SAN_DPROGS) -s $(FUZZ_SAN_SEED)

# fail-nth over every fault-injection site of each step of an enabling
# (make soak, guest/xdt-failnth.c): libxdt's system calls on /dev/xdt are
# wrapped so the helper can aim fail-nth at exactly one of them.
$(BUILD)/%/xdt-failnth: guest/xdt-failnth.c libxdt/libxdt.h $(BUILD)/%/libxdt.a | deps
	@mkdir -p $(@D)
	$(call cross,$*)gcc $(DTRACE_CFLAGS) -static \
	  -Wl,--wrap=ioctl,--wrap=open,--wrap=close -o $@ $< $(BUILD)/$*/libxdt.a

# The D library (translators to DTrace's stable types), where dtrace looks
# for it by default (libxdt/libxdt.c, XDT_LIBDIR).
DLIB := $(wildcard dlib/*.d)

# The types of the kernel's global variables, for D's `name: 6.1's BTF has
# none (tools/xdt-kvars.c says why).  Made from the vmlinux's DWARF into its
# kernel tree (so it is cached with the kernel) and installed beside the D
# library.
$(BUILD)/host/xdt-kvars: tools/xdt-kvars.c | deps
	@mkdir -p $(@D)
	gcc -std=gnu11 -O2 -Wall -Wextra -Werror -o $@ $< -ldw -lelf

$(KCACHE)/%.current/vmlinux.vars: $(KCACHE)/%.current/vmlinux \
		$(BUILD)/host/xdt-kvars
	@$(BUILD)/host/xdt-kvars $< | LC_ALL=C sort -u >$@.tmp && mv $@.tmp $@

$(BUILD)/%/initramfs.cpio: $(BUILD)/%/init $$(call guest_dtrace,$$*) \
		$$(call guest_xdtko,$$*) $(BUILD)/%/xdt-rawprog $(BUILD)/%/xdt-runas $(BUILD)/%/xdt-fuzz \
		$(BUILD)/%/xdt-utarget $(BUILD)/%/xdt-usdt $(BUILD)/%/regs.d \
		$(BUILD)/%/xdt-udyn $(BUILD)/%/libxdtu.so.1 $(BUILD)/%/libxdtu2.so.1 \
		$$(call guest_dynlib_srcs,$$*) \
		$(foreach f,$(DLIB_GEN),$(BUILD)/%/dlib/$(f)) $(BUILD)/%/xdt-dfuzz $(BUILD)/%/xdt-failnth \
		$(BUILD)/%/xdt-bpfbench $(BUILD)/%/xdt-lua lua/xdt-watch $(WATCH_PROFILES) $(LUA_LIBS) \
		$(LUA_EXAMPLES) tools/mkinitramfs.py busybox mcpp $(DLIB) \
		$(KCACHE)/%.current/vmlinux.vars
	@$(PYTHON) tools/mkinitramfs.py $@ --init $< \
		--busybox $(XDT_CACHE)/busybox/$*.current \
		$(call guest_mcpp,$*) $(call guest_lua,$*) \
		--file $(BUILD)/$*/xdt-rawprog:/usr/bin/xdt-rawprog \
		--file $(BUILD)/$*/xdt-runas:/usr/bin/xdt-runas \
		--file $(BUILD)/$*/xdt-utarget:/usr/bin/xdt-utarget \
		--file $(BUILD)/$*/xdt-usdt:/usr/bin/xdt-usdt \
		--file $(BUILD)/$*/xdt-udyn:/usr/bin/xdt-udyn \
		--file $(BUILD)/$*/libxdtu.so.1:/usr/lib/libxdtu.so.1.0 \
		--symlink /usr/lib/libxdtu.so.1:libxdtu.so.1.0 \
		--file $(BUILD)/$*/libxdtu2.so.1:/usr/lib/libxdtu2.so.1 \
		$(foreach f,$(call guest_dynlibs,$*),--file $(f)) \
		--file guest/xdt_usdt.d:/usr/share/xdt/xdt_usdt.d \
		--file $(BUILD)/$*/xdt-fuzz:/usr/bin/xdt-fuzz \
		--file $(BUILD)/$*/xdt-dfuzz:/usr/bin/xdt-dfuzz \
		--file $(BUILD)/$*/xdt-failnth:/usr/bin/xdt-failnth \
		--file $(BUILD)/$*/xdt-bpfbench:/usr/bin/xdt-bpfbench \
		$(if $(DTRACE_SRCS),--file $(BUILD)/$*/dtrace:/usr/sbin/dtrace) \
		$(foreach f,$(DLIB),--file $(f):/usr/lib/xdt/$(notdir $(f))) \
		--file $(BUILD)/$*/regs.d:/usr/lib/xdt/regs.d \
		$(foreach f,$(DLIB_GEN),--file $(BUILD)/$*/dlib/$(f):/usr/lib/xdt/$(f)) \
		--file $(KCACHE)/$*.current/vmlinux.vars:/usr/lib/xdt/vmlinux.vars \
		$(if $(call guest_xdtko,$*),--file $(BUILD)/$*/xdt/xdt.ko:/lib/modules/xdt.ko)

guest: $(foreach i,$(isas),$(BUILD)/$(i)/initramfs.cpio)

# Out-of-tree modules build in a copy under $(BUILD): Kbuild writes its
# objects beside the sources, and the repository stays clean.  The copy
# is by content (--checksum) and does not keep the source's mtime (no -t):
# a file changed gets the time of the copy, so an object compiled from the
# old text while the source was being edited can never look newer than
# the new text (seen: a stale fbt.o survived a rebuild that way).
RSYNC := rsync -rlpD --checksum
MODULES := $(wildcard tests/guest/modules/*)
modules: kernels
	@for i in $(isas); do \
	  for m in $(MODULES); do \
	    d=$(BUILD)/$$i/modules/$$(basename $$m); mkdir -p $$d; \
	    $(RSYNC) $$m/ $$d/; \
	    tools/kmake $$i M=$$d modules || exit 1; \
	  done; \
	done

# xdt.ko for every ISA whose arch layer exists yet.
XDT_KO_SRCS := Kbuild $(shell find core providers -name '*.[ch]')
xdt-ko: kernels
	@for i in $(isas); do \
	  a=$$(awk -v i=$$i '$$1 == i { print $$2 }' arch/isas); \
	  if [ ! -f arch/$$a/trap.c ]; then \
	    echo "xdt.ko: no arch layer for $$i yet, skipped"; continue; fi; \
	  d=$(BUILD)/$$i/xdt; mkdir -p $$d/arch; \
	  $(RSYNC) Kbuild core providers $$d/; \
	  $(RSYNC) --delete --exclude '*.o' --exclude '.*.cmd' \
	    arch/$$a/ $$d/arch/; \
	  tools/kmake $$i M=$$d modules || exit 1; \
	done

test: all
	@tools/run-tests

# The host-only tests (compiler, consumer, host VM, tools): seconds, no
# guest boots; make test runs them first anyway.
test-host: all
	@tools/run-tests host

# The guest tests again on the debug kernels (arch/variants/debug.config):
# any KASAN, UBSAN, KFENCE, lockdep, RCU, BUG, WARNING or sleep-in-atomic
# report on the console during a test fails it (tools/xdtvm.py OOPS_RE).
# Host-only tests do not depend on the kernel and are not run again.
test-debug:
	@$(MAKE) --no-print-directory XDT_KVARIANT=debug all
	@XDT_KVARIANT=debug tools/run-tests guest

demo: all
	@tools/xdt-vm demo

# Probe cost, xdt against the eBPF mechanisms, per ISA (bench/README.md).
# ISAS/XDT_ISAS select the ISAs (exported above); results in bench/results/.
bench: all
	@$(PYTHON) bench/run.py

bench-quick: all
	@$(PYTHON) bench/run.py --quick

# What a record costs the consumer: dtrace(1) against xdt-lua's callbacks
# (bench/lua_consumer.py; docs/lua.md, "Cost").
bench-lua: all
	@$(PYTHON) bench/lua_consumer.py --isas $(subst $(space),$(comma),$(isas))

# The kgdb probe-insertion study (docs/kgdb-study.md): what kgdb and QEMU's
# gdbstub see of each probe mechanism, and a debugger breakpoint's cost per
# hit beside an xdt firing; one report per ISA in docs/study/.
study: all
	@$(PYTHON) bench/kgdbstudy.py

study-quick: all
	@$(PYTHON) bench/kgdbstudy.py --quick --out $(XDT_CACHE)/study-quick

# bpftrace (Debian's, on a second disk) against dtrace on the x86_64 guest:
# per-firing cost, attach time, memory (bench/bpftrace.md).
bench-bpftrace: all
	@$(PYTHON) bench/bpftrace.py

# The consumer side against bpftrace (issue 36; bench/README.md, "Issue 36:
# the consumer against bpftrace"): records/s without drops, a 10^5-key
# print, exec to first firing, RSS, kernel memory per probe; one boot per
# ISA in ISAS, bpftrace beside dtrace on x86_64 and aarch64.
bench-consumer: all
	@$(PYTHON) bench/consumer.py --isas $(subst $(space),$(comma),$(isas))

# Fuzz the DIF verifier and VM (guest/xdt-fuzz.c): FUZZ_N programs per ISA,
# then the guest's kernel log must hold no BUG, Oops or WARNING.
FUZZ_N ?= 100000
fuzz: all
	@for i in $(isas); do \
	  echo "== fuzz $$i: $(FUZZ_N) programs"; \
	  tools/xdt-vm run --arch $$i --timeout 36000 -- sh -c \
	    'insmod /lib/modules/xdt.ko && xdt-fuzz -n $(FUZZ_N) && \
	     if dmesg | grep -E "BUG|Oops|WARNING"; then exit 1; fi' || \
	    exit 1; \
	done

# The soak (bench/soak.py, docs/reliability.md): on the debug kernels, per ISA, 10^6
# fuzzed program objects, 10^5 fuzzed D programs, every-probe enablings,
# SIGKILLed consumers, module cycles, CPU hotplug, 1000 start/stop cycles
# under kmemleak, fail-nth and failslab/fail_page_alloc on xdt.ko's
# allocations.  Hours per ISA under TCG; SOAK_ARGS=--quick is ~100x less.
# The fuzz stages outlast a working session, so they also run in pieces:
# SOAK_ARGS="--stages fuzz-objects --cap 3600 --continue" starts after the
# last seed bench/soak-ledger.jsonl records and adds the piece to it;
# bench/soak.py --ledger-table adds the pieces up.
.PHONY: soak test-host
SOAK_ARGS ?=
soak: fuzz-san
	@$(MAKE) --no-print-directory XDT_KVARIANT=debug all
	@XDT_KVARIANT=debug $(PYTHON) bench/soak.py --isas $(subst $(space),$(comma),$(isas)) $(SOAK_ARGS)

clean-cache:
	rm -rf $(BUILD)
