/* SPDX-License-Identifier: GPL-2.0 */
/* The Lua bindings of libxdt (lxdt.c), as xdt-lua (xdt-lua.c) opens them. */
#ifndef LXDT_H
#define LXDT_H

#include <signal.h>
#include <lua.h>

#define LXDT_VERSION	"0.1"

int luaopen_xdt(lua_State *L);
/* SIGINT or SIGTERM came during h:loop() (outside it they keep their
   default action: the process ends, as any Lua script does) */
extern volatile sig_atomic_t lxdt_interrupted;

#endif
