// SPDX-License-Identifier: GPL-2.0
/*
 * Subroutines: one function per row of DIF_SUBRS (uapi/dif.h), named
 * after it.  Portable core (probe context in the kernel; the host VM runs
 * the same code).  Arguments arrive on the tuple stack, already checked
 * against the row's kinds and count (xdt_subr_call).
 *
 * Semantics are DTrace's, including its corner cases (substr's negative
 * positions, index/rindex's Perl-like clamping, lltostr's 0x and 0
 * prefixes), but for one choice: a string result longer than strsize - 1
 * characters is cut there (fit()), where illumos faults.
 *
 * Strings.  A string argument is an address of kernel memory (a literal, a
 * variable, scratch, kernel data).  Each one is first copied into scratch
 * through the fault-safe string copy (xdt_readstr, which also holds a
 * consumer without CAP_SYS_ADMIN to memory of its own: vars.c, Reads), at most strsize - 1 bytes: the
 * computation then runs on plain memory, and a bad address is one clean
 * fault.  A string result is written to scratch (strsize bytes, reserved
 * before the argument copies), at most strsize - 1 characters and its NUL,
 * and the copies are released before
 * returning, so a subroutine costs its clause strsize bytes of scratch
 * (DTrace's own accounting).  Results that point into an argument (strchr,
 * strstr, strtok's saved position) point into the caller's string, not the
 * copy.  User memory (copyin*) is read with the environment's user copy,
 * which in the kernel never sleeps: a page that is not resident faults.
 */
#include "xdt_impl.h"

typedef int (*subr_fn)(struct xdt_mstate *m, const struct xdt_tuple *t,
		       u64 *rv, u32 pc);

#define SUBR(name) \
	static int __xdt_probe subr_##name(struct xdt_mstate *m, \
					   const struct xdt_tuple *t, u64 *rv, \
					   u32 pc)
#define ARG(i)		(t->e[i].v)

#define AF_INET_LINUX	2	/* Linux's: the addresses are Linux's */
#define AF_INET6_LINUX	10

static int __xdt_probe fault(struct xdt_mstate *m, int kind, u64 addr,
			     u32 pc)
{
	xdt_dif_fault(m, kind, addr, pc);
	return -EFAULT;
}

/* @n zeroed bytes of scratch, or NULL (NOSCRATCH raised). */
static char *__xdt_probe scratch(struct xdt_mstate *m, u64 n, u32 pc)
{
	u64 a;

	if (xdt_scratch_alloc(m, n, &a, pc))
		return NULL;
	return (char *)(unsigned long)a;
}

/*
 * A copy of the string at @addr in scratch, NUL-terminated, its length in
 * *@len: at most strsize bytes (a string of strsize bytes has no NUL).
 */
static char *__xdt_probe sarg(struct xdt_mstate *m, u64 addr, u32 pc,
			      u32 *len)
{
	char *s = scratch(m, m->strsize + 1, pc);
	long n;

	if (!s)
		return NULL;
	n = xdt_readstr(m, s, addr, m->strsize);
	if (n < 0) {
		fault(m, (int)-n, addr, pc);
		return NULL;
	}
	s[n] = '\0';
	if (len)
		*len = n;
	return s;
}

/*
 * How many of a result's @n characters a string keeps: strsize - 1, then
 * its NUL.  Trade-off: illumos faults ("out of scratch space") when
 * strjoin() and its like would not fit; Oracle's DTrace for Linux cuts the
 * string at strsize, and so does xdt -- a too-long path or name is still
 * worth seeing, and the limit is the one every other string already has
 * (docs/d-language.md).
 */
static inline u32 __xdt_probe fit(const struct xdt_mstate *m, u64 n)
{
	return n < m->strsize ? (u32)n : m->strsize - 1;
}

/* xorshift64*: rand() must not call into the kernel's (probe-able) RNG. */
SUBR(RAND)
{
	u64 x = m->vc->rand;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	m->vc->rand = x;
	*rv = (x * 0x2545f4914f6cdd1dULL) >> 33;
	return 0;
}

/* speculation(): a free speculation's id, or 0 (spec.c counts why) */
SUBR(SPECULATION)
{
	(void)t;
	(void)pc;
	*rv = m->spec ? xdt_spec_alloc(m->spec, m->sc) : 0;
	return 0;
}

SUBR(STRLEN)
{
	u32 mark = m->scratch_used, n;

	if (!sarg(m, ARG(0), pc, &n))
		return -EFAULT;
	m->scratch_used = mark;
	*rv = n;
	return 0;
}

/* ---- memory --------------------------------------------------------------------- */
SUBR(COPYIN)
{
	char *d;

	d = scratch(m, ARG(1), pc);
	if (!d)
		return -EFAULT;
	if (xdt_copyin_nofault(d, ARG(0), ARG(1)))
		return fault(m, XDT_FAULT_BADADDR, ARG(0), pc);
	*rv = (unsigned long)d;
	return 0;
}

SUBR(COPYINSTR)
{
	u64 size = m->strsize;
	char *d;

	/* copyinstr(addr, n): at most n bytes, then the NUL */
	if (t->n > 1 && ARG(1) < size)
		size = ARG(1) + 1;
	d = scratch(m, m->strsize, pc);
	if (!d)
		return -EFAULT;
	if (xdt_ustrcpy_nofault(d, ARG(0), size) < 0)
		return fault(m, XDT_FAULT_BADADDR, ARG(0), pc);
	*rv = (unsigned long)d;
	return 0;
}

SUBR(COPYINTO)
{
	char *d = xdt_mem_dest(m, ARG(2), ARG(1), pc);

	if (!d)
		return -EFAULT;
	if (xdt_copyin_nofault(d, ARG(0), ARG(1)))
		return fault(m, XDT_FAULT_BADADDR, ARG(0), pc);
	return 0;
}

