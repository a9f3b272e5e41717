/* flags: -q */
/*
 * Bit-fields of every width class, read and written in each storage a
 * struct can have: a global, a thread-local, a clause-local and an
 * associative array's value.  DTrace's layout gives a field of width w
 * ceil(w / 8) bytes at an offset that is a multiple of that size (3, 5, 6
 * and 7 bytes too), so a unit may be neither 1, 2, 4 nor 8 bytes nor
 * aligned: its stores once faulted ("invalid alignment").  Each pass sets
 * every field to all ones, writes a pattern (top bit set, crossing bytes)
 * into the even fields and then the odd ones, and prints them all after
 * each: a write that spilt into a neighbour shows.  Signed fields read
 * back sign-extended; a value wider than its field keeps its low bits.
 */
struct w {
	uint8_t head;
	uint8_t f1:1;
	uint8_t f7:7;
	uint16_t f9:9;
	uint16_t f16:16;
	uint32_t f17:17;
	uint32_t f24:24;
	uint32_t f25:25;
	uint64_t f33:33;
	uint64_t f40:40;
	uint64_t f41:41;
	uint64_t f48:48;
	uint64_t f49:49;
	uint64_t f56:56;
	uint64_t f57:57;
	uint64_t f64:64;
	int64_t s40:40;
	int32_t s20:20;
	uint8_t tail;
};

struct two { uint64_t a:40; uint64_t b:24; };

struct w g;
struct w a[int];
self struct w t;
this struct w l;
struct two g2;

BEGIN
{
	g.head = 0x5a;
	g.tail = 0xa5;
	g.f1 = -1;
	g.f7 = -1;
	g.f9 = -1;
	g.f16 = -1;
	g.f17 = -1;
	g.f24 = -1;
	g.f25 = -1;
	g.f33 = -1;
	g.f40 = -1;
	g.f41 = -1;
	g.f48 = -1;
	g.f49 = -1;
	g.f56 = -1;
	g.f57 = -1;
	g.f64 = -1;
	g.s40 = -1;
	g.s20 = -1;
	printf("%x %x %x %x %x %x %x %x %x\n", g.head, g.f1, g.f7, g.f9, g.f16, g.f17, g.f24, g.f25, g.f33);
	printf("  %x %x %x %x %x %x %x %d %d %x\n", g.f40, g.f41, g.f48, g.f49, g.f56, g.f57, g.f64, g.s40, g.s20, g.tail);
	g.f1 = 0x1;
	g.f9 = 0x1ef;
	g.f17 = 0x1cdef;
	g.f25 = 0x1abcdef;
	g.f40 = 0xe789abcdef;
	g.f48 = 0xc56789abcdef;
	g.f56 = 0xa3456789abcdef;
	g.f64 = 0x8123456789abcdef;
	g.s20 = 0xbcdef;
	printf("%x %x %x %x %x %x %x %x %x\n", g.head, g.f1, g.f7, g.f9, g.f16, g.f17, g.f24, g.f25, g.f33);
	printf("  %x %x %x %x %x %x %x %d %d %x\n", g.f40, g.f41, g.f48, g.f49, g.f56, g.f57, g.f64, g.s40, g.s20, g.tail);
	g.f7 = 0x6f;
	g.f16 = 0xcdef;
	g.f24 = 0xabcdef;
	g.f33 = 0x189abcdef;
	g.f41 = 0x16789abcdef;
	g.f49 = 0x1456789abcdef;
	g.f57 = 0x123456789abcdef;
	g.s40 = 0xe789abcdef;
	printf("%x %x %x %x %x %x %x %x %x\n", g.head, g.f1, g.f7, g.f9, g.f16, g.f17, g.f24, g.f25, g.f33);
	printf("  %x %x %x %x %x %x %x %d %d %x\n", g.f40, g.f41, g.f48, g.f49, g.f56, g.f57, g.f64, g.s40, g.s20, g.tail);
}

