/*
 * The USDT demo's provider (guest/xdt-usdt.c): its header is made by
 * dtrace -h from this file at build time (Makefile), as a user's would.
 */
provider xdt_usdt {
	probe tick(int, long, char *);
	probe query__start(char *query, unsigned short id);
	probe neg(signed char, short);
	probe done(int);
};
