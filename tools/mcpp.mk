# mcpp, the C preprocessor behind `dtrace -C` (compiler/cpp.c), for every
# guest at /usr/bin/mcpp: cross-built statically from Debian's mcpp source
# package by tools/build-mcpp.sh, cached like busybox under
# $(XDT_CACHE)/mcpp/ISA-KEY (KEY: source version, script, cross compiler).
# The host uses Debian's mcpp package (tools/deps.sh).  Included by the
# Makefile; the guest initramfs depends on `mcpp`.
.PHONY: mcpp
mcpp: deps
	@for i in $(isas); do tools/build-mcpp.sh $$i || exit 1; done

# mkinitramfs.py's argument that puts ISA $(1)'s mcpp in its initramfs.
guest_mcpp = --file $(XDT_CACHE)/mcpp/$(1).current/mcpp:/usr/bin/mcpp