BEGIN
{
	self->t.head = 0x5a;
	self->t.tail = 0xa5;
	self->t.f1 = -1;
	self->t.f7 = -1;
	self->t.f9 = -1;
	self->t.f16 = -1;
	self->t.f17 = -1;
	self->t.f24 = -1;
	self->t.f25 = -1;
	self->t.f33 = -1;
	self->t.f40 = -1;
	self->t.f41 = -1;
	self->t.f48 = -1;
	self->t.f49 = -1;
	self->t.f56 = -1;
	self->t.f57 = -1;
	self->t.f64 = -1;
	self->t.s40 = -1;
	self->t.s20 = -1;
	printf("%x %x %x %x %x %x %x %x %x\n", self->t.head, self->t.f1, self->t.f7, self->t.f9, self->t.f16, self->t.f17, self->t.f24, self->t.f25, self->t.f33);
	printf("  %x %x %x %x %x %x %x %d %d %x\n", self->t.f40, self->t.f41, self->t.f48, self->t.f49, self->t.f56, self->t.f57, self->t.f64, self->t.s40, self->t.s20, self->t.tail);
	self->t.f1 = 0x1;
	self->t.f9 = 0x1ef;
	self->t.f17 = 0x1cdef;
	self->t.f25 = 0x1abcdef;
	self->t.f40 = 0xe789abcdef;
	self->t.f48 = 0xc56789abcdef;
	self->t.f56 = 0xa3456789abcdef;
	self->t.f64 = 0x8123456789abcdef;
	self->t.s20 = 0xbcdef;
	printf("%x %x %x %x %x %x %x %x %x\n", self->t.head, self->t.f1, self->t.f7, self->t.f9, self->t.f16, self->t.f17, self->t.f24, self->t.f25, self->t.f33);
	printf("  %x %x %x %x %x %x %x %d %d %x\n", self->t.f40, self->t.f41, self->t.f48, self->t.f49, self->t.f56, self->t.f57, self->t.f64, self->t.s40, self->t.s20, self->t.tail);
	self->t.f7 = 0x6f;
	self->t.f16 = 0xcdef;
	self->t.f24 = 0xabcdef;
	self->t.f33 = 0x189abcdef;
	self->t.f41 = 0x16789abcdef;
	self->t.f49 = 0x1456789abcdef;
	self->t.f57 = 0x123456789abcdef;
	self->t.s40 = 0xe789abcdef;
	printf("%x %x %x %x %x %x %x %x %x\n", self->t.head, self->t.f1, self->t.f7, self->t.f9, self->t.f16, self->t.f17, self->t.f24, self->t.f25, self->t.f33);
	printf("  %x %x %x %x %x %x %x %d %d %x\n", self->t.f40, self->t.f41, self->t.f48, self->t.f49, self->t.f56, self->t.f57, self->t.f64, self->t.s40, self->t.s20, self->t.tail);
}

BEGIN
{
	this->l.head = 0x5a;
	this->l.tail = 0xa5;
	this->l.f1 = -1;
	this->l.f7 = -1;
	this->l.f9 = -1;
	this->l.f16 = -1;
	this->l.f17 = -1;
	this->l.f24 = -1;
	this->l.f25 = -1;
	this->l.f33 = -1;
	this->l.f40 = -1;
	this->l.f41 = -1;
	this->l.f48 = -1;
	this->l.f49 = -1;
	this->l.f56 = -1;
	this->l.f57 = -1;
	this->l.f64 = -1;
	this->l.s40 = -1;
	this->l.s20 = -1;
	printf("%x %x %x %x %x %x %x %x %x\n", this->l.head, this->l.f1, this->l.f7, this->l.f9, this->l.f16, this->l.f17, this->l.f24, this->l.f25, this->l.f33);
	printf("  %x %x %x %x %x %x %x %d %d %x\n", this->l.f40, this->l.f41, this->l.f48, this->l.f49, this->l.f56, this->l.f57, this->l.f64, this->l.s40, this->l.s20, this->l.tail);
	this->l.f1 = 0x1;
	this->l.f9 = 0x1ef;
	this->l.f17 = 0x1cdef;
	this->l.f25 = 0x1abcdef;
	this->l.f40 = 0xe789abcdef;
	this->l.f48 = 0xc56789abcdef;
	this->l.f56 = 0xa3456789abcdef;
	this->l.f64 = 0x8123456789abcdef;
	this->l.s20 = 0xbcdef;
	printf("%x %x %x %x %x %x %x %x %x\n", this->l.head, this->l.f1, this->l.f7, this->l.f9, this->l.f16, this->l.f17, this->l.f24, this->l.f25, this->l.f33);
	printf("  %x %x %x %x %x %x %x %d %d %x\n", this->l.f40, this->l.f41, this->l.f48, this->l.f49, this->l.f56, this->l.f57, this->l.f64, this->l.s40, this->l.s20, this->l.tail);
	this->l.f7 = 0x6f;
	this->l.f16 = 0xcdef;
	this->l.f24 = 0xabcdef;
	this->l.f33 = 0x189abcdef;
	this->l.f41 = 0x16789abcdef;
	this->l.f49 = 0x1456789abcdef;
	this->l.f57 = 0x123456789abcdef;
	this->l.s40 = 0xe789abcdef;
	printf("%x %x %x %x %x %x %x %x %x\n", this->l.head, this->l.f1, this->l.f7, this->l.f9, this->l.f16, this->l.f17, this->l.f24, this->l.f25, this->l.f33);
	printf("  %x %x %x %x %x %x %x %d %d %x\n", this->l.f40, this->l.f41, this->l.f48, this->l.f49, this->l.f56, this->l.f57, this->l.f64, this->l.s40, this->l.s20, this->l.tail);
}

