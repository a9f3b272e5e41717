/*
 * trace() in dtrace(1)'s default layout, as DTrace prints it: integers by
 * the record's size, not the type's sign (8 bytes signed in 16 columns, 4
 * as a signed int in 8, 2 and 1 zero-extended in 5 and 3); a string after
 * two spaces, left-justified in 33; an empty string, and a struct whose
 * bytes are not text, as a hex dump; a struct of 8 bytes as an integer;
 * a char array that holds text as the text.
 */
struct odd {
	char c[3];
	int i;
	short s;
};
struct eight {
	int a;
	int b;
};
struct odd o;
struct eight e;
char name[8];

BEGIN
{
	trace((char)-1);
	trace((unsigned char)200);
	trace((short)-2);
	trace((int)-3);
	trace((uint32_t)0xffffffff);
	trace(-4);
	trace((uint64_t)-5);
}

BEGIN
{
	trace("hello");
	trace("");
}

BEGIN
{
	o.c[0] = 'x';
	o.i = 0x01020304;
	o.s = -1;
	e.a = 1;
	e.b = 2;
	name[0] = 'x';
	name[1] = 'd';
	name[2] = 't';
	trace(o);
	trace(e);
	trace(name);
	exit(0);
}