/* bcopy(src, dest, size): DTrace wants dest in scratch (alloca'd). */
SUBR(BCOPY)
{
	int f;

	if (!xdt_in_scratch(m, ARG(1), ARG(2)))
		return fault(m, XDT_FAULT_BADADDR, ARG(1), pc);
	f = xdt_move(m, ARG(1), ARG(0), ARG(2));
	if (f)
		return fault(m, f, ARG(0), pc);
	return 0;
}

/*
 * copyout(buf, uaddr, n), copyoutstr(s, uaddr, max) (destructive: the
 * verifier lets them in only under -w): the source is read through a
 * scratch bounce buffer, so an unreadable kernel address faults as a load
 * does, and the user write never sleeps (a page not resident faults).
 */
SUBR(COPYOUT)
{
	u32 mark = m->scratch_used;
	char *b = scratch(m, ARG(2), pc);
	int f;

	if (!b)
		return -EFAULT;
	f = xdt_move(m, (u64)(unsigned long)b, ARG(0), ARG(2));
	if (f)
		return fault(m, f, ARG(0), pc);
	if (xdt_copyout_nofault(ARG(1), b, ARG(2)))
		return fault(m, XDT_FAULT_BADADDR, ARG(1), pc);
	m->scratch_used = mark;
	return 0;
}

SUBR(COPYOUTSTR)
{
	u32 mark = m->scratch_used, n;
	char *s = sarg(m, ARG(0), pc, &n);

	if (!s)
		return -EFAULT;
	n++;				/* with its NUL */
	if (n > ARG(2))
		n = ARG(2);
	if (xdt_copyout_nofault(ARG(1), s, n))
		return fault(m, XDT_FAULT_BADADDR, ARG(1), pc);
	m->scratch_used = mark;
	return 0;
}

/* ---- strings ---------------------------------------------------------------------- */
SUBR(STRJOIN)
{
	char *d = scratch(m, m->strsize, pc), *a, *b;
	u32 keep = m->scratch_used, la, lb;

	if (!d || !(a = sarg(m, ARG(0), pc, &la)) ||
	    !(b = sarg(m, ARG(1), pc, &lb)))
		return -EFAULT;
	m->scratch_used = keep;
	la = fit(m, la);
	lb = fit(m, (u64)la + lb) - la;
	memcpy(d, a, la);
	memcpy(d + la, b, lb);
	d[la + lb] = '\0';
	*rv = (unsigned long)d;
	return 0;
}

SUBR(SUBSTR)
{
	char *d = scratch(m, m->strsize, pc), *s;
	u32 keep = m->scratch_used, len;
	s64 index = ARG(1), remaining, size = m->strsize, i;

	if (!d || !(s = sarg(m, ARG(0), pc, &len)))
		return -EFAULT;
	m->scratch_used = keep;
	remaining = t->n > 2 ? (s64)ARG(2) : size;
	if (index < 0) {
		index += len;
		if (index < 0 && index + remaining > 0) {
			remaining += index;
			index = 0;
		}
	}
	if (index >= len || index < 0)
		remaining = 0;
	else if (remaining < 0)
		remaining += len - index;
	else if (index + remaining > size - 1)
		remaining = size - 1 - index;
	for (i = 0; i < remaining && s[index + i]; i++)
		d[i] = s[index + i];
	d[i] = '\0';
	*rv = (unsigned long)d;
	return 0;
}

/*
 * Position of @sub in @s (at most strsize - 1 bytes each): the first at or
 * after @from (@dir > 0) or the last at or before it (@dir < 0); -1 if
 * none, -2 when scratch ran out (NOSCRATCH raised).
 *
 * Knuth-Morris-Pratt, so the time is linear in len + sublen whatever the
 * strings: a naive scan is len x sublen compares -- for strstr(a^4095,
 * a^2047 b) eight million in probe context.  The failure table (a u16
 * per byte of @sub -- strsize is at most 64k, so an entry, below sublen,
 * fits -- 128 KiB at most) is taken from scratch.  A backward
 * search is the forward one over both strings reversed.
 */
#define AT(p, n, x)	(dir > 0 ? (p)[x] : (p)[(n) - 1 - (x)])
_Static_assert(XDT_STRSIZE_MAX - 1 <= 0xffff, "find()'s u16 failure table");
static s64 __xdt_probe find(struct xdt_mstate *m, u32 pc, const char *s,
			    s64 len, const char *sub, s64 sublen, s64 from,
			    int dir)
{
	s64 start, top, q, k, i;
	u16 *f;

	if (!sublen)
		return dir > 0 ? (from < len ? from : -1) : (from >= 0 ? from : -1);
	if (dir > 0) {
		start = from;
	} else {
		top = min(from, len - sublen);
		if (top < 0)
			return -1;
		start = len - sublen - top;
	}
	if (start < 0 || start + sublen > len)
		return -1;
	f = (u16 *)scratch(m, sublen * sizeof(u16), pc);
	if (!f)
		return -2;
	for (k = 0, q = 1; q < sublen; q++) {
		while (k > 0 && AT(sub, sublen, q) != AT(sub, sublen, k))
			k = f[k - 1];
		if (AT(sub, sublen, q) == AT(sub, sublen, k))
			k++;
		f[q] = k;
	}
	for (q = 0, i = start; i < len; i++) {
		while (q > 0 && AT(s, len, i) != AT(sub, sublen, q))
			q = f[q - 1];
		if (AT(s, len, i) == AT(sub, sublen, q))
			q++;
		if (q == sublen) {
			i -= sublen - 1;
			return dir > 0 ? i : len - sublen - i;
		}
	}
	return -1;
}
#undef AT