BEGIN
{
	a[7].head = 0x5a;
	a[7].tail = 0xa5;
	a[7].f1 = -1;
	a[7].f7 = -1;
	a[7].f9 = -1;
	a[7].f16 = -1;
	a[7].f17 = -1;
	a[7].f24 = -1;
	a[7].f25 = -1;
	a[7].f33 = -1;
	a[7].f40 = -1;
	a[7].f41 = -1;
	a[7].f48 = -1;
	a[7].f49 = -1;
	a[7].f56 = -1;
	a[7].f57 = -1;
	a[7].f64 = -1;
	a[7].s40 = -1;
	a[7].s20 = -1;
	printf("%x %x %x %x %x %x %x %x %x\n", a[7].head, a[7].f1, a[7].f7, a[7].f9, a[7].f16, a[7].f17, a[7].f24, a[7].f25, a[7].f33);
	printf("  %x %x %x %x %x %x %x %d %d %x\n", a[7].f40, a[7].f41, a[7].f48, a[7].f49, a[7].f56, a[7].f57, a[7].f64, a[7].s40, a[7].s20, a[7].tail);
	a[7].f1 = 0x1;
	a[7].f9 = 0x1ef;
	a[7].f17 = 0x1cdef;
	a[7].f25 = 0x1abcdef;
	a[7].f40 = 0xe789abcdef;
	a[7].f48 = 0xc56789abcdef;
	a[7].f56 = 0xa3456789abcdef;
	a[7].f64 = 0x8123456789abcdef;
	a[7].s20 = 0xbcdef;
	printf("%x %x %x %x %x %x %x %x %x\n", a[7].head, a[7].f1, a[7].f7, a[7].f9, a[7].f16, a[7].f17, a[7].f24, a[7].f25, a[7].f33);
	printf("  %x %x %x %x %x %x %x %d %d %x\n", a[7].f40, a[7].f41, a[7].f48, a[7].f49, a[7].f56, a[7].f57, a[7].f64, a[7].s40, a[7].s20, a[7].tail);
	a[7].f7 = 0x6f;
	a[7].f16 = 0xcdef;
	a[7].f24 = 0xabcdef;
	a[7].f33 = 0x189abcdef;
	a[7].f41 = 0x16789abcdef;
	a[7].f49 = 0x1456789abcdef;
	a[7].f57 = 0x123456789abcdef;
	a[7].s40 = 0xe789abcdef;
	printf("%x %x %x %x %x %x %x %x %x\n", a[7].head, a[7].f1, a[7].f7, a[7].f9, a[7].f16, a[7].f17, a[7].f24, a[7].f25, a[7].f33);
	printf("  %x %x %x %x %x %x %x %d %d %x\n", a[7].f40, a[7].f41, a[7].f48, a[7].f49, a[7].f56, a[7].f57, a[7].f64, a[7].s40, a[7].s20, a[7].tail);
}

BEGIN
{
	g2.a = 0x123456789;
	g2.b = 0xabcdef;
	printf("%x %x %d\n", g2.a, g2.b, sizeof (g2));
	g2.a = 0x1ffffffffff;
	printf("%x %x\n", g2.a, g2.b);
	g.f41 = 0xffffffffff;
	g.f41++;
	g.f17 += 0x10001;
	g.s20 = -5;
	g.s20 -= 3;
	printf("%x %x %d\n", g.f41, g.f17, g.s20);
	print(g2);
	exit(0);
}
