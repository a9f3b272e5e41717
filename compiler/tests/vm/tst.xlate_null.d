/* flags: -q */
/*
 * Translating a NULL pointer, as DTrace does: xlate<T *>(p)->m and
 * xlate<T>(p).m evaluate member m alone, so a member that does not read
 * through p (or guards it, as DTrace's library translators do) gives its
 * value; the integer constant 0 -- NULL -- or a void * is a pointer input,
 * taking the first translator to T whose input is a pointer; a whole translation
 * evaluates every member; a member that does read through NULL fires
 * ERROR like any other load.
 */
struct in {
	int a;
	struct in *next;
};

struct out {
	int x;
	int y;
	string s;
};

struct deep {
	int z;
};

translator struct out < struct in *I > {
	x = I == NULL ? -1 : I->a;
	y = 7;
	s = I == NULL ? "<none>" : "some";
};

translator struct deep < struct in *I > {
	z = I->a;
};

struct in *p;

BEGIN
{
	printf("%d %d %s\n", xlate<struct out *>(p)->x,
	    xlate<struct out *>(p)->y, xlate<struct out>(p).s);
	printf("%d %s %d\n", xlate<struct out *>(NULL)->x,
	    xlate<struct out *>(0)->s, xlate<struct out *>((void *)0)->x);
	this->o = xlate<struct out *>(p);
	printf("%d %d %s\n", this->o->x, this->o->y, this->o->s);
	print(xlate<struct out>(NULL));
	printf("\n");
}

BEGIN
{
	printf("%d\n", xlate<struct deep *>(p)->z);
}

ERROR
{
	printf("ERROR: fault %d addr %d\n", arg4, arg5);
}