static int __xdt_probe index_common(struct xdt_mstate *m,
				    const struct xdt_tuple *t, u64 *rv,
				    u32 pc, int subr)
{
	u32 mark = m->scratch_used, len, sublen;
	char *s, *sub;
	s64 pos, r = -1;

	if (!(s = sarg(m, ARG(0), pc, &len)) ||
	    !(sub = sarg(m, ARG(1), pc, &sublen)))
		return -EFAULT;
	if (!len && !sublen) {
		r = 0;
		goto out;
	}
	pos = subr == DIF_SUBR_RINDEX ? len : 0;
	if (t->n > 2 && subr != DIF_SUBR_STRSTR) {
		/* Perl's clamping, as DTrace keeps it (empty @sub too) */
		pos = ARG(2);
		if (subr == DIF_SUBR_RINDEX) {
			if (pos < 0) {
				r = sublen ? -1 : 0;
				goto out;
			}
			if (pos > len)
				pos = len;
		} else {
			if (pos < 0)
				pos = 0;
			if (pos >= len) {
				r = sublen ? -1 : len;
				goto out;
			}
		}
	}
	/* s and sub stay in scratch below the table find() takes */
	r = find(m, pc, s, len, sub, sublen, pos,
		 subr == DIF_SUBR_RINDEX ? -1 : 1);
out:
	m->scratch_used = mark;
	if (r == -2)
		return -EFAULT;
	if (subr == DIF_SUBR_STRSTR)
		*rv = r < 0 ? 0 : ARG(0) + r;
	else
		*rv = (u64)r;
	return 0;
}

SUBR(INDEX)
{
	return index_common(m, t, rv, pc, DIF_SUBR_INDEX);
}

SUBR(RINDEX)
{
	return index_common(m, t, rv, pc, DIF_SUBR_RINDEX);
}

SUBR(STRSTR)
{
	return index_common(m, t, rv, pc, DIF_SUBR_STRSTR);
}

/* strchr, strrchr: the terminating NUL is a character too, as in C. */
static int __xdt_probe chr(struct xdt_mstate *m, const struct xdt_tuple *t,
			   u64 *rv, u32 pc, int last)
{
	u32 mark = m->scratch_used, len, i;
	char c = (char)ARG(1), *s = sarg(m, ARG(0), pc, &len);

	if (!s)
		return -EFAULT;
	m->scratch_used = mark;
	*rv = 0;
	for (i = 0; i <= len; i++) {
		if (s[i] == c) {
			*rv = ARG(0) + i;
			if (!last)
				break;
		}
	}
	return 0;
}

SUBR(STRCHR)
{
	return chr(m, t, rv, pc, 0);
}

SUBR(STRRCHR)
{
	return chr(m, t, rv, pc, 1);
}

/*
 * strtok(s, delims) / strtok(NULL, delims): the position after a token is
 * kept per CPU for the rest of the firing (DTrace's dtms_strtok), and
 * points into the caller's string.
 */
SUBR(STRTOK)
{
	char *d = scratch(m, m->strsize, pc), *s, *delim;
	u32 keep = m->scratch_used, len, dlen, i, j;
	u64 base = t->e[0].str ? ARG(0) : m->vc->strtok;
	u8 map[32] = { 0 };

	if (!d)
		return -EFAULT;
	*rv = 0;
	if (!base) {		/* strtok(NULL, ...) with nothing saved */
		m->scratch_used = keep;
		return 0;
	}
	if (!(s = sarg(m, base, pc, &len)) ||
	    !(delim = sarg(m, ARG(1), pc, &dlen)))
		return -EFAULT;
	m->scratch_used = keep;
	m->vc->locals_dirty = 1;	/* cleared with this-> at the firing's end */
	for (i = 0; i < dlen; i++)
		map[(u8)delim[i] >> 3] |= 1 << ((u8)delim[i] & 7);
	for (i = 0; i < len && (map[(u8)s[i] >> 3] & (1 << ((u8)s[i] & 7))); i++)
		;
	if (i == len) {
		m->vc->strtok = 0;
		return 0;
	}
	for (j = 0; i < len && !(map[(u8)s[i] >> 3] & (1 << ((u8)s[i] & 7)));
	     i++)
		if (j < fit(m, len))
			d[j++] = s[i];
	d[j] = '\0';
	m->vc->strtok = base + i;
	*rv = (unsigned long)d;
	return 0;
}

/* basename and dirname as DTrace (and POSIX) define them. */
static int __xdt_probe path_part(struct xdt_mstate *m,
				 const struct xdt_tuple *t, u64 *rv, u32 pc,
				 int dir)
{
	char *d = scratch(m, m->strsize, pc), *s;
	u32 keep = m->scratch_used, len;
	int i, lastbase = -1, firstbase = -1, lastdir = -1, start, end, j;

	if (!d || !(s = sarg(m, ARG(0), pc, &len)))
		return -EFAULT;
	m->scratch_used = keep;
	if (!len) {
		s = ".";
		len = 1;
	}
	for (i = len - 1; i >= 0 && s[i] == '/'; i--)
		;
	if (i >= 0)
		lastbase = i;
	for (; i >= 0 && s[i] != '/'; i--)
		;
	if (i >= 0)
		firstbase = i + 1;
	for (; i >= 0 && s[i] == '/'; i--)
		;
	if (i >= 0)
		lastdir = i;
	if (lastbase == -1)		/* all slashes: "/" either way */
		firstbase = lastbase = lastdir = 0;
	if (firstbase == -1) {		/* no slash: dirname is "." */
		if (dir) {
			s = ".";
			lastdir = 0;
		} else {
			firstbase = 0;
		}
	}
	if (dir) {
		start = 0;
		end = lastdir == -1 ? 0 : lastdir;
	} else {
		start = firstbase;
		end = lastbase;
	}
	for (i = start, j = 0; i <= end && j < (int)m->strsize - 1; i++, j++)
		d[j] = s[i];
	d[j] = '\0';
	*rv = (unsigned long)d;
	return 0;
}

SUBR(BASENAME)
{
	return path_part(m, t, rv, pc, 0);
}

