/* flags: -q */
/*
 * D-declared types: struct, union, enum, typedef, bit-fields, arrays,
 * sizeof, offsetof, inline, member access, pointer arithmetic.
 */
struct point {
	int x;
	int y;
};

struct flags {
	unsigned int a : 3;
	int b : 4;
	unsigned char c;
	uint64_t d;
};

union word {
	uint32_t w;
	uint8_t b[4];
};

enum color { RED, GREEN = 5, BLUE };
typedef struct point point_t;
inline int ANSWER = 6 * 7;

point_t p;
struct flags f;
union word u;
int arr[4];

BEGIN
{
	p.x = 3;
	p.y = -4;
	f.a = 9;	/* 3 bits: 1 */
	f.b = -3;
	f.c = 200;
	f.d = 0x100000000;
	u.w = 0x11223344;
	arr[0] = 10;
	arr[3] = 13;
	printf("%d %d %d\n", p.x, p.y, p.x * p.y);
	printf("%d %d %d %d\n", f.a, f.b, f.c, f.d > 0xffffffff);
	printf("%x %x %x\n", u.w, u.b[0], u.b[3]);
	printf("%d %d %d\n", RED, GREEN, BLUE);
	printf("%d %d %d %d\n", sizeof (struct point), sizeof (point_t),
	    sizeof (struct flags), sizeof (union word));
	printf("%d %d %d\n", offsetof(struct flags, c), offsetof(struct flags, d),
	    offsetof(point_t, y));
	printf("%d %d %d\n", ANSWER, arr[0] + arr[3], arr[1]);
	printf("%d %d\n", sizeof (arr), sizeof (enum color));
	this->c = BLUE;
	printf("%d\n", this->c == BLUE);
	exit(0);
}
