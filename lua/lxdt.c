// SPDX-License-Identifier: GPL-2.0
/*
 * lxdt.c - Lua 5.4 bindings of libxdt (libxdt/libxdt.h): the module
 * `xdt`, built into xdt-lua (lua/xdt-lua.c).  docs/lua.md is the manual.
 *
 *   local xdt = require "xdt"
 *   local h = xdt.open()
 *   h:setopt("bufsize", "1m")
 *   h:compile[[syscall::read:entry { trace(execname); trace(arg2); }]]
 *   h:go()
 *   h:loop{ record = function(r) print(r.execname, r.arg2) end, seconds = 5 }
 *   h:stop()
 *
 * A record is a table: its values by position (r[1]..r[#r]) and by the
 * text of the D expression that recorded them (r.execname, r["arg2"],
 * r["self->ts"]), r.cpu, r.text (what dtrace prints for it), and
 * r.probe, one table per enabled probe shared by its records (id, epid,
 * provider, module, func, name, desc, clause, and the clause's layout:
 * fields, types).
 *
 * Errors are Lua errors: a compile error is a table (file, line, col, msg,
 * tag, srcline) whose __tostring is dtrace(1)'s message with its caret; the
 * rest are strings.  A Lua error in a callback stops the drain of that
 * buffer (the records after it in the same read are lost, as in a dtrace
 * killed mid-read) and is raised again from work()/loop() once libxdt has
 * returned: never longjmp across libxdt's frames.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <lua.h>
#include <lauxlib.h>
#include "libxdt.h"
#include "lxdt.h"

#define HANDLE_MT	"xdt.handle"
#define CERROR_MT	"xdt.cerror"

struct lhdl {
	xdt_hdl_t *h;
	int going, stopped;
	/* while libxdt calls back: the state, the callbacks table's index,
	   and a callback's error (a reference, LUA_NOREF if none) */
	lua_State *L;
	int cbidx;
	int err;
	int stop;		/* a callback returned true */
	int epcache;		/* registry ref: epid -> probe table */
};

static struct lhdl *check_hdl(lua_State *L, int i)
{
	struct lhdl *lh = luaL_checkudata(L, i, HANDLE_MT);

	if (!lh->h)
		luaL_error(L, "xdt handle is closed");
	return lh;
}

/* ---- values ------------------------------------------------------------- */

static void push_value(lua_State *L, const struct xdt_value *v)
{
	switch (v->kind) {
	case XDT_VAL_INT:
		/* Lua's integers are 64-bit two's complement: a uint64_t past
		   2^63 reads negative (math.ult compares it unsigned) */
		lua_pushinteger(L, (lua_Integer)v->i);
		break;
	case XDT_VAL_STRING:
	case XDT_VAL_MEMORY:
		lua_pushlstring(L, v->s, v->len);
		break;
	case XDT_VAL_STACK: {
		char sym[512];

		lua_createtable(L, (int)v->nframes, 0);
		for (unsigned i = 0; xdt_frame(v, i, sym, sizeof(sym)); i++) {
			lua_pushstring(L, sym);
			lua_rawseti(L, -2, (lua_Integer)i + 1);
		}
		break;
	}
	}
}

/* Keys a record table holds itself, which a value's name never takes */
static int reserved(const char *name)
{
	return !strcmp(name, "cpu") || !strcmp(name, "probe") ||
	       !strcmp(name, "text");
}

/*
 * The probe table of a record's enabled probe, made once per EPID from its
 * first record (the layout's names and types come with the values); a
 * fault's, which has no record, is made without the layout and not kept.
 */