SUBR(DIRNAME)
{
	return path_part(m, t, rv, pc, 1);
}

/*
 * cleanpath: "//" and "/./" dropped, "dir/.." backed out, textually (no
 * lookups), with DTrace's exact quirks: a trailing "/." stays, and the
 * output stops 5 bytes short of strsize.
 */
SUBR(CLEANPATH)
{
	char *d = scratch(m, m->strsize, pc), *s;
	u32 keep = m->scratch_used, i = 0, j = 0;
	char c;

	if (!d || !(s = sarg(m, ARG(0), pc, NULL)))
		return -EFAULT;
	m->scratch_used = keep;
	c = s[i++];
	for (;;) {
		if (j + 5 >= m->strsize)
			break;
		if (c != '/') {
			d[j++] = c;
		} else if ((c = s[i++]) == '/') {
			continue;			/* "//": again at '/' */
		} else if (c != '.') {
			d[j++] = '/';
			d[j++] = c;
		} else if ((c = s[i++]) == '/') {
			continue;			/* "/./" */
		} else if (c != '.') {
			d[j++] = '/';
			d[j++] = '.';
			d[j++] = c;
		} else if ((c = s[i++]) != '/' && c) {
			d[j++] = '/';			/* "/..x" */
			d[j++] = '.';
			d[j++] = '.';
			d[j++] = c;
		} else {
			i--;				/* "/../" or "/..": up */
			while (j && d[--j] != '/')
				;
			if (!c)
				d[++j] = '/';
		}
		if (!c)
			break;
		c = s[i++];
	}
	d[j] = '\0';
	*rv = (unsigned long)d;
	return 0;
}

/*
 * lltostr(v[, base]): base 10 signed, any other base 2..36 as the
 * unsigned 64-bit pattern, 16 with "0x" and 8 with "0" (DTrace's).
 */
SUBR(LLTOSTR)
{
	u64 base = t->n > 1 ? ARG(1) : 10, v = ARG(0);
	char *d = scratch(m, 72, pc), *p;
	int neg = 0;

	if (!d)
		return -EFAULT;
	if (base < 2 || base > 36)
		return fault(m, XDT_FAULT_ILLOP, base, pc);
	if (base == 10 && (s64)v < 0) {
		neg = 1;
		v = -v;
	}
	p = d + 71;
	*p = '\0';
	do {
		u64 x = v % base;

		*--p = x < 10 ? '0' + x : 'a' + x - 10;
		v /= base;
	} while (v);
	if (base == 16) {
		*--p = 'x';
		*--p = '0';
	} else if (base == 8 && ARG(0)) {
		*--p = '0';
	}
	if (neg)
		*--p = '-';
	p[fit(m, d + 71 - p)] = '\0';
	*rv = (unsigned long)p;
	return 0;
}

static int __xdt_probe digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'Z')
		return c - 'A' + 10;
	return 99;
}

/* strtoll(s[, base]): blanks, a sign, "0x" in base 16, then digits. */
SUBR(STRTOLL)
{
	u64 base = t->n > 1 ? ARG(1) : 10, v = 0;
	u32 mark = m->scratch_used, i = 0;
	char *s;
	int neg = 0;

	if (base < 2 || base > 36)
		return fault(m, XDT_FAULT_ILLOP, base, pc);
	if (!(s = sarg(m, ARG(0), pc, NULL)))
		return -EFAULT;
	m->scratch_used = mark;
	while (s[i] == ' ' || s[i] == '\t')
		i++;
	if (s[i] == '-' || s[i] == '+')
		neg = s[i++] == '-';
	if (base == 16 && s[i] == '0' && (s[i + 1] == 'x' || s[i + 1] == 'X') &&
	    digit(s[i + 2]) < 16)
		i += 2;
	for (; s[i] && digit(s[i]) < base; i++)
		v = v * base + digit(s[i]);
	*rv = neg ? -v : v;
	return 0;
}

static int __xdt_probe recase(struct xdt_mstate *m, const struct xdt_tuple *t,
			      u64 *rv, u32 pc, int upper)
{
	char *d = scratch(m, m->strsize, pc), *s;
	u32 keep = m->scratch_used, len, i;

	if (!d || !(s = sarg(m, ARG(0), pc, &len)))
		return -EFAULT;
	m->scratch_used = keep;
	len = fit(m, len);
	s[len] = '\0';
	for (i = 0; i <= len; i++) {
		char c = s[i];

		if (upper && c >= 'a' && c <= 'z')
			c -= 'a' - 'A';
		else if (!upper && c >= 'A' && c <= 'Z')
			c += 'a' - 'A';
		d[i] = c;
	}
	*rv = (unsigned long)d;
	return 0;
}

SUBR(TOUPPER)
{
	return recase(m, t, rv, pc, 1);
}

SUBR(TOLOWER)
{
	return recase(m, t, rv, pc, 0);
}

/* ---- byte order, network addresses ------------------------------------------------ */
SUBR(HTONS)  { *rv = cpu_to_be16((u16)ARG(0)); return 0; }
SUBR(HTONL)  { *rv = cpu_to_be32((u32)ARG(0)); return 0; }
SUBR(HTONLL) { *rv = cpu_to_be64(ARG(0)); return 0; }
SUBR(NTOHS)  { *rv = be16_to_cpu((u16)ARG(0)); return 0; }
SUBR(NTOHL)  { *rv = be32_to_cpu((u32)ARG(0)); return 0; }
SUBR(NTOHLL) { *rv = be64_to_cpu(ARG(0)); return 0; }

static char *__xdt_probe put_dec(char *p, u32 v)
{
	char tmp[12];
	int n = 0;

	do {
		tmp[n++] = '0' + v % 10;
		v /= 10;
	} while (v);
	while (n)
		*p++ = tmp[--n];
	return p;
}

