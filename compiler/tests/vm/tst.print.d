/* flags: -q */
/*
 * print() by the value's D type, as DTrace's dtrace_print(): the type, then
 * the value (integers in hex, chars quoted, enums by name, strings
 * quoted), a struct member by member with bit-field widths, nested structs
 * and arrays; a struct ends at its brace.
 */
enum color { RED, GREEN = 5, BLUE };
struct inner {
	short x;
	char tag[4];
};
struct outer {
	int n;
	unsigned int flags:3;
	unsigned int mode:5;
	enum color c;
	struct inner in;
	int v[3];
	char *p;
};
struct outer o;

BEGIN
{
	print((char)'z');
	print((char)0);
	print((uint8_t)255);
	print((long)-1);
	print(GREEN);
	print((enum color)7);
	print("str");
	o.n = 42;
	o.flags = 5;
	o.mode = 17;
	o.c = BLUE;
	o.in.x = -2;
	o.in.tag[0] = 'o';
	o.in.tag[1] = 'k';
	o.v[0] = 1;
	o.v[2] = 3;
	o.p = (char *)0x1000;
	print(o);
	printf("\n");
	print(o.v);
	printf("\n");
	exit(0);
}