static void push_probe(struct lhdl *lh, lua_State *L, const struct xdt_record *r)
{
	const struct xdt_eprobe *ep = r->ep;
	int n = xdt_record_nvalues(lh->h, r);
	char desc[sizeof(ep->desc)];

	lua_rawgeti(L, LUA_REGISTRYINDEX, lh->epcache);
	if (lua_rawgeti(L, -1, ep->epid) == LUA_TTABLE) {
		lua_remove(L, -2);
		return;
	}
	lua_pop(L, 1);
	lua_createtable(L, 0, 10);
	lua_pushinteger(L, ep->probe);
	lua_setfield(L, -2, "id");
	lua_pushinteger(L, ep->epid);
	lua_setfield(L, -2, "epid");
	lua_pushinteger(L, r->clause + 1);
	lua_setfield(L, -2, "clause");
	lua_pushstring(L, ep->desc.prov);
	lua_setfield(L, -2, "provider");
	lua_pushstring(L, ep->desc.mod);
	lua_setfield(L, -2, "module");
	lua_pushstring(L, ep->desc.func);
	lua_setfield(L, -2, "func");
	lua_pushstring(L, ep->desc.name);
	lua_setfield(L, -2, "name");
	snprintf(desc, sizeof(desc), "%s:%s:%s:%s", ep->desc.prov, ep->desc.mod,
		 ep->desc.func, ep->desc.name);
	lua_pushstring(L, desc);
	lua_setfield(L, -2, "desc");
	lua_createtable(L, n, 0);	/* fields */
	lua_createtable(L, n, 0);	/* types */
	for (int i = 0; i < n; i++) {
		struct xdt_value v;

		if (xdt_record_value(lh->h, r, i, &v))
			break;
		if (v.name)
			lua_pushstring(L, v.name);
		else
			lua_pushboolean(L, 0);
		lua_rawseti(L, -3, i + 1);
		lua_pushstring(L, v.type);
		lua_rawseti(L, -2, i + 1);
	}
	lua_setfield(L, -3, "types");
	lua_setfield(L, -2, "fields");
	if (r->data) {
		lua_pushvalue(L, -1);
		lua_rawseti(L, -3, ep->epid);
	}
	lua_remove(L, -2);
}

static void push_record(struct lhdl *lh, lua_State *L, const struct xdt_record *r)
{
	int n = xdt_record_nvalues(lh->h, r);
	size_t len;
	char *text;

	lua_createtable(L, n, n + 3);
	for (int i = 0; i < n; i++) {
		struct xdt_value v;

		if (xdt_record_value(lh->h, r, i, &v))
			break;
		push_value(L, &v);
		if (v.name && !reserved(v.name)) {
			/* the first value of a name keeps it */
			if (lua_getfield(L, -2, v.name) == LUA_TNIL) {
				lua_pop(L, 1);
				lua_pushvalue(L, -1);
				lua_setfield(L, -3, v.name);
			} else {
				lua_pop(L, 1);
			}
		}
		lua_rawseti(L, -2, i + 1);
	}
	lua_pushinteger(L, r->cpu);
	lua_setfield(L, -2, "cpu");
	push_probe(lh, L, r);
	lua_setfield(L, -2, "probe");
	text = xdt_record_consume(lh->h, r, &len);
	lua_pushlstring(L, text ? text : "", text ? len : 0);
	free(text);
	lua_setfield(L, -2, "text");
}

/* ---- callbacks from libxdt ---------------------------------------------- */

/*
 * Call callbacks[@name] with the @nargs values on the stack (popped); a
 * true result asks to stop.  An error is kept for work() to raise.
 */
static int call_cb(struct lhdl *lh, lua_State *L, const char *name, int nargs)
{
	int stop;

	if (lh->err != LUA_NOREF) {
		lua_pop(L, nargs);
		return 1;
	}
	if (lua_getfield(L, lh->cbidx, name) != LUA_TFUNCTION) {
		lua_pop(L, nargs + 1);
		return 0;
	}
	lua_insert(L, -nargs - 1);
	if (lua_pcall(L, nargs, 1, 0) != LUA_OK) {
		lh->err = luaL_ref(L, LUA_REGISTRYINDEX);
		return 1;
	}
	stop = lua_toboolean(L, -1);
	lua_pop(L, 1);
	if (stop)
		lh->stop = 1;
	return stop;
}

static int on_record(xdt_hdl_t *h, const struct xdt_record *r, void *arg)
{
	struct lhdl *lh = arg;
	lua_State *L = lh->L;

	(void)h;
	if (!lua_checkstack(L, 8))
		return 1;
	push_record(lh, L, r);
	return call_cb(lh, L, "record", 1);
}