static char *__xdt_probe put_quad(char *p, const u8 *a)
{
	int i;

	for (i = 0; i < 4; i++) {
		if (i)
			*p++ = '.';
		p = put_dec(p, a[i]);
	}
	return p;
}

/*
 * An IPv6 address as DTrace writes it: lower-case hex groups, the first
 * longest run of zero groups as "::", and the IPv4-compatible and mapped
 * forms with their last 32 bits dotted (only those for @v4only).
 */
static char *__xdt_probe put_ip6(char *p, const u8 *a, int v4only)
{
	static const char hex[] = "0123456789abcdef";
	int ngroups = 8, best = -1, bestlen = 0, run = -1, i;
	bool hi64 = !memcmp(a, "\0\0\0\0\0\0\0\0", 8);
	bool compat = hi64 && !memcmp(a + 8, "\0\0\0\0", 4) &&
		      (a[12] | a[13] | a[14] || a[15] > 1);
	bool mapped = hi64 && a[8] == 0 && a[9] == 0 && a[10] == 0xff &&
		      a[11] == 0xff;

	if (compat || mapped) {
		if (v4only)
			return put_quad(p, a + 12);
		ngroups = 6;
	}
	for (i = 0; i <= ngroups; i++) {
		bool zero = i < ngroups && !a[2 * i] && !a[2 * i + 1];

		if (zero && run < 0)
			run = i;
		if (!zero && run >= 0) {
			if (i - run > bestlen) {
				best = run;
				bestlen = i - run;
			}
			run = -1;
		}
	}
	for (i = 0; i < ngroups; i++) {
		u16 g = a[2 * i] << 8 | a[2 * i + 1];
		char tmp[4];
		int n = 0;

		if (i == best) {
			*p++ = ':';
			*p++ = ':';
			i += bestlen - 1;
			continue;
		}
		if (i && i != best + bestlen)
			*p++ = ':';
		do {
			tmp[n++] = hex[g & 15];
			g >>= 4;
		} while (g);
		while (n)
			*p++ = tmp[--n];
	}
	if (ngroups == 6) {
		if (best + bestlen != 6)
			*p++ = ':';
		p = put_quad(p, a + 12);
	}
	return p;
}

static int __xdt_probe inet(struct xdt_mstate *m, u64 af, u64 addr,
			    u64 *rv, u32 pc, int v4only)
{
	char *d = scratch(m, 48, pc), *p;	/* INET6_ADDRSTRLEN */
	u8 a[16];
	int f;

	if (!d)
		return -EFAULT;
	if (af != AF_INET_LINUX && af != AF_INET6_LINUX)
		return fault(m, XDT_FAULT_ILLOP, af, pc);
	f = xdt_read(m, a, addr, af == AF_INET_LINUX ? 4 : 16);
	if (f)
		return fault(m, f, addr, pc);
	p = af == AF_INET_LINUX ? put_quad(d, a) : put_ip6(d, a, v4only);
	d[fit(m, p - d)] = '\0';
	*rv = (unsigned long)d;
	return 0;
}

SUBR(INET_NTOA)
{
	return inet(m, AF_INET_LINUX, ARG(0), rv, pc, 0);
}

SUBR(INET_NTOA6)
{
	return inet(m, AF_INET6_LINUX, ARG(0), rv, pc, 1);
}

SUBR(INET_NTOP)
{
	return inet(m, ARG(0), ARG(1), rv, pc, 0);
}

/* ---- processes, devices --------------------------------------------------------- */
SUBR(PROGENYOF)
{
	*rv = xdt_progenyof((s64)ARG(0));
	return 0;
}

/*
 * execargs(): the current process's argument list as one string, the
 * arguments joined by spaces -- what ps(1) shows, and what the D library
 * gives psinfo_t's pr_psargs.  Only the current process's: another's
 * user memory cannot be read from probe context.
 */
SUBR(EXECARGS)
{
	char *d = scratch(m, m->strsize, pc);

	if (!d)
		return -EFAULT;
	xdt_execargs(d, m->strsize);
	*rv = (unsigned long)d;
	return 0;
}

/*
 * d_path(struct path *), Oracle's DTrace for Linux's subroutine (and the
 * cwd/root inlines and fileinfo_t's fi_pathname in the D library): the
 * path from the current task's root, built by walking d_parent up to each
 * mount's root and across to the mount it sits on.  The kernel's d_path()
 * cannot be called from probe context (it takes rename_lock and
 * mount_lock, seqlocks whose writers a probe may interrupt), so the walk
 * is DTrace's: every field read fault-safely, no lock, a bounded number of
 * steps.  Trade-off: a rename or an unmount racing with the walk can give
 * a torn path (never a fault, never more than strsize); a path that is
 * not below the task's root ends at its mount tree's top, as the kernel's
 * d_absolute_path() does; and the kernel's own spellings for dentries
 * without a name in any directory ("pipe:[N]", " (deleted)") are not
 * made.  Two walks: the first measures, the second writes each name at
 * its place, so a path longer than strsize keeps its first strsize - 1
 * characters, as every other string does.
 */
#define D_PATH_STEPS	1024	/* names plus mount crossings */
#define D_NAME_MAX	255	/* NAME_MAX: a longer length is a torn read */

static int __xdt_probe rd64(struct xdt_mstate *m, u64 a, u64 *v)
{
	return xdt_read(m, v, a, sizeof(*v));
}

