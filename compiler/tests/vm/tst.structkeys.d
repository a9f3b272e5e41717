/* flags: -q */
/*
 * Struct, union and array values as keys, by their bytes (DTrace's
 * by-reference tuple elements, PUSHTR): two values with the same bytes
 * are one key; a key mixes with integer and string keys, in global and
 * thread-local arrays, and in aggregations, whose keys print as
 * dt_print_datum() prints them: 1, 2, 4 or 8 bytes as an integer of that
 * size, others through dt_print_bytes() (a string if they read as one,
 * else a hex dump), and sort as illumos' dt_aggregate_keycmp() (those
 * sizes as unsigned integers, others byte by byte).  A key read through a
 * bad address faults: ERROR, and the next clause runs.
 */
union record { int position; char content; };
struct pt { int x; short y; };
struct tag { char s[6]; };
struct odd { int a; char b[5]; };

union record r1, r2;
struct pt p, q;
struct tag t;
struct odd o, o2;
int arr[3];
int sig[struct pt, string];

BEGIN
{
	r1.position = 1;
	r1.content = 'a';
	r2.position = 1;
	r2.content = 'a';
	assoc[r1] = 1000;
	assoc[r2] = 2000;
	printf("assoc: %d %d\n", assoc[r1], assoc[r2]);

	p.x = 1;
	p.y = 2;
	q = p;
	q.y = 3;
	self->m[p, 1, "x"] = 10;
	self->m[q, 1, "x"] = 20;
	self->m[p, 2, "x"] = 30;
	printf("self->m: %d %d %d %d\n", self->m[p, 1, "x"], self->m[q, 1, "x"],
	    self->m[p, 2, "x"], self->m[q, 2, "x"]);
	self->m[q, 1, "x"] = 0;
	printf("freed: %d %d\n", self->m[q, 1, "x"], self->m[p, 1, "x"]);

	sig[p, "a"] = 4;
	sig[q, "a"] = 5;
	printf("declared: %d %d\n", sig[p, "a"], sig[q, "a"]);

	arr[0] = 1;
	arr[2] = 3;
	byarr[arr] = 7;
	printf("array key: %d", byarr[arr]);
	arr[1] = 2;
	printf(", changed: %d\n", byarr[arr]);

	@u[r1] = count();
	@u[r2] = count();
	@p[q] = sum(2);
	@p[p] = sum(2);
	t.s[0] = 'k';
	t.s[1] = 'e';
	t.s[2] = 'y';
	@t[t, 1] = count();
	o.a = 2;
	o2.a = 1;
	o2.b[0] = 'z';
	@o[o, "k"] = count();
	@o[o2, "k"] = count();
	printa(@u);
	printa(@p);
	printa(@t);
	printa(@o);
}

BEGIN
{
	@f[*(struct pt *)8] = count();
	printf("not reached\n");
}

BEGIN
{
	a[*(struct odd *)16, 1] = 1;
	printf("not reached\n");
}

ERROR
{
	printf("ERROR: fault %d at %#x\n", arg4, arg5);
}

BEGIN
{
	printf("carried on\n");
	exit(0);
}