static int on_fault(xdt_hdl_t *h, const struct xdt_fault *f, void *arg)
{
	struct lhdl *lh = arg;
	lua_State *L = lh->L;

	(void)h;
	lua_createtable(L, 0, 7);
	if (f->ep) {
		struct xdt_record r = { 0, f->ep, (int)f->ep->clause, NULL, 0 };

		push_probe(lh, L, &r);
		lua_setfield(L, -2, "probe");
	}
	lua_pushinteger(L, (lua_Integer)f->action);
	lua_setfield(L, -2, "action");
	lua_pushinteger(L, (lua_Integer)f->pc);
	lua_setfield(L, -2, "pc");
	lua_pushinteger(L, (lua_Integer)f->kind);
	lua_setfield(L, -2, "kind");
	lua_pushinteger(L, (lua_Integer)f->addr);
	lua_setfield(L, -2, "addr");
	lua_pushstring(L, f->what);
	lua_setfield(L, -2, "what");
	return call_cb(lh, L, "fault", 1);
}

static void on_drop(xdt_hdl_t *h, enum xdt_dropkind kind, int cpu, __u64 n,
		    void *arg)
{
	struct lhdl *lh = arg;
	lua_State *L = lh->L;

	(void)h;
	lua_pushstring(L, kind == XDT_DROP_PRINCIPAL ? "principal" : "aggregation");
	lua_pushinteger(L, cpu);
	lua_pushinteger(L, (lua_Integer)n);
	call_cb(lh, L, "drop", 3);
}

/*
 * The consumer for one work()/stop() call: a member for each callback the
 * table at @idx has (the others keep DTrace's printers).  Pushes nothing.
 */
static void consumer_of(struct lhdl *lh, lua_State *L, int idx,
			struct xdt_consumer *c)
{
	memset(c, 0, sizeof(*c));
	c->arg = lh;
	lh->L = L;
	lh->cbidx = idx;
	lh->err = LUA_NOREF;
	lh->stop = 0;
	if (!idx || !lua_istable(L, idx))
		return;
	if (lua_getfield(L, idx, "record") == LUA_TFUNCTION)
		c->record = on_record;
	if (lua_getfield(L, idx, "fault") == LUA_TFUNCTION)
		c->fault = on_fault;
	if (lua_getfield(L, idx, "drop") == LUA_TFUNCTION)
		c->drop = on_drop;
	lua_pop(L, 3);
}

/* Raise a callback's error, if one was kept */
static void rethrow(struct lhdl *lh, lua_State *L)
{
	if (lh->err == LUA_NOREF)
		return;
	lua_rawgeti(L, LUA_REGISTRYINDEX, lh->err);
	luaL_unref(L, LUA_REGISTRYINDEX, lh->err);
	lh->err = LUA_NOREF;
	lua_error(L);
}

/* ---- the handle --------------------------------------------------------- */

static int l_open(lua_State *L)
{
	struct lhdl *lh = lua_newuserdatauv(L, sizeof(*lh), 0);

	memset(lh, 0, sizeof(*lh));
	lh->err = LUA_NOREF;
	lh->h = xdt_open();
	if (!lh->h)
		return luaL_error(L, "xdt: cannot open a handle");
	lua_newtable(L);
	lh->epcache = luaL_ref(L, LUA_REGISTRYINDEX);
	luaL_setmetatable(L, HANDLE_MT);
	return 1;
}

static int discard(xdt_hdl_t *h, const struct xdt_record *r, void *arg)
{
	(void)h, (void)r, (void)arg;
	return 0;
}

static int l_close(lua_State *L)
{
	struct lhdl *lh = luaL_checkudata(L, 1, HANDLE_MT);

	if (lh->h) {
		/* collected while tracing: stop, and drop what is left */
		if (lh->going && !lh->stopped)
			xdt_stop(lh->h, &(struct xdt_consumer){ .record = discard });
		xdt_close(lh->h);
		lh->h = NULL;
		luaL_unref(L, LUA_REGISTRYINDEX, lh->epcache);
	}
	return 0;
}

static int l_setopt(lua_State *L)
{
	struct lhdl *lh = check_hdl(L, 1);
	const char *name = luaL_checkstring(L, 2);
	const char *val = NULL;
	char num[32];

	if (lua_isinteger(L, 3)) {
		snprintf(num, sizeof(num), "%lld", (long long)lua_tointeger(L, 3));
		val = num;
	} else if (lua_isboolean(L, 3)) {
		val = lua_toboolean(L, 3) ? NULL : "false";
	} else {
		val = luaL_optstring(L, 3, NULL);
	}
	if (xdt_setopt(lh->h, name, val) < 0)
		return luaL_error(L, "%s", xdt_errmsg(lh->h));
	lua_settop(L, 1);
	return 1;
}