static int __xdt_probe path_walk(struct xdt_mstate *m,
				 const struct xdt_vfs_layout *L, u64 path,
				 u64 root, char *d, u64 total, u64 *lenp,
				 u32 pc)
{
	u64 mnt, dent, rmnt = 0, rdent = 0, a = path;
	u64 len = 0, mroot, mount, parent, name;
	u32 nlen, i, keep;
	int f;

	if ((f = rd64(m, path + L->path_mnt, &mnt)) ||
	    (f = rd64(m, path + L->path_dentry, &dent)))
		goto bad;
	if (root && (rd64(m, root + L->path_mnt, &rmnt) ||
		     rd64(m, root + L->path_dentry, &rdent)))
		rmnt = rdent = 0;	/* no root to stop at: the tree's top */
	for (i = 0; i < D_PATH_STEPS; i++) {
		if (dent == rdent && mnt == rmnt)
			break;
		a = mnt + L->vfsmount_root;
		if ((f = rd64(m, a, &mroot)))
			goto bad;
		if (dent == mroot) {
			mount = mnt - L->mount_mnt;
			a = mount + L->mount_parent;
			if ((f = rd64(m, a, &parent)))
				goto bad;
			if (parent == mount)
				break;		/* the namespace's top */
			a = mount + L->mount_mountpoint;
			if ((f = rd64(m, a, &dent)))
				goto bad;
			mnt = parent + L->mount_mnt;
			continue;
		}
		a = dent + L->dentry_parent;
		if ((f = rd64(m, a, &parent)))
			goto bad;
		if (parent == dent)
			break;			/* a root that is no mount's */
		a = dent + L->dentry_name_len;
		if ((f = xdt_read(m, &nlen, a, sizeof(nlen))))
			goto bad;
		a = dent + L->dentry_name;
		if ((f = rd64(m, a, &name)))
			goto bad;
		nlen = nlen > D_NAME_MAX ? D_NAME_MAX : nlen;
		len += 1 + nlen;
		if (d && total - len < m->strsize - 1) {
			/* this name's '/' lands at total - len */
			u64 at = total - len;

			keep = m->strsize - 1 - at > 1 + nlen ?
			       1 + nlen : m->strsize - 1 - at;
			d[at] = '/';
			if (keep > 1 && (f = xdt_read(m, d + at + 1, name,
						      keep - 1))) {
				a = name;
				goto bad;
			}
		}
		dent = parent;
	}
	*lenp = len;
	return 0;
bad:
	return fault(m, f, a, pc);
}

SUBR(D_PATH)
{
	u64 root = 0, total, len;
	const struct xdt_vfs_layout *L = xdt_vfs_layout(&root);
	char *d = scratch(m, m->strsize, pc);

	if (!d)
		return -EFAULT;
	if (!L)
		return fault(m, XDT_FAULT_ILLOP, ARG(0), pc);
	if (path_walk(m, L, ARG(0), root, NULL, 0, &total, pc) ||
	    path_walk(m, L, ARG(0), root, d, total, &len, pc))
		return -EFAULT;
	if (!total) {
		d[0] = '/';
		total = 1;
	}
	/*
	 * A path that changed between the walks keeps what the second one
	 * wrote where the first one's lengths put it: torn, still bounded.
	 */
	(void)len;
	d[fit(m, total)] = '\0';
	*rv = (unsigned long)d;
	return 0;
}

/* ---- kernel locks ----------------------------------------------------------- */
/*
 * DTrace's mutex_*() take illumos' kmutex_t *, its rw_*() a krwlock_t *.
 * Linux's counterparts are struct mutex -- a sleeping lock whose waiters
 * first spin while its owner runs: illumos' adaptive mutex, never a spin
 * one (Linux's spinlocks are another type) -- and struct rw_semaphore.
 * Each subroutine reads its lock's one word once, through the checked
 * load (a bad pointer is an ERROR, as DTrace's dtrace_loadptr), so the
 * bits it tests are one snapshot, and decodes it as Linux 6.1 does.  The
 * offsets are the kernel's (xdt_lock_layout); the bits are private to the
 * kernel's .c files, so they are copied here from 6.1:
 *   kernel/locking/mutex.c: MUTEX_FLAGS 0x07 (WAITERS, HANDOFF, PICKUP)
 *     in the owner word's low bits, the owning task_struct above them;
 *   kernel/locking/rwsem.c: RWSEM_WRITER_LOCKED bit 0, RWSEM_FLAG_WAITERS
 *     bit 1, the reader count from RWSEM_READER_SHIFT 8 up to
 *     RWSEM_FLAG_READFAIL, bit BITS_PER_LONG - 1 (every ISA here: 63).
 */
#define LK_MUTEX_FLAGS		0x07ULL
#define LK_RWSEM_WRITER_LOCKED	(1ULL << 0)
#define LK_RWSEM_FLAG_WAITERS	(1ULL << 1)
#define LK_RWSEM_READERS	(~0xffULL & ~(1ULL << 63))

static int __xdt_probe lockword(struct xdt_mstate *m, u64 lock, bool rwsem,
				u64 *w, u32 pc)
{
	const struct xdt_lock_layout *L = xdt_lock_layout();
	u64 a;
	int f;

	if (!L)
		return fault(m, XDT_FAULT_ILLOP, lock, pc);
	a = lock + (rwsem ? L->rwsem_count : L->mutex_owner);
	if ((f = rd64(m, a, w)))
		return fault(m, f, a, pc);
	return 0;
}

/* Linux's mutex_is_locked(): an owner, whatever the flags say. */
SUBR(MUTEX_OWNED)
{
	u64 w;

	if (lockword(m, ARG(0), false, &w, pc))
		return -EFAULT;
	*rv = (w & ~LK_MUTEX_FLAGS) != 0;
	return 0;
}

/* Linux's __mutex_owner(): the owning task, NULL if unlocked. */
SUBR(MUTEX_OWNER)
{
	u64 w;

	if (lockword(m, ARG(0), false, &w, pc))
		return -EFAULT;
	*rv = w & ~LK_MUTEX_FLAGS;
	return 0;
}

/* Every struct mutex is adaptive; the word is read for its fault only. */
SUBR(MUTEX_TYPE_ADAPTIVE)
{
	u64 w;

	if (lockword(m, ARG(0), false, &w, pc))
		return -EFAULT;
	*rv = 1;
	return 0;
}

