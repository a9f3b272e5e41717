/* flags: -q */
/*
 * bcopy() between overlapping ranges of scratch moves the bytes, as
 * DTrace's dtrace_bcopy does (memmove()'s result), in either direction
 * and over any distance; found by the sanitized host VM's fuzzing, where
 * DIF's copy was a plain memcpy (undefined) and smeared the bytes in the
 * kernel's forward copy.  The same for a struct assigned over itself
 * shifted by one member (DIF's copys).
 */
struct three {
	uint64_t a;
	uint64_t b;
	uint64_t c;
};

BEGIN
{
	q = (char *)alloca(9);
	q[0] = 'a'; q[1] = 'b'; q[2] = 'c'; q[3] = 'd';
	q[4] = 'e'; q[5] = 'f'; q[6] = 'g'; q[7] = 'h'; q[8] = '\0';
	p = (char *)alloca(32);
	bcopy(q, p, 9);
	bcopy(p, p + 2, 6);
	printf("up 2:   %s\n", stringof(p));
	bcopy(q, p, 9);
	bcopy(p + 2, p, 6);
	printf("down 2: %s\n", stringof(p));
	bcopy(q, p, 9);
	bcopy(p, p + 1, 7);
	printf("up 1:   %s\n", stringof(p));
	bcopy(q, p, 9);
	bcopy(p + 7, p, 1);
	printf("down 7: %s\n", stringof(p));

	s = (struct three *)alloca(sizeof (struct three) + 8);
	s->a = 1;
	s->b = 2;
	s->c = 3;
	*(struct three *)((char *)s + 8) = *s;
	printf("struct: %d %d %d %d\n", s->a, s->b, s->c,
	    *(uint64_t *)((char *)s + 24));
	exit(0);
}
