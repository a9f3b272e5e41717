# Lua 5.4 for the guest binaries that embed it: a static liblua.a and its
# public headers per guest ISA, cross-built from Debian's lua5.4 source
# package by tools/build-lua.sh, cached like mcpp under
# $(XDT_CACHE)/lua/ISA-KEY (KEY: source version, script, cross compiler).
# The host uses Debian's liblua5.4-dev (tools/deps.sh).  Included by the
# Makefile; what links a guest's Lua depends on `lua` and uses lua_dir:
#   -I$(call lua_dir,ISA)/include ... $(call lua_dir,ISA)/liblua.a -lm
.PHONY: lua
lua: deps
	@for i in $(isas); do tools/build-lua.sh $$i || exit 1; done

# The directory with ISA $(1)'s liblua.a and include/ (lua.h, luaconf.h,
# lualib.h, lauxlib.h, lua.hpp and Debian's lua5.4-deb-multiarch.h).
lua_dir = $(XDT_CACHE)/lua/$(1).current