SUBR(MUTEX_TYPE_SPIN)
{
	u64 w;

	if (lockword(m, ARG(0), false, &w, pc))
		return -EFAULT;
	*rv = 0;
	return 0;
}

/*
 * Held by readers: a reader count and no writer.  A reader that fails
 * its fast path adds its bias and takes it back (rwsem_down_read_slowpath),
 * so a count under a writer's lock is no reader holding it.
 */
SUBR(RW_READ_HELD)
{
	u64 w;

	if (lockword(m, ARG(0), true, &w, pc))
		return -EFAULT;
	*rv = !(w & LK_RWSEM_WRITER_LOCKED) && (w & LK_RWSEM_READERS);
	return 0;
}

SUBR(RW_WRITE_HELD)
{
	u64 w;

	if (lockword(m, ARG(0), true, &w, pc))
		return -EFAULT;
	*rv = (w & LK_RWSEM_WRITER_LOCKED) != 0;
	return 0;
}

/*
 * "Held or desired by a writer".  The count has no writer-wanted bit
 * (illumos' RW_WRITE_WANTED); it has RWSEM_FLAG_WAITERS, and on 6.1 a
 * reader queues only behind a writer that holds the lock or waits for it
 * (a waiter of either kind fails the readers' fast path), so a writer's
 * lock or any waiter is a writer's.  Trade-off: a queue left with readers
 * only (a killed writer's, until rwsem_mark_wake() empties it) counts too;
 * telling would need the first waiter's type, in a struct private to
 * rwsem.c.
 */
SUBR(RW_ISWRITER)
{
	u64 w;

	if (lockword(m, ARG(0), true, &w, pc))
		return -EFAULT;
	*rv = (w & (LK_RWSEM_WRITER_LOCKED | LK_RWSEM_FLAG_WAITERS)) != 0;
	return 0;
}

/* Linux's dev_t inside the kernel: 12 bits of major, 20 of minor. */
SUBR(GETMAJOR) { *rv = (u32)ARG(0) >> 20; return 0; }
SUBR(GETMINOR) { *rv = (u32)ARG(0) & ((1u << 20) - 1); return 0; }

/* ---- json ------------------------------------------------------------------------ */
/*
 * json(text, selector), illumos' subroutine: the value the selector names
 * ("a.b[2].c"; a bare number indexes an array), as text -- a string without
 * its quotes (escapes left as written), any other value as it is written,
 * objects and arrays whole -- or NULL if the selector names nothing or the
 * text is not JSON up to that value.  Parsed lazily from the start, without
 * recursion (nesting bounded at 64), within strsize.
 */
struct jp {
	const char *s;
	u32 i, n;
};

static void __xdt_probe jws(struct jp *p)
{
	while (p->i < p->n && (p->s[p->i] == ' ' || p->s[p->i] == '\t' ||
			       p->s[p->i] == '\n' || p->s[p->i] == '\r'))
		p->i++;
}

static bool __xdt_probe jend(const struct jp *p)
{
	char c = p->i < p->n ? p->s[p->i] : 0;

	return c == ',' || c == ']' || c == '}' || c == ' ' || c == '\t' ||
	       c == '\n' || c == '\r';
}

/* A string at p->i: its contents are [*a, p->i - 1). */
static int __xdt_probe jstr(struct jp *p, u32 *a)
{
	if (p->i >= p->n || p->s[p->i] != '"')
		return -1;
	*a = ++p->i;
	while (p->i < p->n && p->s[p->i] != '"') {
		if (p->s[p->i++] != '\\')
			continue;
		if (p->i >= p->n)
			return -1;
		if (p->s[p->i] == 'u') {
			u32 k;

			for (k = 1; k <= 4; k++)
				if (p->i + k >= p->n || digit(p->s[p->i + k]) > 15)
					return -1;
			p->i += 5;
		} else if (strchr("\"\\/bfnrt", p->s[p->i]) && p->s[p->i]) {
			p->i++;
		} else {
			return -1;
		}
	}
	if (p->i >= p->n)
		return -1;
	p->i++;
	return 0;
}

static int __xdt_probe jscalar(struct jp *p)
{
	static const char *const words[] = { "true", "false", "null" };
	u32 a, k;

	if (p->s[p->i] == '"')
		return jstr(p, &a) ? -1 : 0;
	for (k = 0; k < 3; k++) {
		u32 l = strlen(words[k]);

		if (p->n - p->i >= l && !memcmp(p->s + p->i, words[k], l)) {
			p->i += l;
			return jend(p) ? 0 : -1;
		}
	}
	/* -?int(.digits)?([eE][+-]?digits)? */
	if (p->s[p->i] == '-')
		p->i++;
	for (a = p->i; p->i < p->n && digit(p->s[p->i]) < 10; p->i++)
		;
	if (p->i == a)
		return -1;
	if (p->i < p->n && p->s[p->i] == '.') {
		for (a = ++p->i; p->i < p->n && digit(p->s[p->i]) < 10; p->i++)
			;
		if (p->i == a)
			return -1;
	}
	if (p->i < p->n && (p->s[p->i] == 'e' || p->s[p->i] == 'E')) {
		p->i++;
		if (p->i < p->n && (p->s[p->i] == '+' || p->s[p->i] == '-'))
			p->i++;
		for (a = p->i; p->i < p->n && digit(p->s[p->i]) < 10; p->i++)
			;
		if (p->i == a)
			return -1;
	}
	return jend(p) ? 0 : -1;
}

/* "key" : -- the key's contents in [*a, *b). */
static int __xdt_probe jkey(struct jp *p, u32 *a, u32 *b)
{
	jws(p);
	if (jstr(p, a))
		return -1;
	*b = p->i - 1;
	jws(p);
	if (p->i >= p->n || p->s[p->i] != ':')
		return -1;
	p->i++;
	return 0;
}