static int cerror_tostring(lua_State *L)
{
	lua_getfield(L, 1, "message");
	return 1;
}

/* h:compile(text [, name]): raises the compile error as a table */
static int l_compile(lua_State *L)
{
	struct lhdl *lh = check_hdl(L, 1);
	const char *src = luaL_checkstring(L, 2);
	const char *name = luaL_optstring(L, 3, "<program>");
	struct xdt_cerror e;
	char *msg = NULL;
	size_t len = 0;
	FILE *fp;

	if (lh->going)
		return luaL_error(L, "xdt: compile before go()");
	memset(&e, 0, sizeof(e));
	if (xdt_compile(lh->h, src, name, 0, &e) == 0) {
		lua_settop(L, 1);
		return 1;
	}
	lua_createtable(L, 0, 8);
	lua_pushstring(L, e.file);
	lua_setfield(L, -2, "file");
	lua_pushinteger(L, e.line);
	lua_setfield(L, -2, "line");
	lua_pushinteger(L, e.col);
	lua_setfield(L, -2, "col");
	lua_pushstring(L, e.msg);
	lua_setfield(L, -2, "msg");
	lua_pushstring(L, e.tagname ? e.tagname : "");
	lua_setfield(L, -2, "tag");
	lua_pushstring(L, e.srcline);
	lua_setfield(L, -2, "srcline");
	fp = open_memstream(&msg, &len);
	if (fp) {
		xdt_cerror_print(lh->h, &e, fp);
		fclose(fp);
	}
	/* dtrace(1)'s text without its last newline, as an error message is */
	if (msg && len && msg[len - 1] == '\n')
		len--;
	lua_pushlstring(L, msg ? msg : e.msg, msg ? len : strlen(e.msg));
	free(msg);
	lua_setfield(L, -2, "message");
	luaL_setmetatable(L, CERROR_MT);
	return lua_error(L);
}

/* h:macros{...}: $1.. (strings); h:target(pid): $target */
static int l_macros(lua_State *L)
{
	struct lhdl *lh = check_hdl(L, 1);
	int n;
	char **argv;

	luaL_checktype(L, 2, LUA_TTABLE);
	n = (int)luaL_len(L, 2);
	argv = calloc((size_t)n + 1, sizeof(*argv));
	if (!argv)
		return luaL_error(L, "out of memory");
	for (int i = 0; i < n; i++) {
		lua_geti(L, 2, i + 1);
		argv[i] = strdup(luaL_tolstring(L, -1, NULL));
		lua_pop(L, 2);
	}
	/* libxdt keeps the vector: it is the handle's until exit */
	xdt_set_macros(lh->h, argv, n);
	lua_settop(L, 1);
	return 1;
}

static int l_target(lua_State *L)
{
	struct lhdl *lh = check_hdl(L, 1);

	xdt_set_target(lh->h, (pid_t)luaL_checkinteger(L, 2));
	lua_settop(L, 1);
	return 1;
}

static int l_dis(lua_State *L)
{
	struct lhdl *lh = check_hdl(L, 1);
	char *s = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&s, &len);

	if (!fp)
		return luaL_error(L, "out of memory");
	xdt_dis(lh->h, fp);
	fclose(fp);
	lua_pushlstring(L, s, len);
	free(s);
	return 1;
}

static int l_go(lua_State *L)
{
	struct lhdl *lh = check_hdl(L, 1);

	if (lh->going)
		return luaL_error(L, "xdt: already tracing");
	if (xdt_go(lh->h) < 0)
		return luaL_error(L, "%s", xdt_errmsg(lh->h));
	lh->going = 1;
	lua_settop(L, 1);
	return 1;
}

static const char *work_name(int r)
{
	return r == XDT_WORK_DONE ? "done" : "okay";
}

/*
 * h:work([callbacks]): libxdt's xdt_work(): every CPU's buffer is read
 * once switchrate has passed since the last read (else nothing is), and
 * exit() is noticed at the statusrate: "okay", "done" or, when a callback
 * returned true, "stopped".
 */
