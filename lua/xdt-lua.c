// SPDX-License-Identifier: GPL-2.0
/*
 * xdt-lua - a Lua 5.4 interpreter with libxdt's bindings built in (the
 * module `xdt`, lxdt.c).  Static in every guest, where no C module can be
 * loaded (no dlopen), so the bindings are preloaded; on the host it links
 * Debian's liblua5.4 and compiles D without a kernel (-e; xdt.open's
 * compile and dis need none).
 *
 *   xdt-lua [-e CODE]... [SCRIPT [ARG]...]     SCRIPT "-": standard input
 *
 * As lua(1): the global `arg` holds SCRIPT at 0 and its arguments from 1,
 * which the chunk also gets as `...`; without SCRIPT nor -e it reads a
 * script from standard input (arg[0] is then the interpreter).  Uncaught errors print with a traceback
 * (an error object's __tostring first: a compile error prints as dtrace(1)
 * prints it) and exit 1.  package.path starts with $XDT_LUA_PATH, else
 * XDT_LUADIR's ?.lua (the profiles' helpers live there), then Lua's own.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <lua.h>
#include <lauxlib.h>
#include <lualib.h>
#include "lxdt.h"

#ifndef XDT_LUADIR
#define XDT_LUADIR "/usr/share/xdt/lua"
#endif

static int msghandler(lua_State *L)
{
	const char *msg = lua_tostring(L, 1);

	if (!msg) {
		if (luaL_callmeta(L, 1, "__tostring") && lua_type(L, -1) == LUA_TSTRING)
			/* a compile error: dtrace(1)'s message is the whole story */
			return 1;
		msg = lua_pushfstring(L, "(error object is a %s value)",
				      luaL_typename(L, 1));
	}
	luaL_traceback(L, L, msg, 1);
	return 1;
}

static int report(lua_State *L, int status)
{
	if (status != LUA_OK) {
		const char *msg = lua_tostring(L, -1);

		fflush(stdout);
		/* a compile error is dtrace(1)'s message, already prefixed */
		fprintf(stderr, "%s%s\n", strncmp(msg, "dtrace: ", 8) ? "xdt-lua: " : "", msg);
		lua_pop(L, 1);
	}
	return status;
}

static int docall(lua_State *L, int nargs)
{
	int base = lua_gettop(L) - nargs, status;

	lua_pushcfunction(L, msghandler);
	lua_insert(L, base);
	status = lua_pcall(L, nargs, 0, base);
	lua_remove(L, base);
	return status;
}

static void set_path(lua_State *L)
{
	const char *env = getenv("XDT_LUA_PATH");

	lua_getglobal(L, "package");
	lua_getfield(L, -1, "path");
	if (env && *env)
		/* the profiles' library stays reachable */
		lua_pushfstring(L, "%s;%s/?.lua;%s", env, XDT_LUADIR, lua_tostring(L, -1));
	else
		lua_pushfstring(L, "%s/?.lua;%s", XDT_LUADIR, lua_tostring(L, -1));
	lua_setfield(L, -3, "path");
	lua_pop(L, 2);
}

static void usage(void)
{
	fprintf(stderr, "usage: xdt-lua [-e CODE]... [SCRIPT [ARG]...]\n"
		"       SCRIPT - reads the script from standard input\n");
	exit(2);
}

static int pmain(lua_State *L)
{
	int argc = (int)lua_tointeger(L, 1);
	char **argv = lua_touserdata(L, 2);
	int i, script = 0, ran = 0;

	luaL_openlibs(L);
	luaL_requiref(L, "xdt", luaopen_xdt, 0);
	lua_pop(L, 1);
	set_path(L);
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-e")) {
			if (++i == argc)
				usage();
			continue;
		}
		if (!strcmp(argv[i], "--")) {
			i++;
			break;
		}
		if (argv[i][0] == '-' && argv[i][1])
			usage();
		break;
	}
	script = i < argc ? i : 0;
	/* arg: the script at 0, its arguments from 1 (as lua(1) has it) */
	lua_createtable(L, argc, 1);
	for (int j = 0; j < argc; j++) {
		lua_pushstring(L, argv[j]);
		lua_rawseti(L, -2, j - (script ? script : 0));
	}
	lua_setglobal(L, "arg");
	for (i = 1; i < (script ? script : argc); i++) {
		if (strcmp(argv[i], "-e"))
			continue;
		i++;
		ran = 1;
		if (report(L, luaL_loadbuffer(L, argv[i], strlen(argv[i]), "=(command line)")) ||
		    report(L, docall(L, 0)))
			return 0;
	}
	if (script || !ran) {
		const char *f = script && strcmp(argv[script], "-") ? argv[script] : NULL;
		int n = 0;

		if (report(L, luaL_loadfile(L, f)))
			return 0;
		for (int j = script ? script + 1 : argc; j < argc; j++, n++)
			lua_pushstring(L, argv[j]);
		if (report(L, docall(L, n)))
			return 0;
	}
	lua_pushboolean(L, 1);
	return 1;
}

int main(int argc, char **argv)
{
	lua_State *L = luaL_newstate();
	int status, ok;

	if (!L) {
		fprintf(stderr, "xdt-lua: cannot create the Lua state\n");
		return 1;
	}
	lua_pushcfunction(L, pmain);
	lua_pushinteger(L, argc);
	lua_pushlightuserdata(L, argv);
	status = lua_pcall(L, 2, 1, 0);
	ok = status == LUA_OK && lua_toboolean(L, -1);
	if (status != LUA_OK)
		report(L, status);
	/* closing the state collects the handles: tracing stops cleanly */
	lua_close(L);
	return ok ? 0 : 1;
}