/* Skip the value at p->i, checking its syntax. */
static int __xdt_probe jskip(struct jp *p)
{
	u64 objs = 0;			/* one bit per open container */
	u32 depth = 0, a, b;
	char c;

	for (;;) {
		jws(p);
		if (p->i >= p->n)
			return -1;
		c = p->s[p->i];
		if (c == '{' || c == '[') {
			if (depth == 64)
				return -1;
			objs = objs << 1 | (c == '{');
			depth++;
			p->i++;
			jws(p);
			if (p->i < p->n && p->s[p->i] == (c == '{' ? '}' : ']')) {
				p->i++;
				objs >>= 1;
				depth--;
			} else {
				if (c == '{' && jkey(p, &a, &b))
					return -1;
				continue;
			}
		} else if (jscalar(p)) {
			return -1;
		}
		/* after a value: close containers, or go on to the next */
		for (;;) {
			if (!depth)
				return 0;
			jws(p);
			if (p->i >= p->n)
				return -1;
			c = p->s[p->i];
			if (c == ',') {
				p->i++;
				if ((objs & 1) && jkey(p, &a, &b))
					return -1;
				break;
			}
			if (c != ((objs & 1) ? '}' : ']'))
				return -1;
			p->i++;
			objs >>= 1;
			depth--;
		}
	}
}

/* Move to element @k of the array at p->i. */
static int __xdt_probe jindex(struct jp *p, u64 k)
{
	u64 j;

	p->i++;
	jws(p);
	if (p->i >= p->n || p->s[p->i] == ']')
		return -1;
	for (j = 0; j < k; j++) {
		if (jskip(p))
			return -1;
		jws(p);
		if (p->i >= p->n || p->s[p->i] != ',')
			return -1;
		p->i++;
	}
	jws(p);
	return 0;
}

/* Move to the value of key @key (@len bytes) of the object at p->i. */
static int __xdt_probe jmember(struct jp *p, const char *key, u32 len)
{
	u32 a, b;

	p->i++;
	jws(p);
	if (p->i >= p->n || p->s[p->i] == '}')
		return -1;
	for (;;) {
		if (jkey(p, &a, &b))
			return -1;
		jws(p);
		if (b - a == len && !memcmp(p->s + a, key, len))
			return 0;
		if (jskip(p))
			return -1;
		jws(p);
		if (p->i >= p->n || p->s[p->i] != ',')
			return -1;
		p->i++;
	}
}

SUBR(JSON)
{
	char *d = scratch(m, m->strsize, pc), *text, *sel;
	u32 keep = m->scratch_used, sl, k = 0, a;
	struct jp p;

	if (!d || !(text = sarg(m, ARG(0), pc, &p.n)) ||
	    !(sel = sarg(m, ARG(1), pc, &sl)))
		return -EFAULT;
	m->scratch_used = keep;
	*rv = 0;
	p.s = text;
	p.i = 0;
	jws(&p);
	while (k < sl) {
		u32 start = k;
		u64 idx = 0;
		bool num = true;

		if (sel[k] == '[') {
			for (k++; k < sl && sel[k] != ']'; k++) {
				if (digit(sel[k]) > 9)
					return 0;
				idx = idx * 10 + digit(sel[k]);
			}
			if (k == sl || k == start + 1)
				return 0;
			k++;
			if (p.i >= p.n || p.s[p.i] != '[' || jindex(&p, idx))
				return 0;
		} else {
			while (k < sl && sel[k] != '.' && sel[k] != '[') {
				num &= digit(sel[k]) < 10;
				idx = idx * 10 + digit(sel[k]);
				k++;
			}
			if (k == start || p.i >= p.n)
				return 0;
			if (p.s[p.i] == '[' && num) {
				if (jindex(&p, idx))
					return 0;
			} else if (p.s[p.i] != '{' ||
				   jmember(&p, sel + start, k - start)) {
				return 0;
			}
		}
		if (k < sl && sel[k] == '.' && ++k == sl)
			return 0;
	}
	if (p.i >= p.n)
		return 0;
	if (p.s[p.i] == '"') {
		if (jstr(&p, &a))
			return 0;
		k = p.i - 1;
	} else {
		a = p.i;
		if (jskip(&p))
			return 0;
		k = p.i;
	}
	k = a + fit(m, k - a);
	memcpy(d, text + a, k - a);
	d[k - a] = '\0';
	*rv = (unsigned long)d;
	return 0;
}

static const struct {
	const char *args;
	subr_fn fn;
	u32 flags;
} subrs[DIF_NSUBRS] = {
#define X(name, idx, str, rt, args, fl) [idx] = { args, subr_##name, fl },
	DIF_SUBRS(X)
#undef X
};

/* For the verifier: may a program without -w call subroutine @subr? */
bool xdt_subr_destructive(u32 subr)
{
	return subr < DIF_NSUBRS && (subrs[subr].flags & DIF_SF_DESTR);
}

/*
 * Arguments are the whole tuple stack (consumed): their count between the
 * row's required and all, and each one's kind ('S': string or NULL).
 */
int __xdt_probe xdt_subr_call(struct xdt_mstate *m, struct xdt_tuple *t,
			      u32 subr, u64 *rv, u32 pc)
{
	const char *k = subrs[subr].args;
	u32 i, n = t->n;
	bool opt = false;

	t->n = 0;
	for (i = 0; i < n; i++, k++) {
		if (*k == '|') {
			opt = true;
			k++;
		}
		if (!*k || (*k == 's' && !t->e[i].str) ||
		    (*k == 'i' && t->e[i].str) ||
		    (*k == 'S' && !t->e[i].str && t->e[i].v))
			goto bad;
	}
	if (*k && *k != '|' && !opt)
		goto bad;
	t->n = n;		/* the function reads its arguments there */
	i = subrs[subr].fn(m, t, rv, pc);
	t->n = 0;
	return i;
bad:
	xdt_dif_fault(m, XDT_FAULT_ILLOP, subr, pc);
	return -EINVAL;
}