static int l_work(lua_State *L)
{
	struct lhdl *lh = check_hdl(L, 1);
	struct xdt_consumer c;
	int r;

	if (!lh->going || lh->stopped)
		return luaL_error(L, "xdt: not tracing");
	consumer_of(lh, L, lua_istable(L, 2) ? 2 : 0, &c);
	r = xdt_work(lh->h, &c);
	rethrow(lh, L);
	if (r == XDT_WORK_ERROR)
		return luaL_error(L, "%s", xdt_errmsg(lh->h));
	lua_pushstring(L, r == XDT_WORK_DONE ? "done" : lh->stop ? "stopped" :
		       work_name(r));
	return 1;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void sleep_s(double s)
{
	struct timespec ts;

	if (s <= 0)
		return;
	ts.tv_sec = (time_t)s;
	ts.tv_nsec = (long)((s - (double)ts.tv_sec) * 1e9);
	while (nanosleep(&ts, &ts) && errno == EINTR && !lxdt_interrupted)
		;
}

volatile sig_atomic_t lxdt_interrupted;

static void on_sigint(int sig)
{
	(void)sig;
	lxdt_interrupted = 1;
}

/*
 * h:loop{record=, fault=, drop=, tick=, every=, seconds=}: work() at the
 * switch rate until exit() ran ("done"), a callback returned true
 * ("stopped"), @seconds passed ("timeout") or SIGINT/SIGTERM came
 * ("interrupted", as dtrace(1) ends on ^C).  tick() runs every @every
 * seconds (default 1).  It does not stop tracing: stop() does.
 */
static int l_loop(lua_State *L)
{
	struct lhdl *lh = check_hdl(L, 1);
	struct sigaction sa, oint, oterm;
	double start = now_s(), every = 1, secs = 0, next;
	const char *why = NULL;
	struct xdt_consumer c;

	if (!lh->going || lh->stopped)
		return luaL_error(L, "xdt: not tracing");
	if (!lua_isnoneornil(L, 2))
		luaL_checktype(L, 2, LUA_TTABLE);
	else
		lua_newtable(L), lua_replace(L, 2);
	lua_settop(L, 2);
	if (lua_getfield(L, 2, "every") != LUA_TNIL && !lua_isnumber(L, -1))
		return luaL_error(L, "xdt: loop's every must be a number");
	every = lua_isnil(L, -1) ? every : lua_tonumber(L, -1);
	if (lua_getfield(L, 2, "seconds") != LUA_TNIL && !lua_isnumber(L, -1))
		return luaL_error(L, "xdt: loop's seconds must be a number");
	secs = lua_isnil(L, -1) ? secs : lua_tonumber(L, -1);
	lua_pop(L, 2);
	if (every <= 0)
		return luaL_error(L, "xdt: loop's every must be positive");
	next = start + every;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_sigint;
	lxdt_interrupted = 0;
	sigaction(SIGINT, &sa, &oint);
	sigaction(SIGTERM, &sa, &oterm);
	while (!why) {
		long us = xdt_switchrate_us(lh->h);
		double t, wait = us / 1e6;
		int r;

		t = now_s();
		if (t + wait > next)
			wait = next - t;
		if (secs > 0 && t + wait > start + secs)
			wait = start + secs - t;
		/* (sooner when a traced process waits for its dlopen()'s probes) */
		if (wait > 0)
			xdt_wait(lh->h, (long)(wait * 1e6));
		consumer_of(lh, L, 2, &c);
		r = xdt_work(lh->h, &c);
		if (lh->err != LUA_NOREF || r == XDT_WORK_ERROR)
			break;
		if (r == XDT_WORK_DONE)
			why = "done";
		else if (lh->stop)
			why = "stopped";
		t = now_s();
		if (!why && t >= next) {
			next += every;
			if (next <= t)
				next = t + every;
			lua_pushnumber(L, t - start);
			if (call_cb(lh, L, "tick", 1) && lh->err == LUA_NOREF)
				why = "stopped";
			if (lh->err != LUA_NOREF)
				break;
		}
		if (!why && lxdt_interrupted)
			why = "interrupted";
		if (!why && secs > 0 && now_s() - start >= secs)
			why = "timeout";
	}
	sigaction(SIGINT, &oint, NULL);
	sigaction(SIGTERM, &oterm, NULL);
	rethrow(lh, L);
	if (!why)
		return luaL_error(L, "%s", xdt_errmsg(lh->h));
	lua_pushstring(L, why);
	return 1;
}

/* h:stop([callbacks]): END fires; what is left goes to the callbacks */
static int l_stop(lua_State *L)
{
	struct lhdl *lh = check_hdl(L, 1);
	struct xdt_consumer c;
	int r;

	if (!lh->going || lh->stopped)
		return luaL_error(L, "xdt: not tracing");
	consumer_of(lh, L, lua_istable(L, 2) ? 2 : 0, &c);
	r = xdt_stop(lh->h, &c);
	lh->stopped = 1;
	rethrow(lh, L);
	if (r < 0)
		return luaL_error(L, "%s", xdt_errmsg(lh->h));
	lua_settop(L, 1);
	return 1;
}

struct snapctx {
	lua_State *L;
	int top;		/* the snapshot table */
};

static int snap_entry(const struct xdt_aggentry *e, void *arg)
{
	struct snapctx *s = arg;
	lua_State *L = s->L;
	lua_Integer n;

	if (!lua_checkstack(L, 10))
		return 1;
	/* snapshot[name] = { name =, func =, [i] = entry } */
	if (lua_getfield(L, s->top, e->name) != LUA_TTABLE) {
		lua_pop(L, 1);
		lua_createtable(L, 4, 2);
		lua_pushstring(L, e->name);
		lua_setfield(L, -2, "name");
		lua_pushstring(L, e->func);
		lua_setfield(L, -2, "func");
		lua_pushvalue(L, -1);
		lua_setfield(L, s->top, e->name);
		lua_pushvalue(L, -1);
		lua_rawseti(L, s->top, luaL_len(L, s->top) + 1);
	}
	n = luaL_len(L, -1);
	lua_createtable(L, 0, 4);
	lua_createtable(L, e->nkeys, 0);
	for (int k = 0; k < e->nkeys; k++) {
		push_value(L, &e->keys[k]);
		lua_rawseti(L, -2, k + 1);
	}
	lua_setfield(L, -2, "keys");
	if (e->buckets) {
		lua_createtable(L, e->nbuckets, 0);
		for (int b = 0; b < e->nbuckets; b++) {
			lua_createtable(L, 0, 3);
			lua_pushinteger(L, e->buckets[b].value);
			lua_setfield(L, -2, "value");
			lua_pushinteger(L, e->buckets[b].count);
			lua_setfield(L, -2, "count");
			if (e->buckets[b].bound) {
				lua_pushstring(L, e->buckets[b].bound < 0 ? "below" : "above");
				lua_setfield(L, -2, "bound");
			}
			lua_rawseti(L, -2, b + 1);
		}
		lua_setfield(L, -2, "buckets");
	} else {
		lua_pushinteger(L, e->value);
		lua_setfield(L, -2, "value");
	}
	if (!strcmp(e->func, "avg") || !strcmp(e->func, "stddev")) {
		lua_pushinteger(L, e->count);
		lua_setfield(L, -2, "count");
		lua_pushinteger(L, e->sum);
		lua_setfield(L, -2, "sum");
	}
	lua_rawseti(L, -2, n + 1);
	lua_pop(L, 1);
	return 0;
}

/*
 * h:aggregations(): every aggregation now, as a table by name ("" for @)
 * and in order of first appearance ([1]..); each holds name, func and its
 * entries in DTrace's print order: { keys = {...}, value = n } or, for a
 * distribution, { keys, buckets = { {value=, count=[, bound=]}... } }.
 */
static int l_aggregations(lua_State *L)
{
	struct lhdl *lh = check_hdl(L, 1);
	struct snapctx s = { L, 0 };

	lua_newtable(L);
	s.top = lua_gettop(L);
	if (xdt_aggsnapshot(lh->h, snap_entry, &s) < 0)
		return luaL_error(L, "%s", xdt_errmsg(lh->h));
	lua_settop(L, s.top);
	return 1;
}

/* h:printaggs(): the aggregations as dtrace(1) prints them at its end */
static int l_printaggs(lua_State *L)
{
	struct lhdl *lh = check_hdl(L, 1);

	fflush(stdout);
	if (xdt_aggwalk(lh->h, NULL, NULL) < 0)
		return luaL_error(L, "%s", xdt_errmsg(lh->h));
	fflush(stdout);
	return 0;
}

static int l_status(lua_State *L)
{
	struct lhdl *lh = check_hdl(L, 1);
	struct xdt_status st;

	if (xdt_status(lh->h, &st) < 0)
		return luaL_error(L, "%s", xdt_errmsg(lh->h));
	lua_createtable(L, 0, 12);
#define F(n) (lua_pushinteger(L, (lua_Integer)st.n), lua_setfield(L, -2, #n))
	F(drops); F(aggdrops); F(errors); F(firings); F(traps); F(exited);
	F(dyndrops); F(dyndrops_dirty); F(specdrops); F(specbusy);
	F(specunavail); F(dblerrors); F(filled);
#undef F
	return 1;
}

/* h:report(): dtrace(1)'s end-of-run lines about drops and errors */
static int l_report(lua_State *L)
{
	struct lhdl *lh = check_hdl(L, 1);
	struct xdt_status st;

	fflush(stdout);
	if (xdt_status(lh->h, &st) == 0)
		xdt_report_drops(lh->h, &st);
	return 0;
}

static int l_exitstatus(lua_State *L)
{
	lua_pushinteger(L, xdt_exit_status(check_hdl(L, 1)->h));
	return 1;
}

static int l_switchrate(lua_State *L)
{
	lua_pushnumber(L, xdt_switchrate_us(check_hdl(L, 1)->h) / 1e6);
	return 1;
}

static int l_tostring(lua_State *L)
{
	struct lhdl *lh = luaL_checkudata(L, 1, HANDLE_MT);

	lua_pushfstring(L, "xdt handle (%s)", !lh->h ? "closed" : lh->stopped ?
			"stopped" : lh->going ? "tracing" : "compiling");
	return 1;
}

/* ---- module functions ---------------------------------------------------- */

static int l_sleep(lua_State *L)
{
	sleep_s(luaL_checknumber(L, 1));
	return 0;
}

static int l_now(lua_State *L)
{
	lua_pushnumber(L, now_s());
	return 1;
}

static int l_ksym(lua_State *L)
{
	char sym[512];

	xdt_ksym((__u64)luaL_checkinteger(L, 1), sym, sizeof(sym));
	lua_pushstring(L, sym);
	return 1;
}

static int l_interrupted(lua_State *L)
{
	lua_pushboolean(L, lxdt_interrupted);
	return 1;
}

static const luaL_Reg handle_methods[] = {
	{ "setopt", l_setopt }, { "compile", l_compile }, { "macros", l_macros },
	{ "target", l_target }, { "dis", l_dis }, { "go", l_go },
	{ "work", l_work }, { "loop", l_loop }, { "stop", l_stop },
	{ "aggregations", l_aggregations }, { "printaggs", l_printaggs },
	{ "status", l_status }, { "report", l_report },
	{ "exitstatus", l_exitstatus }, { "switchrate", l_switchrate },
	{ "close", l_close }, { NULL, NULL }
};

static const luaL_Reg module_funcs[] = {
	{ "open", l_open }, { "sleep", l_sleep }, { "now", l_now },
	{ "ksym", l_ksym }, { "interrupted", l_interrupted }, { NULL, NULL }
};

int luaopen_xdt(lua_State *L)
{
	if (luaL_newmetatable(L, HANDLE_MT)) {
		luaL_newlib(L, handle_methods);
		lua_setfield(L, -2, "__index");
		lua_pushcfunction(L, l_close);
		lua_setfield(L, -2, "__gc");
		lua_pushcfunction(L, l_close);
		lua_setfield(L, -2, "__close");
		lua_pushcfunction(L, l_tostring);
		lua_setfield(L, -2, "__tostring");
	}
	lua_pop(L, 1);
	if (luaL_newmetatable(L, CERROR_MT)) {
		lua_pushcfunction(L, cerror_tostring);
		lua_setfield(L, -2, "__tostring");
	}
	lua_pop(L, 1);
	luaL_newlib(L, module_funcs);
	lua_pushliteral(L, "xdt " LXDT_VERSION);
	lua_setfield(L, -2, "version");
	return 1;
}
